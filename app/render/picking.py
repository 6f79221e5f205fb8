"""Screen-space picking: which bone lies under the cursor."""

from __future__ import annotations

import numpy as np


def nearest_segment(starts: np.ndarray, ends: np.ndarray, point, radius: float,
                    usable: np.ndarray | None = None) -> int | None:
    """Index of the 2-D segment (starts[i] → ends[i], (N, 2) each) nearest to ``point`` within
    ``radius`` pixels, or None. ``usable`` (N,) masks segments out (e.g. behind the eye)."""
    starts = np.asarray(starts, dtype=np.float64)
    ends = np.asarray(ends, dtype=np.float64)
    if len(starts) == 0:
        return None
    point = np.asarray(point, dtype=np.float64)
    along = ends - starts
    length_sq = np.einsum("ij,ij->i", along, along)
    fraction = np.clip(np.einsum("ij,ij->i", point - starts, along) / np.maximum(length_sq, 1e-12), 0.0, 1.0)
    distance = np.linalg.norm(starts + along * fraction[:, None] - point, axis=1)
    if usable is not None:
        distance = np.where(usable, distance, np.inf)
    best = int(np.argmin(distance))
    return best if distance[best] <= radius else None
