"""Builds the built-in demo character, ``assets/demo.glb``.

A 17-bone humanoid (Y up, metres, facing +Z) with a skinned body of rounded tubes, one per bone,
weights blending smoothly into the parent and child bone near every joint, and two clips: a walk
cycle and an idle. Run ``make demo`` (or this file) after changing it; the .glb is committed.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app import maths  # noqa: E402
from app.export.gltf import export_gltf  # noqa: E402
from app.model import Clip, Material, Mesh, Model, Skeleton, Track  # noqa: E402

#: The body's colour as seen (sRGB); glTF stores base colours in linear light.
SKIN_SRGB = (0.72, 0.62, 0.52)
#: Points around each tube and rings along it.
AROUND, ALONG = 28, 22
#: How far (fraction of the bone) the weights blend into the neighbouring bone at each joint.
BLEND = 0.3


@dataclass(frozen=True)
class BoneSpec:
    name: str
    parent: str | None
    head: tuple[float, float, float]
    tail: tuple[float, float, float]
    radius: tuple[float, float]  # across X-ish and across Z-ish
    overlap: float = 0.04  # how far the tube reaches past head and tail


def _limbs(side: str, sign: float) -> list[BoneSpec]:
    x = sign
    return [
        BoneSpec(f"upperarm_{side}", "chest", (0.19 * x, 1.45, 0), (0.25 * x, 1.18, 0), (0.05, 0.05)),
        BoneSpec(f"forearm_{side}", f"upperarm_{side}", (0.25 * x, 1.18, 0), (0.29 * x, 0.93, 0.02),
                 (0.042, 0.042)),
        BoneSpec(f"hand_{side}", f"forearm_{side}", (0.29 * x, 0.93, 0.02), (0.31 * x, 0.80, 0.03),
                 (0.025, 0.045)),
        BoneSpec(f"thigh_{side}", "pelvis", (0.1 * x, 0.93, 0), (0.1 * x, 0.52, 0.01), (0.08, 0.08)),
        BoneSpec(f"shin_{side}", f"thigh_{side}", (0.1 * x, 0.52, 0.01), (0.1 * x, 0.1, -0.01),
                 (0.06, 0.06)),
        BoneSpec(f"foot_{side}", f"shin_{side}", (0.1 * x, 0.1, -0.01), (0.1 * x, 0.04, 0.17),
                 (0.045, 0.05), overlap=0.05),
    ]


BONES: list[BoneSpec] = [
    BoneSpec("pelvis", None, (0, 0.95, 0), (0, 1.08, 0), (0.16, 0.11), overlap=0.08),
    BoneSpec("spine", "pelvis", (0, 1.08, 0), (0, 1.28, 0), (0.14, 0.1)),
    BoneSpec("chest", "spine", (0, 1.28, 0), (0, 1.48, 0), (0.18, 0.11)),
    BoneSpec("neck", "chest", (0, 1.48, 0), (0, 1.58, 0.01), (0.05, 0.05)),
    BoneSpec("head", "neck", (0, 1.58, 0.01), (0, 1.8, 0.02), (0.095, 0.105), overlap=0.02),
    *_limbs("l", 1.0),
    *_limbs("r", -1.0),
]


def build_skeleton() -> Skeleton:
    names = [bone.name for bone in BONES]
    parents = [names.index(bone.parent) if bone.parent else -1 for bone in BONES]
    heads = np.array([bone.head for bone in BONES], dtype=float)
    tails = np.array([bone.tail for bone in BONES], dtype=float)
    return Skeleton(names=names, parents=parents, bind_world=maths.translation(heads), heads=heads,
                    tails=tails, derived_tails=np.zeros(len(BONES), bool))


def _tube(bone: BoneSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A closed rounded tube around one bone: positions (V, 3), triangles (T, 3) and each
    vertex's position along the bone, 0 at the head and 1 at the tail (V,)."""
    head, tail = np.array(bone.head), np.array(bone.tail)
    axis, _ = maths.normalize(tail - head)
    side, _ = maths.normalize(np.cross(axis, [0.0, 0.0, 1.0]) if abs(axis[2]) < 0.9 else
                              np.cross(axis, [1.0, 0.0, 0.0]))
    other = np.cross(axis, side)
    length = np.linalg.norm(tail - head)
    start = -bone.overlap / length
    end = 1 + bone.overlap / length
    rings = np.linspace(start, end, ALONG + 2)[1:-1]
    # A superellipse profile: flat along the middle, closing round at both ends.
    centred = (rings - start) / (end - start) * 2 - 1
    profile = (1 - np.abs(centred) ** 4) ** 0.25
    angles = np.linspace(0, 2 * np.pi, AROUND, endpoint=False)
    ring_points = (np.cos(angles)[:, None] * side * bone.radius[0]
                   + np.sin(angles)[:, None] * other * bone.radius[1])
    body = (head + rings[:, None, None] * (tail - head)
            + profile[:, None, None] * ring_points[None]).reshape(-1, 3)
    poles = np.array([head + start * (tail - head), head + end * (tail - head)])
    positions = np.concatenate([body, poles])
    along = np.concatenate([np.repeat(rings, AROUND), [start, end]])
    return positions, _tube_triangles(), along


def _tube_triangles() -> np.ndarray:
    """Counter-clockwise triangles (seen from outside) of a tube of ALONG rings and two poles."""
    ring = np.arange(AROUND)
    nxt = (ring + 1) % AROUND
    rows = np.arange(ALONG - 1)[:, None] * AROUND
    quads_a = np.stack([rows + ring, rows + nxt, rows + AROUND + nxt], axis=-1).reshape(-1, 3)
    quads_b = np.stack([rows + ring, rows + AROUND + nxt, rows + AROUND + ring], axis=-1).reshape(-1, 3)
    bottom, top = ALONG * AROUND, ALONG * AROUND + 1
    last = (ALONG - 1) * AROUND
    cap_start = np.stack([np.full(AROUND, bottom), nxt, ring], axis=-1)
    cap_end = np.stack([np.full(AROUND, top), last + ring, last + nxt], axis=-1)
    return np.concatenate([quads_a, quads_b, cap_start, cap_end])


def _weights(bone_index: int, along: np.ndarray, skeleton: Skeleton) -> tuple[np.ndarray, np.ndarray]:
    """(V, 2) joints and weights: the bone itself, blended 50/50 at each joint into the neighbour
    (its parent near the head, its single child near the tail)."""
    parent = int(skeleton.parents[bone_index])
    children = np.flatnonzero(skeleton.parents == bone_index)
    child = int(children[0]) if len(children) == 1 else -1
    joints = np.zeros((len(along), 2), np.int32)
    weights = np.zeros((len(along), 2), np.float32)
    joints[:, 0] = bone_index
    weights[:, 0] = 1.0
    if parent >= 0:
        near_head = np.clip(0.5 * (1 - along / BLEND), 0, 0.5)
        joints[near_head > 0, 1] = parent
        weights[:, 1] = np.where(near_head > 0, near_head, 0)
    if child >= 0:
        near_tail = np.clip(0.5 * (1 - (1 - along) / BLEND), 0, 0.5)
        mask = near_tail > 0
        joints[mask, 1] = child
        weights[mask, 1] = near_tail[mask]
    weights[:, 0] = 1 - weights[:, 1]
    return joints, weights


def build_body(skeleton: Skeleton) -> Mesh:
    positions, triangles, joints, weights = [], [], [], []
    offset = 0
    for index, bone in enumerate(BONES):
        tube_positions, tube_triangles, along = _tube(bone)
        tube_joints, tube_weights = _weights(index, along, skeleton)
        positions.append(tube_positions)
        triangles.append(tube_triangles + offset)
        joints.append(tube_joints)
        weights.append(tube_weights)
        offset += len(tube_positions)
    mesh = Mesh("body", positions=np.concatenate(positions), joints=np.concatenate(joints),
                weights=np.concatenate(weights), triangles=np.concatenate(triangles),
                material=Material(name="skin", base_color=(*_srgb_to_linear(SKIN_SRGB), 1.0)))
    return Mesh("body", positions=mesh.positions, joints=mesh.joints, weights=mesh.weights,
                triangles=mesh.triangles, normals=mesh.smooth_normals, material=mesh.material)


def _srgb_to_linear(color: tuple[float, ...]) -> tuple[float, ...]:
    rgb = np.asarray(color, dtype=np.float64)
    return tuple(np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4).round(4).tolist())


def _rotation_track(skeleton: Skeleton, name: str, times: np.ndarray, axis, degrees: np.ndarray) -> Track:
    quaternions = maths.quat_from_axis_angle(np.broadcast_to(axis, (len(times), 3)), np.radians(degrees))
    return Track(skeleton.index(name), rotation=(times, quaternions))


def build_walk(skeleton: Skeleton) -> Clip:
    """A one-second in-place walk cycle keyed at 12 even steps (first key = last key)."""
    times = np.linspace(0.0, 1.0, 13)
    phase = 2 * np.pi * times
    swing = np.sin(phase)
    x_axis, y_axis, z_axis = (1, 0, 0), (0, 1, 0), (0, 0, 1)
    tracks = [
        # Positive rotation about +X swings a hanging limb backwards (toward −Z).
        _rotation_track(skeleton, "thigh_l", times, x_axis, -28 * swing),
        _rotation_track(skeleton, "thigh_r", times, x_axis, 28 * swing),
        _rotation_track(skeleton, "shin_l", times, x_axis, 30 * np.clip(np.sin(phase + 1.9), 0, None) + 4),
        _rotation_track(skeleton, "shin_r", times, x_axis, 30 * np.clip(np.sin(phase + 1.9 + np.pi), 0, None) + 4),
        _rotation_track(skeleton, "foot_l", times, x_axis, -10 * np.sin(phase + 0.8)),
        _rotation_track(skeleton, "foot_r", times, x_axis, 10 * np.sin(phase + 0.8)),
        _rotation_track(skeleton, "upperarm_l", times, x_axis, 22 * swing),
        _rotation_track(skeleton, "upperarm_r", times, x_axis, -22 * swing),
        _rotation_track(skeleton, "forearm_l", times, x_axis, -18 - 10 * np.clip(swing, 0, None)),
        _rotation_track(skeleton, "forearm_r", times, x_axis, -18 - 10 * np.clip(-swing, 0, None)),
        _rotation_track(skeleton, "spine", times, y_axis, 6 * swing),
        _rotation_track(skeleton, "chest", times, y_axis, -9 * swing),
        _rotation_track(skeleton, "head", times, z_axis, 2 * np.sin(2 * phase)),
    ]
    pelvis = skeleton.index("pelvis")
    bob = np.stack([np.zeros_like(times), 0.95 - 0.025 * np.cos(2 * phase), np.zeros_like(times)], axis=-1)
    tracks.append(Track(pelvis, translation=(times, bob),
                        rotation=(times, maths.quat_from_axis_angle(np.broadcast_to(z_axis, (13, 3)),
                                                                    np.radians(3 * swing)))))
    return Clip("walk", "keyed", tracks=tracks)


def build_idle(skeleton: Skeleton) -> Clip:
    """A three-second breathing idle: chest and head sway, arms settle."""
    times = np.linspace(0.0, 3.0, 7)
    breath = np.sin(2 * np.pi * times / 3.0)
    x_axis, y_axis, z_axis = (1, 0, 0), (0, 1, 0), (0, 0, 1)
    tracks = [
        _rotation_track(skeleton, "chest", times, x_axis, -3 * breath),
        _rotation_track(skeleton, "spine", times, z_axis, 1.5 * breath),
        _rotation_track(skeleton, "neck", times, y_axis, 8 * np.sin(2 * np.pi * times / 3.0 + 1)),
        _rotation_track(skeleton, "head", times, x_axis, 4 * breath),
        _rotation_track(skeleton, "upperarm_l", times, z_axis, 4 + 2 * breath),
        _rotation_track(skeleton, "upperarm_r", times, z_axis, -4 - 2 * breath),
        _rotation_track(skeleton, "forearm_l", times, x_axis, -12 + 3 * breath),
        _rotation_track(skeleton, "forearm_r", times, x_axis, -12 + 3 * breath),
    ]
    return Clip("idle", "keyed", tracks=tracks)


def build_demo() -> Model:
    skeleton = build_skeleton()
    return Model("Boneyard demo", skeleton, meshes=[build_body(skeleton)],
                 clips=[build_walk(skeleton), build_idle(skeleton)], format="demo", up_axis="Y")


def main() -> None:
    target = Path(__file__).resolve().parent / "demo.glb"
    warnings = export_gltf(build_demo(), target)
    for warning in warnings:
        print(f"warning: {warning}")
    print(f"wrote {target} ({target.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
