"""Mutation fuzzing of the text readers: every broken file must end in ReadError, quickly.

Valid files are written by tests/writers, then mutated with a seeded generator (byte flips,
truncations, token swaps, number replacements, line deletions and duplications). The number of
cases per reader comes from BONEYARD_FUZZ_EXAMPLES (default 2000, split over the reader's files).
"""

from __future__ import annotations

import os
import re
import time
import warnings

import numpy as np
import pytest

from app.formats import bnf, bonespro, lgw, nwn_model
from app.formats.registry import LoadOptions, ReadError, SniffedFile
from tests.test_nwn_ascii import every_kind_tree
from tests.test_nwn_mdl import cast_animation, model_tree, walk_animation
from tests.writers import text_formats as write
from tests.writers.nwn_ascii_writer import write_ascii_mdl

EXAMPLES = int(os.environ.get("BONEYARD_FUZZ_EXAMPLES", "2000"))
#: Slowest a single case may be, in seconds.
CASE_LIMIT = 2.0
TOKEN = re.compile(rb"\S+")
REPLACEMENTS = [b"-1", b"0", b"1", b"2", b"3", b"99999999999", b"1e308", b"-1e308", b"nan", b"inf", b"*",
                b"<x", b'"', b"//", b"0.5", b"1e-320", b"END_OF_MESH", b"Time:", b"Bones", b"\x00",
                b"\xff\xfe"]


def mutate(data: bytes, rng: np.random.Generator) -> bytes:
    """One random mutation of ``data``."""
    choice = rng.integers(6)
    if choice == 0 and data:
        position = rng.integers(len(data))
        return data[:position] + bytes([rng.integers(256)]) + data[position + 1:]
    if choice == 1:
        return data[: rng.integers(len(data) + 1)]
    tokens = list(TOKEN.finditer(data))
    if choice in (2, 3) and tokens:
        token = tokens[rng.integers(len(tokens))]
        if choice == 2:
            other = tokens[rng.integers(len(tokens))].group(0)
        else:
            other = REPLACEMENTS[rng.integers(len(REPLACEMENTS))]
        return data[:token.start()] + other + data[token.end():]
    lines = data.split(b"\n")
    index = rng.integers(len(lines))
    if choice == 4:
        return b"\n".join(lines[:index] + lines[index + 1:])
    return b"\n".join(lines[:index] + [lines[index]] + lines[index:])


def run_cases(tmp_path, originals: dict[str, bytes], load, seed: int) -> None:
    """Mutate one of ``originals`` per case (several mutations stacked sometimes) and load them all."""
    rng = np.random.default_rng(seed)
    names = sorted(originals)
    for case in range(EXAMPLES):
        target = names[case % len(names)]
        data = originals[target]
        for _ in range(1 + rng.integers(3) * (rng.random() < 0.3)):
            data = mutate(data, rng)
        for name in names:
            (tmp_path / name).write_bytes(data if name == target else originals[name])
        started = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                load([tmp_path / name for name in names])
            except ReadError:
                pass
            except Exception as error:  # noqa: BLE001 — the point is to report anything else
                (tmp_path / "failing").write_bytes(data)
                raise AssertionError(f"case {case} (seed {seed}, mutated {target}): "
                                     f"{type(error).__name__}: {error}") from error
        elapsed = time.perf_counter() - started
        assert elapsed < CASE_LIMIT, f"case {case} (seed {seed}, {target}) took {elapsed:.2f} s"


def bonespro_files(tmp_path) -> dict[str, bytes]:
    rng = np.random.default_rng(1)
    bind = np.tile(np.eye(4), (3, 1, 1))
    bind[:, :3, 3] = rng.uniform(-1, 1, (3, 3))
    influences = [[(0, 0.5), (1, 0.5)], [(2, 1.0)], [], [(1, 0.2), (2, 0.8)]]
    write.bonespro_structure(tmp_path / "s", ["a", "b c", "d"], [-1, 0, 0], bind, rng.uniform(-1, 1, (4, 3)),
                             influences)
    write.bonespro_bones_euler(tmp_path / "e", rng.uniform(-90, 90, (2, 3, 3)), rng.uniform(-1, 1, (2, 3, 3)),
                               4, system="Relative to parent", order="ZXZ")
    world = np.repeat(bind[None], 2, axis=0)
    write.bonespro_bones_matrix(tmp_path / "m", world, 4)
    entries = [[[(0, (0.1, 0.2, 0.3))], [(0, (0.0, 1.0, 0.0)), (3, (1.0, 0.0, 0.0))],
                [(1, (0.5, 0.5, 0.5))]]] * 2
    write.bonespro_mesh_bones(tmp_path / "c", entries, 3, 4)
    write.bonespro_mesh_absolute(tmp_path / "v", rng.uniform(-1, 1, (2, 4, 3)), 3)
    write.obj(tmp_path / "o", rng.uniform(-1, 1, (4, 3)), [[0, 1, 2], [1, 2, 3]])
    return {name: (tmp_path / name).read_bytes() for name in "secmvo"}


def load_bonespro(paths):
    roles = {"s": "structure", "o": "faces"}
    files = [SniffedFile(p, "obj" if p.name == "o" else "bonespro", roles.get(p.name, "animation"))
             for p in paths]
    return bonespro.load(files, LoadOptions())


def lgw_files(tmp_path) -> dict[str, bytes]:
    rng = np.random.default_rng(2)
    arm = np.array([[0, -1, 0, 1], [1, 0, 0, 2], [0, 0, 0.5, 3], [0, 0, 0, 1.0]])
    pivots = {"root": np.eye(4), "arm": arm}
    verts = np.hstack([rng.uniform(-1, 1, (4, 3)), rng.uniform(0, 1, (4, 2)), np.tile([0, 0, 1.0], (4, 1))])
    blocks = [write.lgw_mesh("skin", write.lgw_skin_link(pivots), verts, [[0, 1, 2], [2, 3, 0]],
                             [[(1.0, "root")], [(0.5, "root"), (0.5, "arm")], [(1.0, "arm")], []]),
              write.lgw_mesh("prop", write.lgw_normal_link("arm", pivots["arm"]), verts[:3], [[0, 1, 2]]),
              write.lgw_helper("tip", "arm", pivots["arm"], np.eye(4))]
    write.lgw_model(tmp_path / "model", blocks, ["SPECULAR 1 1 1"])
    return {"model": (tmp_path / "model").read_bytes()}


def load_lgw(paths):
    return lgw.load([SniffedFile(paths[0], "lgw", "model")], LoadOptions())


def bnf_files(tmp_path) -> dict[str, bytes]:
    rng = np.random.default_rng(3)
    parents = [-1, 0, 1, 0]
    write.bnf(tmp_path / "b", parents, rng.uniform(-1, 1, (4, 3)))
    write.anm(tmp_path / "a", [0, 0.5, 1], rng.normal(size=(3, 4, 4)))
    write.prm(tmp_path / "p", [(0, 0, 1, 2), (1, 3, 0.5, 1), (2, 2, 1, 1), (3, 1, 0.5, 1)])
    return {name: (tmp_path / name).read_bytes() for name in "bap"}


def load_bnf(paths):
    roles = {"b": "bones", "a": "animation", "p": "parameters"}
    return bnf.load([SniffedFile(p, "bnf", roles[p.name]) for p in paths], LoadOptions())


def nwn_ascii_files(tmp_path) -> dict[str, bytes]:
    """A model (counted keys) and a lender of every node kind (bezier keys without counts)."""
    files = {"m.mdl": write_ascii_mdl("m", model_tree(), [walk_animation()], supermodel="k"),
             "k.mdl": write_ascii_mdl("k", every_kind_tree(), [cast_animation()], key_form="endlist",
                                      bezier=True)}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return files


def load_nwn_ascii(paths):
    return nwn_model.load([SniffedFile(p, "nwn_ascii", "model") for p in paths], LoadOptions())


@pytest.mark.fuzz
@pytest.mark.parametrize("make, load, seed", [(bonespro_files, load_bonespro, 100),
                                              (lgw_files, load_lgw, 200),
                                              (bnf_files, load_bnf, 300),
                                              (nwn_ascii_files, load_nwn_ascii, 400)],
                         ids=["bonespro", "lgw", "bnf", "nwn_ascii"])
def test_mutations_raise_only_read_error(tmp_path, make, load, seed):
    originals = make(tmp_path)
    load([tmp_path / name for name in sorted(originals)])  # the unmutated files load
    run_cases(tmp_path, originals, load, seed)
