"""glTF export of materials: every image embedded (PNG/JPEG as they are, others as PNG), samplers,
alpha modes, KHR_texture_transform, hidden meshes left out unless asked for; read back and checked
against what was written, and validator-clean when the Khronos validator is available."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest
from PIL import Image

from app import loading
from app.export.gltf import export_gltf
from app.export.gltf_materials import texture_transform
from app.formats import LoadOptions
from tests.export.test_gltf_roundtrip import VALIDATOR, validate
from tests.formats.test_textures import PICTURE, nwn_model, save_image
from tests.writers.gltf_writer import write_gltf


def glb_json(path) -> dict:
    data = path.read_bytes()
    length = struct.unpack_from("<I", data, 12)[0]
    return json.loads(data[20:20 + length])


def assert_valid(path):
    if VALIDATOR:
        issues = validate(path)[str(path)]
        assert issues["numErrors"] == 0 and issues["numWarnings"] == 0, issues["messages"]


def test_nwn_tga_is_embedded_as_png_and_hidden_meshes_are_left_out(tmp_path):
    save_image(tmp_path / "body_tex.tga")
    model = loading.load([nwn_model(tmp_path)])
    out = tmp_path / "out.glb"
    export_gltf(model, out)
    document = glb_json(out)
    assert [mesh["name"] for mesh in document["meshes"]] == ["body"]
    assert [image["mimeType"] for image in document["images"]] == ["image/png"]
    loaded = loading.load([out])
    body = loaded.meshes[0]
    np.testing.assert_array_equal(body.material.image, PICTURE)
    np.testing.assert_allclose(body.uvs, model.meshes[0].uvs)
    assert body.material.texture_path is None
    assert_valid(out)

    export_gltf(model, out, show_hidden=True)
    loaded = loading.load([out])
    assert [mesh.name for mesh in loaded.meshes] == ["body", "part_g"]
    hidden = loaded.meshes[1].material
    assert hidden.alpha_mode == "BLEND" and hidden.base_color[3] == pytest.approx(0.25)
    assert len(glb_json(out)["images"]) == 1  # one image shared by both materials
    assert_valid(out)


def test_jpeg_bytes_sampler_mask_and_transform_survive(tmp_path):
    jpeg = tmp_path / "skin.jpg"
    Image.fromarray(np.full((8, 8, 3), (200, 120, 40), np.uint8)).save(jpeg, quality=90)
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    uvs = np.array([[0, 0], [1, 0], [0, 1]], np.float32)
    transform = {"offset": [0.25, 0.5], "rotation": 0.3, "scale": [2.0, 0.5]}
    document = {
        "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "material": 0}]}],
        "materials": [{"name": "skin", "alphaMode": "MASK", "alphaCutoff": 0.4, "doubleSided": True,
                       "pbrMetallicRoughness": {"baseColorFactor": [0.5, 1, 1, 1], "baseColorTexture": {
                           "index": 0, "extensions": {"KHR_texture_transform": transform}}}}],
        "textures": [{"source": 0, "sampler": 0}], "samplers": [{"wrapS": 33648, "wrapT": 33071}],
        "images": [{"uri": "skin.jpg"}], "extensionsUsed": ["KHR_texture_transform"],
    }
    arrays = [(positions, "VEC3", 5126), (uvs, "VEC2", 5126)]
    source = loading.load([write_gltf(tmp_path, document, arrays)])
    out = tmp_path / "out" / "copy.glb"
    out.parent.mkdir()
    export_gltf(source, out)
    written = glb_json(out)
    view = written["bufferViews"][written["images"][0]["bufferView"]]
    binary_start = 20 + struct.unpack_from("<I", out.read_bytes(), 12)[0] + 8
    stored = out.read_bytes()[binary_start + view.get("byteOffset", 0):][:view["byteLength"]]
    assert stored == jpeg.read_bytes() and written["images"][0]["mimeType"] == "image/jpeg"
    assert written["textures"][0]["sampler"] == 0
    assert written["samplers"][0] == {"wrapS": 33648, "wrapT": 33071}
    extension = written["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["extensions"]
    for key, value in transform.items():
        assert extension["KHR_texture_transform"][key] == pytest.approx(value)
    material = loading.load([out]).meshes[0].material
    original = source.meshes[0].material
    assert (material.alpha_mode, material.alpha_cutoff, material.double_sided) == (
        "MASK", pytest.approx(0.4), True)
    assert material.wrap == ("mirror", "clamp") and material.base_color == (0.5, 1, 1, 1)
    np.testing.assert_allclose(material.uv_transform, original.uv_transform, atol=1e-12)
    np.testing.assert_array_equal(material.image, original.image)
    assert_valid(out)


def test_assigned_bmp_is_converted_to_png(tmp_path):
    opaque = PICTURE.copy()
    opaque[..., 3] = 255
    image = save_image(tmp_path / "paint.bmp", opaque)
    model = loading.load([nwn_model(tmp_path, texture="")], LoadOptions(textures=[(None, str(image))]))
    out = tmp_path / "out.gltf"
    export_gltf(model, out, embed_buffer=True)
    written = json.loads(out.read_text())
    assert [image["mimeType"] for image in written["images"]] == ["image/png"]
    np.testing.assert_array_equal(loading.load([out]).meshes[0].material.image, opaque)
    assert_valid(out)


@pytest.mark.parametrize("offset, rotation, scale", [((0, 0), 0.0, (1, 1)), ((0.5, -1), 2.5, (3, 0.25))])
def test_texture_transform_parameters_from_the_matrix(offset, rotation, scale):
    cos, sin = np.cos(rotation), np.sin(rotation)
    matrix = np.array([[1, 0, offset[0]], [0, 1, offset[1]], [0, 0, 1.0]]) @ \
        np.array([[cos, sin, 0], [-sin, cos, 0], [0, 0, 1.0]]) @ np.diag([scale[0], scale[1], 1.0])
    found = texture_transform(matrix)
    assert found["offset"] == pytest.approx(offset) and found["scale"] == pytest.approx(scale)
    assert found["rotation"] == pytest.approx(rotation)
