"""Morph targets: a mesh's blend shapes, and the keyed weight channels that move them.

A mesh's targets are position (and normal) deltas, ``(M, V, 3)`` each; a pose gives every target a
weight, and a vertex is moved by ``Σ_m (w_m − d_m) · Δ_m`` before skinning, ``d`` the mesh's default
weights, which its stored positions already include (so the rest pose is the stored mesh). Weights are
interpolated as the file keys them (glTF: STEP, LINEAR, CUBICSPLINE), never the vertices.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

WeightInterpolation = Literal["linear", "step", "cubic"]


def _checked(array, shape: tuple, what: str) -> np.ndarray:
    """``array`` as a read-only float copy, its shape checked against ``shape`` (None: any size)."""
    result = np.array(array, dtype=np.float64)
    if result.ndim != len(shape) or any(want is not None and got != want
                                        for got, want in zip(result.shape, shape)):
        raise ValueError(f"{what}: expected shape {shape}, got {result.shape}")
    if not np.all(np.isfinite(result)):
        raise ValueError(f"{what}: a value is not finite")
    result.flags.writeable = False
    return result


@dataclass(eq=False)
class MorphTargets:
    """One mesh's targets. positions: (M, V, 3) deltas in the mesh's space; normals: (M, V, 3) or
    None; defaults: (M,) the weights at rest (already in ``Mesh.positions``); names: (M,) or empty."""

    positions: np.ndarray
    defaults: np.ndarray
    normals: np.ndarray | None = None
    names: tuple[str, ...] = ()

    def __post_init__(self):
        self.positions = _checked(self.positions, (None, None, 3), "morph target positions")
        count, vertices = self.positions.shape[:2]
        self.defaults = _checked(self.defaults, (count,), "morph target defaults")
        if self.normals is not None:
            self.normals = _checked(self.normals, (count, vertices, 3), "morph target normals")
        self.names = tuple(str(name) for name in self.names)
        if self.names and len(self.names) != count:
            raise ValueError(f"morph target names: expected {count}, got {len(self.names)}")

    @property
    def count(self) -> int:
        return len(self.defaults)

    def moved(self, positions: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """(V, 3) ``positions`` (the mesh's, defaults included) moved to ``weights`` (M,)."""
        change = np.asarray(weights, dtype=np.float64) - self.defaults
        if not np.any(change):
            return np.asarray(positions, dtype=np.float64)
        return positions + np.einsum("m,mvi->vi", change, self.positions)


@dataclass(eq=False)
class WeightChannel:
    """Keyed weights of one mesh's targets: times (K,) ascending; values (K, M); interpolation
    'linear', 'step' or 'cubic' (glTF's CUBICSPLINE: ``tangents`` (K, 2, M), each key's in- and
    out-tangent in weight per second)."""

    mesh: int
    times: np.ndarray
    values: np.ndarray
    interpolation: WeightInterpolation = "linear"
    tangents: np.ndarray | None = None

    def __post_init__(self):
        what = f"mesh {self.mesh} morph weights"
        self.times = _checked(self.times, (None,), f"{what} times")
        if len(self.times) == 0:
            raise ValueError(f"{what}: a channel needs at least one key")
        if np.any(np.diff(self.times) < 0):
            raise ValueError(f"{what}: key times go backwards")
        self.values = _checked(self.values, (len(self.times), None), f"{what} values")
        if self.interpolation not in ("linear", "step", "cubic"):
            raise ValueError(f"{what}: unknown interpolation {self.interpolation!r}")
        if (self.interpolation == "cubic") != (self.tangents is not None):
            raise ValueError(f"{what}: tangents go with cubic interpolation, and only with it")
        if self.tangents is not None:
            self.tangents = _checked(self.tangents, (len(self.times), 2, self.values.shape[1]),
                                     f"{what} tangents")

    @property
    def width(self) -> int:
        return self.values.shape[1]

    def sample(self, time: float) -> np.ndarray:
        """(M,) the weights at ``time`` seconds; the first key is held before it, the last after."""
        times = self.times
        if time <= times[0]:
            return self.values[0].copy()
        if time >= times[-1]:
            return self.values[-1].copy()
        key = int(np.searchsorted(times, time, side="right")) - 1
        if self.interpolation == "step":
            return self.values[key].copy()
        span = times[key + 1] - times[key]
        t = (time - times[key]) / span
        start, end = self.values[key], self.values[key + 1]
        if self.interpolation == "linear":
            return (1.0 - t) * start + t * end
        out_tangent, in_tangent = self.tangents[key, 1], self.tangents[key + 1, 0]
        return ((2 * t**3 - 3 * t**2 + 1) * start + span * (t**3 - 2 * t**2 + t) * out_tangent
                + (-2 * t**3 + 3 * t**2) * end + span * (t**3 - t**2) * in_tangent)


def rest_weights(meshes) -> np.ndarray:
    """(T,) every mesh's default weights, meshes and their targets in order ((0,) without targets)."""
    parts = [mesh.morphs.defaults for mesh in meshes if mesh.morphs is not None]
    return np.concatenate(parts) if parts else np.zeros(0)


def weight_slices(meshes) -> list[slice | None]:
    """Each mesh's part of a pose's weights (``rest_weights`` order), None for a mesh without targets."""
    slices, start = [], 0
    for mesh in meshes:
        if mesh.morphs is None:
            slices.append(None)
            continue
        slices.append(slice(start, start + mesh.morphs.count))
        start += mesh.morphs.count
    return slices


def sampled_weights(meshes, channels, time: float) -> np.ndarray:
    """(T,) the weights at ``time``: each channel's mesh keyed, the others at their defaults."""
    weights = rest_weights(meshes).copy()
    slices = weight_slices(meshes)
    for channel in channels:
        part = slices[channel.mesh]
        weights[part] = channel.sample(time)
    return weights
