"""The glTF container's document decoding: pygltflib's own decoder (``GLTF2.from_dict``) is the oracle
the reader's objects (app/formats/gltf/objects.py, which do not import pygltflib) must match field by
field, on the built-in demo, on the exporter's files, on the corpus and on a document that uses every
member the reader looks at, plus members it does not know."""

from __future__ import annotations

import dataclasses
import json
import typing
import warnings
from pathlib import Path

import numpy as np
import pytest
from pygltflib import GLTF2

from app import loading
from app.export.gltf import export_gltf
from app.formats.gltf.container import parse_glb, parse_json, to_gltf
from app.formats.gltf.objects import CLASSES, LIST, GltfObject
from app.formats.registry import ReadError
from app.resources import demo_paths
from tests import synthetic


def oracle(document: dict) -> GLTF2:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # it warns of a missing image uri, which the reader handles
        return GLTF2.from_dict(document)


def plain(value):
    """pygltflib's dataclasses and the reader's objects as nested (class name, fields) tuples. Where
    pygltflib makes its default ``Attributes`` object, the reader keeps an empty dict; its default
    ``asset.generator`` names pygltflib's version, the reader's is None."""
    if type(value).__name__ == "Attributes" and not any(vars(value).values()):
        return {}
    if dataclasses.is_dataclass(value):
        fields = {item.name: plain(getattr(value, item.name)) for item in dataclasses.fields(value)}
        kind = type(value).__name__
    elif isinstance(value, GltfObject):
        fields, kind = {name: plain(item) for name, item in value.fields().items()}, value.kind
    elif isinstance(value, list):
        return [plain(item) for item in value]
    else:
        return value
    if kind == "Asset" and str(fields["generator"]).startswith("pygltflib@"):
        fields["generator"] = None
    return kind, fields


def same_as_pygltflib(document: dict) -> bool:
    return plain(to_gltf(document)) == plain(oracle(document))


def _schema_of(cls, found: dict) -> None:
    """pygltflib's classes reachable from ``cls`` in the form of ``objects.CLASSES``."""
    if cls.__name__ in found:
        return
    hints = typing.get_type_hints(cls)
    found[cls.__name__] = fields = {}
    for item in dataclasses.fields(cls):
        default = item.default if item.default is not dataclasses.MISSING else item.default_factory()
        fields[item.name] = (plain(default), _nested(hints[item.name], found))


def _nested(kind, found):
    origin = typing.get_origin(kind)
    if origin is typing.Union:
        options = [option for option in typing.get_args(kind) if option is not type(None)]
        return _nested(options[0], found) if len(options) == 1 else None
    if origin is list:
        item = _nested(typing.get_args(kind)[0], found)
        return (LIST, item) if item else None
    if dataclasses.is_dataclass(kind):
        _schema_of(kind, found)
        return kind.__name__
    return None


def test_the_schema_table_is_pygltflibs():
    """Every class, field, default and nesting of ``objects.CLASSES`` as pygltflib declares it (the
    documented exceptions: Primitive's default attributes, Asset's default generator)."""
    found = {}
    _schema_of(GLTF2, found)
    found["Asset"]["generator"] = (None, None)
    found["GLTF2"]["asset"] = (None, "Asset")  # a default Asset pygltflib makes; the schema requires one
    assert {kind: list(fields) for kind, fields in found.items()} == \
        {kind: list(fields) for kind, fields in CLASSES.items()}
    assert found == CLASSES


def test_defaults_are_not_shared_between_objects():
    first, second = to_gltf({"asset": {}, "nodes": [{}, {}]}).nodes
    first.children.append(1)
    assert second.children == [] and CLASSES["Node"]["children"][0] == []


def every_member_document() -> dict:
    texture_info = {"index": 0, "texCoord": 0, "extensions": {"KHR_texture_transform": {"scale": [2, 2]}}}
    return {
        "asset": {"version": "2.0", "generator": "hand", "copyright": "none", "extras": {"a": 1}},
        "extensionsUsed": ["KHR_texture_transform", "KHR_lights_punctual"],
        "extensions": {"KHR_lights_punctual": {"lights": [{"type": "point"}]}},
        "scene": 0,
        "scenes": [{"nodes": [0], "name": "only"}],
        "nodes": [{"name": "root", "children": [1, 2], "matrix": list(np.eye(4).ravel())},
                  {"name": "bone", "translation": [0, 1, 0], "rotation": [0, 0, 0, 1], "scale": [1, 2, 1],
                   "weights": [0.5], "unknownMember": True},
                  {"name": "skinned", "mesh": 0, "skin": 0, "camera": 0, "extras": {"tag": "x"}}],
        "meshes": [{"name": "m", "weights": [0.25],
                    "primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "_CUSTOM": 0},
                                    "indices": 2, "mode": 4, "material": 0,
                                    "targets": [{"POSITION": 0}], "extras": {}}]}],
        "skins": [{"joints": [1], "inverseBindMatrices": 3, "skeleton": 1, "name": "skin"}],
        "accessors": [{"bufferView": 0, "byteOffset": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                       "max": [1, 1, 0], "min": [0, 0, 0], "normalized": False, "name": "p"},
                      {"bufferView": 0, "componentType": 5121, "count": 3, "type": "VEC4"},
                      {"componentType": 5123, "count": 3, "type": "SCALAR",
                       "sparse": {"count": 1, "indices": {"bufferView": 0, "componentType": 5123},
                                  "values": {"bufferView": 0, "byteOffset": 4}}},
                      {"bufferView": 1, "componentType": 5126, "count": 1, "type": "MAT4"}],
        "bufferViews": [{"buffer": 0, "byteLength": 36, "byteStride": 12, "target": 34962, "name": "v"},
                        {"buffer": 0, "byteOffset": 36, "byteLength": 64}],
        "buffers": [{"byteLength": 100, "uri": "data:application/octet-stream;base64,AAAA"}],
        "materials": [{"name": "skin", "alphaMode": "MASK", "alphaCutoff": 0.3, "doubleSided": True,
                       "pbrMetallicRoughness": {"baseColorFactor": [1, 0.5, 0.5, 1],
                                                "baseColorTexture": texture_info, "metallicFactor": 0.0},
                       "normalTexture": {"index": 0, "scale": 1.0}, "occlusionTexture": {"index": 0,
                                                                                          "strength": 0.5},
                       "emissiveTexture": {"index": 0}, "emissiveFactor": [0, 0, 0],
                       "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": 2}}}],
        "textures": [{"sampler": 0, "source": 0}],
        "samplers": [{"magFilter": 9729, "minFilter": 9987, "wrapS": 33648, "wrapT": 10497}],
        "images": [{"uri": "skin.png", "mimeType": "image/png", "name": "i"}, {"bufferView": 1,
                                                                              "mimeType": "image/jpeg"}],
        "cameras": [{"type": "perspective", "perspective": {"yfov": 0.8, "znear": 0.1, "aspectRatio": 1.5}},
                    {"type": "orthographic", "orthographic": {"xmag": 1, "ymag": 1, "znear": 0, "zfar": 2}}],
        "animations": [{"name": "a", "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}},
                                                  {"sampler": 0, "target": {"path": "weights", "node": 2}}],
                        "samplers": [{"input": 0, "output": 0, "interpolation": "STEP"}]}],
    }


def test_every_member_decodes_as_pygltflib_decodes_it():
    document = every_member_document()
    parse_json(Path("hand.gltf"), _json_bytes(document), 0)  # the document passes the schema check
    assert same_as_pygltflib(document)


def test_the_demo_decodes_as_pygltflib_decodes_it():
    path = Path(demo_paths()[0])
    document, _ = parse_glb(path, path.read_bytes())
    decoded = to_gltf(document)
    assert same_as_pygltflib(document)
    assert len(decoded.nodes) == len(document["nodes"]) and decoded.accessors[0].count > 0


@pytest.mark.parametrize("up_axis", ["Y", "Z"])
def test_exported_files_decode_as_pygltflib_decodes_them(tmp_path, up_axis):
    model = synthetic.humanoid(up_axis=up_axis)
    path = tmp_path / "out.glb"
    export_gltf(model, path)
    document, _ = parse_glb(path, path.read_bytes())
    assert same_as_pygltflib(document)
    assert loading.load([path]).vertex_count == model.vertex_count


CORPUS = Path(__file__).parent.parent / "corpus"


@pytest.mark.parametrize("path", sorted([*CORPUS.glob("*/*.gltf"), *CORPUS.glob("*/*.glb")]),
                         ids=lambda path: path.name)
def test_corpus_files_decode_as_pygltflib_decodes_them(path):
    data = path.read_bytes()
    document = parse_glb(path, data)[0] if data[:4] == b"glTF" else parse_json(path, data, 0)
    assert same_as_pygltflib(document)


def test_reading_a_gltf_does_not_import_pygltflib():
    import subprocess
    import sys
    code = ("import sys; from app import loading; from app.resources import demo_paths; "
            "loading.load([demo_paths()[0]]); print(sorted(m for m in sys.modules if 'gltflib' in m "
            "or m.startswith(('marshmallow', 'dataclasses_json'))))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def _json_bytes(document: dict) -> bytes:
    return json.dumps(document).encode()


@pytest.mark.parametrize("version", ["1.0", 1, "3.0"])
def test_a_document_of_another_gltf_version_is_refused_as_such(tmp_path, version):
    """A glTF 1.0 document ("scene" a string id, maps instead of lists) is named for its version, not for
    the first 1.0 member the 2.0 schema check would trip on."""
    path = tmp_path / "old.gltf"
    path.write_text(json.dumps({"asset": {"version": version}, "scene": "defaultScene",
                                "scenes": {"defaultScene": {"nodes": []}}}))
    with pytest.raises(ReadError, match=rf"old\.gltf: asset\.version is {version!r}: this reader "
                                                r"reads glTF 2\.0; convert it to glTF 2\.0 first"):
        loading.load([path])


def test_a_binary_gltf_1_file_is_refused_as_such_before_its_length_is_checked(tmp_path):
    """glTF 1.0's binary form counts its length differently: the version is what to report."""
    content = b'{"asset": {"version": "1.0"}}'
    path = tmp_path / "old.glb"
    path.write_bytes(b"glTF" + (1).to_bytes(4, "little") + (len(content) + 40).to_bytes(4, "little")
                     + len(content).to_bytes(4, "little") + (0).to_bytes(4, "little") + content)
    with pytest.raises(ReadError, match=r"old\.glb: at byte 4 \(0x4\): GLB version 1 \(glTF 1\.0\); "
                                                r"this reader reads glTF 2\.0"):
        loading.load([path])


@pytest.mark.parametrize("version", ["2.0", "2.1", ""])
def test_any_gltf_2_version_is_read(tmp_path, version):
    path = tmp_path / "new.gltf"
    path.write_text(json.dumps({"asset": {"version": version}}))
    assert list(loading.load([path]).meshes) == []
