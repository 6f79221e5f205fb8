"""An NWN model's walkmeshes in the glTF export (app/export/gltf_walkmeshes.py): one unskinned, unlit
mesh node per walkmesh, named after it, under the up root, each face's corners coloured by its surface
material (linear RGB of the View › Walkmesh colours); read back as a walkmesh, not a mesh, so
``convert --check`` compares the model's own meshes. Expected values are worked out here from what the
tile was written with, and the file is read with the spec's reading (tests/gltf_spec.py)."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from app import loading
from app.cli.main import main
from app.errors import ReadError
from app.export.gltf import export_gltf
from app.walkmeshes import MATERIAL_COLORS
from tests.export.test_gltf_materials import assert_valid, glb_json
from tests.formats.test_nwn_walkmesh import GRID, GRID_FACES, GRID_MATERIALS, tile_tree
from tests.gltf_spec import Document, world_matrices
from tests.writers.nwn_ascii_writer import write_ascii_mdl

#: The tile's AABB node sits at (1, 2, 0.5): its walkmesh's corners in model space.
CORNERS = (GRID + [1.0, 2.0, 0.5])[GRID_FACES].reshape(-1, 3)


def srgb_to_linear(value: float) -> float:
    """The sRGB transfer curve's inverse (IEC 61966-2-1)."""
    return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4


@pytest.fixture
def tile(tmp_path):
    path = tmp_path / "tcn01_a01_01.mdl"
    path.write_bytes(write_ascii_mdl("tcn01_a01_01", tile_tree()))
    return loading.load([path])


def test_each_walkmesh_is_an_unlit_unskinned_node_coloured_by_material(tile, tmp_path):
    out = tmp_path / "tile.glb"
    export_gltf(tile, out)
    document = glb_json(out)
    nodes = document["nodes"]
    (index,) = [i for i, node in enumerate(nodes) if node.get("extras", {}).get("walkmesh")]
    node = nodes[index]
    assert node["name"] == "walkmesh" and "skin" not in node
    assert node["extras"]["walkmesh"] == {"kind": "aabb", "source": "tcn01_a01_01.mdl",
                                          "materials": GRID_MATERIALS}
    root = document["asset"]["extras"]["up_root"]
    (root_index,) = [i for i, n in enumerate(nodes) if n["name"] == root]
    assert index in nodes[root_index]["children"]
    (primitive,) = document["meshes"][node["mesh"]]["primitives"]
    material = document["materials"][primitive["material"]]
    assert "KHR_materials_unlit" in material["extensions"]
    assert "KHR_materials_unlit" in document["extensionsUsed"]
    assert material["doubleSided"] is True and material["alphaMode"] == "BLEND"
    spec = Document(out)
    corners = spec.accessor(primitive["attributes"]["POSITION"])
    np.testing.assert_allclose(corners, CORNERS, atol=1e-6)
    worlds = world_matrices(nodes)
    np.testing.assert_allclose(worlds[index], worlds[root_index], atol=1e-12)  # turned with the model
    colours = spec.accessor(primitive["attributes"]["COLOR_0"])
    expected = np.repeat([[*(srgb_to_linear(c) for c in MATERIAL_COLORS[m]), 0.55] for m in GRID_MATERIALS],
                         3, axis=0)
    np.testing.assert_allclose(colours, expected, atol=1e-6)
    assert_valid(out)


def test_the_walkmesh_reads_back_as_a_walkmesh_and_convert_check_passes(tile, tmp_path, capsys):
    out = tmp_path / "tile.glb"
    assert main(["convert", str(tmp_path / "tcn01_a01_01.mdl"), "-o", str(out), "--check"]) == 0
    assert "worst vertex error" in capsys.readouterr().out
    again = loading.load([out])
    assert [mesh.name for mesh in again.meshes] == ["floor"]
    assert again.skeleton.names.count("walkmesh") == 1  # the AABB node's bone; the walkmesh's node is none
    (walkmesh,) = again.walkmeshes
    assert (walkmesh.name, walkmesh.kind, walkmesh.source) == ("walkmesh", "aabb", "tcn01_a01_01.mdl")
    assert walkmesh.faces_per_material() == dict(sorted(Counter(GRID_MATERIALS).items()))
    # Read in the file's Y-up space: model +Z is glTF +Y, and NWN's +Y facing is glTF's +Z.
    document = glb_json(out)
    root = next(n for n in document["nodes"] if n["name"] == document["asset"]["extras"]["up_root"])
    turn = world_matrices([root])[0]
    np.testing.assert_allclose(walkmesh.vertices, CORNERS @ turn[:3, :3].T, atol=1e-5)


@pytest.mark.parametrize("damage, reason", [
    (lambda record: record.update(materials=GRID_MATERIALS[:7]), "it has 24 corners for 7 face materials"),
    (lambda record: record.update(materials=["Dirt"] * 8), "its extras lack kind, source or materials "
                                                            "(integers from 0)"),
    (lambda record: record.pop("kind"), "its extras lack kind, source or materials (integers from 0)"),
])
def test_a_walkmesh_mark_that_does_not_fit_is_read_as_a_mesh_with_a_warning(tile, tmp_path, damage, reason):
    out = tmp_path / "tile.gltf"
    export_gltf(tile, out)
    document = json.loads(out.read_text())
    node = next(n for n in document["nodes"] if n.get("extras", {}).get("walkmesh"))
    damage(node["extras"]["walkmesh"])
    out.write_text(json.dumps(document))
    again = loading.load([out])
    assert [mesh.name for mesh in again.meshes] == ["floor", "walkmesh"] and not again.walkmeshes
    expected = f"(walkmesh): marked as a walkmesh but {reason}; read as a mesh"
    assert any(warning.endswith(expected) for warning in again.warnings)


def test_a_walkmesh_mark_on_a_node_whose_mesh_is_missing_is_an_error_naming_it(tile, tmp_path):
    out = tmp_path / "tile.gltf"
    export_gltf(tile, out)
    document = json.loads(out.read_text())
    index = next(i for i, n in enumerate(document["nodes"]) if n.get("extras", {}).get("walkmesh"))
    document["nodes"][index]["mesh"] = 99
    out.write_text(json.dumps(document))
    with pytest.raises(ReadError, match=rf"nodes\[{index}\]\.mesh"):
        loading.load([out])
