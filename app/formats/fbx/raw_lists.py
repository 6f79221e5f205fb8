"""Copying the ufbx lists that lack the buffer protocol (integer lists and baked keys) with one memory
copy, where iterating them makes a Python object per item (most of an animated file's read time).

The pinned bindings (ufbx 0.0.5, generated from bqqbarbhg/ufbx-python's generated.h) wrap every
list as ``{PyObject_HEAD; Context *ctx; Py_ssize_t shape[2]; T *data; size_t count}``, 56 bytes,
and ufbx lays its items out as C structs: ``uint32_t``, or a baked key ``{double time; value;
uint32_t flags}`` (the value three or four doubles, the struct padded to 8 bytes). So the array is
read from the wrapper's ``data`` pointer with ctypes. It is used only when the installed version and
the wrapper's size are those, and each copy is checked against the list itself (its length, and its
first and last items read the ordinary way); on any mismatch the caller falls back to iterating.
This runs in the reader's own process (app/formats/fbx/reader_process.py), where a bad pointer could only
end that process with a ReadError.
"""

from __future__ import annotations

import ctypes
from importlib import metadata

import numpy as np

#: The bindings whose wrapper layout is described above.
LAYOUT_VERSION = "0.0.5"
WRAPPER_SIZE = 56
#: Byte offsets of ``data`` and ``count`` in a wrapper: after the object head (16), ctx (8), shape (16).
DATA_OFFSET = 40
COUNT_OFFSET = 48

UINT32 = np.dtype("<u4")
#: ufbx_baked_vec3 and ufbx_baked_quat, C-aligned (40 and 48 bytes).
BAKED_VEC3 = np.dtype([("time", "<f8"), ("value", "<f8", (3,)), ("flags", "<u4")], align=True)
BAKED_QUAT = np.dtype([("time", "<f8"), ("value", "<f8", (4,)), ("flags", "<u4")], align=True)


def _installed_version() -> str:
    try:
        return metadata.version("ufbx")
    except metadata.PackageNotFoundError:
        return ""


LAYOUT_KNOWN = _installed_version() == LAYOUT_VERSION


def uints(items, held: list) -> np.ndarray | None:
    """(N,) int64 from a ufbx Uint32List, or None when it cannot be copied raw (module doc).
    Items read for the check are appended to ``held`` (the bindings must not free them)."""
    records = _records(items, UINT32)
    if records is None:
        return None
    if len(records) and not (_held(held, items[0]) == records[0] and _held(held, items[-1]) == records[-1]):
        return None
    return records.astype(np.int64)


def baked_keys(items, width: int, held: list) -> tuple[np.ndarray, np.ndarray] | None:
    """(K,) times and (K, width) values of a BakedVec3List (width 3) or BakedQuatList (4), or None
    when it cannot be copied raw (module doc)."""
    records = _records(items, BAKED_VEC3 if width == 3 else BAKED_QUAT)
    if records is None:
        return None
    for position in (0, -1)[:len(records)]:
        key = _held(held, items[position])
        if key.time != records["time"][position] or tuple(key.value) != tuple(records["value"][position]):
            return None
    return records["time"].copy(), records["value"].copy()


def _held(held: list, item):
    held.append(item)
    return item


def _records(items, dtype: np.dtype) -> np.ndarray | None:
    """A copy of the wrapper's C array as ``dtype`` records, or None when the layout is not known
    or the count it holds is not the list's length."""
    if not LAYOUT_KNOWN or type(items).__basicsize__ != WRAPPER_SIZE:
        return None
    address = id(items)  # CPython: the object's address
    count = ctypes.c_size_t.from_address(address + COUNT_OFFSET).value
    if count != len(items):
        return None
    if count == 0:
        return np.zeros(0, dtype)
    data = ctypes.c_void_p.from_address(address + DATA_OFFSET).value
    if not data:
        return None
    return np.frombuffer((ctypes.c_char * (count * dtype.itemsize)).from_address(data), dtype).copy()
