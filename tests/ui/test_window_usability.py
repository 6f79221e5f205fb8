"""The window as a user meets it: keys reach the view after dialogs, undo from a number field, load
warnings in their own dock, the frame rate per model and on screen, the File and View additions, and
the marks over the view (orientation gizmo, orthographic view, shot ray and impact, drag spring).
Keys are pressed on the widget that has focus, as a user's keys would be, and pictures are grabbed
from the window under Xvfb."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QMouseEvent, QWheelEvent
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QMessageBox

from app.render.camera import project
from app.resources import demo_paths
from app.ui.shortcuts_dialog import MOUSE
from app.ui.view_overlay import AXIS_COLORS, GIZMO_MARGIN, MARKER_RADIUS, SHOT_COLOR, SPRING_COLOR
from tests.gui_helpers import image_array, needs_display, part_centre, pixel_of

pytestmark = [pytest.mark.gui, needs_display]


@pytest.fixture
def window(window):
    """Paused: time passes only through state.tick, but for the frame rate test."""
    window.playback.set_playing(False)
    return window


def press(qtbot, key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    """A key pressed as the user would: delivered to whatever has the keyboard focus."""
    target = QApplication.focusWidget()
    assert target is not None
    qtbot.keyClick(target, key, modifier)


def run_dialog(qtbot, window) -> None:
    """Open a modal dialog over the window and close it, as File › Open or a colour dialog would."""
    dialog = QDialog(window)
    QTimer.singleShot(150, dialog.accept)
    dialog.exec()
    window.activateWindow()  # what the window manager does when a dialog closes (Xvfb has none)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None, timeout=5_000)


def frame_key_reframes(window, qtbot) -> bool:
    camera = window.viewport.camera
    camera.distance *= 3.0
    far = camera.distance
    press(qtbot, Qt.Key.Key_F)
    return window.viewport.camera.distance < 0.5 * far


def grab(window, qtbot) -> np.ndarray:
    """The viewport with the marks painted over it, (H, W, 4) RGBA (``grab`` paints it afresh)."""
    return image_array(window.viewport.grab())


def near_color(image: np.ndarray, color, tolerance: int = 40) -> np.ndarray:
    target = np.array([color.red(), color.green(), color.blue()])
    return np.abs(image[..., :3].astype(int) - target).max(axis=-1) <= tolerance


def newly(before: np.ndarray, after: np.ndarray, color, tolerance: int = 30) -> np.ndarray:
    """Pixels of ``color`` in ``after`` that were not that colour in ``before``."""
    return near_color(after, color, tolerance) & ~near_color(before, color, tolerance)




# --- keyboard focus -----------------------------------------------------------------------------------

def test_the_view_has_the_keys_from_the_start(window, qtbot):
    assert QApplication.focusWidget() is window.viewport
    assert frame_key_reframes(window, qtbot)
    assert window.outliner.filter.text() == ""


def test_after_a_dialog_single_keys_reach_the_view_not_the_filter(window, qtbot):
    for _ in range(2):
        run_dialog(qtbot, window)
        assert QApplication.focusWidget() is window.viewport
        assert frame_key_reframes(window, qtbot)
    assert window.outliner.filter.text() == "" and window.outliner.tree.topLevelItemCount() > 0


def test_hiding_the_dock_that_had_focus_gives_the_keys_to_the_view(window, qtbot):
    window.ragdoll_panel.raise_()
    qtbot.mouseClick(window.ragdoll_panel.profile_box.total_mass_box, Qt.MouseButton.LeftButton)
    window.ragdoll_panel.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.viewport, timeout=5_000)
    assert frame_key_reframes(window, qtbot)
    assert window.outliner.filter.text() == ""


def test_a_field_the_user_clicked_gets_the_typing(window, qtbot):
    qtbot.mouseClick(window.outliner.filter, Qt.MouseButton.LeftButton)
    assert QApplication.focusWidget() is window.outliner.filter
    press(qtbot, Qt.Key.Key_F)
    assert window.outliner.filter.text() == "f"


def test_a_click_in_the_view_gives_it_the_keys_back(window, qtbot):
    """Real clicks land in the view's native GL window, which never takes the focus itself: it hands
    the focus to the view widget, so the view's single-key shortcuts work again after typing."""
    qtbot.mouseClick(window.outliner.filter, Qt.MouseButton.LeftButton)
    assert QApplication.focusWidget() is window.outliner.filter
    qtbot.mouseClick(window.viewport.surface, Qt.MouseButton.LeftButton, pos=QPoint(5, 5))
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.viewport, timeout=5_000)
    assert frame_key_reframes(window, qtbot)
    assert window.outliner.filter.text() == ""


def test_ctrl_z_undoes_a_profile_edit_while_a_number_field_has_focus(window, qtbot):
    session = window.ragdoll
    window.ragdoll_panel.raise_()
    head = session.document.profile.part_index("head")
    before = session.document.profile.parts[head].mass
    session.document.edit_part("head", mass=7.5)
    assert len(session.document.steps) == 1 and session.document.dirty
    qtbot.mouseClick(window.ragdoll_panel.profile_box.total_mass_box, Qt.MouseButton.LeftButton)
    mass_box = window.ragdoll_panel.profile_box.total_mass_box
    assert isinstance(QApplication.focusWidget().parentWidget(), type(mass_box)) \
        or QApplication.focusWidget() is mass_box
    press(qtbot, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert not session.document.can_undo and session.document.can_redo
    assert session.document.profile.parts[head].mass == before and not session.document.dirty
    press(qtbot, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert session.document.profile.parts[head].mass == 7.5


# --- warnings, frame rate, title, recent files, close --------------------------------------------------

def with_warnings(model, files, warnings):
    return replace(model, files=files, warnings=warnings)


def test_load_warnings_are_listed_in_full_in_their_own_dock(window, qtbot, tmp_path):
    demo = window.model
    long = "supermodel 'a_ba' not found beside c_hero.mdl: its animations are missing " * 3
    model = with_warnings(demo, [str(tmp_path / "hero.mdl"), str(tmp_path / "hero_anim.mdl")],
                          [long, "skin 'body': weights that do not sum to 1 are renormalised"])
    window.state.set_model(model)
    assert window.statusBar().currentMessage() == ""
    button = window.status.warnings_button
    assert button.isVisible() and button.text() == "⚠ 2 warnings"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    dock = window.warnings_dock
    assert dock.isVisible() and dock.windowTitle() == "Warnings (2)"
    assert [dock.list.item(row).text() for row in range(dock.list.count())] == list(model.warnings)
    assert "hero.mdl" in dock.files_label.text() and "hero_anim.mdl" in dock.files_label.text()
    picture = image_array(dock.grab())
    assert (picture[..., :3].std(axis=(0, 1)) > 5).any(), "the dock shows its text"
    window.viewport.warned.emit("texture 'skin' is 8192×8192, more than this driver draws; shrunk")
    assert button.text() == "⚠ 3 warnings" and dock.list.item(2).text().startswith("texture 'skin'")
    assert window.statusBar().currentMessage() == ""
    window.state.set_model(with_warnings(demo, demo.files, []))
    assert not button.isVisible() and dock.list.count() == 0 and not dock.isVisible()


def test_the_title_names_every_file(window, tmp_path):
    files = [str(tmp_path / "hero.c3d"), str(tmp_path / "heroBones.c3d")]
    window.state.set_model(with_warnings(window.model, files, []))
    assert window.windowTitle() == "hero.c3d + heroBones.c3d — Boneyard"


def test_a_frame_rate_set_for_one_model_does_not_follow_to_the_next(window, qtbot):
    window.load_options = replace(window.load_options, fps=5.0)
    window.timeline.set_fps(5.0)
    with qtbot.waitSignal(window.model_changed, timeout=30_000):
        window.open_files(demo_paths())
    assert window.load_options.fps is None
    assert window.timeline.fps_box.value() == pytest.approx(12.0)  # the walk's own rate


def test_the_status_bar_shows_frames_per_second(window, qtbot):
    window.timer.start()  # the frames painted per wall-clock second
    window.playback.set_playing(True)
    pattern = re.compile(r"[1-9]\d* fps · draw \d+\.\d ms")
    qtbot.waitUntil(lambda: bool(pattern.fullmatch(window.status.frame_label.text())), timeout=10_000)
    window.playback.set_playing(False)
    still = re.compile(r"still · draw \d+\.\d ms")  # nothing drawn for a whole update: not "0 fps"
    qtbot.waitUntil(lambda: bool(still.fullmatch(window.status.frame_label.text())), timeout=10_000)


def test_open_recent_shows_the_folders(window, tmp_path):
    window.recent.add([str(tmp_path / "models" / "hero.mdl"), str(tmp_path / "models" / "a_ba.mdl")])
    window.menus.fill_recent_menu()
    texts = [action.text() for action in window.menus.recent_menu.actions()]
    assert any("hero.mdl + a_ba.mdl" in text and str(tmp_path / "models") in text for text in texts)


def test_file_close_goes_back_to_the_demo(window, qtbot, tmp_path):
    window.state.set_model(with_warnings(window.model, [str(tmp_path / "hero.c3d")], ["w"]))
    close = next(action for action in window.menuBar().actions()[0].menu().actions()
                 if action.text() == "&Close")
    close.trigger()
    assert list(window.model.files) == [str(path) for path in demo_paths()]
    assert window.windowTitle() == "demo.glb — Boneyard" and not window.status.warnings_button.isVisible()


def test_export_dialogs_open_in_the_last_export_folder(window, qtbot, tmp_path, monkeypatch):
    exports = tmp_path / "exports"
    exports.mkdir()
    offered = []

    def ask(parent, title, name, file_filter):
        offered.append(name)
        return str(exports / "out.glb"), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", ask)
    window.settings.setValue("last_folder", str(tmp_path / "models"))
    window.exports.export_dialog()
    qtbot.waitUntil(lambda: not window.exports.background.running, timeout=60_000)  # in the background
    window.exports.export_pose_dialog()
    assert offered[0].startswith(str(tmp_path / "models"))
    assert offered[1].startswith(str(exports))


# --- smaller window items --------------------------------------------------------------------------------

def test_shortcuts_list_click_to_shoot_and_ctrl_drag():
    actions = {action: keys for _, action, keys in MOUSE}
    assert any("Shoot" in action and "click" in keys.lower() for action, keys in actions.items())
    assert any("Drag a part" in action and "Ctrl + left drag" in keys for action, keys in actions.items())


def test_the_window_icon_ships_with_the_app():
    from PySide6.QtGui import QIcon

    from app.resources import asset_path

    icon = QIcon(str(asset_path("boneyard.png")))
    assert not icon.isNull() and icon.availableSizes()[0].width() == 256


def test_the_wheel_over_the_ragdoll_tabs_scrolls_the_panel(window, qtbot):
    panel = window.ragdoll_panel
    panel.raise_()
    window.resize(1000, 420)
    bar = panel.widget().verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=5_000)  # the panel needs scrolling at this height
    tabs = panel.tabs.tabBar()
    centre = QPointF(tabs.rect().center())
    wheel = QWheelEvent(centre, QPointF(tabs.mapToGlobal(centre.toPoint())), QPoint(0, 0), QPoint(0, -120),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase,
                        False)
    QApplication.sendEvent(tabs, wheel)
    assert panel.tabs.currentIndex() == 0
    assert bar.value() > 0


def test_the_inspector_shows_every_row_of_a_matrix(window, qtbot):
    window.outliner.raise_()
    window.state.select_bone(3)
    label = window.outliner.inspector.bone_page.labels["bind"]
    assert label.text().count("\n") == 3
    qtbot.waitUntil(lambda: label.height() >= label.sizeHint().height(), timeout=5_000)
    assert label.visibleRegion().boundingRect().height() >= label.sizeHint().height() - 1


# --- marks over the view, framing copies, orthographic ----------------------------------------------------

def test_the_orientation_gizmo_sits_in_the_bottom_left_corner(window, qtbot):
    picture = grab(window, qtbot)
    height = picture.shape[0]
    corner = picture[height - 2 * GIZMO_MARGIN:, : 2 * GIZMO_MARGIN]
    for color in AXIS_COLORS.values():
        assert near_color(corner, color).sum() > 20
    rest = picture[: height // 2, picture.shape[1] // 2:]
    assert near_color(rest, AXIS_COLORS["X"], 20).sum() < 5


def test_key_5_toggles_an_orthographic_view(window, qtbot):
    before = grab(window, qtbot)
    press(qtbot, Qt.Key.Key_5)
    assert window.viewport.camera.orthographic and window.menus.orthographic_action.isChecked()
    np.testing.assert_allclose(window.viewport.camera.projection_matrix(1.0)[3], [0, 0, 0, 1])
    after = grab(window, qtbot)
    assert (np.abs(before[..., :3].astype(int) - after[..., :3]).max(axis=-1) > 30).sum() > 500
    press(qtbot, Qt.Key.Key_5)
    assert not window.viewport.camera.orthographic


def test_frame_all_includes_the_ragdoll_copies(window, qtbot):
    window.ragdoll_panel.raise_()
    window.ragdoll_panel.simulation_box.copies_box.setValue(3)
    window.set_ragdoll_running(True)
    window.ragdoll_panel.simulation_box.pause_action.trigger()
    copies = window.viewport.copy_poses
    assert len(copies) == 2
    press(qtbot, Qt.Key.Key_F)
    viewport = window.viewport
    for pose in copies:
        heads, _ = pose.heads_tails(window.model.skeleton)
        _, visible = project(viewport.camera, heads, viewport.width(), viewport.height())
        assert visible.all()


def test_a_shot_leaves_a_ray_and_an_impact_marker(window, qtbot):
    window.ragdoll_panel.raise_()
    window.set_ragdoll_running(True)
    window.ragdoll_panel.simulation_box.pause_action.trigger()
    target = part_centre(window, "chest")
    where = pixel_of(window, target)
    qtbot.mouseClick(window.viewport, Qt.MouseButton.LeftButton, pos=where)
    assert window.ragdoll.simulation.last_hit is not None
    window.viewport.camera.orbit(0.6, 0.0)  # turned, the ray is a line, not a point
    after = grab(window, qtbot)
    window.ragdoll.simulation.last_shot = None
    before = grab(window, qtbot)
    marked = newly(before, after, SHOT_COLOR)
    assert marked.sum() > 40
    rows, columns = np.nonzero(marked)
    assert max(np.ptp(rows), np.ptp(columns)) > 20, "the ray shows as a line from the side"
    hit = pixel_of(window, window.ragdoll.simulation.last_hit.point)
    ring = marked[hit.y() - 2 * MARKER_RADIUS: hit.y() + 2 * MARKER_RADIUS + 1,
                  hit.x() - 2 * MARKER_RADIUS: hit.x() + 2 * MARKER_RADIUS + 1]
    assert ring.sum() > 20, "the impact is marked where the shot hit"


def test_dragging_shows_the_spring_and_clears_its_message(window, qtbot):
    session = window.ragdoll
    window.ragdoll_panel.raise_()
    window.set_ragdoll_running(True)
    window.ragdoll_panel.simulation_box.pause_action.trigger()
    start = part_centre(window, "chest")
    at = pixel_of(window, start)
    before = grab(window, qtbot)
    qtbot.mousePress(window.viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier, at)
    assert session.simulation.message.startswith("Dragging")
    lifted = pixel_of(window, start + np.array([0.0, 0.4, 0.0]))
    move = QMouseEvent(QMouseEvent.Type.MouseMove, QPointF(lifted),
                       QPointF(window.viewport.mapToGlobal(lifted)), Qt.MouseButton.NoButton,
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier)
    window.viewport.mouseMoveEvent(move)
    spring = newly(before, grab(window, qtbot), SPRING_COLOR)
    assert spring.sum() > 30
    rows, _ = np.nonzero(spring)
    assert rows.max() - rows.min() > 0.5 * (at.y() - lifted.y()), "the spring spans the drag"
    qtbot.mouseRelease(window.viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier,
                       lifted)
    assert session.simulation.message == ""
    assert "Dragging" not in window.ragdoll_panel.simulation_box.stats_label.text()
    assert window.state.ragdoll_tool.marks().spring is None


def test_without_opengl_the_window_says_so_and_keeps_working(qtbot, tmp_path, monkeypatch):
    """A display whose OpenGL cannot host the view (no context, or older than 3.3): the view's place
    says why, the rest of the window works, and pictures are refused with the reason, not a crash."""
    from PySide6.QtWidgets import QLabel

    from app import loading
    from app.resources import demo_paths
    from app.ui import viewport
    from app.ui.main_window import MainWindow

    problem = "the display offers OpenGL 2.1; the view needs 3.3"
    monkeypatch.setattr(viewport, "opengl_problem", lambda: problem)
    refusals = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text, *rest: refusals.append(text))
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    window.state.set_model(loading.load(demo_paths()))
    qtbot.waitUntil(lambda: any(problem in label.text() for label in window.viewport.findChildren(QLabel)),
                    timeout=5_000)
    assert window.outliner.isVisible() and window.model is not None
    assert not window.exports.save_screenshot(tmp_path / "shot.png") and problem in refusals[-1]
    window.exports.copy_image()
    assert problem in refusals[-1] and len(refusals) == 2
    picture = image_array(window.grab())
    assert picture.shape[0] > 100  # the window's own widgets, the message in the view's place
    window.close()
