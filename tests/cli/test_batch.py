"""``boneyard batch``: a library with a corrupt file, a FIFO, a model that hangs its worker and one
that crashes it still finishes the rest, with exit 1 and a report naming each; --skip-existing;
index.html; an unwritable OUTDIR; thumbnails from ``batch render``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from app.cli.batch import jobs
from app.loading import load
from app.resources import demo_paths
from tests.demo_formats import WRITERS
from tests.helpers import exit_status


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    """Every demo format in its folder, the demo glTF twice more (one to crash, one to hang), a
    corrupt file, a FIFO and an orphan animation."""
    root = tmp_path_factory.mktemp("library")
    model = load(demo_paths())
    for name, write in WRITERS.items():
        (root / name).mkdir()
        write(model, root / name)
    demo = Path(demo_paths()[0]).read_bytes()
    for name in ("demo.glb", "crash.glb", "hang.glb"):
        (root / "gltf").mkdir(exist_ok=True)
        (root / "gltf" / name).write_bytes(demo)
    (root / "bad" / "corrupt.mdl").parent.mkdir()
    (root / "bad" / "corrupt.mdl").write_bytes(b"\0\0\0\0" + b"\xff" * 60)
    os.mkfifo(root / "bad" / "pipe.glb")
    (root / "bad" / "orphan.anm").write_text((root / "bnf" / "demo.anm").read_text())
    return root


def misbehaving_info(worker, model, job):
    """``info`` that crashes the worker on crash.glb and never ends on hang.glb."""
    name = Path(job.paths[0]).name
    if name == "crash.glb":
        os.kill(os.getpid(), signal.SIGSEGV)
    if name == "hang.glb":
        time.sleep(3600)
    return jobs.Worker.info(worker, model, job)


def read_report(path: Path) -> dict[str, dict]:
    return {line["model"]: line for line in map(json.loads, path.read_text().splitlines())}


def test_batch_goes_on_past_corrupt_hanging_and_crashing_models(library, tmp_path, monkeypatch, capsys,
                                                                  forked_batch_workers):
    monkeypatch.setitem(jobs.ACTIONS, "info", misbehaving_info)
    out, report = tmp_path / "out", tmp_path / "report.jsonl"
    start = time.monotonic()
    # --timeout is wall-clock time: 8 s leaves a sound model room on a loaded machine (the LGW demo took
    # 4 s there), while the hang still ends in one timeout.
    status = exit_status(["batch", "info", str(library), "-o", str(out), "--jobs", "2", "--timeout", "8",
                          "--report", str(report)])
    assert status == 1
    assert time.monotonic() - start < 60
    lines = read_report(report)
    assert set(lines) == {"bonespro/demo_structure.txt", "lgw/demo.lgw", "bnf/demo.bnf", "nwn_mdl/demo.mdl",
                          "c3de/demo.c3d", "gltf/demo.glb", "gltf/crash.glb", "gltf/hang.glb",
                          "bad/corrupt.mdl", "bad/pipe.glb", "bad/orphan.anm"}
    failed = {name: line["error"] for name, line in lines.items() if line["status"] == "error"}
    assert set(failed) == {"gltf/crash.glb", "gltf/hang.glb", "bad/corrupt.mdl", "bad/pipe.glb",
                           "bad/orphan.anm"}
    assert "crashed (SIGSEGV)" in failed["gltf/crash.glb"]
    assert "no result after 8 s (--timeout)" in failed["gltf/hang.glb"]
    assert "corrupt.mdl" in failed["bad/corrupt.mdl"]
    assert "not a regular file (a FIFO)" in failed["bad/pipe.glb"]
    assert "no model file for this animation" in failed["bad/orphan.anm"]
    assert all("\n" not in message for message in failed.values())
    # the models after the crash and the hang were done, by replacement workers
    bnf = lines["bnf/demo.bnf"]
    assert bnf["status"] == "ok" and bnf["files"] == ["bnf/demo.bnf", "bnf/demo.anm", "bnf/demo.prm"]
    assert (bnf["bones"], bnf["clips"], bnf["vertices"]) == (17, 1, 0)
    assert bnf["output"] == str(out / "bnf" / "demo.json")
    assert json.loads((out / "bnf" / "demo.json").read_text())["bones"] == 17
    assert lines["c3de/demo.c3d"]["files"] == ["c3de/demo.c3d", "c3de/demo_bones.c3d"]
    assert lines["gltf/hang.glb"]["output"] is None
    summary = capsys.readouterr().out.strip().splitlines()[-1]
    assert summary.startswith("batch info: 11 models, 6 ok, 5 failed in ")


def test_skip_existing_does_only_what_is_missing(library, tmp_path):
    out, report = tmp_path / "out", tmp_path / "report.jsonl"
    args = ["batch", "info", str(library / "lgw"), str(library / "bnf"), "-o", str(out),
            "--report", str(report)]
    assert exit_status(args) == 0
    first = read_report(report)
    # both are demo.*: the first in PATH order takes demo.json, the other keeps its whole name
    assert first["demo.bnf"]["output"] == str(out / "demo.json")
    assert first["demo.lgw"]["output"] == str(out / "demo.lgw.json")
    (out / "demo.json").unlink()
    lgw_written = (out / "demo.lgw.json").stat().st_mtime_ns
    assert exit_status(args + ["--skip-existing"]) == 0
    second = read_report(report)
    assert set(second) == set(first) == {"demo.lgw", "demo.bnf"}
    assert (out / "demo.json").exists()
    assert second["demo.lgw"] == first["demo.lgw"]  # kept from the earlier report, not done again
    assert (out / "demo.lgw.json").stat().st_mtime_ns == lgw_written


class _Rows(HTMLParser):
    """The text of the index page's table cells, row by row, and its script sources."""

    def __init__(self):
        super().__init__()
        self.rows, self.scripts, self.images = [], [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr":
            self.rows.append([])
        if tag == "script" and "src" in attrs:
            self.scripts.append(attrs["src"])
        if tag == "img":
            self.images.append(attrs["src"])

    def handle_data(self, data):
        if self.rows and data.strip():
            self.rows[-1].append(data.strip())


@pytest.mark.gl
def test_batch_render_thumbnails_and_index_page(library, tmp_path):
    """A separate process (the workers fork; the test process may hold an OpenGL context)."""
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "-m", "app", "batch", "render", str(library / "lgw"),
                             str(library / "c3de"), str(library / "bad"), "-o", str(out), "--jobs", "2"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("batch render: 5 models, 2 ok, 3 failed")
    for thumbnail in (out / "demo.png", out / "demo.lgw.png"):
        image = Image.open(thumbnail)
        assert image.size == (512, 512)
    page = _Rows()
    page.feed((out / "index.html").read_text())
    assert page.scripts == []  # nothing from the network
    names = {row[0] for row in page.rows[1:]}
    assert names == {"demo.c3d", "demo.lgw", "corrupt.mdl", "pipe.glb", "orphan.anm"}
    assert sorted(page.images) == ["demo.lgw.png", "demo.png"]
    statuses = {row[0]: row[1] for row in page.rows[1:]}
    assert statuses["demo.c3d"] == "ok" and statuses["pipe.glb"] == "error"


def test_unwritable_outdir_is_exit_3_before_any_work(library, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("a file where a folder should be")
    assert exit_status(["batch", "info", str(library / "lgw"), "-o", str(blocker / "out")]) == 3
    message = capsys.readouterr().err.strip()
    assert message.startswith(f"error: cannot write {blocker / 'out'}") and "\n" not in message
    assert exit_status(["batch", "info", str(library / "lgw"), "-o", str(tmp_path / "ok"),
                        "--report", str(tmp_path / "none" / "r.jsonl")]) == 3
    assert not (tmp_path / "ok" / "demo.json").exists()


def test_usage_errors_are_exit_2(library, tmp_path):
    assert exit_status(["batch", "info", "-o", str(tmp_path)]) == 2
    assert exit_status(["batch", "draw", str(library), "-o", str(tmp_path)]) == 2
    assert exit_status(["batch", "info", str(library), "-o", str(tmp_path), "--jobs", "0"]) == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    assert exit_status(["batch", "info", str(empty), "-o", str(tmp_path / "out")]) == 2


def test_outdir_inside_a_path_is_not_read_again(library, tmp_path):
    source = tmp_path / "lib"
    source.mkdir()
    (source / "demo.lgw").write_bytes((library / "lgw" / "demo.lgw").read_bytes())
    report = tmp_path / "r.jsonl"
    for _ in range(2):
        assert exit_status(["batch", "convert", str(source), "-o", str(source / "out"), "--report",
                            str(report)]) == 0
    assert list(read_report(report)) == ["demo.lgw"]
    assert load([source / "out" / "demo.glb"]).vertex_count == load([source / "demo.lgw"]).vertex_count


def test_check_writes_the_findings(library, tmp_path):
    out, report = tmp_path / "out", tmp_path / "r.jsonl"
    assert exit_status(["batch", "check", str(library / "bnf"), "-o", str(out), "--report", str(report)]) == 0
    findings = json.loads((out / "demo.json").read_text())
    assert findings["problems"] == []
    assert findings["round_trip"]["fraction"] < 1e-3
    ragdoll = findings["ragdoll"]  # ragdoll --check's report (docs/cli.md)
    assert ragdoll["verdict"] == "pass" and ragdoll["joints"] and ragdoll["parts"]
    assert max(part["penetration_cm"] for part in ragdoll["parts"]) <= ragdoll["thresholds"]["penetration_cm"]
    assert read_report(report)["demo.bnf"]["status"] == "ok"


INTERRUPTED_RUN = """
import sys, time
from pathlib import Path
from app.cli.batch import jobs
def slow(worker, model, job):
    if Path(job.paths[0]).name == "hang.glb":
        time.sleep(60)
    return jobs.Worker.info(worker, model, job)
jobs.ACTIONS["info"] = slow
from app.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def test_ctrl_c_keeps_what_was_done(library, tmp_path):
    out, report = tmp_path / "out", tmp_path / "report.jsonl"
    run = subprocess.Popen([sys.executable, "-c", INTERRUPTED_RUN, "batch", "info", str(library / "gltf"),
                            "-o", str(out), "--jobs", "1", "--report", str(report)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(out.glob("*.json")):
        time.sleep(0.1)  # crash.glb and demo.glb come before hang.glb: one is done, the worker on the next
    time.sleep(0.5)
    run.send_signal(signal.SIGINT)
    stdout, stderr = run.communicate(timeout=30)
    assert run.returncode == 130, stderr
    done = read_report(report)
    assert set(done) <= {"crash.glb", "demo.glb"} and done
    assert "interrupted" in stdout and "(--skip-existing resumes)" in stdout
    assert "Traceback" not in stderr
    assert (out / "index.html").exists()


@pytest.mark.gl
def test_render_sheet_makes_one_contact_sheet_per_mocap_take(tmp_path, capsys):
    from tests.paths import CORPUS

    takes = tmp_path / "takes"
    takes.mkdir()
    source = (CORPUS / "cmu-bvh" / "01_01_first240.bvh").read_bytes()
    for name in ("walk.bvh", "jump.bvh"):
        (takes / name).write_bytes(source)
    (takes / "still.glb").write_bytes((CORPUS / "Box" / "Box.glb").read_bytes())
    out, report = tmp_path / "sheets", tmp_path / "report.jsonl"
    assert exit_status(["batch", "render", str(takes), "-o", str(out), "--sheet", "--frames", "4",
                        "--size", "160x120", "--jobs", "1", "--report", str(report)]) == 1
    lines = read_report(report)
    assert lines["still.glb"]["status"] == "error" and "no clips" in lines["still.glb"]["error"]
    for name in ("walk", "jump"):
        assert lines[f"{name}.bvh"]["status"] == "ok"
        sheet = np.asarray(Image.open(out / f"{name}.png").convert("RGB")).astype(int)
        # one clip: one row of four 160-pixel frames, its label strip below the frames
        assert sheet.shape[1] == 4 * 160 and 120 < sheet.shape[0] < 2 * 120
        frames = [sheet[:120, column * 160:(column + 1) * 160] for column in range(4)]
        assert all(np.abs(frame - frame[0, 0]).max() > 60 for frame in frames), "each frame draws the take"
        assert np.abs(frames[0] - frames[2]).max(axis=-1).astype(bool).sum() > 100, "the take moves"


def test_render_sheet_frames_are_checked_before_any_work(tmp_path, capsys):
    library = tmp_path / "lib"
    library.mkdir()
    assert exit_status(["batch", "render", str(library), "-o", str(tmp_path / "out"), "--sheet",
                        "--frames", "0"]) == 2
    assert "--frames 0: expected 1 to" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_workers_are_forked_only_from_a_single_threaded_process():
    """A fork copies the locks other threads hold, not the threads: forked from a process with an
    OpenGL driver's or Qt's threads, a worker could wait forever on one. Such a process starts its
    workers afresh."""
    code = ("import threading; from app.cli.batch.pool import start_method; before = start_method(); "
            "stop = threading.Event(); threading.Thread(target=stop.wait).start(); "
            "print(before, start_method()); stop.set()")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert run.stdout.split() == ["fork", "spawn"], run.stderr


@pytest.mark.gl
def test_a_batch_started_from_a_process_holding_a_gl_context_finishes(tmp_path):
    """The window's process, or a test run, holds an EGL context (llvmpipe's threads): its batch
    workers start afresh and render."""
    import moderngl

    from tests.paths import CORPUS

    context = moderngl.create_standalone_context(backend="egl")
    try:
        library = tmp_path / "lib"
        library.mkdir()
        (library / "box.glb").write_bytes((CORPUS / "Box" / "Box.glb").read_bytes())
        report = tmp_path / "report.jsonl"
        assert exit_status(["batch", "render", str(library), "-o", str(tmp_path / "out"), "--size",
                            "64x48", "--jobs", "1", "--timeout", "120", "--report", str(report)]) == 0
        assert read_report(report)["box.glb"]["status"] == "ok"
    finally:
        context.release()
