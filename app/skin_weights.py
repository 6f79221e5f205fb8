"""Skin-weight data: how many influences a vertex keeps on the GPU, and keeping its strongest; the
bone each vertex belongs to.

Readers trim a file's influences to what the GPU holds, the exporters to what glTF writes, and the
CPU skinning (``pose.skin_mesh``) to either, so this lives below all of them. Derived tails, the
automatic ragdoll and its check all ask which vertices a bone owns (``dominant_bones``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Iterable

    from app.model import Mesh

#: Influences per vertex on the GPU; extra influences are dropped (smallest first) and renormalised.
GPU_INFLUENCES = 4
#: A bone owns the vertices it gives at least this share of their weight.
DOMINANT_SHARE = 0.5


def dominant_bones(meshes: Iterable[Mesh], share: float = DOMINANT_SHARE,
                   drawn_only: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(V,) for every vertex of the skinned ``meshes`` (with ``drawn_only``, of those the file renders:
    not an NWN shadow mesh) the bone of its strongest influence where that gives it at least ``share``
    of its weight, −1 elsewhere; and (V, 3) their bind positions."""
    owners, positions = [], []
    for mesh in meshes:
        if not mesh.vertex_count or not mesh.weights.size or (drawn_only and not mesh.visible):
            continue
        lane = np.argmax(mesh.weights, axis=1)
        owner = mesh.joints[np.arange(mesh.vertex_count), lane].astype(np.intp)
        owners.append(np.where(mesh.weights.max(axis=1) >= share, owner, -1))
        positions.append(mesh.positions.astype(np.float64))
    if not owners:
        return np.zeros(0, np.intp), np.zeros((0, 3))
    return np.concatenate(owners), np.concatenate(positions)


def top_influences(joints: np.ndarray, weights: np.ndarray,
                   count: int = GPU_INFLUENCES) -> tuple[np.ndarray, np.ndarray]:
    """The ``count`` largest influences per vertex, renormalised; (V, count) joints and weights.

    Rows whose weights sum to 0 (rigid vertices) stay all-zero. Missing lanes get joint 0, weight 0.
    """
    vertices, lanes = joints.shape
    if lanes > count:
        order = np.argsort(-weights, axis=1, kind="stable")[:, :count]
        joints = np.take_along_axis(joints, order, axis=1)
        weights = np.take_along_axis(weights, order, axis=1)
    elif lanes < count:
        joints = np.concatenate([joints, np.zeros((vertices, count - lanes), joints.dtype)], axis=1)
        weights = np.concatenate([weights, np.zeros((vertices, count - lanes), weights.dtype)], axis=1)
    weights = np.where(weights > 0, weights, 0).astype(np.float32)
    joints = np.where(weights > 0, joints, 0).astype(np.int32)
    totals = weights.sum(axis=1, keepdims=True)
    weights = np.where(totals > 0, weights / np.where(totals > 0, totals, 1), 0).astype(np.float32)
    return joints, weights


def merge_duplicate_joints(joints: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(V, K) joints and weights with each bone's weights gathered in its first lane (others 0)."""
    weights = np.where(weights > 0, weights, 0).astype(np.float32)
    for lane in range(1, joints.shape[1]):
        for earlier in range(lane):
            same = (joints[:, lane] == joints[:, earlier]) & (weights[:, lane] > 0) \
                & (weights[:, earlier] > 0)
            weights[same, earlier] += weights[same, lane]
            weights[same, lane] = 0
    return joints, weights
