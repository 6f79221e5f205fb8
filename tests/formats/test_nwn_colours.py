"""NWN vertex colours (ASCII ``colors N``: r g b per vertex; binary: a word per vertex at 0x248,
bytes R, G, B, A with A = 255, as NWN Explorer's compiler writes them): read as display colours, kept as
linear light on the mesh, listed by ``info`` and multiplied into the picture; a list that does not fit its
mesh, or binary words no compiler writes, is a warning and nothing is drawn from it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app import loading
from app.cli.main import main
from tests.formats.test_nwn_mdl import save
from tests.writers.nwn_ascii_writer import write_ascii_mdl
from tests.writers.nwn_writer import WNode, write_mdl

SQUARE = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], float)
#: Bytes R, G, B, A per vertex: black, a mid grey, pure red, white.
COLOURS = np.array([[0, 0, 0, 255], [128, 128, 128, 255], [255, 0, 0, 255], [255, 255, 255, 255]])


def srgb_to_linear(value: float) -> float:
    """The sRGB transfer function's inverse, written out (IEC 61966-2-1)."""
    return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4


def tile(colours=COLOURS) -> WNode:
    return WNode("tile", children=[WNode("floor", 0x021, (0, 0, 0), None, vertices=SQUARE,
                                         faces=[[0, 1, 2], [0, 2, 3]], colors=colours)])


def written(tmp_path, form: str, colours=COLOURS):
    data = write_mdl("tile", tile(colours)) if form == "binary" else write_ascii_mdl("tile", tile(colours))
    return save(tmp_path, "tile.mdl", data)


@pytest.mark.parametrize("form", ["binary", "ascii"])
def test_vertex_colours_are_read_as_linear_light(tmp_path, form):
    model = loading.load([written(tmp_path, form)])
    floor = next(mesh for mesh in model.meshes if mesh.name == "floor")
    grey = srgb_to_linear(128 / 255)
    expected = [[0, 0, 0, 1], [grey, grey, grey, 1], [1, 0, 0, 1], [1, 1, 1, 1]]
    np.testing.assert_allclose(floor.colors, expected, atol=1e-5)


@pytest.mark.parametrize("form", ["binary", "ascii"])
def test_info_lists_the_colours(tmp_path, form, capsys):
    assert main(["info", str(written(tmp_path, form)), "--json"]) == 0
    meshes = {mesh["name"]: mesh for mesh in json.loads(capsys.readouterr().out)["mesh_list"]}
    assert meshes["floor"]["colors"] is True


def test_all_white_binary_colours_are_no_colours(tmp_path):
    """Every sample's words are 0xFFFFFFFF: white multiplies nothing, so the mesh has no colours."""
    white = np.full((4, 4), 255)
    floor = next(mesh for mesh in loading.load([written(tmp_path, "binary", white)]).meshes
                 if mesh.name == "floor")
    assert floor.colors is None


def test_a_colour_list_of_another_length_is_a_warning(tmp_path):
    text = write_ascii_mdl("tile", tile()).decode().replace("colors 4", "colors 3", 1)
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip() == "colors 3")
    del lines[at + 4]
    model = loading.load([save(tmp_path, "tile.mdl", "\n".join(lines).encode())])
    floor = next(mesh for mesh in model.meshes if mesh.name == "floor")
    assert floor.colors is None
    assert any(f"tile.mdl line {at + 1}: node 'floor': colors lists 3 colours for 4 vertices" in warning
               for warning in model.warnings)


def test_a_colour_outside_0_to_1_is_a_warning(tmp_path):
    text = write_ascii_mdl("tile", tile()).decode()
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip() == "colors 4")
    lines[at + 1] = "    0 7 0"
    model = loading.load([save(tmp_path, "tile.mdl", "\n".join(lines).encode())])
    assert next(mesh for mesh in model.meshes if mesh.name == "floor").colors is None
    assert any("a colour is outside 0..1" in warning for warning in model.warnings)


def test_binary_colours_whose_alpha_bytes_are_not_255_are_not_read(tmp_path):
    """The compilers write alpha 255 in every colour word (NWN Explorer's MakeRGBA(r, g, b, 0xFF)):
    words with other alpha bytes are not colours, so the mesh is drawn without them, with a warning."""
    garbage = COLOURS.copy()
    garbage[1, 3] = 17
    model = loading.load([written(tmp_path, "binary", garbage)])
    floor = next(mesh for mesh in model.meshes if mesh.name == "floor")
    assert floor.colors is None
    assert "mesh 'floor': vertex colours not read (1 of 4 alpha bytes are not 255); drawn without them" \
        in model.warnings


def test_binary_colours_of_a_skin_mesh_are_not_read(tmp_path):
    """Only trimesh and AABB nodes get colours from the compilers; a skin mesh's words are not read."""
    from tests.formats.test_nwn_mdl import model_tree, walk_animation

    tree = model_tree()
    body = next(child for child in tree.children if child.name == "body")
    body.colors = np.array([[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [9, 9, 9, 255]])
    model = loading.load([save(tmp_path, "c_test.mdl", write_mdl("c_test", tree, [walk_animation()]))])
    mesh = next(mesh for mesh in model.meshes if mesh.name == "body")
    assert mesh.colors is None
    assert any("mesh 'body': vertex colours not read (a skin mesh" in warning for warning in model.warnings)


def test_binary_colours_read_with_no_warning_about_their_order(tmp_path):
    model = loading.load([written(tmp_path, "binary")])
    assert not any("colour" in warning for warning in model.warnings)
