"""``batch … --shard K/N`` and ``batch merge``: three shards and a merge give what one unsharded batch
gives; the slices are SHA-1's, the same on any machine; malformed reports and outputs over inputs are
refused in one line, before anything is written."""

from __future__ import annotations

import hashlib
import json
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.helpers import exit_status
from tests.paths import CORPUS

SHARDS = 3


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> Path:
    """Eleven models in three folders: glTF boxes and skins, a corrupt NWN model (an error), and a
    glTF and a GLB named alike in one folder (the second keeps its whole name: box.glb.json)."""
    root = tmp_path_factory.mktemp("library")
    for folder, count in (("boxes", 4), ("more/boxes", 3)):
        (root / folder).mkdir(parents=True)
        for index in range(count):
            shutil.copy(CORPUS / "BoxAnimated" / "BoxAnimated.gltf", root / folder / f"box{index}.gltf")
    shutil.copy(CORPUS / "RiggedSimple" / "RiggedSimple.gltf", root / "more" / "rigged.gltf")
    (root / "clash").mkdir()
    shutil.copy(CORPUS / "SimpleSkin" / "SimpleSkin.gltf", root / "clash" / "box.gltf")
    shutil.copy(CORPUS / "Box" / "Box.glb", root / "clash" / "box.glb")
    (root / "clash" / "corrupt.mdl").write_bytes(b"\0\0\0\0" + b"\xff" * 60)
    return root


MODELS = {"boxes/box0.gltf", "boxes/box1.gltf", "boxes/box2.gltf", "boxes/box3.gltf",
          "more/boxes/box0.gltf", "more/boxes/box1.gltf", "more/boxes/box2.gltf", "more/rigged.gltf",
          "clash/box.glb", "clash/box.gltf", "clash/corrupt.mdl"}


def expected_shard(model: str) -> int:
    """The slice docs/cli.md promises: SHA-1 of the path below the PATH, its first 8 bytes big-endian,
    modulo N, plus one."""
    return int(hashlib.sha1(model.encode("utf-8")).hexdigest()[:16], 16) % SHARDS + 1


def read_lines(path: Path) -> dict[str, dict]:
    return {line["model"]: line for line in map(json.loads, path.read_text().splitlines())}


class _IndexRows(HTMLParser):
    """(model, status, picture) of each row of an index page."""

    def __init__(self):
        super().__init__()
        self.cells: list[list[str]] = []

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.cells.append([])
        if tag == "td" and self.cells:
            self.cells[-1].append(dict(attrs).get("data-key", ""))


def index_rows(path: Path) -> list[tuple[str, ...]]:
    page = _IndexRows()
    page.feed(path.read_text())
    return [tuple(row[1:3]) for row in page.cells if row]


@pytest.fixture(scope="module")
def runs(library, tmp_path_factory):
    """One unsharded batch, and three shards into one shared OUTDIR joined by ``batch merge``."""
    work = tmp_path_factory.mktemp("runs")
    whole = exit_status(["batch", "info", str(library), "-o", str(work / "whole"), "--jobs", "2",
                         "--report", str(work / "whole.jsonl")])
    shards = [exit_status(["batch", "info", str(library), "-o", str(work / "out"), "--jobs", "2",
                           "--shard", f"{k}/{SHARDS}", "--report", str(work / f"shard{k}.jsonl")])
              for k in range(1, SHARDS + 1)]
    merged = exit_status(["batch", "merge", *(str(work / f"shard{k}.jsonl") for k in range(1, SHARDS + 1)),
                          "-o", str(work / "out")])
    return work, whole, shards, merged


def test_three_shards_and_a_merge_give_one_run(runs):
    work, whole, shards, merged = runs
    assert whole == 1 and merged == 1  # the corrupt model fails in both
    single = read_lines(work / "whole.jsonl")
    assert set(single) == MODELS
    parts = [read_lines(work / f"shard{k}.jsonl") for k in range(1, SHARDS + 1)]
    for number, part in enumerate(parts, 1):
        assert set(part) == {model for model in MODELS if expected_shard(model) == number}
        assert shards[number - 1] == (1 if "clash/corrupt.mdl" in part else 0)
    joined = read_lines(work / "out" / "report.jsonl")
    assert set(joined) == MODELS
    keys = ("status", "error", "files", "warnings", "output_bytes", "vertices", "bones", "clips",
            "clip_names")
    for model, line in single.items():
        assert {key: joined[model][key] for key in keys} == {key: line[key] for key in keys}, model
        if line["output"] is None:
            assert joined[model]["output"] is None
        else:  # the same output below OUTDIR, with the same bytes
            relative = Path(line["output"]).relative_to(work / "whole")
            assert Path(joined[model]["output"]) == work / "out" / relative
            assert (work / "out" / relative).read_bytes() == Path(line["output"]).read_bytes()
    assert {Path(joined[m]["output"]).name for m in ("clash/box.glb", "clash/box.gltf")} == \
        {"box.json", "box.gltf.json"}
    assert index_rows(work / "out" / "index.html") == index_rows(work / "whole" / "index.html")
    for number in range(1, SHARDS + 1):  # each shard's own page, under its own name
        assert {row[0] for row in index_rows(work / "out" / f"index.{number}-of-{SHARDS}.html")} == set(
            parts[number - 1])


def test_the_slices_are_pinned():
    """The same on any machine and any Python: values worked out once from SHA-1, written as numbers."""
    from app.cli.batch.shards import shard_of

    assert hashlib.sha1(b"creatures/c_satyr.mdl").hexdigest()[:16] == "b09b2ddd4d57fe80"
    assert shard_of("creatures/c_satyr.mdl", 7) == 0xb09b2ddd4d57fe80 % 7 + 1 == 2
    assert [shard_of(name, 5) for name in ("a.glb", "b.glb", "c/d.mdl")] == [3, 1, 4]
    assert shard_of("anything.glb", 1) == 1


def test_the_library_is_split_across_the_clash():
    """The test library's slices: every shard has a model, and the two models named alike fall in
    different shards (their outputs must still be the unsharded run's)."""
    slices = {model: expected_shard(model) for model in MODELS}
    assert set(slices.values()) == {1, 2, 3}
    assert slices["clash/box.glb"] != slices["clash/box.gltf"]


@pytest.mark.parametrize("value", ["0/3", "4/3", "3", "a/b", "1/0", "-1/2", "1/3/4", ""])
def test_bad_shards_are_usage_errors(library, tmp_path, value, capsys):
    assert exit_status(["batch", "info", str(library), "-o", str(tmp_path / "out"), "--shard", value]) == 2
    assert "--shard" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_an_empty_slice_is_a_batch_of_no_models(library, tmp_path, capsys):
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    shutil.copy(CORPUS / "BoxAnimated" / "BoxAnimated.gltf", lonely / "a.gltf")
    other = 2 if expected_shard("a.gltf") == 1 else 1
    status = exit_status(["batch", "info", str(lonely), "-o", str(tmp_path / "out"), "--shard",
                          f"{other}/{SHARDS}", "--report", str(tmp_path / "r.jsonl")])
    assert status == 0
    assert capsys.readouterr().out.startswith("batch info: 0 models, 0 ok, 0 failed")
    assert (tmp_path / "r.jsonl").read_text() == ""


def test_a_shard_resumes_its_own_report(runs, library, tmp_path, capsys):
    work, *_ = runs
    report = tmp_path / "shard1.jsonl"
    shutil.copy(work / "shard1.jsonl", report)
    out = tmp_path / "out"
    shutil.copytree(work / "out", out)
    args = ["batch", "info", str(library), "-o", str(tmp_path / "out"), "--shard", f"1/{SHARDS}",
            "--report", str(report), "--skip-existing"]
    # the report names the outputs under work/out: point them here, as a shard on its own machine has them
    report.write_text(report.read_text().replace(str(work / "out"), str(out)))
    before = read_lines(report)
    capsys.readouterr()
    exit_status(args)
    after = read_lines(report)
    assert set(after) == set(before)
    succeeded = [model for model, line in before.items() if line["status"] == "ok"]
    assert succeeded and all(after[model] == before[model] for model in succeeded)
    assert f"({len(succeeded)} skipped, done before)" in capsys.readouterr().out


def test_a_shard_refuses_a_report_of_other_shards(runs, library, tmp_path, capsys):
    work, *_ = runs
    report = tmp_path / "r.jsonl"
    shutil.copy(work / "whole.jsonl", report)
    before = report.read_bytes()
    status = exit_status(["batch", "info", str(library), "-o", str(tmp_path / "out"), "--shard",
                          f"2/{SHARDS}", "--report", str(report)])
    assert status == 2
    error = capsys.readouterr().err.strip()
    assert "holds models of other shards" in error and "batch merge" in error and "\n" not in error
    assert report.read_bytes() == before and not (tmp_path / "out" / "boxes").exists()


def test_the_joined_report_resumes_an_unsharded_batch(runs, library, tmp_path, capsys):
    work, *_ = runs
    report = tmp_path / "joined.jsonl"
    shutil.copy(work / "out" / "report.jsonl", report)
    assert exit_status(["batch", "info", str(library), "-o", str(work / "out"), "--report", str(report),
                        "--skip-existing"]) == 1
    assert "(10 skipped, done before)" in capsys.readouterr().out


def _merge(tmp_path, *reports, out="merged", extra=()):
    return exit_status(["batch", "merge", *map(str, reports), "-o", str(tmp_path / out), *extra])


@pytest.mark.parametrize("text, message", [
    ('{"model": "a.glb", "status": "ok"', "bad.jsonl line 2 column"),
    ("[1, 2]", "bad.jsonl line 2: not a batch report line: expected a JSON object"),
    ('{"model": "a.glb"}', "bad.jsonl line 2: not a batch report line: no 'files'"),
    ("{}", "bad.jsonl line 2: not a batch report line: no 'model'"),
    ('{"model": "a.glb", "model": "b.glb"}', "bad.jsonl line 2 column"),
    ("\xff", "bad.jsonl line 2"),
])
def test_a_malformed_line_names_file_and_line(runs, tmp_path, capsys, text, message):
    work, *_ = runs
    good = json.dumps(read_lines(work / "whole.jsonl")["boxes/box0.gltf"])
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes((good + "\n").encode() + text.encode("latin-1") + b"\n")
    assert _merge(tmp_path, bad) == 3
    error = capsys.readouterr().err.strip()
    assert error.startswith("error: ") and message in error and "\n" not in error
    assert not (tmp_path / "merged" / "index.html").exists()


def test_a_line_of_the_wrong_kind_is_named(runs, tmp_path, capsys):
    work, *_ = runs
    line = read_lines(work / "whole.jsonl")["boxes/box0.gltf"]
    for key, value, said in (("status", "fine", "'status' is 'fine'"),
                             ("warnings", "2", "'warnings' is \"2\""),
                             ("output_bytes", True, "'output_bytes' is true")):
        bad = tmp_path / f"{key}.jsonl"
        bad.write_text(json.dumps({**line, key: value}) + "\n")
        assert _merge(tmp_path, bad) == 3
        error = capsys.readouterr().err.strip()
        assert f"{key}.jsonl line 1: {said}" in error, error


def test_a_model_in_two_reports_is_refused(runs, tmp_path, capsys):
    work, *_ = runs
    assert _merge(tmp_path, work / "shard1.jsonl", work / "shard2.jsonl", work / "shard1.jsonl") == 3
    error = capsys.readouterr().err.strip()
    assert "shard1.jsonl line 1: model" in error and "is also in" in error and "shard1.jsonl line 1" in error
    assert not (tmp_path / "merged").exists()


def test_a_missing_report_is_one_line(tmp_path, capsys):
    assert _merge(tmp_path, tmp_path / "none.jsonl") == 3
    error = capsys.readouterr().err.strip()
    assert error.startswith("error: cannot read") and "none.jsonl" in error


def test_outputs_over_inputs_are_refused(runs, tmp_path, capsys):
    work, *_ = runs
    report = tmp_path / "merged" / "report.jsonl"
    report.parent.mkdir()
    shutil.copy(work / "shard1.jsonl", report)
    before = report.read_bytes()
    assert _merge(tmp_path, report, work / "shard2.jsonl", work / "shard3.jsonl") == 2
    assert "would replace the report" in capsys.readouterr().err
    assert report.read_bytes() == before and not (tmp_path / "merged" / "index.html").exists()
    index = tmp_path / "index" / "index.html"
    index.parent.mkdir()
    shutil.copy(work / "shard1.jsonl", index)
    assert _merge(tmp_path, index, out="index", extra=("--report", str(tmp_path / "j.jsonl"))) == 2
    assert "the index" in capsys.readouterr().err
    output = read_lines(work / "shard1.jsonl")
    some_output = next(line["output"] for line in output.values() if line["output"])
    assert _merge(tmp_path, work / "shard1.jsonl", extra=("--report", some_output)) == 2
    assert "would replace the output of model" in capsys.readouterr().err
    assert exit_status(["batch", "merge", str(work / "shard1.jsonl"), "-o", ""]) == 2


def test_a_shards_page_over_an_input_is_refused(tmp_path, capsys):
    library = tmp_path / "lib"
    library.mkdir()
    shutil.copy(CORPUS / "BoxAnimated" / "BoxAnimated.gltf", library / "a.gltf")
    page = library / f"index.2-of-{SHARDS}.html"
    page.write_text("<p>someone's page</p>")
    status = exit_status(["batch", "info", str(library / "a.gltf"), str(page), "-o", str(library), "--shard",
                          f"2/{SHARDS}"])
    assert status == 2
    assert f"index.2-of-{SHARDS}.html would replace the input" in capsys.readouterr().err
    assert page.read_text() == "<p>someone's page</p>"


def test_merging_reports_of_ok_models_is_exit_0(runs, tmp_path, capsys):
    work, *_ = runs
    ok_shards = [number for number in range(1, SHARDS + 1)
                 if all(line["status"] == "ok"
                        for line in read_lines(work / f"shard{number}.jsonl").values())]
    assert ok_shards  # the corrupt model is in one shard only
    reports = [work / f"shard{number}.jsonl" for number in ok_shards]
    assert _merge(tmp_path, *reports) == 0
    models = sum(len(read_lines(report)) for report in reports)
    plural = "s" if len(reports) > 1 else ""
    assert capsys.readouterr().out.strip() == (f"batch info: {models} models, {models} ok, 0 failed "
                                               f"(merged from {len(reports)} report{plural})")
