"""The ragdoll panel and session: going ragdoll from the clip, shooting and dragging in the viewport,
profile edits with undo and redo (symmetric for left and right), the profile's file round trip,
picking parts in the viewport, and the unsaved-edits prompt. GUI tests run under Xvfb; the session's
editing logic is also tested without a display."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from app import formats
from app.model import Model, Skeleton
from app.physics.profile import load_profile, to_dict
from app.export.gltf import export_gltf
from app.physics.ragdoll import TIME_STEP
from app.render import gizmos
from app.resources import demo_paths
from app.ui.ragdoll_session import (RagdollSession, euler_to_quaternion, joint_mirrors, mirror_bones,
                                    mirror_name, part_mirrors, quaternion_to_euler)
from tests import synthetic
from tests.gui_helpers import part_centre, pixel_of, needs_display, show_demo_window, view_image

LOAD_TIMEOUT_MS = 60_000


# --- the session without a display ---------------------------------------------------------------

@pytest.fixture(scope="module")
def demo():
    return formats.load(demo_paths())


@pytest.fixture
def session(demo, tmp_path):
    session = RagdollSession(data_dir=tmp_path)
    session.set_model(demo)
    session.path = None  # never write beside the built-in demo
    yield session
    session.close()


def part(session, name):
    return session.profile.parts[session.profile.part_index(name)]


def joint(session, name):
    return session.profile.joints[session.profile.joint_index(name)]


@pytest.mark.parametrize("name, twin", [("thigh_l", "thigh_r"), ("Bip01 L Thigh", "Bip01 R Thigh"),
                                        ("upperarm.R", "upperarm.L"),
                                        ("mixamorig:LeftArm", "mixamorig:RightArm"),
                                        ("lthigh_g", "rthigh_g"), ("L_hand", "R_hand"), ("pelvis", None),
                                        ("Bip01", None), ("torso_g", None), ("leg", None)])
def test_mirror_names(name, twin):
    assert mirror_name(name) == twin


def test_euler_degrees_round_trip():
    for angles in [(10.0, 20.0, 30.0), (-170.0, 45.0, 5.0), (0.0, 0.0, 0.0)]:
        np.testing.assert_allclose(quaternion_to_euler(euler_to_quaternion(angles)), angles, atol=1e-9)


def test_demo_pairs_parts_and_joints_by_name(session, demo):
    parts = part_mirrors(demo, session.profile)
    assert parts["thigh_l"] == "thigh_r" and parts["forearm_r"] == "forearm_l"
    assert "pelvis" not in parts and "head" not in parts
    joints = joint_mirrors(session.profile, parts)
    assert joints["knee_l"] == "knee_r" and joints["shoulder_r"] == "shoulder_l"
    assert "spine" not in joints and "neck" not in joints


def test_prm_mirror_extras_pair_bones_without_side_names():
    figure = synthetic.humanoid()
    skeleton = figure.skeleton
    names = [f"b{index}" for index in range(len(skeleton))]
    pairs = {3: 5, 4: 6, 7: 9, 8: 10, 11: 12}
    pairs.update({b: a for a, b in pairs.items()})
    extras = [{"mirror": pairs.get(index, index), "H": 0.0, "R": 0.0} for index in range(len(skeleton))]
    renamed = Skeleton(names=names, parents=skeleton.parents, bind_world=skeleton.bind_world,
                       heads=skeleton.heads, tails=skeleton.tails, derived_tails=skeleton.derived_tails,
                       extras=extras)
    model = Model(name="prm", skeleton=renamed, meshes=figure.meshes, up_axis=figure.up_axis)
    twins = mirror_bones(model)
    assert twins[7] == 9 and twins[9] == 7 and twins[0] == -1
    session = RagdollSession()
    session.set_model(model)
    mirrors = part_mirrors(model, session.profile)
    thigh = next(p.name for p in session.profile.parts if p.bone == "b7")
    twin = next(p.name for p in session.profile.parts if p.bone == "b9")
    assert mirrors[thigh] == twin
    session.edit_part(thigh, offset=(0.02, 0.0, 0.01), mass=3.25)
    np.testing.assert_allclose(part(session, twin).offset, (-0.02, 0.0, 0.01))
    assert part(session, twin).mass == 3.25
    session.close()


def test_symmetric_edits_are_one_undo_step(session):
    before = session.profile
    session.edit_part("thigh_l", offset=(0.03, 0.01, 0.0), size=(0.2, 0.4, 0.2))
    np.testing.assert_allclose(part(session, "thigh_r").offset, (-0.03, 0.01, 0.0))
    assert part(session, "thigh_r").size == (0.2, 0.4, 0.2)
    assert session.dirty and session.undo_stack.count() == 1
    session.undo()
    assert part(session, "thigh_l") == before.parts[before.part_index("thigh_l")]
    assert part(session, "thigh_r") == before.parts[before.part_index("thigh_r")]
    assert not session.dirty
    session.redo()
    np.testing.assert_allclose(part(session, "thigh_l").offset, (0.03, 0.01, 0.0))


def test_a_symmetric_shape_edit_is_one_undo_step(session):
    assert part(session, "head").shape == "box" and part(session, "shin_l").shape == "capsule"
    session.edit_part("shin_l", shape="box")
    assert part(session, "shin_l").shape == part(session, "shin_r").shape == "box"
    assert not session.rig.capsules[session.profile.part_index("shin_r")]
    assert session.undo_stack.count() == 1
    session.undo()
    assert part(session, "shin_l").shape == part(session, "shin_r").shape == "capsule"
    with pytest.raises(ValueError, match=r"parts\[\d+\]\.shape: one of box, capsule"):
        session.edit_part("head", shape="cone")
    assert part(session, "head").shape == "box"


def test_symmetric_joint_edits_mirror_offsets_and_rotation(session):
    knee_r = joint(session, "knee_r")
    session.edit_joint("knee_l", high=100.0, low=-2.0)
    assert (joint(session, "knee_r").low, joint(session, "knee_r").high) == (-2.0, 100.0)
    hip = joint(session, "hip_l")
    session.edit_joint("hip_l", offset_a=(0.12, -0.09, 0.0), rotation=hip.rotation, twist=10.0)
    hip_r = joint(session, "hip_r")
    np.testing.assert_allclose(hip_r.offset_a, (-0.12, -0.09, 0.0), atol=1e-12)
    assert hip_r.twist == 10.0
    # The auto-setup made the twins mirror images: mirroring the left rotation gives the right one.
    before = session.undo_stack.command(0).before
    original = before.joints[before.joint_index("hip_r")].rotation
    assert abs(abs(np.dot(hip_r.rotation, original)) - 1.0) < 1e-6  # saved to 7 decimals
    session.set_setting("symmetric", False)
    session.edit_joint("knee_l", high=90.0)
    assert joint(session, "knee_r").high == 100.0
    session.undo()
    session.undo()
    session.undo()
    assert joint(session, "knee_r") == knee_r


def test_quick_edits_of_one_field_merge(session):
    original = part(session, "head").mass
    for mass in (5.0, 5.5, 6.0):
        session.edit_part("head", mass=mass)
    assert session.undo_stack.count() == 1
    session.edit_part("head", size=(0.2, 0.25, 0.2))
    assert session.undo_stack.count() == 2
    session.undo()
    session.undo()
    assert part(session, "head").mass == original != 6.0


def test_bad_edits_raise_and_change_nothing(session):
    profile = session.profile
    with pytest.raises(ValueError, match="mass"):
        session.edit_part("head", mass=-1.0)
    with pytest.raises(ValueError, match="bone"):
        session.edit_part("head", bone="no such bone")
    with pytest.raises(ValueError, match="bone"):
        session.edit_part("head", bone="chest")  # the chest part follows it already
    assert session.profile is profile and not session.dirty


def outline_lines(profile) -> int:
    """Lines in one copy's part outlines: 12 box edges, or a capsule's two rings, four sides and two
    half circles on each cap."""
    return sum(12 if p.shape == "box" else 4 * gizmos.CAPSULE_SEGMENTS + 4 for p in profile.parts)


def budgets_asked(session) -> list:
    """The budgets ``tick`` gives ``Ragdoll.advance`` from now on, which then steps all it is asked
    to whatever the wall clock says (tests do not time a busy machine)."""
    asked, advance = [], session.ragdoll.advance
    session.ragdoll.advance = lambda seconds, budget=None: asked.append(budget) or advance(seconds)
    return asked


def test_go_step_reset_stop_without_a_window(session, demo):
    walk = demo.clips[demo.clip_index("walk")]
    session.go(walk, 0.4)
    budgets_asked(session)
    taken = session.tick(0.1)
    assert taken == 24 and session.ragdoll.time == pytest.approx(0.1)
    session.set_paused(True)
    assert session.tick(0.1) == 0
    session.step_frame()
    assert session.ragdoll.steps == 28
    session.reset()
    assert session.ragdoll.steps == 0
    session.set_setting("copies", 2)
    assert session.part_frames().shape[:2] == (2, len(session.profile.parts))
    scene = session.gizmo_scene()  # not editing: only the other copy's boxes
    assert scene.line_count == outline_lines(session.profile)
    session.stop()
    assert not session.running and session.gizmo_scene() is None


def test_real_time_is_kept_however_slowly_frames_are_drawn(session, demo):
    """Frames 0.1 s apart (a slow software renderer) still get every step they ask for: the stepping
    budget follows the wall time since the last tick, up to the per-frame limit."""
    session.go(None, 0.0)
    assert session.tick_budget(0.1) == pytest.approx(min(session.budget, 0.08))
    assert session.tick_budget(0.01) == pytest.approx(0.008)
    asked = budgets_asked(session)
    for _ in range(6):
        assert session.tick(0.1) == 24
    assert asked == [pytest.approx(min(session.budget, 0.08))] * 6
    assert session.realtime == pytest.approx(1.0)
    # Held to a limit far below what a step costs, the run falls behind and says so.
    session.ragdoll.advance = type(session.ragdoll).advance.__get__(session.ragdoll)
    session.set_setting("budget", 1e-7)
    for _ in range(18):
        assert session.tick(0.1) == 1
    assert session.realtime == pytest.approx(1 / 24)


def test_add_and_remove_parts_and_joints_with_undo(session, demo):
    before = session.profile
    name = session.add_part("hand_l")
    added = part(session, name)
    assert name == "hand_l" and added.bone == "hand_l" and added.mass > 0
    joint = session.profile.joints[-1]
    assert (joint.part_a, joint.part_b) == ("forearm_l", "hand_l") and joint.kind == "cone_twist"
    assert "hand_l" not in session.profile.relations
    # The hand's box holds the hand: its centre is near the hand's vertices' centre.
    rig = session.rig
    mesh = demo.meshes[0]
    hand = demo.skeleton.index("hand_l")
    owners = mesh.joints[np.arange(mesh.vertex_count), np.argmax(mesh.weights, axis=1)]
    centre = mesh.positions[owners == hand].mean(axis=0)
    box = rig.box_bind[session.profile.part_index(name)]
    assert np.linalg.norm(box[:3, 3] - centre) < 0.05
    with pytest.raises(ValueError, match="has a part already"):
        session.add_part("hand_l")
    session.go(None, 0.0)
    session.tick(0.2)
    assert np.isfinite(session.ragdoll.part_world()).all()
    session.stop()
    session.remove_joint(joint.name)
    assert joint.name not in [j.name for j in session.profile.joints]
    session.remove_part("forearm_r")
    assert "forearm_r" not in [p.name for p in session.profile.parts]
    assert all("forearm_r" not in (j.part_a, j.part_b) for j in session.profile.joints)
    joined = session.add_joint("chest", "head")
    assert session.profile.joints[-1].name == joined == "chest-head"
    for _ in range(5):
        session.undo()
    assert session.profile.parts == before.parts and session.profile.joints == before.joints
    session.redo()
    assert part(session, "hand_l").bone == "hand_l"


def test_collision_pairs_and_bones_change_with_undo(session):
    session.set_collision("thigh_l", "thigh_r", False)
    assert ("thigh_l", "thigh_r") in session.profile.disabled_collisions
    session.set_collision("thigh_r", "thigh_l", True)
    assert not session.profile.disabled_collisions
    session.undo()
    assert ("thigh_l", "thigh_r") in session.profile.disabled_collisions
    session.set_setting("symmetric", False)
    session.edit_part("head", bone="neck")
    assert part(session, "head").bone == "neck"
    session.undo()
    assert part(session, "head").bone == "head"


def test_the_run_so_far_bakes_into_a_clip(session, demo):
    walk = demo.clips[demo.clip_index("walk")]
    session.go(walk, 0.4)
    budgets_asked(session)
    start = session.ragdoll.bone_world()
    for _ in range(10):
        session.tick(1 / 30)
    clip = session.baked_clip()
    assert clip.name == "ragdoll" and clip.kind == "matrices" and session.run_frames == 11
    np.testing.assert_allclose(clip.times, np.arange(11) * 8 * TIME_STEP)
    np.testing.assert_allclose(clip.world[0], start)
    np.testing.assert_allclose(clip.world[-1], session.ragdoll.bone_world())
    assert not np.allclose(clip.world[-1], start)
    session.reset()
    session.tick(1 / 30)
    assert session.run_frames == 2, "a reset starts the run over"


def test_edits_while_running_rebuild_from_the_take_over_pose(session, demo):
    walk = demo.clips[demo.clip_index("walk")]
    session.go(walk, 0.2)
    session.tick(0.25)
    session.edit_part("head", size=(0.2, 0.25, 0.2))
    assert session.running and session.ragdoll.time == 0.0
    head = session.profile.part_index("head")
    np.testing.assert_allclose(session.ragdoll.half_extents[head], (0.1, 0.125, 0.1))
    session.undo()
    assert session.ragdoll.half_extents[session.profile.part_index("head")][0] != 0.1


def test_reloading_the_model_keeps_the_edited_profile(session, demo):
    session.edit_part("head", mass=5.0)
    session.set_model(demo, keep_profile=True)
    assert part(session, "head").mass == 5.0 and session.dirty
    session.set_model(demo)
    assert part(session, "head").mass != 5.0 and not session.dirty


def test_save_and_load_round_trip(session, tmp_path):
    session.edit_part("head", mass=6.5)
    target = session.save(tmp_path / "figure.ragdoll.json")
    assert not session.dirty and session.path == target
    assert load_profile(target).parts[session.profile.part_index("head")].mass == 6.5
    session.edit_part("head", mass=7.5)
    session.load(target)
    assert part(session, "head").mass == 6.5 and not session.dirty and session.undo_stack.count() == 0


# --- the window ----------------------------------------------------------------------------------

@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    # pytest-qt closes the window before fixtures end: a profile a failed test left edited (or an
    # editor committing on close) must not block the run with a real question.
    monkeypatch.setattr(QMessageBox, "warning", lambda *args: QMessageBox.StandardButton.Discard)
    win = show_demo_window(qtbot, tmp_path / "settings")
    win.playback.set_playing(False)
    win.playback.set_time(0.35)
    win.ragdoll.path = tmp_path / "demo.glb.ragdoll.json"  # never write beside the built-in demo
    win.ragdoll_panel.raise_()
    qtbot.waitUntil(lambda: win.ragdoll.editing, timeout=5_000)
    yield win
    win.close()


def changed_pixels(first, second, threshold=30) -> int:
    difference = np.abs(first[..., :3].astype(int) - second[..., :3].astype(int)).max(axis=-1)
    return int((difference > threshold).sum())




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
    assert changed_pixels(with_gizmos, view_image(window, qtbot)) > 300


@_gui
def test_go_ragdoll_takes_over_without_a_pop_and_falls(window, qtbot, tmp_path):
    session = window.ragdoll
    clip_world = window.playback.pose().world
    before = view_image(window, qtbot)
    window.ragdoll_panel.go_action.trigger()
    assert session.running and window.ragdoll_panel.go_action.isChecked()
    # The first simulated pose is the clip's: no pop.
    np.testing.assert_allclose(window.viewport.pose.world, clip_world, atol=1e-3)
    head = window.model.skeleton.index("head")
    start_height = clip_world[head, 1, 3]
    qtbot.waitUntil(lambda: session.ragdoll.time >= 2.0, timeout=20_000)
    after = view_image(window, qtbot)
    world = window.viewport.pose.world
    assert world[head, 1, 3] < 0.5 * start_height, "the ragdoll should fall toward the ground"
    assert world[head, 1, 3] > session.ragdoll.floor - 0.05, "and stay on it"
    assert changed_pixels(before, after) > 2000
    assert "real time" in window.ragdoll_panel.stats_label.text()
    # Export Pose writes what is shown.
    assert window.export_pose(tmp_path / "fallen.obj")
    lowest = min(float(line.split()[2]) for line in (tmp_path / "fallen.obj").read_text().splitlines()
                 if line.startswith("v "))
    assert lowest < 0.2


@_gui
def test_a_click_shoots_the_part_under_it(window, qtbot):
    session = window.ragdoll
    window.set_ragdoll_running(True)
    window.ragdoll_panel.pause_action.trigger()
    assert session.paused
    target = part_centre(window, "chest")
    origin, direction = window.viewport.ray_at(QPointF(pixel_of(window, target)))
    hit = session.ragdoll.pick(origin, direction)
    assert hit is not None
    velocities = session.ragdoll.part_velocities()
    qtbot.mouseClick(window.viewport, Qt.MouseButton.LeftButton, pos=pixel_of(window, target))
    assert session.last_hit is not None and session.last_hit.name == hit.name
    assert session.selected_part == hit.part
    window.ragdoll_panel.step_action.trigger()
    change = session.ragdoll.part_velocities() - velocities
    along = change @ direction
    assert along[hit.part] > 0.25, "the shot part should move along the ray"
    # Without a shot, one frame of falling changes it much less.
    velocities = session.ragdoll.part_velocities()
    window.ragdoll_panel.step_action.trigger()
    assert (session.ragdoll.part_velocities() - velocities)[hit.part] @ direction < 0.5 * along[hit.part]
    # A click that misses shoots nothing.
    qtbot.mouseClick(window.viewport, Qt.MouseButton.LeftButton, pos=QPoint(5, 5))
    assert session.last_hit is None and session.message == "Missed"


@_gui
def test_ctrl_drag_pulls_a_part_up(window, qtbot):
    from PySide6.QtGui import QMouseEvent

    session = window.ragdoll
    window.ragdoll_panel.drag_box.setValue(6000.0)
    window.set_ragdoll_running(True)
    assert session.ragdoll.drag_strength == 6000.0
    start = part_centre(window, "chest")
    press = pixel_of(window, start)
    qtbot.mousePress(window.viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier, press)
    assert session.ragdoll.dragging is not None
    lifted = pixel_of(window, start + np.array([0.0, 0.35, 0.0]))
    move = QMouseEvent(QMouseEvent.Type.MouseMove, QPointF(lifted),
                       QPointF(window.viewport.mapToGlobal(lifted)), Qt.MouseButton.NoButton,
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier)
    window.viewport.mouseMoveEvent(move)
    camera = window.viewport.camera.yaw, window.viewport.camera.pitch
    qtbot.waitUntil(lambda: session.ragdoll.time >= 1.0, timeout=20_000)
    assert part_centre(window, "chest")[1] > start[1] + 0.15, "the chest should follow the mouse up"
    assert (window.viewport.camera.yaw, window.viewport.camera.pitch) == camera, "dragging must not orbit"
    qtbot.mouseRelease(window.viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier,
                       lifted)
    assert session.ragdoll.dragging is None


@_gui
def test_simulation_controls(window, qtbot):
    session, panel = window.ragdoll, window.ragdoll_panel
    window.playback.set_playing(True)
    panel.copies_box.setValue(3)
    panel.budget_box.setValue(4.0)
    panel.gravity_box.setChecked(False)
    assert session.copies == 3 and session.budget == pytest.approx(0.004) and not session.gravity
    window.set_ragdoll_running(True)
    assert not window.playback.playing, "the clip pauses while the ragdoll runs"
    assert session.ragdoll.copies == 3 and not session.ragdoll.gravity
    scene = window.viewport.gizmo_scene
    copies = np.all(np.isclose(scene.line_colors, gizmos.COPY_BOX_COLOR), axis=1)
    assert copies.sum() == 2 * 2 * outline_lines(session.profile), "two other copies, two ends a line"
    panel.gravity_action.trigger()
    assert session.ragdoll.gravity and panel.gravity_box.isChecked()
    qtbot.waitUntil(lambda: session.ragdoll.time >= 0.5, timeout=20_000)
    panel.reset_action.trigger()
    assert session.ragdoll.time < 0.1
    panel.go_action.trigger()
    assert not session.running and window.playback.playing
    np.testing.assert_allclose(window.viewport.pose.world, window.playback.pose().world)


@_gui
def test_editing_an_offset_in_the_table_with_undo_and_redo(window, qtbot):
    from PySide6.QtWidgets import QDoubleSpinBox

    from app.ui.ragdoll_panel import OFFSET_Y

    session, table = window.ragdoll, window.ragdoll_panel.parts_table
    row = session.profile.part_index("head")
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
    assert table.item(row, OFFSET_Y).text() == f"{moved:.4g}"
    assert window.ragdoll_panel.file_label.text().startswith("●")
    shift = moved - old[1]
    assert np.linalg.norm(part_centre(window, "head") - old_centre) == pytest.approx(shift)
    new_lines = window.viewport.gizmo_scene.lines[24 * row: 24 * (row + 1)]
    np.testing.assert_allclose(np.linalg.norm(new_lines.mean(axis=0) - old_lines.mean(axis=0)), shift,
                               atol=1e-5)
    assert window.undo_action.isEnabled()
    window.undo_action.trigger()
    assert part(session, "head").offset == old and not session.dirty
    np.testing.assert_allclose(window.viewport.gizmo_scene.lines[24 * row: 24 * (row + 1)], old_lines,
                               atol=1e-6)
    assert table.item(row, OFFSET_Y).text() == f"{old[1]:.4g}"
    window.redo_action.trigger()
    assert part(session, "head").offset == pytest.approx((old[0], moved, old[2]))
    np.testing.assert_allclose(window.viewport.gizmo_scene.lines[24 * row: 24 * (row + 1)], new_lines,
                               atol=1e-6)


@_gui
def test_the_shape_column_turns_a_box_into_a_capsule_with_undo(window, qtbot):
    from PySide6.QtWidgets import QComboBox

    from app.render.gizmos import CAPSULE_SEGMENTS
    from app.ui.ragdoll_panel import SHAPE

    session, table = window.ragdoll, window.ragdoll_panel.parts_table
    row = session.profile.part_index("head")
    lines_before = window.viewport.gizmo_scene.line_count
    item = table.item(row, SHAPE)
    assert item.text() == "box"
    table.setCurrentItem(item)
    table.editItem(item)
    editor = table.viewport().findChild(QComboBox)
    assert editor is not None and [editor.itemText(i) for i in range(editor.count())] == ["box", "capsule"]
    editor.setCurrentText("capsule")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: part(session, "head").shape == "capsule", timeout=5_000)
    assert table.item(row, SHAPE).text() == "capsule" and session.undo_stack.count() == 1
    # The head's 12 box edges became the capsule's rings, side lines and cap arcs.
    assert window.viewport.gizmo_scene.line_count == lines_before - 12 + 4 * CAPSULE_SEGMENTS + 4
    window.undo_action.trigger()
    assert part(session, "head").shape == "box" and table.item(row, SHAPE).text() == "box"
    assert window.viewport.gizmo_scene.line_count == lines_before


@_gui
def test_joint_editor_edits_limits_and_orientation(window, qtbot):
    session, panel = window.ragdoll, window.ragdoll_panel
    panel.tabs.setCurrentIndex(1)
    panel.joints_table.selectRow(session.profile.joint_index("knee_l"))
    assert session.selected_joint == session.profile.joint_index("knee_l")
    assert panel.limit_boxes["high"].value() == 135.0
    assert not panel.limit_boxes["swing1"].isVisibleTo(panel)
    panel.limit_boxes["high"].setValue(110.0)
    assert joint(session, "knee_l").high == 110.0 and joint(session, "knee_r").high == 110.0
    angles = [box.value() for box in panel.euler_boxes]
    panel.euler_boxes[0].setValue(angles[0] + 10.0)
    turned = quaternion_to_euler(joint(session, "knee_l").rotation)
    np.testing.assert_allclose(turned[0], angles[0] + 10.0, atol=0.05)
    panel.kind_box.setCurrentIndex(panel.kind_box.findData("cone_twist"))
    panel.kind_box.activated.emit(panel.kind_box.currentIndex())
    assert joint(session, "knee_l").kind == "cone_twist"
    assert panel.limit_boxes["swing1"].isVisibleTo(panel) and not panel.limit_boxes["high"].isVisibleTo(panel)
    for _ in range(3):
        window.undo_action.trigger()
    assert joint(session, "knee_l").high == 135.0 and joint(session, "knee_l").kind == "hinge"


@_gui
def test_picking_a_part_in_the_viewport_selects_its_row(window, qtbot):
    session, table = window.ragdoll, window.ragdoll_panel.parts_table
    for name in ("head", "pelvis"):
        qtbot.mouseClick(window.viewport, Qt.MouseButton.LeftButton,
                         pos=pixel_of(window, part_centre(window, name)))
        row = session.profile.part_index(name)
        assert session.selected_part == row
        assert [index.row() for index in table.selectionModel().selectedRows()] == [row]
    assert len(window.viewport.gizmo_scene.triangles) == 36
    # Selecting a row highlights its box in the view.
    table.selectRow(session.profile.part_index("shin_l"))
    assert session.selected_part == session.profile.part_index("shin_l")
    scene = window.viewport.gizmo_scene
    selected = np.all(np.isclose(scene.line_colors, gizmos.SELECTED_BOX_COLOR), axis=1)
    assert selected.sum() == 2 * (4 * gizmos.CAPSULE_SEGMENTS + 4), "the shin's capsule outline alone"


@_gui
def test_profile_file_round_trip_through_the_panel(window, qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    from app.ui.ragdoll_panel import MASS

    model_path = tmp_path / "figure.glb"
    shutil.copy(demo_paths()[0], model_path)
    with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
        window.open_files([model_path])
    session, panel = window.ragdoll, window.ragdoll_panel
    profile_path = tmp_path / "figure.glb.ragdoll.json"
    assert session.path == profile_path and not profile_path.exists()
    assert "not saved yet" in panel.file_label.text()
    row = session.profile.part_index("head")
    assert panel.edit_part_cell(row, MASS, 9.5)
    assert session.dirty
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    assert profile_path.is_file() and not session.dirty
    assert load_profile(profile_path).parts[row].mass == 9.5
    # Save As writes elsewhere and Save then goes there.
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "copy"), ""))
    assert panel.save_as()
    assert (tmp_path / "copy.ragdoll.json").is_file() and session.path == tmp_path / "copy.ragdoll.json"
    # An unsaved edit, then opening the model again: asked, discarded, and the saved profile comes back.
    panel.edit_part_cell(row, MASS, 3.0)
    asked = []
    monkeypatch.setattr(QMessageBox, "warning",
                        lambda *a, **k: asked.append(a) or QMessageBox.StandardButton.Discard)
    with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
        window.open_files([model_path])
    assert len(asked) == 1
    assert part(session, "head").mass == 9.5 and not session.dirty
    assert "Loaded figure.glb.ragdoll.json" in panel.stats_label.text()
    # Load… reads any profile file.
    session.edit_part("head", mass=4.0)
    session.save(tmp_path / "other.ragdoll.json")
    session.undo()
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        lambda *a, **k: (str(tmp_path / "other.ragdoll.json"), ""))
    assert panel.load_dialog()
    assert part(session, "head").mass == 4.0


@_gui
def test_bake_run_to_clip_adds_a_clip_to_the_timeline_that_exports(window, qtbot, tmp_path):
    session, panel = window.ragdoll, window.ragdoll_panel
    assert not panel.bake_action.isEnabled()
    window.set_ragdoll_running(True)
    qtbot.waitUntil(lambda: session.ragdoll.time > 1.0, timeout=20_000)
    fallen = view_image(window, qtbot)
    panel.bake_action.trigger()
    model = window.model
    assert not session.running and model.clips[-1].name == "ragdoll"
    assert window.playback.clip is model.clips[-1] and window.playback.time == 0.0
    assert window.timeline.clips.currentText().startswith("ragdoll")
    standing = view_image(window, qtbot)
    window.playback.set_time(model.clips[-1].times[-1])
    qtbot.waitUntil(lambda: changed_pixels(view_image(window, qtbot), standing) > 2000, timeout=5_000)
    assert changed_pixels(view_image(window, qtbot), fallen) < changed_pixels(standing, fallen)
    out = tmp_path / "baked.glb"
    export_gltf(model, out)
    again = formats.load([out])
    baked = again.clips[again.clip_index("ragdoll")]
    assert baked.duration == pytest.approx(model.clips[-1].duration, abs=1e-3)


@_gui
def test_the_panel_says_when_the_run_is_in_slow_motion(window, qtbot):
    session, panel = window.ragdoll, window.ragdoll_panel
    window.set_ragdoll_running(True)
    qtbot.waitUntil(lambda: session.realtime is not None, timeout=10_000)
    assert "Slow motion" not in panel.stats_label.text() or session.realtime < 0.95
    session.set_setting("budget", 1e-7)
    session.realtime = None
    qtbot.waitUntil(lambda: session.realtime is not None, timeout=10_000)
    assert session.realtime < 0.5
    qtbot.waitUntil(lambda: "Slow motion: stepping is held" in panel.stats_label.text(), timeout=5_000)
    window.set_ragdoll_running(False)


@_gui
def test_a_bad_saved_profile_opens_a_dialog_and_is_kept(window, qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    model_path = tmp_path / "figure.glb"
    shutil.copy(demo_paths()[0], model_path)
    profile_path = tmp_path / "figure.glb.ragdoll.json"
    data = json.loads(json.dumps(to_dict(window.ragdoll.profile)))
    data["joints"][2]["limits"]["twist"] = -5
    profile_path.write_text(json.dumps(data))
    original = profile_path.read_bytes()
    with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
        window.open_files([model_path])
    panel = window.ragdoll_panel
    box = panel.problem_box
    qtbot.waitUntil(lambda: box.isVisible(), timeout=5_000)
    text = box.text()
    assert str(profile_path) in text and "joints[2].limits.twist" in text and "-5" in text
    assert panel.file_label.text().startswith("● ") and str(profile_path) in panel.file_label.text()
    box.accept()
    # Saving asks before replacing the user's file; cancelled, the file stays as it was.
    asked = []
    monkeypatch.setattr(QMessageBox, "question",
                        lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.Cancel)
    assert not panel.save()
    assert len(asked) == 1 and str(profile_path) in asked[0]
    assert profile_path.read_bytes() == original and window.ragdoll.dirty
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    assert panel.save()
    assert load_profile(profile_path).joints[2].twist > 0 and not window.ragdoll.dirty


@_gui
def test_adding_and_removing_parts_joints_and_pairs_in_the_panel(window, qtbot, monkeypatch):
    from PySide6.QtWidgets import QInputDialog

    session, panel = window.ragdoll, window.ragdoll_panel
    answers = ["hand_r"]
    monkeypatch.setattr(QInputDialog, "getItem", lambda *a, **k: (answers.pop(0), True))
    before = view_image(window, qtbot)
    assert panel.add_part_dialog() and part(session, "hand_r").bone == "hand_r"
    assert panel.parts_table.rowCount() == len(session.profile.parts)
    qtbot.waitUntil(lambda: changed_pixels(view_image(window, qtbot), before) > 50, timeout=5_000)
    answers[:] = ["thigh_l", "shin_r"]
    assert panel.disable_pair_dialog()
    assert [panel.collisions_list.item(0).text()] == ["thigh_l – shin_r"]
    panel.collisions_list.setCurrentRow(0)
    assert panel.enable_pair() and panel.collisions_list.count() == 0
    panel.joints_table.selectRow(len(session.profile.joints) - 1)
    assert panel.remove_joint()
    panel.parts_table.selectRow(session.profile.part_index("hand_r"))
    assert panel.remove_part() and "hand_r" not in [p.name for p in session.profile.parts]
    assert session.undo_stack.count() == 5


@_gui
def test_closing_with_unsaved_edits_asks(window, qtbot, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    answers = [QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Discard]
    asked = []

    def warning(parent, title, text, *args):
        asked.append(title)
        return answers.pop(0)

    monkeypatch.setattr(QMessageBox, "warning", warning)
    window.ragdoll.edit_part("head", mass=8.0)
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
