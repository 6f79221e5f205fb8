"""Wavefront OBJ writer for posed meshes (``boneyard pose -o OUT.obj``).

One ``o`` group per mesh, ``v`` lines for the posed positions, ``vn`` lines with area-weighted normals
of the posed triangles, and ``f v//vn`` faces (1-based, offset per mesh). A mesh without faces
(a point-only format) writes only its ``v`` lines.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.atomic_files import replacing
from app.model import Mesh, Model


def write_obj(path: str | Path, model: Model, positions: np.ndarray) -> None:
    """Write every mesh of ``model`` at ``positions`` (N, 3) (meshes in model order) to ``path``, whole
    or not at all."""
    positions = np.asarray(positions, dtype=np.float64)
    if positions.shape != (model.vertex_count, 3):
        raise ValueError(f"positions: expected shape ({model.vertex_count}, 3), got {positions.shape}")
    starts = np.cumsum([0] + [mesh.vertex_count for mesh in model.meshes])
    with replacing(path) as temporary, open(temporary, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(f"# Boneyard posed mesh: {model.name}\n")
        for mesh, start, end in zip(model.meshes, starts[:-1], starts[1:]):
            handle.write(f"o {_safe_name(mesh.name)}\n")
            posed = positions[start:end]
            np.savetxt(handle, posed, fmt="v %.9g %.9g %.9g")
            if mesh.triangles is None or not mesh.triangle_count:
                continue
            np.savetxt(handle, _posed_normals(mesh, posed), fmt="vn %.6f %.6f %.6f")
            corners = np.repeat(mesh.triangles + start + 1, 2, axis=1)
            np.savetxt(handle, corners, fmt="f %d//%d %d//%d %d//%d")


def _posed_normals(mesh: Mesh, posed: np.ndarray) -> np.ndarray:
    """(V, 3) area-weighted unit normals of the mesh's triangles at ``posed`` (V, 3) positions."""
    return Mesh(name=mesh.name, positions=posed, joints=np.zeros((len(posed), 1)),
                weights=np.zeros((len(posed), 1)), triangles=mesh.triangles).smooth_normals


def _safe_name(name: str) -> str:
    """A mesh name as one OBJ token (no whitespace)."""
    return "_".join(name.split()) or "mesh"
