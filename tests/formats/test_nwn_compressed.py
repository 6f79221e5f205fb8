"""NWN:EE's compressed archives: ERF E1.0 and KEY/BIF E1 with zlib and zstd entries
(app/formats/nwn/archives/compressed.py), built from neverwinter.nim's layout in tests/nwn_archive_bytes."""

from __future__ import annotations

import struct
import zlib

import pytest

from app import loading
from app.formats.nwn.archives import open_archive
from app.formats.registry import ReadError
from tests.formats.test_nwn_mdl import model_tree, walk_animation
from tests.nwn_archive_bytes import bif_e1_bytes, compressed_buf, erf_e1_bytes, key_e1_bytes
from tests.writers.nwn_writer import write_mdl

MODEL = b"newmodel c_orc\n" + bytes(range(256)) * 40
IMAGE = b"\x07" * 3000


def _erf(tmp_path, resources, name="ee.hak"):
    path = tmp_path / name
    path.write_bytes(erf_e1_bytes(resources))
    return path


def test_erf_e1_reads_zlib_zstd_and_stored_entries(tmp_path):
    path = _erf(tmp_path, [("c_orc", "mdl", MODEL, "zstd"), ("c_orc", "tga", IMAGE, "zlib"),
                           ("plain", "txi", b"mipmap 0", None), ("raw", "2da", b"2DA V2.0", "none")])
    archive = open_archive(path)
    assert (archive.kind, archive.version) == ("HAK", "E1.0")
    assert [(e.name, e.type, e.compressed) for e in archive.entries] == [
        ("c_orc", "mdl", True), ("c_orc", "tga", True), ("plain", "txi", False), ("raw", "2da", True)]
    # key list 4 × 44 and resource list 4 × 16 after the 160-byte header
    assert archive.entries[0].offset == 160 + 176 + 64
    assert archive.entries[1].size == 16 + 4 + len(zlib.compress(IMAGE))
    assert [archive.read(e) for e in archive.entries] == [MODEL, IMAGE, b"mipmap 0", b"2DA V2.0"]
    # the first bytes (Open Archive's model kinds): of the unpacked resource, not of the stored buffer
    assert [archive.read(e, limit=9) for e in archive.entries] == [MODEL[:9], IMAGE[:9], b"mipmap 0",
                                                                    b"2DA V2.0"]


def test_key_and_bif_e1_with_compressed_entries(tmp_path):
    (tmp_path / "ee.bif").write_bytes(bif_e1_bytes([("mdl", MODEL, "zstd"), ("tga", IMAGE, None)]))
    key = tmp_path / "nwn_base.key"
    key.write_bytes(key_e1_bytes(["ee.bif"], [("c_orc", "mdl", 0, 0), ("c_orc", "tga", 0, 1)]))
    archive = open_archive(key)
    assert (archive.kind, archive.version) == ("KEY", "E1")
    assert [archive.read(e) for e in archive.entries] == [MODEL, IMAGE]
    assert archive.entries[1].offset == 44 + 48 + len(compressed_buf(MODEL, "zstd"))


def test_bif_e1_must_carry_its_keys_id_and_version(tmp_path):
    key = tmp_path / "k.key"
    key.write_bytes(key_e1_bytes(["x.bif"], [("a", "mdl", 0, 0)]))
    (tmp_path / "x.bif").write_bytes(bif_e1_bytes([("mdl", b"m", None)], oid=b"x" * 24))
    with pytest.raises(ReadError, match="x.bif: at byte 20 .*id .* is not its KEY's"):
        open_archive(key)
    (tmp_path / "x.bif").write_bytes(b"BIFFV1  " + struct.pack("<3I", 0, 0, 20))
    with pytest.raises(ReadError, match="not a BIF E1 file"):
        open_archive(key)


def _resource_record(data: bytes, index: int = 0) -> int:
    """Where an E1.0 file's resource record ``index`` lies (offset read from the header)."""
    return struct.unpack_from("<I", data, 28)[0] + 16 * index


def _patched(data: bytes, at: int, value: int) -> bytes:
    return data[:at] + struct.pack("<I", value) + data[at + 4:]


def _one(algorithm="zlib", payload=IMAGE):
    return erf_e1_bytes([("c_orc", "tga", payload, algorithm)])


def _data_at(data: bytes) -> int:
    return struct.unpack_from("<I", data, _resource_record(data))[0]


@pytest.mark.parametrize("damage, expected, where", [
    (lambda d: d[:_data_at(d)] + b"ZRES" + d[_data_at(d) + 4:], "not a compressed buffer", _data_at),
    (lambda d: _patched(d, _data_at(d) + 4, 2), "buffer version 2", lambda d: _data_at(d) + 4),
    (lambda d: _patched(d, _data_at(d) + 8, 7), "algorithm 7 unknown", lambda d: _data_at(d) + 8),
    (lambda d: _patched(d, _data_at(d) + 12, 5), "holds 5 bytes uncompressed, the archive's table says 3000",
     lambda d: _data_at(d) + 12),
    (lambda d: _patched(d, _data_at(d) + 16, 9), "zlib stream version 9", lambda d: _data_at(d) + 16),
    (lambda d: d[:_data_at(d) + 20] + b"not zlib at all" + d[_data_at(d) + 35:], "zlib stream broken",
     lambda d: _data_at(d) + 20),
])
def test_hostile_compressed_buffers_are_one_error_with_an_offset(tmp_path, damage, expected, where):
    original = _one()
    path = tmp_path / "bad.hak"
    path.write_bytes(damage(original))
    archive = open_archive(path)
    with pytest.raises(ReadError, match=expected) as caught:
        archive.read(archive.entries[0])
    assert f"{path}: at byte {where(original)} " in str(caught.value)


@pytest.mark.parametrize("algorithm", ["zlib", "zstd"])
def test_truncated_and_lying_streams(tmp_path, algorithm):
    original = _one(algorithm, MODEL)
    record, data_at = _resource_record(original), _data_at(original)
    stored = struct.unpack_from("<I", original, record + 4)[0]
    # the stream cut in half (the table's stored size follows, so the file is consistent)
    cut = _patched(original[:data_at + stored // 2], record + 4, stored // 2)
    # both sizes say one byte fewer than the stream gives
    size = len(MODEL)
    fewer = _patched(_patched(original, record + 12, size - 1), data_at + 12, size - 1)
    for name, data, expected in (("cut", cut, f"gives \\d+ bytes, {size} declared|stream broken"),
                                 ("fewer", fewer, f"gives more than {size - 1} bytes, {size - 1} declared")):
        path = tmp_path / f"{name}.hak"
        path.write_bytes(data)
        archive = open_archive(path)
        with pytest.raises(ReadError, match=expected):
            archive.read(archive.entries[0])


def test_declared_sizes_are_bounded_before_anything_is_inflated(tmp_path):
    original = _one("zstd", bytes(2 * 1024 * 1024))
    record = _resource_record(original)
    stored = struct.unpack_from("<I", original, record + 4)[0]
    assert 2 * 1024 * 1024 > 1024 * stored  # a real zstd frame of zeros packs past 1024:1
    path = tmp_path / "bomb.hak"
    path.write_bytes(original)
    with pytest.raises(ReadError, match=f"2097152 bytes declared from {stored} stored") as caught:
        open_archive(path)
    assert f"at byte {record + 12} " in str(caught.value)
    path.write_bytes(_patched(_one(), record + 12, 2 ** 31))
    with pytest.raises(ReadError, match="passes the 268435456 read for a resource"):
        open_archive(path)
    path.write_bytes(_patched(_one(), record + 8, 4))
    with pytest.raises(ReadError, match="compression type 4 unknown") as caught:
        open_archive(path)
    assert f"at byte {record + 8} " in str(caught.value)


def test_small_all_zero_resources_pass_the_ratio_cap(tmp_path):
    path = _erf(tmp_path, [("blank", "tga", bytes(1024 * 1024), "zstd")])
    archive = open_archive(path)
    assert archive.read(archive.entries[0]) == bytes(1024 * 1024)


def test_a_model_opens_from_a_compressed_hak(tmp_path):
    model = write_mdl("c_test", model_tree(), [walk_animation()])
    (tmp_path / "loose.mdl").write_bytes(model)
    path = _erf(tmp_path, [("c_test", "mdl", model, "zstd")])
    packed, loose = loading.load([f"{path}:c_test"]), loading.load([tmp_path / "loose.mdl"])
    assert list(packed.skeleton.names) == list(loose.skeleton.names)
    assert len(packed.meshes) == len(loose.meshes) > 0
    assert packed.clips[0].name == loose.clips[0].name


def test_info_gives_uncompressed_and_stored_sizes(tmp_path):
    from app.cli.archive_info import archive_facts

    path = _erf(tmp_path, [("c_orc", "tga", IMAGE, "zlib"), ("plain", "txi", b"mipmap 0", None)])
    facts = archive_facts(open_archive(path))["archive"]
    assert facts["version"] == "E1.0"
    assert facts["resources"] == [
        {"name": "c_orc", "type": "tga", "size": 3000, "stored_size": 20 + len(zlib.compress(IMAGE))},
        {"name": "plain", "type": "txi", "size": 8}]


def test_bif_e1_records_are_checked_like_the_erfs(tmp_path):
    key = tmp_path / "k.key"
    key.write_bytes(key_e1_bytes(["x.bif"], [("a", "mdl", 0, 0)]))
    bif = bif_e1_bytes([("mdl", bytes(3 * 1024 * 1024), "zstd")])
    stored = struct.unpack_from("<I", bif, 44 + 8)[0]
    (tmp_path / "x.bif").write_bytes(bif)
    with pytest.raises(ReadError, match=f"resource 0: 3145728 bytes declared from {stored} stored") as caught:
        open_archive(key)
    assert "x.bif: at byte 64 " in str(caught.value)  # the record's uncompressed size, 44 + 20
    (tmp_path / "x.bif").write_bytes(bif[:44 + 16] + struct.pack("<I", 2) + bif[44 + 20:])
    with pytest.raises(ReadError, match="compression type 2 unknown"):
        open_archive(key)


def test_zstandard_is_imported_only_when_a_zstd_entry_is_read():
    import subprocess
    import sys

    code = ("import sys; from app.formats.nwn.archives import open_archive, erf, key_bif, compressed; "
            "print('zstandard' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
