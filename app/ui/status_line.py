"""The main window's permanent status bar fields: the warnings button, the model's files and counts,
and the real frame rate of the view."""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel, QStatusBar, QToolButton

from app.model import Model
from app.ui.elided_text import ElidedLabel

#: The widest frame-time text the status bar shows: its field keeps this width, whatever else is there.
WIDEST_FRAME_TIME = "9999 fps · draw 999.9 ms"
#: How often the frame rate is measured and shown (milliseconds).
FRAME_RATE_MS = 500


class StatusLine:
    """The fields ``status_bar`` keeps on its right. ``show_warnings`` (a slot) shows the warnings
    dock; the frame rate is that of ``viewport``, measured by ``frame_timer`` while a model shows."""

    def __init__(self, status_bar: QStatusBar, viewport, show_warnings):
        self.viewport = viewport
        self.warnings_button = QToolButton(status_bar)
        self.warnings_button.setAutoRaise(True)
        self.warnings_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.warnings_button.clicked.connect(show_warnings)
        self.warnings_button.hide()
        self.file_label, self.counts_label, self.frame_label = ElidedLabel(), QLabel(), QLabel()
        self.frame_label.setMinimumWidth(self.frame_label.fontMetrics().horizontalAdvance(WIDEST_FRAME_TIME))
        status_bar.addPermanentWidget(self.warnings_button)
        for label in (self.file_label, self.counts_label, self.frame_label):
            status_bar.addPermanentWidget(label)
        self._model_shown = False
        self._frames_counted = (0, time.perf_counter())
        self.frame_timer = QTimer(status_bar)
        self.frame_timer.timeout.connect(self._show_frame_time)
        self.frame_timer.start(FRAME_RATE_MS)

    def show_model(self, model: Model, warning_count: int) -> str:
        """The model's files (its name when it has none) and counts; returns the files' names."""
        self._model_shown = True
        names = " + ".join(Path(f).name for f in model.files) or model.name
        self.file_label.setText(names)
        triangles = model.triangle_count
        self.counts_label.setText(f"{model.vertex_count:,} vertices   "
                                  f"{'no' if triangles is None else f'{triangles:,}'} triangles   "
                                  f"{len(model.skeleton)} bones")
        self.show_warning_count(warning_count)
        return names

    def show_warning_count(self, count: int) -> None:
        self.warnings_button.setVisible(bool(count))
        self.warnings_button.setText(f"⚠ {count} warning{'s' if count != 1 else ''}")
        self.warnings_button.setToolTip("Show every warning of this model (View › Warnings)")

    def _show_frame_time(self) -> None:
        """The frames painted per second since the last update, and the last frame's drawing time; a
        view that drew nothing since then (nothing moves) says so rather than "0 fps"."""
        frames, since = self._frames_counted
        now = time.perf_counter()
        self._frames_counted = (self.viewport.frames_drawn, now)
        if self._model_shown:
            drawn = self.viewport.frames_drawn - frames
            rate = f"{drawn / max(now - since, 1e-6):.0f} fps" if drawn else "still"
            self.frame_label.setText(f"{rate} · draw {self.viewport.frame_seconds * 1e3:.1f} ms")
