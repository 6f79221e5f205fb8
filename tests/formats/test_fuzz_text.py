"""Mutation fuzzing of the text readers: every broken file must end in ReadError, quickly.

Valid files are written by tests/writers, then mutated with a seeded generator (byte flips,
truncations, token swaps, number replacements, line deletions and duplications, long tokens, files
cut inside a numeric block); NWN ASCII models also get structural mutations (animation and node
blocks duplicated, up to hundreds of times, and names made to collide). tests/fuzzing.py runs the
cases in a watched child process.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from app import loading
from app.formats import bnf, lgw
from app.formats.bonespro import structure as bonespro
from app.formats.nwn import supermodels
from app.formats.registry import LoadOptions, SniffedFile
from tests import fuzzing
from tests.formats.test_nwn_ascii import every_kind_tree
from tests.formats.test_nwn_dangly_emitters import tree as effects_tree
from tests.formats.test_nwn_mdl import cast_animation, model_tree, walk_animation
from tests.writers import text_formats as write
from tests.writers.nwn_ascii_writer import write_ascii_mdl

TOKEN = re.compile(rb"\S+")
#: A line of numbers only (a row of a numeric block).
NUMERIC_LINE = re.compile(rb"(?m)^[ \t]*[-+0-9.eE]+(?:[ \t]+[-+0-9.eE]+)+[ \t]*$")
REPLACEMENTS = [b"-1", b"0", b"1", b"2", b"3", b"99999999999", b"1e308", b"-1e308", b"nan", b"inf", b"*",
                b"<x", b'"', b"//", b"0.5", b"1e-320", b"END_OF_MESH", b"Time:", b"Bones", b"\x00",
                b"\xff\xfe"]
#: Tokens that made the old patterns backtrack: a long digit run ending in a non-digit, a long word,
#: a long number, an unterminated long name and string.
LONG_TOKENS = [b"7" * 20_000 + b"x", b"W" * 100_000, b"-" + b"1" * 5_000 + b".5e", b"<" + b"n" * 5_000,
               b'"' + b"s" * 5_000, b"1" * 3_000]


def mutate(data: bytes, rng: np.random.Generator) -> bytes:
    """One random mutation of ``data``."""
    choice = rng.integers(9)
    if choice >= 6:
        return _cut_block(data, rng) if choice == 6 else _long_token(data, rng)
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


#: NWN ASCII blocks: an animation, a node; and the name lines the structural mutations rename.
NWN_BLOCKS = [re.compile(rb"(?ms)^newanim .*?^doneanim[^\n]*\n"),
              re.compile(rb"(?ms)^[ \t]*node .*?^[ \t]*endnode[^\n]*\n")]
#: Largest file the block repetitions grow (the case limit is for files under 3 MB; repeated
#: repetitions reached 47 MB, which loads in 8 s, linearly).
MAX_GROWN = 2_500_000
NWN_NAMES = re.compile(rb"(?m)^([ \t]*(?:newanim|doneanim|node \S+|parent|animroot)[ \t]+)(\S+)")


def mutate_nwn_ascii(data: bytes, rng: np.random.Generator) -> bytes:
    """Half the time a structural mutation of an NWN ASCII model: a block repeated 2 to 500 times
    (duplicate animation or node names; the file kept under MAX_GROWN bytes), or one name replaced
    by another of the file's; else ``mutate``."""
    if rng.random() < 0.5 or len(data) > MAX_GROWN:
        return mutate(data, rng)
    if rng.random() < 0.5:
        names = list(NWN_NAMES.finditer(data))
        if names:
            target, source = names[rng.integers(len(names))], names[rng.integers(len(names))]
            return data[:target.start(2)] + source.group(2) + data[target.end(2):]
    blocks = list(NWN_BLOCKS[rng.integers(len(NWN_BLOCKS))].finditer(data))
    if not blocks:
        return mutate(data, rng)
    block = blocks[rng.integers(len(blocks))]
    room = max(2, (MAX_GROWN - len(data)) // len(block.group(0)))
    copies = min(int(rng.choice([2, 3, 10, 100, 500])), room)
    return data[:block.end()] + block.group(0) * (copies - 1) + data[block.end():]


def _long_token(data: bytes, rng: np.random.Generator) -> bytes:
    """A long token in place of one of ``data``'s."""
    tokens = list(TOKEN.finditer(data))
    long = LONG_TOKENS[rng.integers(len(LONG_TOKENS))]
    if not tokens:
        return data + long
    token = tokens[rng.integers(len(tokens))]
    return data[:token.start()] + long + data[token.end():]


def _cut_block(data: bytes, rng: np.random.Generator) -> bytes:
    """``data`` cut inside a row of a numeric block, sometimes followed by a long comment (so the
    bytes left are enough for the values still expected and the counted scan runs)."""
    rows = list(NUMERIC_LINE.finditer(data))
    if not rows:
        return data[: rng.integers(len(data) + 1)]
    row = rows[rng.integers(len(rows))]
    cut = data[: rng.integers(row.start(), row.end() + 1)]
    return cut + b"\n// " + b"-" * 4000 + b"\n" if rng.random() < 0.5 else cut


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


def nwn_effects_files(tmp_path) -> dict[str, bytes]:
    """A model with a danglymesh and an emitter (their parameters, constraints and settings)."""
    files = {"fx.mdl": write_ascii_mdl("fx", effects_tree())}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return files


def load_nwn_ascii(paths):
    return supermodels.load([SniffedFile(p, "nwn_ascii", "model") for p in paths], LoadOptions())


MAKERS = {"bonespro": (bonespro_files, load_bonespro), "lgw": (lgw_files, load_lgw),
          "bnf": (bnf_files, load_bnf), "nwn_ascii": (nwn_ascii_files, load_nwn_ascii)}


def originals(reader: str, folder) -> list[dict[str, bytes]]:
    if reader == "nwn_ascii":
        return [nwn_ascii_files(folder), nwn_effects_files(folder)]
    return [MAKERS[reader][0](folder)]


def load(reader: str, paths):
    return loading.finish(MAKERS[reader][1](paths))


@pytest.mark.fuzz
@pytest.mark.parametrize("reader, seed", [("bonespro", 100), ("lgw", 200), ("bnf", 300), ("nwn_ascii", 400)])
def test_mutations_raise_only_read_error(tmp_path, reader, seed):
    files = originals(reader, tmp_path)[0]
    fuzzing.check_poses(load(reader, [tmp_path / name for name in sorted(files)]))  # the originals load
    fuzzing.run(reader, seed, tmp_path)
