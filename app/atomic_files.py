"""Writing a file atomically: a reader sees the old bytes or the new, never a mix, and a save that was
killed midway leaves the old file (its temporary is removed by the next save)."""

from __future__ import annotations

import os
import re
import secrets
import stat
from pathlib import Path


def write_atomically(path: Path, text: str) -> None:
    """Replace the file at ``path`` (a symlink's target, when ``path`` is a link) with ``text``, so a
    reader sees the old bytes or the new, never a mix; the file keeps its mode (a new file gets 0666
    less the umask). The bytes go to a temporary file beside the target, renamed over it once
    complete; it is removed on any failure Python sees, and one left by a save that was killed
    (its process gone) is removed by the next save."""
    target = Path(os.path.realpath(path))
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    _remove_orphans(target)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        handle = os.open(temporary, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
        try:
            if mode is not None:
                os.fchmod(handle, mode)
            view = memoryview(text.encode("utf-8"))
            while view:
                view = view[os.write(handle, view):]
            os.fsync(handle)
        finally:
            os.close(handle)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _remove_orphans(target: Path) -> None:
    """Remove temporaries of earlier saves of ``target`` whose process no longer runs."""
    pattern = re.compile(rf"\.{re.escape(target.name)}\.(\d+)\.[0-9a-f]{{8}}\.tmp")
    try:
        names = os.listdir(target.parent)
    except OSError:
        return
    for name in names:
        match = pattern.fullmatch(name)
        if match and not _running(int(match.group(1))):
            (target.parent / name).unlink(missing_ok=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return pid < 2 ** 31
    return True
