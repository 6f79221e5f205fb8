"""Where a model's ragdoll profile lives: one policy for the command line and the window.

A profile is saved beside the model's first file (``<file>.ragdoll.json``) when that folder is
writable; otherwise, and for the built-in demo (whose folder belongs to the installed package), in
the user's data folder under ``ragdoll/``, named after the model's file and a digest of its absolute
path so that two models of the same name do not share one. A profile is looked for in the same two
places, beside the model first. The window and the command line both pass ``user_data_dir()``
(app/user_files.py).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

SUFFIX = ".ragdoll.json"
#: The data folder's sub-folder for profiles.
PROFILE_FOLDER = "ragdoll"


def beside(model_file: str | Path) -> Path:
    """``<file>.ragdoll.json`` next to ``model_file``."""
    model_file = Path(model_file)
    return model_file.with_name(model_file.name + SUFFIX)


def in_data_dir(model_file: str | Path, data_dir: str | Path) -> Path:
    """The profile's place in the user's data folder: ``ragdoll/<file>.<digest>.ragdoll.json``."""
    model_file = Path(model_file)
    digest = hashlib.sha1(os.fsencode(model_file.resolve())).hexdigest()[:10]  # any name the system has
    return Path(data_dir) / PROFILE_FOLDER / f"{model_file.name}.{digest}{SUFFIX}"


def save_location(model_file: str | Path, data_dir: str | Path, builtin: bool = False) -> Path:
    """Where a new profile of the model read from ``model_file`` is saved: beside it when its folder is
    writable and it is not the built-in demo, else in ``data_dir``."""
    folder = Path(model_file).parent
    if not builtin and os.access(folder, os.W_OK | os.X_OK):
        return beside(model_file)
    return in_data_dir(model_file, data_dir)


def find_profile(model_file: str | Path, data_dir: str | Path, builtin: bool = False) -> Path | None:
    """The saved profile of the model read from ``model_file``: beside it (not for the built-in
    demo), else in ``data_dir``; None when neither exists."""
    places = ([] if builtin else [beside(model_file)]) + [in_data_dir(model_file, data_dir)]
    return next((place for place in places if place.is_file()), None)
