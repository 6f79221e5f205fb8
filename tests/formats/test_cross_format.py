"""The demo written in every seed format by the test writers reads back as the same character:
same bind positions, and the same pose at each stored frame of the walk as the glTF original."""

from __future__ import annotations

import numpy as np
import pytest

from app import loading
from app.model import Mesh
from app.pose import evaluate, frame_time, rest_pose, skin_mesh
from app.resources import demo_paths
from tests.demo_formats import WALK_EVENTS, WRITERS, strongest

FRAMES = (0, 3, 6, 11)


@pytest.fixture(scope="module")
def demo():
    return loading.load(demo_paths())


@pytest.fixture(scope="module")
def written(demo, tmp_path_factory):
    folder = tmp_path_factory.mktemp("demo_formats")
    return {name: loading.load(write(demo, folder)) for name, write in WRITERS.items()}


def expected_positions(demo, lanes: int, frame: int) -> np.ndarray:
    """The glTF demo skinned with its ``lanes`` strongest influences (what the file can hold)."""
    joints, weights = strongest(demo, lanes)
    mesh = demo.meshes[0]
    limited = Mesh(mesh.name, mesh.positions, joints, weights, triangles=mesh.triangles)
    walk = demo.clips[0]
    return skin_mesh(limited, evaluate(demo, walk, frame_time(walk, frame)).skin)


@pytest.mark.parametrize("name, lanes", [("bonespro", 4), ("nwn_mdl", 4), ("c3de", 2)])
def test_skinned_formats_pose_like_the_original(demo, written, name, lanes):
    model = written[name]
    assert model.format == name and model.vertex_count == demo.vertex_count
    clip = model.clips[0]
    assert clip.frame_count == demo.clips[0].frame_count
    size = np.ptp(demo.meshes[0].positions, axis=0).max()
    for frame in FRAMES:
        posed = skin_mesh(model.meshes[0], evaluate(model, clip, frame_time(clip, frame)).skin)
        assert np.abs(posed - expected_positions(demo, lanes, frame)).max() < 1e-5 * size, f"frame {frame}"


def test_nwn_walk_keeps_its_events_and_times(demo, written):
    clip = written["nwn_mdl"].clips[0]
    assert clip.events == WALK_EVENTS
    assert np.allclose(clip.frame_times, demo.clips[0].frame_times, atol=1e-6)


def test_lgw_binds_like_the_original_with_its_helper(demo, written):
    model = written["lgw"]
    assert np.allclose(model.meshes[0].positions, demo.meshes[0].positions, atol=1e-5)
    assert model.meshes[0].triangles.tolist() == demo.meshes[0].triangles.tolist()
    head = demo.skeleton.names.index("head")
    hat = rest_pose(model).helpers[0][:3, 3]
    assert np.allclose(hat, demo.skeleton.bind_world[head][:3, 3] + (0, 0.25, 0), atol=1e-5)


def test_bnf_turns_the_bones_like_the_original(demo, written):
    """.anm stores rotations only, so joint positions match relative to the root joint."""
    model = written["bnf"]
    assert model.skeleton.extras[demo.skeleton.names.index("thigh_l")]["mirror"] == \
        demo.skeleton.names.index("thigh_r")
    for frame in FRAMES:
        pose = evaluate(model, model.clips[0], frame_time(model.clips[0], frame))
        heads, _ = pose.heads_tails(model.skeleton)
        walk = demo.clips[0]
        expected, _ = evaluate(demo, walk, frame_time(walk, frame)).heads_tails(demo.skeleton)
        assert np.allclose(heads - heads[0], expected - expected[0], atol=1e-5), f"frame {frame}"
