"""Pose evaluation and CPU skinning against hand-computed results."""

import numpy as np
import pytest

from app import maths
from app.bone_tree import hierarchy_levels
from app.model import Clip, Helper, Mesh, Model, Track
from app.pose import evaluate, frame_time, posed_positions, skin_mesh, top_influences
from tests.helpers import chain_model, rotation_z, skeleton, translation

QUARTER_Z = [0, 0, np.sin(np.pi / 4), np.cos(np.pi / 4)]


def test_bind_pose_has_identity_skinning_and_bind_positions():
    model = chain_model()
    pose = evaluate(model, None, 0.0)
    assert np.allclose(pose.skin, np.eye(4))
    assert np.allclose(posed_positions(model, pose), model.meshes[0].positions)


def test_keyed_rotation_of_root_carries_the_child():
    clip = Clip("bend", "keyed", tracks=[Track(0, rotation=([0.0, 1.0], [[0, 0, 0, 1], QUARTER_Z]))])
    model = chain_model([clip])
    pose = evaluate(model, clip, 1.0)
    assert np.allclose(pose.world[0], rotation_z(np.pi / 2))
    # bone1's local stays T(1,0,0): world = Rz(90) @ T(1,0,0) → head at (0, 1, 0).
    assert np.allclose(pose.world[1], rotation_z(np.pi / 2) @ translation(1, 0, 0))
    heads, _ = pose.heads_tails(model.skeleton)
    assert np.allclose(heads[1], [0, 1, 0])


def test_keys_are_slerped_between_and_held_outside():
    clip = Clip("bend", "keyed", tracks=[Track(1, rotation=([1.0, 3.0], [[0, 0, 0, 1], QUARTER_Z]))])
    model = chain_model([clip])
    assert np.allclose(evaluate(model, clip, 2.0).world[1], translation(1, 0, 0) @ rotation_z(np.pi / 4))
    assert np.allclose(evaluate(model, clip, 0.0).world[1], translation(1, 0, 0))
    assert np.allclose(evaluate(model, clip, 9.0).world[1], translation(1, 0, 0) @ rotation_z(np.pi / 2))


def test_translation_keys_are_linear_and_step_holds():
    linear = Clip("move", "keyed", tracks=[Track(0, translation=([0.0, 2.0], [[0, 0, 0], [4, 0, 0]]))])
    step = Clip("hop", "keyed", tracks=[Track(0, translation=([0.0, 2.0], [[0, 0, 0], [4, 0, 0]]),
                                              interpolation="step")])
    model = chain_model([linear, step])
    assert np.allclose(evaluate(model, linear, 0.5).world[0][:3, 3], [1, 0, 0])
    assert np.allclose(evaluate(model, step, 1.9).world[0][:3, 3], [0, 0, 0])
    assert np.allclose(evaluate(model, step, 2.0).world[0][:3, 3], [4, 0, 0])


def test_tracks_with_their_own_key_times_and_frame_list():
    clip = Clip("mixed", "keyed", tracks=[
        Track(0, translation=([0.0, 1.0], [[0, 0, 0], [0, 0, 2]])),
        Track(1, rotation=([0.5, 1.5, 2.5], [[0, 0, 0, 1], QUARTER_Z, [0, 0, 0, 1]]))])
    model = chain_model([clip])
    assert clip.frame_times.tolist() == [0.0, 0.5, 1.0, 1.5, 2.5]
    assert frame_time(clip, 3) == 1.5
    with pytest.raises(IndexError):
        frame_time(clip, 5)
    pose = evaluate(model, clip, 1.0)
    expected_root = translation(0, 0, 2)
    expected_child = expected_root @ translation(1, 0, 0) @ rotation_z(np.pi / 4)
    assert np.allclose(pose.world[1], expected_child)


def test_parents_listed_after_children_compose_correctly():
    # bone0's parent is bone2, bone2's parent is bone1 (root).
    bind = [translation(0, 0, 3), translation(0, 0, 1), translation(0, 0, 2)]
    skel = skeleton(bind, [2, -1, 1])
    assert [level.tolist() for level in skel.levels] == [[1], [2], [0]]
    clip = Clip("lift", "keyed", tracks=[Track(1, translation=([0.0], [[5, 0, 0]]))])
    model = Model("m", skel, clips=[clip])
    world = evaluate(model, clip, 0.0).world
    # The key replaces bone1's local translation (0,0,1) with (5,0,0); the children keep theirs.
    assert np.allclose(world[2][:3, 3], [5, 0, 1]) and np.allclose(world[0][:3, 3], [5, 0, 2])


def test_parent_cycles_and_bad_parents_are_refused():
    with pytest.raises(ValueError, match="cycle"):
        hierarchy_levels(np.array([1, 2, 0]))
    with pytest.raises(ValueError, match="outside"):
        hierarchy_levels(np.array([-1, 7]))


def test_linear_blend_skinning_by_hand():
    clip = Clip("bend", "keyed", tracks=[Track(1, rotation=([0.0], [QUARTER_Z]))])
    model = chain_model([clip])
    positions = posed_positions(model, evaluate(model, clip, 0.0))
    # Vertex 0 is on bone0 only: unmoved. Vertex 1 at (2,0,0) on bone1 turns 90° about (1,0,0) → (1,1,0).
    # Vertex 2 at (1,1,0) half on each: 0.5·(1,1,0) + 0.5·(0,0,0) = (0.5, 0.5, 0).
    assert np.allclose(positions, [[0.5, 0, 0], [1, 1, 0], [0.5, 0.5, 0]])


def test_dual_quaternion_skinning_keeps_length_where_linear_blend_shrinks():
    skel = skeleton([np.eye(4), np.eye(4)], [-1, -1])
    mesh = Mesh("m", positions=[[1, 0, 0]], joints=[[0, 1]], weights=[[0.5, 0.5]])
    model = Model("m", skel, meshes=[mesh])
    skin = np.stack([np.eye(4), rotation_z(np.pi / 2)])
    dqs = skin_mesh(mesh, skin, "dqs")
    lbs = skin_mesh(mesh, skin, "lbs")
    assert np.allclose(dqs, [[np.cos(np.pi / 4), np.sin(np.pi / 4), 0]])
    assert np.allclose(lbs, [[0.5, 0.5, 0]])
    assert model.vertex_count == 1


def test_dual_quaternion_skinning_handles_antipodal_quaternions():
    mesh = Mesh("m", positions=[[1, 0, 0]], joints=[[0, 1]], weights=[[0.5, 0.5]])
    # Two rotations of ±170° about Z: the short way between them passes through 180°.
    skin = np.stack([rotation_z(np.radians(170)), rotation_z(np.radians(-170))])
    assert np.allclose(skin_mesh(mesh, skin, "dqs"), [[-1, 0, 0]], atol=1e-9)


def test_rigid_vertices_stay_and_weights_are_normalised():
    mesh = Mesh("m", positions=[[1, 0, 0], [0, 2, 0]], joints=[[0], [0]], weights=[[0.0], [3.0]])
    skin = np.stack([translation(0, 0, 5)])
    assert np.allclose(skin_mesh(mesh, skin), [[1, 0, 0], [0, 2, 5]])


def test_top_influences_keeps_four_largest_renormalised():
    joints = np.array([[0, 1, 2, 3, 4, 5]])
    weights = np.array([[0.05, 0.3, 0.1, 0.2, 0.25, 0.1]], dtype=np.float32)
    top_joints, top_weights = top_influences(joints, weights)
    assert top_joints.tolist() == [[1, 4, 3, 2]]
    assert np.allclose(top_weights, np.array([[0.3, 0.25, 0.2, 0.1]]) / 0.85)


def test_matrices_clip_is_exact_at_frames_and_blends_between():
    worlds = np.stack([np.stack([np.eye(4), translation(1, 0, 0)]),
                       np.stack([translation(0, 2, 0), translation(1, 2, 0)])])
    clip = Clip("sampled", "matrices", times=[0.0, 1.0], world=worlds)
    model = chain_model([clip])
    assert np.allclose(evaluate(model, clip, 1.0).world, worlds[1])
    assert np.allclose(evaluate(model, clip, 0.25).world[0][:3, 3], [0, 0.5, 0])


def test_vertex_clip_replaces_skinning():
    frames = np.array([[[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 0, 2], [1, 0, 2], [0, 1, 2]]], dtype=float)
    clip = Clip("wobble", "vertex", times=[0.0, 0.5], positions=frames)
    model = chain_model([clip])
    assert np.allclose(posed_positions(model, evaluate(model, clip, 0.25)), frames[0] + [0, 0, 1])


def test_helpers_follow_their_bone():
    clip = Clip("bend", "keyed", tracks=[Track(0, rotation=([0.0], [QUARTER_Z]))])
    model = chain_model([clip])
    model.helpers.append(Helper("tip", 1, translation(0, 0, 1)))
    pose = evaluate(model, clip, 0.0)
    assert np.allclose(pose.helpers[0][:3, 3], [0, 1, 1])


def test_model_checks_shapes_and_indices():
    skel = skeleton([np.eye(4)], [-1])
    with pytest.raises(ValueError, match="weights"):
        Mesh("m", positions=[[0, 0, 0]], joints=[[0, 0]], weights=[[1.0]])
    with pytest.raises(ValueError, match="bone outside"):
        Model("m", skel, meshes=[Mesh("m", positions=[[0, 0, 0]], joints=[[3]], weights=[[1.0]])])
    with pytest.raises(ValueError, match="triangle index"):
        Mesh("m", positions=[[0, 0, 0]], joints=[[0]], weights=[[1.0]], triangles=[[0, 0, 1]])
    with pytest.raises(ValueError, match="backwards"):
        Track(0, translation=([1.0, 0.0], [[0, 0, 0], [1, 1, 1]]))


def test_loaded_arrays_are_read_only():
    model = chain_model()
    with pytest.raises(ValueError):
        model.meshes[0].positions[0, 0] = 5
    with pytest.raises(ValueError):
        model.skeleton.bind_world[0, 0, 0] = 5


def test_pose_evaluation_scales_to_many_bones():
    count = 200
    parents = np.arange(count) - 1
    bind = np.stack([translation(0, 0, i) for i in range(count)])
    quats = maths.quat_from_axis_angle(np.array([[0, 0, 1]] * count), np.full(count, 0.01))
    clip = Clip("twist", "keyed", tracks=[Track(b, rotation=([0.0], [quats[b]])) for b in range(count)])
    model = Model("long", skeleton(bind, parents), clips=[clip])
    world = evaluate(model, clip, 0.0).world
    # Each bone adds 0.01 rad about Z; heads stay on the Z axis.
    assert np.allclose(world[-1][:3, :3], rotation_z(0.01 * count)[:3, :3])
    assert np.allclose(world[:, :2, 3], 0)


def test_derived_tails_follow_the_rules_of_the_formats_page():
    from app.bone_tails import derive_tails

    # bone0 → bone1 (only child); bone1 has two children (2, 3); bone2 owns vertices; bone3 owns none.
    bind = np.stack([translation(0, 0, 0), translation(0, 0, 1), translation(1, 0, 1), translation(-1, 0, 1)])
    mesh = Mesh("m", positions=[[1, 0, 1.5], [1, 0, 3.0], [5, 0, 0]], joints=[[2], [2], [1]],
                weights=[[1.0], [0.9], [0.4]])
    heads, tails = derive_tails(bind, np.array([-1, 0, 1, 1]), [mesh])
    assert np.allclose(heads, bind[:, :3, 3])
    assert np.allclose(tails[0], [0, 0, 1])             # the head of its only child
    # bone2 points away from its parent (+X); its vertices reach 0 along X → the centroid rule:
    # head + 2·(mean offset) = (1,0,1) + 2·(0, 0, 1.25).
    assert np.allclose(tails[2], [1, 0, 3.5])
    # bone1 has two children and only a vertex with weight 0.4 (not mostly its own) → a stub
    # along the direction away from its parent (+Z), 5% of the extent.
    extent = np.linalg.norm(np.ptp(np.concatenate([mesh.positions[[0, 1]], heads]), axis=0))
    assert tails[1][2] > 1 and np.allclose(tails[1][:2], 0)
    assert tails[3][0] < -1 and np.allclose(tails[3][1:], [0, 1])
    assert np.linalg.norm(tails[3] - heads[3]) == pytest.approx(0.05 * extent)


def test_keyed_frames_in_one_pass_hold_lerp_and_step_each_track_on_its_own_keys():
    """Tracks with different key counts sampled at many instants at once: before the first key the
    first holds, between keys a linear channel blends and a step channel holds, on a key its value,
    after the last key the last holds (values by hand)."""
    from app.pose import keyed_local_frames

    turn = Track(0, rotation=([0.0, 1.0, 3.0], [[0, 0, 0, 1], QUARTER_Z, QUARTER_Z]))
    hop = Track(1, translation=([0.5, 2.0], [[1, 0, 0], [3, 0, 0]]), interpolation="step")
    model = chain_model([Clip("c", "keyed", tracks=[turn, hop])])
    times = np.array([-1.0, 0.0, 0.5, 1.0, 1.999, 2.0, 2.5, 9.0])
    local = keyed_local_frames(model.skeleton, model.clips[0], times)
    angles = np.degrees(np.arctan2(local[0, :, 1, 0], local[0, :, 0, 0]))
    assert np.allclose(angles, [0, 0, 45, 90, 90, 90, 90, 90], atol=1e-9)
    assert np.allclose(local[1, :, 0, 3], [1, 1, 1, 1, 1, 3, 3, 3])


def test_keyed_frames_of_a_long_track_at_many_instants_hold_and_lerp_by_its_keys():
    """4001 keys (k / 100 s, value k along X) sampled at 2000 instants: past the size compared all
    with all, so the keys are searched; each instant lies between two keys, so X = 100 t."""
    from app.pose import COMPARED_AT_ONCE, keyed_local_frames

    keys = np.arange(4001)
    slide = Track(0, translation=(keys / 100.0, np.stack([keys, 0 * keys, 0 * keys], axis=1).astype(float)))
    model = chain_model([Clip("slide", "keyed", tracks=[slide])])
    times = np.linspace(-1.0, 41.0, 2000)
    assert len(keys) * len(times) > COMPARED_AT_ONCE
    local = keyed_local_frames(model.skeleton, model.clips[0], times)
    assert np.allclose(local[0, :, 0, 3], np.clip(100 * times, 0, 4000), atol=1e-9)
