"""The ragdoll's Qt-free state: the document (symmetric edits, undo and redo with merging, adding
and removing parts, joints and collision pairs, save and load) and the simulation driven by
``tick(dt)`` (no timers, no display), and the left/right geometry they use."""

from __future__ import annotations

import numpy as np
import pytest

from app.model import Model, Skeleton
from app.physics.profile_json import load_profile
from app.physics.ragdoll import TIME_STEP
from app.physics.symmetry import (euler_to_quaternion, joint_mirrors, mirror_bones, mirror_name, part_mirrors,
                                  quaternion_to_euler)
from app.scene import gizmo_scene
from app.state.ragdoll.document import RagdollDocument
from app.state.ragdoll.gizmos import ragdoll_gizmos
from tests import synthetic
from tests.helpers import joint, part


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


def test_demo_pairs_parts_and_joints_by_name(doc, demo):
    parts = part_mirrors(demo, doc.profile)
    assert parts["thigh_l"] == "thigh_r" and parts["forearm_r"] == "forearm_l"
    assert "pelvis" not in parts and "head" not in parts
    joints = joint_mirrors(doc.profile, parts)
    assert joints["knee_l"] == "knee_r" and joints["shoulder_r"] == "shoulder_l"
    assert "spine" not in joints and "neck" not in joints


def test_prm_mirror_extras_pair_bones_without_side_names(tmp_path):
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
    doc = RagdollDocument(tmp_path)
    doc.set_model(model)
    mirrors = part_mirrors(model, doc.profile)
    thigh = next(p.name for p in doc.profile.parts if p.bone == "b7")
    twin = next(p.name for p in doc.profile.parts if p.bone == "b9")
    assert mirrors[thigh] == twin
    doc.edit_part(thigh, offset=(0.02, 0.0, 0.01), mass=3.25)
    np.testing.assert_allclose(part(doc, twin).offset, (-0.02, 0.0, 0.01))
    assert part(doc, twin).mass == 3.25


def test_symmetric_editing_pairs_nwn_style_fused_side_letters(tmp_path):
    """NWN's ``Lbicep_g``/``Rbicep_g`` (side letter fused to the limb, any case): the automatic setup
    and symmetric editing find the same twins."""
    figure = synthetic.humanoid()
    skeleton = figure.skeleton
    nwn = {"arm.L": "Lbicep_g", "arm.R": "Rbicep_g", "thigh.L": "Ettin_Lthighx", "thigh.R": "Ettin_Rthighx"}
    names = [nwn.get(name, name) for name in skeleton.names]
    renamed = Skeleton(names=names, parents=skeleton.parents, bind_world=skeleton.bind_world,
                       heads=skeleton.heads, tails=skeleton.tails, derived_tails=skeleton.derived_tails)
    model = Model(name="nwn", skeleton=renamed, meshes=figure.meshes, up_axis=figure.up_axis)
    twins = mirror_bones(model)
    assert twins[names.index("Lbicep_g")] == names.index("Rbicep_g")
    assert twins[names.index("Ettin_Rthighx")] == names.index("Ettin_Lthighx")
    doc = RagdollDocument(tmp_path)
    doc.set_model(model)
    left = next(p.name for p in doc.profile.parts if p.bone == "Lbicep_g")
    right = next(p.name for p in doc.profile.parts if p.bone == "Rbicep_g")
    assert part_mirrors(model, doc.profile)[left] == right
    doc.edit_part(left, mass=2.5)
    assert part(doc, right).mass == 2.5


def test_symmetric_edits_are_one_undo_step(doc):
    before = doc.profile
    doc.edit_part("thigh_l", offset=(0.03, 0.01, 0.0), size=(0.2, 0.4, 0.2))
    np.testing.assert_allclose(part(doc, "thigh_r").offset, (-0.03, 0.01, 0.0))
    assert part(doc, "thigh_r").size == (0.2, 0.4, 0.2)
    assert doc.dirty and len(doc.steps) == 1
    doc.undo()
    assert part(doc, "thigh_l") == before.parts[before.part_index("thigh_l")]
    assert part(doc, "thigh_r") == before.parts[before.part_index("thigh_r")]
    assert not doc.dirty
    doc.redo()
    np.testing.assert_allclose(part(doc, "thigh_l").offset, (0.03, 0.01, 0.0))


def test_a_symmetric_shape_edit_is_one_undo_step(doc):
    assert part(doc, "head").shape == "box" and part(doc, "shin_l").shape == "capsule"
    doc.edit_part("shin_l", shape="box")
    assert part(doc, "shin_l").shape == part(doc, "shin_r").shape == "box"
    assert not doc.rig.capsules[doc.profile.part_index("shin_r")]
    assert len(doc.steps) == 1
    doc.undo()
    assert part(doc, "shin_l").shape == part(doc, "shin_r").shape == "capsule"
    with pytest.raises(ValueError, match=r"parts\[\d+\]\.shape: one of box, capsule"):
        doc.edit_part("head", shape="cone")
    assert part(doc, "head").shape == "box"


def test_symmetric_joint_edits_mirror_offsets_and_rotation(doc):
    knee_r = joint(doc, "knee_r")
    doc.edit_joint("knee_l", high=100.0, low=-2.0)
    assert (joint(doc, "knee_r").low, joint(doc, "knee_r").high) == (-2.0, 100.0)
    hip = joint(doc, "hip_l")
    doc.edit_joint("hip_l", offset_a=(0.12, -0.09, 0.0), rotation=hip.rotation, twist=10.0)
    hip_r = joint(doc, "hip_r")
    np.testing.assert_allclose(hip_r.offset_a, (-0.12, -0.09, 0.0), atol=1e-12)
    assert hip_r.twist == 10.0
    # The auto-setup made the twins mirror images: mirroring the left rotation gives the right one.
    before = doc.steps[0].before
    original = before.joints[before.joint_index("hip_r")].rotation
    assert abs(abs(np.dot(hip_r.rotation, original)) - 1.0) < 1e-6  # saved to 7 decimals
    doc.set_symmetric(False)
    doc.edit_joint("knee_l", high=90.0)
    assert joint(doc, "knee_r").high == 100.0
    doc.undo()
    doc.undo()
    doc.undo()
    assert joint(doc, "knee_r") == knee_r


def test_quick_edits_of_one_field_merge(doc):
    original = part(doc, "head").mass
    for mass in (5.0, 5.5, 6.0):
        doc.edit_part("head", mass=mass)
    assert len(doc.steps) == 1
    doc.edit_part("head", size=(0.2, 0.25, 0.2))
    assert len(doc.steps) == 2
    doc.undo()
    doc.undo()
    assert part(doc, "head").mass == original != 6.0


def test_bad_edits_raise_and_change_nothing(doc):
    profile = doc.profile
    with pytest.raises(ValueError, match="mass"):
        doc.edit_part("head", mass=-1.0)
    with pytest.raises(ValueError, match="bone"):
        doc.edit_part("head", bone="no such bone")
    with pytest.raises(ValueError, match="bone"):
        doc.edit_part("head", bone="chest")  # the chest part follows it already
    assert doc.profile is profile and not doc.dirty


def outline_lines(profile) -> int:
    """Lines in one copy's part outlines: 12 box edges, or a capsule's two rings, four sides and two
    half circles on each cap."""
    return sum(12 if p.shape == "box" else 4 * gizmo_scene.CAPSULE_SEGMENTS + 4 for p in profile.parts)


def budgets_asked(sim) -> list:
    """The budgets ``tick`` gives ``Ragdoll.advance`` from now on, which then steps all it is asked
    to whatever the wall clock says (tests do not time a busy machine)."""
    asked, advance = [], sim.ragdoll.advance
    sim.ragdoll.advance = lambda seconds, budget=None: asked.append(budget) or advance(seconds)
    return asked


def test_go_step_reset_stop_without_a_window(doc, sim, demo):
    walk = demo.clips[demo.clip_index("walk")]
    sim.go(walk, 0.4)
    budgets_asked(sim)
    taken = sim.tick(0.1)
    assert taken == 24 and sim.ragdoll.time == pytest.approx(0.1)
    sim.set_paused(True)
    assert sim.tick(0.1) == 0
    sim.step_frame()
    assert sim.ragdoll.steps == 28
    sim.reset()
    assert sim.ragdoll.steps == 0
    sim.set_copies(2)
    assert sim.part_frames().shape[:2] == (2, len(doc.profile.parts))
    scene = ragdoll_gizmos(doc, sim, editing=False)  # not editing: only the other copy's boxes
    assert scene.line_count == outline_lines(doc.profile)
    sim.stop()
    assert not sim.running and ragdoll_gizmos(doc, sim, editing=False) is None


def test_real_time_is_kept_however_slowly_frames_are_drawn(sim, demo):
    """Frames 0.1 s apart (a slow software renderer) still get every step they ask for: the stepping
    budget follows the wall time since the last tick, up to the per-frame limit."""
    sim.go(None, 0.0)
    assert sim.tick_budget(0.1) == pytest.approx(min(sim.budget, 0.08))
    assert sim.tick_budget(0.01) == pytest.approx(0.008)
    asked = budgets_asked(sim)
    for _ in range(6):
        assert sim.tick(0.1) == 24
    assert asked == [pytest.approx(min(sim.budget, 0.08))] * 6
    assert sim.realtime == pytest.approx(1.0)
    # Held to a limit far below what a step costs, the run falls behind and says so.
    sim.ragdoll.advance = type(sim.ragdoll).advance.__get__(sim.ragdoll)
    sim.set_budget(1e-7)
    for _ in range(18):
        assert sim.tick(0.1) == 1
    assert sim.realtime == pytest.approx(1 / 24)


def test_add_and_remove_parts_and_joints_with_undo(doc, sim, demo):
    doc.remove_part("hand_l")  # the automatic setup gives the hand a part: take it off to add it again
    before, done = doc.profile, len(doc.steps)
    name = doc.add_part("hand_l")
    added = part(doc, name)
    assert name == "hand_l" and added.bone == "hand_l" and added.mass > 0
    joint = doc.profile.joints[-1]
    assert (joint.part_a, joint.part_b) == ("forearm_l", "hand_l") and joint.kind == "cone_twist"
    assert "hand_l" not in doc.profile.relations
    # The hand's box holds the hand: its centre is near the hand's vertices' centre.
    rig = doc.rig
    mesh = demo.meshes[0]
    hand = demo.skeleton.index("hand_l")
    owners = mesh.joints[np.arange(mesh.vertex_count), np.argmax(mesh.weights, axis=1)]
    centre = mesh.positions[owners == hand].mean(axis=0)
    box = rig.box_bind[doc.profile.part_index(name)]
    assert np.linalg.norm(box[:3, 3] - centre) < 0.05
    with pytest.raises(ValueError, match="has a part already"):
        doc.add_part("hand_l")
    sim.go(None, 0.0)
    sim.tick(0.2)
    assert np.isfinite(sim.ragdoll.part_world()).all()
    sim.stop()
    doc.remove_joint(joint.name)
    assert joint.name not in [j.name for j in doc.profile.joints]
    doc.remove_part("forearm_r")
    assert "forearm_r" not in [p.name for p in doc.profile.parts]
    assert all("forearm_r" not in (j.part_a, j.part_b) for j in doc.profile.joints)
    joined = doc.add_joint("chest", "head")
    assert doc.profile.joints[-1].name == joined == "chest-head"
    assert len(doc.steps) - done == 4
    for _ in range(4):
        doc.undo()
    assert doc.profile.parts == before.parts and doc.profile.joints == before.joints
    doc.redo()
    assert part(doc, "hand_l").bone == "hand_l"


def test_collision_pairs_and_bones_change_with_undo(doc):
    doc.set_collision("thigh_l", "thigh_r", False)
    assert ("thigh_l", "thigh_r") in doc.profile.disabled_collisions
    doc.set_collision("thigh_r", "thigh_l", True)
    assert not doc.profile.disabled_collisions
    doc.undo()
    assert ("thigh_l", "thigh_r") in doc.profile.disabled_collisions
    doc.set_symmetric(False)
    doc.edit_part("head", bone="neck")
    assert part(doc, "head").bone == "neck"
    doc.undo()
    assert part(doc, "head").bone == "head"


def test_the_run_so_far_bakes_into_a_clip(sim, demo):
    walk = demo.clips[demo.clip_index("walk")]
    sim.go(walk, 0.4)
    budgets_asked(sim)
    start = sim.ragdoll.bone_world()
    for _ in range(10):
        sim.tick(1 / 30)
    clip = sim.baked_clip()
    assert clip.name == "ragdoll" and clip.kind == "matrices" and sim.run_frames() == 11
    np.testing.assert_allclose(clip.times, np.arange(11) * 8 * TIME_STEP)
    np.testing.assert_allclose(clip.world[0], start, atol=1e-5)
    np.testing.assert_allclose(clip.world[-1], sim.ragdoll.bone_world(), atol=1e-5)
    assert not np.allclose(clip.world[-1], start)
    sim.reset()
    sim.tick(1 / 30)
    assert sim.run_frames() == 2, "a reset starts the run over"


def test_a_run_records_at_most_run_rate_frames_a_second_and_ends_at_the_pose_shown(sim, demo):
    """Ticks four times as often as RUN_RATE keep one frame in four (float32, matching the pose of
    that tick), plus the last tick's pose."""
    sim.go(demo.clips[demo.clip_index("walk")], 0.4)
    budgets_asked(sim)
    shown = {0.0: sim.ragdoll.bone_world()}
    for _ in range(41):
        sim.tick(1 / 120)  # two steps each
        shown[round(sim.ragdoll.time / TIME_STEP)] = sim.ragdoll.bone_world()
    clip = sim.baked_clip()
    steps = np.round(clip.times / TIME_STEP).astype(int)
    # 82 steps: a frame every 8 steps (1/30 s), then the last one at step 82.
    assert steps.tolist() == list(range(0, 81, 8)) + [82]
    assert clip.world.dtype == np.float64 and len(sim._frames) == 12 and sim._frames[0].dtype == np.float32
    for step, world in zip(steps[1:], clip.world[1:]):
        np.testing.assert_allclose(world, shown[step], atol=1e-5)


def test_edits_while_running_rebuild_from_the_take_over_pose(doc, sim, demo):
    walk = demo.clips[demo.clip_index("walk")]
    sim.go(walk, 0.2)
    sim.tick(0.25)
    doc.edit_part("head", size=(0.2, 0.25, 0.2))
    assert sim.running and sim.ragdoll.time == 0.0
    head = doc.profile.part_index("head")
    np.testing.assert_allclose(sim.ragdoll.half_extents[head], (0.1, 0.125, 0.1))
    doc.undo()
    assert sim.ragdoll.half_extents[doc.profile.part_index("head")][0] != 0.1


def test_reloading_the_model_keeps_the_edited_profile(doc, demo):
    doc.edit_part("head", mass=5.0)
    doc.set_model(demo, keep_profile=True)
    assert part(doc, "head").mass == 5.0 and doc.dirty
    doc.set_model(demo)
    assert part(doc, "head").mass != 5.0 and not doc.dirty


def test_save_and_load_round_trip(doc, tmp_path):
    doc.edit_part("head", mass=6.5)
    target = doc.save(tmp_path / "figure.ragdoll.json")
    assert not doc.dirty and doc.path == target
    assert load_profile(target).parts[doc.profile.part_index("head")].mass == 6.5
    doc.edit_part("head", mass=7.5)
    doc.load(target)
    assert part(doc, "head").mass == 6.5 and not doc.dirty and len(doc.steps) == 0




def test_history_texts_and_a_saved_step_does_not_merge(doc, tmp_path):
    assert not doc.can_undo and not doc.can_redo and doc.undo_text == ""
    heard = []
    doc.events.subscribe("history", lambda: heard.append((doc.can_undo, doc.can_redo)))
    doc.edit_part("head", mass=5.0)
    assert doc.undo_text == "Edit head mass" and heard[-1] == (True, False)
    doc.save(tmp_path / "saved.ragdoll.json")
    doc.edit_part("head", mass=5.5)  # same field at once, but the last step is the saved one
    assert len(doc.steps) == 2 and doc.dirty
    doc.undo()
    assert not doc.dirty and part(doc, "head").mass == 5.0 and doc.redo_text == "Edit head mass"
    doc.undo()
    assert doc.dirty and heard[-1] == (False, True)
    doc.edit_part("head", size=(0.2, 0.2, 0.2))  # a new branch: the saved state cannot come back
    assert len(doc.steps) == 1 and doc.dirty and not doc.can_redo
    doc.undo()
    assert doc.dirty, "the profile is the one before the save, not the saved one"


def test_edits_after_a_pause_are_separate_steps(doc, monkeypatch):
    from app.state.ragdoll import document as ragdoll_document

    clock = [100.0]
    monkeypatch.setattr(ragdoll_document._time, "monotonic", lambda: clock[0])
    doc.edit_part("head", mass=5.0)
    clock[0] += ragdoll_document.MERGE_SECONDS / 2
    doc.edit_part("head", mass=6.0)
    clock[0] += ragdoll_document.MERGE_SECONDS * 2
    doc.edit_part("head", mass=7.0)
    assert [step.after.parts[step.after.part_index("head")].mass for step in doc.steps] == [6.0, 7.0]


def test_auto_setup_is_one_undo_step_and_selection_stays_in_range(doc):
    original = doc.profile
    doc.remove_part("forearm_r")
    doc.select_part(len(doc.profile.parts) - 1)
    doc.select_joint(len(doc.profile.joints) - 1)
    selections = []
    doc.events.subscribe("selection", lambda: selections.append(doc.selected_part))
    doc.auto_setup()
    assert doc.profile.parts == original.parts and doc.undo_text == "Auto setup"
    doc.undo()
    assert "forearm_r" not in [p.name for p in doc.profile.parts]
    doc.remove_part("forearm_l")
    assert doc.selected_part is None or doc.selected_part < len(doc.profile.parts)
    assert doc.selected_joint is None or doc.selected_joint < len(doc.profile.joints)


def test_symmetric_editing_can_be_turned_off(doc):
    doc.set_symmetric(False)
    doc.edit_part("thigh_l", mass=9.0)
    assert part(doc, "thigh_r").mass != 9.0 and doc.undo_text == "Edit thigh_l mass"
    doc.set_symmetric(True)
    doc.edit_part("thigh_l", mass=8.0)
    assert part(doc, "thigh_r").mass == 8.0 and doc.undo_text == "Edit thigh_l and thigh_r mass"


def test_settings_are_typed_and_checked(sim):
    heard = []
    sim.events.subscribe("settings", lambda: heard.append("settings"))
    sim.set_tool("drag")
    sim.set_impulse(40.0)
    sim.set_gravity(False)
    assert (sim.tool, sim.impulse, sim.gravity) == ("drag", 40.0, False) and len(heard) == 3
    for setter, value in ((sim.set_tool, "lasso"), (sim.set_impulse, 0.0), (sim.set_budget, -1.0),
                          (sim.set_drag_strength, float("nan")), (sim.set_copies, 0)):
        with pytest.raises(ValueError):
            setter(value)
    assert (sim.tool, sim.impulse) == ("drag", 40.0)


def test_statistics_refresh_twice_a_second_and_poses_every_tick(sim):
    stats, poses = [], []
    sim.events.subscribe("stats", lambda: stats.append(sim.realtime))
    sim.events.subscribe("pose", lambda: poses.append(sim.time))
    sim.go(None, 0.0)
    budgets_asked(sim)
    for _ in range(8):
        sim.tick(0.125)  # 30 steps each, exactly representable: refreshes after 4 and 8 ticks
    assert len(poses) == 9 and len(stats) == 2 and stats[-1] == pytest.approx(1.0)


def test_clicks_pick_parts_only_while_editing(doc, sim, demo):
    head = doc.profile.part_index("head")
    centre = sim.part_frames()[0, head, :3, 3]
    origin = centre + np.array([0.0, 0.0, 5.0])
    assert not sim.click_ray(origin, (0.0, 0.0, -1.0)) and doc.selected_part is None
    assert sim.click_ray(origin, (0.0, 0.0, -1.0), pick=True) and doc.selected_part == head
    assert not sim.click_ray(origin + np.array([50.0, 0.0, 0.0]), (0.0, 0.0, -1.0), pick=True)


def test_a_new_model_clears_the_last_shot(doc, sim, demo):
    """"Shot forearm_l" belonged to the last model's run: a new model's panel starts without it."""
    walk = demo.clips[demo.clip_index("walk")]
    sim.go(walk, 0.4)
    sim.set_tool("shoot")
    pelvis = sim.ragdoll.part_world()[doc.profile.part_index("pelvis"), :3, 3]
    assert sim.click_ray(pelvis + np.array([0.0, 0.0, 3.0]), np.array([0.0, 0.0, -1.0]))
    assert sim.message.startswith("Shot ")
    doc.set_model(synthetic.humanoid("Y"))
    assert sim.message == "" and sim.last_hit is None and sim.last_shot is None and not sim.running
