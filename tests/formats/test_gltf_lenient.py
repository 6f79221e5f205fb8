"""glTF files whose data is sound though a declaration or a count is not: read, with a warning that
says what was assumed; refused only where the data itself disagrees (issue 37, item 3).

Expected values are written out here from the arrays the tests build, not from the reader.
"""

from __future__ import annotations

import json

import DracoPy
import numpy as np
import pytest

from app.formats import ReadError
from tests.helpers import read_gltf as read
from tests.writers.gltf_writer import write_gltf

DRACO = "KHR_draco_mesh_compression"


def _points_document(attributes: dict) -> dict:
    return {"nodes": [{"mesh": 0}], "meshes": [{"primitives": [{"attributes": attributes, "mode": 0}]}]}


# --- KHR_mesh_quantization not declared ----------------------------------------------------------

def test_undeclared_int16_positions_read_with_a_warning_naming_the_extension(tmp_path):
    positions = np.array([[100, -200, 300], [0, 32767, -32768], [5, 6, 7]], np.int16)
    model = read(write_gltf(tmp_path, _points_document({"POSITION": 0}), [(positions, "VEC3", 5122)]))
    np.testing.assert_array_equal(model.meshes[0].positions, positions.astype(float))
    warning = [w for w in model.warnings if "KHR_mesh_quantization" in w]
    assert len(warning) == 1
    assert "meshes[0].primitives[0].attributes.POSITION (component type 5122)" in warning[0]


def test_undeclared_unnormalised_byte_uvs_read_as_integers(tmp_path):
    uvs = np.array([[0, 1], [2, 3], [4, 5]], np.uint8)
    document = _points_document({"POSITION": 0, "TEXCOORD_0": 1})
    model = read(write_gltf(tmp_path, document, [(np.zeros((3, 3)), "VEC3", 5126), (uvs, "VEC2", 5121)]))
    np.testing.assert_array_equal(model.meshes[0].uvs, [[0, 1], [2, 3], [4, 5]])
    assert any("TEXCOORD_0 (component type 5121)" in w for w in model.warnings)


def test_float_and_normalised_core_data_gives_no_quantization_warning(tmp_path):
    uvs = np.array([[0, 65535], [65535, 0], [0, 0]], np.uint16)
    document = _points_document({"POSITION": 0, "TEXCOORD_0": 1})
    model = read(write_gltf(tmp_path, document, [(np.zeros((3, 3)), "VEC3", 5126),
                                                  (uvs, "VEC2", 5123, True)]))
    assert not any("KHR_mesh_quantization" in w for w in model.warnings)


def test_undeclared_integer_normals_still_must_be_normalised(tmp_path):
    document = _points_document({"POSITION": 0, "NORMAL": 1})
    path = write_gltf(tmp_path, document, [(np.zeros((3, 3)), "VEC3", 5126), (np.ones((3, 3)), "VEC3", 5120)])
    with pytest.raises(ReadError, match=r"NORMAL \(accessors\[1\]\): component type 5120 must be normalized"):
        read(path)


# --- a Draco count that disagrees -----------------------------------------------------------------

def _draco_file(tmp_path, declared_points: int):
    rng = np.random.default_rng(3)
    points = rng.uniform(-1, 1, (40, 3)).astype(np.float32)
    faces = np.array([[i, (i + 1) % 40, (i + 9) % 40] for i in range(40)], np.uint32)
    encoded = DracoPy.encode(points, faces, quantization_bits=16)
    document = {
        "extensionsUsed": [DRACO], "extensionsRequired": [DRACO], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 1}, "indices": 2, "extensions": {
            DRACO: {"bufferView": 0, "attributes": {"POSITION": 0}}}}]}],
    }
    path = write_gltf(tmp_path, document, [(np.frombuffer(encoded, np.uint8), "SCALAR", 5121)])
    raw = json.loads(path.read_text())
    raw["accessors"] = [raw["accessors"][0],
                        {"componentType": 5126, "count": declared_points, "type": "VEC3"},
                        {"componentType": 5125, "count": 120, "type": "SCALAR"}]
    path.write_text(json.dumps(raw))
    return path, points, faces, len(DracoPy.decode(encoded).points)


def test_draco_count_off_by_some_points_takes_the_decoded_data(tmp_path):
    path, points, faces, decoded = _draco_file(tmp_path, declared_points=7)
    model = read(path)
    mesh = model.meshes[0]
    assert len(mesh.positions) == decoded
    corners = mesh.positions[mesh.triangles].reshape(-1, 3)
    expected = points[faces].reshape(-1, 3)
    np.testing.assert_allclose(np.sort(corners, axis=0), np.sort(expected, axis=0), atol=2 / 2**15)
    warning = [w for w in model.warnings if "Draco" in w]
    assert len(warning) == 1
    assert "count 7" in warning[0] and f"holds {decoded} elements" in warning[0]
    assert "meshes[0].primitives[0].attributes.POSITION (accessors[1])" in warning[0]


def test_draco_data_whose_indices_pass_its_points_is_refused(tmp_path, monkeypatch):
    path, _, _, decoded = _draco_file(tmp_path, declared_points=7)
    real_decode = DracoPy.decode

    def decode_with_a_stray_index(data):
        mesh = real_decode(data)
        faces = np.asarray(mesh.faces).copy()
        faces[0, 0] = decoded + 5  # an index past the decoded points: the data disagrees with itself
        return _MeshWithFaces(mesh, faces)

    monkeypatch.setattr(DracoPy, "decode", decode_with_a_stray_index)
    with pytest.raises(ReadError, match=f"count 7, but the Draco data holds {decoded} elements"):
        read(path)


class _MeshWithFaces:
    """A decoded Draco mesh with other faces."""

    def __init__(self, mesh, faces):
        self._mesh, self.faces, self.points = mesh, faces, mesh.points

    def get_attribute_by_unique_id(self, unique_id):
        return self._mesh.get_attribute_by_unique_id(unique_id)


# --- key times that do not increase -------------------------------------------------------------

def _animated_document(times: list[float]) -> tuple[dict, list]:
    document = _points_document({"POSITION": 0})
    document["nodes"] = [{"name": "root", "children": [1]}, {"mesh": 0}]
    document["animations"] = [{"name": "move", "channels": [{"sampler": 0, "target": {"node": 0,
                                                                                     "path": "translation"}}],
                               "samplers": [{"input": 1, "output": 2}]}]
    values = np.arange(3 * len(times), dtype=float).reshape(-1, 3)
    return document, [(np.eye(3), "VEC3", 5126), (np.array(times), "SCALAR", 5126), (values, "VEC3", 5126)]


@pytest.mark.parametrize("times, kept", [
    ([0.0, 1.0, 1.0, 2.0], [0, 2, 3]),                     # equal times: the last of them kept
    ([0.0, 1.0, 2.0, 1.5, 3.0], [0, 1, 2, 4]),             # a key going back: dropped, order kept
    ([0.0, 0.5, 0.5, 0.5, 0.25, 1.0], [0, 3, 5]),
])
def test_non_increasing_key_times_are_repaired_with_a_warning(tmp_path, times, kept):
    document, arrays = _animated_document(times)
    model = read(write_gltf(tmp_path, document, arrays))
    key_times, key_values = model.clips[0].tracks[0].translation
    np.testing.assert_array_equal(key_times, np.array(times, np.float32)[kept])
    np.testing.assert_array_equal(key_values, arrays[2][0][kept])
    warning = [w for w in model.warnings if "key times" in w]
    assert len(warning) == 1
    assert f"animations[0].samplers[0].input: {len(times) - len(kept)} of {len(times)}" in warning[0]


def test_increasing_key_times_give_no_warning(tmp_path):
    document, arrays = _animated_document([0.0, 0.5, 1.0])
    model = read(write_gltf(tmp_path, document, arrays))
    assert not any("key times" in w for w in model.warnings)


def test_repaired_clip_exports_a_file_the_validator_rules_accept(tmp_path):
    from app.export.gltf import export_gltf
    from app.formats.gltf.key_time_rules import key_time_problems

    document, arrays = _animated_document([0.0, 1.0, 1.0, 2.0, 1.5, 3.0])
    model = read(write_gltf(tmp_path, document, arrays))
    out = tmp_path / "out.glb"
    export_gltf(model, out)
    assert key_time_problems(out) == []
