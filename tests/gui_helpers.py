"""Helpers for the window tests: the display check, images as arrays, a shown main window."""

import os
import time

import numpy as np
import pytest

needs_display = pytest.mark.skipif(
    not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")),
    reason="needs a display (make test runs the suite under xvfb-run)")


def image_array(qimage) -> np.ndarray:
    """(H, W, 4) uint8 RGBA copy of a QImage or QPixmap (what ``QWidget.grab`` returns)."""
    from PySide6.QtGui import QImage, QPixmap

    if isinstance(qimage, QPixmap):
        qimage = qimage.toImage()
    qimage = qimage.convertToFormat(QImage.Format.Format_RGBA8888)
    data = np.frombuffer(qimage.constBits(), np.uint8, qimage.sizeInBytes())
    return data.reshape(qimage.height(), qimage.bytesPerLine() // 4, 4)[:, : qimage.width()].copy()


def view_image(window, qtbot) -> np.ndarray:
    """The main window's viewport drawn now, (H, W, 4) RGBA (``grabFramebuffer`` paints it afresh)."""
    return image_array(window.viewport.grabFramebuffer())


def changed_colour_pixels(first: np.ndarray, second: np.ndarray, threshold: int = 30) -> int:
    """How many pixels of two (H, W, 4) pictures differ by more than ``threshold`` in a colour channel
    (alpha left out)."""
    difference = np.abs(first[..., :3].astype(int) - second[..., :3].astype(int)).max(axis=-1)
    return int((difference > threshold).sum())


def show_demo_window(qtbot, owned: bool = True):
    """A MainWindow showing the demo, its first frame drawn (its settings are the test's own:
    tests/conftest.py's ``user_folders``); ``owned``: closed when the test ends (else the caller
    closes it: ``SharedWindow``)."""
    from app import loading
    from app.resources import demo_paths
    from app.ui.main_window import MainWindow

    window = MainWindow()
    if owned:
        qtbot.addWidget(window)
    window.resize(1000, 700)
    with qtbot.waitSignal(window.viewport.first_frame_drawn, timeout=30_000):
        window.show()
        window.state.set_model(loading.load(demo_paths()))
    park_pointer(window)
    return window


class SharedWindow:
    """One demo window for a test module: building and showing a window is most of a window test's
    time, so each test gets this one back as ``show_demo_window`` left it (``reset``). A module makes
    one in a module-scoped fixture and closes it at the end."""

    def __init__(self):
        self.window = None
        self._docks = None
        self._display = None

    def get(self, qtbot):
        """The module's window, made on first use (or after a test closed it), else put back as it
        started."""
        from shiboken6 import isValid

        if self.window is not None and isValid(self.window) and not self.window.isVisible():
            self.close()  # a test closed it (its simulation is gone): the next test gets a new one
        if self.window is None or not isValid(self.window):
            self.window = show_demo_window(qtbot, owned=False)
            self._docks = self.window.saveState()
            self._display = {name: getattr(self.window.state.display, name) for name in _display_names()}
        else:
            self.reset(qtbot)
        return self.window

    def reset(self, qtbot) -> None:
        """The demo again at the start, the window's size, docks, display options, remembered files
        and focus as they were when it was first shown; its timers running."""
        from app import formats, loading
        from app.resources import demo_paths
        from app.state.ragdoll.simulation import DEFAULT_BUDGET, DEFAULT_IMPULSE

        window = self.window
        window.exports.background.cancel()  # an export a test left writing: its progress dialog goes
        window.menus.watch_action.setChecked(False)
        if window.state.ragdoll_running:
            window.set_ragdoll_running(False)
        simulation = window.state.simulation
        simulation.set_paused(False)
        simulation.set_tool("shoot")
        simulation.set_gravity(True)
        simulation.set_ground(True)
        simulation.set_copies(1)
        simulation.set_impulse(DEFAULT_IMPULSE)
        simulation.set_follow(False)
        simulation.set_motor_strength(1.0)
        simulation.set_budget(DEFAULT_BUDGET)
        simulation.last_hit = simulation.last_shot = None
        window.loads.loader.cancel()
        window.loads.close_progress()
        window.settings.clear()
        window.state.use_texture_folders([])
        window.state.load_options = formats.LoadOptions()
        window.resize(1000, 700)
        window.restoreState(self._docks)
        window.state.display.set(**self._display)
        window.state.set_model(loading.load(demo_paths()))
        qtbot.waitUntil(lambda: window.viewport.renderer.model is window.model, timeout=10_000)
        window.timer.start()
        window._tick_clock = time.perf_counter()  # as a new window's: its first tick counts from now
        window.status.frame_timer.start()
        window.activateWindow()
        window.viewport.setFocus()
        park_pointer(window)

    def close(self) -> None:
        """Close the window, dropping unsaved ragdoll edits a test left (no question asked)."""
        from PySide6.QtWidgets import QMessageBox
        from shiboken6 import isValid

        if self.window is not None and isValid(self.window):
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(QMessageBox, "warning", lambda *args: QMessageBox.StandardButton.Discard)
                self.window.close()
            self.window.deleteLater()
        self.window = None


def _display_names() -> tuple[str, ...]:
    from app.state.display import OPTIONS

    return OPTIONS


def park_pointer(window) -> None:
    """Move the real pointer off ``window``: its motion over the view's native window reaches the view
    (hover, or a drag a test is making with synthetic events)."""
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QCursor

    QCursor.setPos(window.frameGeometry().bottomRight() + QPoint(20, 20))


def pixel_of(window, point):
    """The viewport pixel a model-space point is drawn at (it must be in view)."""
    from PySide6.QtCore import QPoint

    from app.render.camera import project

    viewport = window.viewport
    pixels, visible = project(viewport.camera, np.asarray(point)[None], viewport.width(), viewport.height())
    assert visible[0]
    return QPoint(int(round(pixels[0, 0])), int(round(pixels[0, 1])))


def part_centre(window, name: str) -> np.ndarray:
    """Where the ragdoll part ``name`` of the first copy is now (model space)."""
    session = window.ragdoll
    return session.simulation.part_frames()[0, session.document.profile.part_index(name), :3, 3]
