"""The ragdoll world: a pybullet DIRECT client holding copies of one model's ragdoll and a ground plane.

Built at the bind pose (``world_builder``, from ``multibody.build_layout``; docs/ragdoll.md), then
moved into the pose to take over from (``take_over``), with velocities from two nearby poses so
nothing pops. Bones follow parts as in the article: ``W_bone = P_part(t) @ boneToPart``. A relation
bone's offset is taken at the take-over pose (the article's SetBoneRelation runs at the current pose),
so a hand keeps the grip it had in the clip; a part's own bone keeps the bind offset.

The API takes and gives model units and model axes; pybullet runs in metres (``meters_per_unit``)
with gravity along the model's up axis, at a fixed 240 Hz step. Copies stand side by side along X.

Resting ragdolls sleep (docs/ragdoll.md: it cuts their cost to almost nothing), and every interaction
wakes them first. A sleeping multibody ignores forces even right after a wake-up call, so a shot
lands on the step after the one that wakes the body: 1/240 s after ``shoot``.
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass

import numpy as np

from app import maths
from app.model import Clip, Model
from app.physics.bullet import (LINK_LINEAR_VELOCITY, LINK_WORLD_ORIENTATION, LINK_WORLD_POSITION, RayResult,
                                pb)
from app.physics.multibody import MAX_LINKS, Body, build_layout, gimbal_angles
from app.physics.profile import RagdollProfile
from app.physics.resting import RestingBodies
from app.physics.rig import Rig, bind_rig, rigid_inverse
from app.physics.world_builder import (MAX_JOINT_SPEED, SLEEP_THRESHOLD, UP_AXES, BodyReadout, WorldBuilder,
                                      bind_floor, part_link)
from app.pose import evaluate, Pose, pose_from_world, rest_extent

TIME_STEP = 1.0 / 240.0
#: Solver iterations (pybullet: 50). 10 let a part driven deep into the ground push its joint 40° past
#: its limit (C3DE ninja); 20 with CONTACT_ERP held it to 7° there, but a shot at a spider's leg tip,
#: passed up a chain of light parts, still carried joints 13–15° past their limits over a few steps;
#: 30 hold every joint to one step of MAX_JOINT_SPEED (docs/ragdoll.md).
SOLVER_ITERATIONS = 30
#: The solver stops early once no row's velocity changed by more than 1 cm/s in an iteration (the square
#: of that, m²/s²; pybullet: 1e-7). A lying ragdoll's contacts start from zero impulse every step and
#: took 25–28 iterations to reach 1e-7. The joint-limit trial still holds every joint to 7.2°
#: (docs/ragdoll.md).
SOLVER_RESIDUAL = 1e-4
#: How much of a contact's penetration is undone per step (pybullet: 0.2). Without split impulses a
#: part shot 24 cm into the ground came out at 11 m/s and fought its joint limits; 0.1 halves that.
CONTACT_ERP = 0.1
# Split impulses are off (pybullet turns them on): with them a multibody joint pushed more than
# 0.04 rad past its limit is never pulled back (that correction goes to a pass multibodies skip), and
# joints drifted 40–55° past their limits and rested there.
GRAVITY = 9.81
#: Default drag strength as a multiple of one ragdoll's weight (2 000 N held a 67 kg ragdoll).
DRAG_WEIGHTS = 3.0
#: Weight of the newest measurement in the running step cost.
COST_SMOOTHING = 0.1
#: Steps between looks for resting ragdolls to put to sleep sooner than Bullet does (``resting``).
REST_CHECK_STEPS = 12
#: A shot is followed by FINE_STEPS steps (0.15 s) of SUBSTEPS substeps each, with the joint speed
#: limit raised SUBSTEPS times (a joint still overshoots by at most one substep of it, 7°). At 240 Hz
#: a 200 N·s shot drove a light part 10–40 cm into the ground; substeps alone did not stop it, as
#: pybullet clamps joint speeds after the solver has resolved the contacts and so pushed the part on
#: into the ground; with both the check's shots leave every part within 5 cm (docs/ragdoll.md; 4
#: substeps left a 1.4 kg calf of the NWN orcus 5.8 cm deep after a 200 N·s shot, 8 left 2 cm).
#: Only after shots, so a ragdoll's usual cost stays.
SUBSTEPS = 8
FINE_STEPS = 36
FINE_RESIDUAL = SOLVER_RESIDUAL


@dataclass(frozen=True)
class RayHit:
    """What a ray hit: part index and name, which copy, and the hit point (model units)."""

    part: int
    name: str
    copy: int
    point: np.ndarray


@dataclass
class _Start:
    """The take-over state every copy is reset to: bone world matrices (B, 4, 4), and those
    ``interval`` seconds earlier (a negative interval: later)."""

    world: np.ndarray
    earlier: np.ndarray
    interval: float


@dataclass
class _Push:
    """A shot's force waiting for its body to wake: pybullet ids, the force (world, N) and where it
    acts, in the link's centre-of-mass frame (metres)."""

    body: int
    link: int
    force: np.ndarray
    point: np.ndarray


class Ragdoll:
    """Copies of a model's ragdoll in one pybullet world, with a ground plane and gravity.

    ``step``/``advance`` simulate; ``pose(copy)`` is the bones as an ``app.pose.Pose``. Close it (or
    use it as a context manager) to disconnect its pybullet client. ``rig`` is the profile bound to
    the model (bind-time frames, limits); ``bone_to_part`` (B, 4, 4) the offsets bones follow their
    parts by since the last take-over; ``time`` the simulated seconds since then.
    """

    def __init__(self, model: Model, profile: RagdollProfile, *, copies: int = 1, ground: bool = True,
                 gravity: bool = True, spacing: float | None = None):
        if copies < 1:
            raise ValueError(f"copies: expected at least 1, got {copies}")
        self.model = model
        self.client = pb.connect(pb.DIRECT)
        self.time = 0.0
        self.steps = 0
        self.step_seconds = 0.0
        self._gravity = gravity
        self._ground_enabled = ground
        self._spacing = spacing
        self._copies = copies
        self._pending = 0.0
        self._pushes: list[_Push] = []
        self._waking: list[_Push] = []
        self._drag: tuple[int, RayHit] | None = None
        self._fine = 0
        self._frames: dict[int, np.ndarray] = {}
        self.drag_strength = 0.0
        #: Motors driving the copies (``physics/drive.Drive``), or None: limp.
        self.drive = None
        self.rebuild(profile)

    # --- building --------------------------------------------------------------------------------

    def rebuild(self, profile: RagdollProfile | None = None) -> None:
        """Build the world again (after a profile edit), keeping the take-over pose if there was one."""
        start = getattr(self, "_start", None)
        self.set_drive(None)
        self.profile = profile or self.profile
        self.rig: Rig = bind_rig(self.model, self.profile)
        self.layout: list[Body] = build_layout(self.rig)
        self.scale = self.profile.meters_per_unit
        self._drag = None
        self._fine = 0
        pb.resetSimulation(physicsClientId=self.client)
        pb.setPhysicsEngineParameter(fixedTimeStep=TIME_STEP, numSubSteps=0,
                                     numSolverIterations=SOLVER_ITERATIONS,
                                     solverResidualThreshold=SOLVER_RESIDUAL, useSplitImpulse=0,
                                     contactERP=CONTACT_ERP, physicsClientId=self.client)
        self._up = np.eye(3)[UP_AXES[self.model.up_axis]]
        self._bodies: list[list[int]] = []
        self._resting = RestingBodies(self.client, SLEEP_THRESHOLD)
        self._readouts: list[list[BodyReadout]] = []
        self._owners: dict[tuple[int, int], tuple[int, int]] = {}
        self._loops: list[list[int]] = []
        self.builder = WorldBuilder(self.client, self.rig, self.layout, self.profile)
        self.gravity = self._gravity
        self._ground_body = None
        self._floor = bind_floor(self.model, self.rig)
        self.ground = self._ground_enabled
        width = np.ptp(self.rig.box_bind[:, 0, 3]) + 2 * self.rig.half_extents.max()
        self.spacing = self._spacing if self._spacing is not None else 1.5 * width
        self.drag_strength = DRAG_WEIGHTS * self.rig.masses.sum() * GRAVITY
        for _ in range(self._copies):
            self._add_copy()
        self._start = start or self._bind_start()
        self.reset()

    @property
    def warnings(self) -> list[str]:
        """What the build gave up, one line each: joints cut at pybullet's links per body."""
        cut = [self.profile.joints[joint].name for body in self.layout for joint in body.cut]
        if not cut:
            return []
        named = ", ".join(repr(name) for name in cut[:3]) + (f" and {len(cut) - 3} more" * (len(cut) > 3))
        return [f"{len(cut)} joint(s) ({named}) would take a body past pybullet's {MAX_LINKS} links: they "
                f"hold their parts together without limits (point-to-point)"]

    def _bind_start(self) -> _Start:
        world = self.model.skeleton.rest_world.copy()
        return _Start(world, world, TIME_STEP)

    def copy_offset(self, copy: int) -> np.ndarray:
        """(3,) where copy ``copy`` stands relative to the model (model units)."""
        return self._offset(copy)

    def body_ids(self, copy: int | None = None) -> list[int]:
        """pybullet ids of one copy's multibodies (layout order), or of every copy's."""
        return list(self._bodies[copy]) if copy is not None else [b for ids in self._bodies for b in ids]

    @property
    def start_world(self) -> np.ndarray:
        """(B, 4, 4) the bone world matrices of the take-over pose (``take_over``; bind until then)."""
        return self._start.world

    def set_drive(self, drive) -> None:
        """Drive the copies with motors (a ``physics/drive.Drive`` made for this ragdoll), or go limp
        (None). A reset, a rebuild or a change of copies also goes limp."""
        if drive is None and self.drive is None:
            return
        if self.drive is not None and self.drive is not drive:
            self.drive.stop()
        self.drive = drive
        self._wake()

    def target_angles(self) -> np.ndarray:
        """(J, 3) radians: the joint angles the motors drive toward, as ``joint_angles`` gives them;
        without motors, those of the take-over pose."""
        if self.drive is not None:
            return self.drive.target_angles()
        frames = self.rig.joint_world(self.rig.parts_at(self._start.world))
        return gimbal_angles(np.swapaxes(frames[:, 0, :3, :3], -1, -2) @ frames[:, 1, :3, :3])

    def _offset(self, copy: int) -> np.ndarray:
        """(3,) where copy ``copy`` stands relative to the model (model units)."""
        return np.array([copy * self.spacing, 0.0, 0.0])

    def _add_copy(self) -> None:
        """Create one more copy's multibodies at the bind pose, offset sideways."""
        copy = len(self._bodies)
        built = self.builder.add_copy(self._offset(copy))
        for body, body_id in zip(self.layout, built.bodies):
            self._resting.watch(body_id, len(body.links))
            for part, link in body.part_links.items():
                self._owners[(body_id, link)] = (copy, part)
        self._bodies.append(built.bodies)
        self._readouts.append(built.readouts)
        self._loops.append(built.loops)

    def _where(self, copy: int, part: int) -> tuple[int, int]:
        """(pybullet body id, link index) of a part of a copy."""
        return part_link(self.layout, self._bodies[copy], part)

    # --- settings --------------------------------------------------------------------------------

    @property
    def copies(self) -> int:
        return len(self._bodies)

    def set_copies(self, count: int) -> None:
        """Have ``count`` copies; new ones start at the take-over state, removed ones go from the end."""
        if count < 1:
            raise ValueError(f"copies: expected at least 1, got {count}")
        self.end_drag()
        self.set_drive(None)
        self._pushes, self._waking = [], []
        while len(self._bodies) > count:
            for constraint in self._loops.pop():
                pb.removeConstraint(constraint, physicsClientId=self.client)
            for body_id in self._bodies.pop():
                pb.removeBody(body_id, physicsClientId=self.client)
                self._resting.forget(body_id)
            self._readouts.pop()
        self._frames.clear()
        while len(self._bodies) < count:
            self._add_copy()
            self._reset_copy(len(self._bodies) - 1)
        self._owners = {key: value for key, value in self._owners.items() if value[0] < count}
        self._copies = count

    @property
    def gravity(self) -> bool:
        return self._gravity

    @gravity.setter
    def gravity(self, enabled: bool) -> None:
        self._gravity = bool(enabled)
        pb.setGravity(*(-GRAVITY * self._up * self._gravity), physicsClientId=self.client)
        self._wake()

    @property
    def ground(self) -> bool:
        return self._ground_body is not None

    @ground.setter
    def ground(self, enabled: bool) -> None:
        """A static plane at ``floor`` (``WorldBuilder.add_ground``), or none."""
        self._ground_enabled = bool(enabled)
        if enabled and self._ground_body is None:
            self._ground_body = self.builder.add_ground(self._up, self.floor)
        elif not enabled and self._ground_body is not None:
            pb.removeBody(self._ground_body, physicsClientId=self.client)
            self._ground_body = None
            self._wake()

    @property
    def floor(self) -> float:
        """The ground's height along the up axis (model units): the lowest point of the bind-pose
        bounds, or of the boxes at bind if one reaches lower (``set_floor`` may lower it)."""
        return self._floor

    def set_floor(self, height: float | None) -> None:
        """Move the ground to ``height`` along the up axis (model units; None: back to the bind
        pose's floor) until the next rebuild."""
        self._floor = bind_floor(self.model, self.rig) if height is None else float(height)
        if self._ground_body is not None:
            pb.resetBasePositionAndOrientation(self._ground_body, list(self._up * self._floor * self.scale),
                                               [0, 0, 0, 1], physicsClientId=self.client)
            self._wake()

    def set_drag_strength(self, newtons: float) -> None:
        """The most force the drag spring may use (N)."""
        if not newtons > 0:
            raise ValueError(f"drag strength: expected a positive force in N, got {newtons}")
        self.drag_strength = float(newtons)
        if self._drag is not None:
            pb.changeConstraint(self._drag[0], maxForce=self.drag_strength, physicsClientId=self.client)

    # --- taking over -----------------------------------------------------------------------------

    def take_over(self, world: np.ndarray, earlier: np.ndarray | None = None,
                  interval: float = TIME_STEP) -> None:
        """Put every copy in the pose of bone world matrices ``world`` (B, 4, 4), moving as it moved
        from ``earlier`` (the pose ``interval`` seconds before, or after when ``interval`` is negative;
        None: at rest). This is also the state ``reset`` returns to. Joint angles outside their
        limits are clamped. Motors stop (``set_drive``)."""
        world = np.array(world, dtype=np.float64)
        earlier = world if earlier is None else np.array(earlier, dtype=np.float64)
        if not interval:
            raise ValueError("interval: expected a non-zero time in seconds")
        self._start = _Start(world, earlier, float(interval))
        self.reset()

    def take_over_clip(self, clip: Clip | None, time: float, interval: float = TIME_STEP) -> None:
        """Take over from ``clip`` at ``time`` seconds, velocities from the clip around that time."""
        now = evaluate(self.model, clip, time).world
        if clip is None:
            self.take_over(now)
        elif time - interval >= clip.start:
            self.take_over(now, evaluate(self.model, clip, time - interval).world, interval)
        else:
            self.take_over(now, evaluate(self.model, clip, time + interval).world, -interval)

    def reset(self) -> None:
        """Back to the take-over state (the bind pose at rest until ``take_over``); time restarts at 0.
        Motors stop (``set_drive``)."""
        self.end_drag()
        self.set_drive(None)
        for copy in range(self.copies):
            self._reset_copy(copy)
        self._wake()
        self.bone_to_part = self.rig.relation_offsets(self.part_world(0), self._start.world)
        self.time = 0.0
        self.steps = 0
        self._pending = 0.0
        self._pushes, self._waking = [], []
        self._refine(0)

    def _reset_copy(self, copy: int) -> None:
        self._frames.clear()
        start = self._start
        self.builder.place_copy(self._bodies[copy], self.rig.parts_at(start.world),
                                 self.rig.parts_at(start.earlier), start.interval, self._offset(copy))

    # --- stepping --------------------------------------------------------------------------------

    def _wake(self, bodies: list[int] | None = None) -> None:
        """Wake the given pybullet bodies (default: every copy's)."""
        self._resting.wake(bodies if bodies is not None else self.body_ids())

    def _sleep_resting(self) -> None:
        """Put resting multibodies to sleep (``resting``); the dragged body and bodies about to be
        shot stay awake."""
        held = {self._where(self._drag[1].copy, self._drag[1].part)[0]} if self._drag is not None else set()
        held |= {push.body for push in self._pushes + self._waking}
        self._resting.sleep_resting(self.time, held)

    def step(self, count: int = 1) -> None:
        """Simulate ``count`` fixed steps of TIME_STEP seconds."""
        started = _time.perf_counter()
        for _ in range(count):
            if self._pushes:
                self._refine(FINE_STEPS)
            for push in self._pushes:
                centre = self._centre_of_mass(push.body, push.link)
                pb.applyExternalForce(push.body, push.link, list(push.force),
                                      list(maths.transform_points(centre, push.point)), pb.WORLD_FRAME,
                                      physicsClientId=self.client)
            self._pushes, self._waking = self._waking, []
            if self._fine:
                self._fine -= 1
                if not self._fine:
                    self._refine(0)
            if self.drive is not None:
                self.drive.apply()
            pb.stepSimulation(physicsClientId=self.client)
            self.steps += 1
            self.time = self.steps * TIME_STEP
            if self.drive is not None and self.drive.finished():
                self.set_drive(None)
            if self.steps % REST_CHECK_STEPS == 0 and self.drive is None:
                self._sleep_resting()
        self._frames.clear()
        if count:
            cost = (_time.perf_counter() - started) / count
            self.step_seconds = cost if not self.step_seconds else (
                (1 - COST_SMOOTHING) * self.step_seconds + COST_SMOOTHING * cost)

    def _refine(self, steps: int) -> None:
        """Step with SUBSTEPS substeps, joints as fast, for the next ``steps`` steps (0: back to one)."""
        if bool(steps) != bool(self._fine):
            pb.setPhysicsEngineParameter(numSubSteps=SUBSTEPS if steps else 0, physicsClientId=self.client)
            speed = MAX_JOINT_SPEED * (SUBSTEPS if steps else 1)
            for body_id in self.body_ids():
                pb.changeDynamics(body_id, -1, maxJointVelocity=speed, physicsClientId=self.client)
        self._fine = steps

    def advance(self, seconds: float, budget: float | None = None) -> int:
        """Simulate ``seconds`` more in fixed steps, carrying what is left below a step to the next
        call. With ``budget`` (wall seconds), stop when it is spent and drop the rest, so a slow
        machine shows slow motion instead of falling further behind. Returns the steps taken."""
        self._pending += max(seconds, 0.0)
        wanted = int(self._pending / TIME_STEP + 1e-9)
        started = _time.perf_counter()
        taken = 0
        while taken < wanted:
            self.step()
            taken += 1
            if budget is not None and _time.perf_counter() - started > budget:
                break
        self._pending = self._pending - wanted * TIME_STEP if taken == wanted else 0.0
        return taken

    @property
    def realtime_factor(self) -> float:
        """Simulated seconds per wall second of stepping, from the recent step cost (inf before any)."""
        return TIME_STEP / self.step_seconds if self.step_seconds else float("inf")

    # --- reading ---------------------------------------------------------------------------------

    def all_part_world(self) -> np.ndarray:
        """(C, P, 4, 4) every copy's part frames (model units, copies at their offsets)."""
        result = np.empty((self.copies, len(self.rig.part_bones), 4, 4))
        for copy in range(self.copies):
            result[copy] = self.part_world(copy)
        return result

    def part_world(self, copy: int = 0) -> np.ndarray:
        """(P, 4, 4) the part frames ``P_part(t)`` of one copy (model units), read-only. Read from
        pybullet once per state: the pose, the gizmos and picking of one frame share the reading."""
        cached = self._frames.get(copy)
        if cached is not None:
            return cached
        result = np.empty((len(self.rig.part_bones), 4, 4))
        for body_id, readout in zip(self._bodies[copy], self._readouts[copy]):
            centres = [pb.getBasePositionAndOrientation(body_id, physicsClientId=self.client)]
            if readout.links:
                states = pb.getLinkStates(body_id, readout.links, computeForwardKinematics=1,
                                          physicsClientId=self.client)
                centres += [(s[LINK_WORLD_POSITION], s[LINK_WORLD_ORIENTATION]) for s in states]
            positions, orientations = zip(*centres)
            frames = maths.quat_to_matrix(np.array(orientations))
            frames[:, :3, 3] = np.array(positions) / self.scale
            result[readout.parts] = frames @ readout.com_to_part
        result.flags.writeable = False
        self._frames[copy] = result
        return result

    def part_velocities(self, copy: int = 0) -> np.ndarray:
        """(P, 3) each part's centre velocity (model units per second)."""
        result = np.empty((len(self.rig.part_bones), 3))
        for body_id, readout in zip(self._bodies[copy], self._readouts[copy]):
            velocities = [pb.getBaseVelocity(body_id, physicsClientId=self.client)[0]]
            if readout.links:
                states = pb.getLinkStates(body_id, readout.links, computeLinkVelocity=1,
                                          computeForwardKinematics=1, physicsClientId=self.client)
                velocities += [s[LINK_LINEAR_VELOCITY] for s in states]
            result[readout.parts] = np.array(velocities) / self.scale
        return result

    def box_world(self, copy: int = 0) -> np.ndarray:
        """(P, 4, 4) each box's frame (centre and axes) for drawing; half extents in ``half_extents``."""
        return self.part_world(copy) @ self.rig.box_rotations

    @property
    def half_extents(self) -> np.ndarray:
        """(P, 3) box half extents (model units) along the axes of ``box_world``."""
        return self.rig.half_extents

    def joint_world(self, copy: int = 0) -> np.ndarray:
        """(J, 2, 4, 4) each joint's frame as carried by its part a and part b (equal at bind)."""
        return self.rig.joint_world(self.part_world(copy))

    def joint_angles(self, copy: int = 0) -> np.ndarray:
        """(J, 3) radians: part b's turn relative to part a in the joint frame, as Z, Y, X angles
        (a hinge's angle is the first; a cone-twist's are swing1, swing2, twist)."""
        frames = self.joint_world(copy)
        return gimbal_angles(np.swapaxes(frames[:, 0, :3, :3], -1, -2) @ frames[:, 1, :3, :3])

    def bone_world(self, copy: int = 0) -> np.ndarray:
        """(B, 4, 4) bone world matrices ``P_part(t) @ boneToPart``."""
        return self.rig.bone_world(self.part_world(copy), self.bone_to_part)

    def pose(self, copy: int = 0) -> Pose:
        return pose_from_world(self.model, self.bone_world(copy))

    # --- interaction -----------------------------------------------------------------------------

    def pick(self, origin, direction) -> RayHit | None:
        """The first part a ray from ``origin`` along ``direction`` (model units) hits, or None."""
        origin = np.asarray(origin, dtype=np.float64)
        unit, valid = maths.normalize(np.asarray(direction, dtype=np.float64))
        if not valid:
            raise ValueError("the ray's direction is zero")
        reach = 100.0 * rest_extent(self.model) + float(np.linalg.norm(origin))
        start, end = origin * self.scale, (origin + unit * reach) * self.scale
        result = RayResult._make(pb.rayTest(list(start), list(end), physicsClientId=self.client)[0])
        owner = self._owners.get((result.objectUniqueId, result.linkIndex))
        if owner is None:
            return None
        copy, part = owner
        return RayHit(part, self.rig.part_names[part], copy, np.array(result.hitPosition) / self.scale)

    def shoot(self, origin, direction, impulse: float) -> RayHit | None:
        """Cast a ray; the first part hit gets ``impulse`` N·s along the ray at the hit point (a force
        of impulse / dt for one step, docs/ragdoll.md), on the second step from now: the first wakes
        the ragdoll. Returns the hit or None."""
        hit = self.pick(origin, direction)
        if hit is not None:
            unit, _ = maths.normalize(np.asarray(direction, dtype=np.float64))
            body_id, link = self._where(hit.copy, hit.part)
            self._wake([body_id])
            local = self._in_centre_of_mass_frame(body_id, link, hit.point)
            self._waking.append(_Push(body_id, link, unit * impulse / TIME_STEP, local))
        return hit

    def _centre_of_mass(self, body_id: int, link: int) -> np.ndarray:
        """(4, 4) a link's centre-of-mass frame in the world (metres)."""
        if link < 0:
            position, orientation = pb.getBasePositionAndOrientation(body_id, physicsClientId=self.client)
        else:
            state = pb.getLinkState(body_id, link, computeForwardKinematics=1, physicsClientId=self.client)
            position, orientation = state[LINK_WORLD_POSITION], state[LINK_WORLD_ORIENTATION]
        frame = maths.quat_to_matrix(np.array(orientation))
        frame[:3, 3] = position
        return frame

    def _in_centre_of_mass_frame(self, body_id: int, link: int, point: np.ndarray) -> np.ndarray:
        """(3,) ``point`` (model units, world) in the link's centre-of-mass frame (metres)."""
        centre = self._centre_of_mass(body_id, link)
        return maths.transform_points(rigid_inverse(centre), np.asarray(point) * self.scale)

    def begin_drag(self, origin, direction) -> RayHit | None:
        """Pick a part with a ray and hold the hit point on a spring (a point-to-point constraint of
        at most ``drag_strength`` N) to a target that ``drag_to`` moves. Returns the hit or None."""
        self.end_drag()
        hit = self.pick(origin, direction)
        if hit is None:
            return None
        body_id, link = self._where(hit.copy, hit.part)
        self._wake([body_id])
        local = self._in_centre_of_mass_frame(body_id, link, hit.point)
        constraint = pb.createConstraint(body_id, link, -1, -1, pb.JOINT_POINT2POINT, [0, 0, 0], list(local),
                                         list(hit.point * self.scale), physicsClientId=self.client)
        pb.changeConstraint(constraint, maxForce=self.drag_strength, physicsClientId=self.client)
        self._drag = (constraint, hit)
        return hit

    def drag_to(self, point) -> None:
        """Move the drag target to ``point`` (model units); nothing happens without a drag."""
        if self._drag is not None:
            self._wake([self._where(self._drag[1].copy, self._drag[1].part)[0]])
            pb.changeConstraint(self._drag[0], list(np.asarray(point, dtype=np.float64) * self.scale),
                                maxForce=self.drag_strength, physicsClientId=self.client)

    def end_drag(self) -> None:
        if self._drag is not None:
            pb.removeConstraint(self._drag[0], physicsClientId=self.client)
            self._wake([self._where(self._drag[1].copy, self._drag[1].part)[0]])
            self._drag = None

    @property
    def dragging(self) -> RayHit | None:
        """The part being dragged (as picked), or None."""
        return None if self._drag is None else self._drag[1]

    # --- lifetime --------------------------------------------------------------------------------

    def close(self) -> None:
        if self.client is not None and pb.isConnected(self.client):
            pb.disconnect(self.client)
        self.client = None

    def __enter__(self) -> Ragdoll:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown may have torn pybullet down already
            pass
