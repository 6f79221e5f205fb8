"""A small writer of hand-built glTF documents for the importer's tests."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass

import numpy as np

_DTYPES = {5120: "i1", 5121: "u1", 5122: "<i2", 5123: "<u2", 5125: "<u4", 5126: "<f4"}
_WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


@dataclass
class Sparse:
    """A sparse accessor of ``count`` elements: ``base`` (None: all zeros, no buffer view) with
    ``values`` substituted at ``indices`` (written as ``index_component``)."""

    base: np.ndarray | None
    indices: list
    values: np.ndarray
    kind: str
    component: int
    count: int
    index_component: int = 5123
    normalized: bool = False


def write_gltf(folder, document: dict, arrays: list, name: str = "case.gltf"):
    """Write ``document`` as ``folder/name`` with one data-URI buffer holding ``arrays`` — (values, type,
    componentType), (values, type, componentType, normalized) or a ``Sparse`` — as accessors 0, 1, …
    in order (each array in its own 4-byte-aligned buffer view). Returns the file's path."""
    data, views, accessors = bytearray(), [], []

    def view(values, component) -> int:
        raw = np.ascontiguousarray(values, _DTYPES[component]).tobytes()
        data.extend(b"\0" * (-len(data) % 4))
        views.append({"buffer": 0, "byteOffset": len(data), "byteLength": len(raw)})
        data.extend(raw)
        return len(views) - 1

    for entry in arrays:
        if isinstance(entry, Sparse):
            accessor = {"componentType": entry.component, "count": entry.count, "type": entry.kind,
                        "sparse": {"count": len(entry.indices),
                                   "indices": {"bufferView": view(entry.indices, entry.index_component),
                                               "componentType": entry.index_component},
                                   "values": {"bufferView": view(entry.values, entry.component)}}}
            if entry.base is not None:
                accessor["bufferView"] = view(entry.base, entry.component)
            normalized = entry.normalized
        else:
            values, kind, component, *flag = entry
            accessor = {"bufferView": view(values, component), "componentType": component,
                        "count": int(np.asarray(values).size // _WIDTHS[kind]), "type": kind}
            normalized = bool(flag and flag[0])
        if normalized:
            accessor["normalized"] = True
        accessors.append(accessor)
    document = {"asset": {"version": "2.0"}, **document, "bufferViews": views, "accessors": accessors,
                "buffers": [{"byteLength": len(data), "uri": "data:application/octet-stream;base64,"
                             + base64.b64encode(bytes(data)).decode()}]}
    path = folder / name
    path.write_text(json.dumps(document))
    return path
