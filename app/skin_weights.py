"""Skin-weight data: how many influences a vertex keeps on the GPU, and keeping its strongest.

Readers trim a file's influences to what the GPU holds, the exporters to what glTF writes, and the
CPU skinning (``pose.skin_mesh``) to either, so this lives below all of them.
"""

from __future__ import annotations

import numpy as np

#: Influences per vertex on the GPU; extra influences are dropped (smallest first) and renormalised.
GPU_INFLUENCES = 4


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
