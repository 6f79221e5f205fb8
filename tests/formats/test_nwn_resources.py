"""NWN models, supermodels and textures found in archives (``ARCHIVE:RESREF``, ``--resources``):
archives built byte by byte (tests/nwn_archive_bytes.py), models from the tests' writers."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from PIL import Image

from app import loading
from app.cli.main import main
from app.formats.registry import LoadOptions, ReadError
from tests.formats.test_nwn_sets import lifting, lender_tree
from tests.nwn_archive_bytes import erf_bytes
from tests.writers.nwn_ascii_writer import write_ascii_mdl
from tests.writers.nwn_writer import WNode, write_mdl

PIXEL = (200, 40, 90, 255)


def textured_tree() -> WNode:
    square = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0]], float)
    return WNode("c_hero", children=[WNode("pelvis", position=(0, 0, 1), children=[
        WNode("body", 0x021, vertices=square, faces=[[0, 1, 2]], texture="skin01")])])


def tga_bytes() -> bytes:
    stream = io.BytesIO()
    Image.new("RGBA", (2, 2), PIXEL).save(stream, format="TGA")
    return stream.getvalue()


@pytest.fixture
def archives(tmp_path):
    hero = tmp_path / "hero.hak"
    hero.write_bytes(erf_bytes([("c_hero", "mdl", write_ascii_mdl("c_hero", textured_tree(), [],
                                                                  supermodel="a_base"))]))
    base = tmp_path / "base.erf"
    base.write_bytes(erf_bytes([("a_base", "mdl", write_mdl("a_base", lender_tree(), [lifting("idle", 2.0)])),
                                ("skin01", "tga", tga_bytes())], kind=b"ERF "))
    return hero, base


def test_model_inside_an_archive_with_supermodel_and_texture_from_resources(archives):
    hero, base = archives
    model = loading.load([f"{hero}:C_HERO"], LoadOptions(resources=[str(base)]))
    assert model.files == (f"{hero}:C_HERO",)
    assert [clip.name for clip in model.clips] == ["idle"]
    assert model.supermodels[0] == ("a_base", f"{base}:a_base.mdl")
    material = model.meshes[0].material
    assert material.texture_path == f"{base}:skin01.tga"
    assert tuple(material.image[0, 0]) == PIXEL


def test_without_resources_the_supermodel_and_texture_are_reported_missing(archives):
    hero, _ = archives
    model = loading.load([f"{hero}/c_hero.mdl"])
    assert model.clips == () and model.meshes[0].material.image is None
    assert any("supermodel 'a_base' not found" in warning for warning in model.warnings)


def test_unknown_member_names_the_archive_models(archives):
    hero, _ = archives
    with pytest.raises(ReadError, match="no model 'c_nobody' in the archive .its models: c_hero"):
        loading.load([f"{hero}:c_nobody"])


def test_info_lists_an_archive_and_reads_a_member(archives, capsys):
    hero, base = archives
    assert main(["info", "--json", str(base)]) == 0
    listing = json.loads(capsys.readouterr().out)["archive"]
    assert (listing["type"], listing["version"]) == ("ERF", "V1.0")
    assert [(r["name"], r["type"]) for r in listing["resources"]] == [("a_base", "mdl"), ("skin01", "tga")]
    assert listing["resources"][1]["size"] == len(tga_bytes())
    assert main(["info", "--json", f"{hero}:c_hero", "--resources", str(base)]) == 0
    assert json.loads(capsys.readouterr().out)["clips"][0]["name"] == "idle"


def test_hostile_archive_is_one_line_and_exit_3(tmp_path, capsys):
    bad = tmp_path / "bad.hak"
    bad.write_bytes(erf_bytes([("x", "mdl", b"abc")])[:170])
    assert main(["info", str(bad)]) == 3
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "bad.hak" in error and "at byte" in error


def test_batch_walks_an_archive_given_as_a_path(archives, tmp_path):
    hero, base = archives
    bad = tmp_path / "bad.hak"
    bad.write_bytes(erf_bytes([("x", "mdl", b"abc")])[:170])
    out = tmp_path / "out"
    report = tmp_path / "r.jsonl"
    assert main(["batch", "info", str(base), str(hero), str(bad), "-o", str(out), "--report", str(report),
                 "--resources", str(base)]) == 1
    lines = {line["model"]: line for line in map(json.loads, report.read_text().splitlines())}
    assert set(lines) == {"base.erf/a_base.mdl", "hero.hak/c_hero.mdl", "bad.hak"}
    assert lines["hero.hak/c_hero.mdl"]["clip_names"] == ["idle"]
    assert (out / "hero.hak" / "c_hero.json").is_file()
    assert lines["bad.hak"]["status"] == "error" and "at byte 160" in lines["bad.hak"]["error"]


def test_one_resref_from_two_archives_gets_two_copies(tmp_path):
    from app.formats.nwn.archives.members import extract_members

    texts = {name: write_ascii_mdl("c_hero", textured_tree(), [], supermodel=name)
             for name in ("a_one", "a_two")}
    paths = []
    for name, text in texts.items():
        archive = tmp_path / f"{name}.hak"
        archive.write_bytes(erf_bytes([("c_hero", "mdl", text)]))
        paths.append(f"{archive}:c_hero")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    read, archives, given = extract_members(paths, scratch)
    assert len(set(read)) == 2 and [given[str(path)] for path in read] == paths
    assert [path.read_bytes() for path in read] == [text if isinstance(text, bytes) else text.encode()
                                                    for text in texts.values()]
    assert [path.name for path in read] == ["c_hero.mdl", "c_hero.mdl"]
