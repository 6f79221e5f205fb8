"""glTF import edge cases not covered by test_gltf.py, on hand-written files with hand-computed values.

Covered here: CUBICSPLINE with a key interval other than one second (tangents scale by it) and on
rotations (normalised after the Hermite blend); STEP rotations; STEP morph weights and animated weights
replacing the rest weights; a skinned mesh under an animated, transformed parent with its joints
under a rotated, animated node that is not a joint; zero-weight joint lanes naming valid joints
(animated ones, and ones whose inverse bind disagrees with the rest pose); normalised UNSIGNED_BYTE
weights with UNSIGNED_SHORT joints; non-indexed triangles that are not a multiple of three.
"""

from __future__ import annotations

import numpy as np

from app.pose import evaluate, posed_positions
from tests.helpers import read_gltf as read, rotation_z, translation
from tests.writers.gltf_writer import write_gltf

HALF = np.sqrt(0.5)
#: Quaternions (x, y, z, w).
IDENTITY = [0.0, 0.0, 0.0, 1.0]
QUARTER_X = [HALF, 0.0, 0.0, HALF]
QUARTER_Z = [0.0, 0.0, HALF, HALF]
HALF_TURN_Z = [0.0, 0.0, 1.0, 0.0]
#: The same rotations as matrices, written out.
RX90 = np.array([[1.0, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]])
RZ90 = np.array([[0.0, -1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
POINTS = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 1.0]])
#: A mesh of skinned points: accessors 0 (POSITION), 1 (JOINTS_0), 2 (WEIGHTS_0).
SKINNED_POINTS = {"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}, "mode": 0}]}


def one_animated_node(tmp_path, path: str, interpolation: str, times, values):
    """A single node "mover" with one sampler on ``path``."""
    document = {"nodes": [{"name": "mover"}],
                "animations": [{"samplers": [{"input": 0, "output": 1, "interpolation": interpolation}],
                                "channels": [{"sampler": 0, "target": {"node": 0, "path": path}}]}]}
    kind = "VEC4" if path == "rotation" else "VEC3"
    return read(write_gltf(tmp_path, document, [(np.array(times, float), "SCALAR", 5126),
                                           (np.array(values, float), kind, 5126)]))


def world_at(model, time: float, bone: int = 0) -> np.ndarray:
    return evaluate(model, model.clips[0], time).world[bone]


# --- samplers -------------------------------------------------------------------------------------

def test_cubic_spline_tangents_scale_with_the_key_interval(tmp_path):
    # x keys (in-tangent a, value v, out-tangent b per second): t=0 v=0 b=1; t=2 a=0 v=1 b=4; t=3 a=0 v=3.
    # p(s) = h00·v0 + h10·Δt·b0 + h01·v1 + h11·Δt·a1 with s = (t − t0)/Δt:
    #   t=0.5 (Δt=2, s=¼): h10 = 9/64, h01 = 5/32 → 5/32 + 2·9/64 = 0.4375 (0.296875 ignoring Δt)
    #   t=1   (s=½):      h10 = 1/8,  h01 = ½    → ½ + 2·⅛ = 0.75
    #   t=2.5 (Δt=1, s=½): h00·1 + h10·4 + h01·3 = ½ + ½ + 1.5 = 2.5
    triplets = [[0, 0, 0], [0, 0, 0], [1, 0, 0],
                [0, 0, 0], [1, 0, 0], [4, 0, 0],
                [0, 0, 0], [3, 0, 0], [0, 0, 0]]
    model = one_animated_node(tmp_path, "translation", "CUBICSPLINE", [0.0, 2.0, 3.0], triplets)
    for time, x in ((0.0, 0.0), (0.5, 0.4375), (1.0, 0.75), (2.0, 1.0), (2.5, 2.5), (3.0, 3.0), (4.0, 3.0)):
        np.testing.assert_allclose(world_at(model, time), translation(x, 0, 0), atol=1e-6,
                                   err_msg=f"t={time}")


def test_cubic_spline_rotation_is_normalised(tmp_path):
    # Identity at t=0 to a half turn about Z at t=1, zero tangents. The blend is h00·q0 + h01·q1, then
    # normalised: at s=½ (0, 0, ½, ½) → a quarter turn; at s=¼ (0, 0, 5/32, 27/32) → 2·atan(5/27).
    zero = [0.0, 0.0, 0.0, 0.0]
    model = one_animated_node(tmp_path, "rotation", "CUBICSPLINE", [0.0, 1.0],
                              [zero, IDENTITY, zero, zero, HALF_TURN_Z, zero])
    np.testing.assert_allclose(world_at(model, 0.5), RZ90, atol=1e-6)
    np.testing.assert_allclose(world_at(model, 0.25), rotation_z(2 * np.arctan(5 / 27)), atol=1e-6)
    np.testing.assert_allclose(world_at(model, 1.0), rotation_z(np.pi), atol=1e-6)


def test_step_rotation_holds_until_the_next_key(tmp_path):
    model = one_animated_node(tmp_path, "rotation", "STEP", [0.0, 1.0, 2.0],
                              [IDENTITY, QUARTER_Z, HALF_TURN_Z])
    assert model.clips[0].tracks[0].interpolation == "step"
    for time, angle in ((0.0, 0.0), (0.99, 0.0), (1.0, np.pi / 2), (1.5, np.pi / 2), (2.0, np.pi),
                        (5.0, np.pi)):
        np.testing.assert_allclose(world_at(model, time), rotation_z(angle), atol=1e-6, err_msg=f"t={time}")


# --- morph weights --------------------------------------------------------------------------------

def morph_document(interpolation: str, rest_weights: list | None) -> tuple[dict, list]:
    """An unskinned point mesh with one target moving every vertex +1 in z; weights keyed on node 0."""
    mesh = {"primitives": [{"attributes": {"POSITION": 0}, "targets": [{"POSITION": 1}], "mode": 0}]}
    if rest_weights is not None:
        mesh["weights"] = rest_weights
    document = {"nodes": [{"name": "blob", "mesh": 0}], "meshes": [mesh],
                "animations": [{"name": "pulse",
                                "samplers": [{"input": 2, "output": 3, "interpolation": interpolation}],
                                "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}]}]}
    arrays = [(POINTS, "VEC3", 5126), (np.array([[0, 0, 1.0]] * 3), "VEC3", 5126),
              (np.array([0.0, 1.0, 2.0]), "SCALAR", 5126), (np.array([0.0, 1.0, 0.5]), "SCALAR", 5126)]
    return document, arrays


def test_step_morph_weights_hold_until_the_next_key(tmp_path):
    model = read(write_gltf(tmp_path, *morph_document("STEP", None)))
    clip = model.clips[0]
    assert clip.motion == "morph" and clip.weight_channels[0].interpolation == "step"
    for time, weight in ((0.0, 0.0), (0.5, 0.0), (0.999, 0.0), (1.0, 1.0), (1.5, 1.0), (1.99, 1.0),
                         (2.0, 0.5), (3.0, 0.5)):
        np.testing.assert_allclose(posed_positions(model, evaluate(model, clip, time)),
                                   POINTS + [0, 0, weight], atol=1e-6, err_msg=f"t={time}")


def test_animated_weights_replace_the_rest_weights(tmp_path):
    # The mesh rests at weight 0.25 (its bind positions include it); the animation's 0 at t=0 and 1 at
    # t=1 are the weights themselves, not added to the rest weight.
    model = read(write_gltf(tmp_path, *morph_document("LINEAR", [0.25])))
    np.testing.assert_allclose(model.meshes[0].positions, POINTS + [0, 0, 0.25], atol=1e-6)
    for time, weight in ((0.0, 0.0), (0.5, 0.5), (1.0, 1.0), (1.5, 0.75)):
        np.testing.assert_allclose(posed_positions(model, evaluate(model, model.clips[0], time)),
                                   POINTS + [0, 0, weight], atol=1e-6, err_msg=f"t={time}")


def test_node_weights_override_the_mesh_weights(tmp_path):
    document, arrays = morph_document("LINEAR", [0.25])
    document["nodes"][0]["weights"] = [1.0]
    model = read(write_gltf(tmp_path, document, arrays))
    np.testing.assert_allclose(model.meshes[0].positions, POINTS + [0, 0, 1.0], atol=1e-6)


# --- skins ----------------------------------------------------------------------------------------

def test_skinned_mesh_under_an_animated_parent_with_joints_under_a_rotated_node(tmp_path):
    # Nodes: 0 "armature" (translation (0, 0, 5), a quarter turn about X; not a joint) with children
    # 1 "body" (the skinned mesh, translated (3, 0, 0)) and 2 "j0" at (0, 1, 0) → 3 "j1" at (0, 1, 0).
    # Rest worlds: j0 = T(0, 0, 5) Rx90 T(0, 1, 0), j1 = j0 T(0, 1, 0); the IBMs are their inverses, so
    # the bind positions are the file's. Per the glTF spec the skinned mesh's own node transform (and
    # its parent's) are ignored: only the joints place vertices. Animation over one second: armature
    # moves to (0, 0, 9) (its joints follow), body moves to (100, 0, 0) (nothing follows), j1 turns a
    # quarter about its Z.
    rest_j0 = translation(0, 0, 5) @ RX90 @ translation(0, 1, 0)
    rest_j1 = rest_j0 @ translation(0, 1, 0)
    inverse_binds = np.stack([np.linalg.inv(rest_j0), np.linalg.inv(rest_j1)])
    positions = np.array([[0.0, 0.0, 6.0], [0.5, -0.2, 7.0], [0.0, 0.5, 6.5]])
    joints = np.array([[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0]])
    weights = np.array([[1, 0, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]])
    document = {
        "scene": 0, "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "armature", "translation": [0, 0, 5], "rotation": QUARTER_X, "children": [1, 2]},
                  {"name": "body", "mesh": 0, "skin": 0, "translation": [3, 0, 0]},
                  {"name": "j0", "translation": [0, 1, 0], "children": [3]},
                  {"name": "j1", "translation": [0, 1, 0]}],
        "meshes": [SKINNED_POINTS],
        "skins": [{"joints": [2, 3], "inverseBindMatrices": 3}],
        "animations": [{"name": "move", "samplers": [{"input": 4, "output": 5}, {"input": 4, "output": 6},
                                                     {"input": 4, "output": 7}],
                        "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}},
                                     {"sampler": 1, "target": {"node": 1, "path": "translation"}},
                                     {"sampler": 2, "target": {"node": 3, "path": "rotation"}}]}],
    }
    arrays = [(positions, "VEC3", 5126), (joints, "VEC4", 5121), (weights, "VEC4", 5126),
              (np.swapaxes(inverse_binds, 1, 2).reshape(-1, 16), "MAT4", 5126),
              (np.array([0.0, 1.0]), "SCALAR", 5126), (np.array([[0, 0, 5], [0, 0, 9.0]]), "VEC3", 5126),
              (np.array([[3, 0, 0], [100, 0, 0.0]]), "VEC3", 5126),
              (np.array([IDENTITY, QUARTER_Z]), "VEC4", 5126)]
    model = read(write_gltf(tmp_path, document, arrays))
    assert not model.warnings
    np.testing.assert_allclose(model.meshes[0].positions, positions, atol=1e-6)

    def expected(time: float) -> np.ndarray:
        time = min(max(time, 0.0), 1.0)  # the last key holds
        armature = translation(0, 0, 5 + 4 * time) @ RX90
        j0 = armature @ translation(0, 1, 0)
        j1 = j0 @ translation(0, 1, 0) @ rotation_z(np.pi / 2 * time)
        skins = [j0 @ inverse_binds[0], j1 @ inverse_binds[1]]
        points = np.hstack([positions, np.ones((3, 1))])
        return np.array([(skins[0] @ points[0])[:3], (skins[1] @ points[1])[:3],
                         (0.5 * skins[0] @ points[2] + 0.5 * skins[1] @ points[2])[:3]])

    # At t=1, vertex 1 (on j1), by hand: its offset from j1's rest head (0, 0, 7) is (0.5, −0.2, 0);
    # in j1's frame (Rx90⁻¹) that is (0.5, 0, 0.2), turned a quarter about Z → (0, 0.5, 0.2), back
    # through Rx90 → (0, −0.2, 0.5), plus the moved head (0, 0, 11): (0, −0.2, 11.5).
    np.testing.assert_allclose(expected(1.0)[1], [0.0, -0.2, 11.5], atol=1e-12)
    for time in (0.0, 0.25, 0.5, 1.0, 2.0):
        np.testing.assert_allclose(posed_positions(model, evaluate(model, model.clips[0], time)),
                                   expected(time), atol=1e-5, err_msg=f"t={time}")


def test_zero_weight_lanes_naming_real_joints_change_nothing(tmp_path):
    # Joints j0 (rest at (1, 0, 0)) and j1 (rest at (0, 5, 0), turned a half turn over one second).
    # j1's inverse bind is the identity, which disagrees with its rest pose: harmless, since every
    # lane naming j1 has weight 0, and the disagreement warning must not fire either. Lanes (joint
    # weight): vertex 0 [j0 1, j1 0, j1 0, j1 0]; vertex 1 [j1 0, j0 1, j1 0, j0 0]; vertex 2
    # [j1 0, j1 0, j0 1, j1 0].
    joints = np.array([[0, 1, 1, 1], [1, 0, 1, 0], [1, 1, 0, 1]])
    weights = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]])
    inverse_binds = np.stack([translation(-1, 0, 0), np.eye(4)])
    document = {
        "nodes": [{"name": "body", "mesh": 0, "skin": 0}, {"name": "j0", "translation": [1, 0, 0]},
                  {"name": "j1", "translation": [0, 5, 0]}],
        "meshes": [SKINNED_POINTS],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": 3}],
        "animations": [{"samplers": [{"input": 4, "output": 5}, {"input": 4, "output": 6}],
                        "channels": [{"sampler": 0, "target": {"node": 2, "path": "rotation"}},
                                     {"sampler": 1, "target": {"node": 1, "path": "translation"}}]}],
    }
    arrays = [(POINTS, "VEC3", 5126), (joints, "VEC4", 5121), (weights, "VEC4", 5126),
              (np.swapaxes(inverse_binds, 1, 2).reshape(-1, 16), "MAT4", 5126),
              (np.array([0.0, 1.0]), "SCALAR", 5126), (np.array([IDENTITY, HALF_TURN_Z]), "VEC4", 5126),
              (np.array([[1, 0, 0], [1, 0, 2.0]]), "VEC3", 5126)]
    model = read(write_gltf(tmp_path, document, arrays))
    assert not any("bind pose" in warning for warning in model.warnings), model.warnings
    np.testing.assert_allclose(model.meshes[0].positions, POINTS, atol=1e-6)  # j0 rest @ IBM = identity
    # Only j0 moves the vertices: +2 in z over the second, whatever j1 does.
    for time in (0.0, 0.5, 1.0):
        np.testing.assert_allclose(posed_positions(model, evaluate(model, model.clips[0], time)),
                                   POINTS + [0, 0, 2 * time], atol=1e-6, err_msg=f"t={time}")


def test_normalised_byte_weights_and_short_joints(tmp_path):
    # WEIGHTS_0 as normalised UNSIGNED_BYTE (128/255 and 127/255), JOINTS_0 as UNSIGNED_SHORT; no IBMs.
    # j0 at the origin, j1 at (0, 0, 0) turned a quarter about Z at t=1: a vertex p on both moves to
    # 128/255 · p + 127/255 · Rz90 p.
    document = {
        "nodes": [{"name": "body", "mesh": 0, "skin": 0}, {"name": "j0"}, {"name": "j1"}],
        "meshes": [SKINNED_POINTS],
        "skins": [{"joints": [1, 2]}],
        "animations": [{"samplers": [{"input": 3, "output": 4}],
                        "channels": [{"sampler": 0, "target": {"node": 2, "path": "rotation"}}]}],
    }
    arrays = [(POINTS, "VEC3", 5126), (np.array([[0, 1, 0, 0]] * 3), "VEC4", 5123),
              (np.array([[128, 127, 0, 0]] * 3), "VEC4", 5121, True),
              (np.array([0.0, 1.0]), "SCALAR", 5126), (np.array([IDENTITY, QUARTER_Z]), "VEC4", 5126)]
    model = read(write_gltf(tmp_path, document, arrays))
    np.testing.assert_allclose(model.meshes[0].weights[:, :2], [[128 / 255, 127 / 255]] * 3, atol=1e-7)
    turned = POINTS @ RZ90[:3, :3].T
    np.testing.assert_allclose(posed_positions(model, evaluate(model, model.clips[0], 1.0)),
                               128 / 255 * POINTS + 127 / 255 * turned, atol=1e-6)


def test_non_indexed_triangles_not_a_multiple_of_three(tmp_path):
    # Four vertices drawn as TRIANGLES without indices: one triangle, the fourth vertex left over.
    points = np.vstack([POINTS, [[5.0, 5.0, 5.0]]])
    document = {"nodes": [{"mesh": 0}], "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}]}
    model = read(write_gltf(tmp_path, document, [(points, "VEC3", 5126)]))
    assert model.meshes[0].triangles.tolist() == [[0, 1, 2]] and model.meshes[0].vertex_count == 4
    assert any("not a multiple of 3" in warning for warning in model.warnings)
