"""C3DE-style characters for the retargeting tests, built by hand: loose numbered bones (every one a
root, identity bind frames), a skin of rings weighted to two bones at each joint, and a walk whose
skinning matrices come from a forward-kinematics pass written here, independently of app/.

A figure is drawn Y-up facing +Z (its left is +X) and may be turned into other axes: ``axes`` maps
those canonical axes to the model's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.model import Clip, Mesh, Model, Skeleton

#: The bones in canonical order, each with its parent (canonical indices).
PARTS = ["pelvis", "spine", "head", "thigh.L", "shin.L", "foot.L", "thigh.R", "shin.R", "foot.R"]
PARENTS = [-1, 0, 1, 0, 3, 4, 0, 6, 7]
FEET = (PARTS.index("foot.L"), PARTS.index("foot.R"))
#: Canonical (Y-up, facing +Z) to Z-up facing +X, as the ninja: X → Y, Y → Z, Z → X.
Z_UP_FACING_X = np.array([[0.0, 0, 1], [1, 0, 0], [0, 1, 0]])
RING_POINTS = 6
ANKLE_HEIGHT = 0.08


@dataclass
class Figure:
    """joints (9, 3) and ends (9, 3) in canonical axes; thigh and shin lengths."""

    joints: np.ndarray
    ends: np.ndarray
    thigh: float
    shin: float

    @property
    def leg(self) -> float:
        return self.thigh + self.shin


def figure(thigh=0.45, shin=0.45, torso=0.4, hips=0.15, foot=0.14) -> Figure:
    """A figure whose joints lie further apart than the skin's rings reach (docs: CONTACT_SHARE), so
    that where two skins meet is their joint."""
    pelvis = np.array([0.0, ANKLE_HEIGHT + thigh + shin, 0.0])
    joints = np.zeros((9, 3))
    joints[0] = pelvis
    joints[1] = pelvis + (0, 0.25, 0)
    joints[2] = joints[1] + (0, torso, 0)
    for side, start in ((1, 3), (-1, 6)):
        joints[start] = pelvis + (side * hips, 0, 0)
        joints[start + 1] = joints[start] - (0, thigh, 0)
        joints[start + 2] = joints[start + 1] - (0, shin, 0)
    ends = joints[[1, 2, 2, 4, 5, 5, 7, 8, 8]].copy()
    ends[2] = joints[2] + (0, 0.25, 0)
    for foot_bone in FEET:
        ends[foot_bone] = joints[foot_bone] + (0, -ANKLE_HEIGHT, foot)
    return Figure(joints, ends, thigh, shin)


def _ring(centre: np.ndarray, direction: np.ndarray, radius: float) -> np.ndarray:
    """(RING_POINTS, 3) points around ``centre`` across ``direction``; their mean is ``centre``."""
    direction = direction / np.linalg.norm(direction)
    helper = np.array([1.0, 0, 0]) if abs(direction[0]) < 0.9 else np.array([0, 1.0, 0])
    first = np.cross(direction, helper)
    first /= np.linalg.norm(first)
    second = np.cross(direction, first)
    angles = np.arange(RING_POINTS) * 2 * np.pi / RING_POINTS
    return centre + radius * (np.cos(angles)[:, None] * first + np.sin(angles)[:, None] * second)


def skin(shape: Figure, radius=0.05) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Canonical positions (V, 3), bones (V, 2) and weights (V, 2): at each bone's joint a ring
    weighted half to it and half to its parent (the root's: all to it), then two rings along the
    bone all its own, and a ring at a leaf's end."""
    positions, bones, weights = [], [], []
    for bone, parent in enumerate(PARENTS):
        start, end = shape.joints[bone], shape.ends[bone]
        rings = [(0.0, (bone, parent if parent >= 0 else bone), (0.5, 0.5) if parent >= 0 else (1.0, 0.0)),
                 (0.35, (bone, bone), (1.0, 0.0)), (0.7, (bone, bone), (1.0, 0.0))]
        if bone not in PARENTS:
            rings.append((1.0, (bone, bone), (1.0, 0.0)))
        for share, pair, weight in rings:
            positions.append(_ring(start + share * (end - start), end - start, radius))
            bones += [pair] * RING_POINTS
            weights += [weight] * RING_POINTS
    return np.concatenate(positions), np.array(bones), np.array(weights)


def _turn(axis, angle) -> np.ndarray:
    axis = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k


def walk_turns(frames: int) -> np.ndarray:
    """(F, 9, 3, 3) each bone's turn relative to its parent (canonical axes) over one walk cycle:
    thighs swing about the hips' axis and spread a little, knees and ankles bend, the spine sways."""
    turns = np.repeat(np.eye(3)[None, None], frames, axis=0).repeat(9, axis=1)
    for frame in range(frames):
        phase = 2 * np.pi * frame / frames
        swing = 0.45 * np.sin(phase)
        turns[frame, 0] = _turn((0, 1, 0), 0.08 * np.sin(phase))
        turns[frame, 1] = _turn((1, 0, 0), 0.1 * np.sin(2 * phase)) @ _turn((0, 1, 0), 0.12 * np.sin(phase))
        turns[frame, 2] = _turn((0, 1, 0), 0.1 * np.cos(phase))
        for thigh, sign in ((3, 1), (6, -1)):
            spread = _turn((0, 0, 1), sign * 0.05 * (1 + np.cos(phase)))
            turns[frame, thigh] = _turn((1, 0, 0), -sign * swing) @ spread
            turns[frame, thigh + 1] = _turn((1, 0, 0), 0.7 * max(0.0, -sign * np.sin(phase + 0.6)))
            turns[frame, thigh + 2] = _turn((1, 0, 0), -0.25 * np.sin(phase + sign))
    return turns


def posed_frames(shape: Figure, turns: np.ndarray, travel: float) -> np.ndarray:
    """(F, 9, 4, 4) each bone's posed frame G_b (canonical axes, origin at its joint): the root moves
    ``travel`` forward over the cycle and up or down so that the lower ankle rests at its bind
    height."""
    frames = len(turns)
    posed = np.zeros((frames, 9, 4, 4))
    posed[..., 3, 3] = 1.0
    for bone, parent in enumerate(PARENTS):
        if parent < 0:
            posed[:, bone, :3, :3] = turns[:, bone]
            posed[:, bone, :3, 3] = shape.joints[bone]
        else:
            offset = shape.joints[bone] - shape.joints[parent]
            posed[:, bone, :3, :3] = posed[:, parent, :3, :3] @ turns[:, bone]
            posed[:, bone, :3, 3] = posed[:, parent, :3, 3] + posed[:, parent, :3, :3] @ offset
    lowest = posed[:, list(FEET), 1, 3].min(axis=1)
    posed[:, :, 1, 3] += (ANKLE_HEIGHT - lowest)[:, None]
    posed[:, :, 2, 3] += (travel * np.arange(frames) / frames)[:, None]
    return posed


def skinning(shape: Figure, posed: np.ndarray) -> np.ndarray:
    """(F, 9, 4, 4) ``G_b @ inv(T(joint_b))``: what moves a bind-space point with bone b."""
    to_joint = np.repeat(np.eye(4)[None], 9, axis=0)
    to_joint[:, :3, 3] = -shape.joints
    return posed @ to_joint


def loose_model(shape: Figure, name: str, order=tuple(range(9)), axes=np.eye(3), skinning_frames=None,
                fps=30.0, scale=1.0) -> Model:
    """A C3DE-style model of ``shape`` (its skin ``scale`` times as large): bone i of the file is
    canonical bone ``order[i]``, every bone a root named ``bone i`` with the identity as bind frame,
    the skin turned into ``axes``, and a clip of ``skinning_frames`` (canonical, (F, 9, 4, 4)) when
    given."""
    order = list(order)
    file_index = np.argsort(order)
    positions, bones, weights = skin(shape)
    positions = scale * positions @ axes.T
    mesh = Mesh(name, positions=positions, joints=file_index[bones], weights=weights)
    heads = np.array([positions[(bones == bone).any(axis=1)].mean(axis=0) for bone in order])
    skeleton = Skeleton(names=[f"bone {i}" for i in range(9)], parents=np.full(9, -1),
                        bind_world=np.repeat(np.eye(4)[None], 9, axis=0), heads=heads,
                        tails=heads + (0, 0, 0.1), derived_tails=np.ones(9, bool))
    clips = []
    if skinning_frames is not None:
        clips.append(Clip("walk", "matrices", times=np.arange(len(skinning_frames)) / fps,
                          world=in_axes(skinning_frames, axes)[:, order]))
    up = "Y" if axes[1, 1] == 1 else "Z"
    return Model(name, skeleton, meshes=[mesh], clips=clips, format="c3de", up_axis=up,
                 forward="+Z" if up == "Y" else "+X")


def in_axes(matrices: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """(…, 4, 4) canonical matrices seen in the model's axes: A M Aᵀ."""
    turn = np.eye(4)
    turn[:3, :3] = axes
    return turn @ matrices @ turn.T
