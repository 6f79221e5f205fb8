"""Numbered loose bones (C3DE) paired by where they rest (app.animation.placed_map), when their inferred
hierarchies differ: characters built by hand (tests/loose_rigs.py) with their bones in shuffled file
orders, other proportions, sizes and axes; the true pairing comes from how the test built them."""

import dataclasses

import numpy as np
import pytest

from app.animation.placed_map import PAIR_DISTANCE, placement_costs, rooted_at, side
from app.loose_skeleton import inferred_skeleton
from app.animation.retarget import suggested_map
from tests.loose_rigs import PARTS, Z_UP_FACING_X, figure, loose_model, posed_frames, skinning, walk_turns

SHAPE = figure()
OTHER = figure(thigh=0.6, shin=0.38, torso=0.3, hips=0.18, foot=0.2)
SHUFFLED = (5, 2, 0, 7, 1, 8, 3, 6, 4)
REVERSED = (8, 7, 6, 5, 4, 3, 2, 1, 0)
#: Canonical (Y-up, facing +Z) to a figure lying on its belly in a Y-up, +Z-facing model: its head
#: toward the model's front, its face to the floor, as a four-legged body stretches along its facing.
LYING = np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]])


def walker(order=tuple(range(9))):
    walk = skinning(SHAPE, posed_frames(SHAPE, walk_turns(12), travel=0.8))
    return loose_model(SHAPE, "walker", order=order, skinning_frames=walk)


def true_map(source_order, target_order):
    """Source bone name → target bone name of the same canonical bone."""
    return {f"bone {source_order.index(bone)}": f"bone {target_order.index(bone)}" for bone in range(9)}


@pytest.mark.parametrize("source_order, target_order", [((0, 1, 2, 3, 4, 5, 6, 7, 8), SHUFFLED),
                                                        (SHUFFLED, REVERSED), (REVERSED, SHUFFLED)])
def test_shuffled_bones_of_another_build_size_and_facing_pair_as_built(source_order, target_order):
    source = walker(source_order)
    target = loose_model(OTHER, "other", order=target_order, axes=Z_UP_FACING_X, scale=1.7)
    assert suggested_map(source, target) == true_map(source_order, target_order)
    assert suggested_map(target, source) == true_map(target_order, source_order)


def test_legs_resting_too_far_apart_to_pair_are_paired_down_from_the_pelvis():
    # hips 0.45 to a side: every leg bone rests over a tenth of the height from the walker's, so only
    # the middle bones pair by place; each pair's unpaired children pair with its partner's
    wide = figure(hips=0.45)
    target = loose_model(wide, "wide", order=SHUFFLED)
    costs = placement_costs(walker(), inferred_skeleton(walker()), target, inferred_skeleton(target))
    legs = [PARTS.index(part) for part in PARTS if part[-2:] in (".L", ".R")]
    assert (costs[legs, [SHUFFLED.index(bone) for bone in legs]] > PAIR_DISTANCE).all()
    assert suggested_map(walker(), target) == true_map(tuple(range(9)), SHUFFLED)


def test_a_bone_never_pairs_with_one_on_the_other_side():
    # hips 0.05 from the middle: the left thigh's joint, tail and skin lie 0.1 from the right one's,
    # about a nineteenth of the height (1.88: ankle, leg, spine, torso and head), within the pairing
    # distance
    narrow = figure(hips=0.05)
    target = loose_model(narrow, "narrow")
    height = 0.08 + 0.9 + 0.25 + 0.4 + 0.25
    assert 0.1 / height < PAIR_DISTANCE
    costs = placement_costs(walker(), inferred_skeleton(walker()), target, inferred_skeleton(target))
    left, right = PARTS.index("thigh.L"), PARTS.index("thigh.R")
    assert np.isinf(costs[left, right]) and np.isinf(costs[right, left])
    assert np.isfinite(costs[left, left])
    assert suggested_map(walker(), target) == true_map(tuple(range(9)), tuple(range(9)))


def test_sides_of_skin_centres():
    centres = np.array([[0.3, 0.5, 0.0], [-0.3, 0.5, 0.1], [0.01, 0.9, 0.0], [-0.02, 0.2, 0.0]])
    assert side(centres).tolist() == [1, -1, 0, 0]


def test_a_tree_rooted_elsewhere_keeps_its_joins():
    # 0 ─ 1 ─ 2 ─ 3 and 1 ─ 4; bone 5 alone: rooted at 3 the path 3, 2, 1, 0 turns over
    parents = np.array([-1, 0, 1, 2, 1, -1])
    assert rooted_at(parents, 3).tolist() == [1, 2, 3, -1, 1, -1]
    assert rooted_at(parents, 0).tolist() == parents.tolist()


def test_a_character_and_a_lying_body_pair_few_bones():
    lying = dataclasses.replace(loose_model(OTHER, "lying", order=SHUFFLED, axes=LYING), up_axis="Y",
                                forward="+Z")
    assert len(suggested_map(walker(), lying)) < 9 / 2
    assert len(suggested_map(lying, walker())) < 9 / 2


def test_bones_without_a_skin_pair_nothing():
    bare = dataclasses.replace(walker(), meshes=[])
    assert suggested_map(bare, loose_model(OTHER, "other", order=SHUFFLED)) == {}
