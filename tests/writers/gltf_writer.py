"""A small writer of hand-built glTF documents for the importer's tests."""

from __future__ import annotations

import base64
import json

import numpy as np

_DTYPES = {5121: "u1", 5123: "<u2", 5125: "<u4", 5126: "<f4"}
_WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


def write_gltf(folder, document: dict, arrays: list, name: str = "case.gltf"):
    """Write ``document`` as ``folder/name`` with one data-URI buffer holding ``arrays`` — (values, type,
    componentType) or (values, type, componentType, normalized) — as accessors 0, 1, … in order
    (each in its own 4-byte-aligned buffer view). Returns the file's path."""
    data, views, accessors = bytearray(), [], []
    for values, kind, component, *normalized in arrays:
        raw = np.ascontiguousarray(values, _DTYPES[component]).tobytes()
        data.extend(b"\0" * (-len(data) % 4))
        views.append({"buffer": 0, "byteOffset": len(data), "byteLength": len(raw)})
        data.extend(raw)
        accessor = {"bufferView": len(views) - 1, "componentType": component,
                    "count": int(np.asarray(values).size // _WIDTHS[kind]), "type": kind}
        if normalized and normalized[0]:
            accessor["normalized"] = True
        accessors.append(accessor)
    document = {"asset": {"version": "2.0"}, **document, "bufferViews": views, "accessors": accessors,
                "buffers": [{"byteLength": len(data), "uri": "data:application/octet-stream;base64,"
                             + base64.b64encode(bytes(data)).decode()}]}
    path = folder / name
    path.write_text(json.dumps(document))
    return path
