"""Text files saved by Windows editors start with a UTF-8 byte-order mark (Notepad writes one): each
text format reads such a file as it reads the same text without the mark."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app import loading
from app.pose import evaluate, posed_positions
from tests.formats.test_nwn_mdl import model_tree, save, walk_animation
from tests.writers import text_formats as write
from tests.writers.nwn_ascii_writer import write_ascii_mdl

#: What Notepad writes before UTF-8 text.
UTF8_BOM = b"\xef\xbb\xbf"
#: The LGW mesh's one bone.
PIVOT = np.array([[1.0, 0, 0, 0.5], [0, 1, 0, 1.0], [0, 0, 1, 2.0], [0, 0, 0, 1]])


def bonespro(folder: Path) -> list[Path]:
    bind = np.stack([np.eye(4), np.eye(4)])
    bind[1, :3, 3] = (0, 1, 0)
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], float)
    structure = write.bonespro_structure(folder / "body.txt", ["root", "tip"], [-1, 0], bind, positions,
                                         [[(0, 1.0)], [(0, 1.0)], [(1, 1.0)], [(1, 1.0)]])
    faces = write.obj(folder / "body.obj", positions, [[0, 1, 2], [1, 3, 2]])
    turned = np.stack([bind, bind])
    turned[1, 1, :3, :3] = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]
    animation = write.bonespro_bones_matrix(folder / "turn.txt", turned, 4)
    return [structure, faces, animation]


def lgw(folder: Path) -> list[Path]:
    corners = np.array([[0, 0, 0, 0, 0, 0, 0, 1], [1, 0, 0, 1, 0, 0, 0, 1], [0, 1, 0, 0, 1, 0, 0, 1.0]])
    blocks = [write.lgw_mesh("body", write.lgw_skin_link({"main": PIVOT}), corners, [[0, 1, 2]],
                             [[(1.0, "main")]] * 3)]
    return [write.lgw_model(folder / "model.lgw", blocks)]


def bnf(folder: Path) -> list[Path]:
    skeleton = write.bnf(folder / "body.bnf", [-1, 0], [[0, 0, 0], [0, 1, 0]])
    quaternions = np.array([[[0, 0, 0, 1.0], [0, 0, 0, 1.0]], [[0, 0, 0.7071068, 0.7071068], [0, 0, 0, 1.0]]])
    return [skeleton, write.anm(folder / "body.anm", [0.0, 1.0], quaternions)]


def nwn_ascii(folder: Path) -> list[Path]:
    return [save(folder, "c_test.mdl", write_ascii_mdl("c_test", model_tree(), [walk_animation()]))]


@pytest.mark.parametrize("files", [bonespro, lgw, bnf, nwn_ascii], ids=lambda f: f.__name__)
def test_a_byte_order_mark_changes_nothing(tmp_path, files):
    plain_folder, marked_folder = tmp_path / "plain", tmp_path / "marked"
    plain_folder.mkdir()
    marked_folder.mkdir()
    plain = files(plain_folder)
    marked = files(marked_folder)
    for path in marked:
        path.write_bytes(UTF8_BOM + path.read_bytes())
    expected, got = loading.load(plain), loading.load(marked)
    assert got.format == expected.format and got.skeleton.names == expected.skeleton.names
    assert [clip.name for clip in got.clips] == [clip.name for clip in expected.clips]
    for clip, same in zip(expected.clips or [None], got.clips or [None]):
        time = clip.start + 0.5 * clip.duration if clip is not None else 0.0
        np.testing.assert_array_equal(posed_positions(got, evaluate(got, same, time)),
                                      posed_positions(expected, evaluate(expected, clip, time)))
        np.testing.assert_array_equal(evaluate(got, same, time).world, evaluate(expected, clip, time).world)
