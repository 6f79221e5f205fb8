"""The profile a model gets: its saved one, else an automatic setup. One rule for the command line
and the window."""

from __future__ import annotations

from pathlib import Path

from app.model import Model
from app.physics.autosetup import auto_setup
from app.physics.profile import ProfileError, RagdollProfile
from app.physics.profile_json import load_profile
from app.physics.profile_location import find_profile
from app.physics.rig import bind_rig


def model_profile(model: Model, data_dir: str | Path, builtin: bool = False
                  ) -> tuple[RagdollProfile | None, Path | None, ProfileError | None]:
    """The profile for ``model``: its saved one (``profile_location.find_profile``), else a new
    automatic setup. Returns (profile, the file it came from or None, the error that made a saved
    profile unusable or None). Raises ``ValueError`` when there is no saved profile and the model
    cannot have an automatic one (no bones)."""
    found = find_profile(model.files[0], data_dir, builtin) if model.files else None
    if found is not None:
        try:
            profile = load_profile(found)
            bind_rig(model, profile)
            return profile, found, None
        except ProfileError as error:
            return auto_setup(model), None, ProfileError(found, error.where, error.message)
    return auto_setup(model), None, None
