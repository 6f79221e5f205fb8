"""The ragdoll editing and simulation state of the main window: the profile and its file, the undo
stack, the selected part and joint, the Ragdoll world and whether it runs. The panel and the viewport
are views of it (docs/style.md, napari): they call its methods and redraw on its signals.

Every profile edit goes through the undo stack as a whole-profile snapshot (profiles are small), so
undo, redo, symmetric edits and "Auto Setup" are all the same command; ``dirty`` is the stack not
being at its clean index. The session never edits a profile in place: each change makes a new one,
validated first (``RagdollProfile`` checks, then binding to the model's bones).

Stepping happens on the window's UI tick (``tick``): ``Ragdoll.advance(elapsed, budget)`` runs the
fixed 240 Hz steps that the wall time since the last tick asks for. The budget follows what that costs:
stepping may take up to REALTIME_SHARE of the wall time since the last tick, so the simulation keeps
real time whenever its cost allows, however slowly frames are drawn, and never more than ``budget``
per frame, so a machine that cannot keep up shows slow motion instead of freezing the window. One
ragdoll costs about 0.2-0.3 ms a step here, about 1 ms a frame, and keeping pybullet on the UI thread
means picking, shooting, dragging and rebuilding after an edit need no locking.
"""

from __future__ import annotations

import re
import time as _time
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, QStandardPaths, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from app import maths
from app.model import Clip, Model
from app.physics.autosetup import auto_setup, fit_part, joint_between
from app.physics.profile import ProfileError, RagdollProfile, load_profile, save_profile
from app.physics.profile_location import find_profile, save_location
from app.physics.ragdoll import DRAG_WEIGHTS, GRAVITY, TIME_STEP, Ragdoll, RayHit
from app.physics.rig import Rig, bind_rig
from app.pose import Pose
from app.render.gizmos import GizmoScene, pick_box, ragdoll_scene
from app.resources import demo_paths
from app.ui.view_overlay import ViewMarks

#: Default shot impulse (N·s) and per-frame stepping budget (s).
DEFAULT_IMPULSE = 25.0
DEFAULT_BUDGET = 0.05
#: Frames a run keeps for baking (ten minutes at 60 frames per second).
MAX_RUN_FRAMES = 36_000
#: The most of each tick's wall time that stepping may take (the rest draws the frame).
REALTIME_SHARE = 0.8
#: "Step" advances one display frame of this many seconds.
STEP_SECONDS = 1.0 / 60.0
#: Consecutive edits of the same fields of the same part or joint within this many seconds are one
#: undo step (a spin box's arrows held down).
MERGE_SECONDS = 1.5
#: How often (seconds of wall time) the real-time statistics are refreshed.
STATS_SECONDS = 0.5
#: A pair's separation closer than this (cosine) to a model axis mirrors about that axis exactly.
AXIS_SNAP = np.cos(np.radians(20.0))

_SIDE_WORDS = re.compile(r"Left|Right|left|right|LEFT|RIGHT")
_SIDE_LETTER = re.compile(r"(?<![A-Za-z])[LlRr](?![A-Za-z])")
_FUSED_SIDE = re.compile(r"^[lr](?=(?:bicep|forearm|hand|thigh|shin|foot|uparm|arm|leg)(?![a-z]))")
_SWAP = {"Left": "Right", "Right": "Left", "left": "right", "right": "left", "LEFT": "RIGHT", "RIGHT": "LEFT",
         "L": "R", "R": "L", "l": "r", "r": "l"}


# --- left and right ------------------------------------------------------------------------------

def mirror_name(name: str) -> str | None:
    """The name of the other side's twin (``thigh_l`` → ``thigh_r``, ``Bip01 L Thigh`` → ``Bip01 R
    Thigh``, ``mixamorig:LeftArm`` → ``mixamorig:RightArm``, NWN ``lthigh_g`` → ``rthigh_g``), or None."""
    for pattern in (_SIDE_WORDS, _SIDE_LETTER, _FUSED_SIDE):
        swapped = pattern.sub(lambda match: _SWAP[match.group(0)], name)
        if swapped != name:
            return swapped
    return None


def mirror_bones(model: Model) -> np.ndarray:
    """(B,) each bone's twin on the other side (−1: none): a ``.prm`` ``mirror`` extra when the file
    gave one, else the bone named as its mirror (``mirror_name``)."""
    skeleton = model.skeleton
    names = {name: index for index, name in enumerate(skeleton.names)}
    twins = np.full(len(skeleton), -1, dtype=np.intp)
    for bone, name in enumerate(skeleton.names):
        extra = skeleton.extras[bone].get("mirror") if skeleton.extras else None
        if isinstance(extra, (int, np.integer)) and 0 <= extra < len(skeleton) and extra != bone:
            twins[bone] = int(extra)
            continue
        other = mirror_name(name)
        if other is not None and other in names:
            twins[bone] = names[other]
    return twins


def part_mirrors(model: Model, profile: RagdollProfile) -> dict[str, str]:
    """Part name → the name of its twin: the part on the mirror bone, else the part named as its mirror."""
    twins = mirror_bones(model)
    by_bone = {part.bone: part.name for part in profile.parts}
    names = {part.name for part in profile.parts}
    result = {}
    for part in profile.parts:
        other = None
        if part.bone in model.skeleton.names:
            twin = twins[model.skeleton.index(part.bone)]
            other = by_bone.get(model.skeleton.names[twin]) if twin >= 0 else None
        if other is None:
            candidate = mirror_name(part.name)
            other = candidate if candidate in names else None
        if other is not None and other != part.name:
            result[part.name] = other
    return result


def joint_mirrors(profile: RagdollProfile, parts: dict[str, str]) -> dict[str, str]:
    """Joint name → the joint joining the twins of its parts (a part without a twin is its own)."""
    by_parts = {frozenset((j.part_a, j.part_b)): j.name for j in profile.joints}
    result = {}
    for joint in profile.joints:
        ends = (parts.get(joint.part_a, joint.part_a), parts.get(joint.part_b, joint.part_b))
        twin = by_parts.get(frozenset(ends))
        if twin is not None and twin != joint.name:
            result[joint.name] = twin
    return result


def reflection(rig: Rig, part: int, twin: int) -> np.ndarray:
    """(3, 3) the reflection taking part ``part`` to its twin at the bind pose: across the plane
    square to the line between their centres (snapped to a model axis when close to one)."""
    normal, valid = maths.normalize(rig.part_bind[part, :3, 3] - rig.part_bind[twin, :3, 3])
    if not valid:
        normal = np.array([1.0, 0.0, 0.0])
    axis = int(np.argmax(np.abs(normal)))
    if abs(normal[axis]) >= AXIS_SNAP:
        normal = np.eye(3)[axis]
    return np.eye(3) - 2.0 * np.outer(normal, normal)


def mirrored_rotation(quaternion, mirror: np.ndarray) -> tuple[float, float, float, float]:
    """A joint frame's rotation (x, y, z, w) reflected by ``mirror`` (3, 3) with its Z axis flipped
    back, so the result is a rotation whose limits mean the mirror image of the same motion."""
    rotation = maths.quat_to_matrix(maths.quat_normalize(np.asarray(quaternion, np.float64)))[:3, :3]
    frame = np.eye(4)
    frame[:3, :3] = mirror @ rotation @ np.diag([1.0, 1.0, -1.0])
    return tuple(float(v) for v in maths.quat_from_matrix(frame))


# --- Euler angles for the joint editor -------------------------------------------------------------

def quaternion_to_euler(quaternion) -> tuple[float, float, float]:
    """Static-axis XYZ Euler angles in degrees (X applied first) of a quaternion (x, y, z, w)."""
    matrix = maths.quat_to_matrix(maths.quat_normalize(np.asarray(quaternion, np.float64)))
    x = np.arctan2(matrix[2, 1], matrix[2, 2])
    y = np.arcsin(np.clip(-matrix[2, 0], -1.0, 1.0))
    z = np.arctan2(matrix[1, 0], matrix[0, 0])
    return tuple(float(np.degrees(v)) for v in (x, y, z))


def euler_to_quaternion(degrees) -> tuple[float, float, float, float]:
    """The quaternion (x, y, z, w) of static-axis XYZ Euler angles in degrees."""
    matrix = maths.euler_to_matrix(np.radians(np.asarray(degrees, np.float64)), "XYZ")
    return tuple(float(v) for v in maths.quat_from_matrix(matrix))


# --- undo ----------------------------------------------------------------------------------------

class ProfileCommand(QUndoCommand):
    """Replace the session's profile by ``after``; undo puts ``before`` back. Edits with the same
    ``key`` (target and fields) in quick succession merge into one step."""

    ID = 1

    def __init__(self, session: RagdollSession, text: str, before: RagdollProfile, after: RagdollProfile,
                 key: tuple | None = None):
        super().__init__(text)
        self.session, self.before, self.after, self.key = session, before, after, key
        self.time = _time.monotonic()

    def redo(self) -> None:
        self.session._set_profile(self.after)

    def undo(self) -> None:
        self.session._set_profile(self.before)

    def id(self) -> int:
        return self.ID if self.key is not None else -1

    def mergeWith(self, other) -> bool:
        if (not isinstance(other, ProfileCommand) or other.key != self.key
                or other.time - self.time > MERGE_SECONDS):
            return False
        self.after, self.time = other.after, other.time
        return True


# --- the session ---------------------------------------------------------------------------------

class RagdollSession(QObject):
    """What the ragdoll panel edits and the viewport shows.

    Signals: ``profile_changed`` (a new or edited profile, also after undo/redo), ``state_changed``
    (running, paused, settings, file, dirty flag, message), ``pose_changed`` (the simulation moved),
    ``selection_changed`` (selected part or joint).
    """

    profile_changed = Signal()
    state_changed = Signal()
    pose_changed = Signal()
    selection_changed = Signal()

    def __init__(self, parent=None, data_dir: str | Path | None = None):
        super().__init__(parent)
        self.data_dir = Path(data_dir) if data_dir is not None else Path(
            QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation))
        self.model: Model | None = None
        self.profile: RagdollProfile | None = None
        self.rig: Rig | None = None
        self.ragdoll: Ragdoll | None = None
        self.path: Path | None = None
        self.loaded_from: Path | None = None
        self.load_error: ProfileError | None = None
        self.undo_stack = QUndoStack(self)
        self.undo_stack.cleanChanged.connect(self._clean_changed)
        self.running = False
        self.paused = False
        self.selected_part: int | None = None
        self.selected_joint: int | None = None
        self.symmetric = True
        self.tool = "shoot"
        self.impulse = DEFAULT_IMPULSE
        self.budget = DEFAULT_BUDGET
        self.copies = 1
        self.gravity = True
        self.ground = True
        self.drag_strength: float | None = None
        self.editing = False
        self.message = ""
        self.last_hit: RayHit | None = None
        #: The last shot as the view marks it: (origin, end, hit, monotonic time).
        self.last_shot: tuple[np.ndarray, np.ndarray, bool, float] | None = None
        #: While dragging: (copy, part, the grabbed point in the part's frame (4,)) and the target.
        self._drag_anchor: tuple[int, int, np.ndarray] | None = None
        self.drag_target: np.ndarray | None = None
        self.realtime: float | None = None
        self.steps_per_frame = 0.0
        self.last_tick_seconds = 0.0
        self._clip_world: np.ndarray | None = None
        self._drag_plane: tuple[np.ndarray, np.ndarray] | None = None
        self._stats = [0.0, 0, 0]  # wall seconds, steps, ticks since the last refresh
        self._run: list[tuple[float, np.ndarray]] = []  # (ragdoll time, bone world) per shown frame

    # --- model and profile -------------------------------------------------------------------------

    def _clean_changed(self, _clean: bool) -> None:
        # A method, not a lambda: Qt drops the connection when the session goes, before its stack does.
        self.state_changed.emit()

    @property
    def dirty(self) -> bool:
        """True when the profile has edits that were not saved."""
        return not self.undo_stack.isClean()

    def set_model(self, model: Model | None, keep_profile: bool = False) -> None:
        """Bind to ``model``: its saved profile (``<file>.ragdoll.json``), else an auto-setup. With
        ``keep_profile`` (a reload of the same files) the current profile and its undo history stay
        when they still fit the model's bones."""
        self.stop()
        self._close_ragdoll()
        previous = self.profile
        self.model = model
        self._clip_world = None
        if keep_profile and previous is not None and model is not None:
            try:
                self.rig = bind_rig(model, previous)
            except ProfileError:
                pass
            else:
                self.profile_changed.emit()
                self.state_changed.emit()
                return
        self.message = ""
        self.load_error = None
        profile = found = None
        if model is not None and model.files:
            builtin = [str(f) for f in model.files] == [str(f) for f in demo_paths()]
            found = find_profile(model.files[0], self.data_dir, builtin)
            self.path = found or save_location(model.files[0], self.data_dir, builtin)
        else:
            self.path = None
        if model is not None:
            try:
                profile = load_profile(found) if found is not None else None
                if profile is not None:
                    bind_rig(model, profile)
                    self.message = f"Loaded {found.name}"
            except ProfileError as error:
                profile = None
                self.load_error = ProfileError(found, error.where, error.message)
                self.message = (f"Could not use {found.name} (left as it is); "
                                f"this is a new automatic setup, not saved")
            if profile is None:
                try:
                    profile = auto_setup(model)
                except ValueError as error:
                    self.message = str(error)
        self.loaded_from = found if self.load_error is None else None
        self._replace_profile(profile)
        if self.load_error is not None:
            self.undo_stack.resetClean()
            self.state_changed.emit()

    def _replace_profile(self, profile: RagdollProfile | None) -> None:
        """A new document: the profile, no undo history, clean."""
        self.undo_stack.clear()
        self.selected_part = self.selected_joint = None
        self._set_profile(profile)
        self.undo_stack.setClean()
        self.selection_changed.emit()
        self.state_changed.emit()

    def _set_profile(self, profile: RagdollProfile | None) -> None:
        """Show ``profile`` (already checked): the rig, the ragdoll rebuilt, the selection kept in range."""
        self.profile = profile
        self.rig = bind_rig(self.model, profile) if profile is not None else None
        if self.ragdoll is not None:
            if profile is None:
                self._close_ragdoll()
            else:
                try:
                    self.ragdoll.rebuild(profile)
                    self._apply_settings()
                except Exception as error:  # noqa: BLE001 - pybullet refusing a profile must not kill the editor
                    self._close_ragdoll()
                    self.message = f"Could not build the ragdoll: {error}"
        parts = len(profile.parts) if profile is not None else 0
        joints = len(profile.joints) if profile is not None else 0
        if self.selected_part is not None and self.selected_part >= parts:
            self.selected_part = None
        if self.selected_joint is not None and self.selected_joint >= joints:
            self.selected_joint = None
        self.profile_changed.emit()
        if self.running:
            self.pose_changed.emit()

    def _push(self, text: str, candidate: RagdollProfile, key: tuple | None = None) -> None:
        """Check ``candidate`` against the model and make it the profile as one undo step."""
        try:
            bind_rig(self.model, candidate)
        except ProfileError as error:
            raise ValueError(f"{error.where}: {error.message}") from None
        self.undo_stack.push(ProfileCommand(self, text, self.profile.copy(), candidate, key))

    def edit_part(self, name: str, **changes) -> None:
        """Change fields of part ``name`` (``bone``, ``size``, ``offset``, ``mass``, ``rotation``,
        ``shape``), and its twin's when ``symmetric`` (sizes, mass and shape copied, the offset
        reflected, the bone mirrored).
        ``ValueError`` names the bad field; the profile is then unchanged."""
        changes = {key: _plain(value) for key, value in changes.items()}
        candidate = self.profile.copy()
        candidate.set_part(name, **changes)
        twin = self.mirror_part(name) if self.symmetric else None
        if twin is not None:
            candidate.set_part(twin, **self._mirrored_part_changes(name, twin, changes))
        label = f"{name} and {twin}" if twin else name
        self._push(f"Edit {label} {', '.join(sorted(changes))}", candidate,
                   ("part", name, tuple(sorted(changes))))

    def edit_joint(self, name: str, **changes) -> None:
        """Change fields of joint ``name`` (parts, offsets, rotation, kind, limits), and its twin's
        when ``symmetric`` (limits copied, offsets and rotation reflected)."""
        changes = {key: _plain(value) for key, value in changes.items()}
        candidate = self.profile.copy()
        candidate.set_joint(name, **changes)
        twin = self.mirror_joint(name) if self.symmetric else None
        if twin is not None:
            candidate.set_joint(twin, **self._mirrored_joint_changes(name, twin, changes, candidate))
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
        names = {part.name for part in self.profile.parts}
        name = next(n for n in (bone if k == 1 else f"{bone} ({k})" for k in range(1, len(names) + 2))
                    if n not in names)
        candidate = self.profile.copy()
        candidate.add_part(fit_part(self.model, candidate, bone, name))
        candidate.add_joint(joint_between(self.model, candidate, follows, name,
                                          self._free_joint_name(f"{follows}-{name}")))
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
        name = self._free_joint_name(f"{part_a}-{part_b}")
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

    def _free_joint_name(self, wanted: str) -> str:
        names = {joint.name for joint in self.profile.joints}
        return next(n for n in (wanted if k == 1 else f"{wanted} ({k})" for k in range(1, len(names) + 2))
                    if n not in names)

    def set_total_mass(self, total: float) -> None:
        candidate = self.profile.copy()
        candidate.set_total_mass(total)
        self._push(f"Total mass {total:g} kg", candidate, ("total_mass",))

    def auto_setup(self) -> None:
        """Replace the profile by a fresh auto-setup (one undo step)."""
        candidate = auto_setup(self.model)
        self._push("Auto setup", candidate)

    def undo(self) -> None:
        self.undo_stack.undo()

    def redo(self) -> None:
        self.undo_stack.redo()

    # --- symmetry ------------------------------------------------------------------------------------

    def mirror_part(self, name: str) -> str | None:
        return part_mirrors(self.model, self.profile).get(name) if self.profile is not None else None

    def mirror_joint(self, name: str) -> str | None:
        if self.profile is None:
            return None
        return joint_mirrors(self.profile, part_mirrors(self.model, self.profile)).get(name)

    def _mirrored_part_changes(self, name: str, twin: str, changes: dict) -> dict:
        rig, names = self.rig, self.rig.part_names
        mirror = reflection(rig, names.index(name), names.index(twin))
        result = {}
        for key, value in changes.items():
            if key in ("size", "mass", "shape"):
                result[key] = value
            elif key == "offset":
                result[key] = tuple(float(v) for v in mirror @ np.asarray(value, np.float64))
            elif key == "bone":
                twins = mirror_bones(self.model)
                bone = twins[self.model.skeleton.index(value)]
                if bone >= 0:
                    result[key] = self.model.skeleton.names[bone]
        return result

    def _mirrored_joint_changes(self, name: str, twin: str, changes: dict, candidate: RagdollProfile) -> dict:
        rig, names = self.rig, self.rig.part_names
        source = candidate.joints[candidate.joint_index(name)]
        target = self.profile.joints[self.profile.joint_index(twin)]
        parts = part_mirrors(self.model, self.profile)
        side_a = names.index(source.part_a)
        mirror = reflection(rig, side_a, names.index(parts.get(source.part_a, source.part_a)))
        # The twin may list its parts the other way round.
        swapped = parts.get(source.part_a, source.part_a) != target.part_a
        result = {}
        for key, value in changes.items():
            if key in ("low", "high", "swing1", "swing2", "twist", "kind"):
                result[key] = value
            elif key in ("offset_a", "offset_b"):
                own = source.part_a if key == "offset_a" else source.part_b
                other = parts.get(own, own)
                vector = rig.part_bind[names.index(own), :3, :3] @ np.asarray(value, np.float64)
                local = rig.part_bind[names.index(other), :3, :3].T @ (mirror @ vector)
                target_key = key if not swapped else ("offset_b" if key == "offset_a" else "offset_a")
                result[target_key] = tuple(float(v) for v in local)
            elif key == "rotation":
                result[key] = mirrored_rotation(value, mirror)
            elif key in ("part_a", "part_b"):
                target_key = key if not swapped else ("part_b" if key == "part_a" else "part_a")
                result[target_key] = parts.get(value, value)
        if source.kind == "hinge" and any(key in result for key in ("low", "high")):
            # Limits copy as they are when the twin's hinge axis is the mirror of this one's.
            rotation = result.get("rotation", target.rotation)
            expected = mirrored_rotation(source.rotation, mirror)
            z_twin = maths.quat_to_matrix(maths.quat_normalize(np.asarray(rotation, float)))[:3, 2]
            z_expected = maths.quat_to_matrix(maths.quat_normalize(np.asarray(expected, float)))[:3, 2]
            if z_twin @ z_expected < 0:
                low, high = result.get("low", source.low), result.get("high", source.high)
                result["low"], result["high"] = -high, -low
        return result

    # --- selection -----------------------------------------------------------------------------------

    def select_part(self, index: int | None) -> None:
        if index != self.selected_part:
            self.selected_part = index
            self.selection_changed.emit()

    def select_joint(self, index: int | None) -> None:
        if index != self.selected_joint:
            self.selected_joint = index
            self.selection_changed.emit()

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
        self.undo_stack.setClean()
        self.message = f"Saved {target.name}"
        self.state_changed.emit()
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
        self._replace_profile(profile)

    # --- simulation ----------------------------------------------------------------------------------

    def _ensure_ragdoll(self) -> Ragdoll:
        if self.ragdoll is None:
            if self.profile is None:
                raise ValueError(self.message or "this model has no ragdoll profile")
            self.ragdoll = Ragdoll(self.model, self.profile, copies=self.copies, ground=self.ground,
                                   gravity=self.gravity)
            self._apply_settings()
        return self.ragdoll

    def _apply_settings(self) -> None:
        if self.drag_strength is not None:
            self.ragdoll.set_drag_strength(self.drag_strength)

    def _close_ragdoll(self) -> None:
        """Drop the world (it is rebuilt on the next start); nothing runs without one."""
        if self.ragdoll is not None:
            self.ragdoll.close()
            self.ragdoll = None
        if self.running:
            self.running = False
            self._drag_plane = None
            self.state_changed.emit()

    def go(self, clip: Clip | None, time: float) -> None:
        """Take over from ``clip`` at ``time`` seconds (its pose and velocities) and start simulating."""
        ragdoll = self._ensure_ragdoll()
        ragdoll.take_over_clip(clip, time)
        self.running, self.paused = True, False
        self.last_hit = None
        self.realtime = None
        self._stats = [0.0, 0, 0]
        self._run = []
        self._record()
        self.state_changed.emit()
        self.pose_changed.emit()

    def _record(self) -> None:
        """Keep the shown frame for ``baked_clip``; a run that went back in time (reset, a rebuild
        after an edit) starts over."""
        ragdoll = self.ragdoll
        if self._run and ragdoll.time <= self._run[-1][0]:
            self._run = [] if ragdoll.time < self._run[-1][0] else self._run[:-1]
        if len(self._run) < MAX_RUN_FRAMES:
            self._run.append((ragdoll.time, ragdoll.bone_world()))

    @property
    def run_frames(self) -> int:
        """How many frames of the current run ``baked_clip`` would hold."""
        return len(self._run)

    def baked_clip(self) -> Clip | None:
        """The run so far (every frame the view showed, from the take-over) as a 'matrices' clip
        named ``ragdoll`` (``ragdoll 2`` … when taken), or None before two frames."""
        if len(self._run) < 2:
            return None
        names = {clip.name for clip in self.model.clips}
        name = next(n for n in (f"ragdoll {k}" if k > 1 else "ragdoll" for k in range(1, len(names) + 2))
                    if n not in names)
        times, world = zip(*self._run)
        return Clip(name=name, kind="matrices", times=np.array(times), world=np.stack(world))

    def stop(self) -> None:
        """Back to the clip; the ragdoll world is kept for the next start."""
        if not self.running:
            return
        self.end_drag()
        self.running = False
        self.state_changed.emit()

    def set_paused(self, paused: bool) -> None:
        self.paused = bool(paused)
        self.state_changed.emit()

    def step_frame(self) -> None:
        """One display frame (STEP_SECONDS) of simulation, paused or not."""
        if self.running:
            self.ragdoll.step(int(round(STEP_SECONDS / TIME_STEP)))
            self._record()
            self.pose_changed.emit()

    def reset(self) -> None:
        """Back to the pose the ragdoll took over from."""
        if self.ragdoll is not None:
            self.ragdoll.reset()
            if self.running:
                self._record()
            self.pose_changed.emit()

    def tick(self, elapsed: float) -> int:
        """Simulate ``elapsed`` wall seconds within the budget (the window's UI tick); the steps taken."""
        if not self.running or self.paused:
            return 0
        started = _time.perf_counter()
        taken = self.ragdoll.advance(elapsed, self.tick_budget(elapsed))
        stats = self._stats
        stats[0] += elapsed
        stats[1] += taken
        stats[2] += 1
        if stats[0] >= STATS_SECONDS:
            self.realtime = stats[1] * TIME_STEP / stats[0]
            self.steps_per_frame = stats[1] / stats[2]
            self._stats = [0.0, 0, 0]
            self.state_changed.emit()
        if taken:
            self._record()
            self.pose_changed.emit()
        self.last_tick_seconds = _time.perf_counter() - started
        return taken

    def tick_budget(self, elapsed: float) -> float:
        """Wall seconds stepping may take in a tick ``elapsed`` seconds after the last one."""
        return min(self.budget, REALTIME_SHARE * max(elapsed, TIME_STEP))

    def set_setting(self, name: str, value) -> None:
        """Change ``gravity``, ``ground``, ``copies``, ``impulse``, ``budget``, ``drag_strength``,
        ``tool`` or ``symmetric``; the running world follows at once."""
        if name in ("impulse", "budget", "drag_strength") and not float(value) > 0:
            raise ValueError(f"{name}: expected a positive number, got {value}")
        if name == "tool" and value not in ("shoot", "drag"):
            raise ValueError(f"tool: expected 'shoot' or 'drag', got {value!r}")
        if name not in ("gravity", "ground", "copies", "impulse", "budget", "drag_strength", "tool",
                        "symmetric"):
            raise ValueError(f"unknown setting {name!r}")
        setattr(self, name, value)
        ragdoll = self.ragdoll
        if ragdoll is not None:
            if name in ("gravity", "ground"):
                setattr(ragdoll, name, bool(value))
            elif name == "copies":
                ragdoll.set_copies(int(value))
                self.pose_changed.emit()
            elif name == "drag_strength":
                ragdoll.set_drag_strength(float(value))
        self.state_changed.emit()

    @property
    def current_drag_strength(self) -> float | None:
        """The drag spring's force limit (N): the one set, else the ragdoll's default (a few times
        its weight)."""
        if self.drag_strength is not None:
            return self.drag_strength
        if self.ragdoll is not None:
            return self.ragdoll.drag_strength
        return DRAG_WEIGHTS * self.profile.total_mass * GRAVITY if self.profile is not None else None

    def pose(self, copy: int = 0) -> Pose:
        return self.ragdoll.pose(copy)

    def set_clip_pose(self, pose: Pose) -> None:
        """The animated pose on screen while not running (where the gizmos and picking place the parts)."""
        self._clip_world = pose.world

    # --- viewport interaction ------------------------------------------------------------------------

    def part_frames(self) -> np.ndarray | None:
        """(C, P, 4, 4) every copy's part frames now: simulated, else following the clip's pose."""
        if self.rig is None:
            return None
        if self.running:
            return self.ragdoll.all_part_world()
        world = self._clip_world if self._clip_world is not None else self.model.skeleton.rest_world
        return self.rig.parts_at(world)[None]

    def click_ray(self, origin, direction) -> bool:
        """A click in the view: shoot while running (``tool`` 'shoot'), else select the part under
        the cursor while editing. True when the click was used."""
        if self.running:
            if self.tool != "shoot":
                return False
            hit = self.ragdoll.shoot(origin, direction, self.impulse)
            self.last_hit = hit
            origin = np.asarray(origin, np.float64)
            end = hit.point if hit else origin + np.asarray(direction, np.float64) * 3.0 * self.model.extent()
            self.last_shot = (origin, np.asarray(end, np.float64), hit is not None, _time.monotonic())
            self.message = f"Shot {hit.name} ({self.impulse:g} N·s)" if hit else "Missed"
            if hit is not None and hit.copy == 0:
                self.select_part(hit.part)
            self.state_changed.emit()
            return True
        if not self.editing or self.rig is None:
            return False
        frames = self.part_frames()[0] @ self.rig.box_rotations
        hit = pick_box(origin, direction, frames, self.rig.half_extents)
        if hit is None:
            return False
        self.select_part(hit[0])
        return True

    def begin_drag_ray(self, origin, direction, forward, forced: bool = False) -> bool:
        """Start pulling the part under the cursor (while running, with the 'drag' tool or
        ``forced`` by Ctrl); the target then moves in the plane square to ``forward`` through the hit."""
        if not self.running or not (forced or self.tool == "drag"):
            return False
        hit = self.ragdoll.begin_drag(origin, direction)
        if hit is None:
            return False
        self._drag_plane = (hit.point, np.asarray(forward, np.float64))
        frame = self.part_frames()[hit.copy][hit.part]
        self._drag_anchor = (hit.copy, hit.part, np.linalg.solve(frame, np.append(hit.point, 1.0)))
        self.drag_target = np.asarray(hit.point, np.float64)
        self.message = f"Dragging {hit.name}"
        self.state_changed.emit()
        return True

    def drag_ray(self, origin, direction) -> None:
        if self._drag_plane is None or self.ragdoll is None:
            return
        point, normal = self._drag_plane
        direction = np.asarray(direction, np.float64)
        denominator = float(direction @ normal)
        if abs(denominator) < 1e-9:
            return
        distance = float((point - np.asarray(origin, np.float64)) @ normal) / denominator
        if distance > 0:
            self.drag_target = np.asarray(origin, np.float64) + direction * distance
            self.ragdoll.drag_to(self.drag_target)

    def end_drag(self) -> None:
        if self._drag_plane is not None:
            self._drag_plane = None
            self._drag_anchor = self.drag_target = None
            if self.ragdoll is not None:
                self.ragdoll.end_drag()
            if self.message.startswith("Dragging"):
                self.message = ""
            self.state_changed.emit()

    def marks(self) -> ViewMarks:
        """The last shot's ray and the drag spring, for the view to draw (none while stopped)."""
        if not self.running:
            return ViewMarks()
        spring = None
        if self._drag_anchor is not None and self.drag_target is not None:
            copy, part, local = self._drag_anchor
            spring = ((self.part_frames()[copy][part] @ local)[:3], self.drag_target)
        return ViewMarks(shot=self.last_shot, spring=spring)

    # --- drawing -------------------------------------------------------------------------------------

    def gizmo_scene(self) -> GizmoScene | None:
        """What the viewport draws over the model: while editing, the boxes, joint frames and limits
        (selection highlighted); while running with several copies, the other copies' boxes."""
        if self.rig is None or not (self.editing or (self.running and self.copies > 1)):
            return None
        frames = self.part_frames()
        rig = self.rig
        boxes = frames @ rig.box_rotations
        return ragdoll_scene(
            boxes[0] if self.editing else None, rig.half_extents, extent=self.model.extent(),
            joint_world=rig.joint_world(frames[0]), hinge=rig.hinge, joint_limits=rig.joint_limits,
            selected_part=self.selected_part, selected_joint=self.selected_joint,
            copy_box_world=boxes[1:].reshape(-1, 4, 4) if len(boxes) > 1 else None, show_joints=self.editing,
            capsules=rig.capsules)

    def close(self) -> None:
        self.running = False
        self._close_ragdoll()


def _plain(value):
    """Numbers from widgets and numpy as plain floats (tuples for vectors), so profiles compare and save."""
    if isinstance(value, str):
        return value
    if np.ndim(value):
        return tuple(float(v) for v in np.asarray(value).reshape(-1))
    numeric = isinstance(value, (int, float, np.number)) and not isinstance(value, bool)
    return float(value) if numeric else value

