"""File › Export Animation…: the chosen clip (or the mix on screen) as MP4, WebM, GIF, WebP, numbered
PNGs or a contact sheet, drawn in the view's OpenGL context with the view's camera and display
options, behind a progress dialog that can cancel (docs/cli.md, "Animation out of ``render``", for
the formats). It keeps to ``render``'s limits: the frames of a run, the sheet's frames and size, and
the memory the drawing and the frames held take."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QProgressDialog,
    QSpinBox,
)

from app.animation.root_motion import in_place_model
from app.model import Model
from app.render import sheet, video
from app.render.animation_outputs import VIDEO_SUFFIXES
from app.render.offscreen import (
    TILE_BYTES_PER_PIXEL,
    ImageTargets,
    NotEnoughMemory,
    check_memory,
    check_sides,
    drawn_ghosts,
    max_image_side,
    save_png,
)
from app.state.onion import onion_poses
from app.ui.size_fields import SizeFields

#: Format label → (file suffix offered, the save dialog's filter, the animation kind).
FORMATS = {
    "MP4 video (H.264)": ("_anim.mp4", "MP4 video (*.mp4)", "mp4"),
    "WebM video (VP9)": ("_anim.webm", "WebM video (*.webm)", "webm"),
    "Animated GIF": ("_anim.gif", "GIF image (*.gif)", "gif"),
    "Animated WebP": ("_anim.webp", "WebP image (*.webp)", "webp"),
    "PNG frames": ("_%04d.png", "PNG frames, %04d numbers them (*.png)", "frames"),
    "Contact sheet (PNG)": ("_sheet.png", "PNG image (*.png)", "sheet"),
}


class Cancelled(Exception):
    """The user pressed Cancel in the progress dialog."""


class OverLimit(Exception):
    """An export over ``render``'s limits (frames, a sheet's size, memory): nothing is written."""


@dataclass
class AnimationChoice:
    kind: str
    clip: int | None
    start: float
    end: float
    fps: float
    size: tuple[int, int]
    turntable: bool
    frames: int
    in_place: bool = False


class ExportAnimationDialog(QDialog):
    """Format, clip, span, rate, size, turntable and the sheet's frames; ``choice()`` reads them."""

    def __init__(self, model: Model, clip: int | None, view_size: tuple[int, int], max_side: int,
                 parent=None):
        super().__init__(parent)
        self.setWindowTitle("Export Animation")
        self.model = model
        self.format = QComboBox(self)
        self.format.addItems(list(FORMATS))
        self.clip = QComboBox(self)
        for clip_ in model.clips:
            self.clip.addItem(clip_.name)
        if not model.clips:
            self.clip.addItem("(no clip: turntable of the bind pose)")
        self.start, self.end, self.fps = QDoubleSpinBox(self), QDoubleSpinBox(self), QDoubleSpinBox(self)
        for box in (self.start, self.end):
            box.setDecimals(3)
            box.setSuffix(" s")
        self.fps.setRange(0.5, 240.0)
        self.fps.setSuffix(" frames/s")
        size = SizeFields(view_size, max_side, self)
        self.width_box, self.height_box = size.width_box, size.height_box
        self.turntable = QCheckBox("Turntable: the camera circles once", self)
        self.turntable.setChecked(not model.clips)
        self.in_place = QCheckBox("In place: without the root's travel over the ground", self)
        self.in_place.setToolTip("As View › In Place shows the clip; left off, the model travels as "
                                 "the clip carries it")
        self.sheet_frames = QSpinBox(self)
        self.sheet_frames.setRange(1, sheet.MAX_SHEET_FRAMES)
        self.sheet_frames.setValue(6)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Format", self.format)
        form.addRow("Clip", self.clip)
        form.addRow("From", self.start)
        form.addRow("To", self.end)
        form.addRow("Rate", self.fps)
        form.addRow("Size", size)
        form.addRow("", self.turntable)
        form.addRow("", self.in_place)
        form.addRow("Frames per clip (sheet)", self.sheet_frames)
        form.addRow(buttons)
        self.clip.currentIndexChanged.connect(self._clip_chosen)
        self.format.currentIndexChanged.connect(self._format_chosen)
        if clip is not None and model.clips:
            self.clip.setCurrentIndex(clip)
        self._clip_chosen()
        self._format_chosen()

    def _clip_chosen(self) -> None:
        clip = self.model.clips[self.clip.currentIndex()] if self.model.clips else None
        low, high = (clip.start, clip.start + clip.duration) if clip else (0.0, video.TURNTABLE_SECONDS)
        for box in (self.start, self.end):
            box.setRange(low, high)
        self.start.setValue(low)
        self.end.setValue(high)
        self.fps.setValue(video.clip_rate(clip))

    def _format_chosen(self) -> None:
        sheet = self.kind() == "sheet"
        for widget in (self.clip, self.start, self.end, self.fps, self.turntable):
            widget.setEnabled(not sheet)
        self.sheet_frames.setEnabled(sheet)
        if sheet and not self.model.clips:
            self.format.setCurrentIndex(0)

    def kind(self) -> str:
        return FORMATS[self.format.currentText()][2]

    def choice(self) -> AnimationChoice:
        return AnimationChoice(kind=self.kind(), clip=self.clip.currentIndex() if self.model.clips else None,
                               start=self.start.value(), end=max(self.end.value(), self.start.value()),
                               fps=self.fps.value(), size=(self.width_box.value(), self.height_box.value()),
                               turntable=self.turntable.isChecked(), frames=self.sheet_frames.value(),
                               in_place=self.in_place.isChecked())


class ViewRenderer:
    """``OffscreenRenderer.render_image`` over a Viewport's own context and renderer (one process cannot
    hold Qt's GL context and a headless EGL one), so the model is not uploaded again."""

    def __init__(self, viewport):
        self.viewport = viewport
        self.targets: ImageTargets | None = None

    def render_image(self, model: Model, pose, size: tuple[int, int], options, view: str,
                     camera, ghosts: list | None = None) -> np.ndarray:
        """The view's renderer in ``pose`` seen by ``camera`` (``view`` is not used: the camera is
        always given), with ``ghosts`` (None: those of the view)."""
        renderer = self.viewport.renderer
        self.viewport.makeCurrent()
        try:
            renderer.set_pose(pose)
            if self.targets is None or self.targets.size != tuple(size):
                self.release()
                self.targets = ImageTargets.create(self.viewport.ctx, tuple(size))
            with drawn_ghosts(renderer, ghosts):
                return self.targets.render(renderer, camera, options)
        finally:
            self.viewport.doneCurrent()

    def check_fits(self, size: tuple[int, int], frames_held: int = 0) -> None:
        """``OffscreenRenderer.check_fits`` for the view's context, which draws a picture whole."""
        self.viewport.makeCurrent()
        try:
            check_sides(size, max_image_side(self.viewport.ctx))
        finally:
            self.viewport.doneCurrent()
        check_memory(size, size[0] * size[1] * TILE_BYTES_PER_PIXEL, frames_held)

    def release(self) -> None:
        if self.targets is not None:
            self.viewport.makeCurrent()
            self.targets.release()
            self.targets = None


def export_animation(window, choice: AnimationChoice, path: Path) -> str:
    """Write ``choice`` to ``path`` from ``window``'s view; returns the status bar's line. Raises
    OverLimit before any drawing for an export over ``render``'s limits, Cancelled when the user
    cancels (the target is left as it was: it is written whole or not at all) and OSError/ValueError
    on failure."""
    viewport, model = window.viewport, window.state.animation_model()[0]
    if choice.in_place:
        model = in_place_model(model)
    if viewport.renderer is None:
        raise RuntimeError(viewport.gl_problem or "the view has not been shown yet")
    options = viewport.options
    renderer = ViewRenderer(viewport)
    check_limits(renderer, model, choice)
    ghosts = frame_ghosts(model) if window.state.display.onion else None
    progress = QProgressDialog("Rendering…", "Cancel", 0, 1000, window)
    progress.setWindowTitle("Export Animation")
    progress.setWindowModality(Qt.WindowModality.WindowModal)
    progress.setMinimumDuration(300)

    def step(share: float) -> None:
        progress.setValue(int(share * 1000))
        QApplication.processEvents()
        if progress.wasCanceled():
            raise Cancelled()

    try:
        if choice.kind == "sheet":
            image = sheet.render_sheet(renderer, model, choice.frames, choice.size, options, "iso",
                                       progress=step, ghosts=ghosts)
            save_png(image, path)
            return f"Saved {path} ({len(model.clips)} clips × {choice.frames} frames)"
        clip = model.clips[choice.clip] if choice.clip is not None else None
        times = video.run_times(choice.start, choice.end, choice.fps)
        size = _frame_size(choice)
        frames = video.render_frames(renderer, model, clip, times, size, options, "iso", choice.turntable,
                                     camera=viewport.camera, ghosts=ghosts)
        video.write_animation(path, choice.kind, frames, choice.fps, len(times),
                              progress=lambda done: step(done / len(times)))
        return f"Saved {path} ({len(times)} frames at {choice.fps:g} per second)"
    finally:
        renderer.release()
        progress.close()
        viewport.doneCurrent()
        viewport.update()


def frame_ghosts(model: Model) -> video.Ghosts:
    """View › Onion Skin's ghosts around each exported frame's own instant."""
    return lambda clip, time: onion_poses(model, clip, time)


def check_limits(renderer: ViewRenderer, model: Model, choice: AnimationChoice) -> None:
    """OverLimit for ``choice`` past the limits ``boneyard render`` keeps to: a run of more than
    ``video.MAX_FRAMES`` frames, a sheet over ``sheet.MAX_SIDE`` on a side, or frames the view cannot
    draw or memory cannot hold with the frames the encoder or the sheet keeps."""
    try:
        if choice.kind == "sheet":
            sheet.check_sheet_size(*sheet.sheet_size(model, choice.frames, choice.size))
            renderer.check_fits(choice.size, frames_held=sheet.frames_held(model, choice.frames))
        else:
            video.check_frame_count(len(video.run_times(choice.start, choice.end, choice.fps)), choice.fps)
            renderer.check_fits(_frame_size(choice), frames_held=video.ENCODER_FRAMES_HELD)
    except (ValueError, NotEnoughMemory) as error:
        raise OverLimit(str(error)) from None


def _frame_size(choice: AnimationChoice) -> tuple[int, int]:
    """The frames' size: the chosen one, made even for a video."""
    return video.even_size(choice.size) if choice.kind in VIDEO_SUFFIXES.values() else choice.size
