"""``boneyard batch``'s folder walk never reads the machine: a link to ``/``, to a folder above the
walk or to /proc is not followed (a warning says so), and a FIFO or socket is never opened."""

from __future__ import annotations

import os
import signal
import socket
from contextlib import contextmanager

import pytest

from app.cli.batch.grouping import find_files, group_files
from tests.cli.test_batch_safety import tiny_models


@contextmanager
def at_most(seconds: int):
    """Fail instead of hanging (a FIFO opened for reading waits for a writer forever)."""
    def too_long(_signum, _frame):
        raise TimeoutError(f"took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_links_to_the_root_above_the_walk_or_proc_are_not_followed(tmp_path):
    lib = tmp_path / "lib"
    tiny_models(lib / "sub", "hero.glb")
    (lib / "sub" / "everything").symlink_to("/")
    (lib / "sub" / "up").symlink_to(tmp_path)
    (lib / "sub" / "again").symlink_to(lib)
    (lib / "sub" / "processes").symlink_to("/proc")
    warnings = []
    with at_most(10):
        found = find_files([lib], warn=warnings.append)
    assert [item.relative for item in found] == ["sub/hero.glb"]
    assert sorted(warnings) == sorted([
        f"{lib / 'sub' / 'again'} leads to {lib}, a folder above {lib}; not followed",
        f"{lib / 'sub' / 'everything'} leads to /, a folder above {lib}; not followed",
        f"{lib / 'sub' / 'processes'} leads to /proc, a system folder; not followed",
        f"{lib / 'sub' / 'up'} leads to {tmp_path}, a folder above {lib}; not followed"])


def test_a_system_folder_given_as_a_path_is_not_searched():
    warnings = []
    with at_most(10):
        assert find_files(["/proc"], warn=warnings.append) == []
    assert warnings == ["/proc is a system folder; not searched"]


def test_a_link_to_a_sibling_folder_is_still_followed(tmp_path):
    tiny_models(tmp_path / "lib" / "models", "hero.glb")
    tiny_models(tmp_path / "shared", "ogre.glb")
    (tmp_path / "lib" / "shared").symlink_to(tmp_path / "shared")
    found = find_files([tmp_path / "lib"])
    assert sorted(item.relative for item in found) == ["models/hero.glb", "shared/ogre.glb"]


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="needs Unix sockets")
def test_fifos_and_sockets_in_a_folder_are_never_opened(tmp_path):
    lib = tmp_path / "lib"
    tiny_models(lib, "hero.glb")
    os.mkfifo(lib / "pipe.dat")
    os.mkfifo(lib / "pipe.glb")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(lib / "socket.glb"))
    try:
        with at_most(10):
            groups = group_files(find_files([lib]))
    finally:
        server.close()
    # with a model's extension each is reported (the worker says "not a regular file"); else left out
    assert [group.relative for group in groups] == ["hero.glb", "pipe.glb", "socket.glb"]
