"""The error every user input raises when it cannot be used: a model file, a ragdoll profile.

It names the file, where in it (line or byte offset, or a JSON path inside the message) and what was
expected, so the command line and the window can show it as it is.
"""

from __future__ import annotations

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
