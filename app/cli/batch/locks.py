"""One batch at a time per report and per OUTDIR: an exclusive lock, taken without waiting, on a
small file beside each (``.report.jsonl.lock``, ``OUTDIR/.index.html.lock``). The lock files are
removed when the batch ends; a batch that finds one held is refused. Where the platform has no
``fcntl`` (Windows) nothing is locked."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None


class InUse(Exception):
    """``path`` is locked by another batch."""

    def __init__(self, path: Path):
        super().__init__(path)
        self.path = path


def lock_file(target: Path) -> Path:
    """The lock file of ``target`` (beside the file a link leads to, so two names of it share one)."""
    real = Path(os.path.realpath(target))
    return real.with_name(f".{real.name}.lock")


@contextmanager
def holding(targets: Sequence[Path]) -> Iterator[None]:
    """Hold the lock of every target until the block ends; InUse for the first another batch holds,
    OSError when a lock file cannot be made."""
    with ExitStack() as stack:
        for target in targets:
            stack.enter_context(_holding(target))
        yield


@contextmanager
def _holding(target: Path) -> Iterator[None]:
    if fcntl is None:
        yield
        return
    path = lock_file(target)
    handle = _locked(path, target)
    try:
        yield
    finally:
        _unlink_quietly(path)  # still held: a batch that opened it before sees it gone and retries
        os.close(handle)


def _locked(path: Path, target: Path) -> int:
    """A descriptor of ``path`` holding its lock. A lock file another batch removed after this one
    opened it is not the lock any more: open the path again."""
    while True:
        handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(handle)
            raise InUse(target) from None
        except BaseException:
            os.close(handle)
            raise
        if _same_file(handle, path):
            return handle
        os.close(handle)


def _same_file(handle: int, path: Path) -> bool:
    try:
        current = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(handle)
    return (held.st_dev, held.st_ino) == (current.st_dev, current.st_ino)


def _unlink_quietly(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass
