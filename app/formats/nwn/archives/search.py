"""Where supermodels, textures and palettes are found after a model's own folder: ``--resources``
PATHs in order, each a folder (files compared without case) or an archive (resrefs)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from app.errors import ReadError, regular_size
from app.formats.nwn.archives import is_archive, open_archive
from app.formats.nwn.archives.entries import Archive


@dataclass(frozen=True)
class Found:
    """A resource found: ``where`` names it (a file, or ``ARCHIVE:RESREF.TYPE``) and its bytes."""

    where: str
    type: str
    data: bytes


@dataclass
class ResourceSearch:
    """The ``--resources`` PATHs, archives opened and folders listed once, on first use."""

    paths: list[Path]
    _archives: dict[Path, Archive] = field(default_factory=dict)
    #: Each folder's files by lower-cased name, listed once per search (a load looks up several names).
    _listings: dict[Path, dict[str, Path]] = field(default_factory=dict)

    def find(self, name: str, types: tuple[str, ...]) -> Found | None:
        """The first resource called ``name`` with one of ``types`` (in that order of preference
        within each PATH), searching the PATHs in order."""
        for path in self.paths:
            found = self._find_in(path, name, types)
            if found is not None:
                return found
        return None

    def _find_in(self, path: Path, name: str, types: tuple[str, ...]) -> Found | None:
        if path.is_dir():
            if path not in self._listings:
                self._listings[path] = _listing(path)
            listing = self._listings[path]
            for kind in types:
                file = listing.get(f"{name}.{kind}".lower())
                if file is not None:
                    return Found(str(file), kind, _bounded_bytes(file))
            return None
        if not is_archive(path):
            return None
        if path not in self._archives:
            self._archives[path] = open_archive(path)
        archive = self._archives[path]
        entry = archive.find(name, types)
        if entry is None:
            return None
        return Found(f"{path}:{entry.name}.{entry.type}", entry.type, archive.read(entry))


#: Largest loose resource read (as an archive's resources, it is bounded by what it is read as).
MAX_RESOURCE_BYTES = 256 * 1024 * 1024


def _bounded_bytes(path: Path) -> bytes:
    """A folder's resource file, refused (ReadError) when over MAX_RESOURCE_BYTES or not a regular file."""
    size = regular_size(path, ReadError)
    if size > MAX_RESOURCE_BYTES:
        raise ReadError(path, f"{size} bytes, more than the {MAX_RESOURCE_BYTES} read for a resource")
    try:
        return path.read_bytes()
    except OSError as error:
        raise ReadError(path, f"cannot read: {error.strerror or error}") from None


def _listing(folder: Path) -> dict[str, Path]:
    try:
        return {entry.lower(): folder / entry for entry in os.listdir(folder) if (folder / entry).is_file()}
    except OSError:
        return {}
