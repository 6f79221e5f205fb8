"""NWN PLT textures (app/formats/nwn/plt.py): files and palette images built in the tests from the
format description (rollnw Plt.cpp), expected pixels worked out here; rollnw's real head PLT."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from PIL import Image

from app import loading
from app.cli.main import main
from app.formats.nwn import plt
from app.formats.registry import LoadOptions, ReadError
from tests.formats.test_nwn_resources import textured_tree
from tests.nwn_archive_bytes import erf_bytes
from tests.paths import CORPUS
from tests.writers.nwn_ascii_writer import write_ascii_mdl

#: A 3 × 2 PLT as stored (bottom row first): (value, layer) per pixel.
STORED_ROWS = [[(10, 0), (200, 1), (255, 0)],   # the image's bottom row
               [(0, 4), (128, 0), (77, 9)]]     # its top row


def plt_bytes(rows=STORED_ROWS) -> bytes:
    height, width = len(rows), len(rows[0])
    pixels = b"".join(bytes([value, layer]) for row in rows for value, layer in row)
    return b"PLT V1  " + b"\0" * 8 + struct.pack("<2I", width, height) + pixels


def palette_tga(path, seed: int) -> np.ndarray:
    """A 256 × 176 palette image whose pixel (row r, column c) is (r, c, seed, 255); written as TGA."""
    rows, columns = np.mgrid[0:176, 0:256]
    pixels = np.stack([rows, columns, np.full_like(rows, seed), np.full_like(rows, 255)], -1).astype(np.uint8)
    Image.fromarray(pixels, "RGBA").save(path)
    return pixels


def test_values_and_layers_with_row_zero_at_the_top():
    values, layers = plt.read_plt(plt_bytes(), "t.plt")
    assert values.tolist() == [[0, 128, 77], [10, 200, 255]]
    assert layers.tolist() == [[4, 0, 9], [0, 1, 0]]


def test_neutral_colours_scaled_by_value_and_255_transparent():
    values, layers = plt.read_plt(plt_bytes(), "t.plt")
    rgba = plt.colour(values, layers, {}, {})
    skin = np.array(plt.NEUTRAL["skin"], float)
    assert rgba[0, 1].tolist() == [*np.round(skin * 128 / 255).astype(int), 255]
    assert rgba[1, 1].tolist() == [*np.round(np.array(plt.NEUTRAL["hair"]) * 200 / 255).astype(int), 255]
    assert rgba[0, 0].tolist() == [0, 0, 0, 255]  # value 0 is black, still opaque
    assert rgba[1, 2, 3] == 0


def test_palette_row_is_the_colour_index_and_column_the_value(tmp_path):
    skin = palette_tga(tmp_path / "pal_skin01.tga", 1)
    cloth = palette_tga(tmp_path / "PAL_CLOTH01.tga", 2)
    values, layers = plt.read_plt(plt_bytes(), "t.plt")
    rgba = plt.colour(values, layers, {"skin": skin, "cloth1": cloth}, {"skin": 37, "cloth1": 175})
    assert rgba[0, 1].tolist() == [37, 128, 1, 255]     # skin, index 37, value 128
    assert rgba[1, 0].tolist() == [37, 10, 1, 255]
    assert rgba[0, 0].tolist() == [175, 0, 2, 255]     # cloth1, index 175, value 0


def raw_palette_tga(top_first: bool) -> bytes:
    """A 256 × 176 uncompressed 24-bit TGA written byte by byte: the image row r from the top (as
    displayed) is filled with blue r; stored bottom row first (descriptor bit 5 clear, the TGA
    default) or top row first (bit 5 set)."""
    rows = range(176) if top_first else reversed(range(176))
    pixels = b"".join(bytes([row, 0, 0]) * 256 for row in rows)  # BGR: blue = the row from the top
    return struct.pack("<3B2HB4H2B", 0, 0, 2, 0, 0, 0, 0, 0, 256, 176, 24, 0x20 if top_first else 0) + pixels


@pytest.mark.parametrize("top_first", [False, True])
def test_colour_index_zero_is_the_palette_images_top_row(top_first):
    # rollnw (Plt.cpp:68, rows of stb_image, which honours the TGA origin bit, Image.cpp:201) and
    # Radoub (PltReader.cs:97-99, TgaReader.cs:64-99) both take colour index N from row N counted
    # from the top of the palette image as displayed, whichever order the TGA stores its rows in
    from app.formats.textures import decode

    palette, _ = decode(raw_palette_tga(top_first))
    values = np.array([[0, 255 - 1]], np.uint8)
    layers = np.zeros_like(values)
    for index in (0, 1, 175):
        rgba = plt.colour(values, layers, {"skin": palette}, {"skin": index})
        assert rgba[0, :, 2].tolist() == [index, index]


def test_model_with_a_plt_texture_uses_palettes_and_plt_choices(tmp_path):
    model_path = tmp_path / "c_hero.mdl"
    model_path.write_bytes(write_ascii_mdl("c_hero", textured_tree()))
    hak = tmp_path / "colours.hak"
    (tmp_path / "skin01.plt").write_bytes(plt_bytes())
    rows, columns = np.mgrid[0:176, 0:256]
    palette = np.stack([columns, rows, np.full_like(rows, 9), np.full_like(rows, 255)], -1).astype(np.uint8)
    palette_file = tmp_path / "p.tga"
    Image.fromarray(palette, "RGBA").save(palette_file)
    hak.write_bytes(erf_bytes([("pal_skin01", "tga", palette_file.read_bytes())]))
    model = loading.load([model_path], LoadOptions(resources=[str(hak)], plt_colours={"skin": 5}))
    image = model.meshes[0].material.image
    assert image[0, 1].tolist() == [128, 5, 9, 255]
    assert image[1, 0].tolist() == [10, 5, 9, 255]
    hair = np.round(np.array(plt.NEUTRAL["hair"]) * 200 / 255).astype(int)
    assert image[1, 1].tolist() == [*hair, 255]
    assert any("pal_hair01" in warning and "neutral" in warning for warning in model.warnings)


@pytest.mark.parametrize("data, expected, offset", [
    (b"PLT V2  " + bytes(16), "not a PLT V1", 0),
    (b"PLT V1  " + bytes(8), "header is 24 bytes", 0),
    (plt_bytes()[:-3], "need 36 bytes, the file has 33", 33),
    (plt_bytes()[:24] + bytes([1, 0, 1, 12]) + plt_bytes()[28:], "pixel 1 has layer 12", 27),
    (b"PLT V1  " + bytes(8) + struct.pack("<2I", 70000, 70000), "more than", 16),
])
def test_malformed_plt_names_the_offset(data, expected, offset):
    with pytest.raises(ReadError, match=expected) as caught:
        plt.read_plt(data, "bad.plt")
    assert caught.value.offset == offset and "bad.plt" in str(caught.value)


def test_plt_option_is_checked():
    assert plt.parse_choice("Cloth2=175") == ("cloth2", 175)
    for text in ("skin=176", "fur=1", "skin", "skin=-1"):
        with pytest.raises(ValueError, match="LAYER=INDEX"):
            plt.parse_choice(text)
    with pytest.raises(SystemExit) as exited:
        main(["info", "x.mdl", "--plt", "skin=200"])
    assert exited.value.code == 2


def test_rollnw_head_plt_reads_bottom_row_first():
    data = (CORPUS / "rollnw" / "pmh0_head001.plt").read_bytes()
    width, height = struct.unpack_from("<2I", data, 16)
    stored = np.frombuffer(data, np.uint8, offset=24).reshape(height, width, 2)
    values, layers = plt.read_plt(data, "pmh0_head001.plt")
    assert (width, height) == (256, 256)
    assert np.array_equal(values, stored[::-1, :, 0]) and np.array_equal(layers, stored[::-1, :, 1])
    assert set(np.unique(stored[..., 1])) == {0, 1}  # a head: skin and hair
