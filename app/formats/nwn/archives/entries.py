"""What every archive reader gives: its entries, each a resref and a type with where its bytes lie."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.errors import ReadError


@dataclass(frozen=True)
class Entry:
    """One resource: ``name`` (the resref, lower-cased), ``type`` (its extension), the ``source`` file
    holding its bytes and their ``offset`` and ``size`` there."""

    name: str
    type: str
    source: Path
    offset: int
    size: int


@dataclass(frozen=True)
class Archive:
    """An archive's listing: ``kind`` (ERF, HAK, MOD, NWM, SAV or KEY), ``version`` and entries in
    file order."""

    path: Path
    kind: str
    version: str
    entries: tuple[Entry, ...]

    def find(self, name: str, types: tuple[str, ...]) -> Entry | None:
        """The entry called ``name`` (any case) of the first of ``types`` present, or None."""
        wanted = name.lower()
        matches = {entry.type: entry for entry in reversed(self.entries) if entry.name == wanted}
        return next((matches[kind] for kind in types if kind in matches), None)

    def read(self, entry: Entry, limit: int | None = None) -> bytes:
        """The bytes of ``entry`` (its bounds were checked against its file when listed), or its first
        ``limit`` bytes."""
        size = entry.size if limit is None else min(entry.size, limit)
        try:
            with open(entry.source, "rb") as stream:
                stream.seek(entry.offset)
                data = stream.read(size)
        except OSError as error:
            raise ReadError(entry.source, f"cannot read: {error.strerror or error}") from None
        if len(data) != size:
            raise ReadError(entry.source, f"{entry.name}.{entry.type}: {size} bytes expected, "
                                          f"{len(data)} present", offset=entry.offset)
        return data


def resref(raw: bytes) -> str:
    """A resref field: NUL-padded Latin-1, lower-cased (the engine compares resrefs without case)."""
    return raw.split(b"\0", 1)[0].decode("latin-1").lower()


def check_table(path: Path, what: str, offset: int, count: int, record: int, file_size: int) -> None:
    """A ReadError naming the table when ``count`` records of ``record`` bytes from ``offset`` pass
    the end of the file (checked before anything is read, so a hostile count costs nothing)."""
    end = offset + count * record
    if end > file_size:
        raise ReadError(path, f"{what}: {count} entries of {record} bytes from byte {offset} end at "
                              f"byte {end}, past the file's {file_size} bytes", offset=offset)
