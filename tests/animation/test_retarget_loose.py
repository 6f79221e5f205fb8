"""Clips carried between skeletons of loose bones (C3DE: every bone a root, identity bind frames): the
hierarchy and rest pose inferred for them (app.loose_skeleton), and the issue's measure — mapped
bones turn from rest as the source's do (1e-6), the planted foot stays on the ground (5 % of leg
length) — against characters and a walk built by hand in tests/loose_rigs.py."""

import dataclasses
import json

import numpy as np
import pytest

from app import loading, maths
from app.loose_skeleton import inferred_skeleton, is_loose, with_inferred_hierarchy
from app.animation.retarget import (
    check_map,
    hierarchy_difference,
    retarget_clip,
    retarget_clips,
    suggested_map,
)
from app.model import Model, Skeleton
from app.pose import evaluate, posed_positions, rest_extent
from tests.helpers import exit_status
from tests.loose_rigs import (
    FEET,
    PARENTS,
    Z_UP_FACING_X,
    figure,
    in_axes,
    loose_model,
    posed_frames,
    skinning,
    walk_turns,
)
from tests.writers.c3de_writer import write_bones_2009, write_mesh

FRAMES = 12
SHAPE = figure()
#: Another character: longer thighs, shorter shins and torso, wider hips, Z-up facing +X (as the
#: ninja), its bones in another file order.
OTHER = figure(thigh=0.6, shin=0.38, torso=0.3, hips=0.18, foot=0.2)
OTHER_ORDER = (5, 2, 0, 7, 1, 8, 3, 6, 4)
POSED = posed_frames(SHAPE, walk_turns(FRAMES), travel=0.8)
#: Canonical (Y-up, facing +Z) to the figure lying on its belly in Y-up axes, its head toward +Z.
LYING = np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]])


def source_model():
    return loose_model(SHAPE, "walker", skinning_frames=skinning(SHAPE, POSED))


def other_model():
    return loose_model(OTHER, "other", order=OTHER_ORDER, axes=Z_UP_FACING_X)


def canonical_map(source_order, target_order):
    """Source bone name → target bone name for the same canonical bone."""
    return {f"bone {source_order.index(bone)}": f"bone {target_order.index(bone)}" for bone in range(9)}


def test_the_inferred_hierarchy_is_the_figures_with_joints_at_its_joints():
    model = other_model()
    skeleton = inferred_skeleton(model)
    order = list(OTHER_ORDER)
    expected_parents = [-1 if PARENTS[bone] < 0 else order.index(PARENTS[bone]) for bone in order]
    assert skeleton.parents.tolist() == expected_parents
    joints = OTHER.joints @ Z_UP_FACING_X.T
    children = [i for i, bone in enumerate(order) if PARENTS[bone] >= 0]
    # the skin's positions are float32
    assert np.abs(skeleton.bind_world[children, :3, 3] - joints[[order[i] for i in children]]).max() <= 1e-6
    assert np.allclose(skeleton.bind_world[:, :3, :3], np.eye(3))


def test_joints_pinned_by_the_clip_where_the_skin_says_nothing():
    # the skin's joint rings moved off the joints: the walk still pins each joint where it turns
    model = source_model()
    mesh = model.meshes[0]
    shifted = dataclasses.replace(mesh, positions=mesh.positions + (0.0, 0.02, 0.0))
    skeleton = inferred_skeleton(dataclasses.replace(model, meshes=[shifted]))
    hips, knees = [3, 6], [4, 7]
    # thighs swing and spread: the hip joints are pinned in every direction
    assert np.abs(skeleton.bind_world[hips, :3, 3] - SHAPE.joints[hips]).max() <= 1e-9
    # knees only bend about X: their height and depth are pinned, their side comes from the skin
    assert np.abs(skeleton.bind_world[knees, 1:3, 3] - SHAPE.joints[knees, 1:]).max() <= 1e-9


def test_the_inferred_rig_skins_as_the_file_does():
    model = source_model()
    rig = with_inferred_hierarchy(model)
    for time in model.clips[0].frame_times[[0, 5, 11]]:
        expected = posed_positions(model, evaluate(model, model.clips[0], time))
        assert np.abs(posed_positions(rig, evaluate(rig, rig.clips[0], time)) - expected).max() <= 1e-12


def carried_walk(target, mapping):
    source = source_model()
    follows = check_map(mapping, source.skeleton, target.skeleton)
    return retarget_clip(source, source.clips[0], target, follows)


def test_onto_another_character_bones_turn_from_rest_as_the_sources():
    target = other_model()
    clip = carried_walk(target, canonical_map(tuple(range(9)), OTHER_ORDER))
    expected = Z_UP_FACING_X @ POSED[..., :3, :3] @ Z_UP_FACING_X.T  # rest turns are the identity
    turns = maths.rotation_part(clip.world[..., :3, :3])
    assert np.abs(turns - expected[:, list(OTHER_ORDER)]).max() <= 1e-6


def ankles(world, shape, order, axes):
    """(F, 2) the two ankles' heights (left, right) moved by each foot's skinning matrix (bind frames
    are the identity), and their rest height."""
    up = axes[:, 1]
    rows = [list(order).index(foot) for foot in FEET]
    points = shape.joints[list(FEET)] @ axes.T
    moved = np.einsum("fkij,kj->fki", world[:, rows, :3, :3], points) + world[:, rows][..., :3, 3]
    return moved @ up, points @ up


def test_onto_another_character_the_planted_foot_stays_on_the_ground():
    clip = carried_walk(other_model(), canonical_map(tuple(range(9)), OTHER_ORDER))
    heights, rest = ankles(clip.world, OTHER, OTHER_ORDER, Z_UP_FACING_X)
    planted = np.argmin(POSED[:, list(FEET), 1, 3], axis=1)  # the source's lower ankle: its contact
    frames = np.arange(FRAMES)
    off_ground = np.abs(heights[frames, planted] - rest[planted]).max()
    assert off_ground <= 0.05 * OTHER.leg  # the measure
    # with its joints found exactly the foot is planted exactly; the root's travel scaled by the hip
    # heights alone would leave it 1e-3 of the leg off
    assert off_ground <= 1e-6 * OTHER.leg
    assert (heights - rest >= -0.05 * OTHER.leg).all()  # and no foot goes through the floor


def test_onto_another_character_joints_hold_together():
    target = other_model()
    clip = carried_walk(target, canonical_map(tuple(range(9)), OTHER_ORDER))
    order = list(OTHER_ORDER)
    joints = OTHER.joints @ Z_UP_FACING_X.T
    for bone in range(1, 9):  # a joint moved by its bone and by its parent lands in one place
        child, parent = order.index(bone), order.index(PARENTS[bone])
        by_child = clip.world[:, child, :3, :3] @ joints[bone] + clip.world[:, child, :3, 3]
        by_parent = clip.world[:, parent, :3, :3] @ joints[bone] + clip.world[:, parent, :3, 3]
        assert np.abs(by_child - by_parent).max() <= 1e-6  # joints found from a float32 skin


@pytest.mark.parametrize("mapping", ["suggested", "identity"])
def test_onto_itself_the_walk_is_reproduced(mapping):
    source = source_model()
    names = source.skeleton.names
    chosen = suggested_map(source, source) if mapping == "suggested" else {name: name for name in names}
    assert chosen == {f"bone {i}": f"bone {i}" for i in range(9)}
    clip = carried_walk(source, chosen)
    assert np.abs(clip.world - source.clips[0].world).max() <= 1e-6 * rest_extent(source)


def test_onto_a_copy_twice_as_large_joints_land_twice_as_far_from_the_origin():
    target = loose_model(SHAPE, "larger", scale=2.0)
    mapping = suggested_map(source_model(), target)
    assert mapping == {f"bone {i}": f"bone {i}" for i in range(9)}
    clip = carried_walk(target, mapping)
    joints = np.einsum("fbij,bj->fbi", clip.world[..., :3, :3], 2 * SHAPE.joints) + clip.world[..., :3, 3]
    assert np.abs(joints - 2 * POSED[..., :3, 3]).max() <= 1e-6  # joints found from a float32 skin


def test_numbered_bones_pair_by_index_only_when_the_inferred_hierarchies_agree():
    source, target = source_model(), other_model()
    # else by where they rest (tests/animation/test_geometric_map.py): the figures' own pairing, not the index
    assert suggested_map(source, target) == canonical_map(tuple(range(9)), OTHER_ORDER)
    # file bone 0 of the other character is its left foot, under its left shin (file bone 8)
    assert hierarchy_difference(source, target) == "'bone 0' is the root there and hangs from 'bone 8' here"
    eight = Skeleton(names=[f"bone {i}" for i in range(8)], parents=np.full(8, -1),
                     bind_world=np.repeat(np.eye(4)[None], 8, axis=0), heads=np.zeros((8, 3)),
                     tails=np.ones((8, 3)), derived_tails=np.ones(8, bool))
    fewer = Model("fewer", eight, format="c3de")
    assert suggested_map(source, fewer) == {}  # no skin: no bone's place says anything
    assert hierarchy_difference(source, fewer) == "9 bones there, 8 here"


def test_a_skeleton_with_a_hierarchy_is_left_as_it_is():
    model = source_model()
    parented = dataclasses.replace(model, skeleton=dataclasses.replace(
        model.skeleton, parents=np.array(PARENTS), extras=[], rest_local=None))
    assert not is_loose(parented.skeleton)
    assert with_inferred_hierarchy(parented) is parented


def test_bones_without_a_skin_still_turn_as_the_sources():
    # a bones file alone: no skin to join the bones, each hangs from the first; turns still carried
    source = source_model()
    bare = dataclasses.replace(source, meshes=[])
    follows = check_map({n: n for n in bare.skeleton.names}, bare.skeleton, bare.skeleton)
    (clip,) = retarget_clips(bare, bare, follows)
    assert inferred_skeleton(bare).parents.tolist() == [-1] + [0] * 8
    assert np.abs(clip.world[..., :3, :3] - source.clips[0].world[..., :3, :3]).max() <= 1e-9


# --- the command line, on C3DE files -----------------------------------------------------------------

def write_character(folder, name, shape, order=tuple(range(9)), axes=np.eye(3), frames=None):
    model = loose_model(shape, name, order=order, axes=axes)
    mesh = model.meshes[0]
    (folder / f"{name}.c3d").write_bytes(write_mesh(mesh.positions, mesh.joints[:, 0], mesh.joints[:, 1],
                                                     mesh.weights[:, 0], layout="2009"))
    files = [str(folder / f"{name}.c3d")]
    if frames is not None:
        (folder / f"{name}Bones.c3d").write_bytes(write_bones_2009(in_axes(frames, axes)[:, list(order)]))
        files.append(str(folder / f"{name}Bones.c3d"))
    return files


def test_cli_carries_a_walk_between_c3de_characters(tmp_path):
    walker = write_character(tmp_path, "walker", SHAPE, frames=skinning(SHAPE, POSED))
    other = write_character(tmp_path, "other", OTHER, OTHER_ORDER, Z_UP_FACING_X)
    (tmp_path / "map.json").write_text(json.dumps(canonical_map(tuple(range(9)), OTHER_ORDER)))
    mapped, suggested = tmp_path / "mapped.npz", tmp_path / "suggested.npz"
    assert exit_status(["pose", *other, "--clips-from", *walker, "--map", str(tmp_path / "map.json"),
                        "--frame", "4", "-o", str(mapped)]) == 0
    # without --map the bones pair by where they rest: the same map, the same pose
    assert exit_status(["pose", *other, "--clips-from", *walker, "--frame", "4", "-o", str(suggested)]) == 0
    with np.load(mapped) as arrays, np.load(suggested) as again:
        world = arrays["world"][None]
        assert np.array_equal(again["world"][None], world)
    heights, rest = ankles(world, OTHER, OTHER_ORDER, Z_UP_FACING_X)
    planted = int(np.argmin(POSED[4, list(FEET), 1, 3]))
    assert abs(heights[0, planted] - rest[planted]) <= 0.05 * OTHER.leg


def test_cli_asks_for_a_map_when_few_bones_pair_by_where_they_rest(tmp_path, capsys):
    # the other character lying on its belly (read Y up, facing +Z: its head toward its front), as a
    # four-legged body stretches: no bone rests where the walker's do (fewer than half must pair)
    walker = write_character(tmp_path, "walker", SHAPE, frames=skinning(SHAPE, POSED))
    lying = write_character(tmp_path, "lying", OTHER, OTHER_ORDER, LYING)
    out = tmp_path / "pose.npz"
    assert exit_status(["pose", *lying, "--up", "Y", "--clips-from", *walker, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    (err,) = [line for line in err.splitlines() if "error:" in line]
    assert ("walker.c3d and the model's are only numbered, the hierarchies inferred for them differ ("
            in err)
    assert "and only 0 of 9 bones pair by where they rest; give --map" in err
    assert not out.exists()


def test_cli_pairs_c3de_characters_of_one_hierarchy_by_index(tmp_path):
    walker = write_character(tmp_path, "walker", SHAPE, frames=skinning(SHAPE, POSED))
    larger = write_character(tmp_path, "larger", figure(thigh=0.5, shin=0.5, torso=0.6, hips=0.12))
    out = tmp_path / "walk.glb"
    assert exit_status(["convert", *larger, "--clips-from", *walker, "-o", str(out)]) == 0
    assert [clip.name for clip in loading.load([str(out)]).clips] == ["walkerBones"]
