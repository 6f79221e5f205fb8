"""NWN mesh opacity (the ``alpha`` controller): a static alpha of 0 hides the mesh, as the game does,
and info's mesh list says why; between 0 and 1 the mesh is blended at that opacity."""

from __future__ import annotations

import numpy as np
import pytest

from app import loading
from app.cli.main import main
from tests.formats.test_nwn_mdl import model_tree, save, walk_animation
from tests.writers.nwn_ascii_writer import write_ascii_mdl
from tests.writers.nwn_writer import write_mdl

ALPHA = 128


def _with_torso_alpha(alpha: float):
    tree = model_tree()
    pelvis = next(child for child in tree.children if child.name == "pelvis")
    torso = next(child for child in pelvis.children if child.name == "torso_g")
    torso.keys.append((ALPHA, [0.0], [[alpha]]))
    return tree


def _binary(tmp_path, alpha: float):
    return save(tmp_path, "c_test.mdl", write_mdl("c_test", _with_torso_alpha(alpha), [walk_animation()]))


def _ascii(tmp_path, alpha: float):
    text = write_ascii_mdl("c_test", model_tree(), [walk_animation()]).decode()
    head, tail = text.split("node trimesh torso_g\n", 1)
    return save(tmp_path, "c_test.mdl", f"{head}node trimesh torso_g\n  alpha {alpha:g}\n{tail}".encode())


@pytest.mark.parametrize("write", [_binary, _ascii], ids=["binary", "ascii"])
def test_static_alpha_zero_hides_the_mesh(tmp_path, write):
    model = loading.load([write(tmp_path, 0.0)])
    torso = next(mesh for mesh in model.meshes if mesh.name == "torso_g")
    assert not torso.visible and torso.hidden_reason == "alpha 0"
    # Shown anyway (Show Hidden Meshes), it is drawn opaque.
    assert torso.material.alpha_mode == "OPAQUE" and torso.material.base_color[3] == 1.0
    assert all(mesh.visible for mesh in model.meshes if mesh.name != "torso_g")


@pytest.mark.parametrize("write", [_binary, _ascii], ids=["binary", "ascii"])
def test_static_alpha_between_zero_and_one_blends(tmp_path, write):
    model = loading.load([write(tmp_path, 0.25)])
    torso = next(mesh for mesh in model.meshes if mesh.name == "torso_g")
    assert torso.visible and torso.hidden_reason == ""
    assert torso.material.alpha_mode == "BLEND" and torso.material.base_color[3] == pytest.approx(0.25)


def test_info_mesh_list_says_alpha_0(tmp_path, capsys):
    path = _ascii(tmp_path, 0.0)
    assert main(["info", str(path)]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("torso_g:")]
    assert len(lines) == 1 and ", hidden (alpha 0)," in lines[0]


def test_hidden_mesh_is_not_drawn_by_render(tmp_path):
    from PIL import Image

    path, out = _ascii(tmp_path, 0.0), tmp_path / "x.png"
    shown = tmp_path / "shown.png"
    assert main(["render", str(path), "-o", str(out), "--size", "96x96"]) == 0
    assert main(["render", str(path), "-o", str(shown), "--size", "96x96", "--show-hidden"]) == 0
    assert not np.array_equal(np.asarray(Image.open(out)), np.asarray(Image.open(shown)))
