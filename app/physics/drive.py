"""Physical animation: joint motors that drive a ragdoll toward a clip or a held pose
(docs/ragdoll.md, *Physical animation*).

- *Follow*: each multibody's base follows the clip through a fixed constraint to a moving world
  frame (at most ROOT_WEIGHTS times the ragdoll's weight), and every joint's motors track the clip,
  so a shot or a pull moves the limbs it hits and they come back. Parts whose boxes the clip passes
  through each other do not collide while it follows (``box_overlap``): their contacts fought the
  motors.
- *Powered fall*: the base is free and the motors hold the take-over pose at ``strength`` (0..1) of
  their full torque, so the body falls with tone instead of limp.
- *Release*: from ``release_at`` seconds the base is let go and the motors fade to nothing over
  ``release_over`` seconds (a death that starts from the clip).

Motors are pybullet's position control: a constraint row per link that drives the link's speed to
``velocity_gain`` × the target speed error plus ``position_gain`` × the angle error per step, with
at most the joint's torque (``motors.joint_strengths``). A row cannot overshoot, so any strength is
stable; the gains only set how fast an error closes.
"""

from __future__ import annotations

import numpy as np

from app import maths
from app.model import Clip
from app.physics.box_overlap import overlapping_pairs
from app.physics.bullet import pb
from app.physics.motors import (MAX_STRENGTH_RATIO, clip_strengths, default_strengths, joint_strengths,
                                link_forces, link_targets)
from app.physics.multibody import gimbal_angles
from app.physics.ragdoll import GRAVITY, TIME_STEP, UP_AXES, Ragdoll
from app.physics.rig import rigid
from app.physics.world_builder import OVERLAP_GAP
from app.pose import compose_world, evaluate, keyed_local_frames

#: Share of the angle error the motors close per step (pybullet's default 0.1).
POSITION_GAIN = 0.2
#: Share of the speed error the motors close per step.
VELOCITY_GAIN = 1.0
#: Steps between looks at the clip (60 Hz); the targets are interpolated between (``Drive._targets``).
KEY_STEPS = 4
#: Most poses of the clip looked at, every KEY_STEPS steps, for its lowest reach, the parts it passes
#: through each other and the torque it needs (``Drive._clip_parts``); a longer clip is looked at
#: this many times, evenly spread.
CLIP_SAMPLES = 240
#: Largest force the constraint that carries a following base may use, in the ragdoll's weights.
ROOT_WEIGHTS = 50.0


class Drive:
    """Motors on every copy of ``ragdoll``: toward ``clip`` from ``start`` seconds (looping) when it
    is given, else toward the take-over pose. ``follow``: the bases follow the clip too."""

    def __init__(self, ragdoll: Ragdoll, clip: Clip | None, start: float = 0.0, *, strength: float = 1.0,
                 follow: bool = False, release_at: float | None = None, release_over: float = 0.0,
                 position_gain: float = POSITION_GAIN, velocity_gain: float = VELOCITY_GAIN):
        for name, value, top in (("strength", strength, 1.0), ("position gain", position_gain, 1.0),
                                 ("velocity gain", velocity_gain, 1.0)):
            if not 0.0 <= value <= top:
                raise ValueError(f"{name}: expected a number from 0 to {top:g}, got {value}")
        if follow and clip is None:
            raise ValueError("following needs a clip: the model has none")
        if release_at is not None and not (release_at >= 0 and release_over >= 0):
            raise ValueError(f"release: expected times >= 0, got {release_at} and {release_over}")
        self.ragdoll = ragdoll
        self.clip = clip if follow else None
        self.start = float(start)
        self.strength = float(strength)
        self.follow = follow
        self.release_at = release_at
        self.release_over = float(release_over)
        self.gains = (float(position_gain), float(velocity_gain))
        rig = ragdoll.rig
        strengths = joint_strengths(rig, ragdoll.layout)
        self._held = rig.parts_at(ragdoll.start_world)
        self._keys: tuple | None = None
        self._roots: list[list[int]] = []
        #: Part pairs kept from colliding while following: the clip passes their boxes through each other.
        self.passing: list[tuple[int, int]] = []
        if follow:
            self._attach_roots()
            parts, interval = self._clip_parts()
            boxes = parts @ rig.box_rotations
            ragdoll.set_floor(min(ragdoll.floor, self._clip_floor(boxes)))
            self._keep_apart_passing(boxes)
            strengths = self._with_clip_strengths(strengths, parts, interval)
        #: (J,) N·m: the most torque each joint's motors use at full strength.
        self.strengths = strengths
        self._forces = [link_forces(body, strengths) for body in ragdoll.layout]
        for body_id in ragdoll.body_ids():
            pb.changeDynamics(body_id, -1, activationState=pb.ACTIVATION_STATE_DISABLE_SLEEPING,
                              physicsClientId=ragdoll.client)

    # --- targets ---------------------------------------------------------------------------------

    def _clip_parts(self) -> tuple[np.ndarray, float]:
        """((F, P, 4, 4) the part frames at poses of the clip, the seconds between them): every
        KEY_STEPS steps, or CLIP_SAMPLES poses spread evenly over a longer clip."""
        rig, clip, model = self.ragdoll.rig, self.clip, self.ragdoll.model
        count = int(np.clip(np.ceil(clip.duration / (KEY_STEPS * TIME_STEP)) + 1, 2, CLIP_SAMPLES))
        times = clip.start + np.linspace(0.0, clip.duration, count)
        if clip.kind == "keyed":  # in one pass: one pose at a time took 0.8 s of a 20 s Mixamo clip
            local = keyed_local_frames(model.skeleton, clip, times)
            worlds = np.swapaxes(compose_world(model.skeleton, local), 0, 1)
        else:
            worlds = np.stack([evaluate(model, clip, time).world for time in times])
        bones = rig.part_bones
        parts = rigid(worlds[:, bones] @ model.skeleton.bind_inverse[bones] @ rig.part_bind)
        return parts, max(clip.duration / (count - 1), KEY_STEPS * TIME_STEP)

    def _with_clip_strengths(self, strengths: np.ndarray, parts: np.ndarray, interval: float) -> np.ndarray:
        """``strengths`` (J,) raised, for joints whose profile names none, to what the clip's
        accelerations need (``motors.clip_strengths``; the clip's poses ``parts`` (F, P, 4, 4),
        ``interval`` seconds apart), at most MAX_STRENGTH_RATIO times the default."""
        ragdoll = self.ragdoll
        rig = ragdoll.rig
        frames = rig.joint_world(parts)
        angles = gimbal_angles(np.swapaxes(frames[..., 0, :3, :3], -1, -2) @ frames[..., 1, :3, :3])
        needed = clip_strengths(rig, ragdoll.layout, angles, interval)
        top = MAX_STRENGTH_RATIO * default_strengths(rig, ragdoll.layout)
        named = np.array([joint.strength is not None for joint in rig.profile.joints], dtype=bool)
        return np.where(named, strengths, np.maximum(strengths, np.minimum(needed, top)))

    def _clip_floor(self, boxes: np.ndarray) -> float:
        """The lowest any part's box reaches over the clip's ``boxes`` (model units, along the up
        axis): a following ragdoll's ground goes no higher, so feet the clip sinks a little into the
        floor at the bind pose's height (a heel rolling onto its toes) are not pushed off their
        course."""
        axis = UP_AXES[self.ragdoll.model.up_axis]
        reach = np.einsum("fpk,pk->fp", np.abs(boxes[:, :, axis, :3]), self.ragdoll.rig.half_extents)
        return float(np.min(boxes[:, :, axis, 3] - reach))

    def _keep_apart_passing(self, boxes: np.ndarray) -> None:
        """Keep from colliding, in every copy, the part pairs whose boxes the clip's ``boxes`` pass
        through each other (grown by OVERLAP_GAP, the bind pose's rule), unless they never collide
        anyway (jointed, listed, overlapping at bind)."""
        ragdoll = self.ragdoll
        builder = ragdoll.builder
        count = len(ragdoll.rig.part_names)
        never = set(builder.disabled_pairs)
        pairs = np.array([(a, b) for a in range(count) for b in range(a + 1, count) if (a, b) not in never],
                         dtype=np.intp).reshape(-1, 2)
        passing = overlapping_pairs(boxes, ragdoll.rig.half_extents, pairs, OVERLAP_GAP / ragdoll.scale)
        self.passing = [tuple(map(int, pair)) for pair in pairs[passing]]
        for copy in range(ragdoll.copies):
            builder.set_colliding(ragdoll.body_ids(copy), self.passing, False)

    def _let_passing_collide(self) -> None:
        """Let the pairs kept apart collide again where they no longer touch; pairs that still
        overlap stay apart (a push out of each other would fling them) until the next build."""
        ragdoll = self.ragdoll
        for copy in range(ragdoll.copies):
            bodies = ragdoll.body_ids(copy)
            apart = [pair for pair in self.passing if not ragdoll.builder.touching(bodies, pair)]
            ragdoll.builder.set_colliding(bodies, apart, True)
        self.passing = []

    def clip_time(self, time: float) -> float:
        """The clip's time ``time`` seconds into the run (looping over the clip's timeline)."""
        clip = self.clip
        if clip is None or clip.duration <= 0:
            return self.start
        return clip.start + (self.start + time - clip.start) % clip.duration

    def target_parts(self, time: float) -> np.ndarray:
        """(P, 4, 4) where the motors want the parts ``time`` seconds into the run (model units)."""
        if self.clip is None:
            return self._held
        return self.ragdoll.rig.parts_at(evaluate(self.ragdoll.model, self.clip, self.clip_time(time)).world)

    def target_angles(self) -> np.ndarray:
        """(J, 3) radians: the joint angles (as ``Ragdoll.joint_angles``) of the target now."""
        frames = self.ragdoll.rig.joint_world(self.target_parts(self.ragdoll.time))
        return gimbal_angles(np.swapaxes(frames[:, 0, :3, :3], -1, -2) @ frames[:, 1, :3, :3])

    def factor(self, time: float) -> float:
        """The share of full torque the motors use ``time`` seconds into the run."""
        if self.release_at is None or time < self.release_at:
            return self.strength
        if self.release_over <= 0:
            return 0.0
        return self.strength * max(0.0, 1.0 - (time - self.release_at) / self.release_over)

    # --- applying --------------------------------------------------------------------------------

    def apply(self) -> None:
        """Set every copy's motors (and bases) for the coming step."""
        ragdoll = self.ragdoll
        time = ragdoll.time + TIME_STEP
        if self._roots and self.release_at is not None and time >= self.release_at:
            self._detach_roots()
        targets, rates, roots = self._targets(time)
        factor = self.factor(time)
        position_gain, velocity_gain = self.gains
        for copy in range(ragdoll.copies):
            for index, (body, body_id) in enumerate(zip(ragdoll.layout, ragdoll.body_ids(copy))):
                if not body.links:
                    continue
                count = len(body.links)
                pb.setJointMotorControlArray(
                    body_id, list(range(count)), pb.POSITION_CONTROL, targetPositions=list(targets[index]),
                    targetVelocities=list(rates[index]), forces=list(self._forces[index] * factor),
                    positionGains=[position_gain] * count, velocityGains=[velocity_gain] * count,
                    physicsClientId=ragdoll.client)
            for (position, orientation), constraint in zip(roots, self._roots[copy] if roots else ()):
                where = (position + ragdoll.copy_offset(copy)) * ragdoll.scale
                pb.changeConstraint(constraint, list(where), jointChildFrameOrientation=orientation,
                                    maxForce=self._root_force(), physicsClientId=ragdoll.client)

    def _targets(self, time: float) -> tuple[list[np.ndarray], list[np.ndarray], list[tuple]]:
        """Per body, the link angles and speeds the motors aim at ``time``, and where each base goes
        (position, quaternion) while the roots follow. The clip is looked at every KEY_STEPS steps and
        the angles and bases are interpolated between (linearly; quaternions normalised): evaluating
        the clip every step cost more than a following ragdoll's physics."""
        if self._keys is None or time > self._keys[1][0] + 1e-12:
            start = time - TIME_STEP if self._keys is None else self._keys[1][0]
            first = self._key(start) if self._keys is None else self._keys[1]
            self._keys = (first, self._key(start + KEY_STEPS * TIME_STEP))
        (t0, angles0, roots0), (t1, angles1, roots1) = self._keys
        share = (time - t0) / (t1 - t0)
        turns = [_wrap(b - a) for a, b in zip(angles0, angles1)]
        targets = [a + turn * share for a, turn in zip(angles0, turns)]
        rates = [turn / (t1 - t0) for turn in turns]
        roots = []
        for (p0, q0), (p1, q1) in zip(roots0, roots1) if self._roots else ():
            q1 = q1 if np.dot(q0, q1) >= 0 else -q1
            q = q0 + (q1 - q0) * share
            roots.append((p0 + (p1 - p0) * share, list(q / np.linalg.norm(q))))
        return targets, rates, roots

    def _key(self, time: float) -> tuple[float, list[np.ndarray], list[tuple[np.ndarray, np.ndarray]]]:
        """(time, per body link angles, per body base position and quaternion) of the target."""
        parts = self.target_parts(time)
        layout = self.ragdoll.layout
        angles = [link_targets(self.ragdoll.rig, body, parts) for body in layout]
        return time, angles, [(parts[b.base][:3, 3], maths.quat_from_matrix(parts[b.base])) for b in layout]

    def finished(self) -> bool:
        """Whether the motors have faded out and the bases are free: the drive has nothing left to do."""
        return not self._roots and self.factor(self.ragdoll.time + TIME_STEP) == 0.0

    def _root_force(self) -> float:
        return ROOT_WEIGHTS * float(self.ragdoll.rig.masses.sum()) * GRAVITY

    def _attach_roots(self) -> None:
        ragdoll = self.ragdoll
        for copy in range(ragdoll.copies):
            constraints = []
            for body, body_id in zip(ragdoll.layout, ragdoll.body_ids(copy)):
                frame = self._held[body.base]
                constraint = pb.createConstraint(
                    body_id, -1, -1, -1, pb.JOINT_FIXED, [0, 0, 0], [0, 0, 0],
                    list((frame[:3, 3] + ragdoll.copy_offset(copy)) * ragdoll.scale),
                    childFrameOrientation=list(maths.quat_from_matrix(frame)), physicsClientId=ragdoll.client)
                pb.changeConstraint(constraint, maxForce=self._root_force(), physicsClientId=ragdoll.client)
                constraints.append(constraint)
            self._roots.append(constraints)

    def _detach_roots(self) -> None:
        for constraint in (c for copy in self._roots for c in copy):
            pb.removeConstraint(constraint, physicsClientId=self.ragdoll.client)
        self._roots = []

    def stop(self) -> None:
        """Free the bases and turn the motors off (limp, as without a drive); sleeping allowed again.
        The ground stays where following put it."""
        ragdoll = self.ragdoll
        if ragdoll.client is None:
            return
        self._detach_roots()
        self._let_passing_collide()
        for copy in range(ragdoll.copies):
            for body, body_id in zip(ragdoll.layout, ragdoll.body_ids(copy)):
                count = len(body.links)
                if count:
                    pb.setJointMotorControlArray(body_id, list(range(count)), pb.VELOCITY_CONTROL,
                                                 forces=[0.0] * count, physicsClientId=ragdoll.client)
        for body_id in ragdoll.body_ids():
            pb.changeDynamics(body_id, -1, activationState=pb.ACTIVATION_STATE_ENABLE_SLEEPING,
                              physicsClientId=ragdoll.client)


def _wrap(angles: np.ndarray) -> np.ndarray:
    return (angles + np.pi) % (2 * np.pi) - np.pi
