"""glTF emission read and written back: emissiveFactor times KHR_materials_emissive_strength, and the
emissive texture's image (issue 37, item 5). Expected values are the file's numbers multiplied here."""

from __future__ import annotations

import base64
import io
import json

import numpy as np
import pytest
from PIL import Image

from app.export.gltf import export_gltf
from app.formats import ReadError
from tests.helpers import read_gltf as read
from tests.writers.gltf_writer import write_gltf

TRIANGLE = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], float)
UVS = np.array([[0, 0], [1, 0], [0, 1]], float)


def _png_uri(pixels: np.ndarray) -> str:
    out = io.BytesIO()
    Image.fromarray(pixels, "RGBA").save(out, "PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


def _emissive_file(tmp_path, material: dict, image: np.ndarray | None = None):
    document = {"nodes": [{"mesh": 0}],
                "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2,
                                            "material": 0}]}],
                "materials": [material]}
    if image is not None:
        document["images"] = [{"uri": _png_uri(image)}]
        document["textures"] = [{"source": 0}]
        material["emissiveTexture"] = {"index": 0}
    if "extensions" in material:
        document["extensionsUsed"] = list(material["extensions"])
    return write_gltf(tmp_path, document, [(TRIANGLE, "VEC3", 5126), (UVS, "VEC2", 5126),
                                           (np.array([0, 1, 2]), "SCALAR", 5125)])


def test_emissive_only_material_reads_factor_times_strength(tmp_path):
    material = {"pbrMetallicRoughness": {"baseColorFactor": [0, 0, 0, 1]}, "emissiveFactor": [1.0, 0.5, 0.25],
                "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": 4.0}}}
    model = read(_emissive_file(tmp_path, material))
    assert model.meshes[0].material.emissive == (4.0, 2.0, 1.0)
    assert not model.warnings


def test_no_emission_by_default(tmp_path):
    model = read(_emissive_file(tmp_path, {}))
    assert model.meshes[0].material.emissive == (0.0, 0.0, 0.0)
    assert model.meshes[0].material.emissive_image is None


def test_emissive_texture_decoded(tmp_path):
    pixels = np.zeros((2, 2, 4), np.uint8)
    pixels[..., 0], pixels[..., 3] = (10, 200), 255
    model = read(_emissive_file(tmp_path, {"emissiveFactor": [1, 1, 1]}, pixels))
    material = model.meshes[0].material
    np.testing.assert_array_equal(material.emissive_image, pixels)


def test_negative_emission_is_refused_naming_the_material(tmp_path):
    path = _emissive_file(tmp_path, {"emissiveFactor": [1, -1, 0]})
    with pytest.raises(ReadError, match=r"materials\[0\]: emissiveFactor .* must not be negative"):
        read(path)


def test_emission_exported_back_with_its_strength_and_image(tmp_path):
    pixels = np.zeros((2, 2, 4), np.uint8)
    pixels[..., 1], pixels[..., 3] = 90, 255
    material = {"emissiveFactor": [0.5, 1.0, 0.25],
                "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": 3.0}}}
    model = read(_emissive_file(tmp_path, material, pixels))
    out = tmp_path / "out.gltf"
    export_gltf(model, out)
    written = json.loads(out.read_text())["materials"][0]
    assert written["emissiveFactor"] == [0.5, 1.0, 0.25]
    assert written["extensions"]["KHR_materials_emissive_strength"] == {"emissiveStrength": 3.0}
    again = read(out).meshes[0].material
    assert again.emissive == (1.5, 3.0, 0.75)
    np.testing.assert_array_equal(again.emissive_image, pixels)


def test_emission_up_to_one_needs_no_extension(tmp_path):
    model = read(_emissive_file(tmp_path, {"emissiveFactor": [0.5, 0.25, 0.0]}))
    out = tmp_path / "out.gltf"
    export_gltf(model, out)
    document = json.loads(out.read_text())
    assert document["materials"][0]["emissiveFactor"] == [0.5, 0.25, 0.0]
    assert "KHR_materials_emissive_strength" not in document.get("extensionsUsed", [])
