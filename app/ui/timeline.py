"""The timeline dock: clip picker, transport buttons, speed, time and frame fields, the fps setting
and the scrub bar. It keeps no playback state of its own: attached to a ViewerState it binds each
model's Playback, whose setters its widgets and actions call and whose changes it redraws
(``refresh`` runs on every change, about 60 times a second while playing, so it only sets values on
existing widgets)."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QPointF, QRectF, QSignalBlocker, Qt, Signal
from PySide6.QtGui import QAction, QIcon, QKeySequence, QPainter, QPixmap, QPolygonF, QTransform
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QComboBox,
    QDockWidget,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QSpinBox,
    QStyle,
    QToolButton,
    QWidget,
)

from app.animation.root_motion import root_travel
from app.model import Clip, Model
from app.state.clip_measures import frame_rate
from app.state.playback import Playback
from app.state.viewer import ActionError, ViewerState
from app.ui.elided_text import ElidedComboBox
from app.ui.mix_row import MixRow
from app.ui.scrub_bar import ScrubBar

#: Speed factors offered in the speed box (below 1: slow motion).
SPEEDS = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0)
#: What the fps box allows: frames per second for formats that store frames without times.
FPS_RANGE = (1.0, 1000.0)
#: Side of the drawn transport icons in pixels (buttons scale them down).
ICON_SIZE = 32
#: Characters of a clip's name the clip list shows at least (longer names elide in the middle).
CLIP_NAME_CHARACTERS = 12
#: The fps box's value until ``set_fps``: the readers' own default when LoadOptions.fps is None.
DEFAULT_FPS = 30.0
#: What the read-only fps box shows for a clip whose frames do not step evenly.
NO_RATE = "no rate"
EDITABLE_RATE_TIP = "Frames per second for files that store frames without times (reloads the model)"


def travel_text(model: Model, clip: Clip) -> str:
    """The clip's root motion as the clip list's tooltip gives it (``info``'s root_travel and
    root_speed)."""
    travel, speed = root_travel(model, clip)
    return f"the root travels {travel:.3g} ({speed:.3g} per second)"


class TimelineDock(QDockWidget):
    """Signals: ``fps_changed(fps)`` when the user sets frames per second (the owner reloads the
    model with it). ``playback_actions()`` lists the transport QActions and their shortcuts."""

    fps_changed = Signal(float)

    def __init__(self, parent=None):
        super().__init__("Timeline", parent)
        self.setObjectName("timeline")
        self.playback: Playback | None = None
        self._stop_listening: Callable[[], None] | None = None
        #: Whether the model's format stores frames without times (the fps box sets their rate), and
        #: the rate it was read at.
        self._fps_editable, self._chosen_fps = False, DEFAULT_FPS
        self._make_actions()
        body = QWidget(self)
        self._make_widgets(body)
        self._lay_out(body)
        self.setWidget(body)
        self._connect()
        self._enable(False)

    # --- building -------------------------------------------------------------------------------

    def _action(self, text: str, shortcut: str, icon: QIcon, checkable: bool = False) -> QAction:
        """A window-wide action on this dock; its tooltip names its shortcut."""
        action = QAction(icon, text, self)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
            keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            action.setToolTip(f"{text} ({keys})")
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.setCheckable(checkable)
        self.addAction(action)
        return action

    def _standard_icon(self, name: str) -> QIcon:
        return self.style().standardIcon(getattr(QStyle.StandardPixmap, name))

    def _make_actions(self) -> None:
        icon = self._standard_icon
        step_forward = frame_step_icon(self.palette().windowText().color())
        self.play_action = self._action("Play / Pause", "Space", icon("SP_MediaPlay"), checkable=True)
        self.start_action = self._action("Go to Start", "Home", icon("SP_MediaSkipBackward"))
        self.previous_key_action = self._action("Previous Key", "Shift+Left", icon("SP_MediaSeekBackward"))
        self.previous_frame_action = self._action("Previous Frame", "Left", mirrored(step_forward))
        self.next_frame_action = self._action("Next Frame", "Right", step_forward)
        self.next_key_action = self._action("Next Key", "Shift+Right", icon("SP_MediaSeekForward"))
        self.end_action = self._action("Go to End", "End", icon("SP_MediaSkipForward"))
        self.loop_action = self._action("Loop", "L", icon("SP_BrowserReload"), checkable=True)
        self.reverse_action = self._action("Play Backwards", "R", mirrored(icon("SP_MediaPlay")),
                                           checkable=True)
        self.mix_action = QAction("&Mix Clips", self)
        self.mix_action.setCheckable(True)
        self.mix_action.setIconText("Mix")
        self.mix_action.setToolTip("A second clip with the chosen one: cross-fade, blend or add, "
                                   "optionally under one bone (a row below)")

    def playback_actions(self) -> list[QAction]:
        """The transport actions in menu order, for a Playback menu and the shortcuts list."""
        return [self.play_action, self.reverse_action, self.loop_action, self.start_action, self.end_action,
                self.previous_frame_action, self.next_frame_action, self.previous_key_action,
                self.next_key_action]

    def _make_widgets(self, body: QWidget) -> None:
        self.clips = ElidedComboBox(body)
        self.clips.setMinimumContentsLength(CLIP_NAME_CHARACTERS)
        self.speed = QComboBox(body)
        for speed in SPEEDS:
            self.speed.addItem(f"{speed:g}×", speed)
        self.speed.setToolTip("Playback speed (below 1×: slow motion)")
        self.time_box = _spin_box(QDoubleSpinBox(body), "Current time in seconds")
        self.time_box.setDecimals(3)
        self.time_box.setSuffix(" s")
        self.time_box.setSingleStep(0.01)
        self.end_label = QLabel(body)
        self.frame_box = _spin_box(QSpinBox(body), "Current stored frame (0 is the first)")
        self.last_frame_label = QLabel(body)
        self.fps_box = _spin_box(QDoubleSpinBox(body), EDITABLE_RATE_TIP)
        self.fps_box.setRange(*FPS_RANGE)
        self.fps_box.setDecimals(2)
        self.fps_box.setSuffix(" fps")
        self.fps_box.setValue(DEFAULT_FPS)
        self.scrub_bar = ScrubBar(body)
        self.mix_row = MixRow(body)

    def _button(self, body: QWidget, action: QAction, with_text: bool = False) -> QToolButton:
        button = QToolButton(body)
        button.setDefaultAction(action)
        # A word alone without a frame reads as a label: only the icon buttons are flat.
        button.setAutoRaise(not with_text)
        if with_text:
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        return button

    def _lay_out(self, body: QWidget) -> None:
        controls = QHBoxLayout()
        controls.addWidget(self.clips, 1)
        controls.addWidget(self._button(body, self.mix_action, with_text=True))
        controls.addSpacing(8)
        for action in (self.start_action, self.previous_key_action, self.previous_frame_action,
                       self.play_action, self.next_frame_action, self.next_key_action, self.end_action):
            controls.addWidget(self._button(body, action))
        controls.addSpacing(8)
        controls.addWidget(self._button(body, self.loop_action))
        controls.addWidget(self._button(body, self.reverse_action))
        controls.addWidget(self.speed)
        for widget in (self.time_box, self.end_label, self.frame_box, self.last_frame_label):
            controls.addWidget(widget)
        controls.addSpacing(12)
        controls.addWidget(self.fps_box)
        layout = QGridLayout(body)
        layout.setContentsMargins(6, 2, 6, 4)
        layout.setVerticalSpacing(2)
        layout.addLayout(controls, 0, 0)
        layout.addWidget(self.mix_row, 1, 0)
        layout.addWidget(self.scrub_bar, 2, 0)

    def _connect(self) -> None:
        self.play_action.toggled.connect(self._show_play_state)
        self.play_action.triggered.connect(lambda on: self.playback.set_playing(on))
        self.reverse_action.triggered.connect(lambda on: self.playback.set_reverse(on))
        self.loop_action.triggered.connect(lambda on: self.playback.set_loop(on))
        self.start_action.triggered.connect(lambda: self.playback.go_to_start())
        self.end_action.triggered.connect(lambda: self.playback.go_to_end())
        self.previous_frame_action.triggered.connect(lambda: self.playback.step_frame(-1))
        self.next_frame_action.triggered.connect(lambda: self.playback.step_frame(+1))
        self.previous_key_action.triggered.connect(lambda: self.playback.step_key(-1))
        self.next_key_action.triggered.connect(lambda: self.playback.step_key(+1))
        self.clips.currentIndexChanged.connect(self._clip_chosen)
        self.speed.currentIndexChanged.connect(lambda index: self.playback.set_speed(SPEEDS[index]))
        self.time_box.valueChanged.connect(lambda seconds: self.playback.set_time(seconds))
        self.frame_box.valueChanged.connect(lambda frame: self.playback.set_frame(frame))
        self.fps_box.valueChanged.connect(self.fps_changed)
        self.scrub_bar.scrub_started.connect(lambda: self.playback.set_scrubbing(True))
        self.scrub_bar.scrubbed.connect(lambda seconds: self.playback.set_time(seconds))
        self.scrub_bar.scrub_finished.connect(lambda: self.playback.set_scrubbing(False))

    # --- binding and showing --------------------------------------------------------------------

    def attach(self, state: ViewerState) -> None:
        """Show each model ``state`` shows: its playback, and its frame rate where the format counts
        frames without times (the fps box is for those only)."""
        state.events.subscribe("model", lambda _keep_state: self._show_model(state))
        state.events.subscribe("mix", lambda mix: self.mix_action.setChecked(mix is not None))
        self.mix_action.triggered.connect(lambda on: self.set_mixing(state, on))
        self.mix_row.attach(state)

    def _show_model(self, state: ViewerState) -> None:
        self._fps_editable = state.counts_frames
        self._chosen_fps = state.load_options.fps or DEFAULT_FPS
        self.fps_box.setEnabled(self._fps_editable)
        self.bind(state.playback)
        self.mix_action.setEnabled(len(state.model.clips) >= 2)

    def set_mixing(self, state: ViewerState, on: bool) -> None:
        """Playback › Mix Clips and the Mix button: the second row for a second clip, on or off."""
        try:
            state.set_mixing(on)
        except ActionError as error:
            self.mix_action.setChecked(False)
            QMessageBox.information(self, "Mix Clips", str(error))

    def bind(self, playback: Playback) -> None:
        self.playback = playback
        with QSignalBlocker(self.clips):
            self.clips.clear()
            for index, clip in enumerate(playback.model.clips):
                self.clips.addItem(clip_label(clip))
                travel = travel_text(playback.model, clip)
                details = clip.note or f"{clip.kind}, {clip.duration:.3f} s, {travel}"
                self.clips.setItemData(index, f"{details}\nfrom {clip.source}" if clip.source else details,
                                       Qt.ItemDataRole.ToolTipRole)
            if not playback.model.clips:
                self.clips.addItem("(bind pose)")
        if self._stop_listening is not None:  # the playback shown before no longer refreshes the dock
            self._stop_listening()
        self._stop_listening = playback.subscribe(self.refresh)
        self._show_clip(playback.clip)
        self.refresh()

    def set_fps(self, fps: float | None) -> None:
        """Show ``fps`` in the fps box without emitting ``fps_changed`` (None: "no rate")."""
        with QSignalBlocker(self.fps_box):
            self.fps_box.setSpecialValueText("" if fps is not None else NO_RATE)
            self.fps_box.setValue(fps if fps is not None else FPS_RANGE[0])

    def _show_rate(self, clip: Clip | None) -> None:
        """The fps box: the rate the user set where the format stores frames without times (editable),
        else the clip's own rate (``clip_measures.frame_rate``, read-only)."""
        if self._fps_editable:
            self.set_fps(self._chosen_fps)
            self.fps_box.setToolTip(EDITABLE_RATE_TIP)
        else:
            self.set_fps(frame_rate(clip) if clip is not None else None)
            self.fps_box.setToolTip("The clip's own frame rate, as its file times its frames")

    def _clip_chosen(self, index: int) -> None:
        if self.playback.model.clips and index >= 0:
            self.playback.set_clip(index)

    def _enable(self, enabled: bool) -> None:
        for action in self.playback_actions():
            action.setEnabled(enabled)
        for widget in (self.speed, self.time_box, self.frame_box, self.scrub_bar):
            widget.setEnabled(enabled)

    def _show_clip(self, clip: Clip | None) -> None:
        """Set what changes only with the clip: ranges, end labels, the scrub bar's ticks."""
        self._enable(clip is not None)
        self.clips.setEnabled(bool(self.playback.model.clips))
        self.scrub_bar.set_clip(clip)
        with QSignalBlocker(self.time_box), QSignalBlocker(self.frame_box):
            self.time_box.setRange(clip.start if clip else 0.0, self.playback.end)
            self.frame_box.setRange(0, clip.frame_count - 1 if clip else 0)
        self.end_label.setText(f"/ {self.playback.end:.3f} s" if clip else "bind pose")
        self.last_frame_label.setText(f"/ {clip.frame_count - 1}" if clip else "")
        self._show_rate(clip)

    def _show_play_state(self, playing: bool) -> None:
        self.play_action.setIcon(self._standard_icon("SP_MediaPause" if playing else "SP_MediaPlay"))

    def refresh(self) -> None:
        """Show the playback's state (cheap: it runs on every playback change)."""
        playback = self.playback
        if playback.clip is not self.scrub_bar.clip:
            self._show_clip(playback.clip)
        self.play_action.setChecked(playback.playing)
        self.loop_action.setChecked(playback.loop)
        self.reverse_action.setChecked(playback.reverse)
        with QSignalBlocker(self.clips), QSignalBlocker(self.speed):
            if playback.clip_index is not None:
                self.clips.setCurrentIndex(playback.clip_index)
            self.speed.setCurrentIndex(self.speed.findData(playback.speed))
        _show_value(self.time_box, playback.time)
        _show_value(self.frame_box, playback.frame_index)
        self.scrub_bar.set_time(playback.time)


def _spin_box(box: QAbstractSpinBox, tooltip: str) -> QAbstractSpinBox:
    """A spin box that reports a typed value on Enter or focus loss, not on every keystroke."""
    box.setKeyboardTracking(False)
    box.setAlignment(Qt.AlignmentFlag.AlignRight)
    box.setToolTip(tooltip)
    return box


def _show_value(box: QAbstractSpinBox, value) -> None:
    """Show ``value`` without echoing it back, unless the user is typing into the box."""
    if not box.lineEdit().isModified():
        with QSignalBlocker(box):
            box.setValue(value)


def frame_step_icon(color) -> QIcon:
    """A triangle against a bar, "▶|": one step forward (the style has no such icon)."""
    pixmap = QPixmap(ICON_SIZE, ICON_SIZE)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(color)
    painter.drawPolygon(QPolygonF([QPointF(9, 7), QPointF(21, 16), QPointF(9, 25)]))
    painter.drawRect(QRectF(22, 7, 3, 18))
    painter.end()
    return QIcon(pixmap)


def mirrored(icon: QIcon) -> QIcon:
    """``icon`` flipped left to right (a step or play icon turned backwards)."""
    return QIcon(icon.pixmap(ICON_SIZE).transformed(QTransform().scale(-1, 1)))


def clip_label(clip: Clip) -> str:
    """The clip list's text: the clip's name and the file it came from."""
    return f"{clip.name}  ·  {clip.source}" if clip.source else clip.name
