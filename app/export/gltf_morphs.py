"""Morph targets for the glTF writer: each mesh's own targets, written once, then one target per
frame of every exported 'vertex' clip; and the weights that play them.

A mesh's POSITION is its base (``Mesh.positions`` less its default weights' deltas) and ``mesh.weights``
its defaults, as glTF has them. A keyed clip's weight channels are written as they are keyed (STEP,
LINEAR, or CUBICSPLINE with their tangents), the vertex-clip targets at 0; a vertex clip's channel
holds the mesh's own targets at their defaults and steps one-hot from frame to frame, linearly.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pygltflib as gl

from app import maths
from app.model import Clip, Mesh
from app.skin_weights import top_influences

#: glTF's name of each WeightChannel interpolation.
INTERPOLATIONS = {"linear": "LINEAR", "step": "STEP", "cubic": "CUBICSPLINE"}


def frame_count(clips: list[Clip]) -> int:
    """The frame targets of these vertex clips."""
    return sum(len(clip.times) for clip in clips)


def own_count(mesh: Mesh) -> int:
    """How many targets of its own ``mesh`` has."""
    return 0 if mesh.morphs is None else mesh.morphs.count


def base_positions(mesh: Mesh) -> np.ndarray:
    """(V, 3) the positions glTF's POSITION holds: the mesh's, its default weights' deltas taken out."""
    if mesh.morphs is None or not np.any(mesh.morphs.defaults):
        return mesh.positions
    return mesh.positions - np.einsum("m,mvi->vi", mesh.morphs.defaults, mesh.morphs.positions)


def default_weights(mesh: Mesh, frames: int) -> list[float]:
    """``mesh.weights``: the own targets' defaults, then 0 for each vertex-clip frame target."""
    own = [] if mesh.morphs is None else mesh.morphs.defaults.tolist()
    return own + [0.0] * frames


def own_targets(mesh: Mesh, add_delta: Callable[[np.ndarray, bool], int]) -> list[gl.Attributes]:
    """The mesh's own targets: POSITION deltas, and NORMAL ones when it has them. ``add_delta(delta,
    bounds)`` writes one (V, 3) delta and returns its accessor (with min and max for POSITION)."""
    if mesh.morphs is None:
        return []
    targets = []
    for index, delta in enumerate(mesh.morphs.positions):
        target = gl.Attributes(POSITION=add_delta(delta, True))
        if mesh.morphs.normals is not None:
            target.NORMAL = add_delta(mesh.morphs.normals[index], False)
        targets.append(target)
    return targets


def target_names(mesh: Mesh, frames: int) -> dict | None:
    """``extras.targetNames`` (three.js's and Blender's convention) when the mesh's targets are named
    and it has no vertex-clip frame targets."""
    if mesh.morphs is None or not mesh.morphs.names or frames:
        return None
    return {"targetNames": list(mesh.morphs.names)}


def frame_targets(mesh: Mesh, rest_skin: np.ndarray, clips: list[Clip], start: int,
                  influences: int) -> list[np.ndarray]:
    """Per frame of every vertex clip: (V, 3) displacement ``d`` of this mesh's vertices from bind such
    that the rest pose's skinning (``rest_skin`` (B, 4, 4), ``influences`` per vertex as written)
    takes ``bind + d`` to the frame's position."""
    bind = mesh.positions.astype(np.float64)
    joints, weights = top_influences(mesh.joints, mesh.weights, influences)
    blend = np.einsum("vk,vkij->vij", weights.astype(np.float64), rest_skin[joints])
    invertible = np.abs(np.linalg.det(blend[:, :3, :3])) > 1e-12
    blend[~invertible] = np.eye(4)
    unskin = np.linalg.inv(blend)
    return [maths.transform_points(unskin, frame[start: start + mesh.vertex_count]) - bind
            for clip in clips for frame in clip.positions]


def keyed_weights(channel, frames: int) -> tuple[np.ndarray, np.ndarray, str]:
    """A keyed clip's weight channel as glTF writes it: times (K,), values (K or 3K, M + frames)
    (CUBICSPLINE: in-tangent, value, out-tangent per key) and the interpolation's glTF name."""
    values = channel.values
    if channel.interpolation == "cubic":
        values = np.stack([channel.tangents[:, 0], values, channel.tangents[:, 1]], axis=1)
        values = values.reshape(-1, channel.width)
    return channel.times, np.pad(values, ((0, 0), (0, frames))), INTERPOLATIONS[channel.interpolation]


def frame_weights(mesh: Mesh, first: int, frames: int, total: int) -> np.ndarray:
    """(frames, M + total) a vertex clip's weights for ``mesh``: its own targets at their defaults,
    frame target ``first + f`` at 1 in frame f."""
    own = own_count(mesh)
    weights = np.zeros((frames, own + total))
    if own:
        weights[:, :own] = mesh.morphs.defaults
    weights[np.arange(frames), own + first + np.arange(frames)] = 1.0
    return weights
