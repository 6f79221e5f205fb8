"""Neverwinter Nights archives read in place: ERF-family files (``erf``) and KEY/BIF pairs
(``key_bif``), listed as ``entries.Archive``; ``search`` finds a resource through ``--resources``."""

from __future__ import annotations

from pathlib import Path

from app.formats.nwn.archives.entries import Archive
from app.errors import ReadError

#: Extensions opened as archives (ERF family, and a KEY with its BIFs).
ERF_SUFFIXES = (".erf", ".hak", ".mod", ".nwm", ".sav")
ARCHIVE_SUFFIXES = (*ERF_SUFFIXES, ".key")


def is_archive(path: str | Path) -> bool:
    """Whether ``path`` names an archive by its extension."""
    return Path(path).suffix.lower() in ARCHIVE_SUFFIXES


def open_archive(path: str | Path) -> Archive:
    """The listing of the archive at ``path`` (a ReadError when it is malformed)."""
    path = Path(path)
    if path.suffix.lower() == ".key":
        from app.formats.nwn.archives.key_bif import read_key

        return read_key(path)
    if path.suffix.lower() in ERF_SUFFIXES:
        from app.formats.nwn.archives.erf import read_erf

        return read_erf(path)
    raise ReadError(path, f"not an archive (extensions read: {', '.join(ARCHIVE_SUFFIXES)})")


def split_member(text: str) -> tuple[Path, str] | None:
    """``ARCHIVE:RESREF`` or ``ARCHIVE/RESREF.mdl`` → (archive path, resref) when ARCHIVE is an
    archive file that exists; None otherwise."""
    archive, colon, name = str(text).rpartition(":")
    if colon and name and is_archive(archive) and Path(archive).is_file():
        return Path(archive), name
    parent = Path(text).parent
    if Path(text).suffix.lower() == ".mdl" and is_archive(parent) and parent.is_file():
        return parent, Path(text).stem
    return None
