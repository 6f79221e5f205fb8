"""The FBX reader process (app/formats/fbx/reader_process.py): one process serves the reads, a crash
in it is a ReadError and the next read forks another, it retires when its memory has grown, an
interrupted read ends it, it never outlives its parent, and a forked child gets its own."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from app.formats.fbx import extract, reader_process, transport
from app.formats.registry import ReadError
from app.loading import load
from tests.formats.test_fbx import written
from tests.paths import CORPUS, ROOT

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the reader process needs fork")
HUESITOS = CORPUS / "assimp-fbx" / "huesitos.fbx"


@pytest.fixture(autouse=True)
def fresh_reader():
    """Each test starts and ends without a reader process, so what it patches is what it forks."""
    reader_process.stop()
    yield
    reader_process.stop()


def gone(pid: int) -> bool:
    """True once ``pid`` has ended (a zombie no one reaps counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def wait_gone(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if gone(pid):
            return True
        time.sleep(0.05)
    return False


def _segfault(path, kept, meshes_read=None):
    os.kill(os.getpid(), signal.SIGSEGV)


def test_reads_share_one_reader_process(tmp_path):
    first = load([written(tmp_path)])
    pid = reader_process.reader_pid()
    second = load([HUESITOS])
    assert pid is not None and reader_process.reader_pid() == pid
    assert not gone(pid)
    assert len(first.meshes) == 1 and [clip.name for clip in second.clips] == ["Armature|Action"]


def test_a_crash_is_a_read_error_naming_the_file_and_the_next_read_works(tmp_path, monkeypatch):
    path = written(tmp_path)
    monkeypatch.setattr(reader_process, "read_contents", _segfault)
    with pytest.raises(ReadError) as raised:
        load([path])
    assert "crashed on this file (SIGSEGV)" in str(raised.value) and path.name in str(raised.value)
    assert raised.value.line == 1  # a well-formed file: placed at its start
    assert reader_process.reader_pid() is None
    monkeypatch.undo()
    assert len(load([path]).meshes) == 1


def test_an_error_in_the_reader_is_a_read_error(tmp_path, monkeypatch):
    def broken(path, kept, meshes_read=None):
        raise IndexError("a bug in the copy")
    monkeypatch.setattr(reader_process, "read_contents", broken)
    with pytest.raises(ReadError, match=r"ended without a result \(exit status 1\)"):
        load([written(tmp_path)])


def test_the_reader_retires_once_its_memory_has_grown(tmp_path, monkeypatch):
    monkeypatch.setattr(reader_process, "RETIRE_GROWTH", -1)  # every answer is its last
    path = written(tmp_path)
    first = load([path])
    assert reader_process.reader_pid() is None
    second = load([path])
    np.testing.assert_array_equal(first.meshes[0].positions, second.meshes[0].positions)


def test_an_interrupted_read_ends_the_reader(tmp_path, monkeypatch):
    path = written(tmp_path)
    load([path])
    pid = reader_process.reader_pid()

    def interrupted(descriptor, shared):
        raise KeyboardInterrupt
    monkeypatch.setattr(transport, "receive_answer", interrupted)
    with pytest.raises(KeyboardInterrupt):
        load([path])
    assert reader_process.reader_pid() is None and gone(pid)
    monkeypatch.undo()
    assert len(load([path]).meshes) == 1


PARENT = """
import os, signal, sys, threading
from pathlib import Path
from app.loading import load
from app.formats.fbx import reader_process

if sys.argv[2] == "thread":
    reader = threading.Thread(target=load, args=([Path(sys.argv[1])],))
    reader.start()
    reader.join()
else:
    load([Path(sys.argv[1])])
print(reader_process.reader_pid(), flush=True)
if sys.argv[3] == "killed":
    os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.parametrize("forked_from, end", [("main", "exits"), ("main", "killed"), ("thread", "killed"),
                                              ("thread", "exits")])
def test_the_reader_never_outlives_its_parent(forked_from, end):
    """Killed outright, the parent leaves no reader behind: PR_SET_PDEATHSIG where its main thread
    forked it, the request pipe's end where a worker thread did."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", PARENT, str(HUESITOS), forked_from, end], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == (-signal.SIGKILL if end == "killed" else 0), done.stderr
    pid = int(done.stdout.split()[-1])
    assert wait_gone(pid), f"reader {pid} still runs after its parent {end}"


def _child_read(answers) -> None:
    model = load([HUESITOS])
    answers.send((reader_process.reader_pid(), len(model.meshes)))


def test_a_forked_child_reads_with_its_own_reader(tmp_path):
    path = written(tmp_path)
    load([path])
    parent_reader = reader_process.reader_pid()
    receiver, sender = multiprocessing.get_context("fork").Pipe(duplex=False)
    child = multiprocessing.get_context("fork").Process(target=_child_read, args=(sender,))
    child.start()
    child_reader, meshes = receiver.recv()
    child.join(timeout=60)
    assert child.exitcode == 0 and meshes == 1
    assert child_reader not in (None, parent_reader)
    assert wait_gone(child_reader)  # the child's exit ended its own reader
    assert len(load([path]).meshes) == 1 and reader_process.reader_pid() == parent_reader


def test_the_meshes_are_laid_out_before_the_stacks_come(tmp_path):
    seen = []
    contents, made = reader_process.read_isolated(written(tmp_path), lambda partial: seen.append(
        (len(partial.meshes), len(partial.stacks))) or "laid out")
    assert seen == [(1, 0)] and made == "laid out"
    assert [stack.name for stack in contents.stacks] == ["walk", "wave"]


def test_a_crash_while_baking_the_stacks_is_a_read_error(tmp_path, monkeypatch):
    monkeypatch.setattr(extract, "_stacks", lambda *args: os.kill(os.getpid(), signal.SIGSEGV))
    with pytest.raises(ReadError, match=r"crashed on this file \(SIGSEGV\)"):
        load([written(tmp_path)])
    monkeypatch.undo()
    assert [clip.name for clip in load([written(tmp_path)]).clips] == ["walk", "wave"]


def test_a_stack_ufbx_refuses_after_the_meshes_is_a_read_error(tmp_path, monkeypatch):
    def refused(*args):
        raise ValueError("a stack it cannot bake")
    monkeypatch.setattr(extract, "_stacks", refused)
    with pytest.raises(ReadError, match="ufbx cannot read it: a stack it cannot bake"):
        load([written(tmp_path)])


def test_answers_larger_than_the_shared_area_come_through_the_pipe(tmp_path, monkeypatch):
    path = written(tmp_path)
    through_shared = load([path])
    reader_process.stop()
    monkeypatch.setattr(transport, "SHARED_BYTES", 64)  # smaller than any answer's arrays
    through_pipe = load([path])
    for shared, piped in zip(through_shared.meshes, through_pipe.meshes):
        np.testing.assert_array_equal(shared.positions, piped.positions)
        np.testing.assert_array_equal(shared.triangles, piped.triangles)
    assert [clip.name for clip in through_pipe.clips] == ["walk", "wave"]
