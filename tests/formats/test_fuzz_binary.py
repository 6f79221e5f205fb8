"""Seeded byte-mutation fuzzing of the binary readers: only ReadError may come out, quickly.

tests/fuzzing.py runs the cases in a watched child process.
"""

from __future__ import annotations

import numpy as np
import pytest

from app import loading
from app.formats import c3de
from app.formats.nwn import supermodels
from app.formats.registry import LoadOptions, SniffedFile
from tests import fuzzing
from tests.formats.test_c3de import BIND, BONE0, BONE1, HEADS, POSITIONS, TAILS, UVS, WEIGHT0, skinning_frames
from tests.formats.test_nwn_dangly_emitters import tree as effects_tree
from tests.formats.test_nwn_mdl import cast_animation, model_tree, walk_animation
from tests.writers.c3de_writer import write_bones_2009, write_bones_2010, write_mesh
from tests.writers.nwn_writer import write_mdl

INTERESTING = [0, 1, 0xFF, 0x7F, 0x80]
INTERESTING_U32 = [0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 0x10000, 12, 0x70]


def mutate(data: bytes, rng: np.random.Generator) -> bytes:
    """A few random edits: byte flips, interesting bytes or u32s at aligned offsets, truncation."""
    out = bytearray(data)
    for _ in range(int(rng.integers(1, 5))):
        choice = int(rng.integers(0, 5))
        if not out:
            break
        if choice == 0:
            out[int(rng.integers(len(out)))] ^= 1 << int(rng.integers(8))
        elif choice == 1:
            out[int(rng.integers(len(out)))] = INTERESTING[int(rng.integers(len(INTERESTING)))]
        elif choice in (2, 3) and len(out) >= 4:
            at = int(rng.integers(len(out) // 4)) * 4
            value = int(INTERESTING_U32[int(rng.integers(len(INTERESTING_U32)))])
            out[at:at + 4] = value.to_bytes(4, "little")
        else:
            del out[int(rng.integers(len(out))):]
    return bytes(out)


def originals(reader: str, folder) -> list[dict[str, bytes]]:
    """One file per set, named for its role."""
    if reader == "nwn_mdl":
        return [{"model.mdl": write_mdl("c_test", model_tree(), [walk_animation(), cast_animation()])},
                {"model.mdl": write_mdl("c_fx", effects_tree())}]
    return [{"mesh.c3d": write_mesh(POSITIONS, BONE0, BONE1, WEIGHT0, UVS, layout="2010")},
            {"mesh.c3d": write_mesh(POSITIONS, BONE0, BONE1, WEIGHT0, layout="2009",
                                    indices=[0, 1, 2, 3, 4, 5])},
            {"bones.c3d": write_bones_2010(BIND, HEADS, TAILS, skinning_frames(3), [-1, 0])},
            {"bones.c3d": write_bones_2009(skinning_frames(5), clip_frames=[2, 3])}]


def load(reader: str, paths):
    if reader == "nwn_mdl":
        return loading.finish(supermodels.load([SniffedFile(paths[0], "nwn_mdl", "model")], LoadOptions()))
    return loading.finish(c3de.load([SniffedFile(path, "c3de", path.stem) for path in paths], LoadOptions()))


@pytest.mark.fuzz
@pytest.mark.parametrize("reader, seed", [("nwn_mdl", 2), ("c3de", 3)])
def test_mutations_raise_only_read_error(tmp_path, reader, seed):
    for files in originals(reader, tmp_path):
        for name, data in files.items():
            (tmp_path / name).write_bytes(data)
        fuzzing.check_poses(load(reader, [tmp_path / name for name in files]))  # the originals load
    fuzzing.run(reader, seed, tmp_path)
