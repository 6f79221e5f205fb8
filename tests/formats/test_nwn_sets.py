"""NWN models loaded together: lenders with meshes of their own, supermodel chains found on disk in
any case and either form, cycles and depth; files from the tests' own writers."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app import loading
from app.cli.main import main
from app.formats.nwn import supermodels
from app.formats.registry import ReadError
from app.pose import evaluate
from tests.formats.test_nwn_mdl import cast_animation, model_tree, save, walk_animation
from tests.writers.nwn_ascii_writer import write_ascii_mdl
from tests.writers.nwn_writer import WAnimation, WNode, write_mdl


def lifting(name: str, height: float) -> WAnimation:
    """An animation moving ``pelvis`` from z = 1 to z = ``height`` over one second."""
    keys = [(8, [0.0, 1.0], [(0, 0, 1), (0, 0, height)])]
    return WAnimation(name, 1.0, WNode("c_test", children=[WNode("PELVIS", keys=keys)]))


def lender_tree() -> WNode:
    """A lender with a mesh of its own (as real animation-lending models have)."""
    square = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0]], float)
    return WNode("c_test", children=[WNode("pelvis", position=(0, 0, 1), children=[
        WNode("lender_mesh", 0x021, vertices=square, faces=[[0, 1, 2]])])])


def pelvis_height(model, clip_name: str, time: float) -> float:
    clip = model.clips[model.clip_index(clip_name)]
    return float(evaluate(model, clip, time).world[model.skeleton.index("pelvis")][2, 3])


def test_lenders_with_meshes_add_clips_with_their_source(tmp_path):
    model_path = save(tmp_path, "c_hero.mdl", write_mdl("c_hero", model_tree(), [walk_animation()],
                                                        supermodel="a_casts"))
    lender = save(tmp_path, "a_casts.mdl", write_ascii_mdl("a_casts", lender_tree(),
                                                            [lifting("castout", 3.0), lifting("walk", 9.0)]))
    other = save(tmp_path, "a_other.mdl", write_mdl("a_other", lender_tree(), [lifting("castout", 5.0)]))
    model = loading.load([lender, other, model_path])
    assert model.name == "a_casts"  # a_other is not on c_hero's chain, so the first file is the model
    model = loading.load([model_path, lender, other])
    assert model.name == "c_hero"
    assert [m.name for m in model.meshes] == ["torso_g", "body"]  # the lenders' meshes are not drawn
    assert [(c.name, c.source) for c in model.clips] == [
        ("walk", "c_hero.mdl"), ("castout", "a_casts.mdl"), ("castout (2)", "a_other.mdl")]
    assert pelvis_height(model, "castout", 0.5) == pytest.approx(2.0)
    assert pelvis_height(model, "castout (2)", 0.5) == pytest.approx(3.0)
    assert any("'walk' of a_casts.mdl: the model has its own" in w for w in model.warnings)
    assert any("shown as 'castout (2)'" in w for w in model.warnings)


def test_model_is_the_file_the_others_are_supermodels_of(tmp_path):
    base = save(tmp_path, "a_base.mdl", write_ascii_mdl("a_base", lender_tree(), [lifting("idle", 2.0)]))
    hero = save(tmp_path, "c_hero.mdl",
                write_mdl("c_hero", model_tree(), [walk_animation()], supermodel="A_BASE"))
    model = loading.load([base, hero])
    assert model.name == "c_hero"
    assert [(c.name, c.source) for c in model.clips] == [("walk", "c_hero.mdl"), ("idle", "a_base.mdl")]


def test_supermodel_chain_found_on_disk_in_any_case_and_form(tmp_path, capsys):
    save(tmp_path, "A_Middle.MDL", write_mdl("a_middle", lender_tree(), [lifting("castout", 3.0)],
                                             supermodel="a_root"))
    save(tmp_path, "a_ROOT.mdl", write_ascii_mdl("a_root", lender_tree(),
                                                 [lifting("castout", 7.0), lifting("idle", 4.0)],
                                                 supermodel="a_gone"))
    hero = save(tmp_path, "c_hero.mdl", write_ascii_mdl("c_hero", model_tree(), [walk_animation()],
                                                         supermodel="a_middle"))
    model = loading.load([hero])
    assert [(c.name, c.source) for c in model.clips] == [
        ("walk", "c_hero.mdl"), ("castout", "A_Middle.MDL"), ("idle", "a_ROOT.mdl")]
    assert pelvis_height(model, "castout", 1.0) == pytest.approx(3.0)  # the nearest link wins
    assert [(name, found and found.rsplit("/", 1)[-1]) for name, found in model.supermodels] == [
        ("a_middle", "A_Middle.MDL"), ("a_root", "a_ROOT.mdl"), ("a_gone", None)]
    assert any("supermodel 'a_gone' not found" in w for w in model.warnings)
    assert main(["info", str(hero)]) == 0
    expected = "supermodels: a_middle (A_Middle.MDL) → a_root (a_ROOT.mdl) → a_gone (not found)"
    assert expected in capsys.readouterr().out
    assert main(["info", "--json", str(hero)]) == 0
    facts = json.loads(capsys.readouterr().out)
    assert [c["source"] for c in facts["clips"]] == ["c_hero.mdl", "A_Middle.MDL", "a_ROOT.mdl"]
    assert facts["supermodels"][2] == {"name": "a_gone", "file": None}


def test_supermodel_cycle_is_an_error_naming_the_files(tmp_path):
    save(tmp_path, "a_one.mdl", write_mdl("a_one", lender_tree(), supermodel="a_two"))
    save(tmp_path, "a_two.mdl", write_ascii_mdl("a_two", lender_tree(), supermodel="A_ONE"))
    hero = save(tmp_path, "c_hero.mdl", write_mdl("c_hero", model_tree(), supermodel="a_one"))
    with pytest.raises(ReadError) as caught:
        loading.load([hero])
    assert "a_one.mdl → a_two.mdl → a_one.mdl" in str(caught.value) and "\n" not in str(caught.value)


def test_absurd_supermodel_depth_is_an_error(tmp_path):
    depth = supermodels.MAX_SUPERMODEL_CHAIN + 2
    for number in range(depth):
        save(tmp_path, f"a_{number}.mdl",
             write_mdl(f"a_{number}", lender_tree(), supermodel=f"a_{number + 1}"))
    hero = save(tmp_path, "c_hero.mdl", write_mdl("c_hero", model_tree(), supermodel="a_0"))
    with pytest.raises(ReadError) as caught:
        loading.load([hero])
    assert f"deeper than {supermodels.MAX_SUPERMODEL_CHAIN}" in caught.value.message
    assert "c_hero.mdl → a_0.mdl" in caught.value.message


def test_unreadable_supermodel_is_a_warning(tmp_path):
    save(tmp_path, "a_base.mdl", b"")
    hero = save(tmp_path, "c_hero.mdl",
                write_mdl("c_hero", model_tree(), [cast_animation()], supermodel="a_base"))
    model = loading.load([hero])
    assert [c.name for c in model.clips] == ["cast"]
    assert any("supermodel 'a_base' is unreadable" in w for w in model.warnings)


@pytest.mark.parametrize("form", ["binary", "ascii"])
def test_inherited_position_keys_scale_by_the_models_animation_scale(tmp_path, form):
    write = write_mdl if form == "binary" else write_ascii_mdl
    own = WAnimation("own", 1.0, WNode("c_test", children=[
        WNode("pelvis", keys=[(8, [0.0, 1.0], [(0, 0, 1), (0, 0, 2)])])]))
    save(tmp_path, "a_base.mdl", write_mdl("a_base", lender_tree(), [lifting("castout", 3.0)]))
    hero = save(tmp_path, "c_hero.mdl", write("c_hero", model_tree(), [own], supermodel="a_base",
                                              animation_scale=1.5))
    model = loading.load([hero])
    # the engine multiplies a supermodel's position keys by the model's scale: z = 1.5 · (1 + 2 · 0.5)
    assert pelvis_height(model, "castout", 0.5) == pytest.approx(3.0)
    assert pelvis_height(model, "own", 0.5) == pytest.approx(1.5)  # the model's own keys are not scaled


@pytest.mark.parametrize("model_form, lender_form", [("ascii", "binary"), ("binary", "ascii")])
def test_a_supermodel_of_the_other_form_is_read_in_a_fresh_process(tmp_path, model_form, lender_form):
    """The registry imports only the reader of the file given; a supermodel found on disk in the other
    form needs that form's reader all the same (a fresh process has imported neither)."""
    import subprocess
    import sys

    writers = {"ascii": write_ascii_mdl, "binary": write_mdl}
    save(tmp_path, "a_lend.mdl", writers[lender_form]("a_lend", lender_tree(), [lifting("castout", 3.0)]))
    hero = save(tmp_path, "c_hero.mdl", writers[model_form]("c_hero", model_tree(), [walk_animation()],
                                                            supermodel="a_lend"))
    result = subprocess.run([sys.executable, "-m", "app", "info", str(hero), "--json"], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    clips = [(clip["name"], clip["source"]) for clip in json.loads(result.stdout)["clips"]]
    assert ("castout", "a_lend.mdl") in clips


def test_a_supermodel_given_with_the_model_answers_its_link_wherever_it_lies(tmp_path):
    """The supermodel named by the model, given from another folder (as Attach Animation or a second
    command-line file gives it), is the chain's link: no 'not found' warning, its clips inherited."""
    (tmp_path / "model").mkdir()
    (tmp_path / "anims").mkdir()
    hero = save(tmp_path / "model", "c_hero.mdl",
                write_mdl("c_hero", model_tree(), [walk_animation()], supermodel="A_Base"))
    base = save(tmp_path / "anims", "a_base.mdl",
                write_ascii_mdl("a_base", lender_tree(), [lifting("idle", 2.0)]))
    alone = loading.load([hero])
    assert "supermodel 'A_Base' not found beside c_hero.mdl: its animations are missing" in alone.warnings
    model = loading.load([hero, base])
    assert model.supermodels == (("A_Base", str(base.resolve())),)
    assert not any(warning.startswith("supermodel") for warning in model.warnings)
    assert [(c.name, c.source) for c in model.clips] == [("walk", "c_hero.mdl"), ("idle", "a_base.mdl")]
