"""``boneyard batch``'s names and counts: models found under PATHs in several folders are named after
their PATH's folder, so two ``x.glb`` stay two models in the report, ``--skip-existing`` and ``batch
merge``; a single PATH's names are as they were; summaries and ``info`` count '1 model', '2 models'."""

from __future__ import annotations

import json
from pathlib import Path

from app.cli.batch.root_labels import root_labels
from app.cli.wording import counted
from tests.cli.test_batch_safety import report_lines, tiny_models
from tests.helpers import exit_status


def _batch(tmp_path: Path, *paths: Path, extra: tuple[str, ...] = ()) -> int:
    return exit_status(["batch", "info", *map(str, paths), "-o", str(tmp_path / "out"),
                        "--report", str(tmp_path / "r.jsonl"), *extra])


def test_counted_says_one_or_many():
    assert counted(1, "model") == "1 model"
    assert counted(0, "model") == "0 models"
    assert counted(2, "report") == "2 reports"
    assert counted(1, "vertex", "vertices") == "1 vertex"
    assert counted(5, "vertex", "vertices") == "5 vertices"


def test_one_path_keeps_its_names_and_one_model_is_singular(tmp_path, capsys):
    tiny_models(tmp_path / "a" / "sub", "x.glb")
    assert _batch(tmp_path, tmp_path / "a") == 0
    assert capsys.readouterr().out.startswith("batch info: 1 model, 1 ok, 0 failed in ")
    (line,) = report_lines(tmp_path / "r.jsonl").values()
    assert line["model"] == "sub/x.glb" and line["files"] == ["sub/x.glb"]
    assert Path(line["output"]) == tmp_path / "out" / "sub" / "x.json"


def test_files_of_one_folder_keep_their_names(tmp_path):
    first, second = tiny_models(tmp_path / "lib", "x.glb", "y.glb")
    assert _batch(tmp_path, first, second) == 0
    assert set(report_lines(tmp_path / "r.jsonl")) == {"x.glb", "y.glb"}
    assert (tmp_path / "out" / "x.json").is_file() and (tmp_path / "out" / "y.json").is_file()


def test_two_folders_with_one_name_give_two_models(tmp_path, capsys):
    tiny_models(tmp_path / "a", "x.glb")
    tiny_models(tmp_path / "b" / "deep", "x.glb")
    assert _batch(tmp_path, tmp_path / "a", tmp_path / "b") == 0
    assert capsys.readouterr().out.startswith("batch info: 2 models, 2 ok, 0 failed in ")
    lines = report_lines(tmp_path / "r.jsonl")
    assert set(lines) == {"a/x.glb", "b/deep/x.glb"}
    assert lines["b/deep/x.glb"]["files"] == ["b/deep/x.glb"]
    assert Path(lines["a/x.glb"]["output"]) == tmp_path / "out" / "a" / "x.json"
    assert Path(lines["b/deep/x.glb"]["output"]) == tmp_path / "out" / "b" / "deep" / "x.json"
    assert _batch(tmp_path, tmp_path / "a", tmp_path / "b", extra=("--skip-existing",)) == 0
    assert "2 models, 2 ok, 0 failed (2 skipped, done before)" in capsys.readouterr().out


def test_two_files_with_one_name_give_two_models_and_merge(tmp_path, capsys):
    (first,) = tiny_models(tmp_path / "a", "x.glb")
    (second,) = tiny_models(tmp_path / "b", "x.glb")
    assert _batch(tmp_path, first, second) == 0
    assert set(report_lines(tmp_path / "r.jsonl")) == {"a/x.glb", "b/x.glb"}
    assert exit_status(["batch", "merge", str(tmp_path / "r.jsonl"), "-o", str(tmp_path / "merged")]) == 0
    out = capsys.readouterr().out
    assert "batch info: 2 models, 2 ok, 0 failed (merged from 1 report)" in out
    joined = (tmp_path / "merged" / "report.jsonl").read_text().splitlines()
    assert [json.loads(text)["model"] for text in joined] == ["a/x.glb", "b/x.glb"]


def test_folders_that_share_a_name_are_told_apart_by_the_folders_above(tmp_path):
    one, two, other = tmp_path / "one" / "lib", tmp_path / "two" / "lib", tmp_path / "art"
    for folder in (one, two, other):
        folder.mkdir(parents=True)
    assert root_labels([one, two, other]) == {one: "one/lib", two: "two/lib", other: "art"}
    assert root_labels([one]) == {one: ""}
    assert root_labels([one / "x.glb", one / "y.glb", one]) == {one / "x.glb": "", one / "y.glb": "",
                                                                 one: ""}
    assert root_labels([other / "x.glb", one]) == {other / "x.glb": "art", one: "lib"}
    deeper = one / "sub" / "deeper"
    deeper.mkdir(parents=True)
    assert root_labels([one, deeper / "x.glb"]) == {one: "", deeper / "x.glb": "sub/deeper"}
    assert root_labels([deeper, two, other]) == {deeper: "deeper", two: "lib", other: "art"}
    assert root_labels([one, deeper, two]) == {one: "one/lib", deeper: "one/lib/sub/deeper", two: "two/lib"}


def test_a_file_below_a_folder_given_first_keeps_the_name_the_walk_gives(tmp_path):
    (deep,) = tiny_models(tmp_path / "lib" / "sub", "x.glb")
    tiny_models(tmp_path / "lib", "y.glb")
    assert _batch(tmp_path, deep, tmp_path / "lib") == 0
    assert set(report_lines(tmp_path / "r.jsonl")) == {"sub/x.glb", "y.glb"}


def test_info_counts_one_frame_and_one_triangle(tmp_path, capsys):
    """``info``'s listing: a clip of one key is '1 frame', a mesh of one triangle '1 triangle'."""
    import numpy as np

    from app.export.writers import MODEL_WRITERS
    from app.model import Clip, Track
    from tests.helpers import chain_model

    still = Clip("still", "keyed", tracks=[Track(1, rotation=(np.array([0.0]), np.array([[0, 0, 0, 1.0]])))])
    path = tmp_path / "one.glb"
    MODEL_WRITERS[".glb"](path, chain_model([still]), None, False)
    assert exit_status(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "  0: still (skeletal, 1 frame, 0.000 s" in out
    assert "  arm: 3 vertices, 1 triangle," in out
