"""The fuzz harness: mutated files run through a reader in a child process that the test watches.

Each reader's fuzz test calls ``run(reader, seed, tmp_path)``. The child (``python -m tests.fuzzing``)
writes every case's files to ``tmp_path/case`` and its number to ``tmp_path/progress`` before
loading them, then measures the case: loading and posing every loaded model must take under
``CASE_LIMIT`` seconds and end in the reader's own ReadError or a model whose poses are finite
(bind pose and every clip at its start, middle and end), with no warning from numpy. A case that
gives no answer at all is killed by the parent after ``HANG_LIMIT`` seconds, its files left in place.
Every other case is loaded through the registry instead of the reader, so the files are sniffed and
may go to another reader, as on the command line.

The number of cases per reader comes from BONEYARD_FUZZ_EXAMPLES (default 100; ``make fuzz``
runs 20,000).
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import time
import traceback
import warnings
from pathlib import Path

import numpy as np

EXAMPLES = int(os.environ.get("BONEYARD_FUZZ_EXAMPLES", "100"))
#: Slowest a single case may be (load and pose), seconds.
CASE_LIMIT = 2.0
#: A case silent this long is a hang: the child is killed and the case reported.
HANG_LIMIT = 60.0

#: reader name → the test module holding its ``originals(reader, folder)`` (sets of files opened
#: together, as name → bytes), ``mutate(data, rng)`` and ``load(reader, paths)``.
READERS = {"bonespro": "tests.test_fuzz_text", "lgw": "tests.test_fuzz_text", "bnf": "tests.test_fuzz_text",
           "nwn_ascii": "tests.test_fuzz_text",
           "nwn_mdl": "tests.test_fuzz_binary", "c3de": "tests.test_fuzz_binary",
           "gltf": "tests.test_fuzz_gltf"}


def run(reader: str, seed: int, tmp_path: Path, examples: int = EXAMPLES) -> None:
    """Run ``examples`` cases of ``reader`` in a child process; fail with the child's report."""
    progress = tmp_path / "progress"
    root = str(Path(__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    child = subprocess.Popen([sys.executable, "-m", "tests.fuzzing", reader, str(seed), str(examples),
                              str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    last, changed = None, time.monotonic()
    while child.poll() is None:
        time.sleep(0.25)
        current = progress.read_text() if progress.exists() else None
        if current != last:
            last, changed = current, time.monotonic()
        elif time.monotonic() - changed > HANG_LIMIT:
            child.kill()
            child.communicate()
            raise AssertionError(f"{reader} case {current} (seed {seed}) gave no answer in {HANG_LIMIT:g} s; "
                                 f"its files are in {tmp_path / 'case'}")
    output = child.communicate()[0].decode("utf-8", "replace")
    assert child.returncode == 0, f"{reader} (seed {seed}): {output[-4000:]}"


def check_poses(model) -> None:
    """Every pose the model can show is finite: the bind pose and each clip at three times."""
    from app.pose import evaluate, posed_positions

    instants = [(None, 0.0)]
    for clip in model.clips:
        instants += [(clip, time) for time in (clip.start, clip.start + clip.duration / 2,
                                               clip.start + clip.duration)]
    for clip, when in instants:
        pose = evaluate(model, clip, when)
        positions = posed_positions(model, pose)
        name = "bind pose" if clip is None else f"clip {clip.name!r} at {when:g} s"
        if not (np.all(np.isfinite(pose.world)) and np.all(np.isfinite(positions))):
            raise AssertionError(f"{name}: the pose is not finite")


def _case(module, sets: list[dict[str, bytes]], rng: np.random.Generator, case: int) -> dict[str, bytes]:
    """The files of one case: a set of files opened together, one of them mutated (sometimes several
    times over), the rest as they are."""
    originals = sets[case % len(sets)]
    names = sorted(originals)
    target = names[(case // len(sets)) % len(names)]
    data = originals[target]
    for _ in range(1 + int(rng.integers(3)) * (rng.random() < 0.3)):
        data = module.mutate(data, rng)
    return {**originals, target: data}


def _child(reader: str, seed: int, examples: int, folder: Path) -> int:
    from app.formats import registry
    from app.formats.registry import ReadError

    module = importlib.import_module(READERS[reader])
    source = folder / "originals"
    source.mkdir(exist_ok=True)
    sets = module.originals(reader, source)
    case_folder = folder / "case"
    rng = np.random.default_rng(seed)
    for case in range(examples):
        files = _case(module, sets, rng, case)
        case_folder.mkdir(exist_ok=True)
        for old in case_folder.iterdir():
            old.unlink()
        for name, data in files.items():
            (case_folder / name).write_bytes(data)
        (folder / "progress").write_text(str(case))
        started = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                paths = [case_folder / name for name in sorted(files)]
                if case % 2:  # through the registry: sniffing may hand the file to another reader
                    model = registry.load(getattr(module, "opened", lambda given: given)(paths))
                else:
                    model = module.load(reader, paths)
                check_poses(model)
        except ReadError:
            pass
        except Exception as error:  # noqa: BLE001 - the point is to report anything else
            where = traceback.format_exc(limit=-3)[-2000:]
            print(f"case {case} (seed {seed}): {type(error).__name__}: {str(error)[:2000]}; "
                  f"its files are in {case_folder}\n{where}")
            return 1
        elapsed = time.perf_counter() - started
        if elapsed > CASE_LIMIT:
            print(f"case {case} (seed {seed}) took {elapsed:.2f} s; its files are in {case_folder}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])))
