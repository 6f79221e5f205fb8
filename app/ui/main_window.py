"""The main window: menus, the viewport, the docks, the status bar, loading and saving."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import numpy as np
from PySide6.QtCore import QEvent, QPoint, QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QColor, QImage, QKeySequence, QPainter, QPixmap
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

from app import __version__, formats, loading
from app.atomic_files import same_file
from app.errors import InputError
from app.model import Model
from app.render.offscreen import max_image_side
from app.scene.draw_settings import draw_settings
from app.scene.gizmo_scene import joined_scenes
from app.state.load_requests import ClipsRequest, LoadRequest, OtherSkeletonRequest, TextureDrop
from app.state.playback import Playback
from app.state.viewer import ActionError, Exported, ViewerState
from app.formats.textures import IMAGE_SUFFIXES, TextureError
from app.ui.assigned_textures import AssignedTextures
from app.ui.elided_text import ElidedLabel
from app.ui.image_files import save_image
from app.ui.loader import BackgroundLoader
from app.ui.outliner import OutlinerDock
from app.ui.ragdoll.panel import RagdollPanel, ask_to_save
from app.ui.ragdoll.session import RagdollSession
from app.ui.recent_files import RecentFiles
from app.ui.screenshot_dialog import ScreenshotDialog
from app.ui.shortcuts_dialog import ShortcutsDialog
from app.ui.texture_folders import TextureFolders
from app.ui.timeline import TimelineDock
from app.ui.up_axes import RememberedUpAxes
from app.ui.user_settings import open_settings
from app.ui.viewport import Viewport, local_files
from app.ui.warnings_dock import WarningsDock
from app.user_files import user_data_dir

#: Saved dock layouts of another version are ignored (raise it when the docks change).
DOCK_LAYOUT_VERSION = 2
#: Playback tick interval (about 60 frames per second).
TICK_MS = 16
#: A load that takes longer than this shows a progress dialog.
PROGRESS_DELAY_MS = 400
#: State messages stay this long in the status bar (milliseconds).
MESSAGE_MS = 6000
#: The View menu's display switches: (key, text, DisplayOptions field, shortcut).
DISPLAY_ACTIONS = (("shaded", "&Shaded", "shaded", "S"),
                   ("wireframe", "&Wireframe", "wireframe", "W"),
                   ("bones", "S&keleton", "bones", "B"),
                   ("names", "Bone &Names", "bone_names", "N"),
                   ("heatmap", "Weight &Heat Map", "heatmap", "H"),
                   ("normals", "N&ormals", "normals", "Shift+N"),
                   ("grid", "&Grid", "grid", "G"),
                   ("bounds", "&Bounding Box", "bounds", None),
                   ("dqs", "&Dual-Quaternion Skinning", "skinning", "D"),
                   ("textures", "&Textures", "textures", "T"),
                   ("colors", "&Vertex Colours", "vertex_colors", None),
                   ("hidden", "Show H&idden Meshes", "show_hidden", None),
                   ("follow", "F&ollow the Model", "follow", None),
                   ("inplace", "&In Place", "in_place", None),
                   ("rootpath", "&Root Path", "root_path", None))
#: The widest frame-time text the status bar shows: its field keeps this width, whatever else is there.
WIDEST_FRAME_TIME = "9999 fps · draw 999.9 ms"
#: Keys that end typing in a text field and give the keys back to the view.
FIELD_END_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Escape)
VIEW_KEYS = (("front", Qt.Key.Key_1), ("side", Qt.Key.Key_3), ("top", Qt.Key.Key_7), ("iso", Qt.Key.Key_9))


def _image_to_qimage(image: np.ndarray) -> QImage:
    """(H, W, 4) uint8 straight-alpha RGBA → a QImage that owns a copy of the pixels."""
    height, width = image.shape[:2]
    data = np.ascontiguousarray(image)
    return QImage(data.data, width, height, 4 * width, QImage.Format.Format_RGBA8888).copy()


class MainWindow(QMainWindow):
    """A view of a ViewerState (``state``): it builds the widgets, sends each menu action to one
    state method, repaints on the state's events, loads files in the background and asks the user
    (file dialogs, message boxes). Its timer only tells the state how much time passed.

    ``model_changed`` fires after a model is shown; ``load_failed(message)`` after a load fails
    (the previous model stays).
    """

    model_changed = Signal()
    load_failed = Signal(str)

    def __init__(self, load_options: formats.LoadOptions | None = None):
        super().__init__()
        self.setObjectName("main_window")
        load_options = load_options or formats.LoadOptions()
        self.settings = open_settings()
        self.recent = RecentFiles(self.settings)
        self.assigned_textures = AssignedTextures(self.settings)
        self.texture_folders = TextureFolders(self.settings)
        self.up_axes = RememberedUpAxes(self.settings)
        self.viewport = Viewport(self)
        self.setCentralWidget(self.viewport)
        self.timeline = TimelineDock(self)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.timeline)
        self.outliner = OutlinerDock(self)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.outliner)
        self.state = ViewerState(load_options, ragdoll_dir=user_data_dir(), up_axes=self.up_axes,
                                 textures=self.assigned_textures)
        self.ragdoll = RagdollSession(self.state.ragdoll_tool, self)
        self._use_texture_folders()
        self.ragdoll_panel = RagdollPanel(self.ragdoll, self)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.ragdoll_panel)
        self.tabifyDockWidget(self.outliner, self.ragdoll_panel)
        self.outliner.raise_()
        self.warnings_dock = WarningsDock(self)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.warnings_dock)
        self.warnings_dock.hide()
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
        self.file_label, self.counts_label, self.frame_label = ElidedLabel(), QLabel(), QLabel()
        self.frame_label.setMinimumWidth(self.frame_label.fontMetrics().horizontalAdvance(WIDEST_FRAME_TIME))
        self.statusBar().addPermanentWidget(self.warnings_button)
        for label in (self.file_label, self.counts_label, self.frame_label):
            self.statusBar().addPermanentWidget(label)
        self._frames_counted = (0, time.perf_counter())
        self.setAcceptDrops(True)
        self._build_menus()
        self.viewport.bone_picked.connect(self.state.select_bone)
        self.viewport.files_dropped.connect(self.drop_files)
        self.viewport.warned.connect(self.state.add_warning)
        self.outliner.attach(self.state)
        self.outliner.texture_requested.connect(self.assign_texture_dialog)
        self.timeline.attach(self.state)
        self.timeline.fps_changed.connect(self.set_fps)
        self._connect_state()
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
        playback_menu.addSeparator()
        playback_menu.addAction(self.timeline.mix_action)
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
        self.attach_other_action = self._action(menu, "Attach Clips of Another S&keleton…",
                                                self.attach_other_dialog)
        self.reload_action = self._action(menu, "Re&load", self.reload, [QKeySequence.StandardKey.Refresh,
                                                                        "Ctrl+R"])
        menu.addSeparator()
        self.export_action = self._action(menu, "&Export glTF…", self.export_dialog, "Ctrl+E")
        self.export_in_place_action = self._action(menu, "Export glTF &In Place…",
                                                   lambda: self.export_dialog(in_place=True))
        self.export_in_place_action.setToolTip("The clips without the root's travel over the ground")
        self.export_pose_action = self._action(menu, "Export &Pose…", self.export_pose_dialog, "Ctrl+Shift+E")
        self.export_animation_action = self._action(menu, "Export A&nimation…", self.export_animation_dialog)
        self._action(menu, "Save &Screenshot…", self.save_screenshot_dialog, "Ctrl+Shift+S")
        self._action(menu, "&Copy Image", self.copy_image, QKeySequence.StandardKey.Copy)
        menu.addSeparator()
        self._action(menu, "&Quit", self.close, QKeySequence.StandardKey.Quit)
        self._model_actions = [self.attach_action, self.attach_other_action, self.reload_action,
                               self.export_action, self.export_in_place_action, self.export_pose_action,
                               self.export_animation_action]
        for action in self._model_actions:
            action.setEnabled(False)

    def _build_edit_menu(self) -> None:
        """Undo and redo of ragdoll profile edits (the only document the window edits)."""
        menu = self.menuBar().addMenu("&Edit")
        self.undo_action = self.ragdoll.undo_action(self)
        self.undo_action.setShortcuts([QKeySequence(QKeySequence.StandardKey.Undo)])
        self.redo_action = self.ragdoll.redo_action(self)
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
                                  lambda on, a=axis: on and self.state.set_up_axis(a), checkable=True)
            up_axis_group.addAction(action)
            self.up_axis_actions[axis] = action
        menu.addSeparator()
        display = self.state.display
        self.display_actions = {}
        for key, text, option, shortcut in DISPLAY_ACTIONS:
            self.display_actions[key] = self._action(
                menu, text, lambda on, o=option: self.state.set_display(**{o: _option_value(o, on)}),
                shortcut, True, getattr(display, option) in (True, "dqs"))
        self._action(menu, "&Background Colour…", self.choose_background)
        self._action(menu, "Add Texture &Folder…", self.add_texture_folder_dialog)
        self._action(menu, "Forget Texture Folders", self.forget_texture_folders)
        menu.addSeparator()
        for dock in (self.timeline, self.outliner, self.ragdoll_panel, self.warnings_dock):
            menu.addAction(dock.toggleViewAction())

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
        self.state.use_texture_folders(self.texture_folders.folders())

    def choose_background(self) -> None:
        current = QColor.fromRgbF(*self.state.display.background[:3])
        color = QColorDialog.getColor(current, self, "Background colour")
        if color.isValid():
            self.state.set_display(background=(color.redF(), color.greenF(), color.blueF(), 1.0))
            self.settings.setValue("view/background", color.name())

    # --- showing the state ----------------------------------------------------------------------

    @property
    def model(self) -> Model | None:
        return self.state.model

    @property
    def playback(self) -> Playback | None:
        return self.state.playback

    @property
    def load_options(self) -> formats.LoadOptions:
        """The options the model on screen was read with (a reload reads with them again)."""
        return self.state.load_options

    @load_options.setter
    def load_options(self, options: formats.LoadOptions) -> None:
        self.state.load_options = options

    def _connect_state(self) -> None:
        events = self.state.events
        events.subscribe("model", self._show_model)
        events.subscribe("pose", self._show_pose)
        events.subscribe("selection", lambda _bone: self._show_view_options())
        events.subscribe("display", self._show_display)
        events.subscribe("meshes", self._show_meshes)
        events.subscribe("warnings", self._show_warnings)
        events.subscribe("ragdoll", self._show_ragdoll_running)
        events.subscribe("up_axis", self._show_up_axis)
        events.subscribe("message", lambda text: self.statusBar().showMessage(text, MESSAGE_MS))
        self._show_view_options()

    def _show_view_options(self) -> None:
        """The viewport draws what the display options and the selected bone say."""
        display = self.state.display
        self.viewport.show_settings(draw_settings(display.drawn, self.state.selected_bone, display.heatmap))

    def _show_display(self, name: str, value) -> None:
        for key, _, option, _ in DISPLAY_ACTIONS:
            if option == name:
                self.display_actions[key].setChecked(value in (True, "dqs"))
        self._show_view_options()

    def _show_meshes(self, indices: list[int]) -> None:
        self.viewport.update()

    def _show_up_axis(self, axis: str) -> None:
        self.viewport.set_up_axis(axis)
        self.up_axis_actions[axis].setChecked(True)

    # --- model ----------------------------------------------------------------------------------

    def set_model(self, model: Model, keep_state: bool = False) -> None:
        """Show ``model`` (``ViewerState.set_model``)."""
        self.state.set_model(model, keep_state)

    def _show_model(self, keep_state: bool) -> None:
        """Bind the docks and the view to the state's new model."""
        model = self.model
        self.ragdoll_panel.warn_unused_profile()
        self.viewport.set_model(model, self.playback.pose(), keep_camera=keep_state)
        if not keep_state:
            self.up_axis_actions[model.up_axis].setChecked(True)
        self._show_view_options()
        for action in self._model_actions:
            action.setEnabled(bool(model.files))
        names = " + ".join(Path(f).name for f in model.files) or model.name
        self.setWindowTitle(f"{names} — Boneyard")
        self.file_label.setText(names)
        triangles = model.triangle_count
        self.counts_label.setText(f"{model.vertex_count:,} vertices   "
                                  f"{'no' if triangles is None else f'{triangles:,}'} triangles   "
                                  f"{len(model.skeleton)} bones")
        self.warnings_dock.bind(model, self.state.warnings)
        self._show_warnings_button(len(self.state.warnings))
        if not self.state.warnings:
            self.warnings_dock.hide()
        self.model_changed.emit()

    def _show_warnings(self, warnings: list[str]) -> None:
        self.warnings_dock.bind(self.model, warnings)
        self._show_warnings_button(len(warnings))

    def _show_warnings_button(self, count: int) -> None:
        self.warnings_button.setVisible(bool(count))
        self.warnings_button.setText(f"⚠ {count} warning{'s' if count != 1 else ''}")
        self.warnings_button.setToolTip("Show every warning of this model (View › Warnings)")

    def show_warnings(self) -> None:
        self.warnings_dock.show()
        self.warnings_dock.raise_()

    def close_model(self) -> None:
        """Back to the built-in demo (asking first about an unsaved ragdoll profile)."""
        if not ask_to_save(self, self.ragdoll_panel):
            return
        self.loader.cancel()
        self._pending = {}
        self.state.close_model()

    # --- meshes: textures ------------------------------------------------------------------------

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
        """``ViewerState.assign_texture``; an image that cannot be read is a warning box."""
        try:
            self.state.assign_texture(indices, path)
        except TextureError as error:
            QMessageBox.warning(self, "Assign texture", f"{path}: {error}.\n\nThe model is unchanged.")
            return False
        return True

    def drop_image(self, path: str | Path, position: QPoint) -> bool:
        """An image dropped at ``position`` (viewport pixels) goes on the meshes the state picks."""
        if self.model is None or not self.model.meshes:
            return False
        under = self.viewport.mesh_at(position) if len(self.model.meshes) > 1 else None
        return self.assign_texture(self.state.texture_targets(under), path)

    # --- loading --------------------------------------------------------------------------------

    def open_files(self, paths: list[str | Path]) -> int:
        """Load ``paths`` as one model in the background (``ViewerState.open_request``); on failure the
        current model stays."""
        return self._start_load(self.state.open_request(paths))

    def attach_files(self, paths: list[str | Path]) -> int:
        """File › Attach Animation: the current model's files read together with animation files
        that belong to it; files of another skeleton are read alone and open the bone map
        (``ViewerState.attach_request``, ``attach_read``)."""
        return self._start_load(self.state.attach_request(paths))

    def reload(self) -> int | None:
        """Read the current files again (e.g. after editing them elsewhere), keeping clip and time."""
        request = self.state.reload_request()
        return self._start_load(request) if request is not None else None

    def set_fps(self, fps: float) -> None:
        """Frames per second for formats that store frames without times; reloads the model."""
        request = self.state.fps_request(fps)
        if request is not None:
            self._start_load(request)

    def _start_load(self, load: LoadRequest | ClipsRequest | OtherSkeletonRequest) -> int:
        """Read what ``load`` asks in the background; a LoadRequest's options become the state's
        when the read succeeds, a ClipsRequest's files go to ``_clips_read`` and an
        OtherSkeletonRequest's to ``_other_skeleton_read``."""
        paths, options = load.paths, load.options
        request = self.loader.start(lambda: loading.load([Path(p) for p in paths], options))
        self._pending = {"load": load, "request": request}
        self._show_progress(list(paths), request)
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
        load, self._pending = self._pending.get("load"), {}
        self._close_progress()
        if isinstance(load, OtherSkeletonRequest):
            self._other_skeleton_read(model)
            return
        if isinstance(load, ClipsRequest):
            self._clips_read(model)
            return
        keep_state = getattr(load, "keep_state", False)
        if not keep_state and not ask_to_save(self, self.ragdoll_panel):
            self.statusBar().showMessage("Kept the current model and its unsaved ragdoll profile", 5000)
            return
        self.state.set_model(model, keep_state, getattr(load, "options", None))
        self.recent.add(list(model.files))

    def _other_skeleton_read(self, source: Model) -> None:
        """Files of another skeleton read alone: the bone map for their clips."""
        from app.ui.bone_map_dialog import BoneMapDialog

        BoneMapDialog(source, self.state, self).exec()

    def _clips_read(self, source: Model) -> None:
        """Attached files read alone: read again with the model when they animate its bones, else
        the bone map for their skeleton."""
        try:
            together = self.state.attach_read(source)
        except ActionError as error:
            QMessageBox.warning(self, "Attach Animation", str(error))
            return
        if together is not None:
            self._start_load(together)
        else:
            self._other_skeleton_read(source)

    def _load_error(self, error: Exception, request: int) -> None:
        load, self._pending = self._pending.get("load"), {}
        self._close_progress()
        if isinstance(load, OtherSkeletonRequest) and isinstance(error, InputError):
            QMessageBox.warning(self, "Attach Clips of Another Skeleton", str(error))
            return
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

    def attach_other_dialog(self) -> None:
        """File › Attach Clips of Another Skeleton…: the files, then the bone map."""
        paths = self._ask_open("Clips of another skeleton to play on the model")
        if paths:
            self.attach_other(paths)

    def attach_other(self, paths: list[str | Path]) -> int:
        """Read ``paths`` alone in the background (``ViewerState.other_skeleton_request``), then open
        the bone map for their clips (``_other_skeleton_read``)."""
        return self._start_load(self.state.other_skeleton_request(paths))

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
        if local_files(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        paths = local_files(event.mimeData())
        if paths:
            event.acceptProposedAction()
            shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
            self.drop_files(paths, shift, self.viewport.mapFrom(self, event.position().toPoint()))

    def drop_files(self, paths: list[str], shift: bool, position: QPoint) -> None:
        """Dropped files (any number) open as a new model; with Shift held, or when every file only
        adds animations to the current model, they are attached to it instead. One image dropped on a
        model is its texture (``drop_image``, ``position`` in viewport pixels)."""
        request = self.state.drop_request(paths, forced=shift)
        if isinstance(request, TextureDrop):
            self.drop_image(request.path, position)
        else:
            self._start_load(request)

    # --- time and poses ------------------------------------------------------------------------

    def _tick(self) -> None:
        """The wall time since the last tick, for the state to play or simulate."""
        now = time.perf_counter()
        elapsed, self._tick_clock = now - self._tick_clock, now
        self.state.tick(elapsed)

    def _show_pose(self) -> None:
        pose = self.state.current_pose()
        self.viewport.set_pose(pose, self.state.copy_poses(), follow=self.state.following)
        self._show_gizmos()

    # --- ragdoll --------------------------------------------------------------------------------

    def _connect_ragdoll(self) -> None:
        session = self.ragdoll
        session.profile_changed.connect(self._show_gizmos)
        session.selection_changed.connect(self._show_gizmos)
        session.selection_changed.connect(self._show_selected_part)
        session.state_changed.connect(self._show_gizmos)
        self.ragdoll_panel.go_requested.connect(self.set_ragdoll_running)
        self.ragdoll_panel.bake_requested.connect(self.state.bake_ragdoll_run)
        self.ragdoll_panel.visibilityChanged.connect(self._ragdoll_panel_shown)
        self.viewport.ray_tool = self.state.ragdoll_tool

    def _ragdoll_panel_shown(self, visible: bool) -> None:
        """The gizmos and part picking are on while the panel shows."""
        self.ragdoll.editing = visible
        self._show_gizmos()

    def _show_gizmos(self) -> None:
        tool = self.state.ragdoll_tool
        if self.model is None:
            self.viewport.set_gizmo_scene(None)
            return
        path = self.state.root_path_scene()
        scene = tool.gizmo_scene()
        self.viewport.set_gizmo_scene(scene if path is None else joined_scenes(scene, path))

    def _show_selected_part(self) -> None:
        part = self.ragdoll.selected_part
        if part is not None and self.ragdoll_panel.isVisible():
            self.ragdoll_panel.tabs.setCurrentIndex(0)

    def set_ragdoll_running(self, on: bool) -> bool:
        """Ragdoll › Go Ragdoll: ``ViewerState.go_ragdoll``; a ragdoll that cannot start is a warning box."""
        try:
            return self.state.go_ragdoll(on)
        except ActionError as error:
            self.ragdoll_panel.go_action.setChecked(False)
            QMessageBox.warning(self, "Go ragdoll", str(error))
            return False

    def _show_ragdoll_running(self, running: bool) -> None:
        """The simulation's clock starts when it goes (the time before was the clip's)."""
        self._tick_clock = time.perf_counter()

    def _show_frame_time(self) -> None:
        """The frames painted per second since the last update, and the last frame's drawing time; a
        view that drew nothing since then (nothing moves) says so rather than "0 fps"."""
        frames, since = self._frames_counted
        now = time.perf_counter()
        self._frames_counted = (self.viewport.frames_drawn, now)
        if self.model is not None:
            drawn = self.viewport.frames_drawn - frames
            rate = f"{drawn / max(now - since, 1e-6):.0f} fps" if drawn else "still"
            self.frame_label.setText(f"{rate} · draw {self.viewport.frame_seconds * 1e3:.1f} ms")

    # --- images and exports ---------------------------------------------------------------------

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

    def grab(self) -> QPixmap:
        """The window as it looks. QWidget.grab leaves out the view, a native GL window, so the view's
        picture is painted in where it sits."""
        picture = super().grab()
        painter = QPainter(picture)
        painter.drawImage(self.viewport.mapTo(self, QPoint(0, 0)), self.viewport.grabFramebuffer())
        painter.end()
        return picture

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
        if not save_image(image, path):
            QMessageBox.warning(self, "Screenshot", f"Could not write {path}")
            return False
        self.statusBar().showMessage(f"Saved {path} ({image.width()} × {image.height()})", 5000)
        return True

    def copy_image(self) -> None:
        try:
            image = self.capture()
        except (ValueError, RuntimeError) as error:
            QMessageBox.warning(self, "Copy image", f"Could not render the image: {error}")
            return
        QApplication.clipboard().setImage(image)
        self.statusBar().showMessage("Image copied to the clipboard", 3000)

    def _ask_save_path(self, title: str, suffix: str, file_filter: str) -> str:
        """A save dialog offering the current file's stem + ``suffix`` in the last folder saved to, else
        the last folder opened ('': cancelled)."""
        folder = self.settings.value("last_export_folder", "") or self.settings.value("last_folder", "")
        stem = Path(self.model.files[0]).stem if self.model is not None and self.model.files else "boneyard"
        name = str(Path(folder) / f"{stem}{suffix}") if folder else f"{stem}{suffix}"
        path, _ = QFileDialog.getSaveFileName(self, title, name, file_filter)
        if path and self.model is not None and any(same_file(path, source) for source in self.model.files):
            QMessageBox.warning(self, title, f"{path} is a file of the model on screen: outputs are never "
                                "written over the files they come from. Choose another name.")
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
        """File › Export glTF (In Place): ``ViewerState.export_gltf``, reported."""
        return self._export("Export glTF", path, lambda out: self.state.export_gltf(out, in_place))

    def export_pose_dialog(self) -> None:
        path = self._ask_save_path("Export the current pose", "_pose.obj",
                                   "Wavefront OBJ (*.obj);;glTF binary, static (*.glb);;"
                                   "Bones and vertices (*.npz);;Bones and vertices as JSON (*.json)")
        if path:
            self.export_pose(path)

    def export_pose(self, path: str | Path) -> bool:
        """File › Export Pose: ``ViewerState.export_pose``, reported."""
        return self._export("Export Pose", path, self.state.export_pose)

    def export_animation_dialog(self) -> None:
        """File › Export Animation: the dialog, a file name, then ``export_animation``."""
        from app.ui.export_animation import FORMATS, ExportAnimationDialog

        self.viewport.makeCurrent()
        limit = max_image_side(self.viewport.ctx) if self.viewport.ctx is not None else 4096
        self.viewport.doneCurrent()
        dialog = ExportAnimationDialog(*self.state.animation_model(), (1280, 720), limit, self)
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
            line = export_animation(self, choice, Path(path))
        except Cancelled:
            self.statusBar().showMessage("Export Animation cancelled", 5000)
            return False
        except OverLimit as error:
            QMessageBox.warning(self, "Export Animation", f"{Path(path).name} was not written: {error}. "
                                "Choose fewer frames (a shorter span or a lower rate) or a smaller size.")
            return False
        except (OSError, ValueError, RuntimeError) as error:
            QMessageBox.warning(self, "Export Animation", f"Could not write {path}: {error}")
            return False
        self.statusBar().showMessage(line, 10000)
        return True

    def _export(self, title: str, path: str | Path, export: Callable[[str | Path], Exported]) -> bool:
        """Run ``export``; report a failure, the writer's warnings and what was written."""
        try:
            done = export(path)
        except (OSError, ValueError, InputError) as error:
            QMessageBox.warning(self, title, f"Could not write {path}: {error}")
            return False
        if done.warnings:
            QMessageBox.information(self, "Exported with warnings",
                                    "\n\n".join([done.line(), "\n".join(done.warnings)]))
        self.statusBar().showMessage(done.line(), 10000)
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
            self.state.set_display(background=(background.redF(), background.greenF(),
                                               background.blueF(), 1.0))

    # --- keyboard focus -------------------------------------------------------------------------

    def _focus_changed(self, old, new) -> None:
        """Single-key shortcuts reach the view unless a text field is being typed in. Focus the user
        did not move here (a dialog closing, a dock hiding with the focus in it, the window coming
        back) goes to the view, unless it returns to the field the user was typing in."""
        if new is None or new.window() is not self:
            return
        if _types_text(new):
            new.installEventFilter(self)  # see eventFilter (installing twice keeps one filter)
        chosen = QApplication.mouseButtons() != Qt.MouseButton.NoButton or (
            old is not None and old.window() is self and old.isVisible())
        if chosen:
            self._typing_in = new if _types_text(new) else None
        elif new is not self.viewport and new is not self._typing_in:
            self.viewport.setFocus(Qt.FocusReason.OtherFocusReason)

    def eventFilter(self, watched, event) -> bool:
        """Installed on text fields as they take the focus. Enter or Escape ends the typing: the field
        takes the key (Enter sets the value, Escape drops what was typed in a number field), then the
        keys go back to the view. Undo and redo stay the window's while a number field has focus (its
        own line-edit undo would take the keys)."""
        if event.type() == QEvent.Type.KeyPress and event.key() in FIELD_END_KEYS and _types_text(watched):
            if _in_spin_box(watched):
                _end_typing_in_number_field(watched, keep=event.key() != Qt.Key.Key_Escape)
            QTimer.singleShot(0, self._keys_to_view)
        elif event.type() == QEvent.Type.ShortcutOverride and _in_spin_box(watched):
            keys = QKeySequence(event.keyCombination())
            if keys in self.undo_action.shortcuts() + self.redo_action.shortcuts():
                return True
        return super().eventFilter(watched, event)

    def _keys_to_view(self) -> None:
        self._typing_in = None
        self.viewport.setFocus(Qt.FocusReason.ShortcutFocusReason)

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


def _end_typing_in_number_field(widget, keep: bool) -> None:
    """Set what was typed into a number field as its value (``keep``), or show its value again in its
    place. Done before the field loses the focus: a table's cell editor is read when it loses the focus,
    before it would take the typed value itself."""
    box = widget if isinstance(widget, QAbstractSpinBox) else widget.parentWidget()
    if keep:
        box.interpretText()
        return
    with QSignalBlocker(box):
        box.setValue(box.value())




def _option_value(option: str, on: bool):
    """A display action's check state as the option's value (the skinning method for D)."""
    if option == "skinning":
        return "dqs" if on else "lbs"
    return on
