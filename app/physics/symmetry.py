"""Left and right: each bone's and part's twin on the other side (by the sides ``app.bone_names`` reads
from names), the reflection between twins, and an edit of one side
turned into the same edit of the other (symmetric editing). Euler angles for the joint editor too.
"""

from __future__ import annotations

import numpy as np

from app import maths
from app.bone_names import mirror_name, side_keys
from app.model import Model
from app.physics.joint_kinds import KINDS, LIMIT_NAMES
from app.physics.profile import RagdollProfile
from app.physics.rig import Rig

#: A pair's separation closer than this (cosine) to a model axis mirrors about that axis exactly.
AXIS_SNAP = np.cos(np.radians(20.0))


def mirror_bones(model: Model) -> np.ndarray:
    """(B,) each bone's twin on the other side (−1: none): a ``.prm`` ``mirror`` extra when the file
    gave one, else the bone named as its mirror (``mirror_name``), else the one bone whose name is the
    same once its side is taken out, in any case and with any trailing number (NWN ``Lbicep_g``/
    ``Rbicep_g``, ``Ettin_Lcalf``/``Ettin_Rcalf``, the Fox's ``b_LeftUpperArm_09``/
    ``b_RightUpperArm_06``, ``LwingpieceA``/``RwingpieceA``)."""
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
    _pair_by_side_keys(skeleton.names, twins)
    return twins


def _pair_by_side_keys(names: list[str], twins: np.ndarray) -> None:
    """Fill the −1 entries of ``twins`` where exactly one bone of each side shares a ``side_keys`` key."""
    sides: dict[str, dict[str, list[int]]] = {}
    for bone, name in enumerate(names):
        for side, key in side_keys(name):
            sides.setdefault(key, {}).setdefault(side, []).append(bone)
    for found in sides.values():
        left, right = found.get("l", []), found.get("r", [])
        if len(left) == 1 and len(right) == 1 and left[0] != right[0]:
            for bone, twin in ((left[0], right[0]), (right[0], left[0])):
                if twins[bone] < 0:
                    twins[bone] = twin


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
    """(3, 3) the reflection taking part ``part`` to its twin at the bind pose (``reflection_between``
    their centres)."""
    return reflection_between(rig.part_bind[part, :3, 3], rig.part_bind[twin, :3, 3])[:3, :3]


def reflection_between(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(4, 4) the reflection swapping points ``a`` and ``b``: across the plane through their midpoint
    square to the line between them (snapped to a model axis when within ``AXIS_SNAP`` of one)."""
    normal, valid = maths.normalize(a - b)
    if not valid:
        normal = np.array([1.0, 0.0, 0.0])
    axis = int(np.argmax(np.abs(normal)))
    if abs(normal[axis]) >= AXIS_SNAP:
        normal = np.eye(3)[axis]
    result = np.eye(4)
    result[:3, :3] -= 2.0 * np.outer(normal, normal)
    result[:3, 3] = 2.0 * normal * np.dot(normal, (a + b) / 2)
    return result


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


# --- one side's edit as the other side's ---------------------------------------------------------

def mirrored_part_changes(model: Model, rig: Rig, name: str, twin: str, changes: dict) -> dict:
    """The changes to part ``twin`` that mirror ``changes`` to part ``name``: sizes, mass and shape
    copied, the offset reflected, the bone mirrored."""
    names = rig.part_names
    mirror = reflection(rig, names.index(name), names.index(twin))
    result = {}
    for key, value in changes.items():
        if key in ("size", "mass", "shape"):
            result[key] = value
        elif key == "offset":
            result[key] = tuple(float(v) for v in mirror @ np.asarray(value, np.float64))
        elif key == "bone":
            bone = mirror_bones(model)[model.skeleton.index(value)]
            if bone >= 0:
                result[key] = model.skeleton.names[bone]
    return result


def mirrored_joint_changes(model: Model, rig: Rig, profile: RagdollProfile, candidate: RagdollProfile,
                           name: str, twin: str, changes: dict) -> dict:
    """The changes to joint ``twin`` of ``profile`` that mirror ``changes`` to joint ``name`` (already
    made in ``candidate``): limits copied, offsets and rotation reflected, parts swapped for their twins."""
    names = rig.part_names
    source = candidate.joints[candidate.joint_index(name)]
    target = profile.joints[profile.joint_index(twin)]
    parts = part_mirrors(model, profile)
    mirror = reflection(rig, names.index(source.part_a), names.index(parts.get(source.part_a, source.part_a)))
    # The twin may list its parts the other way round.
    swapped = parts.get(source.part_a, source.part_a) != target.part_a
    other_end = {"offset_a": "offset_b", "offset_b": "offset_a", "part_a": "part_b", "part_b": "part_a"}
    result = {}
    for key, value in changes.items():
        if key in LIMIT_NAMES or key == "kind":
            result[key] = value
        elif key in ("offset_a", "offset_b"):
            own = source.part_a if key == "offset_a" else source.part_b
            other = parts.get(own, own)
            vector = rig.part_bind[names.index(own), :3, :3] @ np.asarray(value, np.float64)
            local = rig.part_bind[names.index(other), :3, :3].T @ (mirror @ vector)
            result[other_end[key] if swapped else key] = tuple(float(v) for v in local)
        elif key == "rotation":
            result[key] = mirrored_rotation(value, mirror)
        elif key in ("part_a", "part_b"):
            result[other_end[key] if swapped else key] = parts.get(value, value)
    kind = KINDS[source.kind]
    if kind.ordered and any(name in result for name in kind.limit_names):
        # Limits copy as they are when the twin's axis is the mirror of this one's.
        axis = kind.axes[0]
        rotation = result.get("rotation", target.rotation)
        expected = mirrored_rotation(source.rotation, mirror)
        twin_axis = maths.quat_to_matrix(maths.quat_normalize(np.asarray(rotation, float)))[:3, axis]
        expected_axis = maths.quat_to_matrix(maths.quat_normalize(np.asarray(expected, float)))[:3, axis]
        limits = {name: result.get(name, getattr(source, name)) for name in kind.limit_names}
        result.update(kind.mirrored(limits, axis_reversed=twin_axis @ expected_axis < 0))
    return result
