"""Tiny hand-built models for the render tests, the benchmark and visual checks."""

from __future__ import annotations

import numpy as np

from app import maths
from app.model import Clip, Material, Mesh, Model, Skeleton, Track
from app.pose import Pose, pose_from_world

#: Cube corners and faces: 6 faces × 4 corners, each face with its outward normal.
_FACE_AXES = np.array([[0, 1, 2], [0, 2, 1], [1, 2, 0]])


def box(low, high) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A flat-shaded box between corners (3,): positions (24, 3), normals (24, 3), triangles (12, 3)."""
    low, high = np.asarray(low, float), np.asarray(high, float)
    square = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    positions, normals, triangles = [], [], []
    for u, v, w in _FACE_AXES:
        for side in (0.0, 1.0):
            corners = np.zeros((4, 3))
            corners[:, u], corners[:, v], corners[:, w] = square[:, 0], square[:, 1], side
            normal = np.zeros(3)
            normal[w] = 1.0 if side else -1.0
            order = [0, 1, 2, 3] if np.cross(np.eye(3)[u], np.eye(3)[v])[w] * normal[w] > 0 else [0, 3, 2, 1]
            base = len(positions) * 4
            positions.append(low + corners[order] * (high - low))
            normals.append(np.repeat(normal[None], 4, axis=0))
            triangles += [[base, base + 1, base + 2], [base, base + 2, base + 3]]
    return np.concatenate(positions), np.concatenate(normals), np.array(triangles)


#: name, parent, head, tail, box half-widths (across the bone) — a Z-up figure facing −Y.
_HUMANOID = [
    ("hips", -1, (0, 0, 0.95), (0, 0, 1.15), (0.16, 0.10)),
    ("chest", 0, (0, 0, 1.15), (0, 0, 1.45), (0.19, 0.11)),
    ("head", 1, (0, 0, 1.5), (0, 0, 1.78), (0.10, 0.11)),
    ("arm.L", 1, (0.22, 0, 1.42), (0.50, 0, 1.42), (0.05, 0.05)),
    ("forearm.L", 3, (0.50, 0, 1.42), (0.76, 0, 1.42), (0.045, 0.045)),
    ("arm.R", 1, (-0.22, 0, 1.42), (-0.50, 0, 1.42), (0.05, 0.05)),
    ("forearm.R", 5, (-0.50, 0, 1.42), (-0.76, 0, 1.42), (0.045, 0.045)),
    ("thigh.L", 0, (0.10, 0, 0.95), (0.10, 0, 0.50), (0.07, 0.07)),
    ("shin.L", 7, (0.10, 0, 0.50), (0.10, 0, 0.06), (0.055, 0.055)),
    ("thigh.R", 0, (-0.10, 0, 0.95), (-0.10, 0, 0.50), (0.07, 0.07)),
    ("shin.R", 9, (-0.10, 0, 0.50), (-0.10, 0, 0.06), (0.055, 0.055)),
    ("foot.L", 8, (0.10, 0, 0.06), (0.10, -0.18, 0.0), (0.05, 0.03)),
    ("foot.R", 10, (-0.10, 0, 0.06), (-0.10, -0.18, 0.0), (0.05, 0.03)),
]


def _frames(heads: np.ndarray, tails: np.ndarray) -> np.ndarray:
    """(B, 4, 4) bind frames: translation at the head, +Y along the bone (Blender's convention)."""
    y_axes, _ = maths.normalize(tails - heads)
    helper = np.where(np.abs(y_axes[:, 2:3]) > 0.9, [[1.0, 0.0, 0.0]], [[0.0, 0.0, 1.0]])
    x_axes, _ = maths.normalize(np.cross(y_axes, helper))
    frames = np.repeat(np.eye(4)[None], len(heads), axis=0)
    frames[:, :3, 0], frames[:, :3, 1], frames[:, :3, 2] = x_axes, y_axes, np.cross(x_axes, y_axes)
    frames[:, :3, 3] = heads
    return frames


def humanoid(up_axis: str = "Z", with_mesh: bool = True) -> Model:
    """A box figure, 1.78 tall, facing the front (−Y for Z-up, +Z for Y-up), one box per bone."""
    names = [row[0] for row in _HUMANOID]
    parents = np.array([row[1] for row in _HUMANOID])
    heads = np.array([row[2] for row in _HUMANOID], float)
    tails = np.array([row[3] for row in _HUMANOID], float)
    widths = np.array([row[4] for row in _HUMANOID], float)
    bind = _frames(heads, tails)
    if up_axis == "Y":
        # The same figure turned to glTF's axes, bone rolls included, so poses carry over.
        to_y_up = np.eye(4)
        to_y_up[:3, :3] = [[1.0, 0, 0], [0, 0, 1.0], [0, -1.0, 0]]
        heads, tails = maths.transform_points(to_y_up, heads), maths.transform_points(to_y_up, tails)
        bind = to_y_up @ bind
    meshes = []
    if with_mesh:
        positions, normals, triangles, joints = [], [], [], []
        for bone, (frame, head, tail, (across, deep)) in enumerate(zip(bind, heads, tails, widths)):
            length = np.linalg.norm(tail - head)
            local, local_normals, faces = box((-across, 0.0, -deep), (across, length, deep))
            triangles.append(faces + sum(len(p) for p in positions))
            positions.append(maths.transform_points(frame, local))
            normals.append(local_normals @ frame[:3, :3].T)
            joints.append(np.full(len(local), bone))
        meshes.append(Mesh(name="body", positions=np.concatenate(positions), normals=np.concatenate(normals),
                           joints=np.concatenate(joints)[:, None],
                           weights=np.ones((sum(map(len, joints)), 1)),
                           triangles=np.concatenate(triangles),
                           material=Material(base_color=(0.75, 0.62, 0.52, 1.0))))
    skeleton = Skeleton(names=names, parents=parents, bind_world=bind, heads=heads, tails=tails,
                        derived_tails=np.zeros(len(names), bool))
    return Model(name="humanoid", skeleton=skeleton, meshes=meshes, up_axis=up_axis)


def world_with_turns(model: Model, turns: dict[str, tuple[str, float]]) -> np.ndarray:
    """(B, 4, 4) the bind pose with each named bone turned about an axis of its own frame by an angle
    (radians), its children carried along."""
    skeleton = model.skeleton
    local = skeleton.bind_local.copy()
    for name, (axis, angle) in turns.items():
        bone = skeleton.index(name)
        local[bone] = local[bone] @ maths.axis_rotation(axis, angle)
    world = local.copy()
    for level in skeleton.levels[1:]:
        world[level] = world[skeleton.parents[level]] @ local[level]
    return world


def wave_pose(model: Model) -> Pose:
    """The figure with its right arm raised and its left knee bent (world matrices composed)."""
    turns = {"arm.R": ("Z", 1.1), "forearm.R": ("X", 0.9), "shin.L": ("X", -0.8), "chest": ("Y", 0.25)}
    return pose_from_world(model, world_with_turns(model, turns))


def repeated_clip(clip: Clip, seconds: float = 60.0, fps: float = 30.0, name: str = "long") -> Clip:
    """A keyed ``clip``'s keys played over and over, one key every 1/fps s, for ``seconds``: a long
    clip of real motion (each channel's keys in turn, whatever their own times were)."""
    count = int(seconds * fps) + 1
    times = np.arange(count) / fps
    tracks = []
    for track in clip.tracks:
        channels = {channel: (times, keys[1][np.arange(count) % len(keys[1])])
                    for channel in ("translation", "rotation", "scale")
                    if (keys := getattr(track, channel)) is not None}
        tracks.append(Track(track.bone, interpolation=track.interpolation, **channels))
    return Clip(name, "keyed", tracks=tracks)


def skinned_chain(count: int, length: float = 0.1) -> Model:
    """``count`` bones in a row along +X, each moving four vertices of its own around its middle."""
    bind = np.tile(np.eye(4), (count, 1, 1))
    bind[:, 0, 3] = np.arange(count) * length
    heads = bind[:, :3, 3].copy()
    skeleton = Skeleton(names=[f"seg{i}" for i in range(count)], parents=np.arange(count) - 1,
                        bind_world=bind, heads=heads, tails=heads + [length, 0, 0],
                        derived_tails=np.zeros(count, bool))
    ring = np.array([[-0.015, 0.02, 0.02], [-0.005, -0.02, 0.02],
                     [0.005, -0.02, -0.02], [0.015, 0.02, -0.02]])
    positions = (heads[:, None] + [length / 2, 0, 0] + ring).reshape(-1, 3)
    owners = np.repeat(np.arange(count), 4)
    quads = np.arange(count)[:, None] * 4
    triangles = np.concatenate([quads + [0, 1, 2], quads + [0, 2, 3]])
    mesh = Mesh("tube", positions=positions.astype(np.float32), joints=np.stack([owners, owners], axis=1),
                weights=np.tile(np.float32([1, 0]), (len(owners), 1)), triangles=triangles)
    return Model(f"chain{count}", skeleton, meshes=[mesh])
