"""A ragdoll profile: parts, bone relations, joints and disabled collision pairs, with its checks
(``first_problem``); profile_json.py reads and writes it.

The fields are the article's (docs/ragdoll.md):

- ``Part`` is ``SetPart(part, bone, offset, mass, shape)``: a box of full edge lengths ``size`` (model
  units) following ``bone``, or with ``shape`` "capsule" the capsule inside that box. Its frame has
  the bone's bind orientation and sits at the bone's midpoint plus ``offset`` (model space, bind pose).
  ``rotation`` turns the box inside that frame, so a box can lie along a bone whose frame does not
  (Boneyard's addition; identity in the article).
- ``relations`` is ``SetBoneRelation``: a bone without a part of its own follows a part, by name.
- ``Joint`` joins parts ``part_a`` and ``part_b``: an attachment point on each (in that part's frame,
  model units) and a quaternion ``(x, y, z, w)``. Its frame at the bind pose is
  ``T(midpoint of the two points) @ R(rotation)``. A hinge turns about the frame's Z axis within
  ``[low, high]``; a cone-twist swings ±``swing1`` about Z and ±``swing2`` about Y and twists
  ±``twist`` about X. Angles are degrees.

Masses are kilograms and ``meters_per_unit`` says how big the model's unit is, so the simulation runs
in metres whatever the file's units. A profile is saved as JSON beside the first model file
(``<file>.ragdoll.json``), atomically, and listeners hear about every edit.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Literal

from app.errors import InputError
from app.events import Events
from app.physics.joint_kinds import JOINT_KINDS, KINDS

#: A part's collision shape: its box, or the capsule inside the box (``capsule_dimensions``).
SHAPES = ("box", "capsule")
#: Largest part mass (kg), box edge or offset (model units) and unit scale a profile may hold: beyond
#: these the simulation's numbers overflow to NaN (a part of 1e18 kg does within a step).
MAX_MASS = 1e5
MAX_LENGTH = 1e6
#: Largest motor torque a joint may name (N·m); ``motors.joint_strengths`` also bounds it by the masses.
MAX_STRENGTH = 1e6
UNIT_RANGE = (1e-6, 1e6)

Vector = tuple[float, float, float]
Quaternion = tuple[float, float, float, float]


class ProfileError(InputError):
    """A profile that cannot be used: the file, the JSON path of the bad field and what was expected."""

    def __init__(self, path: str | Path | None, where: str, message: str):
        self.where = where
        super().__init__(path if path is not None else "ragdoll profile", message)

    def __str__(self) -> str:
        return f"{self.path}: {self.where}: {self.message}" if self.where else f"{self.path}: {self.message}"


@dataclass(frozen=True)
class Part:
    name: str
    bone: str
    size: Vector
    offset: Vector = (0.0, 0.0, 0.0)
    mass: float = 1.0
    rotation: Quaternion = (0.0, 0.0, 0.0, 1.0)
    shape: Literal["box", "capsule"] = "box"


def capsule_dimensions(size) -> tuple[int, float, float]:
    """(axis, radius, length) of the capsule a part of box edges ``size`` holds: it lies along the
    box's longest edge (the first of equal ones), its radius is half the smaller of the other two
    edges and its length, end to end, is the longest edge. Its straight middle is ``length - 2 *
    radius`` (pybullet's capsule height), never negative."""
    axis = max(range(3), key=lambda k: (size[k], -k))
    radius = min(size[k] for k in range(3) if k != axis) / 2
    return axis, radius, size[axis]


@dataclass(frozen=True)
class Joint:
    name: str
    part_a: str
    part_b: str
    offset_a: Vector
    offset_b: Vector
    rotation: Quaternion = (0.0, 0.0, 0.0, 1.0)
    kind: Literal["hinge", "cone_twist"] = "cone_twist"
    low: float = 0.0
    high: float = 0.0
    swing1: float = 0.0
    swing2: float = 0.0
    twist: float = 0.0
    #: The most torque its motors may use (N·m); None: derived from the masses it moves
    #: (``physics/motors.default_strengths``).
    strength: float | None = None

    @property
    def limits(self) -> dict[str, float]:
        """The limits that apply to the kind, in degrees."""
        kind = KINDS[self.kind]
        return dict(zip(kind.limit_names, kind.values(self)))


@dataclass(eq=False)
class RagdollProfile:
    """Parts, relations (bone name → part name), joints, disabled pairs (part names) and settings.

    Edit through the ``set_*``/``add_*``/``remove_*`` methods: each checks the result (``ValueError``
    naming the field, the profile unchanged) and then calls every listener with no arguments.
    """

    parts: list[Part] = field(default_factory=list)
    joints: list[Joint] = field(default_factory=list)
    relations: dict[str, str] = field(default_factory=dict)
    disabled_collisions: list[tuple[str, str]] = field(default_factory=list)
    meters_per_unit: float = 1.0
    linear_damping: float = 0.05
    angular_damping: float = 0.85
    path: Path | None = None
    #: ``changed()`` after every edit.
    events: Events = field(default_factory=lambda: Events("changed"), init=False, repr=False)

    # --- reading ---------------------------------------------------------------------------------

    @property
    def total_mass(self) -> float:
        return sum(part.mass for part in self.parts)

    def part_index(self, name: str) -> int:
        return _index(self.parts, name, "part")

    def joint_index(self, name: str) -> int:
        return _index(self.joints, name, "joint")

    def copy(self) -> RagdollProfile:
        """An independent copy without listeners (for undo snapshots)."""
        return RagdollProfile(list(self.parts), list(self.joints), dict(self.relations),
                              list(self.disabled_collisions), self.meters_per_unit, self.linear_damping,
                              self.angular_damping, self.path)

    # --- editing ---------------------------------------------------------------------------------

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after every edit; returns the function that stops it."""
        return self.events.subscribe("changed", listener)

    def _commit_fields(self, **fields) -> None:
        """Commit a copy of the profile with ``fields`` (profile field → new value) replaced."""
        candidate = self.copy()
        for name, value in fields.items():
            setattr(candidate, name, value)
        self._commit(candidate)

    def _commit(self, candidate: RagdollProfile) -> None:
        problem = first_problem(candidate)
        if problem:
            raise ValueError(f"{problem[0]}: {problem[1]}")
        for name in ("parts", "joints", "relations", "disabled_collisions", "meters_per_unit",
                     "linear_damping", "angular_damping"):
            setattr(self, name, getattr(candidate, name))
        self.events.emit("changed")

    def set_part(self, part: str, /, **changes) -> None:
        """Change fields of part ``part``; a new ``name`` is followed by joints, relations and pairs."""
        candidate = self.copy()
        index = self.part_index(part)
        candidate.parts[index] = replace(self.parts[index], **changes)
        new = candidate.parts[index].name
        if new != part:
            _rename_part(candidate, part, new)
        self._commit(candidate)

    def add_part(self, part: Part) -> None:
        """Add a part; its bone stops following another part."""
        self._commit_fields(parts=[*self.parts, part],
                            relations={b: p for b, p in self.relations.items() if b != part.bone})

    def add_joint(self, joint: Joint) -> None:
        self._commit_fields(joints=[*self.joints, joint])

    def remove_joint(self, name: str) -> None:
        self.joint_index(name)
        self._commit_fields(joints=[j for j in self.joints if j.name != name])

    def remove_part(self, name: str) -> None:
        """Remove a part with its joints, the relations to it and its disabled pairs."""
        self.part_index(name)
        self._commit_fields(
            parts=[p for p in self.parts if p.name != name],
            joints=[j for j in self.joints if name not in (j.part_a, j.part_b)],
            relations={b: p for b, p in self.relations.items() if p != name},
            disabled_collisions=[pair for pair in self.disabled_collisions if name not in pair])

    def set_joint(self, joint: str, /, **changes) -> None:
        index = self.joint_index(joint)
        joints = list(self.joints)
        joints[index] = replace(joints[index], **changes)
        self._commit_fields(joints=joints)

    def set_relation(self, bone: str, part: str | None) -> None:
        """Make ``bone`` follow ``part`` (None: back to the default, the nearest ancestor's part)."""
        relations = dict(self.relations)
        if part is None:
            relations.pop(bone, None)
        else:
            relations[bone] = part
        self._commit_fields(relations=relations)

    def set_collision(self, part_a: str, part_b: str, enabled: bool) -> None:
        """Enable or disable collisions between two parts."""
        pair = {part_a, part_b}
        pairs = [p for p in self.disabled_collisions if set(p) != pair]
        self._commit_fields(disabled_collisions=pairs if enabled else [*pairs, (part_a, part_b)])

    def set_total_mass(self, total: float) -> None:
        """Scale every part's mass so they add up to ``total`` kg, keeping their ratios."""
        if not total > 0 or not self.parts:
            raise ValueError(f"total mass: expected a positive number and at least one part, got {total}")
        factor = total / self.total_mass
        self._commit_fields(parts=[replace(part, mass=part.mass * factor) for part in self.parts])


def _index(items: list, name: str, what: str) -> int:
    """The index of the item named ``name`` in ``items`` (parts or joints); KeyError when none is."""
    for index, item in enumerate(items):
        if item.name == name:
            return index
    raise KeyError(f"no {what} named {name!r}")


def _rename_part(profile: RagdollProfile, old: str, new: str) -> None:
    profile.joints = [replace(j, part_a=new if j.part_a == old else j.part_a,
                              part_b=new if j.part_b == old else j.part_b) for j in profile.joints]
    profile.relations = {b: new if p == old else p for b, p in profile.relations.items()}
    profile.disabled_collisions = [tuple(new if n == old else n for n in pair)
                                   for pair in profile.disabled_collisions]


# --- checks --------------------------------------------------------------------------------------

def first_problem(profile: RagdollProfile) -> tuple[str, str] | None:
    """The first inconsistency as (JSON path, what was expected), or None."""
    names = [part.name for part in profile.parts]
    if not profile.parts:
        return "parts", "at least one part"
    bones = [part.bone for part in profile.parts]
    for index, part in enumerate(profile.parts):
        where = f"parts[{index}]"
        first_name, first_bone = names.index(part.name), bones.index(part.bone)
        if not part.name:
            return f"{where}.name", "a non-empty name"
        if first_name != index:
            return f"{where}.name", f"a unique name ({part.name!r} is parts[{first_name}]'s)"
        if first_bone != index:
            return f"{where}.bone", f"a bone no other part has ({part.bone!r} is parts[{first_bone}]'s)"
        if not all(is_finite(v) and 0 < v <= MAX_LENGTH for v in part.size):
            return f"{where}.size", f"three positive edge lengths up to {MAX_LENGTH:g}, got {list(part.size)}"
        if not all(_length(v) for v in part.offset):
            return f"{where}.offset", f"three numbers within ±{MAX_LENGTH:g}, got {list(part.offset)}"
        if not (is_finite(part.mass) and 0 < part.mass <= MAX_MASS):
            return f"{where}.mass", f"a positive mass up to {MAX_MASS:g} kg, got {part.mass}"
        if not _unit_quaternion(part.rotation):
            return f"{where}.rotation", f"a non-zero quaternion (x, y, z, w), got {list(part.rotation)}"
        if part.shape not in SHAPES:
            return f"{where}.shape", f"one of {', '.join(SHAPES)}, got {part.shape!r}"
    joint_names = [joint.name for joint in profile.joints]
    for index, joint in enumerate(profile.joints):
        problem = _joint_problem(joint, names)
        if problem:
            return f"joints[{index}]{problem[0]}", problem[1]
        if joint_names.index(joint.name) != index:
            return f"joints[{index}].name", f"a unique name ({joint.name!r} is taken)"
    for bone, part in profile.relations.items():
        if part not in names:
            return f"relations[{json.dumps(bone)}]", f"the name of a part, got {part!r}"
    for index, pair in enumerate(profile.disabled_collisions):
        if len(pair) != 2 or any(name not in names for name in pair) or pair[0] == pair[1]:
            return f"disabled_collisions[{index}]", f"two different part names, got {list(pair)}"
    low, high = UNIT_RANGE
    if not (is_finite(profile.meters_per_unit) and low <= profile.meters_per_unit <= high):
        return "meters_per_unit", f"a positive number from {low:g} to {high:g}, got {profile.meters_per_unit}"
    for name, where in (("linear_damping", "damping.linear"), ("angular_damping", "damping.angular")):
        value = getattr(profile, name)
        if not (is_finite(value) and 0 <= value <= 1):
            return where, f"a fraction from 0 to 1, got {value}"
    return None


def _joint_problem(joint: Joint, names: list[str]) -> tuple[str, str] | None:
    """The first problem as (JSON path below the joint, what was expected), or None."""
    if not joint.name:
        return ".name", "a non-empty name"
    for side, key in enumerate(("part_a", "part_b")):
        if getattr(joint, key) not in names:
            return f".parts[{side}]", f"the name of a part, got {getattr(joint, key)!r}"
    if joint.part_a == joint.part_b:
        return ".parts[1]", "a part other than the first"
    for side, key in enumerate(("offset_a", "offset_b")):
        if not all(_length(v) for v in getattr(joint, key)):
            offset = list(getattr(joint, key))
            return f".offsets[{side}]", f"three numbers within ±{MAX_LENGTH:g}, got {offset}"
    if not _unit_quaternion(joint.rotation):
        return ".rotation", f"a non-zero quaternion (x, y, z, w), got {list(joint.rotation)}"
    if joint.kind not in JOINT_KINDS:
        return ".type", f"one of {', '.join(JOINT_KINDS)}, got {joint.kind!r}"
    if joint.strength is not None and not (is_finite(joint.strength) and 0 <= joint.strength <= MAX_STRENGTH):
        return ".strength", f"a motor torque from 0 to {MAX_STRENGTH:g} N·m or null, got {joint.strength}"
    return KINDS[joint.kind].problem(joint)


def is_finite(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def _length(value) -> bool:
    return is_finite(value) and abs(value) <= MAX_LENGTH


def _unit_quaternion(q) -> bool:
    return len(q) == 4 and all(is_finite(v) for v in q) and sum(v * v for v in q) > 1e-12
