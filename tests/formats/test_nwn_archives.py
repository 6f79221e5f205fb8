"""ERF-family archives and KEY/BIF pairs read in place (app/formats/nwn/archives)."""

from __future__ import annotations

import struct

import pytest

from app.formats.nwn.archives import open_archive, split_member
from app.formats.nwn.archives.search import ResourceSearch
from app.formats.registry import ReadError
from tests.nwn_archive_bytes import bif_bytes, erf_bytes, key_bytes


def test_erf_v10_lists_each_resource_with_its_type_and_size(tmp_path):
    path = tmp_path / "mine.hak"
    path.write_bytes(erf_bytes([("c_Dragon", "mdl", b"abc"), ("c_dragon", "tga", b"12345")]))
    archive = open_archive(path)
    assert (archive.kind, archive.version) == ("HAK", "V1.0")
    listed = [(e.name, e.type, e.size) for e in archive.entries]
    assert listed == [("c_dragon", "mdl", 3), ("c_dragon", "tga", 5)]
    # key list 2 × 24 bytes and resource list 2 × 8 after the 160-byte header
    assert archive.entries[0].offset == 160 + 48 + 16
    assert archive.read(archive.find("C_DRAGON", ("tga",))) == b"12345"


def test_erf_v11_has_32_byte_resrefs(tmp_path):
    name = "a_resref_longer_than_sixteen"
    path = tmp_path / "long.erf"
    path.write_bytes(erf_bytes([(name, "plt", b"x" * 7)], kind=b"ERF ", version=b"V1.1"))
    archive = open_archive(path)
    assert (archive.kind, archive.version, archive.entries[0].name) == ("ERF", "V1.1", name)
    assert archive.entries[0].offset == 160 + 40 + 8


def test_key_and_bif_pair(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "Models_01.bif").write_bytes(bif_bytes([("mdl", b"model"), ("tga", b"image!")]))
    key = tmp_path / "nwn_base.key"
    key.write_bytes(key_bytes(["data\\models_01.bif"], [("c_orc", "mdl", 0, 0), ("c_orc", "tga", 0, 1)]))
    archive = open_archive(key)
    assert [(e.name, e.type, e.size) for e in archive.entries] == [("c_orc", "mdl", 5), ("c_orc", "tga", 6)]
    assert archive.read(archive.entries[1]) == b"image!"
    assert archive.entries[1].offset == 20 + 32 + 5


def test_resource_search_prefers_paths_in_order(tmp_path):
    folder = tmp_path / "loose"
    folder.mkdir()
    (folder / "Skin.TGA").write_bytes(b"loose")
    hak = tmp_path / "a.hak"
    hak.write_bytes(erf_bytes([("skin", "tga", b"packed"), ("other", "dds", b"d")]))
    assert ResourceSearch([folder, hak]).find("skin", ("tga",)).data == b"loose"
    assert ResourceSearch([hak, folder]).find("skin", ("tga",)).data == b"packed"
    found = ResourceSearch([hak]).find("other", ("tga", "dds"))
    assert (found.type, found.where) == ("dds", f"{hak}:other.dds")
    assert ResourceSearch([hak]).find("missing", ("tga",)) is None


def test_member_names(tmp_path):
    hak = tmp_path / "m.hak"
    hak.write_bytes(erf_bytes([]))
    assert split_member(f"{hak}:c_dragon") == (hak, "c_dragon")
    assert split_member(f"{hak}/c_dragon.mdl") == (hak, "c_dragon")
    assert split_member(str(tmp_path / "plain.mdl")) is None


def _patched(data: bytes, at: int, fmt: str, value: int) -> bytes:
    return data[:at] + struct.pack(fmt, value) + data[at + struct.calcsize(fmt):]


@pytest.mark.parametrize("damage, expected", [
    (lambda d: d[:100], "ERF header is 160 bytes"),
    (lambda d: _patched(d, 16, "<I", 10 ** 8), "key list: 100000000 entries"),
    (lambda d: _patched(d, 28, "<I", 10 ** 6), "resource list"),
    (lambda d: b"XYZ " + d[4:], "not an ERF-family archive"),
    (lambda d: d[:4] + b"E2.0" + d[8:], "version .E2.0. is not read"),
    (lambda d: _patched(d, 160 + 48 + 4, "<I", 1000), "pass the file's end"),
    (lambda d: _patched(d, 160 + 48 + 8, "<I", 160 + 48 + 16 + 1), "overlap"),
])
def test_malformed_erf_is_one_error_with_an_offset(tmp_path, damage, expected):
    path = tmp_path / "bad.erf"
    path.write_bytes(damage(erf_bytes([("one", "mdl", b"abc"), ("two", "tga", b"defg")], kind=b"ERF ")))
    with pytest.raises(ReadError, match=expected) as caught:
        open_archive(path)
    assert str(path) in str(caught.value)


def test_malformed_key_and_bif(tmp_path):
    (tmp_path / "x.bif").write_bytes(bif_bytes([("mdl", b"m")]))
    key = tmp_path / "k.key"
    key.write_bytes(key_bytes(["x.bif"], [("a", "mdl", 0, 3)]))
    with pytest.raises(ReadError, match="names resource 3 .* which holds 1"):
        open_archive(key)
    key.write_bytes(key_bytes(["x.bif"], [("a", "mdl", 2, 0)]))
    with pytest.raises(ReadError, match="names BIF 2; the file lists 1"):
        open_archive(key)
    for name in ("..\\x.bif", "\\etc\\x.bif", ""):
        key.write_bytes(key_bytes([name], [("a", "mdl", 0, 0)]))
        with pytest.raises(ReadError, match="leaves the KEY's folder or is empty"):
            open_archive(key)
    key.write_bytes(key_bytes(["gone.bif"], [("a", "mdl", 0, 0)]))
    with pytest.raises(ReadError, match="'gone.bif' not found"):
        open_archive(key)
    (tmp_path / "x.bif").write_bytes(_patched(bif_bytes([("mdl", b"m")]), 8, "<I", 10 ** 7))
    key.write_bytes(key_bytes(["x.bif"], [("a", "mdl", 0, 0)]))
    with pytest.raises(ReadError, match="variable resource table") as caught:
        open_archive(key)
    assert "x.bif: at byte 20" in str(caught.value)


def test_rollnw_real_archives():
    from tests.paths import CORPUS

    hak = open_archive(CORPUS / "rollnw" / "hak_with_description.hak")
    assert (hak.kind, [(e.name, e.type, e.size) for e in hak.entries]) == ("HAK", [("build", "txt", 70)])
    assert hak.read(hak.entries[0]).startswith(b"5dba8ecaf3e6eef8")
    module = open_archive(CORPUS / "rollnw" / "transforms.mod")
    assert module.kind == "MOD" and len(module.entries) == 17
    assert module.find("area001", ("are",)).size == 4489
