"""The folder names that start each model's name when a batch is given PATHs in several folders, so
``a/x.glb`` and ``b/x.glb`` are reported as ``a/x.glb`` and ``b/x.glb``, not twice as ``x.glb``
(the report's ``model`` names a model once: ``--skip-existing`` and ``batch merge`` rely on it).

A PATH's folder is the PATH itself, or the folder holding it when it is a file. The outermost folders
are those inside no other PATH's folder. When there is one (one folder, files a shell pattern gave,
a folder and files below it) its models keep the names a single PATH gives them. Else each outermost
folder's label is its name, with as many folders above it as it takes to tell it apart from the
others (``one/lib`` and ``two/lib``). A PATH inside an outermost folder is labelled with its way down
from it, so a model has one name whichever PATH reaches it first."""

from __future__ import annotations

import os
from pathlib import Path

Parts = tuple[str, ...]


def root_labels(paths: list[str | os.PathLike]) -> dict[Path, str]:
    """Each PATH (as ``Path(path)``) → the label its models' names start with ('' for none)."""
    folders = {Path(path): _folder_parts(Path(path)) for path in paths}
    outermost = {parts for parts in folders.values()
                 if not any(_inside(parts, other) for other in folders.values())}
    outer_labels = {parts: () if len(outermost) == 1 else _shortest_unique_tail(parts, outermost - {parts})
                    for parts in outermost}
    labels = {}
    for path, parts in folders.items():
        outer = next(folder for folder in outermost if parts[:len(folder)] == folder)
        labels[path] = "/".join(outer_labels[outer] + parts[len(outer):])
    return labels


def _folder_parts(path: Path) -> Parts:
    """The names from the file system's root down to the PATH's folder (not following links, so the
    label is the name the user gave, not where a link leads)."""
    folder = path if path.is_dir() else path.parent
    return Path(os.path.abspath(folder)).parts[1:]


def _inside(parts: Parts, other: Parts) -> bool:
    return len(other) < len(parts) and parts[:len(other)] == other


def _shortest_unique_tail(parts: Parts, others: set[Parts]) -> Parts:
    """The fewest last names of ``parts`` that no other folder ends with (all of them when every tail
    is shared, as ``lib`` is by ``/lib`` and ``/srv/lib``)."""
    for count in range(1, len(parts) + 1):
        tail = parts[-count:]
        if all(other[-count:] != tail for other in others):
            return tail
    return parts
