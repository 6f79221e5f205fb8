"""Mutation fuzzing of the glTF reader: JSON values replaced by null, zero, huge or wrong-typed values,
keys deleted, buffer bytes flipped, buffer and image URIs pointed elsewhere (symlink loops, devices,
FIFOs, folders), integers of hundreds or thousands of digits, members nested thousands deep, and
byteLength / byteOffset / count set at and just past their limits. Only ReadError may come out, and
every model that loads poses finitely. tests/fuzzing.py runs the cases in a watched child process.
"""

from __future__ import annotations

import base64
import json
import os
import struct

import numpy as np
import pytest

from app import loading
from app.formats.gltf import reader as gltf
from app.formats.registry import ReadError
from tests import fuzzing
from tests.writers.gltf_writer import write_gltf

#: Values a member is replaced with: nulls, zeros, huge and non-finite numbers, wrong types, and
#: references to files outside the folder, devices and missing files.
VALUES = [None, 0, -1, 1, 2, 0.0, 1e308, -1e308, 1e19, 2 ** 31, 2 ** 64, 1.5, True, "", "x", [], {}, [None],
          [0, 0, 0], [0.0, 0.0, 0.0, 0.0], [1e308, 0, 0], [0] * 16, "/dev/zero", "../outside.bin",
          "missing.bin", "data:application/octet-stream;base64,AAAA", "NaN", 10 ** 400, -(10 ** 400),
          [10 ** 400, 0, 0], 2 ** 53 + 1, 2 ** 63, "@deep20@", "@huge5000@"]
#: Files ``specials`` makes beside each case, for URIs to name: a symlink loop, a link to a device,
#: a link out of the folder, a FIFO and a folder.
SPECIAL_FILES = ["loop.bin", "zero.bin", "up.bin", "fifo.bin", "folder.bin"]
#: Raw JSON for the placeholders above (json.dumps cannot write them: a 5,000-digit integer is past
#: Python's int-to-text limit, and nesting thousands deep past its recursion limit).
RAW = {"@huge5000@": "9" * 5000, "@deep20@": "[" * 20 + "]" * 20, "@deep900@": "[" * 900 + "]" * 900,
       "@deep100000@": "[" * 100_000 + "]" * 100_000, "@deepobj5000@": '{"a":' * 5000 + "0" + "}" * 5000}
#: Where sizes and offsets live, and values at their limits (the actual value ±1 is added).
LIMIT_FIELDS = [("accessors", "count"), ("accessors", "byteOffset"), ("bufferViews", "byteLength"),
                ("bufferViews", "byteOffset"), ("bufferViews", "byteStride"), ("buffers", "byteLength")]
LIMITS = [0, 1, 4, 252, 256, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 53 + 1, 2 ** 63 - 1, 2 ** 64,
          -1]


def specials(folder) -> None:
    """The special files of SPECIAL_FILES in a case's folder."""
    (folder / "loop.bin").symlink_to("loop.bin")
    (folder / "zero.bin").symlink_to("/dev/zero")
    (folder / "up.bin").symlink_to("../outside.bin")
    os.mkfifo(folder / "fifo.bin")
    (folder / "folder.bin").mkdir()


def _document() -> tuple[dict, list]:
    """A skinned strip of two triangles on a chain of three nodes, with a TRS animation, a morph target,
    a material with a texture and a sidecar image name."""
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], float)
    document = {
        "scene": 0, "scenes": [{"nodes": [0, 3]}],
        "nodes": [{"name": "root", "children": [1], "translation": [0, 1, 0]},
                  {"name": "mid", "children": [2], "rotation": [0, 0, 0.6, 0.8], "scale": [1, 2, 1]},
                  {"name": "tip", "translation": [0, 1, 0]},
                  {"name": "body", "mesh": 0, "skin": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2},
                                    "indices": 3, "material": 0, "targets": [{"POSITION": 4}]}],
                    "weights": [0.5]}],
        "skins": [{"joints": [0, 1, 2], "inverseBindMatrices": 5}],
        "materials": [{"pbrMetallicRoughness": {"baseColorFactor": [1, 0.5, 0.5, 1],
                                                "baseColorTexture": {"index": 0}}}],
        "textures": [{"source": 0}], "images": [{"uri": "skin.png"}],
        "animations": [{"samplers": [{"input": 6, "output": 7}, {"input": 6, "output": 8},
                                     {"input": 6, "output": 9, "interpolation": "STEP"}],
                        "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}},
                                     {"sampler": 1, "target": {"node": 2, "path": "translation"}},
                                     {"sampler": 2, "target": {"node": 3, "path": "weights"}}]}],
    }
    inverse_binds = np.tile(np.eye(4), (3, 1, 1))
    inverse_binds[:, 3, 1] = [-1, -1, -2]  # column-major: translation in the last row
    arrays = [(positions, "VEC3", 5126),
              (np.array([[0, 1, 0, 0], [1, 2, 0, 0], [1, 0, 0, 0], [2, 0, 0, 0]]), "VEC4", 5121),
              (np.array([[0.5, 0.5, 0, 0], [0.7, 0.3, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]]), "VEC4", 5126),
              (np.array([0, 1, 2, 2, 1, 3]), "SCALAR", 5123),
              (np.full((4, 3), 0.1), "VEC3", 5126),
              (inverse_binds.reshape(3, 16), "MAT4", 5126),
              (np.array([0.0, 0.5, 1.0]), "SCALAR", 5126),
              (np.array([[0, 0, 0, 1], [0, 0, 0.38, 0.92], [0, 0, 0.7, 0.7]]), "VEC4", 5126),
              (np.array([[0, 1, 0], [0, 1.5, 0], [0, 1, 0]]), "VEC3", 5126),
              (np.array([0.0, 1.0, 0.0]), "SCALAR", 5126)]
    return document, arrays


def originals(reader: str, folder) -> list[dict[str, bytes]]:
    """The document with its buffer embedded as a data URI, and again with the buffer in a sidecar."""
    document, arrays = _document()
    embedded = write_gltf(folder, document, arrays, "model.gltf").read_bytes()
    sidecar = json.loads(embedded)
    payload = base64.b64decode(sidecar["buffers"][0]["uri"].split(",", 1)[1])
    sidecar["buffers"][0]["uri"] = "model.bin"
    binary = json.loads(embedded)
    binary["buffers"][0].pop("uri")
    return [{"model.gltf": embedded},
            {"model.gltf": json.dumps(sidecar).encode(), "model.bin": payload, "skin.png": b"\x89PNG\r\n"},
            {"model.glb": _glb(binary, payload)}]


def _glb(document: dict, payload: bytes) -> bytes:
    """A GLB container: the 12-byte header, the JSON chunk and the BIN chunk, each padded to 4 bytes."""
    text = json.dumps(document).encode()
    text += b" " * (-len(text) % 4)
    payload += b"\0" * (-len(payload) % 4)
    chunks = struct.pack("<II", len(text), 0x4E4F534A) + text
    chunks += struct.pack("<II", len(payload), 0x004E4942) + payload
    return b"glTF" + struct.pack("<II", 2, 12 + len(chunks)) + chunks


def _members(value, path=()):
    """Every (container, key) pair inside a JSON value."""
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return
    for key, item in items:
        yield value, key
        yield from _members(item, (*path, key))


def mutate(data: bytes, rng: np.random.Generator) -> bytes:
    """A JSON document: one member replaced, deleted or duplicated, or its data URI's bytes flipped;
    anything else (the sidecar buffer or image): bytes flipped or cut."""
    if data[:4] == b"glTF":
        return _mutate_glb(data, rng)
    try:
        document = json.loads(data)
    except (ValueError, RecursionError):
        return _flip(data, rng) if data and rng.random() < 0.7 else data[: rng.integers(len(data) + 1)]
    members = list(_members(document))
    if not members:
        return _flip(data, rng)
    if rng.random() < 0.4:
        return _mutate_structure(document, members, rng)
    container, key = members[rng.integers(len(members))]
    choice = rng.integers(4)
    if choice == 0 and isinstance(container, dict):
        del container[key]
    elif choice == 1:
        container[key] = json.loads(json.dumps(container[rng.choice(list(container))] if isinstance(
            container, dict) else container[rng.integers(len(container))]))
    elif choice == 2 and "buffers" in document and isinstance(document["buffers"], list) and \
            document["buffers"] and isinstance(document["buffers"][0], dict) and \
            str(document["buffers"][0].get("uri", "")).startswith("data:"):
        header, _, payload = document["buffers"][0]["uri"].partition(",")
        raw = _flip(base64.b64decode(payload), rng)
        document["buffers"][0]["uri"] = header + "," + base64.b64encode(raw).decode()
    else:
        container[key] = json.loads(json.dumps(VALUES[rng.integers(len(VALUES))]))
    return _dumps(document)


def _mutate_structure(document: dict, members: list, rng: np.random.Generator) -> bytes:
    """A size or offset set at its limit, a URI naming a special file, or a member replaced by a huge
    integer or deep nesting (written as raw JSON)."""
    choice = rng.integers(3)
    if choice == 0:
        table, field = LIMIT_FIELDS[rng.integers(len(LIMIT_FIELDS))]
        items = document.get(table)
        item = items[rng.integers(len(items))] if isinstance(items, list) and items else None
        if isinstance(item, dict):
            actual = item.get(field, 0)
            near = [actual - 1, actual + 1] if isinstance(actual, int) else []
            values = LIMITS + near
            item[field] = values[rng.integers(len(values))]
    elif choice == 1:
        for table in ("buffers", "images"):
            items = document.get(table)
            if isinstance(items, list) and items and isinstance(items[0], dict) and rng.random() < 0.7:
                items[0]["uri"] = SPECIAL_FILES[rng.integers(len(SPECIAL_FILES))]
    else:
        container, key = members[rng.integers(len(members))]
        container[key] = list(RAW)[rng.integers(len(RAW))]
    return _dumps(document)


def _dumps(document: dict) -> bytes:
    """The document's JSON, with each RAW placeholder replaced by its raw text."""
    text = json.dumps(document)
    for placeholder, raw in RAW.items():
        text = text.replace(f'"{placeholder}"', raw)
    return text.encode()


def _mutate_glb(data: bytes, rng: np.random.Generator) -> bytes:
    """A GLB: its JSON chunk mutated as a document (the chunk length rewritten), or its bytes flipped
    (length fields included), or cut."""
    choice = rng.integers(3) if len(data) >= 20 else 2
    if choice == 0:
        length = struct.unpack_from("<I", data, 12)[0]
        text = mutate(data[20:20 + length], rng)
        text += b" " * (-len(text) % 4)
        rest = data[20 + length:]
        body = struct.pack("<II", len(text), 0x4E4F534A) + text + rest
        return b"glTF" + struct.pack("<II", 2, 12 + len(body)) + body
    if choice == 1:
        out = bytearray(data)
        at = int(rng.choice([8, 12, 20 + struct.unpack_from("<I", data, 12)[0]]))
        if at + 4 <= len(out):
            out[at:at + 4] = struct.pack("<I", int(rng.choice([0, 1, 0xFFFFFFFF, 0x7FFFFFFF, len(data)])))
        return _flip(bytes(out), rng) if rng.random() < 0.3 else bytes(out)
    return data[: rng.integers(len(data) + 1)]


def _flip(data: bytes, rng: np.random.Generator) -> bytes:
    out = bytearray(data)
    for _ in range(int(rng.integers(1, 5))):
        if out:
            out[rng.integers(len(out))] = int(rng.choice([0, 0xFF, 0x7F, 0x80, int(rng.integers(256))]))
    return bytes(out)


def opened(paths):
    """The files a user opens: the glTF itself (its buffer and image files are found through it)."""
    return [path for path in paths if path.suffix in (".gltf", ".glb")]


def load(reader: str, paths):
    """The model, or the reader's ReadError; one that names no JSON path (a Python error the reader
    caught as a last resort) is a failure."""
    try:
        return loading.finish(gltf.read(next(path for path in paths if path.suffix in (".gltf", ".glb"))))
    except ReadError as error:
        if error.message.startswith("unexpected structure"):
            raise AssertionError(f"a schema error without its JSON path: {error}") from None
        raise


@pytest.mark.fuzz
def test_mutations_raise_only_read_error(tmp_path):
    for files in originals("gltf", tmp_path):
        for name, data in files.items():
            (tmp_path / name).write_bytes(data)
        model = load("gltf", [tmp_path / name for name in files])
        assert len(model.skeleton) == 3 and model.clips  # the originals load, skinned and animated
        fuzzing.check_poses(model)
    (tmp_path / "outside.bin").write_bytes(b"\0" * 4096)
    fuzzing.run("gltf", 400, tmp_path)
