"""Retargeting (app.animation.retarget): bone maps suggested from names and checked, and clips carried between
skeletons, against poses worked out independently of the code under test."""

import dataclasses

import numpy as np
import pytest

from app import maths
from app.animation.retarget import check_map, name_key, retarget_clip, suggest_map
from app.model import Clip, Skeleton, Track
from app.pose import evaluate, floor_height, rest_extent
from tests.synthetic import humanoid

#: One name per rig for the same bones: Mixamo, 3ds Max Biped, NWN, C3DE-style, Blender.
RIG_NAMES = [
    ("mixamorig:Hips", "Bip01 Pelvis", "pelvis_g", "pelvis", "hips"),
    ("mixamorig:LeftUpLeg", "Bip01 L Thigh", "lthigh_g", "thigh_l", "thigh.L"),
    ("mixamorig:RightLeg", "Bip01 R Calf", "rshin_g", "shin_r", "shin.R"),
    ("mixamorig:LeftArm", "Bip01 L UpperArm", "lbicep_g", "upperarm_l", "upperArm.L"),
    ("mixamorig:RightForeArm", "Bip01 R Forearm", "rforearm_g", "forearm_r", "forearm.R"),
    ("mixamorig:LeftFoot", "Bip01 L Foot", "lfoot_g", "foot_l", "foot.L"),
]


@pytest.mark.parametrize("names", RIG_NAMES, ids=lambda names: names[-1])
def test_rig_conventions_reduce_to_one_key(names):
    assert len({name_key(name) for name in names}) == 1


def test_left_and_right_stay_apart():
    assert name_key("Bip01 L Thigh") != name_key("Bip01 R Thigh")
    assert name_key("lhand_g") != name_key("rhand_g")


def walk_clip(model, name="walk"):
    """Hips travel 0.6 along the ground and bob; thighs, shins and chest turn about their axes."""
    skeleton = model.skeleton
    times = np.array([0.0, 0.5, 1.0])
    up = np.eye(3)[1 if model.up_axis == "Y" else 2]
    ahead = np.array([1.0, 0, 0])
    rest = skeleton.rest_local[skeleton.index("hips"), :3, 3]
    tracks = [Track(skeleton.index("hips"), translation=(
        times, np.array([rest, rest + 0.3 * ahead + 0.05 * up, rest + 0.6 * ahead])))]
    for bone, (axis, angles) in {"thigh.L": ((1, 0, 0), (0.4, -0.3, 0.4)),
                                 "shin.L": ((1, 0, 0), (0.0, -0.7, 0.0)),
                                 "thigh.R": ((0, 0, 1), (-0.4, 0.3, -0.4)),
                                 "chest": ((0, 1, 0), (0.1, -0.1, 0.1))}.items():
        rest = skeleton.rest_local[skeleton.index(bone)][None]
        rest_q = maths.quat_from_matrix(maths.rotation_part(rest))[0]
        turns = maths.quat_from_axis_angle(np.array([axis] * 3, float), np.array(angles))
        tracks.append(Track(skeleton.index(bone), rotation=(times, maths.quat_multiply(rest_q, turns))))
    return Clip(name, "keyed", tracks=tracks)


def with_clip(model, clip):
    return dataclasses.replace(model, clips=[clip])


def retargeted(source, target, mapping=None):
    mapping = suggest_map(source.skeleton, target.skeleton) if mapping is None else mapping
    follows = check_map(mapping, source.skeleton, target.skeleton)
    clip = retarget_clip(source, source.clips[0], target, follows)
    return with_clip(target, clip), clip


def test_identity_map_reproduces_the_clip():
    source = humanoid(with_mesh=False)
    source = with_clip(source, walk_clip(source))
    target, clip = retargeted(source, source, {name: name for name in source.skeleton.names})
    for time in (0.0, 0.25, 0.5, 1.0):
        expected = evaluate(source, source.clips[0], time).world
        error = np.abs(evaluate(target, clip, time).world - expected).max()
        assert error <= 1e-6 * rest_extent(source)


def scaled(model, factor):
    bind = model.skeleton.bind_world.copy()
    bind[:, :3, 3] *= factor
    skeleton = model.skeleton
    return dataclasses.replace(model, skeleton=Skeleton(
        names=skeleton.names, parents=skeleton.parents, bind_world=bind, heads=skeleton.heads * factor,
        tails=skeleton.tails * factor, derived_tails=skeleton.derived_tails), clips=[])


def test_on_a_scaled_copy_joint_positions_scale_by_the_factor():
    source = humanoid(with_mesh=False)
    source = with_clip(source, walk_clip(source))
    target, clip = retargeted(source, scaled(source, 2.5))
    for time in (0.0, 0.5, 0.75, 1.0):
        expected = 2.5 * evaluate(source, source.clips[0], time).world[:, :3, 3]
        assert np.abs(evaluate(target, clip, time).world[:, :3, 3] - expected).max() <= 1e-6 * 2.5


def test_between_skeletons_of_other_names_and_up_axes_turns_relative_to_rest_agree():
    source = humanoid("Z", with_mesh=False)
    source = with_clip(source, walk_clip(source))
    renamed = humanoid("Y", with_mesh=False)
    nwn = {"hips": "pelvis_g", "chest": "torso_g", "head": "head_g", "arm.L": "lbicep_g",
           "forearm.L": "lforearm_g", "arm.R": "rbicep_g", "forearm.R": "rforearm_g", "thigh.L": "lthigh_g",
           "shin.L": "lshin_g", "thigh.R": "rthigh_g", "shin.R": "rshin_g", "foot.L": "lfoot_g",
           "foot.R": "rfoot_g"}
    renamed.skeleton.names[:] = [nwn[name] for name in renamed.skeleton.names]
    mapping = suggest_map(source.skeleton, renamed.skeleton)
    assert mapping == nwn
    target, clip = retargeted(source, renamed, mapping)
    # Z up → Y up: (x, y, z) → (x, z, −y).
    turn = np.array([[1.0, 0, 0], [0, 0, 1], [0, -1, 0]])
    for time in (0.25, 0.5, 1.0):
        posed_s = evaluate(source, source.clips[0], time).world
        posed_t = evaluate(target, clip, time).world
        for bone in range(len(nwn)):
            change_s = posed_s[bone, :3, :3] @ source.skeleton.rest_world[bone, :3, :3].T
            change_t = posed_t[bone, :3, :3] @ target.skeleton.rest_world[bone, :3, :3].T
            assert np.abs(change_t - turn @ change_s @ turn.T).max() <= 1e-6
        # the same figure: joints land where the source's do, turned to Y up.
        assert np.allclose(posed_t[:, :3, 3], posed_s[:, :3, 3] @ turn.T, atol=1e-9)


def test_unmapped_bones_keep_their_rest_pose_under_their_parents():
    source = humanoid(with_mesh=False)
    source = with_clip(source, walk_clip(source))
    mapping = {"hips": "hips", "thigh.L": "thigh.L"}
    target, clip = retargeted(source, source, mapping)
    posed = evaluate(target, clip, 0.5).world
    shin = source.skeleton.index("shin.L")
    thigh = source.skeleton.index("thigh.L")
    relative = np.linalg.inv(posed[thigh]) @ posed[shin]
    assert np.allclose(relative, source.skeleton.rest_local[shin], atol=1e-12)


def test_travel_scales_by_the_ratio_of_hip_heights():
    source = humanoid(with_mesh=False)
    source = with_clip(source, walk_clip(source))
    target, clip = retargeted(source, scaled(source, 0.5))
    hips = source.skeleton.index("hips")
    start, end = (evaluate(target, clip, t).world[hips, :3, 3] for t in (0.0, 1.0))
    assert np.allclose(end - start, [0.3, 0, 0], atol=1e-12)  # 0.6 × 0.5


@pytest.mark.parametrize("mapping, message", [
    ({"hips": "hips", "tail": "chest"}, "source bone 'tail'"),
    ({"hips": "pelvis"}, "target bone 'pelvis'"),
    ({"hips": "hips", "chest": "head", "head": "head"},
     "target bone 'head' has two source bones: 'chest' and 'head'"),
    ({"hips": "thigh.L", "thigh.L": "hips"}, "'thigh.L' on 'hips'.*cycle"),
    ({}, "pairs no bones"),
])
def test_bad_maps_are_refused_naming_the_bone(mapping, message):
    skeleton = humanoid(with_mesh=False).skeleton
    with pytest.raises(ValueError, match=message):
        check_map(mapping, skeleton, skeleton)


def test_a_vertex_clip_cannot_change_skeletons():
    model = humanoid()
    clip = Clip("wobble", "vertex", times=[0.0], positions=model.meshes[0].positions[None])
    model = with_clip(model, clip)
    follows = check_map({"hips": "hips"}, model.skeleton, model.skeleton)
    with pytest.raises(ValueError, match="clip 'wobble' moves vertices"):
        retarget_clip(model, clip, model, follows)


def test_numbered_bones_are_not_paired_by_name():
    numbered = humanoid(with_mesh=False).skeleton
    numbered.names[:] = [f"bone {index}" for index in range(len(numbered.names))]
    assert name_key("bone 7") == name_key("Joint_12") == ""
    assert suggest_map(numbered, numbered) == {}


def test_a_torso_beside_the_pelvis_is_no_cycle():
    # NWN: torso_g hangs beside pelvis_g under rootdummy; the source's chest hangs under its hips.
    from tests.helpers import skeleton, translation

    source = skeleton([translation(0, 0, 1), translation(0, 0, 1.3)], [-1, 0], ["hips", "chest"])
    target = skeleton([np.eye(4), translation(0, 0, 1), translation(0, 0, 1.2)], [-1, 0, 0],
                      ["rootdummy", "pelvis_g", "torso_g"])
    assert suggest_map(source, target) == {"hips": "pelvis_g", "chest": "torso_g"}
    assert check_map(suggest_map(source, target), source, target).tolist() == [-1, 0, 1]


# --- the floor a clip walks on ----------------------------------------------------------------------

@pytest.mark.parametrize("low, high, floor", [((0, 0, 0.13), (0, 0, 1.75), 0.0),   # lifted a little: NWN
                                              ((0, 0, -0.9), (0, 0, 0.9), -0.9),   # centred on its origin
                                              ((0, 0, 0.6), (0, 0, 1.8), 0.6),     # far above the origin
                                              ((0, 0, 0.0), (0, 0, 1.8), 0.0)])
def test_floor_height(low, high, floor):
    assert floor_height(np.array(low, float), np.array(high, float), np.array([0.0, 0.0, 1.0])) == floor


LIFT = 0.1


def lifted(model, height):
    """``model`` moved up its axis by ``height``: its rest pose stands that far above its origin's floor."""
    shift = maths.translation(np.eye(3)[1 if model.up_axis == "Y" else 2] * height)
    skeleton = model.skeleton
    moved = Skeleton(names=skeleton.names, parents=skeleton.parents, bind_world=shift @ skeleton.bind_world,
                     heads=maths.transform_points(shift, skeleton.heads),
                     tails=maths.transform_points(shift, skeleton.tails),
                     derived_tails=skeleton.derived_tails)
    meshes = [dataclasses.replace(mesh, positions=maths.transform_points(shift, mesh.positions))
              for mesh in model.meshes]
    return dataclasses.replace(model, skeleton=moved, meshes=meshes)


def standing_on_the_floor(model, drop):
    """A clip that holds the rest pose lowered by ``drop``: the figure stands on the floor below it."""
    skeleton = model.skeleton
    hips = skeleton.index("hips")
    rest = skeleton.rest_local[hips, :3, 3]
    lowered = rest - np.eye(3)[1 if model.up_axis == "Y" else 2] * drop
    return Clip("stand", "keyed", tracks=[Track(hips, translation=(np.array([0.0, 1.0]),
                                                                   np.array([lowered, lowered])))])


def test_a_figure_resting_above_its_floor_puts_the_target_on_the_target_floor():
    """An NWN model rests lifted above the floor its clips walk on: standing on that floor, carried onto
    a figure that rests on its own, the target's feet stay where they rest, not ``LIFT`` lower."""
    source = lifted(humanoid("Z"), LIFT + 0.0284605)  # the box feet reach 0.0285 below the ankles
    source = with_clip(source, standing_on_the_floor(source, LIFT))
    target = humanoid("Y")
    mapping = {name: name for name in source.skeleton.names}
    carried, clip = retargeted(source, target, mapping)
    feet = [target.skeleton.index(name) for name in ("foot.L", "foot.R")]
    for time in (0.0, 0.5, 1.0):
        drift = evaluate(carried, clip, time).world[feet, 1, 3] - target.skeleton.rest_world[feet, 1, 3]
        assert np.abs(drift).max() <= 1e-6, drift
    # Onto itself, the clip is the clip itself: the lifted figure lowered as its clip lowers it.
    itself, clip = retargeted(source, source, mapping)
    for time in (0.0, 1.0):
        expected = evaluate(source, source.clips[0], time).world
        assert np.abs(evaluate(itself, clip, time).world - expected).max() <= 1e-6 * rest_extent(source)


def test_identical_names_always_pair_even_where_the_name_says_no_part():
    from tests.helpers import skeleton, translation

    # NWN: rootdummy says nothing to name_key, yet both skeletons have it; pelvis pairs with hips by key.
    source = skeleton([translation(0, 0, 0), translation(0, 0, 1), translation(0, 0, 1.5)], [-1, 0, 1],
                      ["RootDummy", "pelvis_g", "torso_g"])
    target = skeleton([translation(0, 0, 0), translation(0, 0, 1), translation(0, 0, 2)], [-1, 0, 0],
                      ["world", "hips", "rootdummy"])
    assert name_key("rootdummy") == ""
    assert suggest_map(source, target) == {"RootDummy": "rootdummy", "pelvis_g": "hips"}
