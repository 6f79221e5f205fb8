"""The pybullet multibody layout of a rig, and the joint angles that put it in a given pose.

pybullet has no hinge or cone-twist constraint (docs/ragdoll.md), so each connected group of parts is
one multibody: its first part (profile order) is the base and the joints, taken breadth-first from
it, are its links. A hinge is one revolute link turning about Z of the joint frame ``J``. A cone-twist
is a gimbal of three revolute links at ``J``: two massless, shapeless ones turning about Z (±swing1)
and Y (±swing2), then the child part's link turning about X (±twist), Bullet's cone-twist axes. A
joint that closes a loop becomes a point-to-point constraint, and so does a joint whose links would
take its body past ``MAX_LINKS`` (its child part then starts a body of its own). Each link's frame at
the bind pose is its joint's ``J``; the base's is its part's frame. The links of each kind of joint
come from its ``axes`` (app/physics/joint_kinds.py). Pure numpy: ``ragdoll.py`` makes the pybullet calls.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from app.physics.rig import Rig, rigid_inverse

#: Links one pybullet multibody can hold. Its create command has room for 128 (pybullet's
#: MAX_CREATE_MULTI_BODY_LINKS, SharedMemoryCommands.h), the base taking one; links past those are
#: dropped without a word, and the first call naming one fails with "Joint index out-of-range".
MAX_LINKS = 127


@dataclass
class Link:
    """One revolute link. parent: link index in the body (−1: the base); part: the part it carries
    (−1: a gimbal link); axis: 0, 1, 2 for X, Y, Z of the joint frame; lower, upper: radians;
    origin (4, 4): its frame relative to its parent's frame at the bind pose."""

    parent: int
    part: int
    joint: int
    axis: int
    lower: float
    upper: float
    origin: np.ndarray


@dataclass
class Edge:
    """A profile joint in a body's tree: ``parent`` and ``child`` parts, the links it made, and
    whether the child is the joint's part a (a hinge then turns the other way)."""

    joint: int
    parent: int
    child: int
    links: list[int]
    reversed: bool


@dataclass
class Body:
    """One multibody: base part, links, tree edges, loop joints, and each part's link (−1: base);
    ``cut``: the loop joints that are loops only because the body had no room for their links."""

    base: int
    links: list[Link] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    loops: list[int] = field(default_factory=list)
    cut: list[int] = field(default_factory=list)
    part_links: dict[int, int] = field(default_factory=dict)


def link_frames_bind(rig: Rig, body: Body) -> dict[int, np.ndarray]:
    """Each of the body's parts' link frame at the bind pose: J of its joint, the part frame for the base."""
    frames = {body.base: rig.part_bind[body.base]}
    for edge in body.edges:
        frames[edge.child] = rig.joint_bind[edge.joint]
    return frames


def build_layout(rig: Rig, max_links: int = MAX_LINKS) -> list[Body]:
    """Group the parts into multibodies, breadth-first from the first unplaced part (profile order),
    each of at most ``max_links`` links."""
    count = len(rig.part_bones)
    incident: list[list[int]] = [[] for _ in range(count)]
    for joint, (a, b) in enumerate(rig.joint_parts):
        incident[a].append(joint)
        incident[b].append(joint)
    placed = np.zeros(count, bool)
    used = np.zeros(len(rig.joint_parts), bool)
    bodies = []
    for start in range(count):
        if placed[start]:
            continue
        body = Body(base=start, part_links={start: -1})
        frames = {start: rig.part_bind[start]}
        placed[start] = True
        queue = deque([start])
        while queue:
            part = queue.popleft()
            for joint in incident[part]:
                if used[joint]:
                    continue
                used[joint] = True
                a, b = rig.joint_parts[joint]
                other = b if a == part else a
                if placed[other]:
                    body.loops.append(joint)
                    continue
                if len(body.links) + len(rig.joint_kinds[joint].axes) > max_links:
                    body.loops.append(joint)
                    body.cut.append(joint)
                    continue
                placed[other] = True
                _add_edge(rig, body, frames, joint, part, other)
                queue.append(other)
        bodies.append(body)
    return bodies


def _add_edge(rig: Rig, body: Body, frames: dict, joint: int, parent: int, child: int) -> None:
    frame = rig.joint_bind[joint]
    origin = rigid_inverse(frames[parent]) @ frame
    first = len(body.links)
    parent_link = body.part_links[parent]
    reversed_ = rig.joint_parts[joint][0] == child
    kind = rig.joint_kinds[joint]
    ranges = kind.angle_ranges(rig.joint_limits[joint, :len(kind.limits)])
    last = len(kind.axes) - 1
    for step, axis in enumerate(kind.axes):
        lower, upper = ranges[step]
        if reversed_:  # a hinge turns the other way; a ± span stays as it is
            lower, upper = -upper, -lower
        body.links.append(Link(parent_link if step == 0 else first + step - 1, child if step == last else -1,
                               joint, axis, lower, upper, origin if step == 0 else np.eye(4)))
    body.part_links[child] = len(body.links) - 1
    body.edges.append(Edge(joint, parent, child, list(range(first, len(body.links))), bool(reversed_)))
    frames[child] = frame


def joint_positions(rig: Rig, body: Body, part_world: np.ndarray) -> np.ndarray:
    """(L,) the link angles (radians) that best put the body's parts at ``part_world`` (P, 4, 4).

    The relative rotation across each joint is split into Z, Y, X gimbal angles (exact for any
    rotation), or projected on a hinge's Z axis. Translations come from the joints, not the pose.
    """
    bind = link_frames_bind(rig, body)
    frames = {part: part_world[part] @ rigid_inverse(rig.part_bind[part]) @ bind[part] for part in bind}
    angles = np.zeros(len(body.links))
    for edge in body.edges:
        zero = frames[edge.parent] @ body.links[edge.links[0]].origin
        gimbal = gimbal_angles(zero[:3, :3].T @ frames[edge.child][:3, :3])
        angles[edge.links] = gimbal[:len(edge.links)]
    return angles


def gimbal_angles(relative: np.ndarray) -> np.ndarray:
    """(..., 3) Z, Y, X angles of (..., 3|4, 3|4) rotations ``Rz(a) @ Ry(b) @ Rx(c)``."""
    return np.stack([np.arctan2(relative[..., 1, 0], relative[..., 0, 0]),
                     np.arcsin(np.clip(-relative[..., 2, 0], -1.0, 1.0)),
                     np.arctan2(relative[..., 2, 1], relative[..., 2, 2])], axis=-1)
