"""Textures and hidden meshes in the window under Xvfb, judged by the viewport's pixels: View › Textures
(T), View › Show Hidden Meshes, the Outliner's check boxes, assigning an image by dropping it or from
the Outliner, remembering it for the next open, and screenshots that match the view."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from PIL import Image

from app.model import Material
from app.render.camera import project
from tests.gui_helpers import image_array, needs_display, view_image
from tests.quads import GREEN, RED, front_camera, quad, quadrants, scene

pytestmark = [pytest.mark.gui, needs_display]

LOAD_TIMEOUT_MS = 60_000
WHITE = (1.0, 1.0, 1.0, 1.0)


@pytest.fixture
def window(window):
    """Paused: the tests move time with state.tick."""
    window.playback.set_playing(False)
    return window


def show_quads(window, qtbot, *meshes):
    """Show a model of ``meshes`` head-on (the quads' camera, the view's aspect)."""
    model = scene(*meshes)
    with qtbot.waitSignal(window.viewport.first_frame_drawn, timeout=10_000):
        window.state.set_model(model)
    camera = front_camera()
    camera.distance *= 1.4
    window.viewport.camera = camera
    window.menus.display_actions["grid"].setChecked(False)
    return model


def pixel_of(window, point) -> tuple[int, int]:
    """(row, column) in the grabbed view image of a world point (3,)."""
    view = window.viewport
    ratio = view.devicePixelRatioF()
    size = int(view.width() * ratio), int(view.height() * ratio)
    pixels, inside = project(view.camera, np.array([point]), *size)
    assert inside[0]
    return int(pixels[0, 1]), int(pixels[0, 0])


def is_red(colour) -> bool:
    return colour[0] > colour[1] + 80 and colour[0] > colour[2] + 80


def is_green(colour) -> bool:
    return colour[1] > colour[0] + 80 and colour[1] > colour[2] + 80


def is_grey(colour) -> bool:
    return np.ptp(colour[:3].astype(int)) < 20 and colour[0] > 120


def write_png(path, image):
    Image.fromarray(image, "RGBA").save(path)
    return path


def red_left_green_right() -> np.ndarray:
    return quadrants(RED, GREEN, RED, GREEN, side=8)


def test_t_switches_textures_off_and_on(window, qtbot):
    from PySide6.QtCore import Qt

    show_quads(window, qtbot, quad(Material(base_color=WHITE, image=red_left_green_right())))
    left, right = pixel_of(window, (-0.5, 0.0, 0.0)), pixel_of(window, (0.5, 0.0, 0.0))
    image = view_image(window, qtbot)
    assert is_red(image[left]) and is_green(image[right])
    qtbot.keyClick(window.viewport, Qt.Key.Key_T)
    assert not window.viewport.options.textures
    image = view_image(window, qtbot)
    assert is_grey(image[left]) and is_grey(image[right]), "textures off: the white base colour, lit"
    qtbot.keyClick(window.viewport, Qt.Key.Key_T)
    assert is_red(view_image(window, qtbot)[left])


def test_hidden_meshes_show_with_the_action_and_the_outliner_check_box(window, qtbot):
    from PySide6.QtCore import Qt

    shown = quad(Material(base_color=(0.8, 0.05, 0.05, 1.0)), x=-0.5, half=0.45, name="shown")
    hidden = quad(Material(base_color=(0.05, 0.8, 0.05, 1.0)), x=0.5, half=0.45, name="hidden", visible=False)
    show_quads(window, qtbot, shown, hidden)
    left, right = pixel_of(window, (-0.5, 0.0, 0.0)), pixel_of(window, (0.5, 0.0, 0.0))
    background = view_image(window, qtbot)[5, 5]
    image = view_image(window, qtbot)
    assert is_red(image[left]) and np.array_equal(image[right], background)
    assert window.outliner.mesh_items[1].checkState(0) == Qt.CheckState.Unchecked

    window.menus.display_actions["hidden"].trigger()
    assert is_green(view_image(window, qtbot)[right])
    window.menus.display_actions["hidden"].trigger()
    assert np.array_equal(view_image(window, qtbot)[right], background)

    window.outliner.mesh_items[1].setCheckState(0, Qt.CheckState.Checked)
    assert window.model.meshes[1].visible and is_green(view_image(window, qtbot)[right])
    window.outliner.mesh_items[0].setCheckState(0, Qt.CheckState.Unchecked)
    assert np.array_equal(view_image(window, qtbot)[left], background)


@pytest.mark.parametrize("target", ["window", "view"])
def test_dropped_image_goes_on_the_mesh_under_the_cursor(window, qtbot, tmp_path, target):
    """Dropped on the main window (positions in its pixels) or on the view's own GL window."""
    from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
    from PySide6.QtGui import QDropEvent
    from PySide6.QtWidgets import QApplication

    left = quad(Material(base_color=WHITE), x=-0.5, half=0.45, name="left")
    right = quad(Material(base_color=WHITE), x=0.5, half=0.45, name="right")
    show_quads(window, qtbot, left, right)
    image = np.zeros((4, 4, 4), np.uint8)
    image[...] = GREEN
    path = write_png(tmp_path / "green.png", image)
    row, column = pixel_of(window, (0.5, 0.0, 0.0))
    ratio = window.viewport.devicePixelRatioF()
    in_view = QPoint(int(column / ratio), int(row / ratio))
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(path))])
    at = window.viewport.mapTo(window, in_view) if target == "window" else in_view
    drop = QDropEvent(QPointF(at), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    if target == "window":
        window.dropEvent(drop)
    else:
        QApplication.sendEvent(window.viewport.surface, drop)
    assert window.model.meshes[0].material.image is None
    np.testing.assert_array_equal(window.model.meshes[1].material.image, image)
    picture = view_image(window, qtbot)
    assert is_green(picture[row, column]) and is_grey(picture[pixel_of(window, (-0.5, 0.0, 0.0))])
    assert "green.png" in window.outliner.mesh_items[1].text(2)


def test_dropped_image_goes_on_every_mesh_when_none_is_under_the_cursor(window, qtbot, tmp_path):
    from PySide6.QtCore import QPoint

    show_quads(window, qtbot, quad(Material(base_color=WHITE), x=-0.5, half=0.45, name="left"),
               quad(Material(base_color=WHITE), x=0.5, half=0.45, name="right"))
    path = write_png(tmp_path / "columns.png", red_left_green_right())
    assert window.drop_image(path, QPoint(3, 3))
    assert all(mesh.material.image is not None for mesh in window.model.meshes)
    picture = view_image(window, qtbot)
    assert is_red(picture[pixel_of(window, (-0.7, 0.0, 0.0))])
    assert is_green(picture[pixel_of(window, (0.7, 0.0, 0.0))])


def test_a_bad_image_is_a_warning_and_the_model_stays(window, qtbot, tmp_path, monkeypatch):
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QMessageBox

    warned = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *args: warned.append(args[2]))
    model = show_quads(window, qtbot, quad(Material(base_color=WHITE)))
    before = view_image(window, qtbot)
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40)
    assert not window.drop_image(bad, QPoint(3, 3))
    assert window.model is model and model.meshes[0].material.image is None
    assert len(warned) == 1 and "broken.png" in warned[0]
    np.testing.assert_array_equal(view_image(window, qtbot), before)


def test_assigned_texture_is_remembered_for_the_next_open_and_kept_when_shown_again(window, qtbot, tmp_path,
                                                                                   monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    from app.resources import demo_paths

    model_path = tmp_path / "walker.glb"
    shutil.copy(demo_paths()[0], model_path)
    texture = write_png(tmp_path / "skin.png", red_left_green_right())
    for path in (model_path, *demo_paths()):
        with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
            window.open_files([path])
        if path == model_path:
            monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *args: (str(texture), ""))
            window.outliner.texture_requested.emit(0)
            assert window.model.meshes[0].material.texture == str(texture)
    assert window.model.meshes[0].material.image is None, "another file does not get it"
    with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
        window.open_files([model_path])
    np.testing.assert_array_equal(window.model.meshes[0].material.image, red_left_green_right())
    # Shown again as Bake Run to Clip does: the image is not read again, the GPU keeps the buffers.
    image = window.model.meshes[0].material.image
    window.playback.set_playing(False)
    before = view_image(window, qtbot)
    gpu_meshes = list(window.viewport.renderer.meshes)
    window.set_model(window.model, keep_state=True)
    np.testing.assert_array_equal(view_image(window, qtbot), before)
    assert window.model.meshes[0].material.image is image
    assert all(a is b for a, b in zip(window.viewport.renderer.meshes, gpu_meshes, strict=True))


def test_screenshot_shows_what_the_view_shows(window, qtbot):
    hidden = quad(Material(base_color=(0.05, 0.8, 0.05, 1.0)), x=0.5, half=0.45, name="hidden", visible=False)
    textured = quad(Material(base_color=WHITE, image=red_left_green_right()), x=-0.5, half=0.45)
    show_quads(window, qtbot, textured, hidden)
    window.menus.display_actions["hidden"].trigger()
    for textures in (True, False):
        window.menus.display_actions["textures"].setChecked(textures)
        view = view_image(window, qtbot).astype(int)
        saved = image_array(window.exports.capture()).astype(int)
        assert view.shape == saved.shape
        assert np.mean(np.abs(view - saved).max(axis=-1) > 12) < 0.002, textures


def test_an_image_too_large_for_the_driver_is_shrunk_with_a_status_warning(window, qtbot):
    limit = window.viewport.renderer.textures.limit
    wide = np.zeros((1, limit + 2, 4), np.uint8)
    wide[:, : (limit + 2) // 2], wide[:, (limit + 2) // 2:] = RED, GREEN
    with qtbot.waitSignal(window.viewport.warned, timeout=10_000) as warning:
        show_quads(window, qtbot, quad(Material(base_color=WHITE, image=wide, texture="wide.png")))
    assert "wide.png" in warning.args[0] and f"limit of {limit}" in warning.args[0]
    listed = [window.warnings_dock.list.item(row).text() for row in range(window.warnings_dock.list.count())]
    # The status bar counts it.
    assert listed[-1] == warning.args[0] and window.status.warnings_button.isVisible()
    image = view_image(window, qtbot)
    assert is_red(image[pixel_of(window, (-0.5, 0.0, 0.0))])
    assert is_green(image[pixel_of(window, (0.5, 0.0, 0.0))])
