"""The separating-axis test on oriented boxes (``physics/box_overlap``), against depths worked out by
hand and against points sampled inside random boxes."""

from __future__ import annotations

import numpy as np

from app import maths
from app.physics.box_overlap import overlap_depths, overlapping_pairs


def frame(centre, rotation=np.eye(3)) -> np.ndarray:
    matrix = np.eye(4)
    matrix[:3, :3] = rotation
    matrix[:3, 3] = centre
    return matrix


UNIT = np.ones(3)


def test_depths_along_a_face_axis():
    assert overlap_depths(frame([0, 0, 0]), UNIT, frame([1.5, 0, 0]), UNIT) == 0.5
    assert overlap_depths(frame([0, 0, 0]), UNIT, frame([2.5, 0, 0]), UNIT) == -0.5
    assert overlap_depths(frame([0, 0, 0]), UNIT, frame([0, 0, 0]), UNIT) == 2.0


def test_a_turned_box_reaches_by_its_diagonal():
    """A unit-half cube turned 45° about Z reaches sqrt(2) along X: centres 1 + sqrt(2) - 0.1 apart
    overlap by 0.1."""
    turned = maths.axis_rotation("Z", np.pi / 4)[:3, :3]
    depth = overlap_depths(frame([0, 0, 0]), UNIT, frame([1 + np.sqrt(2) - 0.1, 0, 0], turned), UNIT)
    assert np.isclose(depth, 0.1)


def test_two_crossed_rods_apart_only_along_their_cross_axis():
    """Rods along X and along Y, 0.3 apart along Z, each 0.1 thick: apart by 0.1 (the Z axis is both a
    face axis and X × Y); moved to touch, they overlap."""
    rod_x, rod_y = np.array([2.0, 0.1, 0.1]), np.array([0.1, 2.0, 0.1])
    assert np.isclose(overlap_depths(frame([0, 0, 0]), rod_x, frame([0, 0, 0.3]), rod_y), -0.1)
    assert overlap_depths(frame([0, 0, 0]), rod_x, frame([0, 0, 0.15]), rod_y) > 0


def test_random_boxes_agree_with_sampled_points():
    """Where a point sampled inside box b lies inside box a, the test says they overlap; where it
    says they are apart, no sampled point lies in both."""
    rng = np.random.default_rng(7)
    grid = np.stack(np.meshgrid(*[np.linspace(-1, 1, 9)] * 3, indexing="ij"), -1).reshape(-1, 3)
    for _ in range(300):
        boxes, halves = [], []
        for _ in range(2):
            quaternion = maths.quat_normalize(rng.normal(size=4))
            boxes.append(frame(rng.uniform(-1.5, 1.5, 3), maths.quat_to_matrix(quaternion)[:3, :3]))
            halves.append(rng.uniform(0.1, 1.0, 3))
        points = maths.transform_points(boxes[1], grid * halves[1])
        local = maths.transform_points(np.linalg.inv(boxes[0]), points)
        inside = (np.abs(local) <= halves[0]).all(axis=1).any()
        depth = overlap_depths(boxes[0], halves[0], boxes[1], halves[1])
        if inside:
            assert depth > 0
        if depth < 0:
            assert not inside


def test_pairs_that_overlap_in_any_pose_grown_by_the_margin():
    """Three boxes along X, 2.2 apart (0.2 gaps): none overlap; grown by 0.11 neighbours do; a second
    pose that moves the third onto the first makes that pair overlap too."""
    still = np.stack([frame([2.2 * k, 0, 0]) for k in range(3)])
    moved = np.stack([frame([0, 0, 0]), frame([2.2, 0, 0]), frame([0.5, 0, 0])])
    halves = np.ones((3, 3))
    pairs = np.array([(0, 1), (0, 2), (1, 2)])
    assert not overlapping_pairs(still[None], halves, pairs).any()
    assert overlapping_pairs(still[None], halves, pairs, margin=0.11).tolist() == [True, False, True]
    assert overlapping_pairs(np.stack([still, moved]), halves, pairs).tolist() == [False, True, True]


def test_only_far_pairs_are_pruned_many_poses_agree_with_every_pair_tested():
    """Skipping pairs whose bounding spheres miss changes nothing: 40 random poses of 12 boxes give the
    pairs that testing every pair in every pose by ``overlap_depths`` gives (more poses than are tested
    at once, so the chunks and the pairs already found are exercised)."""
    rng = np.random.default_rng(11)
    count, poses = 12, 40
    halves = rng.uniform(0.05, 0.6, (count, 3))
    rotations = maths.quat_to_matrix(maths.quat_normalize(rng.normal(size=(poses, count, 4))))[..., :3, :3]
    boxes = np.broadcast_to(np.eye(4), (poses, count, 4, 4)).copy()
    boxes[..., :3, :3] = rotations
    boxes[..., :3, 3] = rng.uniform(-2.0, 2.0, (poses, count, 3))
    pairs = np.array([(a, b) for a in range(count) for b in range(a + 1, count)])
    expected = [any(overlap_depths(boxes[f, a], halves[a] + 0.02, boxes[f, b], halves[b] + 0.02) > 0
                    for f in range(poses)) for a, b in pairs]
    assert 0 < sum(expected) < len(pairs)
    assert overlapping_pairs(boxes, halves, pairs, margin=0.02).tolist() == expected


def test_boxes_touching_corner_to_corner_are_not_pruned():
    """Two unit-half cubes whose corners overlap by a hair along the diagonal: their spheres meet by
    the same hair, so the pair is tested and found."""
    gap = 2.0 - 1e-6
    boxes = np.stack([frame([0, 0, 0]), frame([gap, gap, gap])])[None]
    assert overlapping_pairs(boxes, np.ones((2, 3)), np.array([(0, 1)])).tolist() == [True]
    assert overlapping_pairs(boxes, np.ones((2, 3)), np.array([(0, 1)]), margin=-1e-5).tolist() == [False]
