"""``boneyard batch`` keeps the user's files (issue 34): no output over an input, whole-or-absent
outputs and report, a report or OUTDIR held by another batch refused, ``--skip-existing`` trusting
only what the report recorded, workers that end with the batch however it ends, names that are not
UTF-8, a full disk and a JSON nested 100,000 levels each as one line."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.cli.batch import jobs, report, run
from app.cli.batch.grouping import find_files, group_files
from app.cli.batch.locks import holding
from app.export.writers import MODEL_WRITERS
from app.resources import demo_paths
from tests.helpers import chain_model, exit_status

LINUX_PROC = Path("/proc/self/stat").exists()


def tiny_models(folder: Path, *names: str) -> list[Path]:
    """A two-bone skinned GLB (2 KB) under each name."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / name for name in names]
    for path in paths:
        MODEL_WRITERS[".glb"](path, chain_model(), None, False)
    return paths


def digests(folder: Path) -> dict[str, str]:
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in folder.iterdir()
            if path.is_file()}


def report_lines(path: Path) -> dict[str, dict]:
    return {line["model"]: line for line in map(json.loads, path.read_text().splitlines())}


def one_error_line(capsys) -> str:
    """stderr's only line (a second line, or a traceback, fails the test)."""
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def whole_info(path: Path) -> bool:
    """Whether ``path`` holds a whole ``info --json`` object."""
    return "bones" in json.loads(path.read_text())


def leftovers(folder: Path) -> list[str]:
    """Temporaries and lock files a batch left beside its outputs."""
    return [path.name for path in folder.iterdir() if ".partial" in path.name or path.suffix == ".lock"]


# Outputs never over inputs


def test_convert_into_the_inputs_folder_is_refused_naming_both(tmp_path, capsys):
    lib = tmp_path / "lib"
    fox, man = tiny_models(lib, "Fox.glb", "Man.glb")
    before = digests(lib)
    assert exit_status(["batch", "convert", str(fox), str(man), "-o", str(lib)]) == 2
    message = one_error_line(capsys)
    assert message == (f"boneyard batch convert: error: the output {fox} would replace the input {fox}; "
                       "choose another OUTDIR")
    assert digests(lib) == before


def test_an_output_that_links_to_an_input_is_refused(tmp_path, capsys):
    (fox,) = tiny_models(tmp_path / "lib", "Fox.glb")
    out = tmp_path / "out"
    out.mkdir()
    (out / "Fox.glb").symlink_to(fox)
    before = digests(tmp_path / "lib")
    assert exit_status(["batch", "convert", str(fox), "-o", str(out)]) == 2
    assert f"would replace the input {fox}" in one_error_line(capsys)
    assert digests(tmp_path / "lib") == before


def test_a_report_over_an_input_is_refused_before_it_is_opened(tmp_path, capsys):
    lib = tmp_path / "lib"
    fox, _ = tiny_models(lib, "Fox.glb", "Man.glb")
    before = digests(lib)
    assert exit_status(["batch", "info", str(lib), "-o", str(tmp_path / "out"), "--report", str(fox)]) == 2
    assert one_error_line(capsys) == (f"boneyard batch info: error: --report {fox} is an input of model "
                                      "Fox.glb; name another file")
    assert digests(lib) == before
    assert not (tmp_path / "out").exists()


def test_a_report_over_another_file_found_is_refused_but_a_previous_report_is_replaced(tmp_path, capsys):
    lib = tmp_path / "lib"
    tiny_models(lib, "Fox.glb")
    texture = lib / "fur.png"
    texture.write_bytes(b"\x89PNG not a report")
    args = ["batch", "info", str(lib), "-o", str(tmp_path / "out"), "--report"]
    assert exit_status(args + [str(texture)]) == 2
    assert one_error_line(capsys).endswith(f"--report {texture} is the input {texture}; name another file")
    assert texture.read_bytes() == b"\x89PNG not a report"
    for _ in range(2):  # the second run finds the first one's report under lib
        assert exit_status(args + [str(lib / "r.jsonl")]) == 0
    assert list(report_lines(lib / "r.jsonl")) == ["Fox.glb"]


@pytest.mark.parametrize("name, what", [("index.html", "the batch's index page"),
                                        ("Fox.json", "the output of model Fox.glb")])
def test_a_report_on_the_batchs_own_output_is_refused(tmp_path, capsys, name, what):
    tiny_models(tmp_path / "lib", "Fox.glb")
    out = tmp_path / "out"
    assert exit_status(["batch", "info", str(tmp_path / "lib"), "-o", str(out), "--report",
                        str(out / name)]) == 2
    assert one_error_line(capsys).endswith(f"--report {out / name} is {what}; name another file")


def test_outdir_or_report_empty_or_not_a_file(tmp_path, capsys):
    (fox,) = tiny_models(tmp_path / "lib", "Fox.glb")
    assert exit_status(["batch", "info", str(fox), "-o", ""]) == 2
    assert one_error_line(capsys).endswith("error: -o OUTDIR is empty; name the folder to write to")
    assert exit_status(["batch", "info", str(fox), "-o", str(tmp_path / "out"), "--report", ""]) == 2
    assert one_error_line(capsys).endswith("error: --report is empty; name the report's file")
    (tmp_path / "out" / "index.html").mkdir(parents=True)
    assert exit_status(["batch", "info", str(fox), "-o", str(tmp_path / "out")]) == 3
    assert one_error_line(capsys) == f"error: cannot write {tmp_path / 'out' / 'index.html'}: it is a folder"
    assert not (tmp_path / "out" / "Fox.json").exists()
    assert exit_status(["batch", "info", str(fox), "-o", str(fox)]) == 3
    assert one_error_line(capsys) == f"error: OUTDIR {fox} is a file"
    assert exit_status(["batch", "info", str(fox), "-o", os.devnull]) == 3
    assert one_error_line(capsys) == f"error: OUTDIR {os.devnull} is a character device"


# --skip-existing


def test_skip_existing_needs_a_report(tmp_path, capsys):
    (fox,) = tiny_models(tmp_path / "lib", "Fox.glb")
    assert exit_status(["batch", "info", str(fox), "-o", str(tmp_path / "out"), "--skip-existing"]) == 2
    assert one_error_line(capsys).endswith(
        "error: --skip-existing needs --report (it trusts only what the report recorded)")


def test_skip_existing_redoes_what_the_report_does_not_vouch_for(tmp_path):
    tiny_models(tmp_path / "lib", "empty.glb", "cut.glb", "failed.glb", "kept.glb")
    out, path = tmp_path / "out", tmp_path / "r.jsonl"
    args = ["batch", "info", str(tmp_path / "lib"), "-o", str(out), "--report", str(path)]
    assert exit_status(args) == 0
    first = report_lines(path)
    assert list(first["kept.glb"])[6:8] == ["output", "output_bytes"]
    assert first["kept.glb"]["output_bytes"] == (out / "kept.json").stat().st_size
    (out / "empty.json").write_bytes(b"")  # as a kill or a full disk used to leave it
    with open(out / "cut.json", "r+b") as handle:
        handle.truncate(10)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(line.replace('"status": "ok"', '"status": "error"') if "failed.glb" in line
                              else line for line in lines) + "\n")
    written = {name: (out / name).stat().st_mtime_ns for name in ("failed.json", "kept.json")}
    time.sleep(0.01)
    assert exit_status(args + ["--skip-existing"]) == 0
    second = report_lines(path)
    assert second["kept.glb"] == first["kept.glb"]
    assert (out / "kept.json").stat().st_mtime_ns == written["kept.json"]
    assert (out / "failed.json").stat().st_mtime_ns != written["failed.json"]
    for name in ("empty", "cut", "failed"):
        assert whole_info(out / f"{name}.json")
        assert second[f"{name}.glb"]["output_bytes"] == (out / f"{name}.json").stat().st_size > 10


# Another batch on the same report or OUTDIR


def test_a_report_or_outdir_held_by_another_batch_is_refused(tmp_path, capsys):
    (fox,) = tiny_models(tmp_path / "lib", "Fox.glb")
    out, path = tmp_path / "out", tmp_path / "r.jsonl"
    path.write_text("the other batch's lines\n")
    with holding([path]):
        assert exit_status(["batch", "info", str(fox), "-o", str(out), "--report", str(path)]) == 3
        assert one_error_line(capsys) == f"error: the report {path} is in use by another batch"
    out.mkdir(exist_ok=True)
    with holding([out / "index.html"]):
        assert exit_status(["batch", "info", str(fox), "-o", str(out)]) == 3
        assert one_error_line(capsys) == f"error: OUTDIR {out} is in use by another batch"
    assert path.read_text() == "the other batch's lines\n"
    assert list(out.iterdir()) == []
    assert exit_status(["batch", "info", str(fox), "-o", str(out), "--report", str(path)]) == 0
    assert leftovers(out) == [] and leftovers(tmp_path) == []


# Workers end with the batch


SLOW_BATCH = """
import sys, time
from pathlib import Path
from app.cli.batch import jobs
def slow(worker, model, job):
    if not Path(job.paths[0]).name.startswith("quick"):
        time.sleep(60)
    return jobs.Worker.info(worker, model, job)
jobs.ACTIONS["info"] = slow
from app.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def _proc_fields(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        fields = _proc_fields(int(entry.name)) if entry.name.isdigit() else None
        if fields and int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped has ended)."""
    fields = _proc_fields(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def still_alive(pids: list[int], within: float = 5.0) -> list[int]:
    deadline = time.monotonic() + within
    while any(map(alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in pids if alive(pid)]


class SlowBatch:
    """``batch info`` on a quick model and three that never finish, on two workers, in its own
    process: started, then waited on until the quick one is done and the workers are busy."""

    def __init__(self, tmp_path: Path):
        tiny_models(tmp_path / "lib", "quick.glb", "slow1.glb", "slow2.glb", "slow3.glb")
        self.out, self.report = tmp_path / "out", tmp_path / "r.jsonl"
        self.report.write_text("a previous report\n")
        # files, not pipes: a worker left behind would hold a pipe open and hang the reading
        self.stdout, self.stderr = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
        with open(self.stdout, "wb") as stdout, open(self.stderr, "wb") as stderr:
            self.process = subprocess.Popen(
                [sys.executable, "-c", SLOW_BATCH, "batch", "info", str(tmp_path / "lib"), "-o",
                 str(self.out), "--jobs", "2", "--report", str(self.report)], stdout=stdout, stderr=stderr)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (self.out / "quick.json").exists():
            time.sleep(0.05)
        time.sleep(0.3)  # the first worker has taken its next model
        self.workers = children(self.process.pid)

    def end(self, signum: int) -> tuple[str, str]:
        """Send ``signum`` to the batch and wait for it: its stdout and stderr."""
        self.process.send_signal(signum)
        self.process.wait(timeout=30)
        return self.stdout.read_text(), self.stderr.read_text()

    def clean_up(self) -> None:
        for pid in [self.process.pid, *self.workers]:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        self.process.wait()


@pytest.fixture
def slow_batch(tmp_path):
    if not LINUX_PROC:
        pytest.skip("needs /proc to find the workers")
    batch = SlowBatch(tmp_path)
    yield batch
    batch.clean_up()


def test_sigterm_stops_the_workers_and_keeps_what_was_done(slow_batch):
    assert len(slow_batch.workers) >= 1 and all(map(alive, slow_batch.workers))
    stdout, stderr = slow_batch.end(signal.SIGTERM)
    assert slow_batch.process.returncode == 128 + signal.SIGTERM, stderr
    assert still_alive(slow_batch.workers) == []
    assert "interrupted, 3 not done (--skip-existing resumes)" in stdout
    assert "Traceback" not in stderr
    assert list(report_lines(slow_batch.report)) == ["quick.glb"]
    assert (slow_batch.out / "index.html").read_text().count("<tr>") == 2  # the heading and quick.glb
    assert leftovers(slow_batch.out) == [] and leftovers(slow_batch.report.parent) == []


def test_sigkill_of_the_batch_ends_its_workers_and_leaves_the_report_as_it_was(slow_batch):
    assert len(slow_batch.workers) >= 1 and all(map(alive, slow_batch.workers))
    slow_batch.end(signal.SIGKILL)
    assert still_alive(slow_batch.workers) == []
    assert slow_batch.report.read_text() == "a previous report\n"
    assert whole_info(slow_batch.out / "quick.json")


def test_two_batches_on_one_report_never_mix(slow_batch, tmp_path, capsys):
    (other,) = tiny_models(tmp_path / "other", "other.glb")
    assert exit_status(["batch", "info", str(other), "-o", str(tmp_path / "out2"), "--report",
                        str(slow_batch.report)]) == 3
    assert one_error_line(capsys).endswith("is in use by another batch")
    assert exit_status(["batch", "info", str(other), "-o", str(slow_batch.out)]) == 3
    assert one_error_line(capsys) == f"error: OUTDIR {slow_batch.out} is in use by another batch"
    slow_batch.end(signal.SIGTERM)
    assert list(report_lines(slow_batch.report)) == ["quick.glb"]
    assert not (slow_batch.out / "other.json").exists()


def test_jobs_above_the_cores_are_clamped_with_a_note(tmp_path, capsys):
    (fox,) = tiny_models(tmp_path / "lib", "Fox.glb")
    assert exit_status(["batch", "info", str(fox), "-o", str(tmp_path / "out"), "--jobs", "1024"]) == 0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert one_error_line(capsys) == (f"note: --jobs 1024 is more than the {cores} cores this batch may use; "
                                      f"using {cores}")


# Names that are not UTF-8


def test_names_that_are_not_utf8_are_processed_and_shown_with_replacement_characters(tmp_path, capsys):
    lib = tmp_path / "lib"
    (model,) = tiny_models(lib, os.fsdecode(b"bad\xff\xfename.glb"))
    (lib / os.fsdecode(b"worse\xff.mdl")).write_bytes(b"\0" * 64)
    out, path = tmp_path / "out", tmp_path / "r.jsonl"
    assert exit_status(["batch", "info", str(lib), "-o", str(out), "--report", str(path)]) == 1
    assert "Traceback" not in capsys.readouterr().err
    lines = report_lines(path)
    assert set(lines) == {"bad\ufffd\ufffdname.glb", "worse\ufffd.mdl"}
    assert lines["bad\ufffd\ufffdname.glb"]["status"] == "ok"
    assert "worse\ufffd.mdl" in lines["worse\ufffd.mdl"]["error"]
    assert whole_info(out / os.fsdecode(b"bad\xff\xfename.json"))
    page = (out / "index.html").read_bytes().decode("utf-8")
    assert "bad\ufffd\ufffdname.glb" in page and "worse\ufffd.mdl" in page


@pytest.mark.gl
def test_batch_render_of_a_name_that_is_not_utf8_writes_its_thumbnail_and_index(tmp_path):
    """A separate process (the workers fork; the test process may hold an OpenGL context)."""
    lib = tmp_path / "lib"
    tiny_models(lib, os.fsdecode(b"bad\xff\xfename.glb"))
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "-m", "app", "batch", "render", str(lib), "-o", str(out),
                             "--jobs", "1", "--size", "64x64"], capture_output=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert (out / os.fsdecode(b"bad\xff\xfename.png")).stat().st_size > 0
    assert "bad\ufffd\ufffdname.glb" in (out / "index.html").read_bytes().decode("utf-8")


# A full disk


def disk_full(*_args, **_kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_for_the_outputs_stops_the_batch_with_exit_3(tmp_path, monkeypatch, capsys,
                                                                 forked_batch_workers):
    tiny_models(tmp_path / "lib", "a.glb", "b.glb", "c.glb")
    monkeypatch.setattr(jobs, "write_atomically", disk_full)
    out, path = tmp_path / "out", tmp_path / "r.jsonl"
    assert exit_status(["batch", "info", str(tmp_path / "lib"), "-o", str(out), "--jobs", "1",
                        "--report", str(path)]) == 3
    assert one_error_line(capsys) == f"error: cannot write {out / 'a.json'}: {os.strerror(errno.ENOSPC)}"
    assert report_lines(path)["a.glb"]["status"] == "error"
    assert sorted(p.name for p in out.iterdir()) == ["index.html"]


class _FailingAfterOneLine:
    """A report file whose disk fills after its first line."""

    def __init__(self, handle):
        self.handle, self.lines = handle, 0

    def write(self, text: str) -> int:
        self.lines += 1
        if self.lines > 1:
            disk_full()
        return self.handle.write(text)

    def __getattr__(self, name):
        return getattr(self.handle, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.handle.close()


def test_a_full_disk_for_the_report_keeps_the_previous_one(tmp_path, monkeypatch, capsys):
    tiny_models(tmp_path / "lib", "a.glb", "b.glb", "c.glb")
    path = tmp_path / "r.jsonl"
    path.write_text("the previous report\n")
    monkeypatch.setattr(report, "open", lambda *a, **k: _FailingAfterOneLine(open(*a, **k)), raising=False)
    assert exit_status(["batch", "info", str(tmp_path / "lib"), "-o", str(tmp_path / "out"),
                        "--report", str(path)]) == 3
    assert one_error_line(capsys) == f"error: cannot write {path}: {os.strerror(errno.ENOSPC)}"
    assert path.read_text() == "the previous report\n"
    assert leftovers(tmp_path) == []


def test_a_full_disk_for_the_index_is_one_line_and_no_page(tmp_path, monkeypatch, capsys):
    (fox,) = tiny_models(tmp_path / "lib", "Fox.glb")
    monkeypatch.setattr(report, "write_atomically", lambda path, data: disk_full())
    out = tmp_path / "out"
    assert exit_status(["batch", "info", str(fox), "-o", str(out)]) == 3
    assert one_error_line(capsys) == f"error: cannot write {out / 'index.html'}: {os.strerror(errno.ENOSPC)}"
    assert not (out / "index.html").exists()


def test_workers_that_cannot_be_started_are_one_line(tmp_path, monkeypatch, capsys):
    (fox,) = tiny_models(tmp_path / "lib", "Fox.glb")

    def no_fork(*_args, **_kwargs):
        raise OSError(errno.EAGAIN, os.strerror(errno.EAGAIN))

    monkeypatch.setattr(run, "run_jobs", no_fork)
    assert exit_status(["batch", "info", str(fox), "-o", str(tmp_path / "out")]) == 3
    assert one_error_line(capsys) == f"error: {os.strerror(errno.EAGAIN)}"


@pytest.fixture
def small_disk(tmp_path):
    """A 2 MB tmpfs (root only; the test is skipped where it cannot be mounted)."""
    folder = tmp_path / "small"
    folder.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(folder)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    yield folder
    subprocess.run(["umount", str(folder)], check=True)


def test_a_real_full_disk_leaves_only_whole_outputs(tmp_path, small_disk, capsys):
    lib = tmp_path / "lib"
    lib.mkdir()
    demo = Path(demo_paths()[0]).read_bytes()  # 600 KB; three do not fit in 2 MB with their report
    for name in ("a.glb", "b.glb", "c.glb", "d.glb"):
        (lib / name).write_bytes(demo)
    out = small_disk / "out"
    assert exit_status(["batch", "convert", str(lib), "-o", str(out), "--jobs", "1",
                        "--report", str(small_disk / "r.jsonl")]) == 3
    message = one_error_line(capsys)
    assert message.startswith("error: cannot write ") and message.endswith(os.strerror(errno.ENOSPC))
    written = [path for path in out.iterdir() if path.suffix == ".glb"]
    assert all(path.read_bytes()[:4] == b"glTF" and path.stat().st_size > 500_000 for path in written)
    assert leftovers(out) == [] and leftovers(small_disk) == []


# JSON nested 100,000 levels


def deep_glb(path: Path) -> None:
    text = b"[" * 100_000 + b"]" * 100_000
    path.write_bytes(b"glTF" + struct.pack("<II", 2, 20 + len(text)) + struct.pack("<I", len(text))
                     + b"JSON" + text)


def test_a_glb_nested_100000_levels_is_one_models_error(tmp_path):
    lib = tmp_path / "lib"
    tiny_models(lib, "good.glb")
    deep_glb(lib / "deep.glb")
    assert sorted(group.relative for group in group_files(find_files([lib]))) == ["deep.glb", "good.glb"]
    path = tmp_path / "r.jsonl"
    assert exit_status(["batch", "info", str(lib), "-o", str(tmp_path / "out"), "--report", str(path)]) == 1
    lines = report_lines(path)
    assert lines["good.glb"]["status"] == "ok"
    assert lines["deep.glb"]["status"] == "error" and "deep.glb" in lines["deep.glb"]["error"]
