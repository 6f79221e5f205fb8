"""A ragdoll profile as JSON: ``to_dict``/``from_dict`` (every bad field named by its JSON path, with
what was expected), ``load_profile`` and ``save_profile`` (atomic, and only a profile that passes
``first_problem``)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from app.atomic_files import write_atomically
from app.errors import InputError, regular_size
from app.json_text import JsonError, loads
from app.physics.joint_kinds import JOINT_KINDS, KINDS
from app.physics.profile import SHAPES, Joint, Part, ProfileError, RagdollProfile, first_problem, is_finite

VERSION = 1
#: Largest profile file read (a profile of a thousand parts is a few hundred kilobytes).
MAX_FILE_BYTES = 16 * 1024 * 1024


def to_dict(profile: RagdollProfile) -> dict:
    return {
        "version": VERSION,
        "meters_per_unit": profile.meters_per_unit,
        "damping": {"linear": profile.linear_damping, "angular": profile.angular_damping},
        "parts": [{"name": p.name, "bone": p.bone, "size": list(p.size), "offset": list(p.offset),
                   "mass": p.mass, "rotation": list(p.rotation), "shape": p.shape} for p in profile.parts],
        "relations": dict(profile.relations),
        "joints": [{"name": j.name, "parts": [j.part_a, j.part_b],
                    "offsets": [list(j.offset_a), list(j.offset_b)], "rotation": list(j.rotation),
                    "type": j.kind, "limits": j.limits,
                    **({} if j.strength is None else {"strength": j.strength})} for j in profile.joints],
        "disabled_collisions": [list(pair) for pair in profile.disabled_collisions],
    }


class _Fields:
    """Typed access to parsed JSON that raises ProfileError with the JSON path of a bad field."""

    def __init__(self, path: Path | None):
        self.path = path

    def fail(self, where: str, message: str):
        raise ProfileError(self.path, where, message)

    def get(self, data: dict, key: str, where: str, default=None):
        if key in data:
            return data[key]
        if default is None:
            self.fail(f"{where}.{key}" if where else key, "a value (the field is missing)")
        return default

    def object(self, value, where: str) -> dict:
        return value if isinstance(value, dict) else self.fail(where, f"an object, got {_kind(value)}")

    def array(self, value, where: str) -> list:
        return value if isinstance(value, list) else self.fail(where, f"an array, got {_kind(value)}")

    def text(self, value, where: str) -> str:
        if isinstance(value, str) and value:
            return value
        self.fail(where, f"a non-empty string, got {_kind(value)}")

    def number(self, value, where: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not is_finite(_as_float(value)):
            self.fail(where, f"a finite number, got {_kind(value)}")
        return float(value)

    def numbers(self, value, where: str, count: int) -> tuple[float, ...]:
        items = self.array(value, where)
        if len(items) != count:
            self.fail(where, f"{count} numbers, got {len(items)}")
        return tuple(self.number(item, f"{where}[{i}]") for i, item in enumerate(items))


def _as_float(value: float) -> float:
    """``value`` as a float; integers too large for one become infinity."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _kind(value) -> str:
    if isinstance(value, (dict, list)):
        return {dict: "an object", list: f"an array of {len(value)}"}[type(value)]
    if isinstance(value, (str, int, float, bool)) or value is None:
        text = json.dumps(value)
        return text if len(text) <= 40 else f"{text[:40]}… ({len(text)} characters)"
    return type(value).__name__


def from_dict(data, path: Path | None = None) -> RagdollProfile:
    """A profile from parsed JSON; ProfileError names the file, the field and what was expected."""
    f = _Fields(path)
    data = f.object(data, "(top level)")
    version = f.get(data, "version", "")
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= VERSION:
        f.fail("version", f"a profile version from 1 to {VERSION}, got {_kind(version)}")
    damping = f.object(f.get(data, "damping", "", {}), "damping")
    parts = []
    for i, item in enumerate(f.array(f.get(data, "parts", ""), "parts")):
        where = f"parts[{i}]"
        item = f.object(item, where)
        parts.append(Part(
            name=f.text(f.get(item, "name", where), f"{where}.name"),
            bone=f.text(f.get(item, "bone", where), f"{where}.bone"),
            size=f.numbers(f.get(item, "size", where), f"{where}.size", 3),
            offset=f.numbers(f.get(item, "offset", where, [0, 0, 0]), f"{where}.offset", 3),
            mass=f.number(f.get(item, "mass", where), f"{where}.mass"),
            rotation=f.numbers(f.get(item, "rotation", where, [0, 0, 0, 1]), f"{where}.rotation", 4),
            shape=_shape(f, f.get(item, "shape", where, "box"), f"{where}.shape")))
    joints = [_joint_from_dict(f, item, f"joints[{i}]")
              for i, item in enumerate(f.array(f.get(data, "joints", "", []), "joints"))]
    relations = {}
    for bone, part in f.object(f.get(data, "relations", "", {}), "relations").items():
        relations[bone] = f.text(part, f"relations[{json.dumps(bone)}]")
    pairs = []
    for i, pair in enumerate(f.array(f.get(data, "disabled_collisions", "", []), "disabled_collisions")):
        items = f.array(pair, f"disabled_collisions[{i}]")
        if len(items) != 2:
            f.fail(f"disabled_collisions[{i}]", f"two part names, got {len(items)} items")
        pairs.append(tuple(f.text(name, f"disabled_collisions[{i}][{k}]") for k, name in enumerate(items)))
    profile = RagdollProfile(
        parts=parts, joints=joints, relations=relations, disabled_collisions=pairs,
        meters_per_unit=f.number(f.get(data, "meters_per_unit", "", 1.0), "meters_per_unit"),
        linear_damping=f.number(f.get(damping, "linear", "damping", 0.05), "damping.linear"),
        angular_damping=f.number(f.get(damping, "angular", "damping", 0.85), "damping.angular"),
        path=path)
    problem = first_problem(profile)
    if problem:
        raise ProfileError(path, *problem)
    return profile


def _shape(f: _Fields, value, where: str) -> str:
    if value not in SHAPES:
        f.fail(where, f"one of {', '.join(SHAPES)}, got {_kind(value)}")
    return value


def _joint_from_dict(f: _Fields, item, where: str) -> Joint:
    item = f.object(item, where)
    parts = f.array(f.get(item, "parts", where), f"{where}.parts")
    offsets = f.array(f.get(item, "offsets", where), f"{where}.offsets")
    if len(parts) != 2:
        f.fail(f"{where}.parts", f"two part names, got {len(parts)} items")
    if len(offsets) != 2:
        f.fail(f"{where}.offsets", f"two attachment points, got {len(offsets)} items")
    kind = f.get(item, "type", where)
    if kind not in JOINT_KINDS:
        f.fail(f"{where}.type", f"one of {', '.join(JOINT_KINDS)}, got {_kind(kind)}")
    limits = f.object(f.get(item, "limits", where), f"{where}.limits")
    keys = KINDS[kind].limit_names
    angles = {key: f.number(f.get(limits, key, f"{where}.limits"), f"{where}.limits.{key}") for key in keys}
    return Joint(name=f.text(f.get(item, "name", where), f"{where}.name"),
                 part_a=f.text(parts[0], f"{where}.parts[0]"), part_b=f.text(parts[1], f"{where}.parts[1]"),
                 offset_a=f.numbers(offsets[0], f"{where}.offsets[0]", 3),
                 offset_b=f.numbers(offsets[1], f"{where}.offsets[1]", 3),
                 rotation=f.numbers(f.get(item, "rotation", where, [0, 0, 0, 1]), f"{where}.rotation", 4),
                 kind=kind, strength=_strength(f, item, where), **angles)


def _strength(f: _Fields, item: dict, where: str) -> float | None:
    """A joint's optional motor torque (N·m): absent or null for the default."""
    value = item.get("strength")
    return None if value is None else f.number(value, f"{where}.strength")


def load_profile(path: str | Path) -> RagdollProfile:
    path = Path(path)
    try:
        size = regular_size(path)
    except InputError as error:
        raise ProfileError(path, "", error.message) from None
    if size > MAX_FILE_BYTES:
        raise ProfileError(path, "", f"{size} bytes is too large for a profile (at most {MAX_FILE_BYTES})")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ProfileError(path, "", f"cannot open: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise ProfileError(path, "", f"not UTF-8 text ({error.reason} at byte {error.start})") from None
    try:
        data = loads(text)
    except JsonError as error:
        where = f" at {error.where()}" if error.where() else ""
        raise ProfileError(path, "", f"not JSON: {error.message}{where}") from None
    return from_dict(data, path)


def save_profile(profile: RagdollProfile, path: str | Path) -> Path:
    """Write ``profile`` to ``path`` atomically (``app.atomic_files.write_atomically``)."""
    path = Path(path)
    problem = first_problem(profile)
    if problem:
        raise ProfileError(path, *problem)
    write_atomically(path, json.dumps(to_dict(profile), indent=2) + "\n")
    profile.path = path
    return path
