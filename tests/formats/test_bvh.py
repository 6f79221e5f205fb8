"""BVH reader on files the tests write: joint positions worked out by hand for every rotation channel
order, 6-channel joints anywhere, End Sites as tails; errors with their lines."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from app.formats.registry import ReadError
from app.loading import load
from app.pose import evaluate

ORDERS = ["".join(order) for order in itertools.permutations("XYZ")]


def turn(axis: str, degrees: float) -> np.ndarray:
    c, s = np.cos(np.radians(degrees)), np.sin(np.radians(degrees))
    i, j = {"X": (1, 2), "Y": (2, 0), "Z": (0, 1)}[axis]
    matrix = np.eye(3)
    matrix[i, i] = matrix[j, j] = c
    matrix[j, i], matrix[i, j] = s, -s
    return matrix


def channel_list(order: str, positions: bool) -> str:
    rotations = [f"{axis}rotation" for axis in order]
    names = ["Xposition", "Yposition", "Zposition"] + rotations if positions else rotations
    return f"CHANNELS {len(names)} {' '.join(names)}"


def chain(order: str, frames: list[list[float]], frame_time: float = 0.04) -> str:
    """A root (6 channels), a knee (6 channels, positions in the middle of a chain) and a foot with an
    End Site, every rotation channel in ``order``."""
    lines = ["HIERARCHY", "ROOT Hips", "{", "  OFFSET 1 2 3", f"  {channel_list(order, True)}",
             "  JOINT Knee", "  {", "    OFFSET 0 -4 0", f"    {channel_list(order, True)}",
             "    JOINT Foot", "    {", "      OFFSET 0 -3 1", f"      {channel_list(order, False)}",
             "      End Site", "      {", "        OFFSET 0 0 2", "      }", "    }", "  }", "}",
             "MOTION", f"Frames: {len(frames)}", f"Frame Time: {frame_time}"]
    lines += [" ".join(f"{value:g}" for value in frame) for frame in frames]
    return "\n".join(lines) + "\n"


def rotation(order: str, degrees) -> np.ndarray:
    """The channels' rotation in the order listed: the first channel's axis outermost."""
    result = np.eye(3)
    for axis, angle in zip(order, degrees):
        result = result @ turn(axis, angle)
    return result


def expected_joints(order: str, frame: list[float]) -> np.ndarray:
    """(3, 3) world positions of Hips, Knee and Foot, and the End Site, worked out by hand."""
    hips_move, hips_turn = np.array(frame[0:3]), frame[3:6]
    knee_move, knee_turn = np.array(frame[6:9]), frame[9:12]
    foot_turn = frame[12:15]
    hips_rotation = rotation(order, hips_turn)
    hips = np.array([1.0, 2, 3]) + hips_move
    knee_rotation = hips_rotation @ rotation(order, knee_turn)
    knee = hips + hips_rotation @ (np.array([0.0, -4, 0]) + knee_move)
    foot = knee + knee_rotation @ np.array([0.0, -3, 1])
    end = foot + knee_rotation @ rotation(order, foot_turn) @ np.array([0.0, 0, 2])
    return np.array([hips, knee, foot, end])


FRAMES = [[0.5, 0, -1, 10, 20, 30, 0.25, 0.5, 0, -15, 40, 5, 70, -20, 10],
          [0, 1, 0, -30, 5, 60, 0, 0, 0, 0, 0, 0, 0, 0, 0]]


@pytest.mark.parametrize("order", ORDERS)
def test_joints_follow_the_channels_in_their_order(tmp_path, order):
    path = tmp_path / f"chain_{order}.bvh"
    path.write_text(chain(order, FRAMES))
    model = load([path])
    clip = model.clips[0]
    for index, frame in enumerate(FRAMES):
        pose = evaluate(model, clip, index * 0.04)
        world = pose.world
        expected = expected_joints(order, frame)
        assert np.allclose(world[:, :3, 3], expected[:3], atol=1e-9)
        foot_frame = world[2]
        end_site = foot_frame[:3, :3] @ np.array([0.0, 0, 2]) + foot_frame[:3, 3]
        assert np.allclose(end_site, expected[3], atol=1e-9)


def test_the_rest_pose_is_the_offsets_and_tails_reach_the_end_site(tmp_path):
    path = tmp_path / "chain.bvh"
    path.write_text(chain("ZXY", FRAMES))
    skeleton = load([path]).skeleton
    assert skeleton.names == ["Hips", "Knee", "Foot"]
    assert np.allclose(skeleton.heads, [[1, 2, 3], [1, -2, 3], [1, -5, 4]])
    assert np.allclose(skeleton.tails, [[1, -2, 3], [1, -5, 4], [1, -5, 6]])
    assert not skeleton.derived_tails.any()
    assert np.allclose(skeleton.rest_world[:, :3, :3], np.eye(3))


def test_the_clip_has_every_frame_at_the_frame_time(tmp_path):
    path = tmp_path / "take.bvh"
    path.write_text(chain("ZYX", FRAMES * 3, frame_time=0.0083333))
    model = load([path])
    assert (model.format, model.unit, model.up_axis) == ("bvh", "unknown", "Y")
    assert [clip.name for clip in model.clips] == ["take"]
    assert model.clips[0].frame_count == 6
    assert model.clips[0].duration == pytest.approx(5 * 0.0083333)
    assert model.clips[0].rate == pytest.approx(120.0, rel=1e-5)


def test_a_second_bvh_file_lends_its_clip_by_bone_names(tmp_path):
    first, second = tmp_path / "a.bvh", tmp_path / "b.bvh"
    first.write_text(chain("ZXY", FRAMES))
    second.write_text(chain("ZXY", FRAMES[::-1]))
    model = load([first, second])
    assert [clip.name for clip in model.clips] == ["a", "b"]
    swapped, first_frame = evaluate(model, model.clips[1], 0.04), evaluate(model, model.clips[0], 0.0)
    assert np.allclose(swapped.world, first_frame.world)


@pytest.mark.parametrize("change, fragment, line", [
    (lambda text: text.replace("Yrotation\n      End", "Wrotation\n      End"), "unknown channel", 13),
    (lambda text: text.replace("Frames: 2", "Frames: 3"), "truncated", 24),
    (lambda text: text.replace("OFFSET 0 -4 0", "OFFSET 0 nan 0"), "NaN", 8),
    (lambda text: text.replace("JOINT Foot", "JOINT"), "joint name", None),
    (lambda text: text.replace("Frame Time: 0.04", "Frame Time: 0"), "positive", 23),
    (lambda text: text.rsplit("}", 1)[0] + "MOTION", "MOTION", None),
    (lambda text: text.replace("-15 40 5", "-15 x 5"), "expected a number", 24),
])
def test_malformed_files_name_their_line(tmp_path, change, fragment, line):
    path = tmp_path / "bad.bvh"
    text = chain("ZXY", FRAMES)
    changed = change(text)
    assert changed != text
    path.write_text(changed)
    with pytest.raises(ReadError) as caught:
        load([path])
    if fragment:
        assert fragment in str(caught.value)
    if line:
        assert caught.value.line == line
    assert "bad.bvh" in str(caught.value)


def test_deep_nesting_is_refused_without_recursion_errors(tmp_path):
    depth = 3000
    lines = ["HIERARCHY", "ROOT j0", "{", "OFFSET 0 0 0", "CHANNELS 3 Zrotation Xrotation Yrotation"]
    for level in range(1, depth):
        lines += [f"JOINT j{level}", "{", "OFFSET 0 1 0", "CHANNELS 3 Zrotation Xrotation Yrotation"]
    lines += ["}"] * depth + ["MOTION", "Frames: 0", "Frame Time: 0.1"]
    path = tmp_path / "deep.bvh"
    path.write_text("\n".join(lines))
    with pytest.raises(ReadError, match="deeper"):
        load([path])
