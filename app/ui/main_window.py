"""The main window: menus, the viewport, the docks, the status bar, loading and saving."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

import numpy as np
from PySide6.QtCore import QEvent, QPoint, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QColor, QImage, QKeySequence
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QColorDialog,
    QFileDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QProgressDialog,
    QToolButton,
    QWidget,
)

from app import __version__, formats
from app.errors import InputError
from app.export.writers import MODEL_WRITERS, POSE_WRITERS, pose_arrays, writer_for
from app.model import Model
from app.playback import Playback
from app.pose import Pose
from app.render.offscreen import max_image_side
from app.resources import demo_paths
from app.textures import TextureError, read_image
from app.ui.assigned_textures import AssignedTextures
from app.ui.loader import BackgroundLoader
from app.ui.outliner import OutlinerDock
from app.ui.ragdoll_panel import RagdollPanel, ask_to_save
from app.ui.ragdoll_session import RagdollSession
from app.ui.recent_files import RecentFiles
from app.ui.screenshot_dialog import ScreenshotDialog
from app.ui.shortcuts_dialog import ShortcutsDialog
from app.ui.texture_folders import TextureFolders
from app.ui.timeline import DEFAULT_FPS, TimelineDock
from app.ui.up_axes import RememberedUpAxes
from app.ui.viewport import Viewport
from app.ui.warnings_dock import WarningsDock

#: Saved dock layouts of another version are ignored (raise it when the docks change).
DOCK_LAYOUT_VERSION = 2
#: Playback tick interval (about 60 frames per second).
TICK_MS = 16
#: A load that takes longer than this shows a progress dialog.
PROGRESS_DELAY_MS = 400
#: Image files a texture can be assigned from (File dialog, drops).
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".tga", ".dds", ".bmp")
VIEW_KEYS = (("front", Qt.Key.Key_1), ("side", Qt.Key.Key_3), ("top", Qt.Key.Key_7), ("iso", Qt.Key.Key_9))


def _image_to_qimage(image: np.ndarray) -> QImage:
    """(H, W, 4) uint8 straight-alpha RGBA → a QImage that owns a copy of the pixels."""
    height, width = image.shape[:2]
    data = np.ascontiguousarray(image)
    return QImage(data.data, width, height, 4 * width, QImage.Format.Format_RGBA8888).copy()


class MainWindow(QMainWindow):
    """Owns the model being shown and its playback; docks and the viewport are views of them.

    ``model_changed`` fires after a model is shown; ``load_failed(message)`` after a load fails
    (the previous model stays).
    """

    model_changed = Signal()
    load_failed = Signal(str)

    def __init__(self, load_options: formats.LoadOptions | None = None):
        super().__init__()
        self.setObjectName("main_window")
        self.load_options = load_options or formats.LoadOptions()
        self.settings = QSettings()
        self.recent = RecentFiles(self.settings)
        self.assigned_textures = AssignedTextures(self.settings)
        self.texture_folders = TextureFolders(self.settings)
        self.up_axes = RememberedUpAxes(self.settings)
        self._option_texture_dirs = list(self.load_options.texture_dirs)
        self._use_texture_folders()
        self.model: Model | None = None
        self.playback: Playback | None = None
        self.viewport = Viewport(self)
        self.viewport.options.show_hidden = self.load_options.show_hidden
        self.setCentralWidget(self.viewport)
        self.timeline = TimelineDock(self)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.timeline)
        self.outliner = OutlinerDock(self)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.outliner)
        self.ragdoll = RagdollSession(self)
        self.ragdoll_panel = RagdollPanel(self.ragdoll, self)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.ragdoll_panel)
        self.tabifyDockWidget(self.outliner, self.ragdoll_panel)
        self.outliner.raise_()
        self.warnings_dock = WarningsDock(self)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.warnings_dock)
        self.warnings_dock.hide()
        self._resume_playback = False
        self.loader = BackgroundLoader(self)
        self.loader.loaded.connect(self._loaded)
        self.loader.failed.connect(self._load_error)
        self._pending: dict = {}
        self._progress: QProgressDialog | None = None
        self.warnings_button = QToolButton(self)
        self.warnings_button.setAutoRaise(True)
        self.warnings_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.warnings_button.clicked.connect(self.show_warnings)
        self.warnings_button.hide()
        self.file_label, self.counts_label, self.frame_label = QLabel(), QLabel(), QLabel()
        self.statusBar().addPermanentWidget(self.warnings_button)
        for label in (self.file_label, self.counts_label, self.frame_label):
            self.statusBar().addPermanentWidget(label)
        self._frames_counted = (0, time.perf_counter())
        self.setAcceptDrops(True)
        self._build_menus()
        self.viewport.bone_picked.connect(self.select_bone)
        self.viewport.warned.connect(self.add_warning)
        self.outliner.bone_selected.connect(self.select_bone)
        self.outliner.mesh_visibility_changed.connect(self.set_mesh_visible)
        self.outliner.texture_requested.connect(self.assign_texture_dialog)
        self.timeline.fps_changed.connect(self.set_fps)
        self._connect_ragdoll()
        self._tick_clock = time.perf_counter()
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._tick)
        self.timer.start(TICK_MS)
        self.frame_timer = QTimer(self)
        self.frame_timer.timeout.connect(self._show_frame_time)
        self.frame_timer.start(500)
        self.resize(1280, 800)
        self._restore_layout()
        self._typing_in: QWidget | None = None
        self.viewport.setFocus()
        QApplication.instance().focusChanged.connect(self._focus_changed)

    # --- menus ----------------------------------------------------------------------------------

    def _action(self, menu, text: str, slot, shortcut=None, checkable=False, checked=False) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            shortcuts = shortcut if isinstance(shortcut, list) else [shortcut]
            action.setShortcuts([QKeySequence(key) for key in shortcuts])
        action.setCheckable(checkable)
        if checkable:
            action.setChecked(checked)
            action.toggled.connect(slot)
        else:
            action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _build_menus(self) -> None:
        self._build_file_menu()
        self._build_edit_menu()
        self._build_view_menu()
        playback_menu = self.menuBar().addMenu("&Playback")
        for action in self.timeline.playback_actions():
            playback_menu.addAction(action)
        ragdoll_menu = self.menuBar().addMenu("&Ragdoll")
        for action in self.ragdoll_panel.ragdoll_actions():
            if action is None:
                ragdoll_menu.addSeparator()
            else:
                ragdoll_menu.addAction(action)
        help_menu = self.menuBar().addMenu("&Help")
        self._action(help_menu, "&Shortcuts", self.show_shortcuts, QKeySequence.StandardKey.HelpContents)
        self._action(help_menu, "&About Boneyard", self.show_about)

    def _build_file_menu(self) -> None:
        menu = self.menuBar().addMenu("&File")
        self._action(menu, "&Open…", self.open_dialog, QKeySequence.StandardKey.Open)
        self.recent_menu = menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        self._action(menu, "&Close", self.close_model, QKeySequence.StandardKey.Close)
        self.attach_action = self._action(menu, "&Attach Animation…", self.attach_dialog, "Ctrl+Shift+O")
        self.reload_action = self._action(menu, "Re&load", self.reload, [QKeySequence.StandardKey.Refresh,
                                                                        "Ctrl+R"])
        menu.addSeparator()
        self.export_action = self._action(menu, "&Export glTF…", self.export_dialog, "Ctrl+E")
        self.export_pose_action = self._action(menu, "Export &Pose…", self.export_pose_dialog, "Ctrl+Shift+E")
        self._action(menu, "Save &Screenshot…", self.save_screenshot_dialog, "Ctrl+Shift+S")
        self._action(menu, "&Copy Image", self.copy_image, QKeySequence.StandardKey.Copy)
        menu.addSeparator()
        self._action(menu, "&Quit", self.close, QKeySequence.StandardKey.Quit)
        self._model_actions = [self.attach_action, self.reload_action, self.export_action,
                               self.export_pose_action]
        for action in self._model_actions:
            action.setEnabled(False)

    def _build_edit_menu(self) -> None:
        """Undo and redo of ragdoll profile edits (the only document the window edits)."""
        menu = self.menuBar().addMenu("&Edit")
        stack = self.ragdoll.undo_stack
        self.undo_action = stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcuts([QKeySequence(QKeySequence.StandardKey.Undo)])
        self.redo_action = stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        menu.addAction(self.undo_action)
        menu.addAction(self.redo_action)

    def _build_view_menu(self) -> None:
        menu = self.menuBar().addMenu("&View")
        for name, key in VIEW_KEYS:
            self._action(menu, f"{name.title()} View", lambda _=False, n=name: self.viewport.set_view(n),
                         [QKeySequence(key), QKeySequence(Qt.KeyboardModifier.KeypadModifier | key)])
        self._action(menu, "&Frame All", self.viewport.frame_all, "F")
        self.orthographic_action = self._action(
            menu, "&Orthographic", self.viewport.set_orthographic,
            [QKeySequence(Qt.Key.Key_5), QKeySequence(Qt.KeyboardModifier.KeypadModifier | Qt.Key.Key_5)],
            True)
        self._action(menu, "&Reset View", self.viewport.reset_view, "Ctrl+0")
        up_menu = menu.addMenu("&Up Axis")
        up_axis_group = QActionGroup(self)
        self.up_axis_actions = {}
        for axis in ("Y", "Z"):
            action = self._action(up_menu, f"{axis} Up",
                                  lambda on, a=axis: on and self.set_up_axis(a), checkable=True)
            up_axis_group.addAction(action)
            self.up_axis_actions[axis] = action
        menu.addSeparator()
        options = self.viewport.options
        self.display_actions = {
            "shaded": self._action(menu, "&Shaded", lambda on: self._set_option("shaded", on), "S", True,
                                   options.shaded),
            "wireframe": self._action(menu, "&Wireframe", lambda on: self._set_option("wireframe", on), "W",
                                      True, options.wireframe),
            "bones": self._action(menu, "S&keleton", lambda on: self._set_option("bones", on), "B", True,
                                  options.bones),
            "names": self._action(menu, "Bone &Names", self._show_bone_names, "N", True),
            "heatmap": self._action(menu, "Weight &Heat Map", self._show_heatmap, "H", True),
            "normals": self._action(menu, "N&ormals", lambda on: self._set_option("normals", on), "Shift+N",
                                    True, options.normals),
            "grid": self._action(menu, "&Grid", lambda on: self._set_option("grid", on), "G",
                                 True, options.grid),
            "dqs": self._action(menu, "&Dual-Quaternion Skinning",
                                lambda on: self._set_option("skinning", "dqs" if on else "lbs"), "D", True),
            "textures": self._action(menu, "&Textures", lambda on: self._set_option("textures", on), "T",
                                     True, options.textures),
            "hidden": self._action(menu, "Show H&idden Meshes",
                                   lambda on: self._set_option("show_hidden", on), checkable=True,
                                   checked=options.show_hidden),
        }
        self._action(menu, "&Background Colour…", self.choose_background)
        self._action(menu, "Add Texture &Folder…", self.add_texture_folder_dialog)
        self._action(menu, "Forget Texture Folders", self.forget_texture_folders)
        menu.addSeparator()
        for dock in (self.timeline, self.outliner, self.ragdoll_panel, self.warnings_dock):
            menu.addAction(dock.toggleViewAction())

    def set_up_axis(self, axis: str) -> None:
        """View › Up Axis: the model's up axis from now on, remembered for its file."""
        self.viewport.set_up_axis(axis)
        if self.model is not None and self.model.up_axis != axis:
            self.model.up_axis, self.model.up_source = axis, "option"
            if self.model.files:
                self.up_axes.remember(self.model.files[0], axis)

    def add_texture_folder_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add Texture Folder")
        if folder:
            self.add_texture_folder(folder)

    def add_texture_folder(self, folder: str) -> None:
        """Also look for textures in ``folder`` (remembered), and read the model again to find them."""
        self.texture_folders.add(folder)
        self._use_texture_folders()
        self.reload()

    def forget_texture_folders(self) -> None:
        self.texture_folders.clear()
        self._use_texture_folders()
        self.reload()

    def _use_texture_folders(self) -> None:
        """Texture lookup: the command line's --texture-dir folders, then the remembered ones."""
        self.load_options = replace(self.load_options,
                                    texture_dirs=self._option_texture_dirs + self.texture_folders.folders())

    def _set_option(self, name: str, value) -> None:
        setattr(self.viewport.options, name, value)
        self.viewport.update()

    def _show_bone_names(self, on: bool) -> None:
        self.viewport.labels.setVisible(on)
        self.viewport.labels.resize(self.viewport.size())
        self.viewport.update()

    def _show_heatmap(self, on: bool) -> None:
        self.viewport.options.heatmap_bone = self.viewport.options.selected_bone if on else None
        if on and self.viewport.options.selected_bone is None:
            self.statusBar().showMessage(
                "Select a bone (click it, or pick it in the outliner) to see its weights", 5000)
        self.viewport.update()

    def choose_background(self) -> None:
        current = QColor.fromRgbF(*self.viewport.options.background[:3])
        color = QColorDialog.getColor(current, self, "Background colour")
        if color.isValid():
            self.viewport.options.background = (color.redF(), color.greenF(), color.blueF(), 1.0)
            self.settings.setValue("view/background", color.name())
            self.viewport.update()

    # --- selection ------------------------------------------------------------------------------

    def select_bone(self, index: int | None) -> None:
        """Highlight a bone everywhere: viewport, outliner, inspector and (when on) the heat map."""
        options = self.viewport.options
        options.selected_bone = index
        if self.display_actions["heatmap"].isChecked():
            options.heatmap_bone = index
        self.outliner.select_bone(index)
        if index is not None:
            self.statusBar().showMessage(f"bone {index}: {self.model.skeleton.names[index]}", 4000)
        self.viewport.update()

    # --- model ----------------------------------------------------------------------------------

    def set_model(self, model: Model, keep_state: bool = False) -> None:
        """Show ``model``. ``keep_state`` (reload, attach, fps change) keeps the camera, the clip
        (by name) and the time."""
        previous = self.playback
        self.model = model
        remembered = self.up_axes.get(model.files[0]) if model.files else None
        if remembered and model.up_source != "option":
            model.up_axis, model.up_source = remembered, "option"
        self.playback = Playback(model)
        self._resume_playback = False
        self.ragdoll.set_model(model, keep_profile=keep_state)
        self.ragdoll_panel.warn_unused_profile()
        if keep_state and previous is not None:
            self._carry_playback(previous)
        self.playback.subscribe(self._pose_changed)
        options = self.viewport.options
        options.bones = options.bones or not model.meshes
        self.display_actions["bones"].setChecked(options.bones)
        options.selected_bone = options.heatmap_bone = None
        self.viewport.set_model(model, self.playback.pose(), keep_camera=keep_state)
        if not keep_state:
            self.up_axis_actions[model.up_axis].setChecked(True)
        self.timeline.bind(self.playback)
        self.timeline.set_fps(self.load_options.fps or DEFAULT_FPS)
        fmt = formats.formats.get(model.format)
        self.timeline.fps_box.setEnabled(fmt is not None and fmt.frames_without_times)
        self.outliner.bind(model)
        self._restore_textures()
        self._pose_changed()
        for action in self._model_actions:
            action.setEnabled(bool(model.files))
        names = " + ".join(Path(f).name for f in model.files) or model.name
        self.setWindowTitle(f"{names} — Boneyard")
        self.file_label.setText(names)
        triangles = model.triangle_count
        self.counts_label.setText(f"{model.vertex_count:,} vertices   "
                                  f"{'no' if triangles is None else f'{triangles:,}'} triangles   "
                                  f"{len(model.skeleton)} bones")
        self._show_warnings_count(model)
        self.model_changed.emit()

    def _show_warnings_count(self, model: Model) -> None:
        """The status bar's warnings button (hidden when there are none) and the Warnings dock's list."""
        self.warnings_dock.bind(model)
        self._show_warnings_button(len(model.warnings))
        if not model.warnings:
            self.warnings_dock.hide()

    def _show_warnings_button(self, count: int) -> None:
        self.warnings_button.setVisible(bool(count))
        self.warnings_button.setText(f"⚠ {count} warning{'s' if count != 1 else ''}")
        self.warnings_button.setToolTip("Show every warning of this model (View › Warnings)")

    def add_warning(self, message: str) -> None:
        """A problem met while showing the model (the renderer's): listed with the readers' warnings."""
        self.warnings_dock.add(message)
        self._show_warnings_button(self.warnings_dock.list.count())

    def show_warnings(self) -> None:
        self.warnings_dock.show()
        self.warnings_dock.raise_()

    def close_model(self) -> None:
        """Back to the built-in demo (asking first about an unsaved ragdoll profile)."""
        if not ask_to_save(self, self.ragdoll_panel):
            return
        self.loader.cancel()
        self._pending = {}
        self.load_options = formats.LoadOptions(conjugate_quaternions=self.load_options.conjugate_quaternions)
        self.set_model(formats.load(demo_paths(), self.load_options))

    def _carry_playback(self, previous: Playback) -> None:
        """Keep the clip (by name), time, speed, direction and looping across a reload."""
        playback = self.playback
        names = [clip.name for clip in self.model.clips]
        if previous.clip is not None and previous.clip.name in names:
            playback.set_clip(names.index(previous.clip.name))
            playback.set_time(previous.time)
        playback.set_speed(previous.speed)
        playback.set_loop(previous.loop)
        playback.set_reverse(previous.reverse)
        playback.set_playing(previous.playing)

    # --- meshes: visibility and textures ---------------------------------------------------------

    def set_mesh_visible(self, index: int, shown: bool) -> None:
        """Draw mesh ``index`` or not (the Outliner's check box; the file's choice until then)."""
        self.model.meshes[index].visible = shown
        self.outliner.refresh_mesh(index)
        self.viewport.update()

    def assign_texture_dialog(self, index: int) -> None:
        """Mesh › Assign Texture…: an image file for mesh ``index``."""
        pattern = " ".join(f"*{suffix}" for suffix in IMAGE_SUFFIXES)
        title = f"Texture for {self.model.meshes[index].name or 'the mesh'}"
        path, _ = QFileDialog.getOpenFileName(self, title, self.settings.value("texture_folder", ""),
                                              f"Images ({pattern});;All files (*)")
        if path:
            self.settings.setValue("texture_folder", str(Path(path).parent))
            self.assign_texture([index], path)

    def assign_texture(self, indices: list[int], path: str | Path) -> bool:
        """Show the image at ``path`` on meshes ``indices`` (remembered for this model file). An image
        that cannot be read is a warning, and the meshes keep what they had."""
        try:
            image, note = read_image(Path(path))
        except TextureError as error:
            QMessageBox.warning(self, "Assign texture", f"{path}: {error}.\n\nThe model is unchanged.")
            return False
        self._put_image(indices, str(path), image)
        self.assigned_textures.remember(self.model, indices, str(path))
        meshes = [self.model.meshes[index] for index in indices]
        names = ", ".join(mesh.name or f"mesh {index}" for index, mesh in zip(indices, meshes))
        without_uvs = [mesh.name for mesh in meshes if mesh.uvs is None]
        message = f"{Path(path).name} on {names}"
        if note:
            message += f" ({note})"
        if without_uvs:
            message += f"; {', '.join(without_uvs)} has no texture coordinates, so it shows its base colour"
        self.statusBar().showMessage(message, 8000)
        self.viewport.update()
        return True

    def _restore_textures(self) -> None:
        """Give the meshes the images assigned to them when this file was open before; an image that
        is gone is mentioned in the status bar."""
        failed = []
        for path, indices in self.assigned_textures.for_model(self.model).items():
            try:
                image, _ = read_image(Path(path))
            except TextureError as error:
                failed.append(f"{path}: {error}")
                continue
            self._put_image(indices, path, image)
        if failed:
            self.statusBar().showMessage(f"An assigned texture could not be read: {failed[0]}", 10000)

    def _put_image(self, indices: list[int], path: str, image: np.ndarray) -> None:
        """Meshes ``indices`` show ``image``; their base colour's RGB turns white so it shows as it is."""
        for index in indices:
            mesh = self.model.meshes[index]
            mesh.material = replace(mesh.material, texture=path, texture_path=str(Path(path).resolve()),
                                    image=image, base_color=(1.0, 1.0, 1.0, mesh.material.base_color[3]))
            self.outliner.refresh_mesh(index)

    def drop_image(self, path: str | Path, position: QPoint) -> bool:
        """An image dropped at ``position`` (viewport pixels): on the mesh there, or on every mesh when
        the model has one mesh or none is there."""
        if self.model is None or not self.model.meshes:
            return False
        index = None if len(self.model.meshes) == 1 else self.viewport.mesh_at(position)
        indices = list(range(len(self.model.meshes))) if index is None else [index]
        return self.assign_texture(indices, path)

    # --- loading --------------------------------------------------------------------------------

    def open_files(self, paths: list[str | Path]) -> int:
        """Load ``paths`` as one model in the background; on failure the current model stays. The
        frame rate set for the model on screen is its own: the new files start at their default."""
        options = replace(self.load_options, fps=None)
        return self._start_load([str(Path(p)) for p in paths], keep_state=False, options=options)

    def attach_files(self, paths: list[str | Path]) -> int:
        """Load the current model's files together with animation files that belong to it."""
        if self.model is None or not self.model.files:
            return self.open_files(paths)
        extra = [str(Path(p)) for p in paths if str(Path(p)) not in self.model.files]
        return self._start_load(self.model.files + extra, keep_state=True)

    def reload(self) -> int | None:
        """Read the current files again (e.g. after editing them elsewhere), keeping clip and time."""
        if self.model is None or not self.model.files:
            return None
        return self._start_load(list(self.model.files), keep_state=True)

    def set_fps(self, fps: float) -> None:
        """Frames per second for formats that store frames without times; reloads the model."""
        if fps == self.load_options.fps:
            return
        if self.model is None or not self.model.files:
            return
        self._start_load(list(self.model.files), keep_state=True, options=replace(self.load_options, fps=fps))

    def _start_load(self, paths: list[str], keep_state: bool,
                    options: formats.LoadOptions | None = None) -> int:
        """Load in the background with ``options`` (default: the model on screen's); they become the
        window's when the load succeeds."""
        options = options or self.load_options
        request = self.loader.start(lambda: formats.load([Path(p) for p in paths], options))
        self._pending = {"keep_state": keep_state, "request": request, "options": options}
        self._show_progress(paths, request)
        return request

    def _show_progress(self, paths: list[str], request: int) -> None:
        self._close_progress()
        progress = QProgressDialog(f"Reading {', '.join(Path(p).name for p in paths)}…", "Cancel", 0, 0, self)
        progress.setWindowTitle("Opening")
        progress.setMinimumDuration(PROGRESS_DELAY_MS)
        progress.setWindowModality(Qt.WindowModality.WindowModal)
        progress.canceled.connect(lambda: self._cancel_load(request))
        self._progress = progress

    def _close_progress(self) -> None:
        if self._progress is not None:
            self._progress.canceled.disconnect()
            self._progress.reset()
            self._progress.deleteLater()
            self._progress = None

    def _cancel_load(self, request: int) -> None:
        if self._pending.get("request") == request:
            self.loader.cancel()
            self._pending = {}
            self._close_progress()
            self.statusBar().showMessage("Loading cancelled; the current model stays", 5000)

    def _loaded(self, model: Model, request: int) -> None:
        pending, self._pending = self._pending, {}
        self._close_progress()
        if not pending.get("keep_state", False) and not ask_to_save(self, self.ragdoll_panel):
            self.statusBar().showMessage("Kept the current model and its unsaved ragdoll profile", 5000)
            return
        self.load_options = pending.get("options", self.load_options)
        self.set_model(model, keep_state=pending.get("keep_state", False))
        self.recent.add(list(model.files))

    def _load_error(self, error: Exception, request: int) -> None:
        self._pending = {}
        self._close_progress()
        if isinstance(error, formats.ReadError):
            message = str(error)
        else:
            message = f"Unexpected {type(error).__name__} while reading: {error}"
        self.show_read_error(message)
        self.load_failed.emit(message)

    def show_read_error(self, error: formats.ReadError | str) -> None:
        kept = "\n\nThe model on screen was kept." if self.model is not None else ""
        QMessageBox.critical(self, "Cannot open file", f"{error}{kept}")

    def open_dialog(self) -> None:
        paths = self._ask_open("Open model and animation files")
        if paths:
            self.open_files(paths)

    def attach_dialog(self) -> None:
        paths = self._ask_open("Attach animation files to the model")
        if paths:
            self.attach_files(paths)

    def _ask_open(self, title: str) -> list[str]:
        paths, _ = QFileDialog.getOpenFileNames(self, title, self.settings.value("last_folder", ""),
                                                _open_filter())
        if paths:
            self.settings.setValue("last_folder", str(Path(paths[0]).parent))
        return paths

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        entries = self.recent.entries()
        for number, entry in enumerate(entries, 1):
            label = f"{' + '.join(Path(p).name for p in entry)}  —  {Path(entry[0]).parent}"
            action = self.recent_menu.addAction(f"&{number % 10} {label}")
            action.setToolTip("\n".join(entry))
            action.triggered.connect(lambda _=False, e=entry: self.open_files(e))
        if not entries:
            self.recent_menu.addAction("(none)").setEnabled(False)
        self.recent_menu.addSeparator()
        self.recent_menu.addAction("Clear List", self.recent.clear).setEnabled(bool(entries))

    # --- drag and drop --------------------------------------------------------------------------

    def dragEnterEvent(self, event) -> None:
        if any(url.isLocalFile() for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        """Dropped files (any number) open as a new model; with Shift held, or when every file only
        adds animations to the current model, they are attached to it instead. One image dropped on a
        model is its texture (``drop_image``)."""
        paths = [url.toLocalFile() for url in event.mimeData().urls() if url.isLocalFile()]
        if not paths:
            return
        event.acceptProposedAction()
        if self.model is not None and len(paths) == 1 and Path(paths[0]).suffix.lower() in IMAGE_SUFFIXES:
            self.drop_image(paths[0], self.viewport.mapFrom(self, event.position().toPoint()))
            return
        shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        if self.model is not None and self.model.files and (shift or _only_animations_for(self.model, paths)):
            self.attach_files(paths)
        else:
            self.open_files(paths)

    # --- playback -------------------------------------------------------------------------------

    def _tick(self) -> None:
        now = time.perf_counter()
        elapsed, self._tick_clock = now - self._tick_clock, now
        if self.ragdoll.running:
            self.ragdoll.tick(elapsed)
        elif self.playback is not None and self.playback.playing:
            self.playback.advance(elapsed)

    def current_pose(self) -> Pose:
        """What the view shows: the ragdoll while it runs, else the clip at the playhead."""
        return self.ragdoll.pose() if self.ragdoll.running else self.playback.pose()

    def _pose_changed(self) -> None:
        if self.playback is None:
            return
        pose = self.current_pose()
        if not self.ragdoll.running:
            self.ragdoll.set_clip_pose(pose)
        running = self.ragdoll.running
        copies = [self.ragdoll.pose(copy) for copy in range(1, self.ragdoll.copies)] if running else []
        self.viewport.set_pose(pose, copies)
        self.outliner.set_pose(pose)
        self._show_gizmos()

    # --- ragdoll --------------------------------------------------------------------------------

    def _connect_ragdoll(self) -> None:
        session = self.ragdoll
        session.pose_changed.connect(self._pose_changed)
        session.profile_changed.connect(self._show_gizmos)
        session.selection_changed.connect(self._show_gizmos)
        session.selection_changed.connect(self._show_selected_part)
        session.state_changed.connect(self._show_gizmos)
        self.ragdoll_panel.go_requested.connect(self.set_ragdoll_running)
        self.ragdoll_panel.bake_requested.connect(self.bake_ragdoll_run)
        self.ragdoll_panel.visibilityChanged.connect(self._ragdoll_panel_shown)
        self.viewport.ray_tool = session

    def _ragdoll_panel_shown(self, visible: bool) -> None:
        """The gizmos and part picking are on while the panel shows."""
        self.ragdoll.editing = visible
        self._show_gizmos()

    def _show_gizmos(self) -> None:
        self.viewport.set_gizmo_scene(self.ragdoll.gizmo_scene() if self.model is not None else None)

    def _show_selected_part(self) -> None:
        part = self.ragdoll.selected_part
        if part is not None and self.ragdoll_panel.isVisible():
            self.ragdoll_panel.tabs.setCurrentIndex(0)

    def set_ragdoll_running(self, on: bool) -> bool:
        """Go ragdoll from the current frame (the clip's pose and velocities), or back to the clip.
        Playback pauses while the ragdoll runs and resumes when it stops."""
        session = self.ragdoll
        if not on:
            session.stop()
            if self._resume_playback and self.playback is not None:
                self.playback.set_playing(True)
            self._resume_playback = False
            self._pose_changed()
            return True
        if self.playback is None or session.running:
            return session.running
        try:
            session.go(self.playback.clip, self.playback.time)
        except Exception as error:  # noqa: BLE001 - a profile pybullet refuses is the user's to fix, not a crash
            self.ragdoll_panel.go_action.setChecked(False)
            QMessageBox.warning(self, "Go ragdoll", f"Could not start the ragdoll: {error}")
            return False
        self._resume_playback = self.playback.playing
        if self.playback.playing:
            self.playback.set_playing(False)
        self._tick_clock = time.perf_counter()
        self._pose_changed()
        return True

    def bake_ragdoll_run(self) -> bool:
        """Stop the ragdoll and add its run so far to the model as a clip, shown in the timeline at its
        start (it exports with the model's other clips)."""
        clip = self.ragdoll.baked_clip() if self.ragdoll.running else None
        if clip is None:
            self.statusBar().showMessage("Nothing to bake yet: run the ragdoll for a moment first", 5000)
            return False
        self.set_ragdoll_running(False)
        self.model.clips.append(clip)
        self.set_model(self.model, keep_state=True)
        self.playback.set_clip(len(self.model.clips) - 1)
        self.playback.set_time(clip.start)
        self.playback.set_playing(False)
        self.statusBar().showMessage(f"Baked {clip.duration:.2f} s of ragdoll into clip {clip.name!r}", 5000)
        return True

    def _show_frame_time(self) -> None:
        """The frames painted per second since the last update, and the last frame's drawing time."""
        frames, since = self._frames_counted
        now = time.perf_counter()
        self._frames_counted = (self.viewport.frames_drawn, now)
        if self.model is not None:
            rate = (self.viewport.frames_drawn - frames) / max(now - since, 1e-6)
            self.frame_label.setText(f"{rate:.0f} fps · draw {self.viewport.frame_seconds * 1e3:.1f} ms")

    # --- images and exports ---------------------------------------------------------------------

    def capture(self, width: int | None = None, height: int | None = None,
                transparent: bool = False) -> QImage:
        """The view as an image, at the view's size unless given."""
        ratio = self.viewport.devicePixelRatioF()
        width = width or int(self.viewport.width() * ratio)
        height = height or int(self.viewport.height() * ratio)
        return _image_to_qimage(self.viewport.render_image(width, height, transparent))

    def save_screenshot_dialog(self) -> None:
        self.viewport.makeCurrent()
        limit = max_image_side(self.viewport.ctx) if self.viewport.ctx is not None else 4096
        self.viewport.doneCurrent()
        ratio = self.viewport.devicePixelRatioF()
        size = (int(self.viewport.width() * ratio), int(self.viewport.height() * ratio))
        transparent = self.settings.value("screenshot/transparent", False, type=bool)
        dialog = ScreenshotDialog(size, limit, transparent, self)
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
            QMessageBox.warning(self, "Screenshot", f"Could not render the image: {error}")
            return False
        if not image.save(str(path), "PNG"):
            QMessageBox.warning(self, "Screenshot", f"Could not write {path}")
            return False
        self.statusBar().showMessage(f"Saved {path} ({image.width()} × {image.height()})", 5000)
        return True

    def copy_image(self) -> None:
        QApplication.clipboard().setImage(self.capture())
        self.statusBar().showMessage("Image copied to the clipboard", 3000)

    def _ask_save_path(self, title: str, suffix: str, file_filter: str) -> str:
        """A save dialog offering the current file's stem + ``suffix`` in the last folder saved to, else
        the last folder opened ('': cancelled)."""
        folder = self.settings.value("last_export_folder", "") or self.settings.value("last_folder", "")
        stem = Path(self.model.files[0]).stem if self.model is not None and self.model.files else "boneyard"
        name = str(Path(folder) / f"{stem}{suffix}") if folder else f"{stem}{suffix}"
        path, _ = QFileDialog.getSaveFileName(self, title, name, file_filter)
        if path:
            self.settings.setValue("last_export_folder", str(Path(path).parent))
        return path

    def export_dialog(self) -> None:
        path = self._ask_save_path("Export glTF 2.0", ".glb",
                                   "glTF binary (*.glb);;glTF with embedded buffer (*.gltf)")
        if path:
            self.export_gltf(path)

    def export_gltf(self, path: str | Path) -> bool:
        """Every mesh, the skeleton and every clip as glTF 2.0, then the written file re-read and
        checked (the figure ``convert --check`` prints)."""
        from app.export.check import check_export

        path = _with_suffix(path, tuple(MODEL_WRITERS), ".glb")
        hidden = self.viewport.options.show_hidden  # what the view shows: hidden meshes only when shown
        return self._export("Export glTF", path,
                            lambda: writer_for(path, MODEL_WRITERS)(path, self.model, None, hidden),
                            lambda: check_export(self.model, formats.load([path]), None, hidden).line())

    def export_pose_dialog(self) -> None:
        path = self._ask_save_path("Export the current pose", "_pose.obj",
                                   "Wavefront OBJ (*.obj);;glTF binary, static (*.glb);;"
                                   "Bones and vertices (*.npz);;Bones and vertices as JSON (*.json)")
        if path:
            self.export_pose(path)

    def export_pose(self, path: str | Path) -> bool:
        """The posed mesh at the current time, as OBJ, static glTF, or the ``pose`` command's arrays."""
        path = _with_suffix(path, tuple(POSE_WRITERS), ".obj")
        method = "dqs" if self.viewport.options.skinning == "dqs" else "lbs"
        arrays = pose_arrays(self.model, self.current_pose(), method)
        write = writer_for(path, POSE_WRITERS)
        return self._export("Export Pose", path, lambda: write(path, self.model, arrays))

    def _export(self, title: str, path: Path, write: Callable[[], list[str]],
                check: Callable[[], str] | None = None) -> bool:
        """Run ``write`` (which returns warnings), then ``check`` (a line on how exactly the file plays
        back); report a failure, the warnings, the check and the written file."""
        try:
            warnings = write()
            note = check() if check is not None else ""
        except (OSError, ValueError, InputError) as error:
            QMessageBox.warning(self, title, f"Could not write {path}: {error}")
            return False
        wrote = f"Wrote {path}." + (f"\n{note}" if note else "")
        if warnings:
            QMessageBox.information(self, "Exported with warnings", wrote + "\n\n" + "\n".join(warnings))
        self.statusBar().showMessage(wrote.replace("\n", "  "), 10000)
        return True

    # --- help -----------------------------------------------------------------------------------

    def show_shortcuts(self) -> None:
        ShortcutsDialog(self.menuBar(), self).exec()

    def show_about(self) -> None:
        import moderngl
        import pybullet
        from PySide6 import __version__ as pyside_version
        from PySide6.QtCore import qVersion

        gl = ""
        if self.viewport.ctx is not None:
            info = self.viewport.ctx.info
            gl = f"<br>OpenGL {info['GL_VERSION']} ({info['GL_RENDERER']})"
        QMessageBox.about(self, "About Boneyard", (
            f"<b>Boneyard {__version__}</b><br>Viewer and ragdoll sandbox for legacy skinned meshes."
            f"<br><br>Qt {qVersion()} (PySide6 {pyside_version})<br>moderngl {moderngl.__version__}"
            f"<br>pybullet API {pybullet.getAPIVersion()}{gl}"))

    # --- window state ---------------------------------------------------------------------------

    def _restore_layout(self) -> None:
        geometry = self.settings.value("window/geometry")
        state = self.settings.value("window/state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state, DOCK_LAYOUT_VERSION)
        background = QColor(self.settings.value("view/background", ""))
        if background.isValid():
            self.viewport.options.background = (background.redF(), background.greenF(),
                                                background.blueF(), 1.0)

    # --- keyboard focus -------------------------------------------------------------------------

    def _focus_changed(self, old, new) -> None:
        """Single-key shortcuts reach the view unless a text field is being typed in. Focus the user
        did not move here (a dialog closing, a dock hiding with the focus in it, the window coming
        back) goes to the view, unless it returns to the field the user was typing in."""
        if new is None or new.window() is not self:
            return
        if _in_spin_box(new):
            new.installEventFilter(self)  # see eventFilter (installing twice keeps one filter)
        chosen = QApplication.mouseButtons() != Qt.MouseButton.NoButton or (
            old is not None and old.window() is self and old.isVisible())
        if chosen:
            self._typing_in = new if _types_text(new) else None
        elif new is not self.viewport and new is not self._typing_in:
            self.viewport.setFocus(Qt.FocusReason.OtherFocusReason)

    def eventFilter(self, watched, event) -> bool:
        """Undo and redo stay the window's while a number field has focus (its own line-edit undo
        would take the keys); installed on number fields as they take the focus."""
        if event.type() == QEvent.Type.ShortcutOverride and _in_spin_box(watched):
            keys = QKeySequence(event.keyCombination())
            if keys in self.undo_action.shortcuts() + self.redo_action.shortcuts():
                return True
        return super().eventFilter(watched, event)

    def closeEvent(self, event) -> None:
        if not ask_to_save(self, self.ragdoll_panel):
            event.ignore()
            return
        QApplication.instance().focusChanged.disconnect(self._focus_changed)
        self.ragdoll.close()
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState(DOCK_LAYOUT_VERSION))
        self.timer.stop()
        self.frame_timer.stop()
        super().closeEvent(event)


def _open_filter() -> str:
    """File-dialog filter: every extension the readers know, then each format, then all files."""
    per_format = [(fmt.description, fmt.extensions) for fmt in formats.formats.values()
                  if fmt.extensions]
    everything = sorted({f"*{ext}" for _, extensions in per_format for ext in extensions})
    rows = [f"Models and animations ({' '.join(everything)})"]
    rows += [f"{description} ({' '.join(f'*{ext}' for ext in extensions)})"
             for description, extensions in per_format]
    return ";;".join(rows + ["All files (*)"])


def _types_text(widget) -> bool:
    """True for a widget that takes typed text: a line edit or a spin box (or its line edit)."""
    return isinstance(widget, QLineEdit) or _in_spin_box(widget)


def _in_spin_box(widget) -> bool:
    return isinstance(widget, QAbstractSpinBox) or isinstance(widget.parentWidget(), QAbstractSpinBox)


def _only_animations_for(model: Model, paths: list[str]) -> bool:
    """True when every file only adds animations to ``model``: animation files, or C3DE bones files
    (one animation each) for a C3DE model."""
    try:
        sniffed = [formats.sniff(path) for path in paths]
    except formats.ReadError:
        return False
    return all(s.role == "animation" or (s.role == "bones" and s.format == model.format == "c3de")
               for s in sniffed)


def _with_suffix(path: str | Path, allowed: tuple[str, ...], default: str) -> Path:
    path = Path(path)
    return path if path.suffix.lower() in allowed else path.with_suffix(path.suffix + default)
