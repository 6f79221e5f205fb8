"""What ``batch render`` does for speed: FXAA in place of 4× multisampling (held to the exact coverage
of an edge, worked out in numpy), PNGs deflated at a fast level (lossless all the same), and
textures kept across models for images with the same pixels."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from app.render.offscreen import ANTIALIASING, FAST_PNG_LEVEL, ImageTargets, write_png_bands

SIDE = 64
#: The edge drawn: the half-plane below y = SLOPE * x + OFFSET (pixels, origin bottom-left) is white.
SLOPE, OFFSET = 0.37, 13.3

VERTEX = """#version 330
in vec2 position;
void main() { gl_Position = vec4(position, 0.0, 1.0); }
"""
FRAGMENT = """#version 330
out vec4 colour;
void main() { colour = vec4(1.0); }
"""


def exact_coverage() -> np.ndarray:
    """(SIDE, SIDE) share of each pixel under the edge, top row first, from 32×32 points a pixel."""
    steps = (np.arange(32) + 0.5) / 32
    xs = (np.arange(SIDE)[:, None] + steps[None, :]).ravel()
    ys = (np.arange(SIDE)[:, None] + steps[None, :]).ravel()
    inside = ys[:, None] < SLOPE * xs[None, :] + OFFSET  # (rows of points, columns of points)
    coverage = inside.reshape(SIDE, 32, SIDE, 32).mean(axis=(1, 3))
    return coverage[::-1]


def drawn_edge(ctx, antialias: str) -> np.ndarray:
    """The half-plane drawn white on black with ``antialias``, as (SIDE, SIDE) values 0..1, top row first."""
    corners = np.array([[0, OFFSET], [SIDE, SLOPE * SIDE + OFFSET], [SIDE, -SIDE], [0, -SIDE]], np.float32)
    clip = corners / SIDE * 2.0 - 1.0
    triangles = clip[[0, 1, 2, 0, 2, 3]].astype("f4")
    program = ctx.program(vertex_shader=VERTEX, fragment_shader=FRAGMENT)
    buffer = ctx.buffer(triangles.tobytes())
    shape = ctx.vertex_array(program, [(buffer, "2f", "position")])

    def draw(framebuffer):
        framebuffer.use()
        framebuffer.clear(0.0, 0.0, 0.0, 1.0)
        ctx.disable(ctx.DEPTH_TEST | ctx.CULL_FACE | ctx.BLEND)
        shape.render()

    try:
        with ImageTargets.create(ctx, (SIDE, SIDE), antialias) as targets:
            image = targets.capture(draw, transparent=False)
    finally:
        for gl_object in (shape, buffer, program):
            gl_object.release()
    return image[..., 0] / 255.0


@pytest.mark.gl
def test_fxaa_smooths_an_edge_nearly_as_multisampling_does(gl_context):
    """Where the edge is in each column (the covered area of the column) against the exact area: one
    sample a pixel puts it on a staircase, off by a quarter pixel on average; four samples and FXAA
    follow the slope (FXAA's blend is wider than the edge, so pixel by pixel it is no closer)."""
    exact = exact_coverage()
    edge = (exact > 0) & (exact < 1)
    assert edge.sum() > SIDE  # the edge crosses every column
    inner = slice(4, SIDE - 4)  # FXAA looks a few pixels along the edge; leave the picture's sides out
    errors = {}
    for name in ANTIALIASING:
        drawn = drawn_edge(gl_context, name)
        errors[name] = float(np.abs(drawn.sum(axis=0) - exact.sum(axis=0))[inner].mean())
        away = _not_near(edge)  # nothing away from the edge moves
        assert np.abs(drawn - exact)[away].max() == 0.0, name
    assert 0.18 < errors["none"] < 0.32, errors
    assert errors["msaa"] < 0.15, errors
    assert errors["fxaa"] < 0.6 * errors["none"], errors


def _not_near(mask: np.ndarray) -> np.ndarray:
    """Pixels at least two pixels from any pixel of ``mask``."""
    grown = mask.copy()
    for axis in (0, 1):
        for shift in (-2, -1, 1, 2):
            grown |= np.roll(mask, shift, axis=axis)
    return ~grown


@pytest.mark.gl
def test_an_unknown_antialias_is_refused(gl_context):
    with pytest.raises(ValueError, match="antialias 'ssaa'"):
        ImageTargets.create(gl_context, (8, 8), "ssaa")


def test_the_batch_parser_offers_what_the_renderer_has():
    """arguments.py keeps its own copy (the parser imports no moderngl)."""
    from app.cli.batch import arguments

    assert arguments.ANTIALIASING == ANTIALIASING
    assert arguments.THUMBNAIL_ANTIALIAS in ANTIALIASING


def test_a_fast_png_is_lossless(tmp_path):
    rng = np.random.default_rng(11)
    picture = np.zeros((40, 50, 4), np.uint8)
    picture[10:30, 5:45] = rng.integers(0, 256, (20, 40, 4), dtype=np.uint8)
    picture[..., 3] = 255
    write_png_bands(tmp_path / "fast.png", (50, 40), [picture], FAST_PNG_LEVEL)
    write_png_bands(tmp_path / "small.png", (50, 40), [picture], 9)
    for name in ("fast.png", "small.png"):
        with Image.open(tmp_path / name) as image:
            assert np.array_equal(np.asarray(image.convert("RGBA")), picture)


@pytest.mark.gl
def test_a_released_texture_serves_an_image_with_the_same_pixels(gl_context):
    from app.render.materials import TextureCache

    cache = TextureCache(gl_context)
    image = np.full((16, 16, 4), 200, np.uint8)
    other = np.full((16, 16, 4), 100, np.uint8)
    try:
        first = cache.image_texture(image, "a", ("repeat", "repeat"))
        cache.keep_only([])  # no budget: released at once
        assert cache.released == []
        cache.keep_released(2 * image.nbytes)
        first = cache.image_texture(image, "a", ("repeat", "repeat"))
        second = cache.image_texture(other, "b", ("clamp", "clamp"))
        cache.keep_only([])
        assert len(cache.released) == 2
        again = cache.image_texture(image.copy(), "a again", ("clamp", "clamp"))  # a new array, same pixels
        assert again is first and not again.repeat_x
        brighter = np.full((16, 16, 4), 201, np.uint8)
        assert cache.image_texture(brighter, "c", ("repeat", "repeat")) is not second
        cache.keep_only([])
        cache.keep_released(image.nbytes)  # the oldest kept go first
        assert len(cache.released) == 1
    finally:
        cache.release()
    assert cache.released == [] and cache.entries == {}


def test_an_unknown_antialias_is_a_usage_error(tmp_path, capsys):
    from tests.helpers import exit_status

    assert exit_status(["batch", "render", str(tmp_path), "-o", str(tmp_path / "out"), "--antialias",
                        "ssaa"]) == 2
    assert "--antialias" in capsys.readouterr().err


@pytest.mark.gl
def test_batch_thumbnails_with_fxaa_look_like_multisampled_ones(tmp_path):
    """A separate process (the workers fork; a process holding an OpenGL context cannot fork one)."""
    import subprocess
    import sys

    from tests.paths import CORPUS

    pictures = {}
    for antialias in ("msaa", "fxaa"):
        out = tmp_path / antialias
        subprocess.run([sys.executable, "-m", "app", "batch", "render", str(CORPUS / "BoxAnimated"), "-o",
                        str(out), "--jobs", "1", "--antialias", antialias], check=True, capture_output=True,
                       timeout=120)
        with Image.open(out / "BoxAnimated.png") as image:
            assert image.size == (512, 512)
            pictures[antialias] = np.asarray(image.convert("RGB")).astype(int)
    difference = np.abs(pictures["msaa"] - pictures["fxaa"]).max(axis=-1)
    assert difference.mean() < 2.0 and (difference > 32).mean() < 0.01
