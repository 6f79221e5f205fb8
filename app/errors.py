"""The error every user input raises when it cannot be used: a model file, a ragdoll profile.

It names the file, where in it (line or byte offset, or a JSON path inside the message) and what was
expected, so the command line and the window can show it as it is.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class InputError(Exception):
    """A file that cannot be used: the file, where (line or byte offset) and what was expected."""

    def __init__(self, path: str | Path, message: str, *, line: int | None = None,
                 offset: int | None = None):
        self.path = str(path)
        self.message = message
        self.line = line
        self.offset = offset
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.line is not None:
            return f"{self.path}:{self.line}: {self.message}"
        if self.offset is not None:
            return f"{self.path}: at byte {self.offset} (0x{self.offset:x}): {self.message}"
        return f"{self.path}: {self.message}"


class ReadError(InputError):
    """A model or animation file (or an archive holding one) that cannot be read."""


def regular_size(path: str | Path, error: type[InputError] = InputError) -> int:
    """The size of ``path`` if it is a regular file (symlinks followed), else ``error`` saying why.

    Checked with ``stat`` before anything opens the file: opening a FIFO blocks, and a device
    (``/dev/zero``) never ends.
    """
    try:
        status = os.stat(path)
    except OSError as problem:
        raise error(path, f"cannot open: {problem.strerror or problem}") from None
    if not stat.S_ISREG(status.st_mode):
        kind = "a folder" if stat.S_ISDIR(status.st_mode) else (
            "a FIFO" if stat.S_ISFIFO(status.st_mode) else "a device or socket")
        raise error(path, f"not a regular file ({kind})")
    return status.st_size
