"""Pictures larger than a tile: drawn tile by tile, written to the PNG band by band, checked against
a single-pass render of the same size; the memory a picture needs checked before drawing."""

from __future__ import annotations

import resource
import struct
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from app.render import offscreen as offscreen_module
from app.render.offscreen import OffscreenRenderer, write_png_bands
from app.scene.draw_settings import DrawSettings
from tests.helpers import exit_status

SIZE = (200, 150)
#: Tiles that do not divide the picture: the last column and band of tiles hang over its edges.
TILE = (64, 40)


@pytest.fixture(scope="module")
def offscreen(gl_context):
    with OffscreenRenderer(gl_context) as renderer:
        yield renderer


def tiled_and_single(offscreen, model, options: DrawSettings, tile=TILE) -> tuple[np.ndarray, np.ndarray]:
    bands = list(offscreen.render_bands(model, None, SIZE, options, tile=tile))
    assert [len(band) for band in bands] == [40, 40, 40, 30]
    return np.concatenate(bands), offscreen.render_image(model, None, SIZE, options)


@pytest.mark.gl
@pytest.mark.parametrize("options", [DrawSettings(), DrawSettings(bones=True),
                                     DrawSettings(transparent=True, grid=False),
                                     DrawSettings(skinning="dqs", grid=False)])
def test_tiled_picture_is_the_single_pass_picture(offscreen, demo, options):
    tiled, single = tiled_and_single(offscreen, demo, options)
    assert tiled.shape == single.shape == (SIZE[1], SIZE[0], 4)
    assert (single[..., :3] != single[0, 0, :3]).any(axis=-1).sum() > 2000  # the model is in the picture
    difference = np.abs(tiled.astype(int) - single).max(axis=-1)
    # Every pixel within 1/255, but for the odd edge pixel where one multisample flips (2 of 30,000 seen).
    assert np.count_nonzero(difference > 1) <= 4, np.argwhere(difference > 1)


@pytest.mark.gl
def test_tiled_wireframe_lines_stay_where_they_were(offscreen, demo):
    tiled, single = tiled_and_single(offscreen, demo, DrawSettings(wireframe=True, grid=False))
    difference = np.abs(tiled.astype(int) - single).max(axis=-1)
    # A line clipped at a tile's edge may start a pixel off: under 1 % of the pixels (0.4 % seen).
    assert np.count_nonzero(difference > 1) < 0.01 * difference.size


@pytest.mark.gl
def test_tile_size_keeps_within_the_driver_and_the_tile_budget(offscreen):
    limit = offscreen_module.max_image_side(offscreen.ctx)
    width, height = offscreen.tile_size((16384, 16384))
    assert width <= limit and height <= limit and width * height <= offscreen_module.TILE_PIXELS
    assert offscreen.tile_size((1280, 720)) == (1280, 720)


@pytest.mark.parametrize("heights", [[7, 1, 12], [20], [1] * 20])
def test_png_written_band_by_band_reads_back_exactly(tmp_path, heights):
    rng = np.random.default_rng(5)
    picture = rng.integers(0, 256, (sum(heights), 33, 4), dtype=np.uint8)
    starts = np.cumsum([0, *heights])
    write_png_bands(tmp_path / "out.png", (33, sum(heights)),
                    (picture[start:end] for start, end in zip(starts[:-1], starts[1:])))
    with Image.open(tmp_path / "out.png") as image:
        assert image.mode == "RGBA" and np.array_equal(np.asarray(image), picture)


def test_png_with_missing_rows_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="3 rows drawn for a picture 4 rows high"):
        write_png_bands(tmp_path / "out.png", (2, 4), [np.zeros((3, 2, 4), np.uint8)])


@pytest.mark.gl
def test_render_command_tiles_a_large_picture(tmp_path, monkeypatch, gl_context):
    monkeypatch.setattr(offscreen_module, "TILE_PIXELS", 96 * 40)
    output = tmp_path / "out.png"
    assert exit_status(["render", "--demo", "--size", "96x100", "-o", str(output)]) == 0
    with OffscreenRenderer(gl_context) as renderer:
        assert renderer.tile_size((96, 100)) == (96, 40)
    with Image.open(output) as image:
        assert image.size == (96, 100) and (np.asarray(image)[..., :3] != np.asarray(image)[0, 0, :3]).any()


@pytest.mark.gl
def test_picture_needing_more_memory_than_available_is_refused_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(offscreen_module, "available_memory", lambda: 50 << 20)
    output = tmp_path / "out.png"
    assert exit_status(["render", "--demo", "--size", "4000x3000", "-o", str(output)]) == 3
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "4000×3000" in lines[0] and "50 MiB are available" in lines[0], lines
    needed = int(lines[0].split("needs about ")[1].split(" MiB")[0])
    assert needed > 50
    assert not output.exists()


def _two_gib_address_space():
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


@pytest.mark.gl
def test_largest_picture_renders_in_two_gib_of_address_space(tmp_path):
    output = tmp_path / "out.png"
    done = subprocess.run([sys.executable, "-m", "app", "render", "--demo", "--size", "16384x16384",
                           "-o", str(output)], capture_output=True, text=True, timeout=300,
                          preexec_fn=_two_gib_address_space)
    lines = done.stderr.strip().splitlines()
    if done.returncode == 3:  # refused before drawing, in one line naming the size and the memory
        assert len(lines) == 1 and "16384×16384" in lines[0] and "MiB" in lines[0], lines
        return
    assert done.returncode == 0, done.stderr[-2000:]
    header = output.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", header[16:24]) == (16384, 16384)


@pytest.mark.gl
@pytest.mark.parametrize("output_name", ["out.png", "out.gif", "sheet.png"])
def test_picture_larger_than_the_driver_draws_is_refused(tmp_path, capsys, monkeypatch, output_name):
    monkeypatch.setattr(offscreen_module, "max_image_side", lambda ctx: 64)
    monkeypatch.setattr(offscreen_module, "viewport_limit", lambda ctx: 64)
    monkeypatch.setattr(offscreen_module, "TILE_PIXELS", 32 * 32)
    output = tmp_path / output_name
    extra = ["--sheet", "--frames", "2"] if output_name == "sheet.png" else []
    assert exit_status(["render", "--demo", "--size", "100x80", "-o", str(output), *extra]) == 3
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "100x80" in lines[0] and "1..64" in lines[0] and output.name in lines[0], lines
    assert not output.exists()
