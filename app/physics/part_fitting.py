"""The boxes and joints the automatic ragdoll setup fits to bones: a part's box along its bone over
the vertices it owns (twins given one mirrored shape), and a joint's frame at the child bone's head
(a flat skeleton: at the end of the child's box nearest the parent) with its axes along the bones."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from app import maths
from app.model import Model
from app.physics.body_shape import MIN_OWNED_VERTICES, PERCENTILES, BodyShape
from app.physics.joint_kinds import KINDS
from app.physics.profile import Joint, Part, RagdollProfile
from app.physics.rig import bind_rig, rigid, rigid_inverse
from app.physics.symmetry import mirror_bones, reflection_between
from app.pose import rest_extent

#: A box axis closer than this to the bone (degrees) is taken as is, without turning the box.
SNAP_DEGREES = 5.0
#: A part whose longest edge is at least this many times its next longest is limb-like: a capsule.
CAPSULE_RATIO = 2.0
#: A hinge axis this close (degrees) to an axis of the child bone's frame uses that axis exactly.
HINGE_SNAP_DEGREES = 20.0


def fit_box(model: Model, shape: BodyShape, name: str, bone: int, hub: np.ndarray | None = None,
            owned: np.ndarray | None = None) -> Part:
    """A box along the bone over its span, across it over its vertices' spread (``owned``, default
    the vertices the bone owns); a hub's box spans the heads of the bones in ``hub`` instead."""
    skeleton = model.skeleton
    owned = shape.owned.get(bone) if owned is None else owned
    span = shape.reach(skeleton.heads[bone], bone, owned)
    frame = rigid(skeleton.bind_world[bone])
    frame[:3, 3] += (skeleton.tails[bone] - skeleton.heads[bone]) / 2
    along = frame[:3, :3].T @ shape.directions[bone]
    axis = int(np.argmax(np.abs(along)))
    turn = np.eye(4)
    if abs(along[axis]) < np.cos(np.radians(SNAP_DEGREES)):
        turn = maths.quat_to_matrix(_shortest_arc(np.eye(3)[axis] * np.sign(along[axis]), along))
    box_frame = frame @ turn
    # In the box's frame the bone runs along ±axis from its head (the turn maps that axis onto it).
    head = maths.transform_points(rigid_inverse(box_frame), skeleton.heads[bone])
    low, high = np.zeros(3), np.zeros(3)
    low[axis], high[axis] = np.sort(head[axis] + np.sign(along[axis]) * span)
    across = [k for k in range(3) if k != axis]
    if owned is not None and len(owned) >= MIN_OWNED_VERTICES:
        local = maths.transform_points(rigid_inverse(box_frame), owned)
        low[across], high[across] = np.percentile(local[:, across], PERCENTILES, axis=0)
    elif hub is not None:
        local = maths.transform_points(rigid_inverse(box_frame), skeleton.heads[hub])
        low, high = np.minimum(low, local.min(axis=0)), np.maximum(high, local.max(axis=0))
        middle, thickness = (low + high) / 2, (high - low).max() / 4
        low, high = np.minimum(low, middle - thickness), np.maximum(high, middle + thickness)
    else:
        eighth = (span[1] - span[0]) / 8
        low[across], high[across] = head[across] - eighth, head[across] + eighth
    size = high - low
    size = np.maximum(size, max(0.15 * size.max(), 1e-3 * rest_extent(model)))
    centre = box_frame[:3, :3] @ ((low + high) / 2)
    quantum = _quantum(model)
    return Part(name=name, bone=skeleton.names[bone], size=_rounded(size, quantum),
                offset=_rounded(centre, quantum), rotation=_rounded(maths.quat_from_matrix(turn)),
                shape=shape_for(size))


def twin_parts(model: Model, shape: BodyShape, parts: list[Part]) -> list[Part]:
    """``parts`` with each left/right pair (bones that are twins, ``mirror_bones``) given one shape:
    the first twin's box is fitted over its own vertices and its twin's reflected onto its side,
    and the second twin's box is that box reflected (``_reflected_part``), so twins whose skins
    differ a little (a satyr's arms, one holding a bow) still get the same size and mass."""
    skeleton = model.skeleton
    twins = mirror_bones(model)
    placed = {skeleton.index(part.bone): index for index, part in enumerate(parts)}
    result = list(parts)
    for bone, index in placed.items():
        twin = int(twins[bone])
        if twin not in placed or twin < bone:
            continue
        mirror = reflection_between(skeleton.heads[bone], skeleton.heads[twin])
        own, other = shape.owned.get(bone), shape.owned.get(twin)
        clouds = [points for points in (own, None if other is None else maths.transform_points(mirror, other))
                  if points is not None]
        union = np.concatenate(clouds) if clouds else None
        result[index] = fit_box(model, shape, parts[index].name, bone, owned=union)
        result[placed[twin]] = _reflected_part(model, result[index], twin, mirror, parts[placed[twin]].name)
    return result


def _reflected_part(model: Model, part: Part, bone: int, mirror: np.ndarray, name: str) -> Part:
    """``part``'s box reflected by ``mirror`` (4, 4), as a part on ``bone``: the same size, its centre
    and axes reflected (one axis turned back so they stay a rotation: of the four ways, the one
    nearest the bone's own frame, so mirrored bone frames give an unturned box)."""
    skeleton = model.skeleton
    source = bind_rig(model, RagdollProfile(parts=[part])).box_bind[0]
    frame = rigid(skeleton.bind_world[bone])
    frame[:3, 3] += (skeleton.tails[bone] - skeleton.heads[bone]) / 2
    axes = frame[:3, :3].T @ mirror[:3, :3] @ source[:3, :3]
    flips = [np.diag(signs) for signs in ((-1.0, 1, 1), (1, -1.0, 1), (1, 1, -1.0), (-1.0, -1, -1))]
    turn = np.eye(4)
    turn[:3, :3] = max((axes @ flip for flip in flips), key=np.trace)
    centre = maths.transform_points(mirror, source[:3, 3]) - frame[:3, 3]
    quantum = _quantum(model)
    return replace(part, name=name, bone=skeleton.names[bone], offset=_rounded(centre, quantum),
                   rotation=_rounded(maths.quat_from_matrix(turn)))


def shape_for(size) -> str:
    """"capsule" for a limb-like part (its longest edge at least ``CAPSULE_RATIO`` times the next),
    "box" otherwise."""
    middle, longest = np.sort(size)[1:]
    return "capsule" if longest >= CAPSULE_RATIO * middle else "box"


def _shortest_arc(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The quaternion turning unit vector ``start`` onto unit vector ``end`` the short way."""
    return maths.quat_normalize(np.append(np.cross(start, end), 1.0 + float(np.dot(start, end))))


def _quantum(model: Model) -> float:
    """The step lengths are rounded to: a millionth of the model's size, as a power of ten."""
    return 10.0 ** (np.floor(np.log10(rest_extent(model))) - 6)


def _rounded(values, quantum: float = 1e-7) -> tuple[float, ...]:
    """Values rounded to multiples of ``quantum`` (float32 noise out of the saved profile)."""
    rounded = np.round(np.asarray(values, dtype=np.float64) / quantum) * quantum
    return tuple(float(f"{v:.10g}") + 0.0 for v in rounded)


def part_frames(model: Model, parts: list[Part]) -> np.ndarray:
    """(P, 4, 4) the parts' frames at the bind pose."""
    return bind_rig(model, RagdollProfile(parts=parts)).part_bind


def swing_axis(limb: np.ndarray, toward: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """The axis a limb along ``limb`` turns about to swing toward ``toward`` (fallback when parallel)."""
    axis, valid = maths.normalize(np.cross(limb, toward))
    return axis if valid else fallback


def _pivot(model: Model, shape: BodyShape, parts: list[Part], frames: np.ndarray, a: int,
           b: int) -> np.ndarray:
    """Where parts a and b join: part b's bone's head; in a flat skeleton, whose heads need not be
    joints, the end of b's box nearest a's centre."""
    bone = model.skeleton.index(parts[b].bone)
    if not shape.flat:
        return model.skeleton.heads[bone]
    box = frames[b] @ maths.quat_to_matrix(np.array(parts[b].rotation))
    local = rigid_inverse(box)[:3, :3] @ shape.directions[bone]
    axis = int(np.argmax(np.abs(local)))
    ends = [box[:3, 3] + box[:3, axis] * side * parts[b].size[axis] / 2 for side in (-1.0, 1.0)]
    return min(ends, key=lambda end: np.linalg.norm(end - frames[a][:3, 3]))


def make_joint(model: Model, shape: BodyShape, parts: list[Part], frames: np.ndarray, a: int, b: int,
               kind: str, axis: np.ndarray, limits: tuple, name: str) -> Joint:
    """A joint between parts a and b (see ``_pivot``). Cone-twist: X (twist) along b's bone, Z
    (swing1) as close to ``axis`` as is square to it. Hinge: Z along ``axis``, snapped to an axis of
    b's bone frame when one is near, so a clip turning the bone about that axis is followed exactly."""
    skeleton = model.skeleton
    bone = skeleton.index(parts[b].bone)
    pivot = _pivot(model, shape, parts, frames, a, b)
    twist = shape.directions[bone]
    if kind == "hinge":
        z = _snap(axis, rigid(skeleton.bind_world[bone])[:3, :3])
        x = _square(twist, z)
    else:
        x = twist
        z = _square(axis, x)
    rotation = np.stack([x, np.cross(z, x), z], axis=1)
    angles = dict(zip(KINDS[kind].limit_names, limits))
    quantum = _quantum(model)
    return Joint(name=name, part_a=parts[a].name, part_b=parts[b].name,
                 offset_a=_rounded(maths.transform_points(rigid_inverse(frames[a]), pivot), quantum),
                 offset_b=_rounded(maths.transform_points(rigid_inverse(frames[b]), pivot), quantum),
                 rotation=_rounded(maths.quat_from_matrix(rotation)), kind=kind, **angles)


def _square(vector: np.ndarray, to: np.ndarray) -> np.ndarray:
    """``vector`` made square to unit ``to`` (any square unit vector when they are parallel)."""
    result, valid = maths.normalize(vector - np.dot(vector, to) * to)
    if valid:
        return result
    result, _ = maths.normalize(np.cross(to, [1.0, 0.0, 0.0] if abs(to[0]) < 0.9 else [0.0, 1.0, 0.0]))
    return result


def _snap(axis: np.ndarray, frame: np.ndarray) -> np.ndarray:
    """``axis``, or the nearest of ±the columns of ``frame`` (3, 3) when within HINGE_SNAP_DEGREES."""
    dots = frame.T @ axis
    best = int(np.argmax(np.abs(dots)))
    if abs(dots[best]) >= np.cos(np.radians(HINGE_SNAP_DEGREES)):
        return frame[:, best] * np.sign(dots[best])
    return axis
