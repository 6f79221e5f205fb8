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


# --- animated alpha keys ----------------------------------------------------------------------------

FADE_TIMES, FADE_ALPHAS = [0.0, 1.0, 2.0], [0.0, 1.0, 0.5]


def _fading(tmp_path, rest_alpha: float):
    from tests.writers.nwn_writer import WAnimation, WNode

    tree = _with_torso_alpha(rest_alpha)
    fade = WAnimation("fade", 2.0, WNode("c_test", children=[
        WNode("torso_g", keys=[(ALPHA, FADE_TIMES, [[a] for a in FADE_ALPHAS])])]))
    return save(tmp_path, "c_test.mdl", write_mdl("c_test", tree, [walk_animation(), fade]))


@pytest.mark.parametrize("time, expected", [(0.0, 0.0), (0.5, 0.5), (1.0, 1.0), (1.5, 0.75), (3.0, 0.5)])
def test_animated_alpha_keys_play_linearly(tmp_path, time, expected):
    from app.pose import evaluate

    model = loading.load([_fading(tmp_path, 1.0)])
    torso = next(index for index, mesh in enumerate(model.meshes) if mesh.name == "torso_g")
    fade = next(clip for clip in model.clips if clip.name == "fade")
    assert evaluate(model, fade, time).mesh_alpha == {torso: pytest.approx(expected)}
    walk = next(clip for clip in model.clips if clip.name == "walk")
    assert evaluate(model, walk, time).mesh_alpha == {}


def test_a_mesh_at_alpha_0_that_a_clip_fades_in_is_not_hidden(tmp_path):
    model = loading.load([_fading(tmp_path, 0.0)])
    torso = next(mesh for mesh in model.meshes if mesh.name == "torso_g")
    assert torso.visible and torso.hidden_reason == ""
    assert torso.material.alpha_mode == "BLEND" and torso.material.base_color[3] == 0.0


def test_faded_mesh_drawn_at_its_keyed_opacity(tmp_path):
    """Rendered at 0 s (alpha 0: the torso is not drawn) and at 1 s (alpha 1: drawn opaque), the pictures
    differ exactly where the torso is; at 0 s the picture equals the model drawn with the torso hidden."""
    from PIL import Image

    path = _fading(tmp_path, 0.0)
    pictures = {}
    for name, extra in (("t0", ["--time", "0"]), ("t1", ["--time", "1"])):
        out = tmp_path / f"{name}.png"
        assert main(["render", str(path), "--clip", "fade", *extra, "-o", str(out), "--size", "96x96"]) == 0
        pictures[name] = np.asarray(Image.open(out)).astype(int)
    assert np.abs(pictures["t0"] - pictures["t1"]).max() > 40
