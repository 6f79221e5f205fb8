"""A file no reader accepts gets the message of the reader its extension or magic names (what that
format needed there), not the list of every format; an extension two readers share, or none, gets
the list."""

from __future__ import annotations

import struct
import subprocess
import sys

import pytest

from app.formats import ReadError
from app.loading import load


def _error(path) -> ReadError:
    with pytest.raises(ReadError) as caught:
        load([path])
    return caught.value


def test_a_c3d_file_that_fits_no_layout_gets_the_c3de_sizes(tmp_path):
    """First ints 1, 1, 1: a 2009 mesh of one vertex needs 8 + 44 = 52 bytes, a 2010 one 12 + 44 = 56;
    the file has 50."""
    path = tmp_path / "Soldier.c3d"
    path.write_bytes(struct.pack("<3i", 1, 1, 1) + bytes(38))
    error = _error(path)
    assert error.offset == 0
    assert "no C3DE mesh or bones layout fits: the file has 50 bytes" in str(error)
    assert "8 + 44·1 = 52 (2009)" in str(error) and "12 + 44·1 = 56 (2010)" in str(error)
    assert "not a recognised" not in str(error)


def test_an_mdl_text_file_gets_the_nwn_ascii_message(tmp_path):
    path = tmp_path / "tile.MDL"
    path.write_text("# a comment\nbeginmodelgeom tile\n")
    error = _error(path)
    assert error.line == 1 and "expected a 'newmodel <name>' line: not an NWN ASCII model" in str(error)


def test_a_binary_mdl_of_another_geometry_type_gets_the_nwn_header_message(tmp_path):
    """Marker 0, a model block of 0xE8 bytes whose geometry type byte (0x6C) is 5 (an animation),
    no raw data: the binary reader names the geometry type it expected."""
    model = bytearray(0xE8)
    model[0x6C] = 5
    path = tmp_path / "c_thing.mdl"
    path.write_bytes(struct.pack("<3I", 0, len(model), 0) + bytes(model))
    error = _error(path)
    assert "geometry type 5 (expected 2, a model)" in str(error) and error.offset == 12 + 0x6C


def test_the_nwn_magic_names_the_reader_whatever_the_extension(tmp_path):
    """Four NUL bytes then a header promising more than the file holds, in a .bin file."""
    path = tmp_path / "model.bin"
    path.write_bytes(struct.pack("<3I", 0, 4000, 0) + bytes(20))
    error = _error(path)
    assert "truncated: the header promises 12 + 4000 + 0 = 4012 bytes, the file has 32" in str(error)


@pytest.mark.parametrize("name", ["notes.txt", "picture.xyz"])
def test_an_extension_naming_several_readers_or_none_gets_the_list(tmp_path, name):
    """.txt is BonesPro's and LGW's: neither reader's message would be the one to show."""
    path = tmp_path / name
    path.write_text("hello\n")
    error = _error(path)
    assert "not a recognised model or animation file (expected one of:" in str(error)
    assert "C3DE" in str(error) and "BonesPro" in str(error)


def test_the_command_line_prints_the_readers_message_and_exits_3(tmp_path):
    path = tmp_path / "Soldier.c3d"
    path.write_bytes(struct.pack("<3i", 1, 1, 1) + bytes(38))
    result = subprocess.run([sys.executable, "-m", "app", "info", str(path)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 3
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "no C3DE mesh or bones layout fits: the file has 50 bytes" in lines[0]
