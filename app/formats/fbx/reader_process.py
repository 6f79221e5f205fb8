"""Reading FBX files in a reader process, forked on the first read and reused, so that a crash in the
ufbx bindings (extract.py's module doc) ends that process, never the window or the command line, and
a read costs no fork (docs/formats/fbx.md, "Safety" and "Speed").

The reader process answers one read at a time (a lock in this process): it is sent a file's path,
reads the file and answers twice, the contents without their animation stacks, then the stacks once
ufbx has baked them (or ufbx's refusal instead), so that this process can lay the meshes out in the
meantime (transport.py: how answers travel). It keeps every ufbx object it made, since the bindings
crash freeing some; it never frees them and ends with ``os._exit``.

- A crash ends the reader process: the read raises ``ReaderCrash`` naming the signal and the next
  read forks a new one. So does an interrupted read (Ctrl+C, a timer's exception): the process is
  killed, since its answer can no longer be told from the next one's.
- The objects it keeps grow with every file: once its peak memory has grown by ``RETIRE_GROWTH``, its
  answer says it is its last, it ends, and the next read forks a fresh one.
- It ends with this process: at exit (``atexit`` kills it), and when this process
  is killed outright: Linux's PR_SET_PDEATHSIG (only where the main thread forks it, since the
  signal follows the forking thread, and the window reads on worker threads), and the end of its
  request pipe, which it waits on between reads. A process forked from this one (a batch worker)
  forgets it and forks its own (``os.register_at_fork``).

Without ``fork`` (Windows) the file is read in this process and its ufbx objects are kept until the
process ends, whose teardown may then crash (not tried there).
"""

from __future__ import annotations

import atexit
import faulthandler
import gc
import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path

try:
    import resource
except ImportError:  # Windows: no fork, so no reader process to measure
    resource = None

from app.formats.fbx import transport
from app.formats.fbx.contents import FbxContents
from app.formats.fbx.extract import ExtractError, read_contents
from app.interrupts import default_signals, kill_when_parent_ends

#: Peak memory growth (bytes) after which the reader process retires (module doc): Samba Dancing.fbx
#: (3.3 MB) keeps about 14.5 MB, so about 17 such reads.
RETIRE_GROWTH = 256 * 2 ** 20
#: Longest wait for a read under way when the reader process is stopped (seconds).
STOP_WAIT = 5.0
#: ru_maxrss's unit in bytes: kilobytes on Linux, bytes on macOS.
MAXRSS_UNIT = 1 if sys.platform == "darwin" else 1024

#: ufbx objects of files read in this process where there is no fork, kept to the end.
_KEPT: list = []


class ReaderCrash(Exception):
    """The reader process died on the file; the message says how."""


def read_isolated(path: Path, meanwhile: Callable[[FbxContents], object] = lambda contents: None
                  ) -> tuple[FbxContents, object]:
    """The file's contents, read in the reader process where the system can fork, and what
    ``meanwhile`` makes of them before their animation stacks are baked (the stacks still empty),
    worked out here while the reader process bakes them. ExtractError when ufbx refuses the file,
    ReaderCrash when reading it crashed."""
    if not hasattr(os, "fork"):
        contents = read_contents(path, _KEPT)
        return contents, meanwhile(contents)
    with _state.lock:
        if _state.reader is None:
            _state.reader = _ReaderProcess()
        reader = _state.reader
        try:
            outcome, payload, last = reader.read(path, meanwhile)
        except BaseException:
            _state.reader = None
            reader.kill()
            raise
        if last:
            _state.reader = None
            reader.reap()
    if outcome == "error":
        raise ExtractError(payload)
    return payload


def reader_pid() -> int | None:
    """The reader process's id, None before the first read and after one ended (tests, diagnostics)."""
    reader = _state.reader
    return reader.pid if reader is not None else None


def stop() -> None:
    """Kill the reader process, if there is one (at exit; tests). A read under way in another thread
    then ends in ReaderCrash."""
    if _state.lock.acquire(timeout=STOP_WAIT):
        try:
            reader, _state.reader = _state.reader, None
            if reader is not None:
                reader.kill()
        finally:
            _state.lock.release()
    elif _state.reader is not None:
        _state.reader.signal(signal.SIGKILL)  # the reading thread reaps it


class _State:
    """This process's reader process (None until the first read) and the lock around reads."""

    def __init__(self):
        self.reader: _ReaderProcess | None = None
        self.lock = threading.Lock()

    def forget(self) -> None:
        """In a forked child: the reader process is the parent's; let go of what leads to it."""
        if self.reader is not None:
            self.reader.release_descriptors()
            self.reader.shared.close()
        self.reader, self.lock = None, threading.Lock()


_state = _State()
atexit.register(stop)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_state.forget)


class _ReaderProcess:
    """A forked reader process and the two pipes to it."""

    def __init__(self):
        request_read, self.requests = os.pipe()
        self.answers, answer_write = os.pipe()
        transport.grow(answer_write)
        self.shared = transport.shared_area()
        parent, from_main = os.getpid(), threading.current_thread() is threading.main_thread()
        self.pid = os.fork()
        if self.pid == 0:
            status = 1
            try:
                _serve(request_read, answer_write, self.shared, parent, from_main)
                status = 0
            finally:
                os._exit(status)
        self.reaped = False
        os.close(request_read)
        os.close(answer_write)

    def read(self, path: Path, meanwhile) -> tuple[str, object, bool]:
        """('contents', (FbxContents, what ``meanwhile`` made), last) or ('error', message, last);
        ReaderCrash when the process ends instead of answering. The reader process answers the
        contents without stacks first ('meshes'), then the stacks ('stacks')."""
        try:
            transport.write_frame(self.requests, os.fsencode(str(path)))
            answer = transport.receive_answer(self.answers, self.shared)
            if answer is not None and answer[0] == "meshes":
                contents = answer[1]
                made = meanwhile(contents)
                answer = transport.receive_answer(self.answers, self.shared)
                if answer is not None and answer[0] == "stacks":
                    contents.stacks = answer[1]
                    answer = ("contents", (contents, made), answer[2])
        except BrokenPipeError:
            answer = None
        if answer is None:
            raise ReaderCrash(_death_words(self.reap()))
        return answer

    def signal(self, signum: int) -> None:
        if not self.reaped:
            os.kill(self.pid, signum)

    def reap(self) -> int:
        """Close the pipes (the process ends when its request pipe does) and wait for the process;
        its wait status."""
        self.release_descriptors()
        self.shared.close()
        status = 0
        if not self.reaped:
            _, status = os.waitpid(self.pid, 0)
            self.reaped = True
        return status

    def release_descriptors(self) -> None:
        for descriptor in (self.requests, self.answers):
            try:
                os.close(descriptor)
            except OSError:
                pass

    def kill(self) -> None:
        self.signal(signal.SIGKILL)
        self.reap()


def _death_words(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"the FBX reader crashed on this file ({signal.Signals(os.WTERMSIG(status)).name})"
    return f"the FBX reader ended without a result (exit status {os.WEXITSTATUS(status)})"


def _serve(requests: int, answers: int, shared, parent: int, from_main: bool) -> None:
    """The reader process's loop: a path in, its answer out, until the request pipe ends."""
    if from_main:
        kill_when_parent_ends()
    if os.getppid() != parent:  # the parent ended before the signal was asked for
        return
    default_signals()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C reaches the whole group: the parent decides
    faulthandler.disable()  # a crash is one ReadError line, not a traceback on the terminal
    gc.freeze()  # what it inherited is never collected, so no finalizer closes a reused descriptor
    _close_descriptors_but(requests, answers)
    kept: list = []
    start = _peak_memory()
    while True:
        request = transport.read_frame(requests)
        if request is None:
            return
        ends = [0]  # where the next answer may start in the shared area

        def meshes_read(contents: FbxContents) -> None:
            ends.append(transport.send_answer(answers, shared, ("meshes", contents, False)))
        try:
            outcome = ("stacks", read_contents(Path(os.fsdecode(bytes(request))), kept, meshes_read).stacks)
        except ExtractError as error:
            outcome = ("error", str(error))
        last = _peak_memory() - start > RETIRE_GROWTH
        transport.send_answer(answers, shared, (*outcome, last), ends[-1])
        if last:
            return


def _peak_memory() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * MAXRSS_UNIT


def _close_descriptors_but(*kept: int) -> None:
    """Close what the reader process inherited (pipes of other children among them, whose ends it
    would otherwise hold open), keeping the standard streams and ``kept``."""
    low = 3
    for descriptor in sorted(kept):
        os.closerange(low, descriptor)
        low = descriptor + 1
    os.closerange(low, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 4096)
