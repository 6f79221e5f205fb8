"""The ragdoll profile being edited for a model: the profile and its file, the undo history, the
selected part and joint, and symmetric editing.

Every edit is a whole-profile snapshot (profiles are small), so undo, redo, symmetric edits and
"Auto Setup" are all the same step; ``dirty`` is the history not being at its clean point. The
document never edits a profile in place: each change makes a new one, validated first
(``RagdollProfile`` checks, then binding to the model's bones).

Events: ``profile`` (a new or edited profile, also after undo and redo; the argument says why:
'model' for a new model, 'document' for a loaded or new profile, 'edit' for an edit, undo or redo),
``selection``, ``history`` (undo/redo texts and the clean state), ``file`` (path, load error, message).
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from app.model import Model
from app.events import Events
from app.physics.autosetup import auto_setup, fit_part, joint_between
from app.physics.model_profile import model_profile
from app.physics.profile import ProfileError, RagdollProfile
from app.physics.profile_json import load_profile, save_profile
from app.physics.profile_location import save_location
from app.physics.rig import Rig, bind_rig
from app.physics.symmetry import joint_mirrors, mirrored_joint_changes, mirrored_part_changes, part_mirrors

#: Consecutive edits of the same fields of the same part or joint within this many seconds are one
#: undo step (a spin box's arrows held down, a handle dragged).
MERGE_SECONDS = 1.5


@dataclass
class Step:
    """One undo step: the profile before and after, and what merges into it (``key``)."""

    text: str
    before: RagdollProfile
    after: RagdollProfile
    key: tuple | None = None
    time: float = field(default_factory=_time.monotonic)
    #: The gesture (a handle dragged in the view) the step belongs to; its edits are one step.
    gesture: int | None = None


class RagdollDocument:
    """The profile being edited for ``model`` (see the module's docstring)."""

    def __init__(self, data_dir: str | Path, builtin_files: tuple[str, ...] = ()):
        self.data_dir = Path(data_dir)
        #: The built-in demo's files: its profile lives in the data folder, not the package's.
        self.builtin_files = [str(f) for f in builtin_files]
        self.model: Model | None = None
        self.profile: RagdollProfile | None = None
        self.rig: Rig | None = None
        self.path: Path | None = None
        self.loaded_from: Path | None = None
        self.load_error: ProfileError | None = None
        self.message = ""
        self.symmetric = True
        self.selected_part: int | None = None
        self.selected_joint: int | None = None
        self._steps: list[Step] = []
        self._done = 0  # steps applied (the undo point)
        self._clean: int | None = 0  # the value of _done when saved; None: never reachable again
        self._gesture: int | None = None
        self._gestures = 0
        self.events = Events("profile", "selection", "history", "file")

    # --- model ---------------------------------------------------------------------------------------

    def set_model(self, model: Model | None, keep_profile: bool = False) -> None:
        """Bind to ``model``: its saved profile, else an auto-setup. With ``keep_profile`` (a reload
        of the same files) the current profile and its history stay when they still fit its bones."""
        previous = self.profile
        self.model = model
        if keep_profile and previous is not None and model is not None:
            try:
                self.rig = bind_rig(model, previous)
            except ProfileError:
                pass
            else:
                self.events.emit("profile", "model")
                self.events.emit("file")
                return
        self.message = ""
        self.load_error = None
        self.loaded_from = None
        profile = None
        if model is None:
            self.path = None
        else:
            builtin = bool(model.files) and [str(f) for f in model.files] == self.builtin_files
            self.path = save_location(model.files[0], self.data_dir, builtin) if model.files else None
            try:
                profile, self.loaded_from, self.load_error = model_profile(model, self.data_dir, builtin)
            except ValueError as error:
                self.message = str(error)
            if self.loaded_from is not None:
                self.path = self.loaded_from
                self.message = f"Loaded {self.loaded_from.name}"
            elif self.load_error is not None:
                self.path = Path(self.load_error.path)
                self.message = (f"Could not use {self.path.name} (left as it is); "
                                "this is a new automatic setup, not saved")
        self._replace(profile, "model")
        if self.load_error is not None:
            self._clean = None  # unsaved: the user's file was not used
            self._history_changed()

    def _replace(self, profile: RagdollProfile | None, why: str) -> None:
        """A new document: the profile, no history, clean."""
        self._steps, self._done, self._clean = [], 0, 0
        self.selected_part = self.selected_joint = None
        self._show(profile, why)
        self.events.emit("selection")
        self._history_changed()

    def _show(self, profile: RagdollProfile | None, why: str) -> None:
        """Make ``profile`` (already checked) current: the rig, the selection kept in range."""
        self.profile = profile
        self.rig = bind_rig(self.model, profile) if profile is not None else None
        parts = len(profile.parts) if profile is not None else 0
        joints = len(profile.joints) if profile is not None else 0
        if self.selected_part is not None and self.selected_part >= parts:
            self.selected_part = None
        if self.selected_joint is not None and self.selected_joint >= joints:
            self.selected_joint = None
        self.events.emit("profile", why)

    # --- history -------------------------------------------------------------------------------------

    @property
    def dirty(self) -> bool:
        """True when the profile has edits that were not saved."""
        return self._done != self._clean

    @property
    def can_undo(self) -> bool:
        return self._done > 0

    @property
    def can_redo(self) -> bool:
        return self._done < len(self._steps)

    @property
    def undo_text(self) -> str:
        return self._steps[self._done - 1].text if self.can_undo else ""

    @property
    def redo_text(self) -> str:
        return self._steps[self._done].text if self.can_redo else ""

    @property
    def steps(self) -> tuple[Step, ...]:
        """The undo steps, oldest first (those past the undo point can be redone)."""
        return tuple(self._steps)

    def undo(self) -> None:
        if self.can_undo:
            self._done -= 1
            self._show(self._steps[self._done].before, "edit")
            self._history_changed()

    def redo(self) -> None:
        if self.can_redo:
            self._done += 1
            self._show(self._steps[self._done - 1].after, "edit")
            self._history_changed()

    def begin_gesture(self) -> None:
        """Edits until ``end_gesture`` (a handle dragged in the view) become one undo step, however
        long the gesture takes."""
        self._gestures += 1
        self._gesture = self._gestures

    def end_gesture(self) -> None:
        self._gesture = None

    def mark_clean(self) -> None:
        self._clean = self._done
        self._history_changed()

    def _history_changed(self) -> None:
        self.events.emit("history")
        self.events.emit("file")

    def _push(self, text: str, candidate: RagdollProfile, key: tuple | None = None) -> None:
        """Check ``candidate`` against the model and make it the profile as one undo step (merged
        into the last one when it edits the same ``key`` within MERGE_SECONDS and is not saved)."""
        try:
            bind_rig(self.model, candidate)
        except ProfileError as error:
            raise ValueError(f"{error.where}: {error.message}") from None
        now = _time.monotonic()
        last = self._steps[self._done - 1] if self._done else None
        del self._steps[self._done:]
        if self._clean is not None and self._clean > self._done:
            self._clean = None
        if self._gesture is not None:
            merge = last is not None and last.gesture == self._gesture
        else:
            merge = (key is not None and last is not None and last.key == key and last.gesture is None
                     and now - last.time <= MERGE_SECONDS)
        if merge and self._clean != self._done:
            last.after, last.time, last.text = candidate, now, text
        else:
            self._steps.append(Step(text, self.profile, candidate, key, now, self._gesture))
            self._done += 1
        self._show(candidate, "edit")
        self._history_changed()

    # --- edits ---------------------------------------------------------------------------------------

    def set_symmetric(self, on: bool) -> None:
        """Whether edits of a left or right part or joint also change its twin."""
        self.symmetric = bool(on)
        self.events.emit("file")

    def mirror_part(self, name: str) -> str | None:
        return part_mirrors(self.model, self.profile).get(name) if self.profile is not None else None

    def mirror_joint(self, name: str) -> str | None:
        if self.profile is None:
            return None
        return joint_mirrors(self.profile, part_mirrors(self.model, self.profile)).get(name)

    def edit_part(self, name: str, **changes) -> None:
        """Change fields of part ``name`` (``bone``, ``size``, ``offset``, ``mass``, ``rotation``,
        ``shape``), and its twin's when ``symmetric`` (``symmetry.mirrored_part_changes``).
        ``ValueError`` names the bad field; the profile is then unchanged."""
        changes = {key: _plain(value) for key, value in changes.items()}
        candidate = self.profile.copy()
        candidate.set_part(name, **changes)
        twin = self.mirror_part(name) if self.symmetric else None
        if twin is not None:
            candidate.set_part(twin, **mirrored_part_changes(self.model, self.rig, name, twin, changes))
        label = f"{name} and {twin}" if twin else name
        self._push(f"Edit {label} {', '.join(sorted(changes))}", candidate,
                   ("part", name, tuple(sorted(changes))))

    def edit_joint(self, name: str, **changes) -> None:
        """Change fields of joint ``name`` (parts, offsets, rotation, kind, limits), and its twin's
        when ``symmetric`` (``symmetry.mirrored_joint_changes``)."""
        changes = {key: _plain(value) for key, value in changes.items()}
        candidate = self.profile.copy()
        candidate.set_joint(name, **changes)
        twin = self.mirror_joint(name) if self.symmetric else None
        if twin is not None:
            candidate.set_joint(twin, **mirrored_joint_changes(self.model, self.rig, self.profile, candidate,
                                                               name, twin, changes))
        label = f"{name} and {twin}" if twin else name
        self._push(f"Edit {label} {', '.join(sorted(changes))}", candidate,
                   ("joint", name, tuple(sorted(changes))))

    def add_part(self, bone: str) -> str:
        """Add a part on ``bone``, fitted to it, joined to the part its bone followed (undoable);
        returns the part's name. ``ValueError`` when the bone has a part or does not exist."""
        if bone not in self.model.skeleton.names:
            raise ValueError(f"bone: the name of a bone of the model, got {bone!r}")
        if any(part.bone == bone for part in self.profile.parts):
            raise ValueError(f"bone: {bone!r} has a part already")
        follows = self.profile.parts[self.rig.bone_parts[self.model.skeleton.index(bone)]].name
        name = _free_name(bone, {part.name for part in self.profile.parts})
        candidate = self.profile.copy()
        candidate.add_part(fit_part(self.model, candidate, bone, name))
        candidate.add_joint(joint_between(self.model, candidate, follows, name,
                                          _free_name(f"{follows}-{name}", self._joint_names())))
        self._push(f"Add part {name}", candidate)
        return name

    def remove_part(self, name: str) -> None:
        """Remove a part with its joints (undoable); its bones follow their nearest ancestor's part."""
        if len(self.profile.parts) < 2:
            raise ValueError("parts: a ragdoll keeps at least one part")
        candidate = self.profile.copy()
        candidate.remove_part(name)
        self._push(f"Remove part {name}", candidate)

    def add_joint(self, part_a: str, part_b: str) -> str:
        """Join two parts with a cone-twist at part b's bone (undoable); returns its name."""
        if part_a == part_b:
            raise ValueError("parts: a joint joins two different parts")
        name = _free_name(f"{part_a}-{part_b}", self._joint_names())
        candidate = self.profile.copy()
        candidate.add_joint(joint_between(self.model, candidate, part_a, part_b, name))
        self._push(f"Add joint {name}", candidate)
        return name

    def remove_joint(self, name: str) -> None:
        candidate = self.profile.copy()
        candidate.remove_joint(name)
        self._push(f"Remove joint {name}", candidate)

    def set_collision(self, part_a: str, part_b: str, enabled: bool) -> None:
        """Let two parts collide or not (the profile's collision-pair list; undoable)."""
        candidate = self.profile.copy()
        candidate.set_collision(part_a, part_b, enabled)
        self._push(f"{'Enable' if enabled else 'Disable'} collision {part_a}–{part_b}", candidate)

    def set_total_mass(self, total: float) -> None:
        candidate = self.profile.copy()
        candidate.set_total_mass(total)
        self._push(f"Total mass {total:g} kg", candidate, ("total_mass",))

    def auto_setup(self) -> None:
        """Replace the profile by a fresh auto-setup (one undo step)."""
        self._push("Auto setup", auto_setup(self.model))

    def _joint_names(self) -> set[str]:
        return {joint.name for joint in self.profile.joints}

    # --- selection -----------------------------------------------------------------------------------

    def select_part(self, index: int | None) -> None:
        if index != self.selected_part:
            self.selected_part = index
            self.events.emit("selection")

    def select_joint(self, index: int | None) -> None:
        if index != self.selected_joint:
            self.selected_joint = index
            self.events.emit("selection")

    # --- files ---------------------------------------------------------------------------------------

    def replaces(self, path: str | Path | None = None) -> Path | None:
        """The existing file that saving to ``path`` (default: ``self.path``) would overwrite when it
        is not the file this profile was loaded from or last saved to (the user's file that failed to
        load, say); None when saving replaces nothing of the user's."""
        target = Path(path) if path is not None else self.path
        if target is None or not target.exists() or target == self.loaded_from:
            return None
        return target

    def save(self, path: str | Path | None = None, replace: bool = False) -> Path:
        """Write the profile (to ``path``, else where it was loaded from or beside the model) and
        mark it clean. Raises FileExistsError when that would overwrite a file of the user's other than
        the one the profile came from (``replaces``) unless ``replace``; ProfileError or OSError."""
        target = Path(path) if path is not None else self.path
        if target is None:
            raise ValueError("no file to save to: use Save As")
        if not replace and self.replaces(target) is not None:
            raise FileExistsError(f"{target} exists and is not the file this profile came from")
        target.parent.mkdir(parents=True, exist_ok=True)
        save_profile(self.profile, target)
        self.path = self.loaded_from = target
        self.load_error = None
        self.message = f"Saved {target.name}"
        self.mark_clean()
        return target

    def load(self, path: str | Path) -> None:
        """Read a profile file as the new document (no undo history). Raises ProfileError."""
        profile = load_profile(path)
        try:
            bind_rig(self.model, profile)
        except ProfileError as error:
            raise ProfileError(path, error.where, error.message) from None
        self.path = self.loaded_from = Path(path)
        self.load_error = None
        self.message = f"Loaded {self.path.name}"
        self._replace(profile, "document")


def _free_name(wanted: str, taken: set[str]) -> str:
    """``wanted``, else ``wanted (2)``, ``wanted (3)`` … the first not in ``taken``."""
    return next(n for n in (wanted if k == 1 else f"{wanted} ({k})" for k in range(1, len(taken) + 2))
                if n not in taken)


def _plain(value):
    """Numbers from widgets and numpy as plain floats (tuples for vectors), so profiles compare and save."""
    if isinstance(value, str):
        return value
    if np.ndim(value):
        return tuple(float(v) for v in np.asarray(value).reshape(-1))
    numeric = isinstance(value, (int, float, np.number)) and not isinstance(value, bool)
    return float(value) if numeric else value
