"""A PLT-textured NWN model and its palette images, built from the formats' descriptions (rollnw Plt.cpp,
the ASCII MDL grammar) for the state, window and command-line tests of PLT colours."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
from PIL import Image

from tests.writers.nwn_ascii_writer import write_ascii_mdl
from tests.writers.nwn_writer import WNode

#: The PLT: 16 × 2 pixels, its left half on the skin layer (0) at value 200, its right half on cloth1
#: (4) at value 100 (the same in both rows, so the file's bottom-row-first order does not matter).
LEFT_VALUE, RIGHT_VALUE = 200, 100
SKIN, CLOTH1 = 0, 4
WIDTH = 16


def plt_bytes() -> bytes:
    row = [(LEFT_VALUE, SKIN)] * (WIDTH // 2) + [(RIGHT_VALUE, CLOTH1)] * (WIDTH // 2)
    pixels = b"".join(bytes(pixel) for pixel in row * 2)
    return b"PLT V1  " + b"\0" * 8 + struct.pack("<2I", WIDTH, 2) + pixels


def palette(seed: int) -> np.ndarray:
    """A 256 × 176 palette (rows: colour indices, columns: values): rows below 88 are shades of red,
    the others shades of blue, green carries ``seed``: told apart in a rendered picture."""
    rows, columns = np.mgrid[0:176, 0:256]
    red = np.where(rows < 88, columns, rows % 7)
    blue = np.where(rows < 88, rows % 5, columns)
    return np.stack([red, np.full_like(rows, seed), blue, np.full_like(rows, 255)], -1).astype(np.uint8)


def quad() -> WNode:
    """A 2 × 2 square standing up (NWN is Z up), facing −Y, its UVs spanning the whole PLT (u left to
    right, v top to bottom)."""
    vertices = np.array([[-1, 0, 0], [1, 0, 0], [1, 0, 2], [-1, 0, 2]], float)
    uvs = np.array([[0, 1], [1, 1], [1, 0], [0, 0]], float)
    faces = np.array([[0, 1, 2], [0, 2, 3]])
    return WNode("c_plt", children=[WNode("body", 0x021, vertices=vertices, faces=faces, uvs=uvs,
                                          texture="skin01")])


def write_plt_model(folder: Path, palettes: bool = True) -> Path:
    """c_plt.mdl, skin01.plt and (with ``palettes``) pal_skin01.tga and pal_cloth01.tga in ``folder``;
    returns the model's path. The palettes are ``palette(1)`` and ``palette(2)``."""
    model = folder / "c_plt.mdl"
    model.write_bytes(write_ascii_mdl("c_plt", quad()))
    (folder / "skin01.plt").write_bytes(plt_bytes())
    if palettes:
        Image.fromarray(palette(1), "RGBA").save(folder / "pal_skin01.tga")
        Image.fromarray(palette(2), "RGBA").save(folder / "pal_cloth01.tga")
    return model


def expected_image(skin_index: int, cloth_index: int) -> np.ndarray:
    """(2, WIDTH, 4) uint8: the PLT coloured by the palettes at those indices, worked out here."""
    left, right = palette(1)[skin_index, LEFT_VALUE], palette(2)[cloth_index, RIGHT_VALUE]
    return np.array([[left] * (WIDTH // 2) + [right] * (WIDTH // 2)] * 2, np.uint8)
