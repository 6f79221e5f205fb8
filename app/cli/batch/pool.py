"""Worker processes for ``boneyard batch``: each keeps its imports and OpenGL context across models.

A worker is forked from the batch process (so it starts with the readers already imported) when
that process has no other thread, else started afresh (``start_method``), and answers one model at
a time over a pipe. A worker that dies (a crash in a native library) or takes
longer than the timeout on one model is killed and replaced; its model is reported as an error and
the batch goes on.
"""

from __future__ import annotations

import faulthandler
import multiprocessing
import os
import signal
import threading
import time
from argparse import Namespace
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection, wait

from app.cli.batch.jobs import Job, Worker
from app.interrupts import default_signals, kill_when_parent_ends

#: Longest wait between checks on the workers (seconds): the progress line's redraw interval.
POLL_SECONDS = 0.25


def _serve(connection: Connection, args: Namespace, parent: int) -> None:
    """A worker's loop: read a Job, answer its result, until the pipe closes or None comes."""
    _die_with(parent)
    default_signals()  # SIGTERM ends a worker outright: the batch process stops it that way
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the batch process decides when to stop
    faulthandler.disable()  # a crash is one line in the report, not a traceback on the terminal
    worker = Worker(args)
    try:
        while True:
            try:
                job = connection.recv()
            except EOFError:
                return
            if job is None:
                return
            connection.send((job.index, worker.run(job)))
    finally:
        worker.close()


def _die_with(parent: int) -> None:
    """End this worker when the batch process ``parent`` ends, even killed outright (SIGKILL leaves
    it no chance to stop its workers): Linux kills it then; elsewhere a thread watches."""
    if not kill_when_parent_ends():
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # it ended before the request was made
        os._exit(1)


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


class _Process:
    """One worker process, its pipe and the job it is on."""

    def __init__(self, context, args: Namespace):
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, args, os.getpid()), daemon=True)
        self.process.start()
        child.close()
        self.job: Job | None = None
        self.started = 0.0

    def give(self, job: Job) -> None:
        self.job, self.started = job, time.monotonic()
        self.connection.send(job)

    def kill(self) -> None:
        if self.process.is_alive():
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.join()
        self.connection.close()

    def stop(self) -> None:
        try:
            self.connection.send(None)
        except OSError:
            pass
        self.process.join(timeout=5)
        self.kill()


def start_method() -> str:
    """'fork' when this process runs one thread, else 'spawn': a fork copies the locks other threads
    hold (an OpenGL driver's, Qt's) but not the threads, and a worker that needs one waits forever."""
    try:
        threads = len(os.listdir("/proc/self/task"))
    except OSError:
        threads = threading.active_count()
    return "fork" if threads == 1 else "spawn"


def run_jobs(jobs: list[Job], args: Namespace, workers: int, timeout: float | None,
             tick: Callable[[], None] = lambda: None) -> Iterator[tuple[Job, dict]]:
    """Each job with its result, as they finish, on ``workers`` processes. ``tick`` is called at least
    every POLL_SECONDS (to redraw progress)."""
    context = multiprocessing.get_context(start_method())
    pending = list(reversed(jobs))
    processes = [_Process(context, args) for _ in range(max(1, min(workers, len(jobs))))]
    try:
        while pending or any(p.job for p in processes):
            for process in processes:
                if process.job is None and pending:
                    process.give(pending.pop())
            busy = [p for p in processes if p.job is not None]
            ready = wait([p.connection for p in busy] + [p.process.sentinel for p in busy], POLL_SECONDS)
            tick()
            for index, process in enumerate(processes):
                if process.job is None:
                    continue
                failure = None
                if process.connection in ready:
                    try:
                        _, result = process.connection.recv()
                    except (EOFError, OSError):
                        failure = _death(process)
                    else:
                        job, process.job = process.job, None
                        yield job, result
                        continue
                elif process.process.sentinel in ready:
                    failure = _death(process)
                elif timeout is not None and time.monotonic() - process.started > timeout:
                    failure = f"no result after {timeout:g} s (--timeout); its worker was stopped"
                if failure is not None:
                    job, seconds = process.job, time.monotonic() - process.started
                    process.kill()
                    processes[index] = _Process(context, args)
                    yield job, failed(job, failure, seconds)
    finally:  # after the last result, or Ctrl+C: a worker still on a model is not waited for
        for process in processes:
            if process.job is not None:
                process.kill()
            else:
                process.stop()


def _death(process: _Process) -> str:
    process.process.join(timeout=1)
    code = process.process.exitcode
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"its worker crashed ({name}); the worker was replaced"
    return f"its worker ended (exit status {code}); the worker was replaced"


def failed(job: Job, message: str, seconds: float = 0.0) -> dict:
    """The result of a job whose worker gave none."""
    return {"status": "error", "error": message, "warnings": [], "files": list(job.paths),
            "vertices": None, "bones": None, "clips": None, "clip_names": [], "seconds": round(seconds, 4)}
