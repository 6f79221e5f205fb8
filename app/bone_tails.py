"""Bone tails for formats that store none: where each bone ends, from its children and the vertices it
owns (docs/formats/README.md)."""

from __future__ import annotations

import numpy as np

from app.model import Mesh
from app.skin_weights import dominant_bones

#: Longest bone stub (as a fraction of the model's extent) when a tail cannot be derived.
STUB_FRACTION = 0.05


def derive_tails(bind_world: np.ndarray, parents: np.ndarray, meshes: list[Mesh],
                 heads: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Heads and derived tails for formats that store none (docs/formats/README.md).

    head = the translation of ``B_b`` (unless given); tail = the head of the only child, else the
    far end of the vertices weighted mostly to the bone, measured along the bone's direction, else
    head plus a short stub pointing away from the parent (or along the bone's own +Y axis).
    Returns (heads (B, 3), tails (B, 3)).
    """
    bind_world = np.asarray(bind_world, dtype=np.float64)
    parents = np.asarray(parents)
    count = len(parents)
    heads = bind_world[:, :3, 3].copy() if heads is None else np.asarray(heads, dtype=np.float64)
    tails = np.zeros_like(heads)
    child_counts = np.bincount(parents[parents >= 0], minlength=count)
    only_child = np.full(count, -1)
    children = np.flatnonzero(parents >= 0)
    single = children[child_counts[parents[children]] == 1]
    only_child[parents[single]] = single

    owners, positions = dominant_bones(meshes)
    mostly = (owners >= 0) & (owners < count)
    positions, owners = positions[mostly], owners[mostly]
    extent = _bounds_diagonal([positions, heads])
    stub = STUB_FRACTION * (extent if extent > 0 else 1.0)

    directions = _bone_directions(bind_world, parents, heads)
    # Per bone, over the vertices it owns: the farthest reach along its direction and the centroid.
    offsets = positions - heads[owners]
    far = np.full(count, -np.inf)
    np.maximum.at(far, owners, np.einsum("vi,vi->v", offsets, directions[owners]))
    owned_counts = np.bincount(owners, minlength=count)
    centres = np.zeros((count, 3))
    for axis in range(3):
        centres[:, axis] = np.bincount(owners, weights=offsets[:, axis], minlength=count)
    centres /= np.maximum(owned_counts, 1)[:, None]

    has_child = only_child >= 0
    to_child = np.zeros((count, 3))
    to_child[has_child] = heads[only_child[has_child]] - heads[has_child]
    by_child = has_child & (np.linalg.norm(to_child, axis=1) > 1e-9)
    by_reach = ~by_child & (owned_counts > 0) & (far > 1e-9)
    by_centre = ~by_child & ~by_reach & (owned_counts > 0) & (np.linalg.norm(centres, axis=1) > 1e-9)
    by_stub = ~(by_child | by_reach | by_centre)
    tails[by_child] = heads[only_child[by_child]]
    tails[by_reach] = heads[by_reach] + far[by_reach, None] * directions[by_reach]
    tails[by_centre] = heads[by_centre] + 2.0 * centres[by_centre]
    tails[by_stub] = heads[by_stub] + stub * directions[by_stub]
    return heads, tails


def _bounds_diagonal(point_sets: list[np.ndarray]) -> float:
    """The diagonal of the bounds of every point in ``point_sets`` (1 when there are none)."""
    point_sets = [points for points in point_sets if len(points)]
    if not point_sets:
        return 1.0
    lows = np.min([points.min(axis=0) for points in point_sets], axis=0)
    highs = np.max([points.max(axis=0) for points in point_sets], axis=0)
    return float(np.linalg.norm(highs - lows))


def _bone_directions(bind_world: np.ndarray, parents: np.ndarray, heads: np.ndarray) -> np.ndarray:
    """(B, 3) a unit direction per bone for one with no child to point at: away from its parent,
    else its own +Y axis, else +Z."""
    directions = np.tile([0.0, 0.0, 1.0], (len(parents), 1))
    axes = bind_world[:, :3, 1]
    axis_lengths = np.linalg.norm(axes, axis=1)
    along_axis = axis_lengths > 1e-12
    directions[along_axis] = axes[along_axis] / axis_lengths[along_axis, None]
    away = np.zeros((len(parents), 3))
    has_parent = parents >= 0
    away[has_parent] = heads[has_parent] - heads[parents[has_parent]]
    away_lengths = np.linalg.norm(away, axis=1)
    from_parent = away_lengths > 1e-9
    directions[from_parent] = away[from_parent] / away_lengths[from_parent, None]
    return directions
