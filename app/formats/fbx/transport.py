"""What crosses between the FBX reader process and its parent (reader_process.py): length-prefixed
frames on pipes, and answers pickled with their arrays out of band.

An answer is pickled (protocol 5) with its arrays' bytes left out; the bytes go into a memory area
both processes share (mapped before the fork), one copy each way, and only the pickle and the
arrays' sizes go through the pipe: a few hundred bytes, one wake-up. An answer larger than the area
sends its bytes through the pipe after the pickle instead. A read's second answer is placed past
its first, which the parent may still be copying; the parent copies each array's bytes out of the
area into memory of its own before it sends the next request, so the area is reused.
"""

from __future__ import annotations

import mmap
import os
import pickle
import struct

#: A frame on a pipe: its length, then that many bytes.
LENGTH = struct.Struct("<Q")
#: Size of the shared area (bytes); only the pages an answer touches take memory.
SHARED_BYTES = 256 * 2 ** 20
#: Bytes a pipe holds where Linux lets a pipe grow (F_SETPIPE_SZ): fewer wake-ups for a large frame.
PIPE_BYTES = 2 ** 20
F_SETPIPE_SZ = 1031


def shared_area() -> mmap.mmap:
    """An anonymous memory area that a process forked after this call shares with its parent."""
    return mmap.mmap(-1, SHARED_BYTES)


def send_answer(descriptor: int, shared: mmap.mmap, answer, start: int = 0) -> int:
    """Pickle ``answer`` with its buffers out of band: into ``shared`` from ``start`` when they fit,
    else through the pipe after the pickle. Where the next answer of the same read may start in
    ``shared`` (past this one's bytes, which the parent may still be copying)."""
    buffers = []
    head = pickle.dumps(answer, protocol=5, buffer_callback=buffers.append)
    raws = [buffer.raw() for buffer in buffers]
    sizes = [raw.nbytes for raw in raws]
    in_shared = start + sum(sizes) <= len(shared)
    offset = start
    if in_shared:
        for raw in raws:
            shared[offset:offset + raw.nbytes] = raw
            offset += raw.nbytes
    write_frame(descriptor, pickle.dumps((head, sizes, start if in_shared else None), protocol=5))
    if not in_shared:
        for raw in raws:
            write_frame(descriptor, raw)
    return offset


def receive_answer(descriptor: int, shared: mmap.mmap):
    """The answer ``send_answer`` sent, each array in memory of its own; None when the pipe ends
    first (the reader process died)."""
    frame = read_frame(descriptor)
    if frame is None:
        return None
    head, sizes, start = pickle.loads(frame)
    if start is not None:
        view, offset, buffers = memoryview(shared), start, []
        for size in sizes:
            buffers.append(bytearray(view[offset:offset + size]))
            offset += size
        view.release()
    else:
        buffers = [read_frame(descriptor) for _ in sizes]
        if any(buffer is None for buffer in buffers):
            return None
    return pickle.loads(head, buffers=buffers)


def grow(descriptor: int) -> None:
    """Let the pipe hold PIPE_BYTES where the system allows it."""
    try:
        import fcntl
        fcntl.fcntl(descriptor, F_SETPIPE_SZ, PIPE_BYTES)
    except (ImportError, OSError):
        pass  # not Linux, or a lower limit: the default size works, with more wake-ups


def write_frame(descriptor: int, data) -> None:
    for part in (LENGTH.pack(memoryview(data).nbytes), data):
        view = memoryview(part).cast("B")
        while view:
            view = view[os.write(descriptor, view):]


def read_frame(descriptor: int) -> bytearray | None:
    """One frame's bytes, or None when the pipe ends first."""
    header = _read_exactly(descriptor, LENGTH.size)
    if header is None:
        return None
    return _read_exactly(descriptor, LENGTH.unpack(header)[0])


def _read_exactly(descriptor: int, size: int) -> bytearray | None:
    buffer = bytearray(size)
    view, filled = memoryview(buffer), 0
    while filled < size:
        count = os.readv(descriptor, [view[filled:]])
        if count == 0:
            return None
        filled += count
    return buffer
