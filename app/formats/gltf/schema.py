"""The shape of a glTF document, checked before anything reads it.

Only JSON types are checked (an object where an object belongs, a list of integers where indices
belong, …), so that a malformed document fails with its JSON path (``nodes[3].children``) rather
than deep inside the reader. Ranges and cross-references are the reader's checks.
"""

from __future__ import annotations

#: Leaf kinds: a JSON type, or a list or string-keyed map of one.
INT, NUMBER, STRING, BOOL, OBJECT = "integer", "number", "string", "true/false", "object"
INTS, NUMBERS, STRINGS, INT_MAP = "list of integers", "list of numbers", "list of strings", "map of integers"

_TEXTURE_INFO = {"index": INT, "texCoord": INT, "scale": NUMBER, "strength": NUMBER, "extensions": OBJECT}
_PRIMITIVE = {"attributes": INT_MAP, "indices": INT, "material": INT, "mode": INT, "targets": [INT_MAP],
              "extensions": OBJECT}

#: The document: a dict is an object with these members, ``[spec]`` a list of such objects.
DOCUMENT = {
    "asset": {"version": STRING, "minVersion": STRING},
    "scene": INT,
    "extensionsUsed": STRINGS,
    "extensionsRequired": STRINGS,
    "extensions": OBJECT,
    "accessors": [{"bufferView": INT, "byteOffset": INT, "componentType": INT, "normalized": BOOL,
                   "count": INT, "type": STRING, "max": NUMBERS, "min": NUMBERS,
                   "sparse": {"count": INT,
                              "indices": {"bufferView": INT, "byteOffset": INT, "componentType": INT},
                              "values": {"bufferView": INT, "byteOffset": INT}}}],
    "animations": [{"channels": [{"sampler": INT, "target": {"node": INT, "path": STRING}}],
                    "samplers": [{"input": INT, "output": INT, "interpolation": STRING}], "name": STRING}],
    "buffers": [{"uri": STRING, "byteLength": INT}],
    "bufferViews": [{"buffer": INT, "byteOffset": INT, "byteLength": INT, "byteStride": INT, "target": INT}],
    "cameras": [{"type": STRING}],
    "images": [{"uri": STRING, "mimeType": STRING, "bufferView": INT, "name": STRING}],
    "materials": [{"name": STRING, "alphaMode": STRING, "alphaCutoff": NUMBER, "doubleSided": BOOL,
                   "pbrMetallicRoughness": {"baseColorFactor": NUMBERS, "baseColorTexture": _TEXTURE_INFO,
                                            "metallicFactor": NUMBER, "roughnessFactor": NUMBER},
                   "normalTexture": _TEXTURE_INFO, "occlusionTexture": _TEXTURE_INFO,
                   "emissiveTexture": _TEXTURE_INFO, "emissiveFactor": NUMBERS, "extensions": OBJECT}],
    "meshes": [{"primitives": [_PRIMITIVE], "weights": NUMBERS, "name": STRING}],
    "nodes": [{"camera": INT, "children": INTS, "skin": INT, "matrix": NUMBERS, "mesh": INT,
               "rotation": NUMBERS, "scale": NUMBERS, "translation": NUMBERS, "weights": NUMBERS,
               "name": STRING, "extensions": OBJECT}],
    "samplers": [{"magFilter": INT, "minFilter": INT, "wrapS": INT, "wrapT": INT}],
    "scenes": [{"nodes": INTS, "name": STRING}],
    "skins": [{"inverseBindMatrices": INT, "skeleton": INT, "joints": INTS, "name": STRING}],
    "textures": [{"sampler": INT, "source": INT, "extensions": OBJECT}],
}


def _is(value, kind: str) -> bool:
    if kind == INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == NUMBER:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == STRING:
        return isinstance(value, str)
    if kind == BOOL:
        return isinstance(value, bool)
    return isinstance(value, dict)


def _json_type(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    return {int: "an integer", float: "a number", str: "a string", list: "a list", dict: "an object"}.get(
        type(value), type(value).__name__)


def problem(document: dict) -> str | None:
    """The first member of ``document`` whose JSON type is wrong, as 'PATH: expected …, got …'."""
    return _check(document, DOCUMENT, "")


def _check(value, spec, where: str) -> str | None:
    if isinstance(spec, list):
        if not isinstance(value, list):
            return f"{where}: expected a list of objects, got {_json_type(value)}"
        for index, item in enumerate(value):
            found = _check(item, spec[0], f"{where}[{index}]")
            if found:
                return found
        return None
    if isinstance(spec, dict):
        if not isinstance(value, dict):
            return f"{where or 'the document'}: expected an object, got {_json_type(value)}"
        for key, member in spec.items():
            if key in value:
                found = _check(value[key], member, f"{where}.{key}" if where else key)
                if found:
                    return found
        return None
    return _check_leaf(value, spec, where)


def _check_leaf(value, kind: str, where: str) -> str | None:
    items = {INTS: INT, NUMBERS: NUMBER, STRINGS: STRING}.get(kind)
    if items is not None:
        if not isinstance(value, list):
            return f"{where}: expected a {kind}, got {_json_type(value)}"
        for index, item in enumerate(value):
            if not _is(item, items):
                article = "an" if items == INT else "a"
                return f"{where}[{index}]: expected {article} {items}, got {_json_type(item)}"
        return None
    if kind == INT_MAP:
        if not isinstance(value, dict):
            return f"{where}: expected an object, got {_json_type(value)}"
        for key, item in value.items():
            if not _is(item, INT):
                return f"{where}.{key}: expected an accessor index, got {_json_type(item)}"
        return None
    if not _is(value, kind):
        return f"{where}: expected {'an' if kind in (INT, OBJECT) else 'a'} {kind}, got {_json_type(value)}"
    return None
