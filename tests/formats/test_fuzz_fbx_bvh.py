"""Mutation fuzzing of the FBX and BVH readers: every broken file must end in ReadError, quickly,
and never crash the process (the FBX reader's child may crash; the reader then raises ReadError).

FBX originals: the tests' ASCII file (skin, blend shape, two stacks) and the corpus's binary
huesitos.fbx, mutated as text (tests/formats/test_fuzz_text.py) and as bytes
(tests/formats/test_fuzz_binary.py) in turn. BVH originals: the tests' chain and the CMU take, as
text. tests/fuzzing.py runs the cases in a watched child process.
"""

from __future__ import annotations

import numpy as np
import pytest

from app import loading
from app.formats.registry import LoadOptions, SniffedFile, formats
from tests import fuzzing
from tests.formats import test_fuzz_binary, test_fuzz_text
from tests.formats.test_bvh import FRAMES, chain
from tests.formats.test_fbx import written
from tests.paths import CORPUS


def originals(reader: str, folder) -> list[dict[str, bytes]]:
    if reader == "fbx":
        return [{"strip.fbx": written(folder).read_bytes()},
                {"huesitos.fbx": (CORPUS / "assimp-fbx" / "huesitos.fbx").read_bytes()}]
    return [{"chain.bvh": chain("ZXY", FRAMES).encode()}, {"take.bvh": _short_take(20)}]


def _short_take(frames: int) -> bytes:
    """The corpus's CMU take cut to its first ``frames`` frames (the mutations are quicker on it)."""
    text = (CORPUS / "cmu-bvh" / "01_01_first240.bvh").read_bytes()
    hierarchy, motion = text.split(b"MOTION", 1)
    lines = motion.strip().split(b"\n")
    return b"\n".join([hierarchy + b"MOTION", f"Frames: {frames}".encode(), lines[1], *lines[2:2 + frames]])


def mutate(data: bytes, rng: np.random.Generator) -> bytes:
    """Binary FBX as bytes, text files as text."""
    if data.startswith(b"Kaydara FBX Binary"):
        return test_fuzz_binary.mutate(data, rng)
    return test_fuzz_text.mutate(data, rng)


def load(reader: str, paths):
    files = [SniffedFile(path, reader, "model") for path in paths]
    return loading.finish(formats[reader].load(files, LoadOptions()))


@pytest.mark.fuzz
@pytest.mark.parametrize("reader, seed", [("fbx", 600), ("bvh", 700)])
def test_mutations_raise_only_read_error(tmp_path, reader, seed):
    for files in originals(reader, tmp_path):
        for name, data in files.items():
            (tmp_path / name).write_bytes(data)
        fuzzing.check_poses(load(reader, [tmp_path / name for name in sorted(files)]))
    fuzzing.run(reader, seed, tmp_path)
