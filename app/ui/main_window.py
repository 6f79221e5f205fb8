"""The main window: menus, the viewport, the timeline dock, the status bar, errors."""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QLabel, QMainWindow, QMessageBox

from app import __version__, formats
from app.model import Model
from app.playback import Playback
from app.ui.timeline import TimelineDock
from app.ui.viewport import Viewport

#: Playback tick interval (about 60 frames per second).
TICK_MS = 16


class MainWindow(QMainWindow):
    def __init__(self, load_options: formats.LoadOptions | None = None):
        super().__init__()
        self.load_options = load_options or formats.LoadOptions()
        self.settings = QSettings()
        self.model: Model | None = None
        self.playback: Playback | None = None
        self.viewport = Viewport(self)
        self.setCentralWidget(self.viewport)
        self.timeline = TimelineDock(self)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.timeline)
        self.status = QLabel()
        self.statusBar().addPermanentWidget(self.status)
        self._build_menus()
        self._tick_clock = time.perf_counter()
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._tick)
        self.timer.start(TICK_MS)
        self.resize(1280, 800)
        self._restore_layout()

    # --- menus ----------------------------------------------------------------------------------

    def _action(self, menu, text: str, slot, shortcut=None, checkable=False, checked=False) -> QAction:
        action = QAction(text, self)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        action.setCheckable(checkable)
        if checkable:
            action.setChecked(checked)
            action.toggled.connect(slot)
        else:
            action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self._action(file_menu, "&Open…", self.open_dialog, QKeySequence.StandardKey.Open)
        self._action(file_menu, "Save &Screenshot…", self.save_screenshot_dialog, "Ctrl+Shift+S")
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", self.close, QKeySequence.StandardKey.Quit)

        view_menu = self.menuBar().addMenu("&View")
        for name, key in (("front", "1"), ("side", "3"), ("top", "7"), ("iso", "9")):
            self._action(view_menu, f"{name.title()} view", lambda _=False, n=name: self.viewport.set_view(n),
                         key)
        self._action(view_menu, "&Frame all", self.viewport.frame_all, "F")
        view_menu.addSeparator()
        options = self.viewport.options
        self._action(view_menu, "&Skeleton", lambda on: self._set_option("bones", on), "B", True, options.bones)
        self._action(view_menu, "&Wireframe", lambda on: self._set_option("wireframe", on), "W", True,
                     options.wireframe)
        self._action(view_menu, "&Grid", lambda on: self._set_option("grid", on), "G", True, options.grid)
        self._action(view_menu, "&Dual-quaternion skinning",
                     lambda on: self._set_option("skinning", "dqs" if on else "lbs"), None, True)

        help_menu = self.menuBar().addMenu("&Help")
        self._action(help_menu, "&About Boneyard", self.show_about)

    def _set_option(self, name: str, value) -> None:
        setattr(self.viewport.options, name, value)
        self.viewport.update()

    # --- model ----------------------------------------------------------------------------------

    def set_model(self, model: Model) -> None:
        self.model = model
        self.playback = Playback(model)
        self.playback.subscribe(self._pose_changed)
        self.viewport.options.bones = self.viewport.options.bones or not model.meshes
        self.viewport.set_model(model, self.playback.pose())
        self.timeline.bind(self.playback)
        name = Path(model.files[0]).name if model.files else model.name
        self.setWindowTitle(f"{name} — Boneyard")
        triangles = model.triangle_count
        self.status.setText(f"{name}   vertices {model.vertex_count}   "
                            f"triangles {'–' if triangles is None else triangles}   bones {len(model.skeleton)}")

    def open_files(self, paths: list[str | Path]) -> bool:
        """Load ``paths`` as one model; on failure show why and keep the current model."""
        try:
            model = formats.load([Path(p) for p in paths], self.load_options)
        except formats.ReadError as error:
            self.show_read_error(error)
            return False
        self.set_model(model)
        return True

    def open_dialog(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Open model and animation files",
                                                self.settings.value("last_folder", ""))
        if paths:
            self.settings.setValue("last_folder", str(Path(paths[0]).parent))
            self.open_files(paths)

    def show_read_error(self, error: formats.ReadError) -> None:
        QMessageBox.critical(self, "Cannot open file", str(error))

    # --- playback -------------------------------------------------------------------------------

    def _tick(self) -> None:
        now = time.perf_counter()
        elapsed, self._tick_clock = now - self._tick_clock, now
        if self.playback is not None and self.playback.playing:
            self.playback.advance(elapsed)

    def _pose_changed(self) -> None:
        self.viewport.set_pose(self.playback.pose())
        self.statusBar().showMessage(f"frame {self.viewport.frame_seconds * 1e3:.1f} ms")

    # --- screenshots and dialogs ----------------------------------------------------------------

    def save_screenshot_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save screenshot", "screenshot.png", "PNG images (*.png)")
        if path and not self.viewport.grabFramebuffer().save(path):
            QMessageBox.warning(self, "Screenshot", f"Could not write {path}")

    def show_about(self) -> None:
        import moderngl
        import pybullet
        from PySide6 import __version__ as pyside_version

        QMessageBox.about(self, "About Boneyard", (
            f"<b>Boneyard {__version__}</b><br>Viewer and ragdoll sandbox for legacy skinned meshes."
            f"<br><br>Qt (PySide6) {pyside_version}<br>moderngl {moderngl.__version__}"
            f"<br>pybullet API {pybullet.getAPIVersion()}"))

    # --- window state ---------------------------------------------------------------------------

    def _restore_layout(self) -> None:
        geometry = self.settings.value("window/geometry")
        state = self.settings.value("window/state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)

    def closeEvent(self, event) -> None:
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.timer.stop()
        super().closeEvent(event)
