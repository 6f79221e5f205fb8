"""Long exports off the GUI thread (File › Export glTF of a creature with 150 clips takes seconds,
Export Pose of a large mesh as JSON a second): the export runs in a worker thread behind a progress
dialog with Cancel, writing as every output is written (app/atomic_files.py: aside, then renamed, a
glTF with its buffer together). Cancel leaves the target as it was: the worker, which cannot be
stopped mid-file, finds the write given up before it puts the files in place (``abandoned_when``)
and removes them."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget

from app.atomic_files import abandoned_when
from app.state.exports import Exported
from app.ui.loader import BackgroundLoader

#: An export that takes longer than this shows its progress dialog (milliseconds).
PROGRESS_DELAY_MS = 200


class BackgroundExport(QObject):
    """One export at a time: ``finished(Exported)`` with the target's path once it is in place,
    ``failed(error)`` when the export raised, ``cancelled()`` when the user cancelled it."""

    finished = Signal(object)
    failed = Signal(object)
    cancelled = Signal()

    def __init__(self, window: QWidget):
        super().__init__(window)
        self.window = window
        self.loader = BackgroundLoader(self)
        self.loader.loaded.connect(self._written)
        self.loader.failed.connect(self._failed)
        self.target: Path | None = None
        #: The running (or last) export's title, for its dialogs ("Export glTF", "Export Pose").
        self.title = ""
        self._cancel = threading.Event()
        self._progress: QProgressDialog | None = None

    @property
    def running(self) -> bool:
        return self.target is not None

    def start(self, title: str, target: Path, export: Callable[[Path], Exported]) -> None:
        """Run ``export(target)`` in a worker thread; Cancel gives the write up."""
        self.target, self.title, self._cancel = target, title, threading.Event()
        cancel = self._cancel

        def job() -> Exported:
            with abandoned_when(cancel.is_set):
                return export(target)

        self.loader.start(job)
        progress = QProgressDialog(f"Writing {target.name}…", "Cancel", 0, 0, self.window)
        progress.setWindowTitle(title)
        progress.setWindowModality(Qt.WindowModality.WindowModal)
        progress.canceled.connect(self.cancel)
        progress.hide()
        self._progress = progress
        # Shown by this timer: a busy dialog (no value to set) never reaches QProgressDialog's own.
        QTimer.singleShot(PROGRESS_DELAY_MS, progress, progress.show)

    def cancel(self) -> None:
        """Stop waiting: the target is left as it was and the temporary removed when the worker ends
        (nothing when no export runs)."""
        if self.target is None:
            return
        self._cancel.set()
        self.loader.cancel()
        self._end()
        self.cancelled.emit()

    def _written(self, exported: Exported, _number: int) -> None:
        self._end()
        self.finished.emit(exported)

    def _failed(self, error: Exception, _number: int) -> None:
        self._end()
        self.failed.emit(error)

    def _end(self) -> Path | None:
        target, self.target = self.target, None
        if self._progress is not None:
            self._progress.canceled.disconnect()
            self._progress.reset()
            self._progress.deleteLater()
            self._progress = None
        return target
