"""Materials in the renderer, checked on pixels: a camera-facing quad with an image the test paints,
seen head-on. A texel's colour is held to the same quad drawn untextured in that texel's linear colour
(so the lighting cancels out); alpha modes against the background; hidden meshes; culling; picking."""

from __future__ import annotations

import numpy as np
import pytest

from app.model import Material, Mesh
from app.render.offscreen import OffscreenRenderer
from app.scene.draw_settings import DrawSettings
from tests.quads import (
    BLUE,
    GREEN,
    GREY,
    QUAD_PIXELS,
    RED,
    SIZE,
    front_camera,
    quad,
    quadrants,
    scene,
    srgb_to_linear,
)

PLAIN = DrawSettings(grid=False)


def at(u: float, v: float) -> tuple[int, int]:
    """(row, column) of the pixel showing the quad's point (u, v) in 0..1 (the centre one's UVs)."""
    margin = (SIZE[0] - QUAD_PIXELS) // 2
    return int(margin + v * QUAD_PIXELS), int(margin + u * QUAD_PIXELS)


@pytest.fixture(scope="module")
def offscreen(gl_context):
    with OffscreenRenderer(gl_context) as offscreen:
        yield offscreen


def draw(offscreen, *meshes: Mesh, options: DrawSettings = PLAIN, behind: bool = False) -> np.ndarray:
    image = offscreen.render_image(scene(*meshes), None, SIZE, options, camera=front_camera(behind))
    return image.astype(int)


def plain_colour(offscreen, linear_rgb, u: float, v: float) -> np.ndarray:
    """The pixel at (u, v) of the quad drawn untextured with base colour ``linear_rgb``."""
    image = draw(offscreen, quad(Material(base_color=(*linear_rgb, 1.0))))
    return image[at(u, v)]


# --- texture colours ----------------------------------------------------------------------------

@pytest.mark.gl
def test_texels_show_in_their_corners_as_their_own_colours(offscreen):
    """Top-left red, top-right green, bottom-left blue, bottom-right grey: each quadrant's pixel equals
    the untextured quad in that texel's sRGB-decoded colour."""
    colours = {(0.25, 0.25): RED, (0.75, 0.25): GREEN, (0.25, 0.75): BLUE, (0.75, 0.75): GREY}
    image = draw(offscreen, quad(Material(base_color=(1, 1, 1, 1), image=quadrants(RED, GREEN, BLUE, GREY))))
    for (u, v), texel in colours.items():
        expected = plain_colour(offscreen, srgb_to_linear(texel[:3]), u, v)
        np.testing.assert_allclose(image[at(u, v)], expected, atol=3, err_msg=f"texel {texel} at {(u, v)}")


@pytest.mark.gl
def test_grey_texel_is_decoded_from_srgb(offscreen):
    """128 grey is 0.216 in linear light: drawn as linear 0.502 instead it would be much brighter."""
    image = draw(offscreen, quad(Material(base_color=(1, 1, 1, 1), image=quadrants(*[GREY] * 4))))
    decoded = plain_colour(offscreen, srgb_to_linear([128] * 3), 0.5, 0.5)
    undecoded = plain_colour(offscreen, [128 / 255] * 3, 0.5, 0.5)
    np.testing.assert_allclose(image[at(0.5, 0.5)], decoded, atol=3)
    assert np.abs(image[at(0.5, 0.5)] - undecoded)[:3].min() > 20


@pytest.mark.gl
def test_base_colour_multiplies_the_texel(offscreen):
    factor = np.array([0.5, 0.25, 1.0])
    image = draw(offscreen, quad(Material(base_color=(*factor, 1.0), image=quadrants(*[GREY] * 4))))
    expected = plain_colour(offscreen, factor * srgb_to_linear([128] * 3), 0.5, 0.5)
    np.testing.assert_allclose(image[at(0.5, 0.5)], expected, atol=3)


@pytest.mark.gl
def test_textures_off_draws_the_base_colour(offscreen):
    factor = (0.2, 0.5, 0.3)
    mesh = quad(Material(base_color=(*factor, 1.0), image=quadrants(RED, GREEN, BLUE, GREY)))
    image = draw(offscreen, mesh, options=DrawSettings(grid=False, textures=False))
    for u, v in ((0.25, 0.25), (0.75, 0.75)):
        np.testing.assert_allclose(image[at(u, v)], plain_colour(offscreen, factor, u, v), atol=1)


def _red_green_columns() -> np.ndarray:
    image = np.zeros((8, 8, 4), np.uint8)
    image[:, :4], image[:, 4:] = RED, GREEN
    return image


@pytest.mark.gl
@pytest.mark.parametrize(("wrap", "expected"), [
    ("repeat", "RGRG"), ("mirror", "RGGR"), ("clamp", "RGGG")])
def test_wrap_modes_along_u(offscreen, wrap, expected):
    """UVs run 0..2 across the quad: the red|green image repeats, mirrors or stretches its last column."""
    material = Material(base_color=(1, 1, 1, 1), image=_red_green_columns(), wrap=(wrap, "clamp"))
    image = draw(offscreen, quad(material, uv_scale=2.0))
    seen = ""
    for u in (0.125, 0.375, 0.625, 0.875):
        red, green = image[at(u, 0.25)][:2]
        seen += "R" if red > green else "G"
    assert seen == expected


@pytest.mark.gl
def test_uv_transform_moves_the_image(offscreen):
    """KHR_texture_transform offset 0.5 and scale 0.5 along u: the whole quad shows the green half."""
    transform = np.array([[0.5, 0.0, 0.5], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    material = Material(base_color=(1, 1, 1, 1), image=_red_green_columns(), wrap=("clamp", "clamp"),
                        uv_transform=transform)
    image = draw(offscreen, quad(material))
    for u in (0.2, 0.45, 0.9):  # untransformed, the first two would be red
        red, green = image[at(u, 0.5)][:2]
        assert green > red + 100, u


@pytest.mark.gl
def test_image_larger_than_the_driver_allows_is_shrunk_with_a_warning(offscreen):
    limit = offscreen.ctx.info["GL_MAX_TEXTURE_SIZE"]
    image = np.zeros((1, limit + 2, 4), np.uint8)
    image[:, : (limit + 2) // 2], image[:, (limit + 2) // 2:] = RED, GREEN
    picture = draw(offscreen, quad(Material(base_color=(1, 1, 1, 1), image=image, texture="wide.png")))
    warnings = offscreen.renderer.take_warnings()
    assert len(warnings) == 1 and "wide.png" in warnings[0] and f"{limit + 2}x1" in warnings[0]
    assert f"limit of {limit}" in warnings[0]
    assert picture[at(0.25, 0.5)][0] > picture[at(0.25, 0.5)][1] + 100
    assert picture[at(0.75, 0.5)][1] > picture[at(0.75, 0.5)][0] + 100
    assert offscreen.renderer.take_warnings() == []


# --- alpha modes --------------------------------------------------------------------------------

def _half_transparent() -> np.ndarray:
    """Left half opaque grey, right half grey with alpha 60."""
    image = quadrants(*[GREY] * 4)
    image[:, 32:, 3] = 60
    return image


def _background() -> np.ndarray:
    return np.rint(np.array(PLAIN.background) * 255).astype(int)


@pytest.mark.gl
def test_mask_cuts_texels_below_the_cutoff(offscreen):
    image = draw(offscreen, quad(Material(base_color=(1, 1, 1, 1), image=_half_transparent(),
                                          alpha_mode="MASK", alpha_cutoff=0.5)))
    opaque = draw(offscreen, quad(Material(base_color=(1, 1, 1, 1), image=_half_transparent())))
    np.testing.assert_array_equal(image[at(0.75, 0.5)], _background())
    np.testing.assert_array_equal(image[at(0.25, 0.5)], opaque[at(0.25, 0.5)])
    assert np.abs(opaque[at(0.75, 0.5)] - _background()).max() > 20  # opaque ignores the alpha


@pytest.mark.gl
def test_mask_cutoff_below_the_alpha_keeps_the_texels(offscreen):
    image = draw(offscreen, quad(Material(base_color=(1, 1, 1, 1), image=_half_transparent(),
                                          alpha_mode="MASK", alpha_cutoff=0.2)))
    assert np.abs(image[at(0.75, 0.5)] - _background()).max() > 20


@pytest.mark.gl
def test_blend_mixes_with_the_background(offscreen):
    """Alpha a = 0.4 (the base colour's): the pixel is a·(the opaque pixel) + (1 − a)·background."""
    alpha = 0.4
    colour = (0.6, 0.3, 0.1)
    blended = draw(offscreen, quad(Material(base_color=(*colour, alpha), alpha_mode="BLEND")))
    opaque = draw(offscreen, quad(Material(base_color=(*colour, 1.0))))
    expected = alpha * opaque[at(0.5, 0.5)][:3] + (1 - alpha) * _background()[:3]
    np.testing.assert_allclose(blended[at(0.5, 0.5)][:3], expected, atol=2)


@pytest.mark.gl
def test_blended_meshes_are_drawn_far_to_near_whatever_their_order(offscreen):
    """Blue (near) listed before red (far), each alpha 0.5: blue mixes over red over the background."""
    near = quad(Material(base_color=(0.05, 0.1, 0.8, 0.5), alpha_mode="BLEND"), z=0.3, name="near")
    far = quad(Material(base_color=(0.8, 0.05, 0.05, 0.5), alpha_mode="BLEND"), z=-0.3, name="far")
    image = draw(offscreen, near, far)
    pixel = at(0.5, 0.5)
    near_opaque = draw(offscreen, quad(Material(base_color=(0.05, 0.1, 0.8, 1.0)), z=0.3))[pixel][:3]
    far_opaque = draw(offscreen, quad(Material(base_color=(0.8, 0.05, 0.05, 1.0)), z=-0.3))[pixel][:3]
    expected = 0.5 * near_opaque + 0.5 * (0.5 * far_opaque + 0.5 * _background()[:3])
    np.testing.assert_allclose(image[pixel][:3], expected, atol=3)


@pytest.mark.gl
def test_a_blended_mesh_writes_no_depth(offscreen):
    """One blended mesh of two layers, the near layer's triangles first: with depth writes the far
    layer would be cut away; without them it still mixes in over the near one."""
    material = Material(base_color=(0.8, 0.05, 0.05, 0.5), alpha_mode="BLEND")
    near, far = quad(material, z=0.3), quad(material, z=-0.3)
    both = Mesh(name="layers", positions=np.concatenate([near.positions, far.positions]),
                normals=np.concatenate([near.normals, far.normals]), uvs=np.concatenate([near.uvs, far.uvs]),
                triangles=np.concatenate([near.triangles, far.triangles + 4]), joints=np.zeros((8, 1)),
                weights=np.zeros((8, 1)), material=material)
    pixel = at(0.5, 0.5)
    layered = draw(offscreen, both)[pixel][:3]
    single = draw(offscreen, near)[pixel][:3]
    far_opaque = draw(offscreen, quad(Material(base_color=(0.8, 0.05, 0.05, 1.0)), z=-0.3))[pixel][:3]
    np.testing.assert_allclose(layered, 0.5 * far_opaque + 0.5 * single, atol=3)
    assert np.abs(layered - single).max() > 10


@pytest.mark.gl
def test_blended_mesh_behind_an_opaque_one_is_hidden(offscreen):
    wall = quad(Material(base_color=(0.2, 0.6, 0.2, 1.0)), z=0.3, name="wall")
    glass = quad(Material(base_color=(0.8, 0.05, 0.05, 0.5), alpha_mode="BLEND"), z=-0.3, name="glass")
    np.testing.assert_array_equal(draw(offscreen, glass, wall)[at(0.5, 0.5)],
                                  draw(offscreen, wall)[at(0.5, 0.5)])


# --- hidden meshes and sides --------------------------------------------------------------------

@pytest.mark.gl
def test_hidden_mesh_is_drawn_only_when_shown(offscreen):
    left = quad(Material(base_color=(0.8, 0.1, 0.1, 1)), x=-0.5, half=0.45, name="left")
    right = quad(Material(base_color=(0.1, 0.8, 0.1, 1)), x=0.5, half=0.45, name="right", visible=False)
    hidden = draw(offscreen, left, right)
    shown = draw(offscreen, left, right, options=DrawSettings(grid=False, show_hidden=True))
    right_pixel, left_pixel = at(0.75, 0.5), at(0.25, 0.5)
    np.testing.assert_array_equal(hidden[right_pixel], _background())
    assert shown[right_pixel][1] > shown[right_pixel][0] + 100
    np.testing.assert_array_equal(hidden[left_pixel], shown[left_pixel])


@pytest.mark.gl
def test_single_sided_quad_is_culled_from_behind_and_double_sided_is_not(offscreen):
    single = draw(offscreen, quad(Material(base_color=(0.8, 0.3, 0.1, 1))), behind=True)
    double = draw(offscreen, quad(Material(base_color=(0.8, 0.3, 0.1, 1), double_sided=True)), behind=True)
    np.testing.assert_array_equal(single[at(0.5, 0.5)], _background())
    assert np.abs(double[at(0.5, 0.5)] - _background()).max() > 20


@pytest.mark.gl
def test_winding_against_the_normals_is_never_culled(offscreen):
    """A legacy mesh whose triangles wind against its normals is drawn from both sides."""
    mesh = quad(Material(base_color=(0.8, 0.3, 0.1, 1)), flip_winding=True)
    for behind in (False, True):
        image = draw(offscreen, mesh, behind=behind)
        assert np.abs(image[at(0.5, 0.5)] - _background()).max() > 20, behind


# --- picking ------------------------------------------------------------------------------------

@pytest.mark.gl
def test_mesh_at_names_the_mesh_under_a_pixel(offscreen):
    masked = np.zeros((8, 8, 4), np.uint8)
    masked[:, :4], masked[:, 4:] = (255, 255, 255, 255), (255, 255, 255, 0)
    left = quad(Material(base_color=(1, 1, 1, 1)), x=-0.5, half=0.45, name="left")
    right = quad(Material(base_color=(1, 1, 1, 1), image=masked, alpha_mode="MASK"), x=0.5, half=0.45,
                 name="right")
    behind = quad(Material(base_color=(1, 1, 1, 1)), z=-0.5, name="behind", visible=False)
    offscreen.render_image(scene(left, right, behind), None, SIZE, PLAIN, camera=front_camera())
    renderer, camera = offscreen.renderer, front_camera()

    def pick(u, v, options=PLAIN):
        row, column = at(u, v)
        return renderer.mesh_at(camera, SIZE, column, row, options)

    assert pick(0.25, 0.5) == 0
    assert pick(0.55, 0.5) == 1          # the right quad's opaque left half
    assert pick(0.85, 0.5) is None       # its cut half, with the hidden quad not drawn
    assert pick(0.85, 0.5, DrawSettings(show_hidden=True)) == 2
    assert pick(0.5, 0.02) is None
    assert renderer.mesh_at(camera, SIZE, -1, 5) is None


# --- GL resources -------------------------------------------------------------------------------

def _released(gl_object) -> bool:
    return type(gl_object.mglo).__name__ == "InvalidObject"


@pytest.mark.gl
def test_textures_are_shared_replaced_and_released_with_the_renderer(gl_context):
    image = quadrants(RED, GREEN, BLUE, GREY)
    image.flags.writeable = False  # as readers hand it over: checked once, then shared
    first, second = (quad(Material(base_color=(1, 1, 1, 1), image=image), name=name) for name in "ab")
    model = scene(first, second)
    with OffscreenRenderer(gl_context) as offscreen:

        def draw_model():
            offscreen.render_image(model, None, SIZE, PLAIN, camera=front_camera())

        draw_model()
        entries = offscreen.renderer.textures.entries
        assert len(entries) == 1, "two meshes with one image share one texture"
        (_, shared), = entries.values()
        first.material = second.material = Material(base_color=(1, 1, 1, 1), image=quadrants(*[GREY] * 4))
        draw_model()
        assert _released(shared) and len(entries) == 1, "an image no mesh shows any more is let go"
        (_, replacement), = entries.values()
    assert _released(replacement) and entries == {}


@pytest.mark.gl
def test_framing_takes_in_hidden_meshes_only_when_they_are_shown(offscreen):
    """The picture frames what is drawn: a far-off hidden quad widens the frame once it is shown."""
    from app.pose import posed_bounds, rest_pose

    near = quad(Material(base_color=(0.8, 0.1, 0.1, 1)), x=-0.5, half=0.45, name="near")
    far = quad(Material(base_color=(0.1, 0.8, 0.1, 1)), x=3.0, half=0.45, name="far", visible=False)
    model = scene(near, far)
    low, high = posed_bounds(model, rest_pose(model))
    np.testing.assert_allclose([low[0], high[0]], [-0.95, -0.05])
    low, high = posed_bounds(model, rest_pose(model), show_hidden=True)
    np.testing.assert_allclose([low[0], high[0]], [-0.95, 3.45])

    def red_and_green(options):
        image = offscreen.render_image(model, None, SIZE, options, view="front").astype(int)
        red = (image[..., 0] > image[..., 1] + 60).sum()
        green = (image[..., 1] > image[..., 0] + 60).sum()
        return red, green

    red_alone, green_alone = red_and_green(PLAIN)
    red_with_far, green_with_far = red_and_green(DrawSettings(grid=False, show_hidden=True))
    assert green_alone == 0 and green_with_far > 200
    # Framed on a 4.4-wide span instead of a 0.9-wide one, the near quad shrinks.
    assert red_with_far < 0.5 * red_alone


@pytest.mark.gl
def test_unlit_material_is_drawn_in_its_colour_as_it_is(offscreen):
    """KHR_materials_unlit: the pixel is the base colour, sRGB-encoded, whatever the lighting; the same
    material lit is not."""
    linear = (0.2, 0.4, 0.6, 1.0)
    expected = [round(255 * (1.055 * c ** (1 / 2.4) - 0.055)) for c in linear[:3]]  # sRGB encoding
    unlit = draw(offscreen, quad(Material(base_color=linear, unlit=True)))[at(0.5, 0.5)][:3]
    lit = draw(offscreen, quad(Material(base_color=linear)))[at(0.5, 0.5)][:3]
    assert np.abs(unlit - expected).max() <= 1, (unlit, expected)
    assert np.abs(lit - expected).max() > 4  # the view's lighting changes it (by 6 to 10 here)
