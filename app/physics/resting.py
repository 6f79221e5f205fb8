"""Putting resting multibodies to sleep sooner than Bullet does, and waking them (docs/ragdoll.md: a
sleeping ragdoll costs almost nothing, and Bullet's own timeout is 2 s, during which a resting ragdoll
costs as much as a falling one)."""

from __future__ import annotations

import numpy as np

from app.physics.bullet import pb

#: Seconds a body's motion stays under its sleep threshold, not growing REST_GROWTH times, before it
#: sleeps.
REST_SECONDS = 0.5
REST_GROWTH = 4.0


class RestingBodies:
    """The multibodies of one pybullet world (``client``) watched for rest, with their joint indices,
    when each went quiet and which sleep."""

    def __init__(self, client: int, threshold: float):
        self.client = client
        self.threshold = threshold
        self._joints: dict[int, list[int]] = {}
        self._quiet: dict[int, tuple[float, float]] = {}
        self._asleep: set[int] = set()

    def watch(self, body_id: int, joint_count: int) -> None:
        """Watch a multibody with ``joint_count`` joints."""
        self._joints[body_id] = list(range(joint_count))

    def forget(self, body_id: int) -> None:
        """Stop watching a multibody (it was removed)."""
        self._joints.pop(body_id, None)
        self._quiet.pop(body_id, None)
        self._asleep.discard(body_id)

    def wake(self, bodies: list[int]) -> None:
        """Wake the given pybullet bodies."""
        for body_id in bodies:
            pb.changeDynamics(body_id, -1, activationState=pb.ACTIVATION_STATE_WAKE_UP,
                              physicsClientId=self.client)
            self._quiet.pop(body_id, None)
            self._asleep.discard(body_id)

    def _motion(self, body_id: int) -> float:
        """Bullet's measure of a multibody's motion: the sum of its squared base velocities (m/s,
        rad/s) and joint speeds (rad/s). 0 while it sleeps."""
        linear, angular = pb.getBaseVelocity(body_id, physicsClientId=self.client)
        motion = float(np.dot(linear, linear) + np.dot(angular, angular))
        joints = self._joints[body_id]
        if joints:
            states = pb.getJointStates(body_id, joints, physicsClientId=self.client)
            motion += sum(state[1] * state[1] for state in states)
        return motion

    def sleep_resting(self, time: float, held: set[int]) -> None:
        """Put to sleep each multibody whose motion has stayed under the threshold, without growing
        more than REST_GROWTH times, for REST_SECONDS up to ``time`` (simulated seconds). Growth
        restarts the wait: a body balancing on its feet tips over slowly, its motion growing from
        almost nothing. The ``held`` bodies (dragged, about to be shot) stay awake."""
        for body_id in self._joints:
            if body_id in held:
                continue
            motion = self._motion(body_id)
            if body_id in self._asleep:
                if motion == 0.0:
                    continue
                self._asleep.discard(body_id)
            since, first = self._quiet.get(body_id, (None, 0.0))
            if motion >= self.threshold:
                self._quiet.pop(body_id, None)
            elif since is None or motion > REST_GROWTH * first:
                self._quiet[body_id] = (time, motion)
            elif time - since >= REST_SECONDS:
                pb.changeDynamics(body_id, -1, activationState=pb.ACTIVATION_STATE_SLEEP,
                                  physicsClientId=self.client)
                self._asleep.add(body_id)
                self._quiet.pop(body_id, None)
