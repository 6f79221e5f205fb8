"""Bone map files: ``{"source bone": "target bone", …}`` as JSON. One strict, bounded reader for the
command line's ``--map`` and the window's saved map, where the window keeps a model's map
(``MODEL.bonemap.json`` beside its first file), the map it starts from, and saving one whole."""

from __future__ import annotations

import json
from pathlib import Path

from app.animation.retarget import suggested_map
from app.atomic_files import write_atomically
from app.errors import InputError, regular_size
from app.json_text import JsonError, loads
from app.model import Model

#: A bone map file larger than this is refused before it is read.
MAP_LIMIT = 1 << 20


def read_map(path: str) -> dict[str, str]:
    """The bone map in ``path``: a JSON object of source bone names to target bone names (each source
    bone once; a UTF-8 byte-order mark is fine)."""
    if regular_size(path) > MAP_LIMIT:
        raise InputError(path, f"a bone map is at most {MAP_LIMIT} bytes")
    try:
        with open(path, "rb") as file:
            mapping = loads(file.read())
    except OSError as error:
        raise InputError(path, f"cannot read: {error.strerror or error}") from None
    except JsonError as error:
        raise _json_error(path, error) from None
    if not isinstance(mapping, dict) or not all(isinstance(v, str) for v in mapping.values()):
        raise InputError(path, 'expected a JSON object {"source bone": "target bone", ...}')
    return mapping


def _json_error(path: str, error: JsonError) -> InputError:
    """``path``: not JSON, at the line (and column) where ``error`` was found."""
    if error.line is None:
        where = f" at byte {error.offset}" if error.offset is not None else ""
        return InputError(path, f"not JSON{where}: {error.message}")
    return InputError(path, f"not JSON: {error.message} (column {error.column})", line=error.line)


def saved_map_path(model: Model) -> Path | None:
    """Where the window saves a model's bone map: ``MODEL.bonemap.json`` beside its first file."""
    return Path(model.files[0]).with_suffix(".bonemap.json") if model.files else None


def starting_map(source: Model, target: Model) -> dict[str, str]:
    """The map saved beside the target (read by ``read_map``), kept where both skeletons have its
    bones; else, or when it cannot be read, the suggested one."""
    path = saved_map_path(target)
    try:
        saved = read_map(str(path)) if path is not None and path.is_file() else {}
    except InputError:
        saved = {}
    kept = {s: t for s, t in saved.items() if s in source.skeleton.names and t in target.skeleton.names}
    return kept or suggested_map(source, target)


def save_map(path: Path, mapping: dict[str, str]) -> None:
    """Write ``mapping`` to ``path`` whole or not at all (OSError when it cannot be written)."""
    write_atomically(path, json.dumps(mapping, indent=2) + "\n")
