"""Walkmesh files for tests, written from the published descriptions (docs/formats/walkmesh.md; no
code shared with the readers): NWmax's ASCII walkmesh text and BioWare's ``BWM V1.0``.

A walkmesh is described by ``WalkNode``: a node kind ('aabb' for a tile's ``.wok``, 'trimesh' for a
placeable's or a door's), its name, its position in the file, its vertices, faces and one surface
material per face.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np


@dataclass
class WalkNode:
    kind: str
    name: str
    vertices: np.ndarray
    faces: np.ndarray
    materials: list[int]
    position: tuple[float, float, float] = (0.0, 0.0, 0.0)


def _number(value: float) -> str:
    return repr(float(value))


def write_ascii_walkmesh(name: str, nodes: list[WalkNode], header: str = "#MAXWALKMESH ASCII") -> bytes:
    """NWmax's walkmesh text: ``beginwalkmeshgeom NAME``, one node per walkmesh (parent: the walkmesh's
    name, as NWmax writes), faces ``a b c smoothing ta tb tc material``, a one-box ``aabb`` tree."""
    lines = ["# written by the tests", header, f"beginwalkmeshgeom {name}"]
    for node in nodes:
        vertices = np.asarray(node.vertices, float)
        faces = np.asarray(node.faces, int).reshape(-1, 3)
        lines += [f"node {node.kind} {node.name}", f"  parent {name}",
                  "  position " + " ".join(_number(v) for v in node.position),
                  "  orientation 0.0 0.0 0.0 0.0", "  wirecolor 0.5 0.5 0.5",
                  "  multimaterial 2", "    Dirt", "    Stone",
                  f"  verts {len(vertices)}"]
        lines += ["    " + " ".join(_number(v) for v in row) for row in vertices]
        lines.append(f"  faces {len(faces)}")
        lines += [f"    {a} {b} {c}  1  0 0 0  {material}"
                  for (a, b, c), material in zip(faces, node.materials)]
        if node.kind == "aabb":
            low, high = vertices.min(axis=0), vertices.max(axis=0)
            lines.append("  aabb " + " ".join(_number(v) for v in [*low, *high]) + " -1")
        lines.append("endnode")
    lines.append(f"endwalkmeshgeom {name}")
    return ("\r\n".join(lines) + "\r\n").encode()


#: BWM V1.0's header: 8 bytes of magic, the type, four use hooks and the position (5 × 12 bytes), then
#: 16 counts and offsets; 136 bytes in all.
BWM_HEADER_SIZE = 136


def write_bwm(vertices, faces, materials, walkmesh_type: int = 1,
              position: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> bytes:
    """A ``BWM V1.0`` file with the vertex, face and material tables (no AABB tree or adjacencies)."""
    vertices = np.asarray(vertices, "<f4").reshape(-1, 3)
    faces = np.asarray(faces, "<u4").reshape(-1, 3)
    materials = np.asarray(materials, "<u4")
    vertex_offset = BWM_HEADER_SIZE
    face_offset = vertex_offset + vertices.nbytes
    material_offset = face_offset + faces.nbytes
    end = material_offset + materials.nbytes
    header = b"BWM V1.0" + struct.pack("<I", walkmesh_type) + b"\0" * 48 + struct.pack("<3f", *position)
    header += struct.pack("<16I", len(vertices), vertex_offset, len(faces), face_offset, material_offset,
                          end, end, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    assert len(header) == BWM_HEADER_SIZE
    return header + vertices.tobytes() + faces.tobytes() + materials.tobytes()
