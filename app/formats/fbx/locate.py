"""Where an FBX file that ufbx refuses goes wrong, for the error message: ufbx says only that it
failed, so the reader walks the file's structure itself (only on that path, never on a good read).

Binary FBX is a tree of node records (each: the byte offset of its end, its property count and
length, its name), 64-bit fields from version 7500 on. ASCII FBX is ``Name: values {…}`` blocks;
the walk checks that braces and quotes close.
"""

from __future__ import annotations

import re
import struct

BINARY_MAGIC = b"Kaydara FBX Binary  \x00"
#: The binary header: magic, two bytes (0x1A 0x00), the version (uint32).
HEADER_SIZE = 27
#: A quoted string within one line, and a brace.
QUOTED = re.compile(rb'"[^"\n]*"')
BRACES = re.compile(rb"[{}]")
#: Deepest record nesting followed (ufbx's own limit is far below real files' needs of ~10).
MAX_DEPTH = 512


def binary_problem(data: bytes) -> tuple[int, str] | None:
    """(byte offset, what is wrong) for the first malformed record of a binary FBX, or None."""
    if len(data) < HEADER_SIZE:
        return len(data), f"the file ends inside the {HEADER_SIZE}-byte header"
    version = struct.unpack_from("<I", data, 23)[0]
    wide = version >= 7500
    layout, size = ("<QQQB", 25) if wide else ("<IIIB", 13)
    stack = [(HEADER_SIZE, len(data), 0)]
    while stack:
        offset, end, depth = stack.pop()
        if depth > MAX_DEPTH:
            return offset, f"records nest deeper than {MAX_DEPTH}"
        while offset + size <= end:
            record_end, _, properties_length, name_length = struct.unpack_from(layout, data, offset)
            if record_end == 0:
                break
            body = offset + size + name_length
            if record_end > end or record_end < body:
                return offset, (f"a record ends at byte {record_end}, outside {body}..{end} (its "
                                "parent's end or the file's)")
            if body + properties_length > record_end:
                return offset, f"a record's {properties_length} bytes of properties overrun its end"
            stack.append((body + properties_length, record_end, depth + 1))
            offset = record_end
        if offset + size > end and depth == 0 and offset < end:
            return offset, "the file ends inside a record header"
    return None


def ascii_problem(text: bytes) -> tuple[int, str] | None:
    """(line, what is wrong) for the first unclosed brace or quote of an ASCII FBX, or None.
    Comments (``;`` to the end of the line) and quoted strings are skipped."""
    opened: list[int] = []
    for number, line in enumerate(text.split(b"\n"), start=1):
        bare = QUOTED.sub(b'""', line)
        code = bare.split(b";", 1)[0]
        if b'"' in code.replace(b'""', b""):
            return number, "a quoted string is not closed on its line"
        for brace in BRACES.findall(code):
            if brace == b"{":
                opened.append(number)
            elif not opened:
                return number, "a '}' closes no block"
            else:
                opened.pop()
    if opened:
        return opened[-1], "the block opened here is not closed (the file ends first)"
    return None
