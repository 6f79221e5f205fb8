"""NWN:EE's compressed resources: the ``CompressedBuf`` an ERF ``E1.0`` or a BIF ``E1`` entry holds
when its compression type is 1 (docs/formats/erf-key-bif.md, "NWN:EE's compressed forms").

Layout (neverwinter.nim, neverwinter/compressedbuf.nim and exo.nim; little-endian u32 fields): magic
``XRES``, header version 3, algorithm (0 none, 1 zlib, 2 zstd), uncompressed size; then for zlib a
stream version (1) and a zlib stream; for zstd a stream version (1), a dictionary id (0) and one zstd
frame; for none the bytes as they are. Output is produced in bounded steps, never past the size the
archive declared, so a hostile stream cannot grow memory beyond that size.
"""

from __future__ import annotations

import struct
import zlib
from io import BytesIO

from app.errors import ReadError

#: The entry's compression type in the archive's table (exo.nim's ExoResFileCompressionType).
NOT_COMPRESSED, COMPRESSED_BUF = 0, 1
MAGIC = b"XRES"
HEADER = struct.Struct("<4s3I")
HEADER_VERSION = 3
ALGORITHMS = {0: "none", 1: "zlib", 2: "zstd"}
STREAM_VERSION = 1
#: Largest uncompressed resource accepted (a loose resource file has the same limit, search.py).
MAX_UNPACKED_BYTES = 256 * 1024 * 1024
#: Largest uncompressed/stored ratio accepted above SMALL_RESOURCE_BYTES: deflate cannot pass
#: 1032:1, and game data (models, textures) packs 2-10:1; zstd's all-zero frames can pass it and are
#: accepted while small.
MAX_RATIO = 1024
SMALL_RESOURCE_BYTES = 1024 * 1024
STEP = 1024 * 1024


def check_unpacked_size(path, label: str, declared: int, stored: int, record_at: int) -> None:
    """A ReadError (at the resource's table record) when the uncompressed size the archive declares
    for resource ``label`` passes MAX_UNPACKED_BYTES or, above SMALL_RESOURCE_BYTES, MAX_RATIO times
    the ``stored`` size."""
    if declared > MAX_UNPACKED_BYTES:
        raise ReadError(path, f"{label}: an uncompressed size of {declared} bytes passes the "
                              f"{MAX_UNPACKED_BYTES} read for a resource", offset=record_at)
    if declared > max(SMALL_RESOURCE_BYTES, stored * MAX_RATIO):
        raise ReadError(path, f"{label}: {declared} bytes declared from {stored} stored, more than "
                              f"{MAX_RATIO}:1", offset=record_at)


def unpack(stored: bytes, declared: int, source, offset: int, label: str) -> bytes:
    """The ``declared`` uncompressed bytes of resource ``label`` from its ``stored`` compressed
    buffer, found at ``offset`` in file ``source``; a ReadError with the byte offset there when the
    buffer is malformed or its size is not the declared one."""
    def fail(message: str, at: int = 0) -> ReadError:
        return ReadError(source, f"{label}: {message}", offset=offset + at)

    if len(stored) < HEADER.size:
        raise fail(f"a compressed buffer's header is {HEADER.size} bytes, the entry has {len(stored)}")
    magic, version, algorithm, size = HEADER.unpack_from(stored)
    if magic != MAGIC:
        raise fail(f"not a compressed buffer (magic {magic!r}, {MAGIC!r} expected)")
    if version != HEADER_VERSION:
        raise fail(f"compressed buffer version {version} (only {HEADER_VERSION} is read)", 4)
    if algorithm not in ALGORITHMS:
        raise fail(f"compression algorithm {algorithm} unknown (0 none, 1 zlib, 2 zstd)", 8)
    if size != declared:
        raise fail(f"the buffer holds {size} bytes uncompressed, the archive's table says {declared}", 12)
    if size == 0:
        return b""
    if algorithm == 0:
        data = stored[HEADER.size:HEADER.size + size]
    else:
        extra = 4 if algorithm == 1 else 8
        at = HEADER.size + extra
        if len(stored) < at:
            raise fail(f"the {ALGORITHMS[algorithm]} stream header passes the entry's end", HEADER.size)
        stream_version, = struct.unpack_from("<I", stored, HEADER.size)
        if stream_version != STREAM_VERSION:
            raise fail(f"{ALGORITHMS[algorithm]} stream version {stream_version} (only 1 is read)",
                       HEADER.size)
        if algorithm == 2 and struct.unpack_from("<I", stored, HEADER.size + 4)[0] != 0:
            raise fail("zstd dictionaries are not read (dictionary id is not 0)", HEADER.size + 4)
        inflate = _inflate if algorithm == 1 else _unzstd
        try:
            data = inflate(stored[at:], size + 1)
        except (zlib.error, ValueError) as error:
            raise fail(f"{ALGORITHMS[algorithm]} stream broken: {error}", at) from None
    if len(data) != size:
        raise fail(f"the stream gives {'more than ' if len(data) > size else ''}{min(len(data), size)} "
                   f"bytes, {size} declared", HEADER.size)
    return data


def _inflate(stream: bytes, limit: int) -> bytes:
    """At most ``limit`` bytes of a zlib stream (a ValueError if it ends early)."""
    inflater = zlib.decompressobj()
    data = inflater.decompress(stream, limit)
    if len(data) < limit and not inflater.eof:
        raise ValueError("truncated")
    return data


def _unzstd(stream: bytes, limit: int) -> bytes:
    """At most ``limit`` bytes of one zstd frame, read in STEP pieces (the frame's own content size
    is not trusted for the allocation)."""
    try:
        import zstandard  # imported here: only zstd entries pay for it
    except ImportError:
        raise ValueError("the zstandard package is not installed") from None
    reader = zstandard.ZstdDecompressor().stream_reader(BytesIO(stream), read_across_frames=False)
    pieces, total = [], 0
    try:
        while total < limit:
            piece = reader.read(min(STEP, limit - total))
            if not piece:
                break
            pieces.append(piece)
            total += len(piece)
    except zstandard.ZstdError as error:
        raise ValueError(str(error)) from None
    return b"".join(pieces)
