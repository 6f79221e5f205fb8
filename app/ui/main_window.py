"""The main window: the view, the docks and the status bar assembled around a ViewerState, and the
user's file choices; the menus (menus.py), reads (load_runner.py), outputs (window_exports.py),
keyboard focus (typing_focus.py) and status bar fields (status_line.py) each live in their own module."""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPainter, QPixmap
from PySide6.QtWidgets import QColorDialog, QFileDialog, QMainWindow, QMessageBox

from app import __version__, formats
from app.errors import InputError
from app.formats.textures import IMAGE_SUFFIXES, TextureError
from app.model import Model
from app.scene.draw_settings import draw_settings
from app.scene.gizmo_scene import joined_scenes
from app.state.bone_axes import shown_axes
from app.state.load_requests import LoadRequest, OtherSkeletonRequest, TextureDrop
from app.state.onion import shown_ghosts
from app.state.playback import Playback
from app.state.viewer import ActionError, ViewerState
from app.state.plt_colours import PltColours
from app.ui.archive_dialog import ARCHIVE_FILTER, ArchiveDialog
from app.ui.assigned_textures import AssignedTextures
from app.ui.file_watch import FileWatch
from app.ui.load_runner import LoadRunner, ReadRequest
from app.ui.menus import WindowMenus
from app.ui.outliner import OutlinerDock
from app.ui.plt_layers import place_in
from app.ui.plt_memory import RememberedPltColours
from app.ui.ragdoll.panel import RagdollPanel, ask_to_save
from app.ui.ragdoll.session import RagdollSession
from app.ui.recent_files import RecentFiles
from app.ui.shortcuts_dialog import ShortcutsDialog
from app.ui.status_line import StatusLine
from app.ui.texture_folders import TextureFolders
from app.ui.timeline import TimelineDock
from app.ui.typing_focus import TypingFocus
from app.ui.unsaved_clips import ask_to_drop_clips
from app.ui.up_axes import RememberedUpAxes
from app.ui.user_settings import open_settings
from app.ui.viewport import Viewport, local_files
from app.ui.warnings_dock import WarningsDock
from app.ui.window_exports import WindowExports
from app.user_files import user_data_dir

#: Saved dock layouts of another version are ignored (raise it when the docks change).
DOCK_LAYOUT_VERSION = 2
#: Playback tick interval (about 60 frames per second).
TICK_MS = 16
#: State messages stay this long in the status bar (milliseconds).
MESSAGE_MS = 6000


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
        # Before the views subscribe: a model's remembered PLT colours are put on before it is drawn.
        self.plt_colours = PltColours(self.state, RememberedPltColours(self.settings))
        self.ragdoll = RagdollSession(self.state.ragdoll_tool, self)
        self._use_texture_folders()
        self.ragdoll_panel = RagdollPanel(self.ragdoll, self)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.ragdoll_panel)
        self.tabifyDockWidget(self.outliner, self.ragdoll_panel)
        self.outliner.raise_()
        self.warnings_dock = WarningsDock(self)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.warnings_dock)
        self.warnings_dock.hide()
        self.loads = LoadRunner(self)
        self.loads.model_read.connect(self._model_read)
        self.loads.clips_read.connect(self._clips_read)
        self.loads.other_skeleton_read.connect(self._other_skeleton_read)
        self.loads.failed.connect(self._load_error)
        self.loads.cancelled.connect(
            lambda: self.statusBar().showMessage("Loading cancelled; the current model stays", 5000))
        self.exports = WindowExports(self)
        self.status = StatusLine(self.statusBar(), self.viewport, self.show_warnings)
        self.setAcceptDrops(True)
        self.file_watch = FileWatch(self)
        self.menus = WindowMenus(self)
        self.viewport.bone_picked.connect(self.state.select_bone)
        self.viewport.files_dropped.connect(self.drop_files)
        self.viewport.warned.connect(self.state.add_warning)
        self.outliner.attach(self.state)
        self.plt_layers = place_in(self.outliner.inspector, self.plt_colours)
        self.outliner.texture_requested.connect(self.assign_texture_dialog)
        self.timeline.attach(self.state)
        self.timeline.fps_changed.connect(self.set_fps)
        self._connect_state()
        self._connect_ragdoll()
        self._tick_clock = time.perf_counter()
        self._camera_before_ragdoll = None  # where the view looked when the ragdoll went
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._tick)
        self.timer.start(TICK_MS)
        self.resize(1280, 800)
        self._restore_layout()
        self.viewport.setFocus()
        self.typing_focus = TypingFocus(self, self.viewport, self.menus.undo_action, self.menus.redo_action)

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
        self.menus.show_display(name, value)
        self._show_view_options()

    def _show_meshes(self, indices: list[int]) -> None:
        self.viewport.update()

    def _show_up_axis(self, axis: str) -> None:
        self.viewport.set_up_axis(axis)
        self.menus.show_up_axis(axis)

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
            self.menus.show_up_axis(model.up_axis)
        self._show_view_options()
        self.menus.enable_model_actions(bool(model.files))
        names = self.status.show_model(model, len(self.state.warnings))
        self.setWindowTitle(f"{names} — Boneyard")
        self.warnings_dock.bind(model, self.state.warnings)
        if not self.state.warnings:
            self.warnings_dock.hide()
        self.model_changed.emit()

    def _show_warnings(self, warnings: list[str]) -> None:
        self.warnings_dock.bind(self.model, warnings)
        self.status.show_warning_count(len(warnings))

    def show_warnings(self) -> None:
        self.warnings_dock.show()
        self.warnings_dock.raise_()

    def close_model(self) -> None:
        """Back to the built-in demo (asking first about an unsaved ragdoll profile and added clips)."""
        if not ask_to_save(self, self.ragdoll_panel) or not ask_to_drop_clips(self, self.state):
            return
        self.loads.forget()
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
        return self.loads.start(self.state.open_request(paths))

    def attach_files(self, paths: list[str | Path]) -> int:
        """File › Attach Animation: the current model's files read together with animation files
        that belong to it; files of another skeleton are read alone and open the bone map
        (``ViewerState.attach_request``, ``attach_read``)."""
        return self.loads.start(self.state.attach_request(paths))

    def reload(self) -> int | None:
        """Read the current files again (e.g. after editing them elsewhere), keeping clip and time."""
        request = self.state.reload_request()
        return self.loads.start(request) if request is not None else None

    def set_fps(self, fps: float) -> None:
        """Frames per second for formats that store frames without times; reloads the model."""
        request = self.state.fps_request(fps)
        if request is not None:
            self.loads.start(request)

    def _model_read(self, model: Model, load: LoadRequest | None) -> None:
        """A model read for a LoadRequest: shown, its options the state's (``ViewerState.set_model``)."""
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
            self.loads.start(together)
        else:
            self._other_skeleton_read(source)

    def _load_error(self, error: Exception, load: ReadRequest | None) -> None:
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

    def open_archive_dialog(self) -> None:
        """File › Open Archive…: an archive, then one of its models (``open_from_archive``)."""
        path, _ = QFileDialog.getOpenFileName(self, "Open a model from an archive",
                                              self.settings.value("last_folder", ""), ARCHIVE_FILTER)
        if path:
            self.settings.setValue("last_folder", str(Path(path).parent))
            self.open_from_archive(path)

    def open_from_archive(self, path: str | Path) -> ArchiveDialog:
        """The archive's models listed (``archive_dialog``); the one chosen opens as ``ARCHIVE:RESREF``."""
        dialog = ArchiveDialog(path, self)
        dialog.accepted.connect(lambda: self.open_files([dialog.chosen]))
        dialog.open()
        return dialog

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
        return self.loads.start(self.state.other_skeleton_request(paths))

    def _ask_open(self, title: str) -> list[str]:
        paths, _ = QFileDialog.getOpenFileNames(self, title, self.settings.value("last_folder", ""),
                                                _open_filter())
        if paths:
            self.settings.setValue("last_folder", str(Path(paths[0]).parent))
        return paths

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
            self.loads.start(request)

    # --- time and poses ------------------------------------------------------------------------

    def _tick(self) -> None:
        """The wall time since the last tick, for the state to play or simulate."""
        now = time.perf_counter()
        elapsed, self._tick_clock = now - self._tick_clock, now
        self.state.tick(elapsed)

    def _show_pose(self) -> None:
        pose = self.state.current_pose()
        self.viewport.set_pose(pose, self.state.copy_poses(), follow=self.state.following)
        self.viewport.set_ghosts(shown_ghosts(self.state))
        self._show_gizmos()

    # --- ragdoll --------------------------------------------------------------------------------

    def _connect_ragdoll(self) -> None:
        session = self.ragdoll
        session.profile_changed.connect(self._show_gizmos)
        session.selection_changed.connect(self._show_gizmos)
        session.part_selected.connect(self._show_selected_part)
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
        path, axes = self.state.root_path_scene(), shown_axes(self.state)
        scene = tool.gizmo_scene()
        shown = scene if path is None and axes is None else joined_scenes(scene, path, axes)
        self.viewport.set_gizmo_scene(shown)

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
        """The simulation's clock starts when it goes (the time before was the clip's). The view
        follows the running ragdoll (``ViewerState.following``) and looks where it looked before on Stop."""
        self._tick_clock = time.perf_counter()
        if running:
            self._camera_before_ragdoll = self.viewport.camera.target.copy()
        elif self._camera_before_ragdoll is not None:
            self.viewport.camera.target = self._camera_before_ragdoll
            self._camera_before_ragdoll = None
            self.viewport.update()

    def grab(self) -> QPixmap:
        """The window as it looks. QWidget.grab leaves out the view, a native GL window, so the view's
        picture is painted in where it sits."""
        picture = super().grab()
        painter = QPainter(picture)
        painter.drawImage(self.viewport.mapTo(self, QPoint(0, 0)), self.viewport.grabFramebuffer())
        painter.end()
        return picture

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

    def closeEvent(self, event) -> None:
        if not ask_to_save(self, self.ragdoll_panel):
            event.ignore()
            return
        self.typing_focus.close()
        self.ragdoll.close()
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState(DOCK_LAYOUT_VERSION))
        self.timer.stop()
        self.status.frame_timer.stop()
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
