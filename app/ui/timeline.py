"""The timeline dock: clip picker, play/pause, and a scrub bar. It keeps no state of its own:
widgets write to the Playback and redraw from it."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import (QComboBox, QDockWidget, QHBoxLayout, QLabel, QPushButton, QSlider,
                               QWidget)

from app.playback import Playback

#: Scrub bar steps per second of clip.
SLIDER_STEPS_PER_SECOND = 1000


class TimelineDock(QDockWidget):
    def __init__(self, parent=None):
        super().__init__("Timeline", parent)
        self.setObjectName("timeline")
        self.playback: Playback | None = None
        body = QWidget(self)
        layout = QHBoxLayout(body)
        self.clips = QComboBox(body)
        self.play = QPushButton("Play", body)
        self.play.setCheckable(True)
        self.play.setShortcut(Qt.Key.Key_Space)
        self.slider = QSlider(Qt.Orientation.Horizontal, body)
        self.time_label = QLabel(body)
        self.time_label.setMinimumWidth(140)
        for widget in (self.clips, self.play):
            layout.addWidget(widget)
        layout.addWidget(self.slider, stretch=1)
        layout.addWidget(self.time_label)
        self.setWidget(body)
        self.clips.currentIndexChanged.connect(self._clip_chosen)
        self.play.toggled.connect(lambda on: self.playback and self.playback.set_playing(on))
        self.slider.valueChanged.connect(self._scrubbed)

    def bind(self, playback: Playback) -> None:
        self.playback = playback
        with QSignalBlocker(self.clips):
            self.clips.clear()
            self.clips.addItems([clip.name for clip in playback.model.clips] or ["(bind pose)"])
        playback.subscribe(self.refresh)
        self.refresh()

    def _clip_chosen(self, index: int) -> None:
        if self.playback is not None and self.playback.model.clips and index >= 0:
            self.playback.set_clip(index)

    def _scrubbed(self, value: int) -> None:
        if self.playback is not None and self.playback.clip is not None:
            self.playback.set_time(self.playback.clip.start + value / SLIDER_STEPS_PER_SECOND)

    def refresh(self) -> None:
        playback = self.playback
        clip = playback.clip
        with QSignalBlocker(self.slider), QSignalBlocker(self.play), QSignalBlocker(self.clips):
            self.clips.setEnabled(clip is not None)
            self.play.setEnabled(clip is not None)
            self.slider.setEnabled(clip is not None)
            self.play.setChecked(playback.playing)
            self.play.setText("Pause" if playback.playing else "Play")
            if clip is None:
                self.time_label.setText("bind pose")
                return
            self.clips.setCurrentIndex(playback.clip_index)
            self.slider.setRange(0, int(round(clip.duration * SLIDER_STEPS_PER_SECOND)))
            self.slider.setValue(int(round((playback.time - clip.start) * SLIDER_STEPS_PER_SECOND)))
            self.time_label.setText(f"{playback.time:7.3f} s / {clip.start + clip.duration:.3f} s")
