"""Seeded byte-mutation fuzzing of the binary readers: only ReadError may come out, quickly.

The number of cases per reader comes from BONEYARD_FUZZ_EXAMPLES (default 2000).
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from app.formats import c3de, nwn_model
from app.formats.registry import LoadOptions, ReadError, SniffedFile
from tests.test_c3de import BIND, BONE0, BONE1, HEADS, POSITIONS, TAILS, UVS, WEIGHT0, skinning_frames
from tests.test_nwn_mdl import cast_animation, model_tree, walk_animation
from tests.writers.c3de_writer import write_bones_2009, write_bones_2010, write_mesh
from tests.writers.nwn_writer import write_mdl

EXAMPLES = int(os.environ.get("BONEYARD_FUZZ_EXAMPLES", "2000"))
#: Longest a single case may take, seconds.
CASE_LIMIT = 2.0
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


def run_cases(tmp_path, seeds: list[tuple[str, bytes]], load, seed: int) -> None:
    rng = np.random.default_rng(seed)
    path = tmp_path / "case.bin"
    for case in range(EXAMPLES):
        role, original = seeds[case % len(seeds)]
        data = mutate(original, rng)
        path.write_bytes(data)
        started = time.perf_counter()
        try:
            load(path, role)
        except ReadError:
            pass
        except Exception as error:  # noqa: BLE001 - the point of the test
            raise AssertionError(f"case {case} ({role}, {len(data)} bytes): {type(error).__name__}: {error}; "
                                 f"bytes {data.hex()}") from error
        elapsed = time.perf_counter() - started
        assert elapsed < CASE_LIMIT, f"case {case} took {elapsed:.2f} s"


@pytest.mark.fuzz
def test_fuzz_nwn_mdl(tmp_path):
    seeds = [("model", write_mdl("c_test", model_tree(), [walk_animation(), cast_animation()]))]

    def load(path, role):
        nwn_model.load([SniffedFile(path, "nwn_mdl", role)], LoadOptions())
    run_cases(tmp_path, seeds, load, seed=2)


@pytest.mark.fuzz
def test_fuzz_c3de(tmp_path):
    seeds = [("mesh", write_mesh(POSITIONS, BONE0, BONE1, WEIGHT0, UVS, layout="2010")),
             ("mesh", write_mesh(POSITIONS, BONE0, BONE1, WEIGHT0, layout="2009",
                                 indices=[0, 1, 2, 3, 4, 5])),
             ("bones", write_bones_2010(BIND, HEADS, TAILS, skinning_frames(3), [-1, 0])),
             ("bones", write_bones_2009(skinning_frames(5), clip_frames=[2, 3]))]

    def load(path, role):
        c3de.load([SniffedFile(path, "c3de", role)], LoadOptions())
    run_cases(tmp_path, seeds, load, seed=3)
