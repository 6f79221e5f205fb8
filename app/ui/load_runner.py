"""The window's reads: one state request at a time on the load thread, its progress dialog, cancelling,
and the result handed back by what the request was for."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget

from app import loading
from app.state.load_requests import ClipsRequest, LoadRequest, OtherSkeletonRequest
from app.ui.loader import BackgroundLoader

#: A load that takes longer than this shows a progress dialog.
PROGRESS_DELAY_MS = 400

ReadRequest = LoadRequest | ClipsRequest | OtherSkeletonRequest


@dataclass(frozen=True)
class PendingRead:
    """The read under way: the state's request and the loader's number for it."""

    request: ReadRequest
    number: int


class LoadRunner(QObject):
    """Reads what a state request asks (``loading.load`` in a worker thread) behind a progress dialog
    that can cancel it; a new read replaces the one under way.

    When the read ends, one signal says what it was for: ``model_read(model, request)`` for a
    LoadRequest (a model to show), ``clips_read(model)`` for a ClipsRequest (attached files read
    alone), ``other_skeleton_read(model)`` for an OtherSkeletonRequest; ``failed(error, request)``
    when it raised; ``cancelled()`` when the user cancelled it.
    """

    model_read = Signal(object, object)
    clips_read = Signal(object)
    other_skeleton_read = Signal(object)
    failed = Signal(object, object)
    cancelled = Signal()

    def __init__(self, window: QWidget):
        super().__init__(window)
        self.window = window
        self.loader = BackgroundLoader(self)
        self.loader.loaded.connect(self._loaded)
        self.loader.failed.connect(self._failed)
        self.pending: PendingRead | None = None
        self._progress: QProgressDialog | None = None

    def start(self, request: ReadRequest) -> int:
        """Read ``request``'s paths with its options; returns the read's number."""
        paths, options = request.paths, request.options
        number = self.loader.start(lambda: loading.load([Path(p) for p in paths], options))
        self.pending = PendingRead(request, number)
        self._show_progress(list(paths), number)
        return number

    def forget(self) -> None:
        """Drop the read under way: its result will not be handed back."""
        self.loader.cancel()
        self.pending = None

    def cancel(self, number: int) -> None:
        """The user cancelled read ``number``: dropped, if it is still the one under way."""
        if self.pending is not None and self.pending.number == number:
            self.forget()
            self.close_progress()
            self.cancelled.emit()

    def close_progress(self) -> None:
        if self._progress is not None:
            self._progress.canceled.disconnect()
            self._progress.reset()
            self._progress.deleteLater()
            self._progress = None

    def _show_progress(self, paths: list[str], number: int) -> None:
        self.close_progress()
        progress = QProgressDialog(f"Reading {', '.join(Path(p).name for p in paths)}…", "Cancel", 0, 0,
                                   self.window)
        progress.setWindowTitle("Opening")
        progress.setWindowModality(Qt.WindowModality.WindowModal)
        progress.canceled.connect(lambda: self.cancel(number))
        progress.hide()
        self._progress = progress
        # Shown by this timer: a busy dialog (no value to set) reaches QProgressDialog's own only after 4 s.
        QTimer.singleShot(PROGRESS_DELAY_MS, progress, progress.show)

    def _finished(self) -> ReadRequest | None:
        """The request of the read that just ended, no longer pending."""
        pending, self.pending = self.pending, None
        self.close_progress()
        return None if pending is None else pending.request

    def _loaded(self, model, number: int) -> None:
        request = self._finished()
        if isinstance(request, OtherSkeletonRequest):
            self.other_skeleton_read.emit(model)
        elif isinstance(request, ClipsRequest):
            self.clips_read.emit(model)
        else:
            self.model_read.emit(model, request)

    def _failed(self, error: Exception, number: int) -> None:
        self.failed.emit(error, self._finished())
