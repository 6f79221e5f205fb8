"""``boneyard check``'s walkmesh rules (docs/formats/nwn-check.md): ``tile-walkmesh`` for a tile
without a walkmesh, ``walkmesh-material`` for faces whose surface material surfacemat.2da lacks."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.cli.main import main
from tests.writers.nwn_ascii_writer import write_ascii_mdl
from tests.writers.nwn_walkmesh_writer import WalkNode, write_ascii_walkmesh
from tests.writers.nwn_writer import WNode

SQUARE = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], float)
FACES = [[0, 1, 2], [0, 2, 3]]


def findings(capsys, path, *options) -> tuple[int, list[tuple[str, str, str]]]:
    status = main(["check", str(path), "--json", *options])
    found = json.loads(capsys.readouterr().out)["findings"]
    return status, [(f["severity"], f["rule"], f["node"]) for f in found]


def floor_tree(name: str, aabb_faces=None, surfaces=None) -> WNode:
    children = [WNode("floor", 0x021, vertices=SQUARE, faces=FACES)]
    if aabb_faces is not None:
        children.append(WNode("wok", 0x221, vertices=SQUARE, faces=aabb_faces, surfaces=surfaces))
    return WNode(name, children=children)


@pytest.mark.parametrize("name, classification", [("tcn01_a01_01", "character"), ("myfloor", "tile")])
def test_a_tile_without_a_walkmesh(tmp_path, capsys, name, classification):
    path = tmp_path / f"{name}.mdl"
    path.write_bytes(write_ascii_mdl(name, floor_tree(name), classification=classification))
    status, found = findings(capsys, path)
    assert (status, found) == (1, [("error", "tile-walkmesh", name)])


def test_an_aabb_node_without_faces_is_a_tile_without_a_walkmesh(tmp_path, capsys):
    path = tmp_path / "plain.mdl"
    tree = floor_tree("plain")
    tree.children.append(WNode("wok", 0x221))
    path.write_bytes(write_ascii_mdl("plain", tree))
    assert findings(capsys, path) == (1, [("error", "tile-walkmesh", "plain")])


def test_a_tile_with_its_wok_beside_it_passes(tmp_path, capsys):
    path = tmp_path / "tcn01_a01_02.mdl"
    path.write_bytes(write_ascii_mdl("tcn01_a01_02", floor_tree("tcn01_a01_02")))
    (tmp_path / "tcn01_a01_02.wok").write_bytes(write_ascii_walkmesh(
        "tcn01_a01_02", [WalkNode("aabb", "wg", SQUARE, FACES, [3, 4])]))
    assert findings(capsys, path) == (0, [])


def test_a_placeable_is_no_tile(tmp_path, capsys):
    path = tmp_path / "plc_chair.mdl"
    path.write_bytes(write_ascii_mdl("plc_chair", floor_tree("plc_chair"), classification="character"))
    assert findings(capsys, path) == (0, [])


def test_faces_with_materials_outside_the_table(tmp_path, capsys):
    path = tmp_path / "tcn01_a01_03.mdl"
    path.write_bytes(write_ascii_mdl("tcn01_a01_03", floor_tree("tcn01_a01_03", FACES, [4, 23])))
    status, found = findings(capsys, path)
    assert (status, found) == (0, [("warning", "walkmesh-material", "wok")])
    main(["check", str(path)])
    assert capsys.readouterr().out.strip() == ("warning walkmesh-material wok: 1 face has a surface "
                                               "material outside 0..22 (face 1 has 23)")


def test_faces_left_not_defined(tmp_path, capsys):
    """Material 0 (NotDefined) on two of three faces: one warning naming the walkmesh, the count and
    the first such face; the check still passes (exit 0)."""
    path = tmp_path / "tcn01_a01_04.mdl"
    faces = [[0, 1, 2], [0, 2, 3], [1, 2, 3]]
    path.write_bytes(write_ascii_mdl("tcn01_a01_04", floor_tree("tcn01_a01_04", faces, [4, 0, 0])))
    status, found = findings(capsys, path)
    assert (status, found) == (0, [("warning", "walkmesh-undefined", "wok")])
    main(["check", str(path)])
    assert capsys.readouterr().out.strip() == ("warning walkmesh-undefined wok: 2 of 3 faces are left "
                                               "NotDefined (surface material 0; face 1 first): give each "
                                               "a material")


def test_a_wok_beside_the_tile_with_not_defined_faces(tmp_path, capsys):
    path = tmp_path / "tcn01_a01_05.mdl"
    path.write_bytes(write_ascii_mdl("tcn01_a01_05", floor_tree("tcn01_a01_05")))
    (tmp_path / "tcn01_a01_05.wok").write_bytes(write_ascii_walkmesh(
        "tcn01_a01_05", [WalkNode("aabb", "wg", SQUARE, FACES, [0, 3])]))
    assert findings(capsys, path) == (0, [("warning", "walkmesh-undefined", "wg")])
