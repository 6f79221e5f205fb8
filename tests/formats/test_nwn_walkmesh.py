"""NWN walkmeshes: a tile's AABB node (both MDL forms) and the ``.wok``/``.pwk``/``.dwk`` files named
after a model, ASCII, compiled MDL and BWM V1.0, beside it, in ``--resources`` and in its archive.
Files come from the tests' writers (tests/writers/nwn_walkmesh_writer.py, written from the published
descriptions); expected counts and materials are worked out here from what was written."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from app import loading
from app.formats.registry import LoadOptions
from app.walkmeshes import SURFACE_MATERIALS, material_name, walkable
from tests.nwn_archive_bytes import erf_bytes
from tests.writers.nwn_ascii_writer import write_ascii_mdl
from tests.writers.nwn_walkmesh_writer import WalkNode, write_ascii_walkmesh, write_bwm
from tests.writers.nwn_writer import WNode, write_mdl

#: A 2 × 2 grid of squares, 9 vertices, 8 triangles, on z = 0.
GRID = np.array([[x, y, 0.0] for y in (0, 5, 10) for x in (0, 5, 10)])
GRID_FACES = np.array([[r * 3 + c, r * 3 + c + 1, r * 3 + c + 4] for r in (0, 1) for c in (0, 1)]
                      + [[r * 3 + c, r * 3 + c + 4, r * 3 + c + 3] for r in (0, 1) for c in (0, 1)])
#: Dirt, Grass, Stone, Water, Nonwalk, Nonwalk, Lava, Door.
GRID_MATERIALS = [1, 3, 4, 6, 7, 7, 15, 18]
BOX = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], float)


def tile_tree(surfaces=GRID_MATERIALS) -> WNode:
    return WNode("tcn01_a01_01", children=[
        WNode("floor", 0x021, vertices=GRID, faces=GRID_FACES),
        WNode("walkmesh", 0x221, position=(1.0, 2.0, 0.5), vertices=GRID, faces=GRID_FACES,
              surfaces=list(surfaces))])


def placeable_tree(name: str) -> WNode:
    return WNode(name, children=[WNode(f"{name}_mesh", 0x021, vertices=BOX, faces=[[0, 1, 2], [0, 2, 3]])])


def expected_counts(materials) -> dict[int, int]:
    return dict(sorted(Counter(materials).items()))


@pytest.mark.parametrize("form", ["ascii", "binary"])
def test_a_tiles_aabb_node_is_its_walkmesh_with_each_faces_material(tmp_path, form):
    write = write_ascii_mdl if form == "ascii" else write_mdl
    path = tmp_path / "tcn01_a01_01.mdl"
    path.write_bytes(write("tcn01_a01_01", tile_tree()))
    model = loading.load([path])
    (walkmesh,) = model.walkmeshes
    assert (walkmesh.name, walkmesh.kind, walkmesh.source) == ("walkmesh", "aabb", path.name)
    assert walkmesh.faces.tolist() == GRID_FACES.tolist()
    assert walkmesh.materials.tolist() == GRID_MATERIALS
    assert walkmesh.faces_per_material() == {1: 1, 3: 1, 4: 1, 6: 1, 7: 2, 15: 1, 18: 1}
    np.testing.assert_allclose(walkmesh.vertices, GRID + [1.0, 2.0, 0.5], atol=1e-6)
    assert [mesh.name for mesh in model.meshes] == ["floor"]  # the AABB node is not drawn


def test_a_placeables_ascii_pwk_beside_it_in_any_case(tmp_path):
    (tmp_path / "plc_chest.mdl").write_bytes(write_ascii_mdl("plc_chest", placeable_tree("plc_chest")))
    nodes = [WalkNode("trimesh", "plc_chest_wg", BOX, [[0, 1, 2], [0, 2, 3]], [7, 7], position=(0, 0, 0.25)),
             WalkNode("trimesh", "plc_chest_use", BOX[:3], [[0, 1, 2]], [4])]
    (tmp_path / "PLC_CHEST.PWK").write_bytes(write_ascii_walkmesh("plc_chest", nodes))
    model = loading.load([tmp_path / "plc_chest.mdl"])
    assert [(w.name, w.kind, len(w.faces)) for w in model.walkmeshes] == [("plc_chest_wg", "pwk", 2),
                                                                          ("plc_chest_use", "pwk", 1)]
    assert model.walkmeshes[0].source == str(tmp_path / "PLC_CHEST.PWK")
    np.testing.assert_allclose(model.walkmeshes[0].vertices, BOX + [0, 0, 0.25], atol=1e-6)
    assert [w.faces_per_material() for w in model.walkmeshes] == [{7: 2}, {4: 1}]


def test_a_doors_numbered_dwk_files(tmp_path):
    (tmp_path / "t_door01.mdl").write_bytes(write_mdl("t_door01", placeable_tree("t_door01")))
    states = {"0": [18, 18], "1": [7, 18], "2": [7, 7]}
    for number, materials in states.items():
        node = WalkNode("trimesh", f"door_state{number}", BOX, [[0, 1, 2], [0, 2, 3]], materials)
        (tmp_path / f"t_door01{number}.dwk").write_bytes(write_ascii_walkmesh(f"t_door01{number}", [node]))
    model = loading.load([tmp_path / "t_door01.mdl"])
    assert [w.name for w in model.walkmeshes] == ["door_state0", "door_state1", "door_state2"]
    assert [w.faces_per_material() for w in model.walkmeshes] == [expected_counts(m) for m in states.values()]


def test_a_tiles_wok_ascii_and_bwm(tmp_path):
    tree = WNode("tcn01_b01_01", children=[WNode("floor", 0x021, vertices=GRID, faces=GRID_FACES)])
    (tmp_path / "tcn01_b01_01.mdl").write_bytes(write_ascii_mdl("tcn01_b01_01", tree))
    wok = WalkNode("aabb", "tcn01_b01_01_wg", GRID, GRID_FACES, GRID_MATERIALS, position=(0, 0, 1))
    (tmp_path / "tcn01_b01_01.wok").write_bytes(write_ascii_walkmesh("tcn01_b01_01", [wok]))
    model = loading.load([tmp_path / "tcn01_b01_01.mdl"])
    (walkmesh,) = model.walkmeshes
    assert (walkmesh.kind, walkmesh.faces_per_material()) == ("wok", expected_counts(GRID_MATERIALS))
    np.testing.assert_allclose(walkmesh.vertices, GRID + [0, 0, 1], atol=1e-6)

    (tmp_path / "tcn01_b01_01.wok").write_bytes(write_bwm(GRID, GRID_FACES, GRID_MATERIALS,
                                                          position=(3.0, 0.0, 0.0)))
    (walkmesh,) = loading.load([tmp_path / "tcn01_b01_01.mdl"]).walkmeshes
    assert walkmesh.materials.tolist() == GRID_MATERIALS
    assert walkmesh.faces.tolist() == GRID_FACES.tolist()
    np.testing.assert_allclose(walkmesh.vertices, GRID + [3.0, 0, 0], atol=1e-6)


def test_a_compiled_pwk_reads_its_trimesh_nodes(tmp_path):
    (tmp_path / "plc_table.mdl").write_bytes(write_mdl("plc_table", placeable_tree("plc_table")))
    walk = WNode("plc_table_pwk", children=[
        WNode("plc_table_wg", 0x021, position=(0, 0, 2), vertices=BOX, faces=[[0, 1, 2], [0, 2, 3]],
              surfaces=[5, 9])])
    (tmp_path / "plc_table.pwk").write_bytes(write_mdl("plc_table", walk))
    (walkmesh,) = loading.load([tmp_path / "plc_table.mdl"]).walkmeshes
    assert (walkmesh.name, walkmesh.materials.tolist()) == ("plc_table_wg", [5, 9])
    np.testing.assert_allclose(walkmesh.vertices, BOX + [0, 0, 2], atol=1e-6)


def test_walkmeshes_found_in_resources_and_in_the_models_archive(tmp_path):
    node = WalkNode("trimesh", "plc_urn_wg", BOX, [[0, 1, 2], [0, 2, 3]], [4, 4])
    folder = tmp_path / "walk"
    folder.mkdir()
    (folder / "plc_urn.pwk").write_bytes(write_ascii_walkmesh("plc_urn", [node]))
    models = tmp_path / "models"
    models.mkdir()
    (models / "plc_urn.mdl").write_bytes(write_ascii_mdl("plc_urn", placeable_tree("plc_urn")))
    model = loading.load([models / "plc_urn.mdl"], LoadOptions(resources=[str(folder)]))
    assert [w.source for w in model.walkmeshes] == [str(folder / "plc_urn.pwk")]

    hak = tmp_path / "urns.hak"
    hak.write_bytes(erf_bytes([("plc_urn", "mdl", write_ascii_mdl("plc_urn", placeable_tree("plc_urn"))),
                               ("plc_urn", "pwk", write_ascii_walkmesh("plc_urn", [node]))]))
    model = loading.load([f"{hak}:plc_urn"])
    assert [(w.source, w.faces_per_material()) for w in model.walkmeshes] == [(f"{hak}:plc_urn.pwk", {4: 2})]


@pytest.mark.parametrize("damage, where", [
    ("index", "plc_bad.pwk:18: face 0"),  # a face naming vertex 9 of 4: the ASCII reader names the line
    ("bwm-truncated", "at byte"),  # counts past the end: the BWM reader names the offset
    ("bwm-vertex", "at byte"),
    ("empty", "plc_bad.pwk:1: expected a 'beginwalkmeshgeom"),
])
def test_a_broken_walkmesh_is_one_warning_and_the_model_still_loads(tmp_path, damage, where):
    (tmp_path / "plc_bad.mdl").write_bytes(write_ascii_mdl("plc_bad", placeable_tree("plc_bad")))
    if damage == "index":
        data = write_ascii_walkmesh("plc_bad", [WalkNode("trimesh", "wg", BOX, [[0, 1, 9]], [4])])
    elif damage == "bwm-truncated":
        data = write_bwm(BOX, [[0, 1, 2]], [4])[:-6]
    elif damage == "bwm-vertex":
        data = write_bwm(BOX, [[0, 1, 7]], [4])
    else:
        data = b"# nothing here\n"
    (tmp_path / "plc_bad.pwk").write_bytes(data)
    model = loading.load([tmp_path / "plc_bad.mdl"])
    assert model.walkmeshes == ()
    assert len(model.meshes) == 1
    (warning,) = [w for w in model.warnings if "walkmesh" in w]
    assert warning.startswith("walkmesh plc_bad.pwk is not used: ")
    assert where in warning


def test_surface_materials_table():
    names = [name for name, _ in SURFACE_MATERIALS]
    assert names[:21] == ["NotDefined", "Dirt", "Obscuring", "Grass", "Stone", "Wood", "Water", "Nonwalk",
                          "Transparent", "Carpet", "Metal", "Puddles", "Swamp", "Mud", "Leaves", "Lava",
                          "BottomlessPit", "DeepWater", "Door", "Snow", "Sand"]
    assert [m for m in range(len(SURFACE_MATERIALS)) if not walkable(m)] == [0, 2, 7, 8, 15, 17]
    assert material_name(99) == "material 99" and not walkable(99) and not walkable(-1)


@pytest.mark.parametrize("form", ["ascii", "bwm", "binary"])
def test_damaged_walkmesh_files_are_read_or_refused_never_a_crash(form):
    """Seeded byte damage (flips, cuts, huge counts) of each form: a walkmesh or a ReadError/ValueError
    (the load turns those into a warning), nothing else."""
    from app.errors import ReadError
    from app.formats.nwn.walkmeshes import parse_walkmesh_file

    node = WalkNode("aabb", "wg", GRID, GRID_FACES, GRID_MATERIALS)
    source = {"ascii": lambda: write_ascii_walkmesh("t", [node]),
              "bwm": lambda: write_bwm(GRID, GRID_FACES, GRID_MATERIALS),
              "binary": lambda: write_mdl("t", tile_tree())}[form]()
    random = np.random.default_rng(40)
    for _ in range(150):
        data = bytearray(source)
        for _ in range(int(random.integers(1, 6))):
            at = int(random.integers(0, len(data)))
            data[at] = int(random.integers(0, 256)) if random.random() < 0.7 else 0xFF
        if random.random() < 0.2:
            data = data[:int(random.integers(0, len(data)))]
        try:
            walkmeshes = parse_walkmesh_file("t.wok", "wok", bytes(data))
        except (ReadError, ValueError):
            continue
        for walkmesh in walkmeshes:
            assert len(walkmesh.materials) == len(walkmesh.faces)


def test_a_face_row_without_its_material_drops_the_materials_with_a_warning(tmp_path):
    text = write_ascii_mdl("tcn01_a01_01", tile_tree()).decode()
    rows = [line for line in text.splitlines() if line.startswith("    ") and line.endswith(" 15")]
    text = text.replace(rows[0], rows[0].rsplit(" ", 1)[0])  # the Lava face loses its material
    path = tmp_path / "tcn01_a01_01.mdl"
    path.write_text(text)
    model = loading.load([path])
    assert model.walkmeshes[0].materials.tolist() == [0] * len(GRID_MATERIALS)
    assert any("has no surface material" in warning for warning in model.warnings)


def test_walkmesh_vertices_past_float32_are_a_warning(tmp_path):
    (tmp_path / "plc_far.mdl").write_bytes(write_ascii_mdl("plc_far", placeable_tree("plc_far")))
    node = WalkNode("trimesh", "wg", BOX, [[0, 1, 2]], [4], position=(1e39, 0, 0))
    (tmp_path / "plc_far.pwk").write_bytes(write_ascii_walkmesh("plc_far", [node]))
    model = loading.load([tmp_path / "plc_far.mdl"])
    assert model.walkmeshes == () and len(model.meshes) == 1
    assert any(w.startswith("walkmesh plc_far.pwk is not used: ") and "overflow" in w for w in model.warnings)
