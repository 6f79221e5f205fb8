"""The ragdoll's pybullet bodies, built from a profile bound to a model (a ``Rig``) and its multibody
layout (``multibody.build_layout``): for each copy of the ragdoll, one multibody per body of the
layout with a box or capsule per part, the inertia ragdolls stay steady with, the point-to-point
constraints that close loops, and the collision filters (parts joined by a joint, listed in the
profile, or overlapping at the bind pose never collide), and the ground plane. Built at the bind pose;
``place_copy`` moves a copy into the pose ``ragdoll.Ragdoll`` takes over from, and the ragdoll steps
them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app import maths
from app.model import Model
from app.physics.bullet import pb
from app.physics.multibody import Body, joint_positions, link_frames_bind
from app.physics.profile import RagdollProfile, capsule_dimensions
from app.physics.rig import Rig, rigid_inverse
from app.pose import posed_bounds, rest_pose

#: Parts closer than this (metres) at the bind pose never collide with each other.
OVERLAP_GAP = 0.01
#: A ragdoll falls asleep after 2 s with the sum of its squared velocities (base and joints) below this.
SLEEP_THRESHOLD = 0.01
#: Fastest a joint may turn (rad/s; pybullet's default is 100). Bullet's joint limits act only once a
#: joint is past them, so a joint overshoots by up to one step of this speed: 7° at 240 Hz.
MAX_JOINT_SPEED = 30.0
#: (3, 4, 4) rotations taking pybullet's capsule axis (Z) onto X, Y and Z.
CAPSULE_TURNS = np.array([[[0, 0, 1, 0], [0, 1, 0, 0], [-1, 0, 0, 0], [0, 0, 0, 1]],
                          [[1, 0, 0, 0], [0, 0, 1, 0], [0, -1, 0, 0], [0, 0, 0, 1]],
                          np.eye(4)], dtype=np.float64)
#: Every principal moment of a part is raised to at least this share of its largest (1: a sphere's).
INERTIA_SHARE = 1.0
#: pybullet's rolling friction of every capsule part (0 by default; boxes do not roll, and each
#: contact with it costs the solver more rows: lying ragdolls stepped 40 % slower with it on every part).
ROLLING_FRICTION = 0.001
#: The coordinate index of each up axis a model may have.
UP_AXES = {"Y": 1, "Z": 2}


@dataclass
class BodyReadout:
    """How to read one multibody's parts: pybullet link indices and each part's frame relative to
    its link's centre-of-mass frame."""

    parts: np.ndarray
    links: list[int]
    com_to_part: np.ndarray


@dataclass
class BuiltCopy:
    """One copy's pybullet objects: its multibodies (ids in layout order), how to read their parts,
    and the constraints closing its loops."""

    bodies: list[int]
    readouts: list[BodyReadout]
    loops: list[int]


def part_link(layout: list[Body], bodies: list[int], part: int) -> tuple[int, int]:
    """(pybullet body id, link index) of a part in the copy of multibodies ``bodies`` (layout order)."""
    for body, body_id in zip(layout, bodies):
        if part in body.part_links:
            return body_id, body.part_links[part]
    raise KeyError(part)


class WorldBuilder:
    """Builds copies of one rig's ragdoll in the pybullet world of ``client``, in the profile's units
    (``scale``: metres per model unit), with its damping and the pairs it keeps from colliding."""

    def __init__(self, client: int, rig: Rig, layout: list[Body], profile: RagdollProfile):
        self.client = client
        self.rig = rig
        self.layout = layout
        self.profile = profile
        self.scale = profile.meters_per_unit
        self._disabled: list[tuple[int, int]] | None = None

    def add_copy(self, offset: np.ndarray) -> BuiltCopy:
        """One more copy's multibodies at the bind pose, ``offset`` (3,) model units away, with its
        loops closed and its collision filters set."""
        bodies, readouts = [], []
        for body in self.layout:
            body_id, readout = self._create_body(body, offset)
            bodies.append(body_id)
            readouts.append(readout)
        built = BuiltCopy(bodies, readouts, self._create_loops(bodies))
        if self._disabled is None:
            self._disabled = self._pairs_to_disable(bodies)
        self.set_colliding(bodies, self._disabled, False)
        return built

    @property
    def disabled_pairs(self) -> list[tuple[int, int]]:
        """Part pairs (a < b) every copy keeps from colliding (``_pairs_to_disable``)."""
        return list(self._disabled or ())

    def set_colliding(self, bodies: list[int], pairs: list[tuple[int, int]], enabled: bool) -> None:
        """Let part ``pairs`` of the copy of multibodies ``bodies`` collide, or keep them from it."""
        for a, b in pairs:
            (body_a, link_a), (body_b, link_b) = (part_link(self.layout, bodies, part) for part in (a, b))
            pb.setCollisionFilterPair(body_a, body_b, link_a, link_b, int(enabled),
                                      physicsClientId=self.client)

    def touching(self, bodies: list[int], pair: tuple[int, int]) -> bool:
        """Whether the two parts of ``pair`` in the copy of multibodies ``bodies`` touch or overlap now."""
        (body_a, link_a), (body_b, link_b) = (part_link(self.layout, bodies, part) for part in pair)
        return bool(pb.getClosestPoints(body_a, body_b, 0.0, link_a, link_b, physicsClientId=self.client))

    def add_ground(self, up: np.ndarray, height: float) -> int:
        """A static plane square to ``up`` (3,) at ``height`` along it (model units). A plain rigid
        body (maximal coordinates), not a fixed multibody: the solver then treats every ground
        contact's far side as immovable without going through a multibody's Jacobian, and lying
        ragdolls step about 8 % cheaper (docs/ragdoll.md)."""
        shape = pb.createCollisionShape(pb.GEOM_PLANE, planeNormal=list(up), physicsClientId=self.client)
        return pb.createMultiBody(0.0, shape, basePosition=list(up * height * self.scale),
                                  useMaximalCoordinates=True, physicsClientId=self.client)

    def place_copy(self, bodies: list[int], parts: np.ndarray, earlier: np.ndarray, interval: float,
                   offset: np.ndarray) -> None:
        """Put a copy's multibodies ``bodies`` where its parts are at ``parts`` (P, 4, 4), moving as they
        moved from ``earlier`` (P, 4, 4) in ``interval`` seconds (negative: from a later pose), the
        copy ``offset`` (3,) model units away. Joint angles outside their limits are clamped."""
        scale = self.scale
        for body, body_id in zip(self.layout, bodies):
            base_now, base_before = parts[body.base], earlier[body.base]
            velocity = (base_now[:3, 3] - base_before[:3, 3]) / interval * scale
            spin = _angular_velocity(base_before, base_now, interval)
            pb.resetBasePositionAndOrientation(body_id, list((base_now[:3, 3] + offset) * scale),
                                               list(maths.quat_from_matrix(base_now)),
                                               physicsClientId=self.client)
            pb.resetBaseVelocity(body_id, list(velocity), list(spin), physicsClientId=self.client)
            if not body.links:
                continue
            lower = np.array([link.lower for link in body.links])
            upper = np.array([link.upper for link in body.links])
            angles = np.clip(joint_positions(self.rig, body, parts), lower, upper)
            before = np.clip(joint_positions(self.rig, body, earlier), lower, upper)
            rates = _wrap(angles - before) / interval
            pb.resetJointStatesMultiDof(body_id, list(range(len(body.links))), [[a] for a in angles],
                                        targetVelocities=[[r] for r in rates], physicsClientId=self.client)

    def _create_body(self, body: Body, offset: np.ndarray) -> tuple[int, BodyReadout]:
        """One multibody of the layout at the bind pose, ``offset`` (model units) away."""
        rig, scale = self.rig, self.scale
        frames = link_frames_bind(rig, body)
        base_frame = frames[body.base].copy()
        base_frame[:3, 3] += offset
        link_to_part = {part: rigid_inverse(frames[part]) @ rig.part_bind[part] for part in frames}
        links = body.links
        shapes, masses, inertial = [], [], []
        for link in links:
            if link.part < 0:
                shapes.append(-1)
                masses.append(0.0)
                inertial.append([0.0, 0.0, 0.0])
                continue
            shapes.append(self._link_shape(link.part, link_to_part[link.part]))
            masses.append(float(rig.masses[link.part]))
            inertial.append(list(link_to_part[link.part][:3, 3] * scale))
        base_shape = self._link_shape(body.base, np.eye(4))
        body_id = pb.createMultiBody(
            baseMass=float(rig.masses[body.base]), baseCollisionShapeIndex=base_shape,
            basePosition=list(base_frame[:3, 3] * scale),
            baseOrientation=list(maths.quat_from_matrix(base_frame)),
            linkMasses=masses, linkCollisionShapeIndices=shapes, linkVisualShapeIndices=[-1] * len(links),
            linkPositions=[list(link.origin[:3, 3] * scale) for link in links],
            linkOrientations=[list(maths.quat_from_matrix(link.origin)) for link in links],
            linkInertialFramePositions=inertial, linkInertialFrameOrientations=[[0, 0, 0, 1]] * len(links),
            linkParentIndices=[link.parent + 1 for link in links],
            linkJointTypes=[pb.JOINT_REVOLUTE] * len(links),
            linkJointAxis=[list(np.eye(3)[link.axis]) for link in links],
            flags=pb.URDF_USE_SELF_COLLISION | pb.URDF_MAINTAIN_LINK_ORDER, physicsClientId=self.client)
        if body_id < 0:
            raise RuntimeError("pybullet could not create the ragdoll's multibody")
        for index, link in enumerate(links):
            pb.changeDynamics(body_id, index, jointLowerLimit=float(link.lower),
                              jointUpperLimit=float(link.upper), physicsClientId=self.client)
        self._steady_parts(body_id, [body.base] + [link.part for link in links], link_to_part)
        # Its own call: pybullet drops the limits given in a call that also sets maxJointVelocity.
        pb.changeDynamics(body_id, -1, maxJointVelocity=MAX_JOINT_SPEED, physicsClientId=self.client)
        if links:
            pb.setJointMotorControlArray(body_id, list(range(len(links))), pb.VELOCITY_CONTROL,
                                         forces=[0.0] * len(links), physicsClientId=self.client)
        pb.changeDynamics(body_id, -1, linearDamping=self.profile.linear_damping,
                          angularDamping=self.profile.angular_damping, sleepThreshold=SLEEP_THRESHOLD,
                          activationState=pb.ACTIVATION_STATE_ENABLE_SLEEPING, physicsClientId=self.client)
        parts = [body.base] + [link.part for link in links if link.part >= 0]
        com_to_part = [np.eye(4)]
        for part in parts[1:]:
            rotation = np.eye(4)
            rotation[:3, :3] = link_to_part[part][:3, :3]
            com_to_part.append(rotation)
        readout = BodyReadout(parts=np.array(parts), links=[body.part_links[p] for p in parts[1:]],
                               com_to_part=np.array(com_to_part))
        return body_id, readout

    def _steady_parts(self, body_id: int, parts: list[int], link_to_part: dict[int, np.ndarray]) -> None:
        """Give each part the inertia of its solid box or capsule (``link_inertia``), its moments
        raised toward the largest (INERTIA_SHARE), as ragdoll setups do for stability: a thin part's
        tiny moment about its length lets a shot spin it past its limits (the C3DE dog: 107° past
        them without this). A little rolling friction stops a capsule limb, so rounded, rolling on
        the ground for ever. ``parts``: the part of the base, then of each link (−1: a link with no
        part); ``link_to_part``: each part's frame in its link's frame."""
        rig = self.rig
        for index, part in enumerate(parts, start=-1):
            if part < 0:
                continue
            turn = link_to_part[part][:3, :3] @ rig.box_rotations[part][:3, :3]
            inertia = link_inertia(rig.half_extents[part] * 2 * self.scale, rig.masses[part],
                                   bool(rig.capsules[part]), turn)
            rolling = ROLLING_FRICTION if rig.capsules[part] else 0.0
            pb.changeDynamics(body_id, index, localInertiaDiagonal=inertia.tolist(), rollingFriction=rolling,
                              physicsClientId=self.client)

    def _link_shape(self, part: int, link_to_part: np.ndarray) -> int:
        """A box or capsule placed in its link's frame: the part's frame there, turned by the box
        rotation (and for a capsule, which pybullet lays along Z, by ``CAPSULE_TURNS`` of its axis).
        pybullet's own inertia for it is replaced (``_steady_parts``)."""
        frame = link_to_part @ self.rig.box_rotations[part]
        size = self.rig.half_extents[part] * 2 * self.scale
        if self.rig.capsules[part]:
            axis, radius, length = capsule_dimensions(size)
            frame = frame @ CAPSULE_TURNS[axis]
            shape = {"shapeType": pb.GEOM_CAPSULE, "radius": radius, "height": length - 2 * radius}
        else:
            shape = {"shapeType": pb.GEOM_BOX, "halfExtents": list(size / 2)}
        return pb.createCollisionShape(
            **shape, collisionFramePosition=list(frame[:3, 3] * self.scale),
            collisionFrameOrientation=list(maths.quat_from_matrix(frame)), physicsClientId=self.client)

    def _create_loops(self, bodies: list[int]) -> list[int]:
        """Point-to-point constraints for the joints that close loops, at the joint's bind position,
        between the multibodies ``bodies`` of one copy."""
        constraints = []
        for body in self.layout:
            for joint in body.loops:
                ends = []
                for side in (0, 1):
                    part = self.rig.joint_parts[joint, side]
                    body_id, link = part_link(self.layout, bodies, part)
                    com = self._com_bind(part)
                    ends.append((body_id, link, rigid_inverse(com) @ self.rig.joint_bind[joint]))
                (body_a, link_a, pivot_a), (body_b, link_b, pivot_b) = ends
                constraint = pb.createConstraint(
                    body_a, link_a, body_b, link_b, pb.JOINT_POINT2POINT, [0, 0, 0],
                    list(pivot_a[:3, 3] * self.scale), list(pivot_b[:3, 3] * self.scale),
                    physicsClientId=self.client)
                constraints.append(constraint)
        return constraints

    def _com_bind(self, part: int) -> np.ndarray:
        """A part's centre-of-mass frame at the bind pose (model units): its position, its link's axes."""
        for body in self.layout:
            if part in body.part_links:
                frame = link_frames_bind(self.rig, body)[part].copy()
                frame[:3, 3] = self.rig.part_bind[part][:3, 3]
                return frame
        raise KeyError(part)

    def _pairs_to_disable(self, bodies: list[int]) -> list[tuple[int, int]]:
        """Part pairs that never collide: joined by a joint, listed in the profile, or overlapping
        (closer than OVERLAP_GAP) at the bind pose, where the copy of multibodies ``bodies`` was just
        built."""
        names = self.rig.part_names
        pairs = {tuple(sorted(map(int, pair))) for pair in self.rig.joint_parts}
        pairs |= {tuple(sorted((names.index(a), names.index(b))))
                  for a, b in self.profile.disabled_collisions}
        places = {part: (body_id, link) for body, body_id in zip(self.layout, bodies)
                  for part, link in body.part_links.items()}
        for a, b in near_pairs(self.rig, OVERLAP_GAP / self.scale):
            if (a, b) in pairs:
                continue
            (body_a, link_a), (body_b, link_b) = places[a], places[b]
            if pb.getClosestPoints(body_a, body_b, OVERLAP_GAP, link_a, link_b, physicsClientId=self.client):
                pairs.add((a, b))
        return sorted(pairs)


def bind_floor(model: Model, rig: Rig) -> float:
    """The ground's height along the model's up axis (model units): the lowest point of the bind-pose
    bounds, or of the rig's boxes at bind if one reaches lower."""
    axis = UP_AXES[model.up_axis]
    low, _ = posed_bounds(model, rest_pose(model))
    boxes = rig.box_bind
    reach = np.einsum("pk,pk->p", np.abs(boxes[:, axis, :3]), rig.half_extents)
    return float(min(low[axis], np.min(boxes[:, axis, 3] - reach)))


def near_pairs(rig: Rig, gap: float) -> list[tuple[int, int]]:
    """Part pairs (a < b) whose boxes' bounding spheres come within twice ``gap`` (model units) of each
    other at the bind pose: the only pairs whose shapes can be within ``gap``. One row of distances at a
    time, so memory stays linear in parts."""
    centres = rig.box_bind[:, :3, 3]
    radii = np.linalg.norm(rig.half_extents, axis=1) + gap
    pairs = []
    for a in range(len(centres) - 1):
        reach = np.linalg.norm(centres[a + 1:] - centres[a], axis=1) - radii[a + 1:]
        pairs += [(a, a + 1 + int(b)) for b in np.flatnonzero(reach <= radii[a])]
    return pairs


def principal_moments(size: np.ndarray, mass: float, capsule: bool) -> np.ndarray:
    """(3,) a solid part's moments of inertia (kg m²) about its box's axes through its centre: the box
    of edges ``size`` (metres), or the capsule inside it (``capsule_dimensions``), of ``mass`` kg."""
    size = np.asarray(size, dtype=np.float64)
    if not capsule:
        squares = size ** 2
        return mass / 12.0 * (squares.sum() - squares)
    axis, radius, length = capsule_dimensions(size)
    middle = max(length - 2 * radius, 0.0)
    cylinder, ball = np.pi * radius ** 2 * middle, 4.0 / 3.0 * np.pi * radius ** 3
    rod, caps = mass * cylinder / (cylinder + ball), mass * ball / (cylinder + ball)
    across = (rod * (radius ** 2 / 4 + middle ** 2 / 12)
              + caps * (2 * radius ** 2 / 5 + middle ** 2 / 4 + 3 * middle * radius / 8))
    moments = np.full(3, across)
    moments[axis] = rod * radius ** 2 / 2 + caps * 2 * radius ** 2 / 5
    return moments


def link_inertia(size: np.ndarray, mass: float, capsule: bool, turn: np.ndarray) -> np.ndarray:
    """(3,) the diagonal pybullet is given for a part (its inertial frame has its link's axes): the
    solid shape's tensor (``principal_moments``) turned by ``turn`` (3, 3, the box's axes in the
    link's frame), each moment then raised to INERTIA_SHARE of the largest principal moment. At
    INERTIA_SHARE 1 that is the largest moment about every axis, whatever the turn."""
    moments = principal_moments(size, mass, capsule)
    diagonal = np.einsum("ij,j,ij->i", turn, moments, turn)
    return np.maximum(diagonal, INERTIA_SHARE * moments.max())


def _angular_velocity(before: np.ndarray, after: np.ndarray, interval: float) -> np.ndarray:
    """(3,) the world-frame angular velocity turning frame ``before`` into ``after`` in ``interval``."""
    turn = maths.quat_from_matrix(after[:3, :3] @ before[:3, :3].T)
    angle = 2.0 * np.arctan2(np.linalg.norm(turn[:3]), turn[3])
    axis, valid = maths.normalize(turn[:3])
    return axis * angle / interval if valid else np.zeros(3)


def _wrap(angles: np.ndarray) -> np.ndarray:
    return (angles + np.pi) % (2 * np.pi) - np.pi
