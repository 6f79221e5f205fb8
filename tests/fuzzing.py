"""The fuzz harness: mutated files run through a reader in a child process that the test watches.

Each reader's fuzz test calls ``run(reader, seed, tmp_path)``. The child (``python -m tests.fuzzing``)
writes every case's files to ``tmp_path/case`` (with the special files the reader's module makes
there: links, FIFOs) and its number to ``tmp_path/progress`` before loading them, then measures the
case: loading and posing every loaded model must take under ``CASE_LIMIT`` seconds of CPU (counted
in CPU time, so a busy machine does not make a case slow) and stop at ``CPU_LIMIT`` (a timer
interrupts a case past it) and end in the reader's own
ReadError or a model whose poses are finite (bind pose and every clip at its start, middle and end;
vertices skinned for the bind pose and the first ``SKINNED_CLIPS`` clips), with no warning from
numpy. A failing case is counted by its kind (the exception's type, "slow", "CPU limit") and the
first case of each kind is kept in ``tmp_path/failures/KIND``; the run goes on.
A case that gives no answer at all is killed by the parent after ``HANG_LIMIT`` seconds, its files
left in place. Every other case is loaded through the registry instead of the reader, so the files
are sniffed and may go to another reader, as on the command line.

The number of cases per reader comes from BONEYARD_FUZZ_EXAMPLES (default 100; ``make fuzz`` runs
20,000). With BONEYARD_FUZZ_REPORT set, each reader's result (inputs, failures by kind, seconds)
is appended to that file as a JSON line; ``python -m tests.fuzzing_report`` makes the table of
docs/fuzzing.md from it.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import traceback
import warnings
from pathlib import Path

import numpy as np

EXAMPLES = int(os.environ.get("BONEYARD_FUZZ_EXAMPLES", "100"))
REPORT = os.environ.get("BONEYARD_FUZZ_REPORT")
#: Slowest a single case may be (load and pose), seconds of CPU.
CASE_LIMIT = 2.0
#: Most CPU time a single case may use, seconds: a timer interrupts it there.
CPU_LIMIT = 4.0
#: A case silent this long is a hang: the child is killed and the case reported.
HANG_LIMIT = 60.0

#: reader name → the test module holding its ``originals(reader, folder)`` (sets of files opened
#: together, as name → bytes), ``mutate(data, rng)`` and ``load(reader, paths)``.
READERS = {"bonespro": "tests.formats.test_fuzz_text", "lgw": "tests.formats.test_fuzz_text",
           "bnf": "tests.formats.test_fuzz_text", "nwn_ascii": "tests.formats.test_fuzz_text",
           "nwn_mdl": "tests.formats.test_fuzz_binary", "c3de": "tests.formats.test_fuzz_binary",
           "gltf": "tests.formats.test_fuzz_gltf", "fbx": "tests.formats.test_fuzz_fbx_bvh",
           "bvh": "tests.formats.test_fuzz_fbx_bvh", "nwn_archive": "tests.formats.test_fuzz_archives"}


def run(reader: str, seed: int, tmp_path: Path, examples: int = EXAMPLES) -> None:
    """Run ``examples`` cases of ``reader`` in a child process; fail with the child's report."""
    progress = tmp_path / "progress"
    root = str(Path(__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    started = time.monotonic()
    child = subprocess.Popen([sys.executable, "-m", "tests.fuzzing", reader, str(seed), str(examples),
                              str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    last, changed, hang = None, time.monotonic(), None
    while child.poll() is None:
        time.sleep(0.25)
        current = progress.read_text() if progress.exists() else None
        if current != last:
            last, changed = current, time.monotonic()
        elif time.monotonic() - changed > HANG_LIMIT:
            child.kill()
            child.communicate()
            hang = f"{reader} case {current} (seed {seed}) gave no answer in {HANG_LIMIT:g} s; " \
                   f"its files are in {tmp_path / 'case'}"
            break
    output = "" if hang else child.communicate()[0].decode("utf-8", "replace")
    summary_path = tmp_path / "summary.json"
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else {"inputs": 0, "failures": {}}
    if hang:
        summary["failures"]["hang"] = 1
    if REPORT:
        with open(REPORT, "a") as report:
            report.write(json.dumps({"reader": reader, "seed": seed, **summary,
                                     "seconds": round(time.monotonic() - started, 1)}) + "\n")
    assert not hang, hang
    assert child.returncode == 0, f"{reader} (seed {seed}): {output[-4000:]}"


#: Clips whose instants are skinned as well as evaluated (the rest are evaluated only): skinning every
#: instant of a file with 500 duplicated animations and 500 duplicated meshes takes 14 s of CPU.
SKINNED_CLIPS = 20


def check_poses(model) -> None:
    """Every pose the model can show is finite: the bind pose and each clip at three times (the
    bones of each; the vertices of the bind pose and the first SKINNED_CLIPS clips)."""
    from app.pose import evaluate, posed_positions

    instants = [(None, 0.0, True)]
    for index, clip in enumerate(model.clips):
        times = (clip.start, clip.start + clip.duration / 2, clip.start + clip.duration)
        instants += [(clip, time, index < SKINNED_CLIPS) for time in times]
    for clip, when, skinned in instants:
        pose = evaluate(model, clip, when)
        positions = posed_positions(model, pose) if skinned else np.zeros((0, 3))
        name = "bind pose" if clip is None else f"clip {clip.name!r} at {when:g} s"
        if not (np.all(np.isfinite(pose.world)) and np.all(np.isfinite(positions))):
            raise AssertionError(f"{name}: the pose is not finite")


def _case(module, reader: str, sets: list[dict[str, bytes]], rng: np.random.Generator,
          case: int) -> dict[str, bytes]:
    """The files of one case: a set of files opened together, one of them mutated (sometimes several
    times over), the rest as they are. A module's ``mutate_<reader>`` replaces its ``mutate``."""
    mutate = getattr(module, f"mutate_{reader}", module.mutate)
    originals = sets[case % len(sets)]
    names = sorted(originals)
    target = names[(case // len(sets)) % len(names)]
    data = originals[target]
    for _ in range(1 + int(rng.integers(3)) * (rng.random() < 0.3)):
        data = mutate(data, rng)
    return {**originals, target: data}


class CpuLimit(Exception):
    """A case used more than CPU_LIMIT seconds of CPU."""


def _interrupt(signum, frame):
    raise CpuLimit(f"more than {CPU_LIMIT:g} s of CPU")


def _write_case(folder: Path, module, files: dict[str, bytes]) -> None:
    """A fresh case folder holding ``files`` and the module's special files (``specials(folder)``)."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    getattr(module, "specials", lambda where: None)(folder)


def _keep(folder: Path, kept: Path) -> None:
    """A copy of a case's regular files and links (FIFOs and devices would block a copy)."""
    kept.mkdir(parents=True)
    for entry in folder.iterdir():
        if entry.is_symlink():
            (kept / entry.name).symlink_to(os.readlink(entry))
        elif entry.is_file():
            shutil.copyfile(entry, kept / entry.name)


def _load_case(module, reader: str, paths: list[Path], through_registry: bool) -> None:
    """Load and pose one case; ReadError is the answer a broken file should get."""
    from app import loading
    from app.formats.registry import ReadError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            if through_registry:  # sniffing may hand the file to another reader
                model = loading.load(getattr(module, "opened", lambda given: given)(paths))
            else:
                model = module.load(reader, paths)
            check_poses(model)
    except ReadError:
        pass


def _child(reader: str, seed: int, examples: int, folder: Path) -> int:
    module = importlib.import_module(READERS[reader])
    source = folder / "originals"
    source.mkdir(exist_ok=True)
    sets = module.originals(reader, source)
    case_folder = folder / "case"
    rng = np.random.default_rng(seed)
    failures: dict[str, int] = {}
    signal.signal(signal.SIGPROF, _interrupt)
    for case in range(examples):
        files = _case(module, reader, sets, rng, case)
        _write_case(case_folder, module, files)
        (folder / "progress").write_text(str(case))
        started = time.process_time()
        kind = None
        try:
            signal.setitimer(signal.ITIMER_PROF, CPU_LIMIT)
            _load_case(module, reader, [case_folder / name for name in sorted(files)], bool(case % 2))
            signal.setitimer(signal.ITIMER_PROF, 0)
            elapsed = time.process_time() - started
            if elapsed > CASE_LIMIT:
                kind, detail = "slow", f"took {elapsed:.2f} s of CPU"
        except Exception as error:  # noqa: BLE001 - the point is to report anything else
            signal.setitimer(signal.ITIMER_PROF, 0)
            kind = "CPU limit" if isinstance(error, CpuLimit) else type(error).__name__
            detail = f"{kind}: {str(error)[:2000]}\n{traceback.format_exc(limit=-3)[-2000:]}"
        if kind is not None:
            failures[kind] = failures.get(kind, 0) + 1
            kept = folder / "failures" / kind.replace(" ", "_")
            if failures[kind] == 1:
                _keep(case_folder, kept)
                print(f"case {case} (seed {seed}) {detail}; its files are in {kept}")
        (folder / "summary.json").write_text(json.dumps({"inputs": case + 1, "failures": failures}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])))
