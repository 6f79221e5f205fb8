"""Writing the user's files whole or not at all (docs/cli.md, "Outputs are the user's files too").

Every output goes to a temporary file beside its target, is flushed to the disk, then renamed over
the target: a reader sees the old bytes or the new, never a mix, and an error, Ctrl+C or a kill leaves
the previous file as it was. The temporary is removed on any failure Python sees; one left by a
process that was killed outright (its process gone) is removed by the next write of that target.
"""

from __future__ import annotations

import contextvars
import os
import re
import stat
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

#: What a path that exists but is not a regular file is, for messages.
_SPECIAL_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                  (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))


#: What a write in this thread asks, once its files are written, before it puts them in place: true
#: means the user gave up the write (``abandoned_when``).
_given_up: contextvars.ContextVar[Callable[[], bool] | None] = contextvars.ContextVar("given_up",
                                                                                     default=None)


class Abandoned(Exception):
    """A write given up (``abandoned_when``) before its files were put in place: they were removed and
    the targets left as they were."""


@contextmanager
def abandoned_when(given_up: Callable[[], bool]) -> Iterator[None]:
    """Within the block, a write of this thread whose ``given_up()`` is true once its files are written
    leaves its targets as they were and raises Abandoned (the window's Cancel of an export running in
    a worker: the writer cannot stop mid-file, but its result need not land)."""
    token = _given_up.set(given_up)
    try:
        yield
    finally:
        _given_up.reset(token)


def special_kind(path: str | Path) -> str | None:
    """What ``path`` is when it exists and is not a regular file (following links): "a FIFO", "a
    folder", …; None for a regular file or a path that does not exist."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    for test, kind in _SPECIAL_KINDS:
        if test(mode):
            return kind
    return None if stat.S_ISREG(mode) else "not a regular file"


def same_file(first: str | Path, second: str | Path) -> bool:
    """Whether two paths name one existing file (links and other names of it included)."""
    try:
        return os.path.samefile(first, second)
    except (OSError, ValueError):
        return False


def temporary_name(target: Path) -> Path:
    """A fresh temporary beside ``target`` with the same suffix (writers such as numpy, PyAV and
    Pillow choose the format by it): ``.walk.<pid>.<8 hex>.partial.mp4``. ``os.urandom`` is what
    ``secrets.token_hex`` reads, without the import of ``secrets`` (and ``hashlib``) at start-up."""
    return target.with_name(f".{target.stem}.{os.getpid()}.{os.urandom(4).hex()}.partial{target.suffix}")


@contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path to write ``path``'s new contents to; when the block ends without an
    error, the temporary is flushed to the disk and renamed over ``path`` (a link's target, when
    ``path`` is a link), keeping the old file's mode. On any error or interruption the temporary is
    removed and ``path`` stays as it was."""
    with replacing_all([path]) as (temporary,):
        yield temporary


@contextmanager
def replacing_all(paths: Sequence[str | Path]) -> Iterator[list[Path]]:
    """``replacing`` for several files that belong together (a frame sequence, a glTF and its
    buffer): each is renamed into place only once every one of them was written."""
    targets = [Path(os.path.realpath(path)) for path in paths]
    _remove_orphans(targets)
    temporaries = [temporary_name(target) for target in targets]
    try:
        yield temporaries
        given_up = _given_up.get()
        if given_up is not None and given_up():
            raise Abandoned(f"the write of {targets[0].name} was given up")
        for temporary, target in zip(temporaries, targets):
            _settle(temporary, target)
        for temporary, target in zip(temporaries, targets):
            os.replace(temporary, target)
        for folder in {target.parent for target in targets}:
            _sync_folder(folder)
    except BaseException:
        for temporary in temporaries:
            _unlink_quietly(temporary)
        raise


def write_atomically(path: str | Path, data: str | bytes) -> None:
    """Replace the file at ``path`` with ``data`` (text is written as UTF-8), whole or not at all."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    with replacing(path) as temporary:
        temporary.write_bytes(payload)


def _settle(temporary: Path, target: Path) -> None:
    """Give the written temporary the target's mode (a new file keeps 0666 less the umask) and flush
    it to the disk."""
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    handle = os.open(temporary, os.O_RDONLY)
    try:
        if mode is not None:
            os.fchmod(handle, mode)
        os.fsync(handle)
    finally:
        os.close(handle)


def _sync_folder(folder: Path) -> None:
    """Flush the rename to the disk where the platform allows opening a folder (not Windows)."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


def _unlink_quietly(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass


#: A temporary's name: the target's stem, the writing process, a random tag, the target's suffix.
_TEMPORARY = re.compile(r"\.(.*)\.(\d+)\.[0-9a-f]{8}\.partial(\.[^.]*)?")


def _remove_orphans(targets: list[Path]) -> None:
    """Remove temporaries of earlier writes of ``targets`` whose process no longer runs (each folder
    is listed once, so a long frame sequence costs one listing)."""
    by_folder: dict[Path, set[tuple[str, str]]] = {}
    for target in targets:
        by_folder.setdefault(target.parent, set()).add((target.stem, target.suffix))
    for folder, names in by_folder.items():
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        for entry in entries:
            match = _TEMPORARY.fullmatch(entry)
            if not match or (match.group(1), match.group(3) or "") not in names:
                continue
            if not _running(int(match.group(2))):
                _unlink_quietly(folder / entry)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return pid < 2 ** 31
    return True
