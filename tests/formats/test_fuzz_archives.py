"""Seeded byte-mutation fuzzing of the NWN archive readers (a HAK holding a model and its texture, a
KEY with its BIF), models opened as ARCHIVE:RESREF: only ReadError may come out, quickly.

tests/fuzzing.py runs the cases in a watched child process; mutations are test_fuzz_binary's.
"""

from __future__ import annotations

import pytest

from app import loading
from tests import fuzzing
from tests.formats.test_fuzz_binary import mutate  # noqa: F401 - the harness takes it from this module
from tests.formats.test_nwn_mdl import model_tree, walk_animation
from tests.nwn_archive_bytes import bif_bytes, erf_bytes, erf_e1_bytes, key_bytes
from tests.writers.nwn_writer import write_mdl


def originals(reader: str, folder) -> list[dict[str, bytes]]:
    """A HAK alone; a KEY with its BIF; NWN:EE's HAK (E1.0) with zstd and zlib entries."""
    model = write_mdl("c_test", model_tree(), [walk_animation()])
    image = b"\0\0\x02" + bytes(9) + b"\x01\0\x01\0\x20\x08" + bytes(4)  # a 1 × 1 32-bit TGA
    return [{"m.hak": erf_bytes([("c_test", "mdl", model), ("c_test", "tga", image)])},
            {"base.key": key_bytes(["x.bif"], [("c_test", "mdl", 0, 0)]),
             "x.bif": bif_bytes([("mdl", model)])},
            {"ee.hak": erf_e1_bytes([("c_test", "mdl", model, "zstd"), ("c_test", "tga", image, "zlib")])}]


def opened(paths):
    """The model inside the archive: ``ARCHIVE:c_test``."""
    archive = next(path for path in paths if path.suffix in (".hak", ".key"))
    return [f"{archive}:c_test"]


def load(reader: str, paths):
    return loading.load(opened(paths))


@pytest.mark.fuzz
def test_mutated_archives_raise_only_read_error(tmp_path):
    for files in originals("nwn_archive", tmp_path):
        for name, data in files.items():
            (tmp_path / name).write_bytes(data)
        fuzzing.check_poses(load("nwn_archive", [tmp_path / name for name in files]))
    fuzzing.run("nwn_archive", 5, tmp_path)
