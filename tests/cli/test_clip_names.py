"""Clip names unique within a model, and ``--clip`` by name or index (docs/cli.md "Clips").

The files are built here: a root node moved by each clip to a known x, so the clip a command took is
read off the posed vertices."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.cli.main import main
from app.formats.animation_sets import make_clip_names_unique
from app.model import Clip
from tests.writers.gltf_writer import write_gltf

POINTS = np.eye(3)


def _clip_file(tmp_path, names: list[str]):
    """A glTF file whose animation k is named names[k] and holds the root at x = k + 1."""
    document = {"nodes": [{"name": "root", "children": [1]}, {"mesh": 0}],
                "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "mode": 0}]}],
                "animations": [{"name": name, "samplers": [{"input": 1, "output": 2 + k}],
                                "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}
                               for k, name in enumerate(names)]}
    arrays = [(POINTS, "VEC3", 5126), (np.array([0.0, 1.0]), "SCALAR", 5126)]
    arrays += [(np.array([[k + 1.0, 0, 0], [k + 1.0, 0, 0]]), "VEC3", 5126) for k in range(len(names))]
    return write_gltf(tmp_path, document, arrays)


def _posed_x(tmp_path, path, selector, capsys) -> tuple[float, str]:
    out = tmp_path / "pose.npz"
    assert main(["pose", str(path), "--clip", selector, "--time", "0.5", "-o", str(out)]) == 0
    positions = np.load(out)["positions"]
    return float(np.mean(positions[:, 0] - POINTS[:, 0])), capsys.readouterr().err


def test_repeated_clip_names_get_suffixes_and_a_warning_naming_both(tmp_path, capsys):
    path = _clip_file(tmp_path, ["Passout", "Passout", "1"])
    assert main(["info", "--json", str(path)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert [clip["name"] for clip in info["clips"]] == ["Passout", "Passout (2)", "1"]
    assert "clips 0 and 1 are both named 'Passout'; clip 1 is shown as 'Passout (2)'" in info["warnings"]


def test_clip_chosen_by_suffixed_name_or_index(tmp_path, capsys):
    path = _clip_file(tmp_path, ["Passout", "Passout", "1"])
    for selector, expected_x in (("Passout (2)", 2.0), ("0", 1.0), ("Passout", 1.0)):
        x, err = _posed_x(tmp_path, path, selector, capsys)
        assert x == pytest.approx(expected_x, abs=1e-6) and "note" not in err


def test_a_numeric_name_wins_and_says_which_clip_the_index_would_take(tmp_path, capsys):
    path = _clip_file(tmp_path, ["Passout", "Passout", "1"])
    x, err = _posed_x(tmp_path, path, "1", capsys)
    assert x == pytest.approx(3.0, abs=1e-6)
    assert "--clip 1 is the clip named '1' (index 2); clip index 1 is 'Passout (2)'" in err


def test_a_numeric_name_at_its_own_index_gives_no_note(tmp_path, capsys):
    path = _clip_file(tmp_path, ["0", "walk"])
    x, err = _posed_x(tmp_path, path, "0", capsys)
    assert x == pytest.approx(1.0, abs=1e-6) and "note" not in err


def test_three_of_a_name_and_names_apart_only_in_case():
    clips = [Clip(name=name, kind="matrices", times=np.zeros(1), world=np.eye(4)[None, None])
             for name in ["Run", "run", "Run", "Run (2)", "Run", "Walk"]]
    warnings: list[str] = []
    make_clip_names_unique(clips, warnings)
    assert [clip.name for clip in clips] == ["Run", "run", "Run (2)", "Run (2) (2)", "Run (3)", "Walk"]
    assert warnings == ["clips 0 and 2 are both named 'Run'; clip 2 is shown as 'Run (2)'",
                        "clips 2 and 3 are both named 'Run (2)'; clip 3 is shown as 'Run (2) (2)'",
                        "clips 0 and 4 are both named 'Run'; clip 4 is shown as 'Run (3)'"]
