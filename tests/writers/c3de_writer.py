"""A small writer of C3DE mesh and bones files for tests, following docs/formats/c3de.md's tables.

Matrices are given in the project's column-vector form and written as Blender 2.4x row-vector
matrices, row by row (so the file holds their transposes).
"""

from __future__ import annotations

import numpy as np

VERTEX = np.dtype([("position", "<f4", 3), ("normal", "<f4", 3), ("uv", "<f4", 2),
                   ("weight0", "<f4"), ("bone0", "<i4"), ("bone1", "<i4")])


def write_mesh(positions, bone0, bone1, weight0, uvs=None, normals=None, layout: str = "2010",
               indices=None) -> bytes:
    """A mesh file. positions (V, 3); bone0/bone1 (V,) ints (−1: none); weight0 (V,) (w of bone0);
    uvs (V, 2) as the user sees them (written with v flipped); ``indices``: an index list variant."""
    positions = np.asarray(positions, np.float32)
    count = len(positions)
    records = np.zeros(count, VERTEX)
    records["position"] = positions
    records["normal"] = (0, 0, 1) if normals is None else normals
    if uvs is not None:
        uvs = np.asarray(uvs, np.float32)
        records["uv"] = np.stack([uvs[:, 0], 1.0 - uvs[:, 1]], axis=1)
    records["weight0"] = weight0
    records["bone0"] = bone0
    records["bone1"] = bone1
    index_count = count if indices is None else len(indices)
    header = np.array([count, index_count] if layout == "2009" else [0, count, index_count], "<i4")
    index_bytes = b"" if indices is None else np.asarray(indices, "<i4").tobytes()
    return header.tobytes() + index_bytes + records.tobytes()


def _row_form(matrices) -> bytes:
    return np.ascontiguousarray(np.swapaxes(np.asarray(matrices, np.float64), -1, -2), "<f4").tobytes()


def write_bones_2009(skinning, clip_frames: list[int] | None = None) -> bytes:
    """skinning (F, B, 4, 4) column-form skinning matrices; ``clip_frames``: the optional trailer."""
    skinning = np.asarray(skinning)
    frames, bones = skinning.shape[:2]
    trailer = b"" if clip_frames is None else np.array([len(clip_frames), *clip_frames], "<i4").tobytes()
    return np.array([frames, bones], "<i4").tobytes() + _row_form(skinning) + trailer


def write_bones_2010(bind, heads, tails, skinning, parents) -> bytes:
    """bind (B, 4, 4) rest matrices; heads, tails (B, 3); skinning (F, B, 4, 4); parents (P,)."""
    skinning = np.asarray(skinning)
    frames, bones = skinning.shape[:2]
    head_tails = np.concatenate([np.asarray(heads), np.asarray(tails)], axis=1).astype("<f4")
    return (np.array([frames, bones], "<i4").tobytes() + _row_form(bind) + head_tails.tobytes()
            + _row_form(skinning) + np.array([1, frames], "<i4").tobytes()
            + np.asarray(parents, "<i4").tobytes())
