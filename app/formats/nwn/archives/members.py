"""Models named inside archives (``ARCHIVE:RESREF``, ``ARCHIVE/RESREF.mdl``): each is copied into a
scratch folder for the readers, which read files, and its archive joins the front of the resources,
so what the model names is searched there first (docs/cli.md, "Neverwinter Nights resources")."""

from __future__ import annotations

from pathlib import Path

from app.formats.nwn.archives import open_archive, split_member
from app.errors import ReadError


def extract_members(paths: list[str | Path], scratch: Path) -> tuple[list[Path], list[Path], dict[str, str]]:
    """(the paths to read, members replaced by their copies in ``scratch``; the archives they came
    from, in order; each copy's path → the name it was given as). A RESREF the archive lacks is a
    ReadError listing its models."""
    read, archives, given = [], [], {}
    for path in paths:
        member = split_member(str(path))
        if member is None:
            read.append(Path(path))
            continue
        archive_path, name = member
        archive = open_archive(archive_path)
        entry = archive.find(name, ("mdl",))
        if entry is None:
            models = ", ".join(e.name for e in archive.entries if e.type == "mdl") or "none"
            raise ReadError(archive_path, f"no model {name!r} in the archive (its models: {models})")
        copy = scratch / f"{entry.name}.mdl"
        if copy.exists():  # the same RESREF from another archive: a folder of its own
            copy = scratch / str(len(read)) / copy.name
            copy.parent.mkdir()
        copy.write_bytes(archive.read(entry))
        read.append(copy)
        given[str(copy)] = str(path)
        archives.append(archive_path)
    return read, list(dict.fromkeys(archives)), given
