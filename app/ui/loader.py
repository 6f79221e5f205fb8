"""Loading files off the UI thread, so a long load shows progress and can be cancelled."""

from __future__ import annotations

import threading
from typing import Callable

from PySide6.QtCore import QObject, Signal

from app.model import Model


class BackgroundLoader(QObject):
    """Runs one load job at a time in a worker thread and reports back on the UI thread.

    ``loaded(model, request)`` or ``failed(error, request)`` is emitted when the job ends, with the
    request number ``start`` returned; a cancelled or superseded job's result is dropped (readers
    cannot be interrupted mid-file, so the worker finishes on its own and is then ignored).
    """

    loaded = Signal(object, int)
    failed = Signal(object, int)
    # Emitted from the worker thread; Qt queues them to this object's (the UI) thread.
    _relay_loaded = Signal(object, int)
    _relay_failed = Signal(object, int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._request = 0
        self._active: int | None = None
        self._lock = threading.Lock()
        self._relay_loaded.connect(self._deliver_loaded)
        self._relay_failed.connect(self._deliver_failed)

    def start(self, job: Callable[[], Model]) -> int:
        """Run ``job`` in a worker thread; returns its request number."""
        with self._lock:
            self._request += 1
            request = self._request
            self._active = request
        threading.Thread(target=self._run, args=(job, request), daemon=True,
                         name=f"load-{request}").start()
        return request

    def cancel(self) -> None:
        """Forget the running job: its result will not be delivered."""
        with self._lock:
            self._active = None

    def _run(self, job: Callable[[], Model], request: int) -> None:
        try:
            model = job()
        except Exception as error:  # noqa: BLE001 - every failure is reported to the UI
            self._relay_failed.emit(error, request)
        else:
            self._relay_loaded.emit(model, request)

    def _claim(self, request: int) -> bool:
        """True once for the current request (then the loader is idle again)."""
        with self._lock:
            if request != self._active:
                return False
            self._active = None
            return True

    def _deliver_loaded(self, model: Model, request: int) -> None:
        if self._claim(request):
            self.loaded.emit(model, request)

    def _deliver_failed(self, error: Exception, request: int) -> None:
        if self._claim(request):
            self.failed.emit(error, request)
