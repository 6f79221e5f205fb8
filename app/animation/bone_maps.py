"""Bone map files: ``{"source bone": "target bone", …}`` as JSON. One strict, bounded reader for the
command line's ``--map``, the window's Load Map… and its remembered maps; where the window remembers
the map of a pair of models (the user's data folder, never beside a model), the map it starts from,
each row's confidence, and saving one whole."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from app.animation.retarget import suggested_map
from app.bone_names import exact_key, name_key
from app.atomic_files import write_atomically
from app.errors import InputError, regular_size
from app.json_text import JsonError, loads
from app.model import Model
from app.user_files import user_data_dir

#: The folder of the user's data folder that holds the window's remembered maps.
MAPS_FOLDER = "bone_maps"

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
    """``MODEL.bonemap.json`` beside the model's first file: where earlier versions saved its map
    (still read; a map is written there only when the user saves it there)."""
    return Path(model.files[0]).with_suffix(".bonemap.json") if model.files else None


def remembered_map_path(source: Model, target: Model) -> Path:
    """Where the window remembers the map from ``source``'s skeleton to ``target``'s: one file per
    pair of models in the user's data folder, named after both and a hash of their files' full paths
    (models of one name in other folders differ)."""
    files = [name for model in (source, target)
             for name in ([os.path.realpath(path) for path in model.files] or [model.name])]
    digest = hashlib.sha256("\n".join(files).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    name = f"{_file_word(source.name)}-to-{_file_word(target.name)}-{digest}.json"
    return user_data_dir() / MAPS_FOLDER / name


def _file_word(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:40] or "model"


def usable_part(mapping: dict[str, str], source: Model, target: Model) -> dict[str, str]:
    """The pairs of ``mapping`` whose bones both skeletons have."""
    return {s: t for s, t in mapping.items() if s in source.skeleton.names and t in target.skeleton.names}


def remembered_map(source: Model, target: Model) -> dict[str, str]:
    """The map remembered for the pair, else the one saved beside the target by earlier versions,
    kept where both skeletons have its bones; empty when there is none or it cannot be read."""
    for path in (remembered_map_path(source, target), saved_map_path(target)):
        try:
            saved = read_map(str(path)) if path is not None and path.is_file() else {}
        except InputError:
            saved = {}
        if usable_part(saved, source, target):
            return usable_part(saved, source, target)
    return {}


def starting_map(source: Model, target: Model) -> dict[str, str]:
    """The remembered map (``remembered_map``); else the suggested one."""
    return remembered_map(source, target) or suggested_map(source, target)


def confidence(source_bone: str, target_bone: str) -> str:
    """How sure a suggested pair is, for the bone map's rows: "same name" (identical but for case),
    "name" (the names agree by ``name_key``: rig prefix, side, synonyms), else "hierarchy or
    placement" (paired by where it hangs or rests: check it)."""
    if exact_key(source_bone) and exact_key(source_bone) == exact_key(target_bone):
        return "same name"
    if name_key(source_bone) and name_key(source_bone) == name_key(target_bone):
        return "name"
    return "hierarchy or placement"


def save_map(path: Path, mapping: dict[str, str]) -> None:
    """Write ``mapping`` to ``path`` whole or not at all (OSError when it cannot be written)."""
    write_atomically(path, json.dumps(mapping, indent=2) + "\n")


def remember_map(source: Model, target: Model, mapping: dict[str, str]) -> Path:
    """Keep ``mapping`` for the pair in the user's data folder (``remembered_map_path``); returns
    where (OSError when it cannot be written)."""
    path = remembered_map_path(source, target)
    path.parent.mkdir(parents=True, exist_ok=True)
    save_map(path, mapping)
    return path
