"""Bounds-checked little-endian reading for the binary readers (nwn_mdl, c3de).

A ``Block`` is a window onto the file's bytes (the whole file, or one of its blocks) that knows where
it starts in the file, so every error quotes a *file* offset. Counts are checked against the bytes
present before anything is allocated, and records come straight from the buffer with
``np.frombuffer`` (read-only views; copy before writing).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.formats.registry import ReadError


class Block:
    """``size`` bytes of ``data`` from ``start`` (a file offset), read with block-relative offsets.

    ``name`` says which block an error is about ("model data", "raw data", "file").
    """

    def __init__(self, data: bytes | memoryview, path: str | Path, start: int = 0,
                 size: int | None = None, name: str = "file"):
        self.data = memoryview(data)
        self.path = path
        self.start = start
        self.size = len(self.data) - start if size is None else size
        self.name = name

    def error(self, offset: int, message: str) -> ReadError:
        """A ReadError at block-relative ``offset`` (reported as a file offset)."""
        return ReadError(self.path, message, offset=self.start + max(offset, 0))

    def check(self, offset: int, count: int, itemsize: int, what: str, at: int | None = None) -> None:
        """Raise unless ``count`` records of ``itemsize`` bytes fit in the block from ``offset``.

        ``at``: where to report the error (default: ``offset``), e.g. the pointer that named it.
        """
        where = offset if at is None else at
        if count < 0:
            raise self.error(where, f"{what}: negative count {count}")
        if offset < 0 or offset + count * itemsize > self.size:
            raise self.error(where, f"{what}: expected {count} × {itemsize} bytes at {self.name} offset "
                                    f"{offset}, but the {self.name} holds {self.size} bytes")

    def array(self, offset: int, dtype: np.dtype | str, count: int, what: str,
              at: int | None = None) -> np.ndarray:
        """(count,) records of ``dtype`` (little-endian) from block offset ``offset``; read-only view."""
        dtype = np.dtype(dtype)
        self.check(offset, count, dtype.itemsize, what, at)
        return np.frombuffer(self.data, dtype=dtype, count=count, offset=self.start + offset)

    def record(self, offset: int, dtype: np.dtype, what: str, at: int | None = None):
        """One structured record (``np.void``) of ``dtype`` at ``offset``."""
        return self.array(offset, dtype, 1, what, at)[0]


def fixed_string(raw: bytes) -> str:
    """A fixed-width string cut at the first NUL (junk after it is normal), decoded as latin-1."""
    return bytes(raw).split(b"\0", 1)[0].decode("latin-1")


def finite_or_zero(values: np.ndarray, what: str, warnings: list[str]) -> np.ndarray:
    """``values`` as float64 with NaN/Inf replaced by 0; one warning naming ``what`` if any were."""
    values = np.asarray(values, dtype=np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        warnings.append(f"{what}: {int(bad.sum())} NaN/Inf value(s) replaced by 0")
        values = np.where(bad, 0.0, values)
    return values
