"""A hand-built glTF of a skinned, morphed mesh with bone and weight animation, and an independent
evaluation of what the glTF 2.0 specification says it looks like at any instant (its own slerp,
Hermite curve and skinning sum, none of them the application's).

Nodes: 0 "body" (the mesh, skin 0), 1 "root", 2 "arm" (child of root, 1 up +Y). The mesh is two
triangles of four vertices weighted between root and arm, with two targets (POSITION and NORMAL
deltas) named "smile" and "blink", default weights (0.25, 0). Animations:

- "wave": arm rotation about Z (LINEAR) and both weights (LINEAR), keys at 0, 0.5, 1.25 s;
- "smile": the weights only, CUBICSPLINE, keys at 0 and 1 s;
- "hop": root translation (STEP) at 0 and 1 s, and the weights (STEP) at 0 and 0.625 s.

Every key time is one float32 holds exactly, so a STEP key takes effect at its own time.
"""

from __future__ import annotations

import numpy as np

BASE = np.array([[0.1, 0.0, 0.0], [1.3, 0.0, 0.1], [0.1, 2.1, 0.0], [1.3, 2.1, 0.3]])
NORMALS = np.array([[0.0, 0.0, 1.0]] * 4)
TARGETS = np.array([[[0.0, 0.0, 0.1], [0.0, 0.0, 0.3], [0.1, 0.0, 0.0], [0.0, 0.2, 0.7]],
                    [[0.3, 0.0, 0.0], [0.0, -0.1, 0.0], [0.0, 0.0, -0.2], [0.1, 0.1, 0.1]]])
NORMAL_TARGETS = np.array([[[0.1, 0.0, 0.0]] * 4, [[0.0, 0.1, 0.0]] * 4])
DEFAULTS = np.array([0.25, 0.0])
#: Each vertex's weight on root and on arm.
SKIN_WEIGHTS = np.array([[1.0, 0.0], [0.7, 0.3], [0.2, 0.8], [0.0, 1.0]])
ARM_OFFSET = np.array([0.0, 1.0, 0.0])

WAVE_TIMES = np.array([0.0, 0.5, 1.25])
WAVE_ANGLES = np.radians([0.0, 40.0, 100.0])
WAVE_WEIGHTS = np.array([[0.0, 0.0], [1.0, 0.5], [0.2, 1.0]])
SMILE_TIMES = np.array([0.0, 1.0])
#: Per key: in-tangent, value, out-tangent (glTF's CUBICSPLINE layout).
SMILE_KEYS = np.array([[[0.0, 0.0], [0.0, 0.0], [2.0, -1.0]],
                       [[0.5, 1.0], [1.0, 0.5], [0.0, 0.0]]])
HOP_TIMES, HOP_LIFTS = np.array([0.0, 1.0]), np.array([[0.0, 0.0, 0.0], [0.0, 0.5, 0.0]])
HOP_WEIGHT_TIMES, HOP_WEIGHTS = np.array([0.0, 0.625]), np.array([[0.0, 1.0], [1.0, 0.0]])


def quaternion_about_z(angle: float) -> np.ndarray:
    return np.array([0.0, 0.0, np.sin(angle / 2), np.cos(angle / 2)])


def morph_rig_document() -> tuple[dict, list]:
    """The document and its accessors (for ``tests.writers.gltf_writer.write_gltf``)."""
    rotations = np.array([quaternion_about_z(angle) for angle in WAVE_ANGLES])
    inverse_binds = np.stack([np.eye(4), np.eye(4)])
    inverse_binds[1, 1, 3] = -1.0
    arrays = [
        (BASE, "VEC3", 5126), (NORMALS, "VEC3", 5126),
        (np.array([[0, 1, 0, 0]] * 4), "VEC4", 5121),
        (np.pad(SKIN_WEIGHTS, ((0, 0), (0, 2))), "VEC4", 5126),
        (np.array([0, 1, 2, 1, 3, 2]), "SCALAR", 5123),
        (TARGETS[0], "VEC3", 5126), (NORMAL_TARGETS[0], "VEC3", 5126),
        (TARGETS[1], "VEC3", 5126), (NORMAL_TARGETS[1], "VEC3", 5126),
        (np.swapaxes(inverse_binds, 1, 2).reshape(-1, 16), "MAT4", 5126),           # 9
        (WAVE_TIMES, "SCALAR", 5126), (rotations, "VEC4", 5126),                    # 10, 11
        (WAVE_WEIGHTS.ravel(), "SCALAR", 5126),                                     # 12
        (SMILE_TIMES, "SCALAR", 5126), (SMILE_KEYS.ravel(), "SCALAR", 5126),        # 13, 14
        (HOP_TIMES, "SCALAR", 5126), (HOP_LIFTS, "VEC3", 5126),                     # 15, 16
        (HOP_WEIGHT_TIMES, "SCALAR", 5126), (HOP_WEIGHTS.ravel(), "SCALAR", 5126),  # 17, 18
    ]
    primitive = {"attributes": {"POSITION": 0, "NORMAL": 1, "JOINTS_0": 2, "WEIGHTS_0": 3}, "indices": 4,
                 "targets": [{"POSITION": 5, "NORMAL": 6}, {"POSITION": 7, "NORMAL": 8}]}
    document = {
        "scenes": [{"nodes": [0, 1]}], "scene": 0,
        "nodes": [{"name": "body", "mesh": 0, "skin": 0}, {"name": "root", "children": [2]},
                  {"name": "arm", "translation": ARM_OFFSET.tolist()}],
        "meshes": [{"name": "body", "primitives": [primitive], "weights": DEFAULTS.tolist(),
                    "extras": {"targetNames": ["smile", "blink"]}}],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": 9}],
        "animations": [
            {"name": "wave", "samplers": [{"input": 10, "output": 11}, {"input": 10, "output": 12}],
             "channels": [{"sampler": 0, "target": {"node": 2, "path": "rotation"}},
                          {"sampler": 1, "target": {"node": 0, "path": "weights"}}]},
            {"name": "smile", "samplers": [{"input": 13, "output": 14, "interpolation": "CUBICSPLINE"}],
             "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}]},
            {"name": "hop", "samplers": [{"input": 15, "output": 16, "interpolation": "STEP"},
                                         {"input": 17, "output": 18, "interpolation": "STEP"}],
             "channels": [{"sampler": 0, "target": {"node": 1, "path": "translation"}},
                          {"sampler": 1, "target": {"node": 0, "path": "weights"}}]},
        ],
    }
    return document, arrays


# --- the specification's evaluation, written out ------------------------------------------------

def _segment(times: np.ndarray, time: float) -> tuple[int, float]:
    """The key at or before ``time`` (clamped) and the fraction to the next."""
    if time <= times[0]:
        return 0, 0.0
    if time >= times[-1]:
        return len(times) - 1, 0.0
    key = max(k for k in range(len(times)) if times[k] <= time)
    return key, (time - times[key]) / (times[key + 1] - times[key])


def _slerp_angle_about_z(angles: np.ndarray, times: np.ndarray, time: float) -> float:
    """Slerp between keyed turns about one axis is linear in the angle (turns under 180° apart)."""
    key, fraction = _segment(times, time)
    if fraction == 0.0:
        return float(angles[key])
    return float(angles[key] + fraction * (angles[key + 1] - angles[key]))


def _linear(values: np.ndarray, times: np.ndarray, time: float) -> np.ndarray:
    key, fraction = _segment(times, time)
    if fraction == 0.0:
        return values[key]
    return (1 - fraction) * values[key] + fraction * values[key + 1]


def _step(values: np.ndarray, times: np.ndarray, time: float) -> np.ndarray:
    return values[_segment(times, time)[0]]


def _cubic(keys: np.ndarray, times: np.ndarray, time: float) -> np.ndarray:
    """glTF Appendix C: p(t) = (2t³−3t²+1)v_k + t_d(t³−2t²+t)b_k + (−2t³+3t²)v_k+1 + t_d(t³−t²)a_k+1."""
    key, t = _segment(times, time)
    if t == 0.0:
        return keys[key, 1]
    span = times[key + 1] - times[key]
    return ((2 * t**3 - 3 * t**2 + 1) * keys[key, 1] + span * (t**3 - 2 * t**2 + t) * keys[key, 2]
            + (-2 * t**3 + 3 * t**2) * keys[key + 1, 1] + span * (t**3 - t**2) * keys[key + 1, 0])


def _turn_z(angle: float) -> np.ndarray:
    matrix = np.eye(4)
    matrix[:2, :2] = [[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]]
    return matrix


def _move(offset) -> np.ndarray:
    matrix = np.eye(4)
    matrix[:3, 3] = offset
    return matrix


def expected_state(clip: str | None, time: float) -> tuple[np.ndarray, np.ndarray]:
    """(4, 3) the posed vertices and (2,) the morph weights at ``time`` of ``clip`` (None: at rest)."""
    angle, lift, weights = 0.0, np.zeros(3), DEFAULTS
    if clip == "wave":
        angle = _slerp_angle_about_z(WAVE_ANGLES, WAVE_TIMES, time)
        weights = _linear(WAVE_WEIGHTS, WAVE_TIMES, time)
    elif clip == "smile":
        weights = _cubic(SMILE_KEYS, SMILE_TIMES, time)
    elif clip == "hop":
        lift = _step(HOP_LIFTS, HOP_TIMES, time)
        weights = _step(HOP_WEIGHTS, HOP_WEIGHT_TIMES, time)
    root = _move(lift)
    arm = root @ _move(ARM_OFFSET) @ _turn_z(angle)
    joints = [root, arm @ _move(-ARM_OFFSET)]
    morphed = BASE + weights[0] * TARGETS[0] + weights[1] * TARGETS[1]
    homogeneous = np.concatenate([morphed, np.ones((4, 1))], axis=1)
    posed = sum(SKIN_WEIGHTS[:, [j]] * (homogeneous @ joints[j].T) for j in range(2))
    return posed[:, :3], np.asarray(weights, dtype=np.float64)


#: Instants to compare: every key and points between keys.
INSTANTS = {"wave": [0.0, 0.2, 0.5, 0.8, 1.25, 2.0], "smile": [0.0, 0.25, 0.5, 0.9, 1.0],
            "hop": [0.0, 0.3, 0.625, 0.9, 1.0, 1.5]}
