"""NWN emitters and danglymesh read from files built here in both forms (tests/writers): an emitter
becomes a helper with its settings and shape, a danglymesh's mesh carries its sway parameters;
values that cannot be used are warnings, a constraint table past the file an error naming its offset."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app import loading
from app.formats.registry import ReadError
from tests.writers.nwn_ascii_writer import write_ascii_mdl
from tests.writers.nwn_writer import WNode, write_mdl

SQUARE = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], float)
FACES = [[0, 1, 2], [0, 2, 3]]
HEADER = {"update": "Fountain", "render": "Billboard_to_World_Z", "blend": "Lighten", "texture": "fxpa_flare"}
#: birthrate 20, lifeExp 0.5, spread 1.5 rad, velocity 3 m/s, xsize 50 cm, ysize 120 cm.
NUMBERS = [(88, [0.0], [[20.0]]), (144, [0.0], [[0.5]]), (184, [0.0], [[1.5]]), (192, [0.0], [[3.0]]),
           (196, [0.0], [[50.0]]), (200, [0.0], [[120.0]]), (108, [0.0], [[1.0, 0.5, 0.25]])]
WRITERS = {"binary": write_mdl, "ascii": write_ascii_mdl}


def tree(dangly=(2.0, 4.0, 0.25, [0, 64, 128, 255]), turned=False) -> WNode:
    quarter = (0.0, 0.0, math.sin(math.pi / 4), math.cos(math.pi / 4)) if turned else None
    cape = WNode("cape", 0x121, (0, 0, 1), None, vertices=SQUARE, faces=FACES, dangly=dangly)
    fire = WNode("fire", 0x005, (1, 2, 3), quarter, emitter=HEADER, keys=NUMBERS)
    return WNode("thing", children=[cape, fire])


def load(tmp_path, form: str, root: WNode, **options):
    path = tmp_path / f"thing_{form}.mdl"
    path.write_bytes(WRITERS[form]("thing", root, **options))
    return loading.load([path])


@pytest.mark.parametrize("form", WRITERS)
def test_an_emitter_is_a_helper_with_its_settings_and_shape(tmp_path, form):
    model = load(tmp_path, form, tree(turned=True))
    helper, = model.helpers
    assert helper.name == "fire" and model.skeleton.names[helper.parent] == "fire"
    emitter = helper.emitter
    assert emitter.spread == pytest.approx(1.5)
    assert emitter.size == pytest.approx((0.5, 1.2))   # centimetres to metres
    assert emitter.reach == pytest.approx(1.5)         # 3 m/s for 0.5 s
    settings = emitter.settings
    for key, value in HEADER.items():
        assert settings[key] == value
    numbers = ("birthrate", "lifeExp", "spread", "velocity", "xsize", "ysize")
    assert [float(settings[key]) for key in numbers] == [20, 0.5, 1.5, 3, 50, 120]
    assert [float(v) for v in settings["colorStart"].split()] == [1.0, 0.5, 0.25]
    # posed where its node is: translated (1, 2, 3), turned a quarter about Z
    from app.pose import rest_pose
    world = rest_pose(model).helpers[0]
    np.testing.assert_allclose(world[:3, 3], [1, 2, 3], atol=1e-6)
    np.testing.assert_allclose(world[:3, 0], [0, 1, 0], atol=1e-6)


@pytest.mark.parametrize("form", WRITERS)
def test_a_danglymesh_carries_its_sway(tmp_path, form):
    model = load(tmp_path, form, tree())
    cape = model.meshes[0]
    assert cape.dangly.period == 2.0 and cape.dangly.tightness == 4.0
    assert cape.dangly.displacement == pytest.approx(0.25)
    np.testing.assert_array_equal(cape.dangly.constraints, [0, 64, 128, 255])
    np.testing.assert_allclose(cape.dangly.reach, 0.25 * np.array([0, 64, 128, 255]) / 255, rtol=1e-6)
    assert cape.dangly.damping_ratio == pytest.approx(0.8)
    assert cape.dangly.angular_frequency == pytest.approx(math.pi)
    extras = model.skeleton.extras[model.skeleton.names.index("cape")]
    assert extras["constraints"] == "4 values, 0–255, 1 pinned (0)"
    assert not any("dangl" in warning for warning in model.warnings)


def test_split_vertices_keep_their_constraint(tmp_path):
    """The ASCII reader splits a vertex with two texture vertices; both copies keep its constraint."""
    root = tree()
    root.children[0].uvs = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    model = load(tmp_path, "ascii", root, split_uvs=True)
    cape = model.meshes[0]
    assert cape.vertex_count > 4
    expected = {(0, 0): 0, (1, 0): 64, (1, 1): 128, (0, 1): 255}
    for position, constraint in zip(cape.positions, cape.dangly.constraints):
        assert expected[(round(float(position[0])), round(float(position[1])))] == constraint


@pytest.mark.parametrize("form", WRITERS)
@pytest.mark.parametrize("dangly, warning", [
    ((2.0, 4.0, 0.25, [0, 255]), "danglymesh 'cape': 2 constraints for 4 vertices; drawn without sway"),
    ((0.0, 4.0, -1.0, [0, 0, 0, 0]),
     "danglymesh 'cape': period 0, displacement -1 (expected positive numbers); drawn without sway"),
    ((2.0, 4.0, 0.25, [0, 300, -2, 255]), "danglymesh 'cape': 2 constraints outside 0..255 (vertex 1: 300); "
                                          "clamped"),
])
def test_unusable_dangly_values_are_warnings(tmp_path, form, dangly, warning):
    model = load(tmp_path, form, tree(dangly=dangly))
    assert warning in model.warnings
    if "clamped" in warning:
        np.testing.assert_array_equal(model.meshes[0].dangly.constraints, [0, 255, 0, 255])
    else:
        assert model.meshes[0].dangly is None


def test_emitter_numbers_that_cannot_be_read_are_warnings(tmp_path):
    path = tmp_path / "fx.mdl"
    path.write_text("newmodel fx\nsetsupermodel fx NULL\nbeginmodelgeom fx\nnode dummy fx\n  parent NULL\n"
                    "endnode\nnode emitter spark\n  parent fx\n  xsize lots\n  spread -1\n  velocity 2\n"
                    "endnode\nendmodelgeom fx\ndonemodel fx\n")
    model = loading.load([path])
    assert "emitter 'spark': xsize 'lots' is not a number ≥ 0; drawn as 0" in model.warnings
    assert "emitter 'spark': spread '-1' is not a number ≥ 0; drawn as 0" in model.warnings
    emitter = model.helpers[0].emitter
    assert (emitter.spread, emitter.size, emitter.reach) == (0.0, (0.0, 0.0), 0.0)  # no lifeExp: no reach


def test_a_constraint_table_past_the_file_names_its_offset(tmp_path):
    where: dict = {}
    data = bytearray(write_mdl("thing", tree(), layout_of=where))
    node = where["cape"]
    at = 12 + node + 0x70 + 0x200          # the dangly sub-header follows the mesh's
    model_size = int.from_bytes(data[4:8], "little")
    data[at:at + 4] = (model_size - 4).to_bytes(4, "little")  # 4 floats from 4 bytes before the end
    path = tmp_path / "bad.mdl"
    path.write_bytes(bytes(data))
    with pytest.raises(ReadError) as caught:
        loading.load([path])
    message = str(caught.value)
    assert "bad.mdl" in message and "constraints" in message and "byte" in message


@pytest.mark.parametrize("form", WRITERS)
def test_an_emitter_is_not_listed_among_the_nodes_not_drawn(tmp_path, form):
    """Shown as a helper (View › Emitters), an emitter is no longer in the "nodes not drawn" warning; a
    light beside it still is."""
    root = tree()
    root.children.append(WNode("lamp", 0x003))
    model = load(tmp_path, form, root)
    (hidden,) = [warning for warning in model.warnings if warning.startswith("nodes not drawn")]
    assert hidden == "nodes not drawn: lamp (light)"
