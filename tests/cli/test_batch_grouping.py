"""``boneyard batch``: files under folders grouped into models by the rules for several FILEs, links
followed once, the output folder left out."""

from __future__ import annotations

import os
import shutil

import pytest

from app.cli.batch.grouping import find_files, group_files
from app.loading import load
from app.resources import demo_paths
from tests.demo_formats import WRITERS
from tests.formats.test_gltf_sets import animation_file, model_file
from tests.formats.test_nwn_mdl import model_tree, save, walk_animation
from tests.formats.test_nwn_sets import lender_tree
from tests.writers.nwn_ascii_writer import write_ascii_mdl
from tests.writers.nwn_writer import WNode, write_mdl


@pytest.fixture(scope="module")
def demo_model():
    return load(demo_paths())


def groups_of(*paths, skip=None):
    """{main file's name below its PATH: [every file's name]} and the orphans' errors."""
    groups = group_files(find_files(list(paths), skip=skip))
    return ({g.relative: sorted(os.path.basename(p) for p in g.paths) for g in groups},
            {g.relative: g.error for g in groups if g.error})


def test_every_format_in_its_own_folder(tmp_path, demo_model):
    for name, write in WRITERS.items():
        (tmp_path / name).mkdir()
        write(demo_model, tmp_path / name)
    (tmp_path / "gltf").mkdir()
    model_file(tmp_path / "gltf")
    animation_file(tmp_path / "gltf", "hero_run.gltf", "run", "Arm", 4.0)
    groups, errors = groups_of(tmp_path)
    assert groups == {
        "bonespro/demo_structure.txt": ["demo_structure.txt", "demo_walk.txt"],
        "lgw/demo.lgw": ["demo.lgw"],
        "bnf/demo.bnf": ["demo.anm", "demo.bnf", "demo.prm"],
        "nwn_mdl/demo.mdl": ["demo.mdl"],
        "c3de/demo.c3d": ["demo.c3d", "demo_bones.c3d"],
        "gltf/hero.gltf": ["hero.gltf", "hero_run.gltf"],
    }
    assert errors == {}


def test_mixed_folder_pairs_companions_by_name(tmp_path, demo_model):
    """Two BonesPro structures, two C3DE meshes and a .bnf set in one folder: each animation or bones
    file goes to the model file whose name shares the longest start with its own."""
    for prefix in ("hero", "ogre"):
        scratch = tmp_path / prefix
        scratch.mkdir()
        for name in ("bonespro", "c3de"):
            for path in WRITERS[name](demo_model, scratch):
                shutil.move(path, tmp_path / f"{prefix}_{path.name}")
    WRITERS["bnf"](demo_model, tmp_path)
    (tmp_path / "hero_skin.png").write_bytes(b"\x89PNG not a model, left out")
    (tmp_path / "notes.md").write_text("left out")
    shutil.rmtree(tmp_path / "hero")
    shutil.rmtree(tmp_path / "ogre")
    groups, errors = groups_of(tmp_path)
    assert groups == {
        "demo.bnf": ["demo.anm", "demo.bnf", "demo.prm"],
        "hero_demo.c3d": ["hero_demo.c3d", "hero_demo_bones.c3d"],
        "hero_demo_structure.txt": ["hero_demo_structure.txt", "hero_demo_walk.txt"],
        "ogre_demo.c3d": ["ogre_demo.c3d", "ogre_demo_bones.c3d"],
        "ogre_demo_structure.txt": ["ogre_demo_structure.txt", "ogre_demo_walk.txt"],
    }
    assert errors == {}


def test_orphans_and_unreadable_files_are_models_with_errors(tmp_path, demo_model):
    """An animation whose model is missing is an error of its own; a file with a model's extension
    that no reader recognises is reported by the worker (no error here, the reader's own message)."""
    paths = WRITERS["bnf"](demo_model, tmp_path)
    paths[0].unlink()  # the .bnf: its .anm and .prm are orphans
    (tmp_path / "c3de").mkdir()
    c3de = WRITERS["c3de"](demo_model, tmp_path / "c3de")
    c3de[0].unlink()  # the mesh: the bones file is an orphan
    (tmp_path / "broken.mdl").write_bytes(b"garbage")
    groups, errors = groups_of(tmp_path)
    assert set(groups) == {"demo.anm", "demo.prm", "c3de/demo_bones.c3d", "broken.mdl"}
    assert errors["demo.anm"] == "no model file for this animation or parameter file in its folder"
    assert errors["c3de/demo_bones.c3d"] == "no model file for this bones file in its folder"
    assert "broken.mdl" not in errors


def test_nwn_supermodels_are_read_with_the_model_not_alone(tmp_path):
    """c_hero → a_base (ASCII, any case) → a_root: one model holding the chain; c_other has none."""
    save(tmp_path, "A_Base.MDL", write_ascii_mdl("a_base", lender_tree(), supermodel="A_ROOT"))
    save(tmp_path, "a_root.mdl", write_mdl("a_root", lender_tree()))
    save(tmp_path, "c_hero.mdl", write_mdl("c_hero", model_tree(), [walk_animation()], supermodel="a_base"))
    save(tmp_path, "c_other.mdl", write_mdl("c_other", model_tree()))
    groups, _ = groups_of(tmp_path)
    assert groups == {"c_hero.mdl": ["A_Base.MDL", "a_root.mdl", "c_hero.mdl"],
                      "c_other.mdl": ["c_other.mdl"]}


def test_links_followed_once_loops_and_the_output_folder(tmp_path, demo_model):
    library = tmp_path / "library"
    (library / "lgw").mkdir(parents=True)
    WRITERS["lgw"](demo_model, library / "lgw")
    os.symlink(library, library / "lgw" / "loop")  # a folder link back up: a loop
    os.symlink(library / "lgw", library / "again")  # the same folder by another name
    os.symlink(library / "lgw" / "demo.lgw", library / "copy.lgw")  # the same file by another name
    (library / "out" / "lgw").mkdir(parents=True)  # a previous run's output inside the PATH
    WRITERS["lgw"](demo_model, library / "out" / "lgw")
    found = find_files([library, library / "lgw" / "demo.lgw"], skip=library / "out")
    # a folder's files come before its subfolders, in name order: the link at the top is reached first
    assert [f.relative for f in found] == ["copy.lgw"]


def test_walkmesh_files_go_with_their_model_in_either_form(tmp_path):
    """A compiled .pwk (four zero bytes: it sniffs as an MDL), an ASCII .wok and a door's numbered
    .dwk files are their model's, not models of their own; one named after no model is an orphan."""
    from tests.formats.test_nwn_walkmesh import BOX, placeable_tree
    from tests.writers.nwn_walkmesh_writer import WalkNode, write_ascii_walkmesh

    square = [[0, 1, 2], [0, 2, 3]]
    for name in ("plc_well", "tcn01_a01_01", "door_a"):
        (tmp_path / f"{name}.mdl").write_bytes(write_ascii_mdl(name, placeable_tree(name)))
    well = WNode("plc_well", children=[WNode("w", 0x021, vertices=BOX, faces=square)])
    compiled = write_mdl("plc_well", well)
    assert compiled[:4] == b"\0\0\0\0"
    (tmp_path / "PLC_WELL.pwk").write_bytes(compiled)
    ascii_walkmesh = write_ascii_walkmesh("x", [WalkNode("aabb", "wg", BOX, square, [3, 4])])
    for name in ("tcn01_a01_01.wok", "door_a.dwk", "door_a0.dwk", "door_a2.dwk", "lost.wok"):
        (tmp_path / name).write_bytes(ascii_walkmesh)
    (tmp_path / "lost.pwk").write_bytes(compiled)
    groups = {group.relative: group for group in group_files(find_files([tmp_path]))}
    assert sorted(groups) == ["door_a.mdl", "lost.pwk", "lost.wok", "plc_well.mdl", "tcn01_a01_01.mdl"]
    walkmeshes = {name: sorted(found.path.name for found in group.walkmeshes)
                  for name, group in groups.items()}
    assert walkmeshes["plc_well.mdl"] == ["PLC_WELL.pwk"]
    assert walkmeshes["tcn01_a01_01.mdl"] == ["tcn01_a01_01.wok"]
    assert walkmeshes["door_a.mdl"] == ["door_a.dwk", "door_a0.dwk", "door_a2.dwk"]
    assert [groups[name].paths for name in ("plc_well.mdl", "door_a.mdl")] == [
        [str(tmp_path / "plc_well.mdl")], [str(tmp_path / "door_a.mdl")]]
    assert groups["lost.wok"].error == groups["lost.pwk"].error == (
        "no model file for this walkmesh in its folder (expected lost.mdl)")
