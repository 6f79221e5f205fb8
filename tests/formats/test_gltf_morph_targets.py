"""Morph targets stay morph targets: a skinned, morphed glTF keeps its targets and its clips keep
their bone channels beside their weight channels (STEP, LINEAR, CUBICSPLINE as keyed); poses at and
between keys match the specification's evaluation (tests/formats/morph_rig.py); the export writes the
targets once, with the weight channels and every bone channel."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app import loading
from app.cli.main import main
from app.export.gltf import export_gltf
from app.export.roundtrip import check_export
from app.formats import ReadError
from app.pose import evaluate, pose_morph_weights, posed_positions
from tests.formats.morph_rig import (INSTANTS, WAVE_ANGLES, WAVE_WEIGHTS, expected_state, morph_rig_document,
                                     quaternion_about_z)
from tests.writers.gltf_writer import write_gltf


def rig_path(tmp_path):
    return write_gltf(tmp_path, *morph_rig_document(), name="rig.gltf")


def size_of_rest() -> float:
    rest, _ = expected_state(None, 0.0)
    return float(np.linalg.norm(rest.max(axis=0) - rest.min(axis=0)))


def assert_plays_as_specified(model, tolerance: float) -> None:
    for name, instants in INSTANTS.items():
        clip = model.clips[model.clip_index(name)]
        for time in instants:
            pose = evaluate(model, clip, time)
            positions, weights = expected_state(name, time)
            np.testing.assert_allclose(posed_positions(model, pose), positions, atol=tolerance,
                                       err_msg=f"{name} at {time}")
            np.testing.assert_allclose(pose_morph_weights(model, pose), weights, atol=1e-7,
                                       err_msg=f"{name} weights at {time}")


def test_targets_and_weight_channels_are_kept(tmp_path):
    model = loading.load([rig_path(tmp_path)])
    mesh = model.meshes[0]
    assert mesh.morphs.count == 2 and mesh.morphs.names == ("smile", "blink")
    np.testing.assert_allclose(mesh.morphs.defaults, [0.25, 0.0])
    assert mesh.morphs.normals is not None
    wave, smile, hop = model.clips
    assert [clip.kind for clip in model.clips] == ["keyed"] * 3
    assert [clip.motion for clip in model.clips] == ["skeletal", "morph", "skeletal"]
    assert [channel.interpolation for clip in model.clips for channel in clip.weight_channels] == \
        ["linear", "cubic", "step"]
    assert [len(clip.tracks) for clip in model.clips] == [1, 0, 1]


def test_poses_at_and_between_keys_follow_the_specification(tmp_path):
    model = loading.load([rig_path(tmp_path)])
    rest, weights = expected_state(None, 0.0)
    np.testing.assert_allclose(posed_positions(model, evaluate(model, None, 0.0)), rest, atol=1e-6)
    assert_plays_as_specified(model, 1e-6 * size_of_rest())


def test_the_export_writes_targets_once_with_every_bone_and_weight_channel(tmp_path):
    source = rig_path(tmp_path)
    model = loading.load([source])
    output = tmp_path / "out.gltf"
    warnings = export_gltf(model, output, embed_buffer=True)
    assert not [warning for warning in warnings if "not exported" in warning]
    written = json.loads(output.read_text())
    primitive = written["meshes"][0]["primitives"][0]
    assert len(primitive["targets"]) == 2 and all("NORMAL" in target for target in primitive["targets"])
    assert written["meshes"][0]["weights"] == [0.25, 0.0]
    assert written["meshes"][0]["extras"]["targetNames"] == ["smile", "blink"]
    paths = {animation["name"]: sorted(channel["target"]["path"] for channel in animation["channels"])
             for animation in written["animations"]}
    assert paths == {"wave": ["rotation", "weights"], "smile": ["weights"], "hop": ["translation", "weights"]}
    interpolations = [written["animations"][1]["samplers"][0]["interpolation"]]
    assert interpolations == ["CUBICSPLINE"]
    assert output.stat().st_size <= 3 * source.stat().st_size
    assert_plays_as_specified(loading.load_written(output), 1e-6 * size_of_rest())


def test_convert_check_reports_bones_and_weights(tmp_path, capsys):
    output = tmp_path / "out.glb"
    assert main(["convert", str(rig_path(tmp_path)), "-o", str(output), "--check"]) == 0
    captured = capsys.readouterr()
    assert "not exported" not in captured.err
    parts, last = captured.out.strip().splitlines()[-2:]
    assert parts.startswith("check: worst bone origin error ")
    assert parts.endswith("worst morph weight error 0")
    error = float(last.split()[4])
    assert error <= 1e-6 * size_of_rest()


def test_info_says_what_each_clip_moves(tmp_path, capsys):
    assert main(["info", "--json", str(rig_path(tmp_path))]) == 0
    clips = json.loads(capsys.readouterr().out)["clips"]
    assert [(clip["kind"], clip.get("morph_weights")) for clip in clips] == \
        [("skeletal", True), ("morph", None), ("skeletal", True)]


def test_pose_npz_holds_every_morph_weight(tmp_path):
    output = tmp_path / "pose.npz"
    assert main(["pose", str(rig_path(tmp_path)), "--clip", "smile", "--time", "0.5", "-o", str(output)]) == 0
    arrays = np.load(output)
    positions, weights = expected_state("smile", 0.5)
    np.testing.assert_allclose(arrays["morph_weights"], weights, atol=1e-7)
    np.testing.assert_allclose(arrays["positions"], positions, atol=1e-6)


def test_a_model_without_targets_poses_with_no_weights(tmp_path):
    output = tmp_path / "pose.npz"
    assert main(["pose", "--demo", "-o", str(output)]) == 0
    assert np.load(output)["morph_weights"].shape == (0,)


def test_too_few_weights_per_key_is_a_read_error(tmp_path):
    document, arrays = morph_rig_document()
    arrays[12] = (np.array([0.0, 1.0, 0.2]), "SCALAR", 5126)  # one weight per key, two targets
    path = write_gltf(tmp_path, document, arrays)
    with pytest.raises(ReadError, match=r"animations\[0\]: 1 weights per key for node 0, whose mesh has 2 "
                                        r"morph targets"):
        loading.load([path])


def test_weights_on_a_mesh_without_targets_are_ignored_with_a_warning(tmp_path):
    document, arrays = morph_rig_document()
    del document["meshes"][0]["primitives"][0]["targets"]
    del document["meshes"][0]["weights"]
    model = loading.load([write_gltf(tmp_path, document, arrays)])
    assert any("morph weights animated on node 0, whose mesh has no targets" in w for w in model.warnings)
    assert all(not clip.weight_channels for clip in model.clips)


def test_check_export_measures_weights_bones_and_between_keys(tmp_path):
    """The file's 'wave' weights are 0.1 higher at its middle key and its arm turns 10° more there:
    the weight error is 0.1, and the bone and vertex errors are those of the changed key, found at
    that key (frame 1)."""
    model = loading.load([rig_path(tmp_path)])
    document, arrays = morph_rig_document()
    weights = WAVE_WEIGHTS.copy()
    weights[1] += 0.1
    arrays[12] = (weights.ravel(), "SCALAR", 5126)
    angles = WAVE_ANGLES.copy()
    angles[1] += np.radians(10)
    arrays[11] = (np.array([quaternion_about_z(angle) for angle in angles]), "VEC4", 5126)
    other = loading.load([write_gltf(tmp_path, document, arrays, name="other.gltf")])
    result = check_export(model, other, [model.clips[0]])
    assert result.weight_error == pytest.approx(0.1, abs=1e-6)
    assert result.bone_error == 0.0  # the arm's origin does not move when it turns
    assert (result.clip, result.frame, result.between) == ("wave", 1, False)
    assert result.line().endswith("at clip wave frame 1")
    result.between = True
    assert result.line().endswith("at clip wave between frames 1 and 2")
