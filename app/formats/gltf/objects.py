"""A glTF document's objects as the reader reads them: attribute access with glTF's defaults, the same
values pygltflib's classes (``GLTF2.from_dict``) give, without importing pygltflib, dataclasses_json
and marshmallow (30–80 ms of a fresh ``boneyard render``; pygltflib stays for writing glTF).

``CLASSES`` is pygltflib's schema written down: each class's fields with their defaults, and which
fields hold another class (or a list of them). tests/formats/test_gltf_container.py holds it to
pygltflib's own classes.
"""

from __future__ import annotations

import copy

#: A field's nested class: a class name, or ``("list", name)`` for a list of that class.
LIST = "list"

_COMMON = {"extensions": ({}, None), "extras": ({}, None)}
_TEXTURE_REFERENCE = {"index": (None, None)}

#: Class name → field → (default, nested class). The order of fields is pygltflib's.
CLASSES: dict[str, dict[str, tuple[object, object]]] = {
    "GLTF2": {**_COMMON, "accessors": ([], (LIST, "Accessor")), "animations": ([], (LIST, "Animation")),
              "asset": (None, "Asset"), "bufferViews": ([], (LIST, "BufferView")),
              "buffers": ([], (LIST, "Buffer")), "cameras": ([], (LIST, "Camera")),
              "extensionsUsed": ([], None), "extensionsRequired": ([], None),
              "images": ([], (LIST, "Image")), "materials": ([], (LIST, "Material")),
              "meshes": ([], (LIST, "Mesh")), "nodes": ([], (LIST, "Node")),
              "samplers": ([], (LIST, "Sampler")), "scene": (None, None), "scenes": ([], (LIST, "Scene")),
              "skins": ([], (LIST, "Skin")), "textures": ([], (LIST, "Texture"))},
    "Accessor": {**_COMMON, "bufferView": (None, None), "byteOffset": (0, None),
                 "componentType": (None, None),
                 "normalized": (False, None), "count": (None, None), "type": (None, None),
                 "sparse": (None, "Sparse"), "max": ([], None), "min": ([], None), "name": (None, None)},
    "Sparse": {**_COMMON, "count": (None, None), "indices": (None, "AccessorSparseIndices"),
               "values": (None, "AccessorSparseValues")},
    "AccessorSparseIndices": {**_COMMON, "bufferView": (None, None), "byteOffset": (0, None),
                              "componentType": (None, None)},
    "AccessorSparseValues": {**_COMMON, "bufferView": (None, None), "byteOffset": (0, None)},
    "Animation": {**_COMMON, "name": (None, None), "channels": ([], (LIST, "AnimationChannel")),
                  "samplers": ([], (LIST, "AnimationSampler"))},
    "AnimationChannel": {**_COMMON, "sampler": (None, None), "target": (None, "AnimationChannelTarget")},
    "AnimationChannelTarget": {**_COMMON, "node": (None, None), "path": (None, None)},
    "AnimationSampler": {**_COMMON, "input": (None, None), "interpolation": ("LINEAR", None),
                         "output": (None, None)},
    "Asset": {**_COMMON, "generator": (None, None), "copyright": (None, None), "version": ("2.0", None),
              "minVersion": (None, None)},
    "BufferView": {**_COMMON, "buffer": (None, None), "byteOffset": (0, None), "byteLength": (None, None),
                   "byteStride": (None, None), "target": (None, None), "name": (None, None)},
    "Buffer": {**_COMMON, "uri": (None, None), "byteLength": (None, None)},
    "Camera": {**_COMMON, "perspective": (None, "Perspective"), "orthographic": (None, "Orthographic"),
               "type": (None, None), "name": (None, None)},
    "Perspective": {**_COMMON, "aspectRatio": (None, None), "yfov": (None, None), "zfar": (None, None),
                    "znear": (None, None)},
    "Orthographic": {**_COMMON, "xmag": (None, None), "ymag": (None, None), "zfar": (None, None),
                     "znear": (None, None)},
    "Image": {**_COMMON, "uri": (None, None), "mimeType": (None, None), "bufferView": (None, None),
              "name": (None, None)},
    "Material": {**_COMMON, "pbrMetallicRoughness": (None, "PbrMetallicRoughness"),
                 "normalTexture": (None, "NormalMaterialTexture"),
                 "occlusionTexture": (None, "OcclusionTextureInfo"),
                 "emissiveFactor": ([0.0, 0.0, 0.0], None),
                 "emissiveTexture": (None, "TextureInfo"), "alphaMode": ("OPAQUE", None),
                 "alphaCutoff": (None, None), "doubleSided": (False, None), "name": (None, None)},
    "PbrMetallicRoughness": {**_COMMON, "baseColorFactor": ([1.0, 1.0, 1.0, 1.0], None),
                             "metallicFactor": (1.0, None), "roughnessFactor": (1.0, None),
                             "baseColorTexture": (None, "TextureInfo"),
                             "metallicRoughnessTexture": (None, "TextureInfo")},
    "TextureInfo": {**_COMMON, **_TEXTURE_REFERENCE, "texCoord": (0, None)},
    "NormalMaterialTexture": {**_COMMON, **_TEXTURE_REFERENCE, "texCoord": (None, None),
                              "scale": (1.0, None)},
    "OcclusionTextureInfo": {**_COMMON, **_TEXTURE_REFERENCE, "texCoord": (None, None),
                             "strength": (1.0, None)},
    "Mesh": {**_COMMON, "primitives": ([], (LIST, "Primitive")), "weights": ([], None), "name": (None, None)},
    # pygltflib's default ``attributes`` is an empty Attributes object; the reader reads an empty dict
    # the same way (container.attribute_accessors).
    "Primitive": {**_COMMON, "attributes": ({}, None), "indices": (None, None), "mode": (4, None),
                  "material": (None, None), "targets": ([], None)},
    "Node": {**_COMMON, "mesh": (None, None), "skin": (None, None), "rotation": (None, None),
             "translation": (None, None), "scale": (None, None), "children": ([], None),
             "matrix": (None, None), "camera": (None, None), "name": (None, None)},
    "Sampler": {**_COMMON, "input": (None, None), "interpolation": (None, None), "output": (None, None),
                "magFilter": (None, None), "minFilter": (None, None), "wrapS": (10497, None),
                "wrapT": (10497, None)},
    "Scene": {**_COMMON, "name": (None, None), "nodes": ([], None)},
    "Skin": {**_COMMON, "inverseBindMatrices": (None, None), "skeleton": (None, None), "joints": ([], None),
             "name": (None, None)},
    "Texture": {**_COMMON, "sampler": (None, None), "source": (None, None), "name": (None, None)},
}


class GltfObject:
    """One glTF object: every field of its class as an attribute (its default where the JSON has none);
    members the class does not know are left out, as pygltflib leaves them out."""

    def __init__(self, kind: str, fields: dict):
        self.kind = kind
        self.__dict__.update(fields)

    def fields(self) -> dict:
        """Field name → value, without ``kind``."""
        return {name: value for name, value in vars(self).items() if name != "kind"}

    def __repr__(self) -> str:
        members = ", ".join(f"{name}={value!r}" for name, value in self.fields().items())
        return f"{self.kind}({members})"


def build(kind: str, members: dict) -> GltfObject:
    """The ``kind`` object a JSON object describes."""
    schema = CLASSES[kind]
    fields = {name: copy.copy(default) for name, (default, _) in schema.items()}
    for name, value in members.items():
        if name in schema:
            fields[name] = _decoded(schema[name][1], value)
    return GltfObject(kind, fields)


def _decoded(nested, value):
    """A JSON value as a field whose nested class is ``nested`` holds it: objects become that class (in
    lists too); anything else stays as the JSON has it."""
    if nested is None or value is None:
        return value
    if isinstance(nested, tuple):
        return [_decoded(nested[1], item) for item in value] if isinstance(value, list) else value
    return build(nested, value) if isinstance(value, dict) else value
