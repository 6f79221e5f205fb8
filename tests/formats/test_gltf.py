"""glTF export → import round trips, hand-written edge cases, and malformed files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import numpy as np
import pytest
from PIL import Image

from app import maths
from app.export.gltf import ANCHOR_NAME, UP_ROOT_NAME, Z_UP_TO_Y_UP, export_gltf, export_gltf_pose
from app.formats import ReadError
from app.loading import load
from app.model import Clip, Helper, Material, Mesh, Model, Skeleton, Track
from app.pose import evaluate, posed_positions, rest_extent, rest_pose
from tests.helpers import read_gltf as read
from tests.writers.gltf_writer import write_gltf

TIMES = (0.0, 0.13, 0.5, 0.77, 1.0, 1.6, 2.0, 3.0)


# --- small synthetic models ---------------------------------------------------------------------

def _skeleton() -> Skeleton:
    """A three-bone chain up +Y with a twist and a non-uniform scale on the last bone."""
    twist = maths.quat_from_axis_angle(np.array([0.0, 1.0, 0.0]), np.array(0.3))
    local = np.stack([
        maths.compose_trs([0.1, 0.0, 0.2], maths.quat_identity(), [1, 1, 1]),
        maths.compose_trs([0.0, 1.0 / 3.0, 0.0], twist, [1, 1, 1]),
        maths.compose_trs([0.0, 0.7, 0.0], maths.quat_identity(), [1.0, 1.3, 1.0]),
    ])
    world = local.copy()
    world[1] = world[0] @ local[1]
    world[2] = world[1] @ local[2]
    heads = world[:, :3, 3]
    return Skeleton(["hip", "spine", "head"], [-1, 0, 1], world, heads, heads + [0, 0.3, 0], [False] * 3)


def _mesh(name: str = "body", rigid: bool = True) -> Mesh:
    """Eight vertices, two influences each, one vertex rigid (weights 0) when ``rigid``."""
    rng = np.random.default_rng(7)
    positions = rng.uniform(-0.5, 1.5, (8, 3)) / 3.0
    joints = np.array([[0, 1], [1, 2], [2, 1], [0, 2], [1, 0], [2, 0], [0, 1], [2, 2]])
    weights = np.array([[0.7, 0.3], [0.5, 0.5], [1, 0], [0.2, 0.8], [0.9, 0.1], [0.6, 0.4], [1, 0], [1, 0]])
    if rigid:
        weights[6] = 0
    triangles = np.array([[0, 1, 2], [2, 3, 0], [4, 5, 6], [6, 7, 4], [1, 5, 6]])
    return Mesh(name, positions, joints, weights, uvs=rng.uniform(0, 1, (8, 2)), triangles=triangles,
                material=Material(name="skin", base_color=(0.2, 0.4, 0.6, 1.0), texture="skin.png"))


def _keyed_clip() -> Clip:
    angles = np.array([0.0, 0.9, -0.4])
    bend = maths.quat_from_axis_angle(np.array([0.0, 0.0, 1.0]), angles)
    return Clip("wave", "keyed", tracks=[
        Track(1, rotation=([0.0, 1.0, 2.0], bend)),
        Track(0, translation=([0.0, 2.0], [[0.1, 0.0, 0.2], [0.4, 0.1, 0.2]])),
        Track(2, scale=([0.5, 1.5], [[1.0, 1.3, 1.0], [1.2, 0.9, 1.0]]), interpolation="step"),
    ])


def _matrices_clip(skeleton: Skeleton) -> Clip:
    times = np.array([0.0, 0.5, 1.0])
    spin = maths.axis_rotation("X", np.array([0.0, 0.4, 0.8]))
    world = np.stack([skeleton.bind_world] * 3)
    world[:, 1] = world[:, 1] @ spin
    world[:, 2] = world[:, 1] @ skeleton.bind_local[2]
    return Clip("spin", "matrices", times=times, world=world)


def _vertex_clip(model: Model) -> Clip:
    bind = model.bind_positions.astype(np.float64)
    frames = np.stack([bind, bind * 1.1 + 0.05, bind[::-1] * 0.9])
    return Clip("morph", "vertex", times=[0.0, 0.5, 1.25], positions=frames)


def _model(up_axis: str = "Y", clips: str = "keyed") -> Model:
    skeleton = _skeleton()
    model = Model("synthetic", skeleton, [_mesh(), _mesh("hat", rigid=False)], up_axis=up_axis,
                  helpers=[Helper("tip", 2, maths.translation([0.0, 0.25, 0.0]))], format="test")
    model.clips = {"keyed": [_keyed_clip()], "matrices": [_matrices_clip(skeleton)],
                   "vertex": [_vertex_clip(model)]}[clips]
    return model


def _up_rotation(model: Model) -> np.ndarray:
    """(4, 4) the root rotation the exporter adds for the model's up axis."""
    return maths.quat_to_matrix(Z_UP_TO_Y_UP) if model.up_axis == "Z" else np.eye(4)


def _assert_same_motion(original: Model, loaded: Model) -> None:
    """Posed vertices agree at TIMES; for 'matrices' clips only at the stored frames, since the player
    blends world matrices componentwise between frames where glTF slerps local TRS."""
    tolerance = 1e-5 * rest_extent(original)
    rotation = _up_rotation(original)
    for clip, loaded_clip in zip(original.clips, loaded.clips, strict=True):
        for time in clip.frame_times if clip.kind == "matrices" else TIMES:
            expected = posed_positions(original, evaluate(original, clip, time))
            expected = maths.transform_points(rotation, expected)
            actual = posed_positions(loaded, evaluate(loaded, loaded_clip, time))
            np.testing.assert_allclose(actual, expected, atol=tolerance, err_msg=f"{clip.name} at {time}")


# --- round trips --------------------------------------------------------------------------------

@pytest.mark.parametrize("up_axis", ["Y", "Z"])
@pytest.mark.parametrize("clips", ["keyed", "matrices", "vertex"])
@pytest.mark.parametrize("suffix", [".glb", ".gltf"])
def test_round_trip_posed_vertices(tmp_path, up_axis, clips, suffix):
    model = _model(up_axis, clips)
    path = tmp_path / f"model{suffix}"
    warnings = export_gltf(model, path)
    loaded = load([path])
    assert loaded.format == "gltf" and loaded.up_axis == "Y"
    assert [c.name for c in loaded.clips] == [c.name for c in model.clips]
    assert warnings == []
    rest_expected = maths.transform_points(_up_rotation(model), model.bind_positions)
    np.testing.assert_allclose(_rest(loaded), rest_expected, atol=1e-5 * rest_extent(model))
    _assert_same_motion(model, loaded)


def test_round_trip_keeps_structure(tmp_path):
    model = _model("Z")
    export_gltf(model, tmp_path / "model.glb")
    loaded = read(tmp_path / "model.glb")
    # The skinned mesh nodes "body" and "hat" move nothing, so they are not bones; the helper comes
    # back as a helper under its bone, not as an empty bone.
    assert loaded.skeleton.names == [UP_ROOT_NAME, "hip", "spine", "head"]
    assert loaded.skeleton.parents.tolist() == [-1, 0, 1, 2]
    assert [(helper.name, helper.parent) for helper in loaded.helpers] == [("tip", 3)]
    body = loaded.meshes[0]
    np.testing.assert_allclose(body.uvs, model.meshes[0].uvs, atol=1e-7)
    np.testing.assert_array_equal(body.triangles, model.meshes[0].triangles)
    assert body.material.texture == "skin.png" and body.material.name == "skin"
    np.testing.assert_allclose(body.material.base_color, (0.2, 0.4, 0.6, 1.0), atol=1e-7)
    np.testing.assert_allclose(rest_pose(loaded).helpers[0], maths.quat_to_matrix(Z_UP_TO_Y_UP)
                               @ model.skeleton.bind_world[2] @ maths.translation([0, 0.25, 0]), atol=1e-6)
    tracks = {(t.bone, t.interpolation) for t in loaded.clips[0].tracks}
    assert tracks == {(2, "linear"), (1, "linear"), (3, "step")}


def test_y_up_anchor_holds_rigid_vertices(tmp_path):
    model = _model("Y")
    export_gltf(model, tmp_path / "model.glb")
    loaded = read(tmp_path / "model.glb")
    assert loaded.skeleton.names[0] == ANCHOR_NAME and loaded.skeleton.parents[1] == 0
    rigid = loaded.meshes[0]
    assert rigid.joints[6, 0] == 0 and rigid.weights[6, 0] == 1


def test_embedded_buffer_and_extras(tmp_path):
    path = tmp_path / "embedded.gltf"
    export_gltf(_model("Z"), path, embed_buffer=True)
    document = json.loads(path.read_text())
    assert document["buffers"][0]["uri"].startswith("data:")
    assert document["asset"]["generator"] == "Boneyard"
    assert document["asset"]["extras"] == {"source_format": "test", "up_axis": "Z", "up_root": UP_ROOT_NAME,
                                           "unit": "unknown", "forward": "-Y"}
    assert not (tmp_path / "embedded.bin").exists()
    assert len(read(path).meshes) == 2


def test_inverse_bind_matrices_are_column_major(tmp_path):
    model = _model()
    export_gltf(model, tmp_path / "model.gltf")
    document = json.loads((tmp_path / "model.gltf").read_text())
    data = (tmp_path / "model.bin").read_bytes()
    accessor = document["accessors"][document["skins"][0]["inverseBindMatrices"]]
    view = document["bufferViews"][accessor["bufferView"]]
    flat = np.frombuffer(data, "<f4", 16 * accessor["count"], view.get("byteOffset", 0))
    first = flat[:16].reshape(4, 4).T  # glTF: columns first
    np.testing.assert_allclose(first, model.skeleton.bind_inverse[0], atol=1e-6)
    assert first[3].tolist() == [0, 0, 0, 1]


def test_pose_export_is_static_mesh(tmp_path):
    model = _model()
    posed = posed_positions(model, evaluate(model, model.clips[0], 0.8))
    assert export_gltf_pose(model, posed, tmp_path / "pose.glb") == []
    loaded = read(tmp_path / "pose.glb")
    assert list(loaded.clips) == [] and len(loaded.meshes) == 2
    np.testing.assert_allclose(loaded.bind_positions, posed, atol=1e-6)


def test_rest_pose_option_opens_posed(tmp_path):
    # The nodes rest at the pose while the skin binds at bind_world: the file opens posed. Read back,
    # its rest vertices are the posed ones and its bind vertices the model's, exactly, with no warning.
    model = _model()
    pose = evaluate(model, model.clips[0], 1.0)
    export_gltf(model, tmp_path / "posed.glb", pose=pose)
    loaded = read(tmp_path / "posed.glb")
    np.testing.assert_allclose(_rest(loaded), posed_positions(model, pose), atol=1e-5)
    np.testing.assert_allclose(loaded.bind_positions, model.bind_positions, atol=1e-6)
    assert list(loaded.warnings) == []


def test_sheared_matrices_clip_warns(tmp_path):
    model = _model(clips="matrices")
    world = model.clips[0].world.copy()
    shear = np.eye(4)
    shear[0, 1] = 0.5
    world[:, 2] = world[:, 2] @ shear
    model.clips = [Clip("sheared", "matrices", times=model.clips[0].times, world=world)]
    warnings = export_gltf(model, tmp_path / "sheared.glb")
    assert any("shear" in warning and "head" in warning for warning in warnings)


# --- hand-written files -------------------------------------------------------------------------

def _posed(model: Model, clip_index: int, time: float) -> np.ndarray:
    return posed_positions(model, evaluate(model, model.clips[clip_index], time))


def _rest(model: Model) -> np.ndarray:
    """(N, 3) the vertices with no clip playing."""
    return posed_positions(model, rest_pose(model))


POINTS = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
QUARTER_Z = [0.0, 0.0, np.sqrt(0.5), np.sqrt(0.5)]


def _skinned_document(skin: dict, joints: np.ndarray, weights: np.ndarray, samplers: list, channels: list,
                      extra_arrays: list) -> tuple[dict, list]:
    """Nodes: 0 = a parent translated (10, 0, 0) holding the skinned mesh node 1; joints 2 → 3 elsewhere."""
    document = {
        "scene": 0, "scenes": [{"nodes": [0, 2]}],
        "nodes": [{"translation": [10, 0, 0], "children": [1]}, {"mesh": 0, "skin": 0},
                  {"name": "j0", "translation": [1, 0, 0], "children": [3]},
                  {"name": "j1", "translation": [0, 1, 0]}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2},
                                    "mode": 0}]}],
        "skins": [skin],
        "animations": [{"samplers": samplers, "channels": channels}],
    }
    arrays = [(POINTS, "VEC3", 5126), (joints, "VEC4", 5121), (weights, "VEC4", 5126), *extra_arrays]
    return document, arrays


def test_skin_without_inverse_bind_matrices_linear_rotation(tmp_path):
    # Vertex 0 on j0, vertices 1, 2 on j1; the IBMs are identity, so a vertex's bind place is
    # world_rest(joint) @ p: j0 at (1, 0, 0), j1 at (1, 1, 0). j1 turns 90° about Z over one second.
    joints = np.array([[0, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]])
    weights = np.array([[1, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]])
    document, arrays = _skinned_document(
        {"joints": [2, 3]}, joints, weights,
        [{"input": 3, "output": 4}], [{"sampler": 0, "target": {"node": 3, "path": "rotation"}}],
        [(np.array([0.0, 1.0]), "SCALAR", 5126), (np.array([[0, 0, 0, 1], QUARTER_Z]), "VEC4", 5126)])
    model = read(write_gltf(tmp_path, document, arrays))
    assert model.meshes[0].triangles is None
    np.testing.assert_allclose(_rest(model), [[1, 0, 0], [2, 1, 0], [1, 1, 1]], atol=1e-6)
    np.testing.assert_allclose(_posed(model, 0, 1.0), [[1, 0, 0], [1, 2, 0], [1, 1, 1]], atol=1e-6)
    half = np.sqrt(0.5)
    np.testing.assert_allclose(_posed(model, 0, 0.5), [[1, 0, 0], [1 + half, 1 + half, 0], [1, 1, 1]],
                               atol=1e-6)


def test_step_sampler_and_zero_weight_joint_indices(tmp_path):
    # IBMs undo the joints' rest worlds, so bind positions are the file's; j0 steps +2 in x at t=1.
    # Vertex 1 carries an out-of-range joint index (7) with zero weight, which glTF allows.
    inverse_binds = np.stack([maths.translation([-1, 0, 0]), maths.translation([-1, -1, 0])])
    joints = np.array([[0, 7, 0, 0], [1, 7, 3, 0], [0, 1, 0, 0]])
    weights = np.array([[1, 0, 0, 0], [1, 0, 0, 0], [0.25, 0.75, 0, 0]])
    document, arrays = _skinned_document(
        {"joints": [2, 3], "inverseBindMatrices": 3}, joints, weights,
        [{"input": 4, "output": 5, "interpolation": "STEP"}],
        [{"sampler": 0, "target": {"node": 2, "path": "translation"}}],
        [(np.swapaxes(inverse_binds, 1, 2).reshape(-1, 16), "MAT4", 5126),
         (np.array([0.0, 1.0]), "SCALAR", 5126), (np.array([[1, 0, 0], [3, 0, 0]]), "VEC3", 5126)])
    model = read(write_gltf(tmp_path, document, arrays))
    assert model.clips[0].tracks[0].interpolation == "step"
    np.testing.assert_allclose(model.meshes[0].positions, POINTS, atol=1e-6)
    np.testing.assert_allclose(_posed(model, 0, 0.9), POINTS, atol=1e-6)
    np.testing.assert_allclose(_posed(model, 0, 1.0), POINTS + [2, 0, 0], atol=1e-6)


def test_cubic_spline_sampler_is_resampled(tmp_path):
    # Keys x=0 (out-tangent 2) at t=0 and x=1 (tangents 0) at t=1 on j0; Hermite at t=0.25:
    # h01 · 1 + h10 · 2 = 0.15625 + 2 · 0.140625 = 0.4375, at t=0.5: 0.5 + 2 · 0.125 = 0.75.
    joints = np.zeros((3, 4))
    weights = np.array([[1, 0, 0, 0]] * 3)
    triplets = np.array([[0, 0, 0], [0, 0, 0], [2, 0, 0], [0, 0, 0], [1, 0, 0], [0, 0, 0]])
    document, arrays = _skinned_document(
        {"joints": [2, 3], "inverseBindMatrices": 3}, joints, weights,
        [{"input": 4, "output": 5, "interpolation": "CUBICSPLINE"}],
        [{"sampler": 0, "target": {"node": 2, "path": "translation"}}],
        [(np.stack([np.eye(4)] * 2).reshape(-1, 16), "MAT4", 5126),
         (np.array([0.0, 1.0]), "SCALAR", 5126), (triplets, "VEC3", 5126)])
    model = read(write_gltf(tmp_path, document, arrays))
    for time, x in ((0.25, 0.4375), (0.5, 0.75), (1.0, 1.0)):
        np.testing.assert_allclose(_posed(model, 0, time), POINTS + [x, 0, 0], atol=1e-6)


def test_rigid_mesh_follows_its_node(tmp_path):
    # An unskinned triangle on node 1 (turned 90° about Z, under node 0 at (0, 0, 5)).
    document = {
        "nodes": [{"translation": [0, 0, 5], "children": [1]}, {"mesh": 0, "rotation": QUARTER_Z}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1}, "indices": 2,
                                    "material": 0}]}],
        "materials": [{"pbrMetallicRoughness": {"baseColorFactor": [1, 0.5, 0.25, 1]}}],
        "animations": [{"samplers": [{"input": 3, "output": 4}],
                        "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}],
    }
    arrays = [(POINTS, "VEC3", 5126), (np.array([[0, 0, 1.0]] * 3), "VEC3", 5126),
              (np.array([0, 1, 2]), "SCALAR", 5123), (np.array([0.0, 2.0]), "SCALAR", 5126),
              (np.array([[0, 0, 5], [0, 0, 9]]), "VEC3", 5126)]
    model = read(write_gltf(tmp_path, document, arrays))
    mesh = model.meshes[0]
    np.testing.assert_allclose(mesh.positions, [[0, 0, 5], [0, 1, 5], [0, 0, 6]], atol=1e-6)
    assert mesh.joints[:, 0].tolist() == [1, 1, 1] and mesh.material.base_color[:3] == (1.0, 0.5, 0.25)
    np.testing.assert_allclose(_posed(model, 0, 1.0), [[0, 0, 7], [0, 1, 7], [0, 0, 8]], atol=1e-6)


def test_second_influence_set_is_read(tmp_path):
    joints = np.array([[0, 0, 0, 0, 1, 0, 0, 0]] * 3)
    weights = np.array([[0.5, 0, 0, 0, 0.5, 0, 0, 0]] * 3)
    document, arrays = _skinned_document({"joints": [2, 3]}, joints[:, :4], weights[:, :4], [], [], [
        (joints[:, 4:], "VEC4", 5121), (weights[:, 4:], "VEC4", 5126)])
    document["meshes"][0]["primitives"][0]["attributes"].update(JOINTS_1=3, WEIGHTS_1=4)
    del document["animations"]
    model = read(write_gltf(tmp_path, document, arrays))
    assert model.meshes[0].joints.shape == (3, 4)  # the GPU limit; both sets were read
    np.testing.assert_allclose(_rest(model), POINTS + [1, 0.5, 0], atol=1e-6)


# --- which nodes become bones -------------------------------------------------------------------

def _quarter_z(angle: float) -> np.ndarray:
    return maths.axis_rotation("Z", np.array(angle))


def _beside_document(with_morph: bool) -> tuple[dict, list]:
    """Node 0 "body" carries the skinned mesh beside the skeleton root; its removal shifts the bones.

    Nodes: 0 body (mesh, skin; translated, which a skinned mesh ignores), 1 root at (1, 0, 0) with
    children 2 arm at (0, 2, 0) and 3 tip (an empty leaf, not a joint). Skin joints [1, 2], IBMs the
    inverse rest worlds. Animation: arm turns 90° about Z over one second, root moves +x by 3; with
    ``with_morph`` a morph target moves every vertex +z, its weight keyed 0 → 1 on node 0.
    """
    inverse_binds = np.stack([maths.translation([-1, 0, 0]), maths.translation([-1, -2, 0])])
    joints = np.array([[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0]])
    weights = np.array([[1, 0, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]])
    positions = np.array([[1.0, 0.5, 0.0], [1.5, 3.0, 0.0], [1.0, 2.0, 1.0]])
    arrays = [(positions, "VEC3", 5126), (joints, "VEC4", 5121), (weights, "VEC4", 5126),
              (np.swapaxes(inverse_binds, 1, 2).reshape(-1, 16), "MAT4", 5126),
              (np.array([0.0, 1.0]), "SCALAR", 5126), (np.array([[0, 0, 0, 1], QUARTER_Z]), "VEC4", 5126),
              (np.array([[1, 0, 0], [4, 0, 0]]), "VEC3", 5126)]
    primitive = {"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}, "mode": 0}
    samplers = [{"input": 4, "output": 5}, {"input": 4, "output": 6}]
    channels = [{"sampler": 0, "target": {"node": 2, "path": "rotation"}},
                {"sampler": 1, "target": {"node": 1, "path": "translation"}}]
    mesh = {"name": "body", "primitives": [primitive]}
    if with_morph:
        arrays += [(np.array([[0, 0, 1.0]] * 3), "VEC3", 5126), (np.array([0.0, 0.5, 1.0]), "SCALAR", 5126),
                   (np.array([0.0, 0.5, 1.0]), "SCALAR", 5126)]
        primitive["targets"] = [{"POSITION": 7}]
        mesh["weights"] = [0.0]
        samplers.append({"input": 8, "output": 9})
        channels.append({"sampler": 2, "target": {"node": 0, "path": "weights"}})
    document = {
        "scene": 0, "scenes": [{"nodes": [0, 1]}],
        "nodes": [{"name": "body", "mesh": 0, "skin": 0, "translation": [0, 0, 7]},
                  {"name": "root", "translation": [1, 0, 0], "children": [2, 3]},
                  {"name": "arm", "translation": [0, 2, 0]},
                  {"name": "tip", "translation": [0, 0, 1]}],
        "meshes": [mesh], "skins": [{"joints": [1, 2], "inverseBindMatrices": 3}],
        "animations": [{"name": "move", "samplers": samplers, "channels": channels}],
    }
    return document, arrays


def _expected_beside(time: float, morph_weight: float = 0.0) -> np.ndarray:
    """The posed vertices of ``_beside_document`` by hand: Σ w · W_joint(t) · IBM_joint · p."""
    fraction = min(max(time, 0.0), 1.0)
    root = maths.translation([1 + 3 * fraction, 0, 0])
    arm = root @ maths.translation([0, 2, 0]) @ _quarter_z(np.pi / 2 * fraction)
    skin = [root @ maths.translation([-1, 0, 0]), arm @ maths.translation([-1, -2, 0])]
    positions = np.array([[1.0, 0.5, 0.0], [1.5, 3.0, 0.0], [1.0, 2.0, 1.0]]) + [0, 0, morph_weight]
    weights = [[1, 0], [0, 1], [0.5, 0.5]]
    return np.array([sum(w * (skin[j] @ np.append(p, 1))[:3] for j, w in enumerate(row))
                     for p, row in zip(positions, weights)])


def test_skinned_mesh_node_is_not_a_bone(tmp_path):
    model = read(write_gltf(tmp_path, *_beside_document(with_morph=False)))
    # Two joints plus the empty leaf "tip"; node 0 "body" is dropped and the others shift down one.
    assert model.skeleton.names == ["root", "arm", "tip"]
    assert len(model.skeleton) == 2 + 1
    assert model.skeleton.parents.tolist() == [-1, 0, 0]
    np.testing.assert_allclose(model.skeleton.bind_world[2], maths.translation([1, 0, 1]), atol=1e-9)
    mesh = model.meshes[0]
    assert mesh.name == "body"
    assert mesh.joints[mesh.weights != 0].tolist() == [0, 1, 0, 1]
    assert {track.bone for track in model.clips[0].tracks} == {0, 1}
    np.testing.assert_allclose(mesh.positions, _expected_beside(0.0), atol=1e-6)
    for time in (0.0, 0.25, 0.5, 1.0):
        np.testing.assert_allclose(_posed(model, 0, time), _expected_beside(time), atol=1e-6,
                                   err_msg=f"at {time}")


def test_morphed_skinned_mesh_node_is_not_a_bone(tmp_path):
    # A "weights" channel on the mesh node does not make it a bone; the morph clip still finds it.
    model = read(write_gltf(tmp_path, *_beside_document(with_morph=True)))
    assert model.skeleton.names == ["root", "arm", "tip"]
    clip = model.clips[0]
    assert clip.motion == "skeletal" and [channel.mesh for channel in clip.weight_channels] == [0]
    np.testing.assert_allclose(clip.frame_times, [0.0, 0.5, 1.0])
    for time, weight in ((0.0, 0.0), (0.5, 0.5), (1.0, 1.0)):
        np.testing.assert_allclose(_posed(model, 0, time), _expected_beside(time, weight), atol=1e-6,
                                   err_msg=f"at {time}")


def test_rigidly_bound_mesh_nodes_stay_bones(tmp_path):
    # Node 2 "prop" has an unskinned mesh; node 3 "mixed" has a skin but its primitive has no
    # JOINTS_0: both bind vertices rigidly to themselves, so both stay bones. Node 0 is dropped.
    document = {
        "nodes": [{"name": "skinned", "mesh": 0, "skin": 0}, {"name": "root"},
                  {"name": "prop", "mesh": 1, "translation": [0, 0, 3]},
                  {"name": "mixed", "mesh": 1, "skin": 0, "translation": [0, 5, 0]}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2},
                                    "mode": 0}]},
                   {"primitives": [{"attributes": {"POSITION": 0}, "mode": 0}]}],
        "skins": [{"joints": [1]}],
    }
    arrays = [(POINTS, "VEC3", 5126), (np.zeros((3, 4)), "VEC4", 5121),
              (np.array([[1, 0, 0, 0]] * 3), "VEC4", 5126)]
    model = read(write_gltf(tmp_path, document, arrays))
    assert model.skeleton.names == ["root", "prop", "mixed"]
    assert model.skeleton.parents.tolist() == [-1, -1, -1]
    skinned, prop, mixed = model.meshes
    assert skinned.joints[:, 0].tolist() == [0, 0, 0]
    assert prop.joints[:, 0].tolist() == [1, 1, 1] and mixed.joints[:, 0].tolist() == [2, 2, 2]
    np.testing.assert_allclose(prop.positions, POINTS + [0, 0, 3], atol=1e-6)
    np.testing.assert_allclose(mixed.positions, POINTS + [0, 5, 0], atol=1e-6)


def test_demo_bones_are_the_joints():
    from app import loading, resources
    model = loading.load([resources.asset_path("demo.glb")])
    assert model.skeleton.names == [
        "pelvis", "spine", "chest", "neck", "head", "upperarm_l", "forearm_l", "hand_l", "thigh_l",
        "shin_l", "foot_l", "upperarm_r", "forearm_r", "hand_r", "thigh_r", "shin_r", "foot_r"]
    assert len(model.skeleton) == 17
    assert all(mesh.joints[mesh.weights != 0].max() < 17 for mesh in model.meshes)
    assert all(track.bone < 17 for clip in model.clips for track in clip.tracks)


# --- malformed files ----------------------------------------------------------------------------

def _triangle_document(**primitive) -> dict:
    return {"nodes": [{"mesh": 0}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, **primitive}]}]}


def test_truncated_glb(tmp_path):
    export_gltf(_model(), tmp_path / "model.glb")
    data = (tmp_path / "model.glb").read_bytes()
    for length in (0, 3, 12, 19, 40, len(data) // 2, len(data) - 1):
        (tmp_path / "cut.glb").write_bytes(data[:length] if length else b"glTF")
        with pytest.raises(ReadError, match="cut.glb"):
            read(tmp_path / "cut.glb")


def test_damaged_glb_raises_only_read_error(tmp_path):
    export_gltf(_model(), tmp_path / "model.glb")
    data = np.frombuffer((tmp_path / "model.glb").read_bytes(), np.uint8)
    rng = np.random.default_rng(1)
    for _ in range(150):
        damaged = data.copy()
        spots = rng.integers(0, len(data), 4)
        damaged[spots] = rng.integers(0, 256, 4)
        (tmp_path / "damaged.glb").write_bytes(damaged.tobytes())
        try:
            read(tmp_path / "damaged.glb")
        except ReadError:
            pass


@pytest.mark.parametrize("table, field, value, message", [
    ("accessors", "count", 4000, r"accessors\[0\].*4000 elements"),
    ("bufferViews", "byteOffset", 8, r"bufferViews\[0\] spans"),
], ids=["accessor", "view"])
def test_reach_past_buffer_end(tmp_path, table, field, value, message):
    path = write_gltf(tmp_path, _triangle_document(), [(POINTS, "VEC3", 5126)])
    document = json.loads(path.read_text())
    document[table][0][field] = value
    path.write_text(json.dumps(document))
    with pytest.raises(ReadError, match=message):
        read(path)


def test_index_out_of_range(tmp_path):
    path = write_gltf(tmp_path, _triangle_document(indices=1),
                  [(POINTS, "VEC3", 5126), (np.array([0, 1, 99]), "SCALAR", 5123)])
    with pytest.raises(ReadError, match=r"indices: index 2 is 99, outside 0..2"):
        read(path)


def test_wrong_accessor_type(tmp_path):
    path = write_gltf(tmp_path, _triangle_document(), [(POINTS[:, :2], "VEC2", 5126)])
    with pytest.raises(ReadError, match=r"POSITION \(accessors\[0\]\): expected type VEC3"):
        read(path)


def test_nan_position(tmp_path):
    points = POINTS.copy()
    points[1, 2] = np.nan
    with pytest.raises(ReadError, match="element 1 is not finite"):
        read(write_gltf(tmp_path, _triangle_document(), [(points, "VEC3", 5126)]))


@pytest.mark.parametrize("children, message", [
    ([[1], [0]], "cycle"), ([[1], [], [1]], "already a child"), ([[0]], "itself"), ([[5]], "outside")])
def test_bad_children(tmp_path, children, message):
    path = tmp_path / "nodes.gltf"
    path.write_text(json.dumps({"asset": {"version": "2.0"}, "nodes": [{"children": c} for c in children]}))
    with pytest.raises(ReadError, match=message):
        read(path)


@pytest.mark.parametrize("text, message", [
    ('{"asset": {"version": "2.0"}, "nodes": [', "bad JSON"),
    ('{"asset": {"version": "2.0"}, "nodes": [{"translation": "up"}]}', "glTF schema"),
    ('{"asset": {"version": "2.0"}, "nodes": [{"translation": [1, 2]}]}', r"nodes\[0\].translation"),
    ('{"asset": {"version": "2.0"}, "nodes": [{"mesh": 3}]}', r"nodes\[0\].mesh"),
    ('{"asset": {"version": "2.0"}, "buffers": [{"byteLength": 4, "uri": "missing.bin"}]}', "missing.bin"),
])
def test_bad_documents(tmp_path, text, message):
    path = tmp_path / "bad.gltf"
    path.write_text(text)
    with pytest.raises(ReadError, match=message):
        read(path)


# --- the Khronos validator ----------------------------------------------------------------------

VALIDATE_JS = """
const fs = require('fs');
const path = require('path');
const folder = path.dirname(process.argv[1]);
require('gltf-validator').validateBytes(new Uint8Array(fs.readFileSync(process.argv[1])), {
    externalResourceFunction: (uri) => new Promise((resolve, reject) => fs.readFile(
        path.join(folder, decodeURIComponent(uri)), (error, data) => error ? reject(error) : resolve(data)))})
  .then(r => console.log(JSON.stringify(r.issues)))
  .catch(e => { console.error(String(e)); process.exit(1); });
"""


def _validator_available() -> bool:
    if shutil.which("node") is None:
        return False
    probe = subprocess.run(["node", "-e", "require.resolve('gltf-validator')"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not _validator_available(),
                    reason="needs node and the npm package gltf-validator "
                           "(set NODE_PATH to its node_modules)")
@pytest.mark.parametrize("up_axis", ["Y", "Z"])
@pytest.mark.parametrize("clips", ["keyed", "matrices", "vertex"])
def test_khronos_validator_finds_no_errors(tmp_path, up_axis, clips):
    path = tmp_path / "model.glb"
    Image.new("RGB", (2, 2), (200, 120, 90)).save(tmp_path / "skin.png")
    export_gltf(_model(up_axis, clips), path)
    result = subprocess.run(["node", "-e", VALIDATE_JS, str(path)], capture_output=True, text=True,
                            env=dict(os.environ), timeout=120)
    assert result.returncode == 0, result.stderr
    issues = json.loads(result.stdout)
    assert issues["numErrors"] == 0, issues["messages"]
    assert issues["numWarnings"] == 0, issues["messages"]
    # Infos left: the texture is referenced by file name beside the GLB (URI_GLB), a helper is a
    # node with nothing attached (NODE_EMPTY), uvs of untextured meshes go unused (UNUSED_OBJECT).
    assert {m["code"] for m in issues["messages"]} <= {"URI_GLB", "NODE_EMPTY", "UNUSED_OBJECT"}, \
        issues["messages"]


def test_asset_extras_record_the_source_unit(tmp_path):
    """NWN states metres (glTF's unit, nothing scaled); BonesPro files carry the scene's own unit."""
    from tests.demo_formats import write_bonespro, write_nwn

    from app.resources import demo_paths

    demo = load(demo_paths())
    for write, unit in ((write_nwn, "metre"), (write_bonespro, "unknown")):
        out = tmp_path / f"{unit}.gltf"
        export_gltf(load(write(demo, tmp_path)), out, embed_buffer=True)
        assert json.loads(out.read_text())["asset"]["extras"]["unit"] == unit
