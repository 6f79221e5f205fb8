"""glTF skins read exactly: rest pose apart from bind pose, several skins, sparse and quantized
accessors, Draco, required extensions.

Expected poses come from an evaluation of the glTF skin written here from the specification
(node world = parent world · T · R · S; skinned vertex = Σ w · world(joint) · IBM(joint) · p, the
skinned mesh's own node ignored), not from the reader's code.
"""

from __future__ import annotations

import json

import DracoPy
import numpy as np
import pytest

from app.cli.main import main
from app.formats import ReadError
from app.pose import evaluate, posed_positions, rest_pose
from tests.gltf_spec import trs_matrix, world_matrices
from tests.helpers import read_gltf as read
from tests.writers.gltf_writer import Sparse, write_gltf

# --- the specification, written out ---------------------------------------------------------------


def axis_quaternion(axis, degrees: float) -> list[float]:
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    half = np.radians(degrees) / 2
    return [*(axis * np.sin(half)), float(np.cos(half))]


def spec_skinned(world: list[np.ndarray], skin_joints: list[int], inverse_binds: np.ndarray,
                 positions: np.ndarray, joints: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """glTF 2.0 §3.7.3: Σ_k w_k · world(skin.joints[j_k]) · IBM[j_k] · p per vertex."""
    result = np.zeros((len(positions), 3))
    for vertex, point in enumerate(positions):
        for joint, weight in zip(joints[vertex], weights[vertex]):
            matrix = world[skin_joints[joint]] @ inverse_binds[joint]
            result[vertex] += weight * (matrix @ np.append(point, 1.0))[:3]
    return result


def column_major(matrices: np.ndarray) -> np.ndarray:
    return np.swapaxes(matrices, 1, 2).reshape(-1, 16)


# --- a document with rest ≠ bind and two skins -------------------------------------------------------

NODES = [
    {"name": "hips", "translation": [0, 1, 0], "rotation": axis_quaternion([0, 1, 0], 30),
     "children": [1, 2]},
    {"name": "arm", "translation": [1, 0.2, 0], "rotation": axis_quaternion([0, 0, 1], 20),
     "scale": [1, 1.5, 0.8], "children": [3]},
    {"name": "leg", "translation": [0, -1, 0.1], "rotation": axis_quaternion([1, 0, 0], -10)},
    {"name": "hand", "translation": [0, 1, 0], "rotation": axis_quaternion([1, 0, 0], 45)},
    {"name": "bodyA", "mesh": 0, "skin": 0, "translation": [5, 5, 5]},  # a skinned mesh's node is ignored
    {"name": "bodyB", "mesh": 1, "skin": 1},
]
SKIN_A, SKIN_B = [0, 1, 3], [2, 0]


def bind_pose_nodes(hips_degrees: float, arm_degrees: float) -> list[dict]:
    """The nodes in another pose: the one a skin was bound in."""
    nodes = json.loads(json.dumps(NODES))
    nodes[0]["rotation"] = axis_quaternion([0, 1, 0], hips_degrees)
    nodes[1]["rotation"] = axis_quaternion([0, 0, 1], arm_degrees)
    nodes[1]["scale"] = [1, 1, 1]
    return nodes


def two_skin_case(rng: np.random.Generator):
    """Document, arrays and the data the spec evaluation needs."""
    bind_a, bind_b = world_matrices(bind_pose_nodes(0, 0)), world_matrices(bind_pose_nodes(-25, 40))
    ibm_a = np.linalg.inv(np.stack([bind_a[j] for j in SKIN_A]))
    ibm_b = np.linalg.inv(np.stack([bind_b[j] for j in SKIN_B]))
    meshes = []
    for skin in (SKIN_A, SKIN_B):
        positions = rng.uniform(-1, 2, (8, 3))
        joints = rng.integers(0, len(skin), (8, 4))
        weights = rng.uniform(0, 1, (8, 4)) * (rng.uniform(0, 1, (8, 4)) > 0.3)
        weights[:, 0] += 0.1
        weights = (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)
        joints[weights == 0] = 0
        meshes.append((positions, joints, weights))
    document = {
        "scene": 0, "scenes": [{"nodes": [0, 4, 5]}], "nodes": NODES,
        "meshes": [{"primitives": [{"attributes": {"POSITION": 3 * m, "JOINTS_0": 3 * m + 1,
                                                   "WEIGHTS_0": 3 * m + 2}, "mode": 0}]} for m in (0, 1)],
        "skins": [{"joints": SKIN_A, "inverseBindMatrices": 6}, {"joints": SKIN_B, "inverseBindMatrices": 7}],
        "animations": [{"samplers": [{"input": 8, "output": 9}, {"input": 10, "output": 11}],
                        "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}},
                                     {"sampler": 1, "target": {"node": 2, "path": "translation"}}]}],
    }
    arrays = []
    for positions, joints, weights in meshes:
        arrays += [(positions, "VEC3", 5126), (joints, "VEC4", 5121), (weights, "VEC4", 5126)]
    arrays += [(column_major(ibm_a), "MAT4", 5126), (column_major(ibm_b), "MAT4", 5126),
               (np.array([0.0, 1.0]), "SCALAR", 5126),
               (np.array([axis_quaternion([0, 0, 1], 20), axis_quaternion([0, 0, 1], 80)]), "VEC4", 5126),
               (np.array([0.0, 2.0]), "SCALAR", 5126),
               (np.array([[0, -1, 0.1], [0.5, -1, 0.1]]), "VEC3", 5126)]
    # The spec evaluation reads the matrices as the file stores them (float32).
    ibms = [ibm.astype(np.float32).astype(np.float64) for ibm in (ibm_a, ibm_b)]
    return document, arrays, meshes, ibms


def nodes_at(time: float) -> list[dict]:
    """The nodes as the animation sets them at ``time`` (linear: angle and offset interpolate)."""
    nodes = json.loads(json.dumps(NODES))
    nodes[1]["rotation"] = axis_quaternion([0, 0, 1], 20 + 60 * min(time, 1.0))
    nodes[2]["translation"] = [0.5 * min(time, 2.0) / 2.0, -1, 0.1]
    return nodes


def expected_vertices(nodes: list[dict], meshes, ibms) -> np.ndarray:
    world = world_matrices(nodes)
    return np.concatenate([spec_skinned(world, skin, ibm, positions.astype(np.float32), joints, weights)
                           for skin, ibm, (positions, joints, weights)
                           in zip((SKIN_A, SKIN_B), ibms, meshes)])


def test_rest_apart_from_bind_with_two_skins_poses_exactly(tmp_path):
    document, arrays, meshes, ibms = two_skin_case(np.random.default_rng(3))
    model = read(write_gltf(tmp_path, document, arrays))
    assert list(model.warnings) == []
    assert [m.skin is not None for m in model.meshes] == [True, True]
    np.testing.assert_allclose(posed_positions(model, rest_pose(model)),
                               expected_vertices(NODES, meshes, ibms), atol=1e-5)
    for time in (0.0, 0.5, 1.0, 1.5, 3.0):
        posed = posed_positions(model, evaluate(model, model.clips[0], time))
        np.testing.assert_allclose(posed, expected_vertices(nodes_at(time), meshes, ibms), atol=1e-5,
                                   err_msg=f"at {time}")


def test_two_skins_bind_a_shared_bone_differently(tmp_path):
    # The hips are a joint of both skins, bound in different poses: each mesh keeps its own binding,
    # and the skeleton's bind frame is the first skin's.
    document, arrays, _, ibms = two_skin_case(np.random.default_rng(4))
    model = read(write_gltf(tmp_path, document, arrays))
    hips = model.skeleton.index("hips")
    first, second = (mesh.skin.inverse_bind[list(mesh.skin.joints).index(hips)] for mesh in model.meshes)
    assert np.abs(first - second).max() > 0.1
    np.testing.assert_allclose(model.skeleton.bind_world[hips], np.linalg.inv(ibms[0][0]), atol=1e-6)
    rest = world_matrices(NODES)
    np.testing.assert_allclose(model.skeleton.rest_world[hips], rest[0], atol=1e-6)


def test_gpu_skinning_uses_each_mesh_skin(tmp_path, gl_context):
    from app.render.renderer import Renderer

    document, arrays, meshes, ibms = two_skin_case(np.random.default_rng(5))
    model = read(write_gltf(tmp_path, document, arrays))
    renderer = Renderer(gl_context)
    try:
        renderer.set_model(model, evaluate(model, model.clips[0], 0.5))
        gpu = np.concatenate([renderer.skinned_vertices(index)[0] for index in range(len(model.meshes))])
    finally:
        renderer.release()
    np.testing.assert_allclose(gpu, expected_vertices(nodes_at(0.5), meshes, ibms), atol=1e-4)


# --- sparse accessors ------------------------------------------------------------------------------

def _static_document(position_accessor: int = 0) -> dict:
    return {"nodes": [{"mesh": 0}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": position_accessor}, "mode": 0}]}]}


def test_sparse_positions_over_a_buffer_and_over_zeros(tmp_path):
    base = np.arange(15, dtype=float).reshape(5, 3)
    replaced = np.array([[9, 9, 9], [-1, -2, -3]])
    document = _static_document()
    document["meshes"][0]["primitives"].append({"attributes": {"POSITION": 1}, "mode": 0})
    path = write_gltf(tmp_path, document, [
        Sparse(base, [1, 4], replaced, "VEC3", 5126, count=5),
        Sparse(None, [2], np.array([[1, 2, 3]]), "VEC3", 5126, count=4, index_component=5121)])
    first, second = read(path).meshes
    expected = base.copy()
    expected[[1, 4]] = replaced
    np.testing.assert_array_equal(first.positions, expected)
    np.testing.assert_array_equal(second.positions, [[0, 0, 0], [0, 0, 0], [1, 2, 3], [0, 0, 0]])


@pytest.mark.parametrize("indices, message", [
    ([1, 5], "accessors[0].sparse.indices[1]: index 5 is outside 0..4"),
    ([3, 2], "accessors[0].sparse.indices[1]: indices must strictly increase"),
])
def test_bad_sparse_indices_are_one_line_errors(tmp_path, indices, message):
    path = write_gltf(tmp_path, _static_document(), [
        Sparse(np.zeros((5, 3)), indices, np.ones((2, 3)), "VEC3", 5126, count=5)])
    with pytest.raises(ReadError) as error:
        read(path)
    assert message in str(error.value) and "\n" not in str(error.value)


# --- KHR_mesh_quantization ----------------------------------------------------------------------------

QUANTIZED = ["KHR_mesh_quantization"]
DRACO = "KHR_draco_mesh_compression"


def test_quantized_skinned_mesh(tmp_path):
    # gltfpack-style: int16 positions (not normalised) with the dequantisation folded into the inverse
    # bind matrices; normalised int8 normals; normalised uint16 uvs; normalised uint8 weights.
    positions = np.array([[100, -200, 300], [0, 32767, -32768], [5, 6, 7]], np.int16)
    normals = np.array([[127, 0, 0], [0, -127, 0], [0, 0, 64]], np.int8)
    uvs = np.array([[0, 65535], [32768, 0], [65535, 65535]], np.uint16)
    weights = np.array([[255, 0, 0, 0], [128, 127, 0, 0], [0, 255, 0, 0]], np.uint8)
    joints = np.array([[0, 0, 0, 0], [0, 1, 0, 0], [0, 1, 0, 0]])
    dequantize = trs_matrix([1, 2, 3], [0, 0, 0, 1], [1 / 1024] * 3)
    nodes = [{"translation": [0, 1, 0], "children": [1]},
             {"translation": [0, 0, 2], "rotation": axis_quaternion([1, 0, 0], 30)}, {"mesh": 0, "skin": 0}]
    world = world_matrices(nodes)
    ibms = np.stack([np.linalg.inv(world[0]) @ dequantize, np.linalg.inv(world_matrices(
        [nodes[0], {"translation": [0, 0, 2]}])[1]) @ dequantize]).astype(np.float32).astype(np.float64)
    document = {
        "extensionsUsed": QUANTIZED, "extensionsRequired": QUANTIZED, "nodes": nodes,
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2, "JOINTS_0": 3,
                                                   "WEIGHTS_0": 4}, "mode": 0}]}],
        "skins": [{"joints": [0, 1], "inverseBindMatrices": 5}],
    }
    path = write_gltf(tmp_path, document, [
        (positions, "VEC3", 5122), (normals, "VEC3", 5120, True), (uvs, "VEC2", 5123, True),
        (joints, "VEC4", 5121), (weights, "VEC4", 5121, True), (column_major(ibms), "MAT4", 5126)])
    model = read(path)
    mesh = model.meshes[0]
    spec_weights = weights / 255.0
    expected = spec_skinned(world, [0, 1], ibms, positions.astype(float), joints,
                            spec_weights / spec_weights.sum(axis=1, keepdims=True))
    np.testing.assert_allclose(posed_positions(model, rest_pose(model)), expected, atol=1e-6)
    np.testing.assert_allclose(mesh.normals, np.maximum(normals / 127.0, -1.0), atol=1e-7)
    np.testing.assert_allclose(mesh.uvs, uvs / 65535.0, atol=1e-7)


@pytest.mark.parametrize("attribute, arrays, extensions, message", [
    ("NORMAL", [(np.zeros((3, 3)), "VEC3", 5126), (np.ones((3, 3)), "VEC3", 5120)], QUANTIZED,
     "attributes.NORMAL (accessors[1]): component type 5120 must be normalized here"),
    ("TEXCOORD_0", [(np.zeros((3, 3)), "VEC3", 5126), (np.ones((3, 3)), "VEC3", 5126)], [],
     "attributes.TEXCOORD_0 (accessors[1]): expected type VEC2"),
])
def test_quantized_types_the_spec_forbids(tmp_path, attribute, arrays, extensions, message):
    document = _static_document()
    if attribute != "POSITION":
        document["meshes"][0]["primitives"][0]["attributes"][attribute] = 1
    if extensions:
        document["extensionsUsed"] = extensions
    with pytest.raises(ReadError) as error:
        read(write_gltf(tmp_path, document, arrays))
    assert message in str(error.value) and "meshes[0].primitives[0]" in str(error.value)


# --- extensions --------------------------------------------------------------------------------------

@pytest.mark.parametrize("extension", ["KHR_texture_basisu", "EXT_meshopt_compression"])
def test_unimplemented_required_extension_exits_3_naming_it(tmp_path, capsys, extension):
    document = _static_document()
    document["extensionsUsed"] = document["extensionsRequired"] = [extension]
    path = write_gltf(tmp_path, document, [(np.zeros((3, 3)), "VEC3", 5126)])
    assert main(["info", str(path)]) == 3
    error = capsys.readouterr().err.strip()
    assert "extensionsRequired[0]" in error and f"'{extension}'" in error and "\n" not in error


def test_required_punctual_lights_load_the_geometry_and_say_the_lights_are_not_used(tmp_path):
    points = np.array([[0, 0, 0], [1, 0, 0], [0, 2, 0]], float)
    document = _static_document()
    document["extensionsUsed"] = document["extensionsRequired"] = ["KHR_lights_punctual"]
    document["extensions"] = {"KHR_lights_punctual": {"lights": [{"type": "directional"},
                                                                  {"type": "point", "range": 4}]}}
    document["nodes"].append({"extensions": {"KHR_lights_punctual": {"light": 1}}})
    model = read(write_gltf(tmp_path, document, [(points, "VEC3", 5126)]))
    np.testing.assert_array_equal(model.meshes[0].positions, points)
    assert any("2 light(s)" in warning and "KHR_lights_punctual" in warning for warning in model.warnings)


def test_draco_compressed_primitive(tmp_path):
    rng = np.random.default_rng(8)
    points = rng.uniform(-1, 1, (30, 3)).astype(np.float32)
    faces = np.array([[i, (i + 1) % 30, (i + 7) % 30] for i in range(30)], np.uint32)
    encoded = DracoPy.encode(points, faces, quantization_bits=16)
    document = {
        "extensionsUsed": [DRACO], "extensionsRequired": [DRACO],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 1}, "indices": 2, "extensions": {
            DRACO: {"bufferView": 0, "attributes": {"POSITION": 0}}}}]}],
    }
    path = write_gltf(tmp_path, document, [(np.frombuffer(encoded, np.uint8), "SCALAR", 5121)])
    raw = json.loads(path.read_text())
    vertices = len(DracoPy.decode(encoded).points)  # the encoder may split vertices per corner
    raw["accessors"] = [raw["accessors"][0],
                        {"componentType": 5126, "count": vertices, "type": "VEC3"},
                        {"componentType": 5125, "count": 90, "type": "SCALAR"}]
    path.write_text(json.dumps(raw))
    mesh = read(path).meshes[0]
    # Draco may reorder vertices: compare the triangles' corners, within 16-bit quantisation.
    corners = mesh.positions[mesh.triangles].reshape(-1, 3)
    expected = points[faces].reshape(-1, 3)
    step = 2.0 / (2 ** 16 - 1)
    assert len(mesh.triangles) == len(faces)
    assert np.abs(np.sort(corners, axis=0) - np.sort(expected, axis=0)).max() <= 2 * step


def test_corrupt_draco_data_is_a_one_line_error(tmp_path):
    document = {
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 1}, "extensions": {
            DRACO: {"bufferView": 0, "attributes": {"POSITION": 0}}}}]}],
    }
    path = write_gltf(tmp_path, document, [(np.arange(40), "SCALAR", 5121)])
    raw = json.loads(path.read_text())
    raw["accessors"].append({"componentType": 5126, "count": 3, "type": "VEC3"})
    path.write_text(json.dumps(raw))
    with pytest.raises(ReadError) as error:
        read(path)
    message = str(error.value)
    assert f"meshes[0].primitives[0].extensions.{DRACO}: the Draco data does not decode" in message
    assert "\n" not in message


def test_two_skins_with_rest_apart_from_bind_export_exactly(tmp_path):
    # Written back, the nodes keep the rest pose and each mesh its own skin's bind: every pose the
    # same, and the re-read file's skins still disagree on the shared bone.
    from app.export.gltf import export_gltf

    document, arrays, meshes, ibms = two_skin_case(np.random.default_rng(6))
    model = read(write_gltf(tmp_path, document, arrays))
    from tests.export.test_gltf_roundtrip import VALIDATOR, validate

    assert export_gltf(model, tmp_path / "again.glb") == []
    if VALIDATOR:
        issues = validate(tmp_path / "again.glb")[str(tmp_path / "again.glb")]
        assert issues["numErrors"] == 0 and issues["numWarnings"] == 0, issues["messages"]
    again = read(tmp_path / "again.glb")
    assert len(again.skins) == 2
    for time in (None, 0.0, 0.5, 1.0, 2.0):
        clip = None if time is None else again.clips[0]
        nodes = NODES if time is None else nodes_at(time)
        posed = posed_positions(again, evaluate(again, clip, time or 0.0))
        np.testing.assert_allclose(posed, expected_vertices(nodes, meshes, ibms), atol=1e-5,
                                   err_msg=str(time))


def test_a_huge_accessor_without_data_is_refused_not_allocated(tmp_path):
    path = write_gltf(tmp_path, _static_document(), [
        Sparse(None, [1], np.ones((1, 3)), "VEC3", 5126, count=10**12)])
    with pytest.raises(ReadError) as error:
        read(path)
    assert "accessors[0]" in str(error.value) and "without a bufferView" in str(error.value)
