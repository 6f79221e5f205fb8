"""A KEY file and the BIF files it indexes (the game's own data: ``nwn_base.key``, ``data/*.bif``).

KEY V1 (little-endian): "KEY V1  ", BIF count, key count, offsets of the file table and the key
table (u32 each), build year and day, 32 reserved bytes (a 64-byte header). File table: per BIF its
size (u32), the offset and length of its name (u32, u16) and a drives mask (u16). Key table: per
resource a resref (16 bytes), a type (u16) and a resource id (u32): the BIF's index in its top 12
bits, the resource's index inside it in the low 20.
BIF V1: "BIFFV1  ", variable resource count, fixed resource count, the variable table's offset (a
20-byte header); the variable table: per resource an id, offset, size and type (u32 each).
KEY E1 / BIF E1 (NWN:EE; neverwinter.nim, neverwinter/key.nim): "KEY E1  " and "BIFFE1  "; a
24-byte id fills the KEY's first 24 reserved bytes and follows the BIF's header (the two must be
equal); each key record ends with a SHA-1 (20 bytes); each BIF record adds a compression type and the
uncompressed size (u32 each; type 1 is a compressed buffer, compressed.py). A KEY's BIFs are of its
version.
BIF names are relative to the KEY's folder, with backslashes; looked up case-insensitively (a name
that is empty, absolute or climbs out with ``..`` is an error: a KEY never reads outside its folder).
"""

from __future__ import annotations

import os
import struct
from dataclasses import replace
from pathlib import Path

from app.formats.nwn.archives.compressed import COMPRESSED_BUF, NOT_COMPRESSED, check_unpacked_size
from app.formats.nwn.archives.entries import Archive, Entry, check_table, resref
from app.formats.nwn.archives.erf import check_entries
from app.formats.nwn.archives.resource_types import extension
from app.errors import ReadError, regular_size

KEY_HEADER = struct.Struct("<8s6I24s8x")
FILE_RECORD = struct.Struct("<2I2H")
KEY_RECORD = struct.Struct("<16sHI")
#: Key record size of each version (E1 adds the resource's SHA-1).
KEY_RECORD_BYTES = {"V1": KEY_RECORD.size, "E1": KEY_RECORD.size + 20}
BIF_HEADER = struct.Struct("<8s3I")
BIF_RECORDS = {"V1": struct.Struct("<4I"), "E1": struct.Struct("<6I")}
OID_BYTES = 24


def read_key(path: Path) -> Archive:
    """The listing of a KEY file, each entry placed in its BIF; a missing BIF is a ReadError."""
    size = regular_size(path, ReadError)
    data = Path(path).read_bytes()
    if len(data) < KEY_HEADER.size:
        raise ReadError(path, f"a KEY header is {KEY_HEADER.size} bytes, the file has {size}", offset=0)
    signature, bif_count, key_count, files_at, keys_at, _, _, oid = KEY_HEADER.unpack_from(data)
    if signature not in (b"KEY V1  ", b"KEY E1  "):
        raise ReadError(path, f"not a KEY V1 or E1 file (signature {signature!r})", offset=0)
    version = signature[4:6].decode()
    key_record = KEY_RECORD_BYTES[version]
    check_table(path, "BIF file table", files_at, bif_count, FILE_RECORD.size, len(data))
    check_table(path, "key table", keys_at, key_count, key_record, len(data))
    bif_paths = [_bif_path(path, data, files_at + index * FILE_RECORD.size) for index in range(bif_count)]
    bifs: dict[int, list[Entry]] = {}
    entries = []
    for index in range(key_count):
        at = keys_at + index * key_record
        raw_name, type_id, resource_id = KEY_RECORD.unpack_from(data, at)
        bif_index, resource_index = resource_id >> 20, resource_id & 0xFFFFF
        if bif_index >= bif_count:
            raise ReadError(path, f"key {index} names BIF {bif_index}; the file lists {bif_count}", offset=at)
        if bif_index not in bifs:
            bifs[bif_index] = read_bif(bif_paths[bif_index], version, oid)
        table = bifs[bif_index]
        if resource_index >= len(table):
            raise ReadError(path, f"key {index} names resource {resource_index} of {bif_paths[bif_index]}, "
                                  f"which holds {len(table)}", offset=at)
        name = resref(raw_name)
        entries.append(replace(table[resource_index], name=name, type=extension(type_id)))
    return Archive(path, "KEY", version, tuple(entries))


def _bif_path(key: Path, data: bytes, at: int) -> Path:
    """The BIF file a file-table record names, found beside the KEY in any case."""
    _, name_at, name_length, _ = FILE_RECORD.unpack_from(data, at)
    if name_at + name_length > len(data):
        raise ReadError(key, f"a BIF name of {name_length} bytes at byte {name_at} passes the file's end",
                        offset=at)
    relative = data[name_at:name_at + name_length].split(b"\0", 1)[0].decode("latin-1").replace("\\", "/")
    parts = relative.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise ReadError(key, f"BIF name {relative!r} leaves the KEY's folder or is empty", offset=name_at)
    folder = key.parent
    for part in parts:
        found = _entry_any_case(folder, part)
        if found is None:
            raise ReadError(key, f"BIF {relative!r} not found beside the KEY ({folder})", offset=at)
        folder = found
    return folder


def _entry_any_case(folder: Path, name: str) -> Path | None:
    if (folder / name).exists():
        return folder / name
    try:
        return next((folder / entry for entry in sorted(os.listdir(folder)) if entry.lower() == name.lower()),
                    None)
    except OSError:
        return None


def read_bif(path: Path, version: str = "V1", oid: bytes = b"") -> list[Entry]:
    """The variable resources of a BIF of ``version`` (V1 or E1, whose id must be ``oid``), named
    ``#INDEX`` by their type until a KEY names them; bounds checked."""
    size = regular_size(path, ReadError)
    record = BIF_RECORDS[version]
    with open(path, "rb") as stream:
        header = stream.read(BIF_HEADER.size + (OID_BYTES if version == "E1" else 0))
        if len(header) < BIF_HEADER.size:
            raise ReadError(path, f"a BIF header is {BIF_HEADER.size} bytes, the file has {size}", offset=0)
        signature, count, _, table_at = BIF_HEADER.unpack_from(header)
        if signature != f"BIFF{version}  ".encode():
            raise ReadError(path, f"not a BIF {version} file, as its KEY is (signature {signature!r})",
                            offset=0)
        if version == "E1" and header[BIF_HEADER.size:] != oid:
            raise ReadError(path, f"the BIF's id {header[BIF_HEADER.size:]!r} is not its KEY's {oid!r}",
                            offset=BIF_HEADER.size)
        check_table(path, "variable resource table", table_at, count, record.size, size)
        stream.seek(table_at)
        table = stream.read(count * record.size)
    entries = [_bif_entry(path, index, record.unpack_from(table, index * record.size),
                          table_at + index * record.size) for index in range(count)]
    check_entries(path, entries, size, table_at, record.size)
    return entries


def _bif_entry(path: Path, index: int, record: tuple[int, ...], record_at: int) -> Entry:
    """A BIF record (id, offset, size, type, and E1's compression type and uncompressed size)."""
    _, offset, stored, type_id, *packing = record
    entry = Entry(f"#{index}", extension(type_id), path, offset, stored)
    if not packing or packing[0] == NOT_COMPRESSED:
        return entry
    if packing[0] != COMPRESSED_BUF:
        raise ReadError(path, f"resource {index}: compression type {packing[0]} unknown (0 none, "
                              "1 compressed buffer)", offset=record_at + 16)
    check_unpacked_size(path, f"resource {index}", packing[1], stored, record_at + 20)
    return replace(entry, compressed=True, unpacked_size=packing[1])
