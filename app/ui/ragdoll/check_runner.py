"""Check Profile on a worker thread: the standard trial (``physics/trial.py``) takes seconds, during
which the window froze (2.2–2.8 s). The trial reads the loaded model (which never changes), a copy of
the profile and a pybullet world of its own, so the user may go on while it runs."""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Signal


class CheckRunner(QObject):
    """Runs ``check`` (a call taking ``progress(share)`` and returning the report) on a thread.
    Signals, delivered on the GUI thread: ``progressed(int)`` percent done, ``finished(dict)`` the
    report, ``failed(str)`` why there is none."""

    progressed = Signal(int)
    finished = Signal(dict)
    failed = Signal(str)

    def __init__(self, make_check, parent=None):
        super().__init__(parent)
        self._make_check = make_check
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        check = self._make_check(lambda share: self.progressed.emit(round(100 * share)))
        self._thread = threading.Thread(target=self._run, args=(check,), name="check-profile", daemon=True)
        self._thread.start()

    def _run(self, check) -> None:
        try:
            report = check()
        except Exception as error:  # noqa: BLE001 - a profile pybullet refuses is the user's to fix
            self.failed.emit(str(error))
            return
        self.finished.emit(report)
