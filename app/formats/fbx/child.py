"""Reading an FBX file in a forked child process, so that a crash in the ufbx bindings (extract.py's
module doc) ends the child, never the window or the command line.

The child reads the file, sends the contents back pickled through a pipe and ends with ``os._exit``:
no ufbx object is ever freed (the bindings crash freeing some) and no interpreter teardown runs. A
fork costs a few milliseconds where starting a new interpreter with numpy and ufbx costs a quarter
of a second, more than reading the file (docs/formats/fbx.md, "Safety"). Where there is no fork
(Windows), the file is read in this process and its ufbx objects are kept until the process ends
(whose teardown may then crash: not tried there).
"""

from __future__ import annotations

import os
import pickle
import signal
from pathlib import Path

from app.formats.fbx.contents import FbxContents
from app.formats.fbx.extract import ExtractError, read_contents

#: ufbx objects of files read in this process (no fork), kept to the end (extract.py's module doc).
_KEPT: list = []


class ChildCrash(Exception):
    """The child reading the file died; the message says how."""


def read_isolated(path: Path) -> FbxContents:
    """The file's contents, read in a child process where the system can fork. ExtractError when
    ufbx refuses the file, ChildCrash when reading it crashed."""
    if not hasattr(os, "fork"):
        return read_contents(path, _KEPT)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        _child(path, write_end)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        raise ChildCrash(f"the FBX reader crashed on this file ({signal.Signals(os.WTERMSIG(status)).name})")
    if not data or os.WEXITSTATUS(status):
        raise ChildCrash(f"the FBX reader ended without a result (exit status {os.WEXITSTATUS(status)})")
    outcome, payload = pickle.loads(data)
    if outcome == "error":
        raise ExtractError(payload)
    return payload


def _child(path: Path, write_end: int) -> None:
    """In the child: read, send ('contents', FbxContents) or ('error', message), and end at once."""
    status, kept = 1, []
    try:
        try:
            result = ("contents", read_contents(path, kept))
        except ExtractError as error:
            result = ("error", str(error))
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
        status = 0
    finally:
        os._exit(status)
