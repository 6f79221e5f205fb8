"""File › Open Archive…: the models an NWN archive (``.hak .erf .mod .nwm .sav``, or a ``.key`` with its
BIFs) holds, each with its kind and size, named as the load path opens them (``ARCHIVE:RESREF``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.formats.nwn.archives import ARCHIVE_SUFFIXES, open_archive
from app.formats.nwn.model_kind import HEAD_BYTES, model_kind

#: What the archive dialog offers to pick (every archive kind the readers list).
SUFFIXES = ARCHIVE_SUFFIXES


@dataclass(frozen=True)
class ArchiveModel:
    """One model of an archive: its ``name`` (the resref), ``kind`` (``model_kind``), ``size`` in
    bytes and ``path``, what opens it (``ARCHIVE:RESREF``)."""

    name: str
    kind: str
    size: int
    path: str


def archive_models(path: str | Path) -> list[ArchiveModel]:
    """The models in the archive at ``path``, by name; a ReadError (file and byte offset) when the
    archive is malformed. Reads each model's first HEAD_BYTES only: run it off the window's thread."""
    archive = open_archive(path)
    where = str(Path(path).resolve())
    # The first of two entries of one name is the one opened (entries.Archive.find).
    models = {entry.name: entry for entry in reversed(archive.entries) if entry.type == "mdl"}
    return [ArchiveModel(name, model_kind(archive.read(entry, HEAD_BYTES)), entry.size, f"{where}:{name}")
            for name, entry in sorted(models.items())]


def matching(models: list[ArchiveModel], text: str) -> list[ArchiveModel]:
    """The models whose name or kind holds every word of ``text`` (any case)."""
    words = text.lower().split()
    return [model for model in models if all(word in f"{model.name} {model.kind}".lower() for word in words)]


def size_text(size: int) -> str:
    """'812 B', '79.3 KB', '1.2 MB'."""
    if size < 1024:
        return f"{size} B"
    return f"{size / 1024:.1f} KB" if size < 1024 * 1024 else f"{size / 1024 / 1024:.1f} MB"
