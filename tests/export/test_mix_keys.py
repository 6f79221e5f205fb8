"""Key times glTF can hold: mixes (cross-fade, blend, add) and the glTF writer give every sampler
strictly increasing float32 times, and ``convert --check`` fails a file whose times the Khronos
validator would reject (ACCESSOR_ANIMATION_INPUT_NON_INCREASING). The written files are read here
with struct, apart from the reader under test."""

import base64
import json
import struct

import numpy as np
import pytest

from app import loading
from app.cli.main import main
from app.export.roundtrip import check_export
from app.export.gltf import export_gltf
from app.formats.gltf.key_time_rules import key_time_problems
from app.formats.registry import ReadError
from app.model import Clip
from app.resources import demo_paths
from tests.helpers import chain_model, translation
from tests.export.test_gltf_roundtrip import VALIDATOR, validate


def glb_parts(path) -> tuple[dict, bytes]:
    """The JSON and binary chunks of a GLB."""
    data = path.read_bytes()
    json_length = struct.unpack_from("<I", data, 12)[0]
    document = json.loads(data[20:20 + json_length])
    binary_at = 20 + json_length
    binary_length = struct.unpack_from("<I", data, binary_at)[0]
    return document, data[binary_at + 8:binary_at + 8 + binary_length]


def accessor_floats(document: dict, binary: bytes, index: int) -> np.ndarray:
    """(count, width) float32 values of a tightly packed float accessor."""
    accessor = document["accessors"][index]
    view = document["bufferViews"][accessor["bufferView"]]
    width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[accessor["type"]]
    start = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
    count = accessor["count"] * width
    return np.array(struct.unpack_from(f"<{count}f", binary, start), np.float32).reshape(-1, width)


def input_times(path) -> list[np.ndarray]:
    """Every animation sampler's key times in a GLB, as the float32 numbers it stores."""
    document, binary = glb_parts(path)
    return [accessor_floats(document, binary, sampler["input"])[:, 0]
            for animation in document.get("animations", []) for sampler in animation["samplers"]]


@pytest.mark.parametrize("mix", [["--crossfade", "idle:0.5"], ["--blend", "idle:0.5"], ["--add", "idle"]])
def test_a_mix_written_as_gltf_has_strictly_increasing_float32_key_times(tmp_path, capsys, mix):
    out = tmp_path / "mix.glb"
    assert main(["convert", "--demo", "--clip", "walk", *mix, "-o", str(out), "--check"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith("check: worst vertex error")
    samplers = input_times(out)
    assert samplers and all(np.all(np.diff(times) > 0) for times in samplers)
    if VALIDATOR:
        issues = validate(out)[str(out)]
        assert issues["numErrors"] == 0, issues["messages"]


def test_the_crossfade_keeps_its_fade_and_both_clips_frames(tmp_path):
    """walk (1 s, frames every 1/12 s) fades over 0.5 s into idle (3 s): 16 samples across the fade
    and idle's frames after it, none lost to the merge beyond those float32 cannot tell apart."""
    out = tmp_path / "mix.glb"
    assert main(["convert", "--demo", "--clip", "walk", "--crossfade", "idle:0.5", "-o", str(out)]) == 0
    times = input_times(out)[0].astype(np.float64)
    model = loading.load([str(out)])
    walk = next(clip for clip in loading.load([str(path) for path in demo_paths()]).clips
                if clip.name == "walk")
    fade = np.linspace(0.5, 1.0, 16)
    expected = np.concatenate([walk.frame_times, fade, [3.5]]).astype(np.float32)
    assert set(expected.tolist()) <= set(times.astype(np.float32).tolist())
    assert model.clips[0].duration == pytest.approx(3.5, abs=1e-6)


def test_the_writer_merges_keys_one_float32_apart_keeping_the_later(tmp_path):
    times = np.array([0.0, 0.375, 0.375 + 1e-9, 1.0])
    assert len(set(times.astype(np.float32).tolist())) == 3  # two of them are one float32 number
    offsets = [0.0, 1.0, 2.0, 3.0]  # bone0's x at each key
    world = np.stack([np.stack([translation(x, 0, 0), translation(x, 0, 0) @ translation(1, 0, 0)])
                      for x in offsets])
    out = tmp_path / "merged.glb"
    export_gltf(chain_model([Clip("slide", "matrices", times=times, world=world)]), out)
    document, binary = glb_parts(out)
    [animation] = document["animations"]
    bone0 = next(index for index, node in enumerate(document["nodes"]) if node.get("name") == "bone0")
    [sampler] = [animation["samplers"][channel["sampler"]] for channel in animation["channels"]
                 if channel["target"] == {"node": bone0, "path": "translation"}]
    assert accessor_floats(document, binary, sampler["input"])[:, 0].tolist() == [0.0, 0.375, 1.0]
    assert accessor_floats(document, binary, sampler["output"])[:, 0].tolist() == [0.0, 2.0, 3.0]


def hand_made_gltf(path, times: list[float]) -> None:
    """One node sliding along x, keyed at ``times`` (stored as float32), min and max as stored."""
    stored = struct.unpack(f"<{len(times)}f", struct.pack(f"<{len(times)}f", *times))
    data = struct.pack(f"<{len(times)}f", *stored) + struct.pack(f"<{3 * len(times)}f", *(
        value for index in range(len(times)) for value in (float(index), 0.0, 0.0)))
    document = {
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"name": "slider"}],
        "buffers": [{"byteLength": len(data),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(data).decode()}],
        "bufferViews": [{"buffer": 0, "byteLength": 4 * len(times)},
                        {"buffer": 0, "byteOffset": 4 * len(times), "byteLength": 12 * len(times)}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": len(times), "type": "SCALAR",
                       "min": [min(stored)], "max": [max(stored)]},
                      {"bufferView": 1, "componentType": 5126, "count": len(times), "type": "VEC3"}],
        "animations": [{"samplers": [{"input": 0, "output": 1}],
                        "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}]}
    path.write_text(json.dumps(document))


def test_check_fails_a_file_with_two_equal_float32_key_times(tmp_path):
    path = tmp_path / "equal.gltf"
    hand_made_gltf(path, [0.0, 0.375, 0.37500000001, 1.0])
    with pytest.raises(ReadError) as caught:
        loading.load_written(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: the Khronos validator would reject it: ")
    assert "animations[0].samplers[0].input: key times do not strictly increase as float32: key 1 at " \
           "0.375 s, key 2 at 0.375 s" in message
    if VALIDATOR:
        codes = {issue["code"] for issue in validate(path)[str(path)]["messages"]}
        assert "ACCESSOR_ANIMATION_INPUT_NON_INCREASING" in codes


def test_check_passes_the_same_file_with_increasing_times(tmp_path):
    path = tmp_path / "increasing.gltf"
    hand_made_gltf(path, [0.0, 0.375, 0.5, 1.0])
    assert key_time_problems(path) == []
    loaded = loading.load_written(path)
    assert check_export(loaded, loaded).error == 0.0
