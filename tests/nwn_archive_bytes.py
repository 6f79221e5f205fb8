"""ERF, KEY and BIF files built byte by byte from BioWare's published layouts (xoreos' and nwn.wiki's
descriptions), independently of the readers under test."""

from __future__ import annotations

import hashlib
import struct
import zlib

#: Resource type ids of the Aurora engine, as the format description lists them.
TYPE_IDS = {"tga": 3, "plt": 6, "mdl": 2002, "wok": 2016, "2da": 2017, "txi": 2022, "dds": 2033,
            "dwk": 2052, "pwk": 2053}


def erf_bytes(resources: list[tuple[str, str, bytes]], kind: bytes = b"HAK ",
              version: bytes = b"V1.0") -> bytes:
    """An ERF-family archive: 160-byte header, key list, resource list, then the data in order."""
    name_size = 16 if version == b"V1.0" else 32
    count = len(resources)
    keys_at = 160
    list_at = keys_at + count * (name_size + 8)
    data_at = list_at + count * 8
    keys = b"".join(name.encode().ljust(name_size, b"\0") + struct.pack("<IHH", index, TYPE_IDS[kind_], 0)
                    for index, (name, kind_, _) in enumerate(resources))
    table, offset = b"", data_at
    for _, _, data in resources:
        table += struct.pack("<II", offset, len(data))
        offset += len(data)
    header = kind + version + struct.pack("<8I", 0, 0, count, 160, keys_at, list_at, 126, 1) + b"\0" * 120
    header = header[:44] + b"\0" * 116
    assert len(header) == 160
    return header + keys + table + b"".join(data for _, _, data in resources)


def bif_bytes(resources: list[tuple[str, bytes]]) -> bytes:
    """A BIF V1 with variable resources (type, data): 20-byte header, 16-byte records, data."""
    table_at = 20
    data_at = table_at + 16 * len(resources)
    records, offset = b"", data_at
    for index, (kind, data) in enumerate(resources):
        records += struct.pack("<4I", index, offset, len(data), TYPE_IDS[kind])
        offset += len(data)
    return b"BIFFV1  " + struct.pack("<3I", len(resources), 0, table_at) + records + \
        b"".join(data for _, data in resources)


def key_bytes(bifs: list[str], keys: list[tuple[str, str, int, int]]) -> bytes:
    """A KEY V1: 64-byte header, file table (12 bytes each), the BIF names, the key table (22 bytes
    each: resref, type, id = bif << 20 | index)."""
    files_at = 64
    names_at = files_at + 12 * len(bifs)
    names = [name.encode() + b"\0" for name in bifs]
    keys_at = names_at + sum(len(name) for name in names)
    table, at = b"", names_at
    for name in names:
        table += struct.pack("<IIHH", 0, at, len(name), 1)
        at += len(name)
    key_table = b"".join(resref.encode().ljust(16, b"\0")
                         + struct.pack("<HI", TYPE_IDS[kind], bif << 20 | index)
                         for resref, kind, bif, index in keys)
    header = b"KEY V1  " + struct.pack("<6I", len(bifs), len(keys), files_at, keys_at, 126, 1) + b"\0" * 32
    return header + table + b"".join(names) + key_table


#: NWN:EE's compression algorithms (neverwinter.nim, compressedbuf.nim).
ALGORITHM_IDS = {"none": 0, "zlib": 1, "zstd": 2}


def compressed_buf(data: bytes, algorithm: str) -> bytes:
    """NWN:EE's CompressedBuf: "XRES", header version 3, algorithm, uncompressed size (u32 each);
    then zlib: stream version 1 and a zlib stream; zstd: version 1, dictionary 0 and a frame."""
    header = b"XRES" + struct.pack("<3I", 3, ALGORITHM_IDS[algorithm], len(data))
    if algorithm == "zlib":
        return header + struct.pack("<I", 1) + zlib.compress(data)
    if algorithm == "zstd":
        import zstandard

        return header + struct.pack("<2I", 1, 0) + zstandard.ZstdCompressor().compress(data)
    return header + data


def erf_e1_bytes(resources: list[tuple[str, str, bytes, str | None]], kind: bytes = b"HAK ") -> bytes:
    """An ERF E1.0: the 160-byte header (a 24-byte id at 44), key records of 44 bytes (resref 16, id,
    type, 2 unused, SHA-1 20), resource records of 16 (offset, stored size, compression type 0 or 1,
    uncompressed size), then the data: a CompressedBuf of each resource with an algorithm."""
    count = len(resources)
    keys_at = 160
    list_at = keys_at + count * 44
    data_at = list_at + count * 16
    stored = [data if algorithm is None else compressed_buf(data, algorithm)
              for _, _, data, algorithm in resources]
    keys = b"".join(name.encode().ljust(16, b"\0") + struct.pack("<IHH", index, TYPE_IDS[kind_], 0)
                    + hashlib.sha1(data).digest()
                    for index, (name, kind_, data, _) in enumerate(resources))
    table, offset = b"", data_at
    for (_, _, data, algorithm), packed in zip(resources, stored):
        table += struct.pack("<4I", offset, len(packed), 0 if algorithm is None else 1, len(data))
        offset += len(packed)
    header = kind + b"E1.0" + struct.pack("<9I", 0, 0, count, 160, keys_at, list_at, 126, 1, 0)
    header += b"0123456789abcdef01234567" + b"\0" * 92
    assert len(header) == 160
    return header + keys + table + b"".join(stored)


OID = b"5f0e0a2b3c4d5e6f7a8b9c0d"


def bif_e1_bytes(resources: list[tuple[str, bytes, str | None]], oid: bytes = OID) -> bytes:
    """A BIF E1: "BIFFE1  ", counts and table offset (44), the 24-byte id, records of 24 bytes (id,
    offset, stored size, type, compression type, uncompressed size), then the data."""
    table_at = 44
    stored = [data if algorithm is None else compressed_buf(data, algorithm)
              for _, data, algorithm in resources]
    records, offset = b"", table_at + 24 * len(resources)
    for index, ((kind, data, algorithm), packed) in enumerate(zip(resources, stored)):
        records += struct.pack("<6I", index, offset, len(packed), TYPE_IDS[kind], algorithm is not None,
                               len(data))
        offset += len(packed)
    return b"BIFFE1  " + struct.pack("<3I", len(resources), 0, table_at) + oid + records + b"".join(stored)


def key_e1_bytes(bifs: list[str], keys: list[tuple[str, str, int, int]], oid: bytes = OID) -> bytes:
    """A KEY E1: KEY V1's layout with "KEY E1  ", the id in the header's first 24 reserved bytes and
    a SHA-1 (20 bytes, here zeros) ending each key record."""
    v1 = key_bytes(bifs, keys)
    keys_at = struct.unpack_from("<I", v1, 20)[0]
    key_table = v1[keys_at:]
    records = b"".join(key_table[at:at + 22] + bytes(20) for at in range(0, len(key_table), 22))
    return b"KEY E1  " + v1[8:32] + oid + bytes(8) + v1[64:keys_at] + records
