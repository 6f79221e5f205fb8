"""BioWare's binary walkmesh, ``BWM V1.0`` (docs/formats/walkmesh.md): a header of counts and
offsets, then vertices, faces and one surface material per face. Only those three tables are read;
the AABB tree, adjacencies, edges and perimeters are derived data the viewer does not need.

Every table is bounds-checked (count × size against the bytes present) before it is read, and a
face naming a vertex the file lacks is an error naming its byte offset.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.errors import ReadError

MAGIC = b"BWM V1.0"
#: The header: magic and version, the walkmesh type (0 placeable/door, 1 area), four use hooks, the
#: position, then the tables' counts and offsets (the Kaitai description's ``seq``).
HEADER = np.dtype([
    ("magic", "S8"), ("type", "<u4"), ("hooks", "<f4", (4, 3)), ("position", "<f4", 3),
    ("vertex_count", "<u4"), ("vertex_offset", "<u4"), ("face_count", "<u4"), ("face_offset", "<u4"),
    ("material_offset", "<u4"), ("normal_offset", "<u4"), ("distance_offset", "<u4"),
    ("aabb_count", "<u4"), ("aabb_offset", "<u4"), ("unknown", "<u4"),
    ("adjacency_count", "<u4"), ("adjacency_offset", "<u4"), ("edge_count", "<u4"), ("edge_offset", "<u4"),
    ("perimeter_count", "<u4"), ("perimeter_offset", "<u4"),
])
assert HEADER.itemsize == 136
#: Where the counts and offsets the reader uses lie in the header (for errors).
FIELD_AT = {name: HEADER.fields[name][1] for name in ("vertex_count", "face_count", "material_offset")}


def is_bwm(data: bytes) -> bool:
    return data[:8] == MAGIC


def parse(path: Path, data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(vertices (V, 3) float32 — the header's position added —, faces (F, 3) int32, materials (F,)
    int32) of a BWM file; ``path`` names it in errors."""
    if len(data) < HEADER.itemsize:
        raise ReadError(path, f"a BWM header is {HEADER.itemsize} bytes, the file has {len(data)}",
                        offset=len(data))
    header = np.frombuffer(data, HEADER, 1)[0]
    if bytes(header["magic"]) != MAGIC:
        raise ReadError(path, f"expected {MAGIC.decode()!r}, found {bytes(data[:8])!r}", offset=0)
    vertex_count, face_count = int(header["vertex_count"]), int(header["face_count"])
    vertices = _table(path, data, header["vertex_offset"], vertex_count, np.dtype(("<f4", 3)), "vertices",
                      FIELD_AT["vertex_count"])
    faces = _table(path, data, header["face_offset"], face_count, np.dtype(("<u4", 3)), "faces",
                   FIELD_AT["face_count"])
    materials = _table(path, data, header["material_offset"], face_count, np.dtype("<u4"), "materials",
                       FIELD_AT["material_offset"])
    bad = np.flatnonzero((faces >= vertex_count).any(axis=1))
    if bad.size:
        face = int(bad[0])
        raise ReadError(path, f"face {face} uses vertex {int(faces[face].max())}, the walkmesh has "
                              f"{vertex_count}", offset=int(header["face_offset"]) + 12 * face)
    with np.errstate(all="ignore"):
        positioned = vertices + np.asarray(header["position"], np.float32)
    if not np.isfinite(positioned).all():
        raise ReadError(path, "a vertex, moved by the header's position (at 0x3c), is not a finite number",
                        offset=int(header["vertex_offset"]))
    return positioned, faces.astype(np.int32), np.minimum(materials, 2 ** 31 - 1).astype(np.int32)


def _table(path: Path, data: bytes, offset, count: int, dtype: np.dtype, what: str,
           named_at: int) -> np.ndarray:
    """``count`` records of ``dtype`` at ``offset``, refused when they pass the end of the file."""
    start, size = int(offset), count * dtype.itemsize
    if start + size > len(data):
        raise ReadError(path, f"{count} {what} of {dtype.itemsize} bytes at {start} pass the end of the "
                              f"file ({len(data)} bytes)", offset=named_at)
    return np.frombuffer(data, dtype, count, start)
