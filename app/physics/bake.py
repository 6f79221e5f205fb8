"""Running a ragdoll for a while and keeping the frames: as a recording, or as a clip to play or export."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from app.model import Clip
from app.physics.ragdoll import TIME_STEP, Ragdoll, RayHit

#: Default seconds before a shot without a time fires (docs/cli.md).
DEFAULT_SHOT_TIME = 0.5


@dataclass(frozen=True)
class Shot:
    """A ray from ``origin`` along ``direction`` (model units) fired ``time`` seconds into the run;
    the part it hits receives ``impulse`` N·s."""

    origin: tuple[float, float, float]
    direction: tuple[float, float, float]
    time: float = DEFAULT_SHOT_TIME
    impulse: float = 10.0


@dataclass
class Recording:
    """times (F,) seconds from the start; world (F, B, 4, 4) bone world matrices; part_world
    (F, P, 4, 4) part frames; joint_angles (F, J, 3) radians, each joint's Z, Y, X angles of part b
    relative to part a (``Ragdoll.joint_angles``); hits: per shot, what it hit (None: nothing);
    target_angles (F, J, 3) radians, the angles the motors drove toward (``Ragdoll.target_angles``)."""

    times: np.ndarray
    world: np.ndarray
    part_world: np.ndarray
    joint_angles: np.ndarray
    hits: list[RayHit | None] = field(default_factory=list)
    target_angles: np.ndarray | None = None

    def clip(self, name: str = "ragdoll") -> Clip:
        return Clip(name=name, kind="matrices", times=self.times, world=self.world)


def frame_times(seconds: float, fps: float) -> np.ndarray:
    """(F,) the output frames' times: 0, 1/fps, … up to ``seconds`` (at least one frame)."""
    if not seconds >= 0 or not fps > 0:
        raise ValueError(f"expected seconds >= 0 and fps > 0, got {seconds} and {fps}")
    return np.arange(int(np.floor(seconds * fps + 1e-9)) + 1) / fps


def record(ragdoll: Ragdoll, seconds: float, fps: float = 60.0, shots: list[Shot] = (),
           copy: int = 0, progress: Callable[[float], None] | None = None) -> Recording:
    """Simulate ``seconds`` from the ragdoll's current state, keeping one frame every 1/fps seconds
    (the first is the state before any step) and firing ``shots`` at their times (the step nearest
    to each time; a shot after the end does not fire and reports no hit). ``progress`` hears the
    share of the frames done after each."""
    times = frame_times(seconds, fps)
    pending = sorted(enumerate(shots), key=lambda item: item[1].time)
    hits: list[RayHit | None] = [None] * len(shots)
    world = np.empty((len(times), len(ragdoll.model.skeleton), 4, 4))
    parts = np.empty((len(times), len(ragdoll.rig.part_bones), 4, 4))
    angles = np.empty((len(times), len(ragdoll.rig.joint_parts), 3))
    targets = np.empty_like(angles)
    steps = 0
    for frame, time in enumerate(times):
        target = int(round(time / TIME_STEP))
        while steps < target:
            while pending and pending[0][1].time <= (steps + 0.5) * TIME_STEP:
                index, shot = pending.pop(0)
                hits[index] = ragdoll.shoot(shot.origin, shot.direction, shot.impulse)
            ragdoll.step()
            steps += 1
        parts[frame] = ragdoll.part_world(copy)
        world[frame] = ragdoll.rig.bone_world(parts[frame], ragdoll.bone_to_part)
        angles[frame] = ragdoll.joint_angles(copy)
        targets[frame] = ragdoll.target_angles()
        if progress is not None:
            progress((frame + 1) / len(times))
    return Recording(times=times, world=world, part_world=parts, joint_angles=angles, hits=hits,
                     target_angles=targets)


def bake(ragdoll: Ragdoll, seconds: float, fps: float = 60.0, shots: list[Shot] = (),
         name: str = "ragdoll") -> Clip:
    """Run the ragdoll for ``seconds`` and return the frames as a 'matrices' clip at ``fps``."""
    return record(ragdoll, seconds, fps, shots).clip(name)
