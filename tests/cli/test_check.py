"""``boneyard check``: a hand-written ASCII model breaking the NWN rules app/formats/nwn/rules.py names;
the expected findings are read off the text below."""

from __future__ import annotations

import json

import numpy as np

from app.cli.main import main
from app.formats.nwn import rules
from tests.nwn_archive_bytes import erf_bytes

LONG_NAME = "a_node_name_of_thirty_three_chars"
assert len(LONG_NAME) == 33

MODEL = f"""\
newmodel c_bad
setsupermodel c_bad a_nowhere
classification character
beginmodelgeom c_bad
node dummy c_bad
  parent NULL
endnode
node dummy {LONG_NAME}
  parent c_bad
  position 0 0 1
endnode
node trimesh body
  parent c_bad
  bitmap t_missing_texture
  verts 3
    0 0 0
    1 0 0
    1 1 0
  faces 1
    0 1 2 1 0 0 0 0
endnode
endmodelgeom c_bad
newanim swing c_bad
  length 1.0
  transtime 2.5
  animroot no_such_node
node dummy c_bad
  parent NULL
endnode
node dummy body
  parent c_bad
  positionkey 2
    0.0 0 0 0
    0.5 0 0 1
endnode
doneanim swing c_bad
donemodel c_bad
"""

EXPECTED = [
    ("error", "node-name-length", LONG_NAME),
    ("error", "resref-length", "body"),            # the 17-character texture name
    ("error", "animroot", "swing"),
    ("warning", "transition-time", "swing"),
    ("warning", "end-keys", "swing"),               # body's last key at 0.5 s of 1 s
    ("error", "supermodel-unresolved", "a_nowhere"),
    ("warning", "texture-unresolved", "body"),
]


def test_findings_as_lines_and_exit_1(tmp_path, capsys):
    path = tmp_path / "c_bad.mdl"
    path.write_text(MODEL)
    assert main(["check", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert [tuple(line.split(":")[0].split(" ", 2)) for line in lines] == EXPECTED
    assert lines[0] == f"error node-name-length {LONG_NAME}: 33 characters; a node name holds at most 31"


def test_a_node_name_of_32_characters_is_too_long(tmp_path, capsys):
    # nwnmdlcomp copies a name into its 32-byte field and sets byte 31 to NUL (NwnMdlNodes.cpp:65-67)
    for name, flagged in (("n" * 31, False), ("n" * 32, True)):
        path = tmp_path / "c_names.mdl"
        path.write_text(MODEL.replace(LONG_NAME, name))
        main(["check", str(path)])
        assert (f"error node-name-length {name}:" in capsys.readouterr().out) is flagged


def test_json_findings(tmp_path, capsys):
    path = tmp_path / "c_bad.mdl"
    path.write_text(MODEL)
    assert main(["check", "--json", str(path)]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [(f["severity"], f["rule"], f["node"]) for f in findings] == EXPECTED
    assert findings[3]["message"] == "transtime 2.5 s is longer than the animation (1 s)"


def test_a_clean_model_from_an_archive_with_its_supermodel_in_resources(tmp_path, capsys):
    clean = MODEL.replace(LONG_NAME, "spine").replace("t_missing_texture", "NULL") \
        .replace("transtime 2.5", "transtime 0.25").replace("no_such_node", "c_bad") \
        .replace("0.5 0 0 1", "1.0 0 0 1")
    base = "newmodel a_nowhere\nsetsupermodel a_nowhere NULL\nbeginmodelgeom a_nowhere\n" \
           "node dummy a_nowhere\n  parent NULL\nendnode\nendmodelgeom a_nowhere\ndonemodel a_nowhere\n"
    hak = tmp_path / "m.hak"
    hak.write_bytes(erf_bytes([("c_bad", "mdl", clean.encode()), ("a_nowhere", "mdl", base.encode())]))
    assert main(["check", f"{hak}:c_bad", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"findings": []}


def test_too_many_influences_and_bones():
    joints = np.arange(70 * 5).reshape(70, 5) % 70
    weights = np.full((70, 5), 0.2)
    node = type("Node", (), {"name": "skin", "geometry": {"skin_joints": joints, "skin_weights": weights}})
    parsed = type("Parsed", (), {"nodes": [node]})
    found = rules._skins(parsed)
    assert [(f.rule, f.node) for f in found] == [("skin-bones", "skin"), ("skin-influences", "skin")]
    assert "uses 70 bones" in found[0].message and "70 vertices have more than 4" in found[1].message


def test_unreadable_file_is_exit_3(tmp_path, capsys):
    path = tmp_path / "bad.hak"
    path.write_bytes(b"HAK V1.0")
    assert main(["check", f"{path}:c_bad"]) == 3
    assert "bad.hak" in capsys.readouterr().err


def test_batch_check_counts_the_findings(tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    (models / "c_bad.mdl").write_text(MODEL)
    report = tmp_path / "r.jsonl"
    assert main(["batch", "check", str(models), "-o", str(tmp_path / "out"), "--report", str(report)]) == 1
    line = json.loads(report.read_text())
    assert line["findings"] == len(EXPECTED) and line["status"] == "error"
    assert line["finding_lines"][0].startswith("error node-name-length")
    written = json.loads((tmp_path / "out" / "c_bad.json").read_text())
    assert [f["rule"] for f in written["findings"]] == [rule for _, rule, _ in EXPECTED]
    assert f"{len(EXPECTED)} findings" in (tmp_path / "out" / "index.html").read_text()


def test_emitter_values(tmp_path, capsys):
    path = tmp_path / "c_fx.mdl"
    path.write_text("newmodel c_fx\nsetsupermodel c_fx NULL\nbeginmodelgeom c_fx\nnode dummy c_fx\n"
                    "  parent NULL\nendnode\nnode emitter fx\n  parent c_fx\n  update Fountain\n"
                    "  render Billboard_to_World_Z\n  blend Additive\nendnode\nendmodelgeom c_fx\n"
                    "donemodel c_fx\n")
    assert main(["check", str(path)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "error emitter-values fx: blend 'Additive' is not one of normal, punch-through, punchthrough, "
        "lighten"]


def _dangly_model(tmp_path, name: str, lines: str) -> str:
    path = tmp_path / f"{name}.mdl"
    path.write_text(f"newmodel {name}\nsetsupermodel {name} NULL\nbeginmodelgeom {name}\nnode dummy {name}\n"
                    f"  parent NULL\nendnode\nnode danglymesh cape\n  parent {name}\n  verts 3\n    0 0 0\n"
                    f"    1 0 0\n    1 1 0\n  faces 1\n    0 1 2 1 0 0 0 0\n{lines}endnode\n"
                    f"endmodelgeom {name}\ndonemodel {name}\n")
    return str(path)


#: Sound danglymesh parameters.
GOOD = "  period 1\n  tightness 2\n  displacement 0.1\n"


def test_danglymesh_rules(tmp_path, capsys):
    cases = {
        "c_count": (GOOD + "  constraints 2\n    0\n    255\n",
                    ["error dangly-constraints cape: 2 constraints for 3 vertices"]),
        "c_range": (GOOD + "  constraints 3\n    0\n    256\n    -1\n",
                    ["error dangly-constraint-range cape: 2 constraints outside 0..255 (vertex 1: 256)"]),
        "c_zero": ("  period 0\n  tightness -1\n  displacement 0.1\n  constraints 3\n    0\n    1\n    2\n",
                   ["error dangly-parameters cape: period 0, tightness -1: each must be a positive number"]),
        "c_none": ("  constraints 3\n    0\n    1\n    2\n",
                   ["error dangly-parameters cape: period (none), tightness (none), displacement (none): "
                    "each must be a positive number"]),
        "c_wild": ("  period 600\n  tightness 5000\n  displacement 20\n"
                   "  constraints 3\n    0\n    1\n    2\n",
                   ["warning dangly-extreme cape: period 600 s is outside 0.01..60 s; tightness 5000 is past "
                    "1000; displacement 20 is more than 10 times the mesh's size (1.41)"]),
        "c_fine": (GOOD + "  constraints 3\n    0\n    128\n    255\n",
                   ["no findings"]),
    }
    for name, (lines, expected) in cases.items():
        status = main(["check", _dangly_model(tmp_path, name, lines)])
        assert capsys.readouterr().out.splitlines() == expected, name
        assert status == (1 if expected[0].startswith("error") else 0), name


def test_emitter_numbers_and_texture(tmp_path, capsys):
    path = tmp_path / "c_fx2.mdl"
    path.write_text("newmodel c_fx2\nsetsupermodel c_fx2 NULL\nbeginmodelgeom c_fx2\nnode dummy c_fx2\n"
                    "  parent NULL\nendnode\nnode emitter fx\n  parent c_fx2\n  update Fountain\n"
                    "  birthrate -5\n  spread 7\n  xsize many\n  texture fx_a_texture_too_long\nendnode\n"
                    "endmodelgeom c_fx2\ndonemodel c_fx2\n")
    assert main(["check", str(path)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "warning emitter-numbers fx: birthrate '-5' is not a number ≥ 0",
        "warning emitter-numbers fx: xsize 'many' is not a number ≥ 0",
        "warning emitter-numbers fx: spread '7' is not a number from 0 to 2π (6.283)",
        "error resref-length fx: texture 'fx_a_texture_too_long' has 21 characters; a resref holds 16"]
