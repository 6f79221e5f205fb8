"""``make fuzz``'s writes mode: ``convert``, ``render -o .mp4`` and ``batch convert`` killed at random
points of the second half of their run, where they write (SIGKILL, SIGTERM or SIGINT), each over the
output of an earlier run. Every output
path must then hold the earlier file or the whole new one, never a part; a batch's report must be
whole JSON lines; no process of the run may be left.

The kills per command come from BONEYARD_FUZZ_WRITES (default 2; ``make fuzz`` runs 200). With
BONEYARD_FUZZ_REPORT set, each command's result is appended there as a JSON line (docs/fuzzing.md).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.resources import demo_paths

from tests.paths import CORPUS

KILLS = int(os.environ.get("BONEYARD_FUZZ_WRITES", "2"))
REPORT = os.environ.get("BONEYARD_FUZZ_REPORT")
SIGNALS = (signal.SIGKILL, signal.SIGTERM, signal.SIGINT)
#: Each command: its arguments after ``boneyard`` for the earlier run and for the run that is killed.
COMMANDS = {
    "convert": (["convert", str(CORPUS / "Fox" / "Fox.glb"), "--clip", "0", "-o", "{out}/fox.glb"],
                ["convert", str(CORPUS / "Fox" / "Fox.glb"), "-o", "{out}/fox.glb"]),
    "render .mp4": (["render", "--demo", "--fps", "2", "--size", "96x72", "-o", "{out}/walk.mp4"],
                    ["render", "--demo", "--fps", "30", "--size", "320x240", "-o", "{out}/walk.mp4"]),
    "batch convert": (["batch", "convert", "{library}", "--clip", "0", "-o", "{out}",
                       "--report", "{out}/report.jsonl", "--jobs", "2"],
                      ["batch", "convert", "{library}", "-o", "{out}", "--report", "{out}/report.jsonl",
                       "--jobs", "2"]),
}


def digests(folder: Path) -> dict[str, str]:
    """Each visible file under ``folder`` (temporaries are hidden) by its path, with its digest."""
    return {str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file() and not path.name.startswith(".")}


def arguments(template: list[str], out: Path, library: Path) -> list[str]:
    return [part.format(out=out, library=library) for part in template]


def run(args: list[str]) -> float:
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "app", *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return time.monotonic() - start


def session_processes(session: int) -> list[int]:
    """Processes still alive in session ``session`` (the killed run and anything it started)."""
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[3]) == session and fields[0] != "Z":
            alive.append(int(entry.name))
    return alive


def killed_run(args: list[str], delay: float, signum: int) -> list[int]:
    """Run ``boneyard ARGS`` in a session of its own, send ``signum`` after ``delay`` seconds, and
    return the processes of that session still alive a moment after it ended."""
    process = subprocess.Popen([sys.executable, "-m", "app", *args], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    time.sleep(delay)
    process.send_signal(signum)
    process.wait(timeout=120)
    deadline = time.monotonic() + 5
    while session_processes(process.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return session_processes(process.pid)


def partial_outputs(folder: Path, before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Output files under ``folder`` that are neither the earlier run's nor the finished run's, and
    earlier files that are gone. A
    batch stopped by a signal writes a report and an index of the models it finished: those must be
    whole (every report line a JSON object, the page closed)."""
    now = digests(folder)
    lost = [name for name in before if name not in now]
    changed = [name for name, value in now.items() if value not in (before.get(name), after.get(name))]
    return lost + [name for name in changed if not summary_is_whole(folder / name)]


def summary_is_whole(path: Path) -> bool:
    text = path.read_text(errors="replace")
    if path.suffix == ".html":
        return text.endswith("</html>\n")
    if path.suffix != ".jsonl" or (text and not text.endswith("\n")):
        return False
    try:
        return all(isinstance(json.loads(line), dict) for line in text.splitlines())
    except ValueError:
        return False


@pytest.mark.fuzz
@pytest.mark.gl
@pytest.mark.parametrize("command", list(COMMANDS))
def test_killed_writes_leave_whole_files(tmp_path, command):
    earlier, later = COMMANDS[command]
    library = tmp_path / "library"
    library.mkdir()
    for index in range(3):
        shutil.copy(CORPUS / "Fox" / "Fox.glb", library / f"fox{index}.glb")
    shutil.copy(demo_paths()[0], library / "demo.glb")
    finished = tmp_path / "finished"
    finished.mkdir()
    length = run(arguments(later, finished, library))
    after = digests(finished)
    out = tmp_path / "out"
    out.mkdir()
    run(arguments(earlier, out, library))
    before = digests(out)
    failures: dict[str, int] = {}
    rng = random.Random(f"writes {command}")
    start = time.monotonic()
    for _ in range(KILLS):
        for name in set(digests(out)) - set(before):  # back to the earlier run's files
            (out / name).unlink()
        for name in before:
            if digests(out).get(name) != before[name]:
                run(arguments(earlier, out, library))
                break
        signum = rng.choice(SIGNALS)
        left = killed_run(arguments(later, out, library), rng.uniform(0.5, 1.05) * length, signum)
        if left:
            failures["process left"] = failures.get("process left", 0) + 1
        if partial_outputs(out, before, after):
            failures["partial output"] = failures.get("partial output", 0) + 1
    if REPORT:
        with open(REPORT, "a") as report:
            report.write(json.dumps({"mode": "writes", "reader": command, "seed": f"writes {command}",
                                     "inputs": KILLS, "failures": failures,
                                     "seconds": round(time.monotonic() - start, 1)}) + "\n")
    assert failures == {}
