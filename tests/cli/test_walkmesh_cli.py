"""Walkmeshes on the command line: ``info`` lists each walkmesh's faces per surface material (``info
--json``: ``walkmeshes``), ``render --walkmesh`` lays them over the model with a legend. Expected
counts are worked out here from what the tests' writers were given."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest
from PIL import Image

from app.cli.main import main
from app.walkmeshes import MATERIAL_COLORS
from tests.formats.test_nwn_walkmesh import BOX, GRID_MATERIALS, placeable_tree, tile_tree
from tests.writers.nwn_ascii_writer import write_ascii_mdl
from tests.writers.nwn_walkmesh_writer import WalkNode, write_ascii_walkmesh
from tests.writers.nwn_writer import write_mdl

NAMES = {1: "Dirt", 3: "Grass", 4: "Stone", 6: "Water", 7: "Nonwalk", 15: "Lava", 18: "Door"}
NOT_WALKABLE = {7, 15}


def test_info_lists_faces_per_material(tmp_path, capsys):
    path = tmp_path / "tcn01_a01_01.mdl"
    path.write_bytes(write_mdl("tcn01_a01_01", tile_tree()))
    assert main(["info", "--json", str(path)]) == 0
    (walkmesh,) = json.loads(capsys.readouterr().out)["walkmeshes"]
    counts = Counter(GRID_MATERIALS)
    assert walkmesh == {
        "name": "walkmesh", "kind": "aabb", "source": path.name, "vertices": 9, "faces": len(GRID_MATERIALS),
        "materials": [{"id": m, "name": NAMES[m], "walkable": m not in NOT_WALKABLE, "faces": counts[m]}
                      for m in sorted(counts)]}
    assert main(["info", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    listed = lines[lines.index("walkmeshes:") + 1]
    assert listed == ("  walkmesh (aabb, tcn01_a01_01.mdl): 8 faces: Dirt 1, Grass 1, Stone 1, Water 1, "
                      "Nonwalk 2 (not walkable), Lava 1 (not walkable), Door 1")


def test_info_json_of_a_model_without_walkmeshes(tmp_path, capsys):
    path = tmp_path / "plc_x.mdl"
    path.write_bytes(write_ascii_mdl("plc_x", placeable_tree("plc_x")))
    assert main(["info", "--json", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["walkmeshes"] == []
    assert main(["info", str(path)]) == 0
    assert "walkmeshes:" not in capsys.readouterr().out


@pytest.mark.gl
def test_render_walkmesh_overlays_the_faces_and_draws_the_legend(gl_context, tmp_path):
    model = tmp_path / "plc_pool.mdl"
    model.write_bytes(write_ascii_mdl("plc_pool", placeable_tree("plc_pool")))
    node = WalkNode("trimesh", "pool_wg", BOX * 3 + [-1, -1, 0], [[0, 1, 2], [0, 2, 3]], [6, 6])
    (tmp_path / "plc_pool.pwk").write_bytes(write_ascii_walkmesh("plc_pool", [node]))
    pictures = {}
    for name, options in (("plain", []), ("walkmesh", ["--walkmesh"])):
        out = tmp_path / f"{name}.png"
        arguments = ["render", str(model), "-o", str(out), "--size", "400x300", "--view", "top", *options]
        assert main(arguments) == 0
        pictures[name] = np.asarray(Image.open(out).convert("RGB")).astype(int)
    changed = np.abs(pictures["walkmesh"] - pictures["plain"]).sum(axis=2) > 30
    assert changed.mean() > 0.05
    water = np.array(MATERIAL_COLORS[6]) * 255
    # The legend's swatch, top left: the text is 11 px (2.5 % of 300, at least 11), its margin 5 px.
    assert np.abs(pictures["walkmesh"][17, 15] - water).max() <= 2
    # The faces: bluer than without them where they changed the picture.
    blue_shift = pictures["walkmesh"][..., 2] - pictures["walkmesh"][..., 0]
    plain_shift = pictures["plain"][..., 2] - pictures["plain"][..., 0]
    assert (blue_shift[changed] > plain_shift[changed]).mean() > 0.8


@pytest.mark.gl
def test_batch_render_walkmesh_draws_the_legend_on_each_thumbnail(tmp_path):
    """A separate process (the workers fork; the test process may hold an OpenGL context)."""
    folder = tmp_path / "tiles"
    folder.mkdir()
    (folder / "tcn01_a01_01.mdl").write_bytes(write_ascii_mdl("tcn01_a01_01", tile_tree([6] * 8)))
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "-m", "app", "batch", "render", str(folder), "-o", str(out),
                             "--walkmesh", "--jobs", "1"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    picture = np.asarray(Image.open(out / "tcn01_a01_01.png").convert("RGB")).astype(int)
    # A 512-pixel thumbnail: the text is 13 px (2.5 %), its margin 6 px, the swatch from (12, 12).
    assert np.abs(picture[18, 18] - np.array(MATERIAL_COLORS[6]) * 255).max() <= 2
