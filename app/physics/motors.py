"""Joint motors for physical animation, pure numpy: how strong each joint's motors are, and the link
angles they drive toward (docs/ragdoll.md, *Physical animation*).

A joint's default strength is the torque that holds what it carries against STRENGTH_GRAVITIES times
gravity at its bind pose: the mass of the parts beyond it (away from its multibody's base) times the
distance from the joint to their centre of mass. A profile may name its own (``Joint.strength``, N·m),
up to MAX_STRENGTH_RATIO times the default: stronger motors than the masses allow turn a part by more
than a joint limit in one step.
"""

from __future__ import annotations

import numpy as np

from app.physics.multibody import Body, joint_positions
from app.physics.profile import ProfileError
from app.physics.rig import Rig

#: Default motor strength: the torque that holds a joint's load against this many times gravity. The
#: walk clip's limbs swing with angular accelerations of about one g at their lever; 4 g keeps the
#: demo's joints within 3° of the clip (docs/ragdoll.md).
STRENGTH_GRAVITIES = 4.0
#: A following ragdoll's motors get this many times the torque its clip's accelerations need
#: (``clip_strengths``) where that is more than the default: the NWN mind flayer's 30 kg robed shins
#: swung 19° past cwalk's knees at 4 g.
CLIP_TORQUE_MARGIN = 2.0
#: A profile's joint strength may be at most this many times its default.
MAX_STRENGTH_RATIO = 50.0
#: Shortest lever (metres) a default strength is computed with, so a joint at its load's centre
#: still gets some strength.
MIN_LEVER = 0.02
GRAVITY = 9.81


def default_strengths(rig: Rig, layout: list[Body]) -> np.ndarray:
    """(J,) N·m: each joint's torque to hold its load against STRENGTH_GRAVITIES g (0 for a joint
    that closes a loop, which has no motor)."""
    strengths = np.zeros(len(rig.joint_parts))
    centres = rig.part_bind[:, :3, 3] * rig.profile.meters_per_unit
    for body in layout:
        mass = {part: float(rig.masses[part]) for part in body.part_links}
        moment = {part: rig.masses[part] * centres[part] for part in body.part_links}
        for edge in reversed(body.edges):  # children before parents: edges are breadth-first
            load, weighted = mass[edge.child], moment[edge.child]
            pivot = rig.joint_bind[edge.joint, :3, 3] * rig.profile.meters_per_unit
            lever = max(float(np.linalg.norm(weighted / load - pivot)), MIN_LEVER) if load > 0 else MIN_LEVER
            strengths[edge.joint] = STRENGTH_GRAVITIES * GRAVITY * load * lever
            mass[edge.parent] += load
            moment[edge.parent] = moment[edge.parent] + weighted
    return strengths


def load_inertias(rig: Rig, layout: list[Body]) -> np.ndarray:
    """(J,) kg m²: the moment of inertia of the parts beyond each joint (away from its multibody's
    base) about its pivot at bind, each part a point at its centre plus its own largest moment (the
    moments ``world_builder`` raises every part's to; a box's, for a capsule too)."""
    inertias = np.zeros(len(rig.joint_parts))
    scale = rig.profile.meters_per_unit
    centres = rig.part_bind[:, :3, 3] * scale
    edges = np.sort(2 * rig.half_extents * scale, axis=1)
    own = rig.masses * (edges[:, 1] ** 2 + edges[:, 2] ** 2) / 12.0
    for body in layout:
        beyond = {part: [part] for part in body.part_links}
        for edge in reversed(body.edges):  # children before parents: edges are breadth-first
            parts = beyond[edge.child]
            pivot = rig.joint_bind[edge.joint, :3, 3] * scale
            levers = np.sum((centres[parts] - pivot) ** 2, axis=1)
            inertias[edge.joint] = float(np.sum(rig.masses[parts] * levers + own[parts]))
            beyond[edge.parent] = beyond[edge.parent] + parts
    return inertias


def clip_strengths(rig: Rig, layout: list[Body], angles: np.ndarray, interval: float) -> np.ndarray:
    """(J,) N·m: the torque each joint needs to follow a clip whose joint angles are ``angles``
    (F, J, 3 radians, as ``Ragdoll.joint_angles``) ``interval`` seconds apart: CLIP_TORQUE_MARGIN
    times its load's inertia (``load_inertias``) times the clip's fastest angular acceleration there,
    plus one g at its load's lever. 0 for a clip of fewer than three poses."""
    if len(angles) < 3:
        return np.zeros(len(rig.joint_parts))
    turns = np.unwrap(angles, axis=0)
    accelerations = np.linalg.norm(np.diff(turns, 2, axis=0), axis=-1).max(axis=0) / interval ** 2
    hold = default_strengths(rig, layout) / STRENGTH_GRAVITIES
    return CLIP_TORQUE_MARGIN * load_inertias(rig, layout) * accelerations + hold


def joint_strengths(rig: Rig, layout: list[Body]) -> np.ndarray:
    """(J,) N·m: the profile's strengths where it names them, else the defaults. ProfileError for a
    strength above MAX_STRENGTH_RATIO times the default."""
    defaults = default_strengths(rig, layout)
    result = defaults.copy()
    for index, joint in enumerate(rig.profile.joints):
        if joint.strength is None:
            continue
        top = MAX_STRENGTH_RATIO * defaults[index]
        if joint.strength > top:
            need = f"{MAX_STRENGTH_RATIO:g} times the {defaults[index]:.4g} N·m its masses need"
            raise ProfileError(rig.profile.path, f"joints[{index}].strength",
                               f"at most {top:.4g} N·m ({need}): a stronger motor needs more force than "
                               f"the parts' masses allow, got {joint.strength:g}")
        result[index] = joint.strength
    return result


def link_forces(body: Body, strengths: np.ndarray) -> np.ndarray:
    """(L,) each link's motor torque: its joint's strength (every link of a cone-twist's gimbal)."""
    return np.array([strengths[link.joint] for link in body.links], dtype=np.float64)


def link_targets(rig: Rig, body: Body, part_world: np.ndarray) -> np.ndarray:
    """(L,) radians: the link angles that put the body's parts at ``part_world``, within the limits."""
    lower = np.array([link.lower for link in body.links])
    upper = np.array([link.upper for link in body.links])
    return np.clip(joint_positions(rig, body, part_world), lower, upper)
