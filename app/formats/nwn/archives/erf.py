"""ERF-family archives (``.erf .hak .mod .nwm .sav``), versions V1.0, V1.1 and NWN:EE's E1.0.

Layout (BioWare's "ERF" description, as xoreos and rollnw read it; little-endian):
a 160-byte header — file type and version (4 characters each), language count, localised string
size, entry count, offsets of the localised strings, the key list and the resource list (u32 each),
build year and day, description string reference, 116 reserved bytes —; the key list, one record
per entry (resref: 16 bytes in V1.0, 32 in V1.1; resource id u32; resource type u16; 2 unused);
the resource list, one (offset u32, size u32) per entry, in key-list order. Every table and every
resource is checked against the file's size before it is read, and resources may not overlap.
E1.0 (neverwinter.nim, neverwinter/erf.nim): 16-byte resrefs, a SHA-1 (20 bytes) ending each key
record, and per resource (offset, stored size, compression type, uncompressed size) — type 1 is a
compressed buffer (compressed.py); its header's reserved bytes start with a 24-byte id.
"""

from __future__ import annotations

import struct
from pathlib import Path

from app.formats.nwn.archives.compressed import COMPRESSED_BUF, NOT_COMPRESSED, check_unpacked_size
from app.formats.nwn.archives.entries import Archive, Entry, check_table, resref
from app.formats.nwn.archives.resource_types import extension
from app.errors import ReadError, regular_size

KINDS = ("ERF ", "HAK ", "MOD ", "NWM ", "SAV ")
HEADER = struct.Struct("<4s4s8I")
HEADER_SIZE = 160
#: Resref length of each version.
RESREF_BYTES = {"V1.0": 16, "V1.1": 32, "E1.0": 16}
#: Bytes after the resref in a key record: id u32, type u16, 2 unused (and E1.0's SHA-1).
KEY_TAIL_BYTES = {"V1.0": 8, "V1.1": 8, "E1.0": 28}
RESOURCE = struct.Struct("<2I")
COMPRESSED_RESOURCE = struct.Struct("<4I")


def looks_like_erf(head: bytes) -> bool:
    """Whether the first 8 bytes are an ERF-family signature of any version."""
    return head[:4].decode("latin-1") in KINDS and head[4:5] in (b"V", b"E")


def read_erf(path: Path) -> Archive:
    """The listing of an ERF-family archive; a ReadError with the byte offset when it is malformed."""
    size = regular_size(path, ReadError)
    with open(path, "rb") as stream:
        header = stream.read(HEADER_SIZE)
        if len(header) < HEADER_SIZE:
            raise ReadError(path, f"an ERF header is {HEADER_SIZE} bytes, the file has {size}", offset=0)
        kind, version, _, _, count, _, keys_at, resources_at = HEADER.unpack_from(header)[:8]
        kind, version = kind.decode("latin-1"), version.decode("latin-1")
        if kind not in KINDS:
            raise ReadError(path, f"not an ERF-family archive (signature {kind!r})", offset=0)
        if version not in RESREF_BYTES:
            raise ReadError(path, f"ERF version {version!r} is not read (V1.0, V1.1 and E1.0 are)",
                            offset=4)
        key_record = RESREF_BYTES[version] + KEY_TAIL_BYTES[version]
        resource = COMPRESSED_RESOURCE if version == "E1.0" else RESOURCE
        check_table(path, "key list", keys_at, count, key_record, size)
        check_table(path, "resource list", resources_at, count, resource.size, size)
        stream.seek(keys_at)
        keys = stream.read(count * key_record)
        stream.seek(resources_at)
        resources = stream.read(count * resource.size)
    name_bytes = RESREF_BYTES[version]
    entries = []
    for index in range(count):
        key = keys[index * key_record:(index + 1) * key_record]
        type_id = struct.unpack_from("<H", key, name_bytes + 4)[0]
        record_at = resources_at + index * resource.size
        entry = _entry(path, resref(key[:name_bytes]), extension(type_id),
                       resource.unpack_from(resources, index * resource.size), record_at)
        entries.append(entry)
    check_entries(path, entries, size, resources_at, resource.size)
    return Archive(path, kind.strip(), version, tuple(entries))


def _entry(path: Path, name: str, kind: str, record: tuple[int, ...], record_at: int) -> Entry:
    """An entry from its resource-list record: (offset, size), or E1.0's (offset, stored size,
    compression type, uncompressed size), whose type and declared size are checked here."""
    if len(record) == 2:
        return Entry(name, kind, path, *record)
    offset, stored, compression, unpacked = record
    if compression not in (NOT_COMPRESSED, COMPRESSED_BUF):
        raise ReadError(path, f"resource {name}.{kind}: compression type {compression} unknown (0 none, "
                              "1 compressed buffer)", offset=record_at + 8)
    if compression == NOT_COMPRESSED:
        return Entry(name, kind, path, offset, stored)
    check_unpacked_size(path, f"resource {name}.{kind}", unpacked, stored, record_at + 12)
    return Entry(name, kind, path, offset, stored, compressed=True, unpacked_size=unpacked)


def check_entries(path: Path, entries: list[Entry], size: int, table_at: int,
                  record: int = RESOURCE.size) -> None:
    """Every resource inside the file and none overlapping another (a ReadError naming both);
    ``table_at`` and ``record``: where each entry's record lies, for the error's offset."""
    for index, entry in enumerate(entries):
        if entry.offset + entry.size > size:
            raise ReadError(path, f"resource {index} ({entry.name}.{entry.type}): {entry.size} bytes at "
                                  f"byte {entry.offset} pass the file's end at byte {size}",
                            offset=table_at + index * record)
    placed = sorted((entry for entry in entries if entry.size), key=lambda entry: entry.offset)
    for before, after in zip(placed, placed[1:]):
        if after.offset < before.offset + before.size:
            raise ReadError(path, f"resources {before.name}.{before.type} (bytes {before.offset}.."
                                  f"{before.offset + before.size}) and {after.name}.{after.type} (from byte "
                                  f"{after.offset}) overlap", offset=after.offset)
