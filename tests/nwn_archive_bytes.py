"""ERF, KEY and BIF files built byte by byte from BioWare's published layouts (xoreos' and nwn.wiki's
descriptions), independently of the readers under test."""

from __future__ import annotations

import struct

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
