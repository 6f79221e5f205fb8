"""The fuzz harness itself: a case past the CPU limit is interrupted and counted, failures are
counted by kind with the first case of each kept, and the report becomes docs/fuzzing.md's table.

This module doubles as the harness's reader module: each case's one file says what loading it does.
"""

from __future__ import annotations

import json
import signal
import sys

import numpy as np
import pytest

from app.formats.registry import ReadError
from tests import fuzzing, fuzzing_report

#: What a case's file holds, and what ``load`` then does.
ACTIONS = [b"read error", b"spin", b"key error"]


def originals(reader, folder):
    return [{"case.txt": b"read error"}]


def mutate(data: bytes, rng: np.random.Generator) -> bytes:
    return ACTIONS[rng.integers(len(ACTIONS))]


def load(reader, paths):
    action = paths[0].read_bytes()
    if action == b"spin":
        while True:
            pass
    if action == b"key error":
        raise KeyError("unexpected")
    raise ReadError(paths[0], "broken, as expected")




def _load_ignoring_read_errors(module, reader, paths, through_registry):
    """``fuzzing._load_case`` without the registry (which would not recognise these files)."""
    try:
        module.load(reader, paths)
    except ReadError:
        pass


@pytest.fixture
def harness(monkeypatch):
    monkeypatch.setitem(fuzzing.READERS, "harness", __name__)
    monkeypatch.setattr(fuzzing, "CPU_LIMIT", 0.2)
    monkeypatch.setattr(fuzzing, "_load_case", _load_ignoring_read_errors)
    previous = signal.getsignal(signal.SIGPROF)
    yield
    signal.setitimer(signal.ITIMER_PROF, 0)
    signal.signal(signal.SIGPROF, previous)


def test_failures_are_counted_by_kind_and_the_first_of_each_kept(tmp_path, harness, capsys):
    rng, sets, module = np.random.default_rng(11), originals("harness", tmp_path), sys.modules[__name__]
    expected = [fuzzing._case(module, "harness", sets, rng, case)["case.txt"] for case in range(12)]
    assert fuzzing._child("harness", 11, 12, tmp_path) == 1
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary == {"inputs": 12, "failures": {
        kind: count for kind, count in (("CPU limit", expected.count(b"spin")),
                                        ("KeyError", expected.count(b"key error"))) if count}}
    assert (tmp_path / "failures" / "CPU_limit" / "case.txt").read_bytes() == b"spin"
    assert (tmp_path / "failures" / "KeyError" / "case.txt").read_bytes() == b"key error"
    printed = capsys.readouterr().out
    assert printed.count("its files are in") == 2 and "more than 0.2 s of CPU" in printed


def test_report_table(tmp_path):
    report = tmp_path / "report.jsonl"
    report.write_text(json.dumps({"reader": "lgw", "seed": 2, "inputs": 1500, "failures": {},
                                  "seconds": 30.0}) + "\n" +
                      json.dumps({"reader": "gltf", "seed": 4, "inputs": 2000,
                                  "failures": {"slow": 1, "KeyError": 2}, "seconds": 10.0}) + "\n")
    fuzzing_report.main(str(report), str(tmp_path / "fuzzing.md"))
    text = (tmp_path / "fuzzing.md").read_text()
    assert "| lgw | 2 | 1,500 | none | 30.0 | 50 |" in text
    assert "| gltf | 4 | 2,000 | KeyError: 2, slow: 1 | 10.0 | 200 |" in text
    assert "| all | | 3,500 | 3 | 40.0 | |" in text
    assert "1,500 inputs for the reader that ran fewest, not 20,000" in text
