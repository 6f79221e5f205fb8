"""Real FBX and BVH files (tests/corpus/assimp-fbx, tests/corpus/cmu-bvh, licences beside them): each
loads, poses its clips at their ends, and converts to glTF within 1e-6 of its size; facts read from
the files themselves (bone counts, frame counts) are checked against what the readers give."""

from __future__ import annotations

import re

import numpy as np
import pytest

from app.export.roundtrip import check_export
from app.export.gltf import export_gltf
from app.loading import load
from app.pose import evaluate, posed_positions
from tests.paths import CORPUS

FBX = CORPUS / "assimp-fbx"
BVH = CORPUS / "cmu-bvh" / "01_01_first240.bvh"
#: convert --check's worst vertex error, as a share of the model's size.
MAX_CHECK = 1e-6


@pytest.mark.parametrize("path", [*sorted(FBX.glob("*.fbx")), BVH], ids=lambda path: path.name)
def test_real_file_loads_poses_and_converts(path, tmp_path):
    model = load([path])
    for clip in model.clips:
        for time in (clip.start, clip.start + clip.duration):
            assert np.isfinite(posed_positions(model, evaluate(model, clip, time))).all()
    output = tmp_path / "out.glb"
    export_gltf(model, output)
    result = check_export(model, load([output]))
    assert result.fraction <= MAX_CHECK, result.line()


def test_huesitos_is_a_skinned_animated_chain_in_metres():
    model = load([FBX / "huesitos.fbx"])
    assert (model.format, model.unit, model.file_unit_m) == ("fbx", "metre", 0.01)
    assert model.file_axes == "Y up, -Z front"
    assert [clip.name for clip in model.clips] == ["Armature|Action"]
    assert model.meshes[0].skin is not None
    height = np.ptp(model.bind_positions[:, 1])
    assert 0.01 < height < 0.2  # Blender units written as centimetres: a cylinder a few units tall


def test_spider_reads_twice_in_one_process():
    first, second = load([FBX / "spider.fbx"]), load([FBX / "spider.fbx"])
    assert len(first.meshes) == len(second.meshes) == 19
    assert any("not found" in warning for warning in first.warnings)


def test_an_embedded_texture_is_decoded_from_the_file():
    path = FBX / "box_orphant_embedded_texture.fbx"
    material = load([path]).meshes[0].material
    assert material.image is not None and material.texture_path is None
    assert material.texture.endswith("GridGrey.tga")
    assert path.read_bytes().count(b"GridGrey.tga") >= 1


def test_the_cmu_take_has_its_joints_and_frames():
    text = BVH.read_text()
    joints = re.findall(r"^\s*(?:ROOT|JOINT)\s+(\S+)", text, re.MULTILINE)
    model = load([BVH])
    assert model.skeleton.names == joints and len(joints) == 31
    clip = model.clips[0]
    assert clip.frame_count == 240
    assert clip.duration == pytest.approx(239 * 0.0083333)
    heads = dict(zip(model.skeleton.names, model.skeleton.rest_world[:, :3, 3]))
    assert heads["Head"][1] - heads["LeftFoot"][1] > 20  # Y up, in the conversion's units (about 0.45 inch)
    assert heads["LeftUpLeg"][0] > 0 > heads["RightUpLeg"][0]  # the left on +X: facing +Z
