"""Wavefront OBJ as a faces companion: the triangles of a point-only model (BonesPro).

Only ``v`` lines (counted) and ``f`` lines (fan-triangulated; ``i``, ``i/t``, ``i//n``, ``i/t/n``;
1-based or negative indices) matter; every other line is ignored. Lines end at CR LF, LF or CR only,
and a backslash at the end of a line continues the statement on the next (the OBJ specification's
rule). An OBJ opened alone is refused: Boneyard does not read OBJ models, it attaches their faces to
a model of the same vertex order.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from app.formats.registry import (SNIFF_BYTES, UTF8_BOM, Format, LoadOptions, ReadError, SniffedFile,
                                  read_bytes, register)

FORMAT_NAME = "obj"
#: First words of the lines an OBJ file is made of (for sniffing).
OBJ_KEYWORDS = {b"v", b"vt", b"vn", b"vp", b"f", b"l", b"p", b"o", b"g", b"s", b"usemtl", b"mtllib", b"#"}
_LINE_END = re.compile(r"\r\n|\r|\n")
_CORNER = re.compile(r"([+-]?\d{1,12})(?:/[+-]?\d*)?(?:/[+-]?\d*)?\Z")


def sniff(head: bytes, path: Path) -> str | None:
    """'faces' when every statement in the head starts with an OBJ keyword and one is a vertex."""
    first_words = _first_words(head, 64)
    if first_words and b"v" in first_words and all(word in OBJ_KEYWORDS for word in first_words):
        return "faces"
    return None


def _first_words(head: bytes, limit: int) -> list[bytes]:
    """The first words of up to ``limit`` statements in a sniffed head (complete lines only, ``#``
    comments removed, lines continued by a trailing backslash skipped)."""
    if b"\0" in head:
        return []
    lines = re.split(rb"\r\n|\r|\n", head)
    words, continued = [], False
    for raw in lines[:-1] if len(head) >= SNIFF_BYTES else lines:
        line = raw.split(b"#", 1)[0].strip()
        if line and not continued:
            words.append(line.split()[0])
        continued = line.endswith(b"\\")
        if len(words) >= limit:
            break
    return words


def read_faces(path: Path) -> tuple[int, np.ndarray]:
    """The vertex count and the (T, 3) int32 triangles (0-based) of an OBJ file."""
    text = read_bytes(path).removeprefix(UTF8_BOM).decode("latin-1")
    vertices = 0
    triangles: list[tuple[int, int, int]] = []
    for number, statement in _statements(text):
        words = statement.split("#", 1)[0].split()
        if not words:
            continue
        if words[0] == "v":
            vertices += 1
        elif words[0] == "f":
            corners = [_corner_index(path, number, word, vertices) for word in words[1:]]
            if len(corners) < 3:
                raise ReadError(path, f"a face needs at least 3 corners, found {len(corners)}", line=number)
            triangles.extend((corners[0], corners[i], corners[i + 1]) for i in range(1, len(corners) - 1))
    if vertices == 0:
        raise ReadError(path, "no vertices (v lines) found", line=1)
    return vertices, np.array(triangles, dtype=np.int32).reshape(-1, 3)


def _statements(text: str):
    """(first line number, text) of each statement: lines end at CR LF, LF or CR only (a code-page
    byte such as 0x85 or a form feed is not a line end), joined where a line ends in a backslash."""
    pending, start = "", 1
    for number, line in enumerate(_LINE_END.split(text), start=1):
        if not pending:
            start = number
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        yield start, pending + line
        pending = ""
    if pending:
        yield start, pending


def _corner_index(path: Path, line: int, word: str, vertices: int) -> int:
    """A face corner's 0-based vertex index; negative indices count back from the last vertex."""
    match = _CORNER.match(word)
    if match is None:
        raise ReadError(path, f"expected a face corner like 3, 3/1 or 3//2, found {word[:40]!r}", line=line)
    index = int(match.group(1))
    resolved = index - 1 if index > 0 else vertices + index
    if index == 0 or not 0 <= resolved < vertices:
        raise ReadError(path, f"face corner {index} refers to a vertex outside 1..{vertices} "
                              "(vertices must come before the faces that use them)", line=line)
    return resolved


def load(files: list[SniffedFile], options: LoadOptions):
    raise ReadError(files[0].path, "an OBJ file only supplies faces here: open it together with the "
                                   "point-only model (e.g. a BonesPro structure file) with the same vertices")


register(Format(
    name=FORMAT_NAME,
    description="OBJ faces for a point-only model",
    sniff=sniff,
    load=load,
    extensions=(".obj",),
))
