"""What the main window writes or copies: pictures of the view (screenshots, the clipboard) and the
model's exports (glTF, the pose, an animation), each asked for in a dialog and reported."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

import numpy as np
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from app.atomic_files import same_file
from app.errors import InputError
from app.render.offscreen import max_image_side
from app.export.writers import MODEL_WRITERS, POSE_WRITERS
from app.state.exports import Exported, with_suffix
from app.ui.background_export import BackgroundExport
from app.ui.image_files import save_image
from app.ui.screenshot_dialog import ScreenshotDialog

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow


class WindowExports:
    """The File menu's outputs for ``window``: the dialogs, the writing (through the state, or the
    view for pictures) and the report in a message box or the status bar."""

    def __init__(self, window: MainWindow):
        self.window = window
        self.viewport = window.viewport
        self.settings = window.settings
        self.background = BackgroundExport(window)
        self.background.finished.connect(self._exported)
        self.background.failed.connect(self._background_failed)
        self.background.cancelled.connect(lambda: self._report("Export cancelled: nothing was written", 5000))

    def capture(self, width: int | None = None, height: int | None = None,
                transparent: bool = False) -> QImage:
        """The view as an image, at the view's size unless given, with the bone names when they are
        shown (the orientation gizmo and the shot marks over the view are not part of the picture)."""
        ratio = self.viewport.devicePixelRatioF()
        width = width or int(self.viewport.width() * ratio)
        height = height or int(self.viewport.height() * ratio)
        image = _image_to_qimage(self.viewport.render_image(width, height, transparent))
        if self.viewport.options.bone_names:
            self._paint_bone_names(image)
        return image

    def _paint_bone_names(self, image: QImage) -> None:
        """The bone names over a picture of the view, their text scaled as the picture is."""
        scale = image.height() / max(self.viewport.height(), 1)
        image.setDevicePixelRatio(scale)
        painter = QPainter(image)
        self.viewport.overlay.paint_bone_names(painter, (image.width() / scale, image.height() / scale))
        painter.end()
        image.setDevicePixelRatio(1.0)

    def _image_side_limit(self) -> int:
        """The largest picture side the view's OpenGL context can draw."""
        self.viewport.makeCurrent()
        limit = max_image_side(self.viewport.ctx) if self.viewport.ctx is not None else 4096
        self.viewport.doneCurrent()
        return limit

    def save_screenshot_dialog(self) -> None:
        ratio = self.viewport.devicePixelRatioF()
        size = (int(self.viewport.width() * ratio), int(self.viewport.height() * ratio))
        transparent = self.settings.value("screenshot/transparent", False, type=bool)
        dialog = ScreenshotDialog(size, self._image_side_limit(), transparent, self.window)
        if not dialog.exec():
            return
        settings = dialog.settings()
        self.settings.setValue("screenshot/transparent", settings.transparent)
        path = self._ask_save_path("Save screenshot", ".png", "PNG images (*.png)")
        if path:
            self.save_screenshot(path, settings.width, settings.height, settings.transparent)

    def save_screenshot(self, path: str | Path, width: int | None = None, height: int | None = None,
                        transparent: bool = False) -> bool:
        try:
            image = self.capture(width, height, transparent)
        except (ValueError, RuntimeError) as error:
            QMessageBox.warning(self.window, "Screenshot", f"Could not render the image: {error}")
            return False
        if not save_image(image, path):
            QMessageBox.warning(self.window, "Screenshot", f"Could not write {path}")
            return False
        self._report(f"Saved {path} ({image.width()} × {image.height()})", 5000)
        return True

    def copy_image(self) -> None:
        try:
            image = self.capture()
        except (ValueError, RuntimeError) as error:
            QMessageBox.warning(self.window, "Copy image", f"Could not render the image: {error}")
            return
        QApplication.clipboard().setImage(image)
        self._report("Image copied to the clipboard", 3000)

    def _ask_save_path(self, title: str, suffix: str, file_filter: str) -> str:
        """A save dialog offering the current file's stem + ``suffix`` in the last folder saved to, else
        the last folder opened ('': cancelled)."""
        model = self.window.model
        folder = self.settings.value("last_export_folder", "") or self.settings.value("last_folder", "")
        stem = Path(model.files[0]).stem if model is not None and model.files else "boneyard"
        name = str(Path(folder) / f"{stem}{suffix}") if folder else f"{stem}{suffix}"
        path, _ = QFileDialog.getSaveFileName(self.window, title, name, file_filter)
        if path and model is not None and any(same_file(path, source) for source in model.files):
            QMessageBox.warning(self.window, title, f"{path} is a file of the model on screen: outputs are "
                                "never written over the files they come from. Choose another name.")
            return ""
        if path:
            self.settings.setValue("last_export_folder", str(Path(path).parent))
        return path

    def export_dialog(self, in_place: bool = False) -> None:
        path = self._ask_save_path("Export glTF 2.0" + (", in place" if in_place else ""),
                                   "_in_place.glb" if in_place else ".glb",
                                   "glTF binary (*.glb);;glTF with embedded buffer (*.gltf)")
        if path:
            self.export_gltf(path, in_place)

    def export_gltf(self, path: str | Path, in_place: bool = False) -> bool:
        """File › Export glTF (In Place): ``ViewerState.gltf_export`` written in the background behind
        a progress dialog with Cancel (``BackgroundExport``), reported when it is in place; False when
        another export is still being written."""
        target = with_suffix(path, tuple(MODEL_WRITERS), ".glb")
        return self._in_background("Export glTF", target, self.window.state.gltf_export(in_place))

    def export_pose_dialog(self) -> None:
        path = self._ask_save_path("Export the current pose", "_pose.obj",
                                   "Wavefront OBJ (*.obj);;glTF binary, static (*.glb);;"
                                   "Bones and vertices (*.npz);;Bones and vertices as JSON (*.json)")
        if path:
            self.export_pose(path)

    def export_pose(self, path: str | Path) -> bool:
        """File › Export Pose: the pose on screen now (``ViewerState.pose_export``) written in the
        background as Export glTF is (skinning a large mesh and writing it as JSON takes seconds);
        False when another export is still being written."""
        target = with_suffix(path, tuple(POSE_WRITERS), ".obj")
        return self._in_background("Export Pose", target, self.window.state.pose_export())

    def _in_background(self, title: str, target: Path, export: Callable[[Path], Exported]) -> bool:
        if self.background.running:
            self._report("An export is still being written", 5000)
            return False
        self.background.start(title, target, export)
        return True

    def export_animation_dialog(self) -> None:
        """File › Export Animation: the dialog, a file name, then ``export_animation``."""
        from app.ui.export_animation import FORMATS, ExportAnimationDialog

        dialog = ExportAnimationDialog(*self.window.state.animation_model(), (1280, 720),
                                       self._image_side_limit(), self.window)
        if not dialog.exec():
            return
        suffix, file_filter, _ = FORMATS[dialog.format.currentText()]
        path = self._ask_save_path("Export Animation", suffix, file_filter)
        if path:
            self.export_animation(path, dialog.choice())

    def export_animation(self, path: str | Path, choice) -> bool:
        """Write ``choice`` (an ``AnimationChoice``) to ``path``, reported; False when it failed or was
        cancelled."""
        from app.ui.export_animation import Cancelled, OverLimit, export_animation

        try:
            line = export_animation(self.window, choice, Path(path))
        except Cancelled:
            self._report("Export Animation cancelled", 5000)
            return False
        except OverLimit as error:
            QMessageBox.warning(self.window, "Export Animation", f"{Path(path).name} was not written: "
                                f"{error}. Choose fewer frames (a shorter span or a lower rate) or a "
                                "smaller size.")
            return False
        except (OSError, ValueError, RuntimeError) as error:
            QMessageBox.warning(self.window, "Export Animation", f"Could not write {path}: {error}")
            return False
        self._report(line, 10000)
        return True

    def _background_failed(self, error: Exception) -> None:
        if not isinstance(error, (OSError, ValueError, InputError)):
            error = f"unexpected {type(error).__name__}: {error}"
        QMessageBox.warning(self.window, self.background.title, f"Could not write the file: {error}")

    def _exported(self, done: Exported) -> None:
        """Report the writer's warnings and what was written."""
        if done.warnings:
            QMessageBox.information(self.window, "Exported with warnings",
                                    "\n\n".join([done.line(), "\n".join(done.warnings)]))
        self._report(done.line(), 10000)

    def _report(self, line: str, milliseconds: int) -> None:
        self.window.statusBar().showMessage(line, milliseconds)


def _image_to_qimage(image: np.ndarray) -> QImage:
    """(H, W, 4) uint8 straight-alpha RGBA → a QImage that owns a copy of the pixels."""
    height, width = image.shape[:2]
    data = np.ascontiguousarray(image)
    return QImage(data.data, width, height, 4 * width, QImage.Format.Format_RGBA8888).copy()
