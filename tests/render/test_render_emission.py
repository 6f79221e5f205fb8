"""Emission in the renderer, checked on pixels of the camera-facing test quad (tests/quads.py): the
emissive colour is added after lighting, times the emissive image's sRGB-decoded texel."""

from __future__ import annotations

import numpy as np
import pytest

from app.model import Material
from app.render.offscreen import OffscreenRenderer
from app.scene.draw_settings import DrawSettings
from tests.quads import (BLUE, GREEN, GREY, QUAD_PIXELS, RED, SIZE, front_camera, quad, quadrants, scene,
                         srgb_to_linear)

PLAIN = DrawSettings(grid=False)
BLACK = (0.0, 0.0, 0.0, 1.0)


def srgb_bytes(linear) -> np.ndarray:
    """The 8-bit sRGB encoding of linear values in 0..1 (the transfer curve, written out)."""
    linear = np.clip(np.asarray(linear, float), 0.0, 1.0)
    encoded = np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * linear ** (1 / 2.4) - 0.055)
    return np.round(255 * encoded)


def at(u: float, v: float) -> tuple[int, int]:
    margin = (SIZE[0] - QUAD_PIXELS) // 2
    return int(margin + v * QUAD_PIXELS), int(margin + u * QUAD_PIXELS)


@pytest.fixture(scope="module")
def offscreen(gl_context):
    with OffscreenRenderer(gl_context) as offscreen:
        yield offscreen


def draw(offscreen, material: Material, options: DrawSettings = PLAIN) -> np.ndarray:
    image = offscreen.render_image(scene(quad(material)), None, SIZE, options, camera=front_camera())
    return image.astype(int)


@pytest.mark.gl
def test_emissive_only_material_shows_its_emission(offscreen):
    """A black unlit surface gives off exactly its emissive colour."""
    emissive = (0.2, 0.4, 0.6)
    pixel = draw(offscreen, Material(base_color=BLACK, unlit=True, emissive=emissive))[at(0.5, 0.5)][:3]
    assert np.abs(pixel - srgb_bytes(emissive)).max() <= 1, pixel


@pytest.mark.gl
def test_emission_is_added_to_the_lit_colour(offscreen):
    base = (0.1, 0.1, 0.1, 1.0)
    emissive = np.array([0.3, 0.05, 0.1])
    lit = draw(offscreen, Material(base_color=base))[at(0.5, 0.5)][:3]
    glowing = draw(offscreen, Material(base_color=base, emissive=tuple(emissive)))[at(0.5, 0.5)][:3]
    added = srgb_to_linear(glowing) - srgb_to_linear(lit)
    np.testing.assert_allclose(added, emissive, atol=0.01)


@pytest.mark.gl
def test_emissive_image_multiplies_the_emission(offscreen):
    emissive = np.array([1.0, 0.5, 1.0])
    material = Material(base_color=BLACK, unlit=True, emissive=tuple(emissive),
                        emissive_image=quadrants(RED, GREEN, BLUE, GREY))
    image = draw(offscreen, material)
    for (u, v), texel in {(0.25, 0.25): RED, (0.75, 0.25): GREEN, (0.25, 0.75): BLUE,
                          (0.75, 0.75): GREY}.items():
        expected = srgb_bytes(emissive * srgb_to_linear(texel[:3]))
        assert np.abs(image[at(u, v)][:3] - expected).max() <= 2, (texel, image[at(u, v)], expected)


@pytest.mark.gl
def test_textures_off_keeps_the_emissive_colour_without_its_image(offscreen):
    emissive = (0.5, 0.25, 0.125)
    material = Material(base_color=BLACK, unlit=True, emissive=emissive,
                        emissive_image=quadrants(*[GREY] * 4))
    pixel = draw(offscreen, material, DrawSettings(grid=False, textures=False))[at(0.5, 0.5)][:3]
    assert np.abs(pixel - srgb_bytes(emissive)).max() <= 1
