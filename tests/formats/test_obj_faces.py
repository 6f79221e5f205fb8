"""The OBJ faces companion: faces and vertex counts read from hand-written OBJ text."""

from __future__ import annotations

import numpy as np
import pytest

from app.formats import obj_faces
from app.formats.registry import ReadError


def read(tmp_path, data: bytes):
    path = tmp_path / "faces.obj"
    path.write_bytes(data)
    return obj_faces.read_faces(path)


def test_backslash_continues_a_statement(tmp_path):
    """The OBJ specification lets a backslash at the end of a line continue the statement on the
    next one: the quad 1 2 3 4 written over two lines is one face, fanned from corner 1."""
    data = b"v 0 0 0\nv 1 0 0\nv 1 1 0\r\nv 0 1 0\nf 1 2 \\\r\n  3 4\nf 4 \\\n3 2\n"
    count, triangles = read(tmp_path, data)
    assert count == 4
    np.testing.assert_array_equal(triangles, [[0, 1, 2], [0, 2, 3], [3, 2, 1]])


def test_lines_end_only_at_newlines(tmp_path):
    """Old Windows exporters write code-page bytes in names and comments (0x85 is '…' in
    Windows-1252); such a byte, or a form feed, does not end a line, so the bad corner on the
    file's fourth line is reported on line 4."""
    data = b"# exported\x85 by hand\nv 0 0 0\ng body\x0cpart\nf 1 1 9\n"
    with pytest.raises(ReadError, match="outside 1..1") as error:
        read(tmp_path, data)
    assert error.value.line == 4


def test_an_error_after_a_continued_line_names_its_own_line(tmp_path):
    data = b"v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 \\\n3\nf 1 2 x\n"
    with pytest.raises(ReadError, match="face corner") as error:
        read(tmp_path, data)
    assert error.value.line == 6


def test_continued_faces_and_double_slash_corners_are_sniffed(tmp_path):
    """A file whose faces continue over lines (the second line starts with a corner, not a
    keyword) and whose corners are ``v//n`` is still recognised as OBJ faces."""
    head = b"# cube\r\nv 0 0 0\r\nv 1 0 0\r\nv 1 1 0\r\nvn 0 0 1\r\nf 1//1 2//1 \\\r\n  3//1\r\n"
    assert obj_faces.sniff(head, tmp_path / "cube.obj") == "faces"
    assert obj_faces.sniff(b"v 0 0 0\nMODEL x\n", tmp_path / "x.obj") is None
    assert obj_faces.sniff(b"# cube\rv 0 0 0\rf 1 \\\r1 1\r", tmp_path / "mac.obj") == "faces"


def test_carriage_returns_alone_end_lines(tmp_path):
    """Classic Mac OS tools end lines with a carriage return alone."""
    count, triangles = read(tmp_path, b"v 0 0 0\rv 1 0 0\rv 1 1 0\rf 3 2 \\\r1\r")
    assert count == 3
    np.testing.assert_array_equal(triangles, [[2, 1, 0]])
