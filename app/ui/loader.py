"""Loading files off the UI thread, so a long load shows progress and can be cancelled."""

from __future__ import annotations

import queue
import threading
from typing import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from app.model import Model

#: How often the UI thread looks for a finished job while one runs (milliseconds).
POLL_MS = 20


class BackgroundLoader(QObject):
    """Runs load jobs in worker threads and reports back on the UI thread.

    ``loaded(model, request)`` or ``failed(error, request)`` is emitted when the job ends, with the
    request number ``start`` returned; a cancelled or superseded job's result is dropped (readers
    cannot be interrupted mid-file, so the worker finishes on its own and is then ignored).

    The worker touches no Qt object: it puts its result in a queue that a timer on the UI thread
    empties. A window closed while a file is still loading therefore cannot be signalled from a
    thread after Qt has deleted it.
    """

    loaded = Signal(object, int)
    failed = Signal(object, int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._request = 0
        self._active: int | None = None
        self._results: queue.SimpleQueue = queue.SimpleQueue()
        self._poll = QTimer(self)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self._deliver)

    def start(self, job: Callable[[], Model]) -> int:
        """Run ``job`` in a worker thread; returns its request number."""
        self._request += 1
        self._active = self._request
        threading.Thread(target=_run, args=(job, self._request, self._results), daemon=True,
                         name=f"load-{self._request}").start()
        self._poll.start()
        return self._request

    @property
    def waiting(self) -> bool:
        """Whether a job's result may still be delivered (False: nothing more will be emitted)."""
        return self._poll.isActive()

    def cancel(self) -> None:
        """Forget the running job: its result will not be delivered."""
        self._active = None
        self._poll.stop()

    def _deliver(self) -> None:
        while self._active is not None:
            try:
                request, model, error = self._results.get_nowait()
            except queue.Empty:
                return
            if request != self._active:
                continue
            self._active = None
            self._poll.stop()
            if error is not None:
                self.failed.emit(error, request)
            else:
                self.loaded.emit(model, request)
        self._poll.stop()


def _run(job: Callable[[], Model], request: int, results: queue.SimpleQueue) -> None:
    """The worker: the job's model or its error, into ``results``."""
    try:
        results.put((request, job(), None))
    except Exception as error:  # noqa: BLE001 - every failure is reported to the UI
        results.put((request, None, error))
