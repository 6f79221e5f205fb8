"""The ragdoll panel in the window (under Xvfb): going ragdoll from the clip, shooting and dragging in
the viewport, profile edits with undo and redo, the profile's file round trip, picking parts in the
viewport, and the unsaved-edits prompt. The simulation is driven by ``tick(dt)`` (the window's timer is
stopped), never by waiting on the wall clock. The state itself is tested headless in
tests/state/ragdoll/."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from app import loading
from app.export.gltf import export_gltf
from app.physics.profile_json import load_profile, to_dict
from app.physics.symmetry import quaternion_to_euler
from app.scene import gizmo_scene
from app.scene.gizmo_scene import CAPSULE_SEGMENTS, SELECTED_BOX_COLOR, SELECTED_FILL_COLOR
from app.resources import demo_paths
from tests.gui_helpers import changed_colour_pixels, needs_display, part_centre, pixel_of, view_image

LOAD_TIMEOUT_MS = 60_000


# --- helpers -------------------------------------------------------------------------------------

def run_for(simulation, seconds: float, dt: float = 1 / 60) -> None:
    """Tick the simulation as the window's timer would, ``dt`` apart, until ``seconds`` are simulated."""
    for _ in range(int(10 * seconds / dt) + 10):
        if simulation.time >= seconds:
            return
        simulation.tick(dt)
    raise AssertionError(f"the simulation did not reach {seconds} s")


def part(session, name):
    return session.document.profile.parts[session.document.profile.part_index(name)]


def joint(session, name):
    return session.document.profile.joints[session.document.profile.joint_index(name)]


def outline_lines(profile) -> int:
    """Lines in one copy's part outlines: 12 box edges, or a capsule's two rings, four sides and two
    half circles on each cap."""
    return sum(12 if p.shape == "box" else 4 * CAPSULE_SEGMENTS + 4 for p in profile.parts)



def _gui(test):
    """Mark a test as a window test (first in the run, skipped without a display)."""
    return pytest.mark.gui(needs_display(test))


@_gui
def test_gizmos_show_while_the_panel_does(window, qtbot):
    with_gizmos = view_image(window, qtbot)
    assert window.viewport.gizmo_scene is not None and window.viewport.gizmo_scene.line_count > 100
    window.outliner.raise_()
    qtbot.waitUntil(lambda: not window.ragdoll.editing, timeout=5_000)
    assert window.viewport.gizmo_scene is None
    assert changed_colour_pixels(with_gizmos, view_image(window, qtbot)) > 300


@_gui
def test_go_ragdoll_takes_over_without_a_pop_and_falls(window, qtbot, tmp_path):
    session = window.ragdoll
    clip_world = window.playback.pose().world
    before = view_image(window, qtbot)
    window.ragdoll_panel.go_action.trigger()
    assert session.simulation.running and window.ragdoll_panel.go_action.isChecked()
    # The first simulated pose is the clip's: no pop.
    np.testing.assert_allclose(window.viewport.pose.world, clip_world, atol=1e-3)
    head = window.model.skeleton.index("head")
    start_height = clip_world[head, 1, 3]
    run_for(session.simulation, 2.0)
    after = view_image(window, qtbot)
    world = window.viewport.pose.world
    assert world[head, 1, 3] < 0.5 * start_height, "the ragdoll should fall toward the ground"
    assert world[head, 1, 3] > session.simulation.ragdoll.floor - 0.05, "and stay on it"
    assert changed_colour_pixels(before, after) > 2000
    assert "real time" in window.ragdoll_panel.simulation_box.stats_label.text()
    # Export Pose writes what is shown.
    assert window.exports.export_pose(tmp_path / "fallen.obj")  # written in the background
    qtbot.waitUntil(lambda: "fallen.obj" in window.statusBar().currentMessage(), timeout=60_000)
    lowest = min(float(line.split()[2]) for line in (tmp_path / "fallen.obj").read_text().splitlines()
                 if line.startswith("v "))
    assert lowest < 0.2


@_gui
def test_a_click_shoots_the_part_under_it(window, qtbot):
    session = window.ragdoll
    window.set_ragdoll_running(True)
    window.ragdoll_panel.simulation_box.pause_action.trigger()
    assert session.simulation.paused
    target = part_centre(window, "chest")
    origin, direction = window.viewport.ray_at(QPointF(pixel_of(window, target)))
    hit = session.simulation.ragdoll.pick(origin, direction)
    assert hit is not None
    velocities = session.simulation.ragdoll.part_velocities()
    qtbot.mouseClick(window.viewport, Qt.MouseButton.LeftButton, pos=pixel_of(window, target))
    assert session.simulation.last_hit is not None and session.simulation.last_hit.name == hit.name
    assert session.document.selected_part == hit.part
    window.ragdoll_panel.simulation_box.step_action.trigger()
    change = session.simulation.ragdoll.part_velocities() - velocities
    along = change @ direction
    assert along[hit.part] > 0.25, "the shot part should move along the ray"
    # Without a shot, one frame of falling changes it much less.
    velocities = session.simulation.ragdoll.part_velocities()
    window.ragdoll_panel.simulation_box.step_action.trigger()
    falling = session.simulation.ragdoll.part_velocities() - velocities
    assert falling[hit.part] @ direction < 0.5 * along[hit.part]
    # A click that misses shoots nothing.
    qtbot.mouseClick(window.viewport, Qt.MouseButton.LeftButton, pos=QPoint(5, 5))
    assert session.simulation.last_hit is None and session.simulation.message == "Missed"


@_gui
def test_ctrl_drag_pulls_a_part_up(window, qtbot):
    from PySide6.QtGui import QMouseEvent

    session = window.ragdoll
    window.ragdoll_panel.simulation_box.drag_box.setValue(6000.0)
    window.set_ragdoll_running(True)
    assert session.simulation.ragdoll.drag_strength == 6000.0
    start = part_centre(window, "chest")
    press = pixel_of(window, start)
    qtbot.mousePress(window.viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier, press)
    assert session.simulation.ragdoll.dragging is not None
    lifted = pixel_of(window, start + np.array([0.0, 0.35, 0.0]))
    move = QMouseEvent(QMouseEvent.Type.MouseMove, QPointF(lifted),
                       QPointF(window.viewport.mapToGlobal(lifted)), Qt.MouseButton.NoButton,
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier)
    window.viewport.mouseMoveEvent(move)
    camera = window.viewport.camera.yaw, window.viewport.camera.pitch
    run_for(session.simulation, 1.0)
    assert part_centre(window, "chest")[1] > start[1] + 0.15, "the chest should follow the mouse up"
    assert (window.viewport.camera.yaw, window.viewport.camera.pitch) == camera, "dragging must not orbit"
    qtbot.mouseRelease(window.viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier,
                       lifted)
    assert session.simulation.ragdoll.dragging is None


@_gui
def test_simulation_controls(window, qtbot):
    session, panel = window.ragdoll, window.ragdoll_panel
    window.playback.set_playing(True)
    panel.simulation_box.copies_box.setValue(3)
    panel.simulation_box.budget_box.setValue(4.0)
    panel.simulation_box.gravity_box.setChecked(False)
    simulation = session.simulation
    assert simulation.copies == 3 and simulation.budget == pytest.approx(0.004) and not simulation.gravity
    window.set_ragdoll_running(True)
    assert not window.playback.playing, "the clip pauses while the ragdoll runs"
    assert session.simulation.ragdoll.copies == 3 and not session.simulation.ragdoll.gravity
    scene = window.viewport.gizmo_scene
    copies = np.all(np.isclose(scene.line_colors, gizmo_scene.COPY_BOX_COLOR), axis=1)
    assert copies.sum() == 4 * outline_lines(session.document.profile), "two other copies, two ends a line"
    panel.simulation_box.gravity_action.trigger()
    assert session.simulation.ragdoll.gravity and panel.simulation_box.gravity_box.isChecked()
    run_for(session.simulation, 0.5)
    panel.simulation_box.reset_action.trigger()
    assert session.simulation.ragdoll.time < 0.1
    panel.go_action.trigger()
    assert not session.simulation.running and window.playback.playing
    np.testing.assert_allclose(window.viewport.pose.world, window.playback.pose().world)


@_gui
def test_editing_an_offset_in_the_table_with_undo_and_redo(window, qtbot):
    from PySide6.QtWidgets import QDoubleSpinBox

    from app.ui.ragdoll.parts_tab import OFFSET_Y

    session, table = window.ragdoll, window.ragdoll_panel.parts_tab.table
    row = session.document.profile.part_index("head")
    old = part(session, "head").offset
    old_centre = part_centre(window, "head")
    old_lines = window.viewport.gizmo_scene.lines[24 * row: 24 * (row + 1)].copy()
    item = table.item(row, OFFSET_Y)
    table.setCurrentItem(item)
    table.editItem(item)
    editor = table.viewport().findChild(QDoubleSpinBox)
    assert editor is not None
    moved = round(old[1] + 0.05, 3)  # the editor shows a few decimals
    editor.setValue(moved)
    qtbot.keyClick(editor, Qt.Key.Key_Return)  # the view commits the editor's data in a queued call
    qtbot.waitUntil(lambda: part(session, "head").offset != old, timeout=5_000)
    assert part(session, "head").offset == pytest.approx((old[0], moved, old[2]))
    assert table.item(row, OFFSET_Y).text() == f"{moved:.3g}"  # three digits: the column stays narrow
    assert table.item(row, OFFSET_Y).toolTip() == f"{moved:.4g}"
    assert window.ragdoll_panel.profile_box.file_label.text().startswith("●")
    shift = moved - old[1]
    assert np.linalg.norm(part_centre(window, "head") - old_centre) == pytest.approx(shift)
    new_lines = window.viewport.gizmo_scene.lines[24 * row: 24 * (row + 1)]
    np.testing.assert_allclose(np.linalg.norm(new_lines.mean(axis=0) - old_lines.mean(axis=0)), shift,
                               atol=1e-5)
    assert window.menus.undo_action.isEnabled()
    window.menus.undo_action.trigger()
    assert part(session, "head").offset == old and not session.document.dirty
    np.testing.assert_allclose(window.viewport.gizmo_scene.lines[24 * row: 24 * (row + 1)], old_lines,
                               atol=1e-6)
    assert table.item(row, OFFSET_Y).text() == f"{old[1]:.3g}"
    window.menus.redo_action.trigger()
    assert part(session, "head").offset == pytest.approx((old[0], moved, old[2]))
    np.testing.assert_allclose(window.viewport.gizmo_scene.lines[24 * row: 24 * (row + 1)], new_lines,
                               atol=1e-6)


@_gui
def test_the_shape_column_turns_a_box_into_a_capsule_with_undo(window, qtbot):
    from PySide6.QtWidgets import QComboBox

    from app.scene.gizmo_scene import CAPSULE_SEGMENTS
    from app.ui.ragdoll.parts_tab import SHAPE

    session, table = window.ragdoll, window.ragdoll_panel.parts_tab.table
    row = session.document.profile.part_index("head")
    item = table.item(row, SHAPE)
    assert item.text() == "box"
    table.setCurrentItem(item)
    lines_before = window.viewport.gizmo_scene.line_count  # the head selected, with its handles
    table.editItem(item)
    editor = table.viewport().findChild(QComboBox)
    assert editor is not None and [editor.itemText(i) for i in range(editor.count())] == ["box", "capsule"]
    editor.setCurrentText("capsule")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: part(session, "head").shape == "capsule", timeout=5_000)
    assert table.item(row, SHAPE).text() == "capsule" and len(session.document.steps) == 1
    # The head's 12 box edges became the capsule's rings, side lines and cap arcs.
    assert window.viewport.gizmo_scene.line_count == lines_before - 12 + 4 * CAPSULE_SEGMENTS + 4
    window.menus.undo_action.trigger()
    assert part(session, "head").shape == "box" and table.item(row, SHAPE).text() == "box"
    assert window.viewport.gizmo_scene.line_count == lines_before


@_gui
def test_joint_editor_edits_limits_and_orientation(window, qtbot):
    session, panel = window.ragdoll, window.ragdoll_panel
    panel.tabs.setCurrentIndex(1)
    panel.joints_tab.table.selectRow(session.document.profile.joint_index("knee_l"))
    assert session.document.selected_joint == session.document.profile.joint_index("knee_l")
    assert panel.joints_tab.limit_boxes["high"].value() == 135.0
    assert not panel.joints_tab.limit_boxes["swing1"].isVisibleTo(panel)
    panel.joints_tab.limit_boxes["high"].setValue(110.0)
    assert joint(session, "knee_l").high == 110.0 and joint(session, "knee_r").high == 110.0
    angles = [box.value() for box in panel.joints_tab.euler_boxes]
    panel.joints_tab.euler_boxes[0].setValue(angles[0] + 10.0)
    turned = quaternion_to_euler(joint(session, "knee_l").rotation)
    np.testing.assert_allclose(turned[0], angles[0] + 10.0, atol=0.05)
    panel.joints_tab.kind_box.setCurrentIndex(panel.joints_tab.kind_box.findData("cone_twist"))
    panel.joints_tab.kind_box.activated.emit(panel.joints_tab.kind_box.currentIndex())
    assert joint(session, "knee_l").kind == "cone_twist"
    limits = panel.joints_tab.limit_boxes
    assert limits["swing1"].isVisibleTo(panel) and not limits["high"].isVisibleTo(panel)
    for _ in range(3):
        window.menus.undo_action.trigger()
    assert joint(session, "knee_l").high == 135.0 and joint(session, "knee_l").kind == "hinge"


@_gui
def test_picking_a_part_in_the_viewport_selects_its_row(window, qtbot):
    session, table = window.ragdoll, window.ragdoll_panel.parts_tab.table
    for name in ("head", "pelvis"):
        qtbot.mouseClick(window.viewport, Qt.MouseButton.LeftButton,
                         pos=pixel_of(window, part_centre(window, name)))
        row = session.document.profile.part_index(name)
        assert session.document.selected_part == row
        assert [index.row() for index in table.selectionModel().selectedRows()] == [row]
    fill = np.all(np.isclose(window.viewport.gizmo_scene.triangle_colors, SELECTED_FILL_COLOR), axis=1)
    assert fill.sum() == 36, "the selected box's 12 faces"
    # Selecting a row highlights its box in the view.
    table.selectRow(session.document.profile.part_index("shin_l"))
    assert session.document.selected_part == session.document.profile.part_index("shin_l")
    scene = window.viewport.gizmo_scene
    selected = np.all(np.isclose(scene.line_colors, SELECTED_BOX_COLOR), axis=1)
    assert selected.sum() == 2 * (4 * CAPSULE_SEGMENTS + 4), "the shin's capsule outline alone"
    fill = np.all(np.isclose(scene.triangle_colors, SELECTED_FILL_COLOR), axis=1)
    rings = CAPSULE_SEGMENTS // 4
    assert fill.sum() == 3 * 2 * CAPSULE_SEGMENTS * (2 * rings + 1), "the capsule filled, not its box"


@_gui
def test_profile_file_round_trip_through_the_panel(window, qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    from app.ui.ragdoll.parts_tab import MASS

    model_path = tmp_path / "figure.glb"
    shutil.copy(demo_paths()[0], model_path)
    with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
        window.open_files([model_path])
    session, panel = window.ragdoll, window.ragdoll_panel
    profile_path = tmp_path / "figure.glb.ragdoll.json"
    assert session.document.path == profile_path and not profile_path.exists()
    assert "not saved yet" in panel.profile_box.file_label.text()
    row = session.document.profile.part_index("head")
    assert panel.parts_tab.edit_cell(row, MASS, 9.5)
    assert session.document.dirty
    qtbot.mouseClick(panel.profile_box.save_button, Qt.MouseButton.LeftButton)
    assert profile_path.is_file() and not session.document.dirty
    assert load_profile(profile_path).parts[row].mass == 9.5
    # Save As writes elsewhere and Save then goes there.
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "copy"), ""))
    assert panel.profile_box.save_as()
    copy = tmp_path / "copy.ragdoll.json"
    assert copy.is_file() and session.document.path == copy
    # An unsaved edit, then opening the model again: asked, discarded, and the saved profile comes back.
    panel.parts_tab.edit_cell(row, MASS, 3.0)
    asked = []
    monkeypatch.setattr(QMessageBox, "warning",
                        lambda *a, **k: asked.append(a) or QMessageBox.StandardButton.Discard)
    with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
        window.open_files([model_path])
    assert len(asked) == 1
    assert part(session, "head").mass == 9.5 and not session.document.dirty
    assert "Loaded figure.glb.ragdoll.json" in panel.profile_box.message_label.text()
    # Load… reads any profile file.
    session.document.edit_part("head", mass=4.0)
    session.document.save(tmp_path / "other.ragdoll.json")
    session.document.undo()
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        lambda *a, **k: (str(tmp_path / "other.ragdoll.json"), ""))
    assert panel.profile_box.load_dialog()
    assert part(session, "head").mass == 4.0


@_gui
def test_bake_run_to_clip_adds_a_clip_to_the_timeline_that_exports(window, qtbot, tmp_path):
    session, panel = window.ragdoll, window.ragdoll_panel
    assert not panel.simulation_box.bake_action.isEnabled()
    window.set_ragdoll_running(True)
    run_for(session.simulation, 1.0)
    fallen = view_image(window, qtbot)
    panel.simulation_box.bake_action.trigger()
    model = window.model
    assert not session.simulation.running and model.clips[-1].name == "ragdoll"
    assert window.playback.clip is model.clips[-1] and window.playback.time == 0.0
    assert window.timeline.clips.currentText().startswith("ragdoll")
    standing = view_image(window, qtbot)
    window.playback.set_time(model.clips[-1].times[-1])
    qtbot.waitUntil(lambda: changed_colour_pixels(view_image(window, qtbot), standing) > 2000, timeout=5_000)
    assert changed_colour_pixels(view_image(window, qtbot), fallen) < changed_colour_pixels(standing, fallen)
    out = tmp_path / "baked.glb"
    export_gltf(model, out)
    again = loading.load([out])
    baked = again.clips[again.clip_index("ragdoll")]
    assert baked.duration == pytest.approx(model.clips[-1].duration, abs=1e-3)


@_gui
def test_the_panel_says_when_the_run_is_in_slow_motion(window, qtbot):
    session, panel = window.ragdoll, window.ragdoll_panel
    window.set_ragdoll_running(True)
    run_for(session.simulation, 0.6)
    assert session.simulation.realtime is not None and "real time" in panel.simulation_box.stats_label.text()
    assert "Slow motion" not in panel.simulation_box.stats_label.text() or session.simulation.realtime < 0.95
    session.simulation.set_budget(1e-7)  # far below a step's cost: one step a tick of the 16 asked for
    for _ in range(16):  # the second refresh of the statistics holds only these ticks
        session.simulation.tick(1 / 15)
    assert session.simulation.realtime == pytest.approx(1 / 16)
    assert "Slow motion" in panel.simulation_box.stats_label.text()
    window.set_ragdoll_running(False)


@_gui
def test_a_bad_saved_profile_opens_a_dialog_and_is_kept(window, qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    model_path = tmp_path / "figure.glb"
    shutil.copy(demo_paths()[0], model_path)
    profile_path = tmp_path / "figure.glb.ragdoll.json"
    data = json.loads(json.dumps(to_dict(window.ragdoll.document.profile)))
    data["joints"][2]["limits"]["twist"] = -5
    profile_path.write_text(json.dumps(data))
    original = profile_path.read_bytes()
    with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
        window.open_files([model_path])
    panel = window.ragdoll_panel
    box = panel.profile_box.problem_box
    qtbot.waitUntil(lambda: box.isVisible(), timeout=5_000)
    text = box.text()
    assert str(profile_path) in text and "joints[2].limits.twist" in text and "-5" in text
    shown = panel.profile_box.file_label.text()
    assert shown.startswith("● ") and str(profile_path) in shown
    box.accept()
    # Saving asks before replacing the user's file; cancelled, the file stays as it was.
    asked = []
    monkeypatch.setattr(QMessageBox, "question",
                        lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.Cancel)
    assert not panel.save()
    assert len(asked) == 1 and str(profile_path) in asked[0]
    assert profile_path.read_bytes() == original and window.ragdoll.document.dirty
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    assert panel.save()
    assert load_profile(profile_path).joints[2].twist > 0 and not window.ragdoll.document.dirty


@_gui
def test_adding_and_removing_parts_joints_and_pairs_in_the_panel(window, qtbot, monkeypatch):
    from PySide6.QtWidgets import QInputDialog

    session, panel = window.ragdoll, window.ragdoll_panel
    session.document.remove_part("hand_r")  # the automatic setup gives the hand a part: add it again
    answers = ["hand_r"]
    monkeypatch.setattr(QInputDialog, "getItem", lambda *a, **k: (answers.pop(0), True))
    before = view_image(window, qtbot)
    assert panel.parts_tab.add_part_dialog() and part(session, "hand_r").bone == "hand_r"
    assert panel.parts_tab.table.rowCount() == len(session.document.profile.parts)
    qtbot.waitUntil(lambda: changed_colour_pixels(view_image(window, qtbot), before) > 50, timeout=5_000)
    answers[:] = ["thigh_l", "shin_r"]
    assert panel.collisions_tab.disable_pair_dialog()
    assert [panel.collisions_tab.pairs.item(0).text()] == ["thigh_l – shin_r"]
    panel.collisions_tab.pairs.setCurrentRow(0)
    assert panel.collisions_tab.enable_pair() and panel.collisions_tab.pairs.count() == 0
    panel.joints_tab.table.selectRow(len(session.document.profile.joints) - 1)
    assert panel.joints_tab.remove_joint()
    panel.parts_tab.table.selectRow(session.document.profile.part_index("hand_r"))
    assert panel.parts_tab.remove_part() and "hand_r" not in [p.name for p in session.document.profile.parts]
    assert len(session.document.steps) == 6


@_gui
def test_closing_with_unsaved_edits_asks(window, qtbot, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    answers = [QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Discard]
    asked = []

    def warning(parent, title, text, *args):
        asked.append(title)
        return answers.pop(0)

    monkeypatch.setattr(QMessageBox, "warning", warning)
    window.ragdoll.document.edit_part("head", mass=8.0)
    assert not window.close()
    assert window.isVisible() and asked == ["Unsaved ragdoll profile"]
    assert window.close()
    assert len(asked) == 2 and not window.isVisible()


@_gui
def test_ragdoll_shortcuts_are_listed(window):
    from app.ui.shortcuts_dialog import shortcut_rows

    rows = {(menu, action): keys for menu, action, keys in shortcut_rows(window.menuBar())}
    assert rows[("Ragdoll", "Go Ragdoll")] == "Ctrl+G"
    assert rows[("Ragdoll", "Pause Ragdoll")] == "P"
    assert rows[("Ragdoll", "Save Ragdoll Profile")] == "Ctrl+S"
    assert rows[("Edit", "Undo")] == "Ctrl+Z"
    assert rows[("Edit", "Redo")].startswith("Ctrl+Shift+Z")


# --- physical animation and the check (docs/ragdoll.md) ---------------------------------------------

def _box(window):
    return window.ragdoll_panel.simulation_box


def _menu_texts(window) -> list[str]:
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Ragdoll")
    return [action.text() for action in menu.actions()]


@_gui
def test_follow_clip_drives_the_ragdoll_along_the_clip_until_released(window):
    box, simulation = _box(window), window.state.simulation
    assert {"&Follow Clip", "Release &Motors", "&Check Profile…"} <= set(_menu_texts(window))
    box.follow_action.trigger()
    box.strength_slider.setValue(80)
    assert simulation.follow and simulation.motor_strength == pytest.approx(0.8)
    assert window.set_ragdoll_running(True)
    drive = simulation.ragdoll.drive
    assert drive is not None and drive.follow and drive.strength == pytest.approx(0.8)
    for _ in range(30):
        simulation.tick(1 / 60)
    pelvis = simulation.document.profile.part_index("pelvis")
    standing = simulation.ragdoll.part_world()[pelvis, 1, 3]
    assert standing > 0.8  # carried along the walk, not fallen
    box.release_box.setValue(0.25)
    box.release_action.trigger()
    for _ in range(120):
        simulation.tick(1 / 60)
    assert simulation.ragdoll.drive is None  # faded out: limp
    assert simulation.ragdoll.part_world()[pelvis, 1, 3] < 0.5
    window.set_ragdoll_running(False)


def _checked(box, qtbot) -> dict:
    """Check Profile's report: the trial runs on a worker thread while the window's event loop goes
    on (a 20 ms timer keeps ticking)."""
    from PySide6.QtCore import QTimer

    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(20)
    with qtbot.waitSignal(box.check_finished, timeout=120_000) as finished:
        assert box.show_check()
        assert not box.check_action.isEnabled()
    timer.stop()
    assert box.check_action.isEnabled()
    assert len(ticks) >= 5
    return finished.args[0]


@_gui
def test_check_profile_shows_the_report_and_selects_a_part(window, qtbot, monkeypatch):
    from app.ui.ragdoll.check_dialog import problem_part
    from tests.helpers import shorten_trial

    box, document = _box(window), window.state.simulation.document
    report = _checked(box, qtbot)
    assert report["verdict"] == "pass"
    dialog = box.check_dialog
    assert dialog.problems.item(0).text() == "No problems." and "Sound" in dialog.summary.text()
    dialog.close()
    hand = document.profile.part_index("hand_l")
    assert problem_part(document, "part 'hand_l' went 6 cm into the ground (at most 5 cm)") == hand
    wrist = next(j for j in document.profile.joints if j.name == "wrist_l")
    assert problem_part(document, f"joint '{wrist.name}' has a limit of 2° (under 5°)") == hand
    assert problem_part(document, "bone 'neck' moves vertices but has no part") is None
    forearm = document.profile.part_index("forearm_l")
    mass = document.profile.parts[forearm].mass
    document.edit_part("forearm_l", mass=0.05)  # 1:40 against its upper arm
    shorten_trial(monkeypatch)  # a mass ratio fails the profile whatever the motion
    report = _checked(box, qtbot)
    assert report["verdict"] == "fail"
    dialog = box.check_dialog
    lines = [dialog.problems.item(row).text() for row in range(dialog.problems.count())]
    row = next(i for i, line in enumerate(lines) if line.startswith("joint 'elbow_l'"))
    document.select_part(None)
    dialog.problems.itemClicked.emit(dialog.problems.item(row))
    assert document.selected_part == document.profile.part_index("forearm_l")
    dialog.close()
    document.undo()
    assert document.profile.parts[forearm].mass == mass
