"""Joint limits fitted to what the model itself does: its rest pose and every clip it carries.

The automatic setup's limits (``autosetup.LIMITS``) are a starting point centred on the bind pose. A
model's rest pose may sit outside them (an A-pose rig built in a T-pose: elbows bent 5–7°) and its
clips may use more (NWN creatures' attacks, a forearm turned 159°). So each joint's limits are widened
to hold the angles the rest pose and the clips reach, plus ``MARGIN_DEG``, up to the anatomical bound
of the joint's role (``ANATOMICAL_BOUNDS``; roles from ``app.bone_names``, the vocabulary retargeting
shares). Where a clip needs more than the bound, the limit follows the clip, and ``ragdoll --check``
notes it (``clip_notes``). A hinge whose clips bend it about another axis gets its axis from the plane
the clips bend in, and so does a cone-twist whose clips would lock its gimbal (``turned_frame``).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from app import maths
from app.bone_names import body_kind, bone_role
from app.model import Model
from app.physics.joint_kinds import KINDS, MAX_SWING2
from app.physics.multibody import gimbal_angles
from app.physics.profile import Joint, RagdollProfile
from app.physics.rig import Rig, bind_rig, rigid
from app.pose import frame_worlds, rest_pose

#: Degrees left around the range the rest pose and the clips use.
MARGIN_DEG = 10.0
#: Frames of one clip looked at (evenly spread over its stored frames): enough for any motion a
#: ragdoll's limits need to hold, bounded for mocap clips of thousands of frames.
FRAMES_PER_CLIP = 240
#: A hinge whose clips turn it more than this (degrees) about axes other than its own gets its axis
#: from the clips.
OFF_AXIS_DEG = 3.0
#: The widest limits each role's joint may have (degrees): hinge (low, high), cone-twist (swing1,
#: swing2, twist). Wider than the defaults; a human's range of motion, not a ragdoll's comfort.
ANATOMICAL_BOUNDS = {
    "spine": (60.0, 45.0, 60.0),
    "neck": (80.0, 70.0, 90.0),
    "shoulder": (160.0, 85.0, 110.0),
    "elbow": (-20.0, 170.0),
    "hip": (140.0, 75.0, 70.0),
    "knee": (-20.0, 170.0),
    "wrist": (100.0, 75.0, 90.0),
    "ankle": (80.0, 60.0, 50.0),
    "tail": (90.0, 85.0, 60.0),
    "wing": (150.0, 85.0, 90.0),
    "lower_limb": (130.0, 70.0, 60.0),
    "upper_limb": (140.0, 80.0, 70.0),
    "generic": (90.0, 85.0, 90.0),
    "generic_hinge": (-30.0, 170.0),
}
#: The joint a part's bone role sits at (the child part's bone: a forearm turns at the elbow).
JOINT_OF_ROLE = {"spine": "spine", "neck": "neck", "head": "neck", "upperarm": "shoulder", "forearm": "elbow",
                 "hand": "wrist", "thigh": "hip", "shin": "knee", "foot": "ankle"}
HINGE_ROLES = ("elbow", "knee")


def joint_role(bone_name: str, kind: str) -> str:
    """The role (a key of ANATOMICAL_BOUNDS) of a ``kind`` joint whose child part is on ``bone_name``."""
    role = JOINT_OF_ROLE.get(bone_role(bone_name)[0] or "")
    if kind == "hinge":
        return role if role in HINGE_ROLES else "generic_hinge"
    if role is not None and role not in HINGE_ROLES:
        return role
    return body_kind(bone_name) or "generic"


def pose_samples(model: Model) -> list[tuple[str, np.ndarray]]:
    """(what, (F, B, 4, 4) bone world matrices): the rest pose, then each clip's frames (at most
    FRAMES_PER_CLIP of them). Clips that move no bone (morph or vertex clips) are left out."""
    samples = [("the rest pose", rest_pose(model).world[None])]
    for clip in model.clips:
        if clip.kind != "keyed" and clip.world is None:
            continue
        worlds = frame_worlds(model, clip)
        if len(worlds) > FRAMES_PER_CLIP:
            worlds = worlds[np.linspace(0, len(worlds) - 1, FRAMES_PER_CLIP).round().astype(int)]
        if len(worlds) and np.isfinite(worlds).all():
            samples.append((f"clip {clip.name!r}", worlds))
    return samples


def relative_rotations(rig: Rig, worlds: np.ndarray) -> np.ndarray:
    """(F, J, 3, 3) each joint's frame on part b in its frame on part a, with bones at ``worlds``
    (F, B, 4, 4): the identity at the bind pose."""
    bones = rig.part_bones
    parts = rigid(worlds[:, bones] @ rig.model.skeleton.bind_inverse[bones] @ rig.part_bind)
    frames = rig.joint_world(parts)
    return np.swapaxes(frames[..., 0, :3, :3], -1, -2) @ frames[..., 1, :3, :3]


def used_angles(rig: Rig, samples: list[tuple[str, np.ndarray]]) -> list[tuple[str, np.ndarray]]:
    """(what, (F, J, 3) degrees): the joint angles (as ``Ragdoll.joint_angles``) of each sample."""
    return [(what, np.degrees(gimbal_angles(relative_rotations(rig, worlds)))) for what, worlds in samples]


def fitted_limits(kind: str, defaults: tuple, role: str, angles: np.ndarray,
                  margin: float = MARGIN_DEG) -> tuple[float, ...]:
    """Limits of a ``kind`` joint holding ``angles`` (N, 3 degrees) plus ``margin``: no narrower
    than ``defaults``, no wider than the role's bound unless the angles themselves pass it (then the
    limit follows them), and within what the kind allows."""
    bound = ANATOMICAL_BOUNDS[role]
    allowed = KINDS[kind].limits
    if kind == "hinge":
        low, high = float(angles[:, 0].min()), float(angles[:, 0].max())
        low_cap = bound[0] if low >= bound[0] else low - margin
        high_cap = bound[1] if high <= bound[1] else high + margin
        fitted = (min(defaults[0], max(low - margin, low_cap)),
                  max(defaults[1], min(high + margin, high_cap)))
    else:
        reach = np.abs(angles).max(axis=0)
        fitted = tuple(max(default, min(used + margin, limit if used <= limit else used + margin))
                       for default, used, limit in zip(defaults, reach, bound))
    return tuple(float(np.clip(round(value, 1), limit.low, limit.high))
                 for value, limit in zip(fitted, allowed))


def turned_frame(rig: Rig, joint: int, rotations: np.ndarray, twist: np.ndarray) -> np.ndarray | None:
    """The world rotation (3, 3) of a joint's frame at bind whose Z is the axis the clips turn it
    about most (the principal direction of its relative rotations, ``rotations`` (F, 3, 3) in the
    joint's frame) and X as near ``twist`` (the child bone's direction) as is square to it, when that
    frame holds the clips better than the joint's own: a hinge bent off its axis less, a cone-twist
    with a smaller middle angle (swing2 locks at 90°). None otherwise."""
    vectors = _rotation_vectors(rotations)
    if not len(vectors) or np.linalg.norm(vectors, axis=1).max() < np.radians(2 * OFF_AXIS_DEG):
        return None
    axis = np.linalg.eigh(vectors.T @ vectors)[1][:, -1]
    frame = rigid(rig.joint_bind[joint])[:3, :3]
    z = frame @ (axis if axis[2] >= 0 else -axis)
    x, valid = maths.normalize(twist - np.dot(twist, z) * z)
    if not valid:
        return None
    turned = np.stack([x, np.cross(z, x), z], axis=1)
    change = frame.T @ turned
    before = np.abs(gimbal_angles(rotations))
    after = np.abs(gimbal_angles(change.T @ rotations @ change))
    if rig.hinge[joint]:
        off_before, off_after = before[:, 1:].max(), after[:, 1:].max()
        better = off_before > np.radians(OFF_AXIS_DEG) and off_after < off_before
    else:
        locking = before[:, 1].max() > np.radians(MAX_SWING2 - MARGIN_DEG)
        better = locking and after[:, 1].max() < before[:, 1].max()
    return turned if better else None


def fit_to_clips(model: Model, profile: RagdollProfile, twists: dict[str, np.ndarray]) -> RagdollProfile:
    """``profile`` with each joint's limits holding the rest pose and every clip (see the module), and
    a joint's frame turned to the axis its clips bend it about where that holds them better
    (``turned_frame``). ``twists``: the child bone's direction (world, at bind) by joint name."""
    samples = pose_samples(model)
    rig = bind_rig(model, profile)
    joints = list(profile.joints)
    stacked = np.concatenate([worlds for _, worlds in samples])
    rotations = relative_rotations(rig, stacked)
    for index, joint in enumerate(joints):
        twist = twists.get(joint.name)
        turned = None if twist is None else turned_frame(rig, index, rotations[:, index], twist)
        if turned is not None:
            joints[index] = replace(joint, rotation=tuple(float(f"{v:.10g}") + 0.0
                                                          for v in maths.quat_from_matrix(turned)))
    profile = replace_joints(profile, joints)
    rig = bind_rig(model, profile)
    angles = np.degrees(gimbal_angles(relative_rotations(rig, stacked)))
    fitted = []
    for index, joint in enumerate(profile.joints):
        kind = KINDS[joint.kind]
        role = joint_role(profile.parts[profile.part_index(joint.part_b)].bone, joint.kind)
        limits = fitted_limits(joint.kind, kind.values(joint), role, angles[:, index])
        fitted.append(replace(joint, **dict(zip(kind.limit_names, limits))))
    return replace_joints(profile, fitted)


def replace_joints(profile: RagdollProfile, joints: list[Joint]) -> RagdollProfile:
    """A copy of ``profile`` with ``joints``."""
    copy = profile.copy()
    copy.joints = list(joints)
    return copy


def _rotation_vectors(rotations: np.ndarray) -> np.ndarray:
    """(F, 3) axis times angle (radians) of rotations (F, 3, 3), the short way (``quat_from_matrix``
    gives w >= 0)."""
    quaternions = maths.quat_from_matrix(rotations)
    axes, _ = maths.normalize(quaternions[:, :3])
    return axes * (2 * np.arctan2(np.linalg.norm(quaternions[:, :3], axis=1), quaternions[:, 3]))[:, None]


def clip_notes(model: Model, rig: Rig) -> tuple[np.ndarray, list[str]]:
    """((J,) degrees the rest pose and clips go past each joint's limits, one note per joint whose
    limits a clip passes or whose limits pass its role's anatomical bound because a clip needs it)."""
    profile = rig.profile
    past = np.zeros(len(profile.joints))
    notes = []
    for what, angles in used_angles(rig, pose_samples(model)):
        excess = _excess(rig, angles)
        for index in np.flatnonzero(excess > past):
            if excess[index] > 1.0 and past[index] <= 1.0:
                notes.append(f"joint {profile.joints[index].name!r}: {what} goes {excess[index]:.1f}° past "
                             "its limits")
        past = np.maximum(past, excess)
    for joint in profile.joints:
        role = joint_role(profile.parts[profile.part_index(joint.part_b)].bone, joint.kind)
        beyond = _beyond_bound(joint, ANATOMICAL_BOUNDS[role])
        if beyond:
            notes.append(f"joint {joint.name!r}: its limits pass the {role.replace('_', ' ')} bound by "
                         f"{beyond:.1f}° (a clip needs it)")
    return past, notes


def _excess(rig: Rig, angles: np.ndarray) -> np.ndarray:
    """(J,) the largest degrees any of ``angles`` (F, J, 3) is past each joint's limits."""
    limits = np.degrees(rig.joint_limits)
    hinge = np.maximum.reduce([limits[:, 0] - angles[..., 0], angles[..., 0] - limits[:, 1],
                               np.abs(angles[..., 1:]).max(axis=-1)])
    cone = (np.abs(angles) - limits).max(axis=-1)
    return np.maximum(np.where(rig.hinge, hinge, cone), 0.0).max(axis=0)


def _beyond_bound(joint: Joint, bound: tuple) -> float:
    """Degrees ``joint``'s limits reach past ``bound`` (0 within)."""
    values = KINDS[joint.kind].values(joint)
    if joint.kind == "hinge":
        return max(bound[0] - values[0], values[1] - bound[1], 0.0)
    return max(max(value - limit for value, limit in zip(values, bound)), 0.0)
