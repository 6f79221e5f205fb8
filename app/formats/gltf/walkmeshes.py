"""Walkmeshes Boneyard wrote into a glTF file (app/export/gltf_walkmeshes.py), read back as
walkmeshes rather than as meshes: a node marked ``extras.walkmesh`` (kind, source, one surface
material id per face) whose mesh is one primitive of unindexed triangles, one face per three corners.
A marked node that does not fit that shape is read as an ordinary mesh, with a warning."""

from __future__ import annotations

import numpy as np

from app.formats.gltf.container import attribute_accessors
from app.formats.gltf.reading import Reading
from app.walkmeshes import Walkmesh

FLOAT = (5126,)


def walkmesh_record(reading: Reading, index: int, node) -> dict | None:
    """The ``extras.walkmesh`` of node ``index`` when it is one Boneyard wrote (else None)."""
    raw_nodes = reading.document.get("nodes") if isinstance(reading.document, dict) else None
    raw = raw_nodes[index] if isinstance(raw_nodes, list) and index < len(raw_nodes) else {}
    extras = raw.get("extras") if isinstance(raw, dict) else None
    record = extras.get("walkmesh") if isinstance(extras, dict) else None
    if not isinstance(record, dict) or node.mesh is None:
        return None
    problem = _record_problem(reading, index, node, record)
    if problem:
        reading.warnings.append(f"nodes[{index}] ({node.name}): marked as a walkmesh but {problem}; "
                                "read as a mesh")
        return None
    return record


def _record_problem(reading: Reading, index: int, node, record: dict) -> str | None:
    materials = record.get("materials")
    if not (isinstance(record.get("kind"), str) and isinstance(record.get("source"), str)
            and isinstance(materials, list)
            and all(isinstance(m, int) and not isinstance(m, bool) and 0 <= m < 2**31 for m in materials)):
        return "its extras lack kind, source or materials (integers from 0)"
    mesh = reading.item("meshes", node.mesh, f"nodes[{index}].mesh")
    primitives = mesh.primitives or []
    if len(primitives) != 1 or primitives[0].indices is not None or primitives[0].mode not in (None, 4):
        return "its mesh is not one primitive of unindexed triangles"
    position = attribute_accessors(primitives[0].attributes).get("POSITION")
    where = f"meshes[{node.mesh}].primitives[0].attributes.POSITION"
    count = reading.item("accessors", position, where).count if position is not None else None
    if count != 3 * len(materials):
        return f"it has {count} corners for {len(materials)} face materials"
    return None


def read_walkmesh(reading: Reading, index: int, node, record: dict, bind: np.ndarray) -> Walkmesh:
    """The walkmesh of node ``index`` (``record``: its checked extras), placed by its (4, 4) ``bind``."""
    primitive = reading.item("meshes", node.mesh, f"nodes[{index}].mesh").primitives[0]
    position = attribute_accessors(primitive.attributes)["POSITION"]
    corners = reading.accessor(position, f"nodes[{index}] walkmesh POSITION", ("VEC3",), FLOAT)
    corners = corners.astype(np.float64) @ bind[:3, :3].T + bind[:3, 3]
    faces = np.arange(len(corners)).reshape(-1, 3)
    return Walkmesh(name=node.name or f"walkmesh {index}", source=record["source"], kind=record["kind"],
                    vertices=corners, faces=faces, materials=np.array(record["materials"], np.int64))
