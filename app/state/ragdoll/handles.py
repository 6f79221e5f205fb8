"""Drag handles in the view for the ragdoll editor (Unreal's PhAT is the model): for the selected part,
three arrows that move its offset and three knobs that size its box or capsule along each of its
axes; for the selected joint, three rings that turn its frame and three arrows that move its pivot.
Plain geometry: a view ray picks a handle, and the rays of a drag become one edit of the document per
mouse move (one undo step per drag through the document's gestures; the symmetric twin follows as it
does for numeric edits).

Where the handles sit follows the pose on screen (the clip's, or the rest pose); what they edit is the
profile, at the bind pose:

- move arrow i points along model axis i as the part carries it now (``R_now R_bind^T e_i``), and a
  drag of d along it adds d to ``offset[i]`` (offsets are model-space vectors at bind);
- size knob i sits on the face of the part's box along box axis i, and a drag of d outward grows
  ``size[i]`` by 2d (the box stays centred);
- rotate ring i turns about the joint frame's own axis i (carried by part a), and a turn of θ makes
  the joint's rotation ``R(rotation) @ R_i(θ)`` (a turn about a frame's own axis is the same at any pose);
- pivot arrow i starts at the joint's pivot and points along model axis i as part a carries it now; a
  drag of d along it moves the pivot at bind by d along model axis i, and both ``offset_a`` and
  ``offset_b`` become that new point in their parts' frames (so both parts agree on it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app import maths
from app.physics.rig import rigid_inverse
from app.state.ragdoll.document import RagdollDocument
from app.state.ragdoll.simulation import Simulation
from app.pose import rest_extent

#: Handle sizes as fractions of the model's extent: arrow length, knob half size, ring radius.
ARROW_LENGTH = 0.14
KNOB_SIZE = 0.012
RING_RADIUS = 0.11
#: How near (fraction of the arrow length or ring radius, or knob sizes) a ray must pass to pick; or,
#: for a handle far along the ray (a zoomed-out view), within this angle (radians, some 8 pixels of a
#: typical view) of it, so handles stay as easy to hit on screen however far the camera is.
PICK_SHARE = 0.12
KNOB_PICK = 2.0
PICK_ANGLE = 0.012
#: The smallest size a knob drag leaves (fraction of the extent).
MIN_SIZE = 0.002


@dataclass(frozen=True, eq=False)
class Handle:
    """One handle: ``kind`` 'move', 'size', 'rotate' or 'pivot' along or about ``axis`` (0-2) of the part or
    joint ``target`` (its index); ``origin`` (3,) where the arrow starts, the knob's centre or the
    ring's centre; ``direction`` (3,) unit: the arrow's or knob's outward axis, the ring's normal;
    ``length``: the arrow's length, the knob's half size, the ring's radius."""

    kind: str
    axis: int
    target: int
    origin: np.ndarray
    direction: np.ndarray
    length: float


def handles(document: RagdollDocument, simulation: Simulation) -> list[Handle]:
    """The handles the view shows now: none while running or without a selection."""
    rig = document.rig
    part, joint = document.selected_part, document.selected_joint
    if rig is None or simulation.running or (part is None and joint is None):
        return []  # (asked on every pointer move over the view: nothing to work out)
    extent = rest_extent(document.model)
    frames = simulation.part_frames()[0]
    found = []
    if part is not None and part < len(frames):
        frame = frames[part]
        centre = frame[:3, 3]
        carried = frame[:3, :3] @ rig.part_bind[part, :3, :3].T
        box = frame @ rig.box_rotations[part]
        half = rig.half_extents[part]
        for axis in range(3):
            found.append(Handle("move", axis, part, centre, _unit(carried[:, axis]), ARROW_LENGTH * extent))
        for axis in range(3):
            outward = _unit(box[:3, axis])
            knob = centre + outward * half[axis]
            found.append(Handle("size", axis, part, knob, outward, KNOB_SIZE * extent))
    if joint is not None and joint < len(rig.joint_parts):
        frame = rig.joint_world(frames)[joint, 0]
        for axis in range(3):
            found.append(Handle("rotate", axis, joint, frame[:3, 3], _unit(frame[:3, axis]),
                                RING_RADIUS * extent))
        part_a = rig.joint_parts[joint, 0]
        carried = frames[part_a, :3, :3] @ rig.part_bind[part_a, :3, :3].T
        for axis in range(3):
            found.append(Handle("pivot", axis, joint, frame[:3, 3], _unit(carried[:, axis]),
                                ARROW_LENGTH * extent))
    return found


def pick_handle(found: list[Handle], origin, direction) -> Handle | None:
    """The handle a view ray passes within reach of, the one it passes nearest as seen from the ray's
    start (the smallest angle: the nearest on screen) when several are; None when none is."""
    origin = np.asarray(origin, np.float64)
    direction = _unit(np.asarray(direction, np.float64))
    best, best_angle = None, np.inf
    for handle in found:
        along_ray, gap = _ray_gap(handle, origin, direction)
        reach = KNOB_PICK * handle.length if handle.kind == "size" else PICK_SHARE * handle.length
        if along_ray > 0 and gap <= max(reach, PICK_ANGLE * along_ray) and gap / along_ray < best_angle:
            best, best_angle = handle, gap / along_ray
    return best


def _ray_gap(handle: Handle, origin: np.ndarray, direction: np.ndarray) -> tuple[float, float]:
    """(how far along the ray, how far from the handle) where the ray passes ``handle`` nearest;
    (-inf, inf) when it does not pass it (beside an arrow's ends, parallel to a ring)."""
    if handle.kind in ("move", "pivot"):
        along_ray, along_axis, gap = _closest(origin, direction, handle.origin, handle.direction)
        return (along_ray, gap) if 0.0 <= along_axis <= handle.length else (-np.inf, np.inf)
    if handle.kind == "size":
        along_ray = float((handle.origin - origin) @ direction)
        return along_ray, float(np.linalg.norm(origin + direction * along_ray - handle.origin))
    point, along_ray = _on_plane(origin, direction, handle.origin, handle.direction)
    if point is None:
        return -np.inf, np.inf
    return along_ray, abs(float(np.linalg.norm(point - handle.origin)) - handle.length)


class HandleDrag:
    """A handle being dragged: ``move(origin, direction)`` for each view ray of the drag edits the
    document (one undo step for the whole drag); ``finish`` ends it."""

    def __init__(self, document: RagdollDocument, handle: Handle, origin, direction):
        self.document = document
        self.handle = handle
        profile = document.profile
        if handle.kind == "rotate":
            self.name = profile.joints[handle.target].name
            self.start = profile.joints[handle.target].rotation
        elif handle.kind == "pivot":
            # Each part's own placing of the pivot (at bind) moves by the drag, so offsets the user set
            # apart on purpose stay apart; where they meet, as usual, they move as one point.
            rig = document.rig
            joint = profile.joints[handle.target]
            parts = rig.joint_parts[handle.target]
            self.name = joint.name
            self.start = [maths.transform_points(rig.part_bind[part], np.asarray(offset, np.float64))
                          for part, offset in zip(parts, (joint.offset_a, joint.offset_b))]
            self.to_parts = [rigid_inverse(rig.part_bind[part]) for part in parts]
        else:
            part = profile.parts[handle.target]
            self.name = part.name
            self.start = part.offset if handle.kind == "move" else part.size
        self.extent = rest_extent(document.model)
        self.grab = self._reading(origin, direction)
        document.begin_gesture()

    def _reading(self, origin, direction) -> float | np.ndarray | None:
        """Where the ray is on the handle: the distance along an arrow or knob axis, or the point on
        a ring's plane."""
        origin = np.asarray(origin, np.float64)
        direction = _unit(np.asarray(direction, np.float64))
        handle = self.handle
        if handle.kind == "rotate":
            point, _ = _on_plane(origin, direction, handle.origin, handle.direction)
            return point
        _, along_axis, _ = _closest(origin, direction, handle.origin, handle.direction)
        return along_axis

    def change(self, origin, direction) -> dict | None:
        """The edit a drag to this view ray makes (field → new value), or None (the ray gives no
        reading: it runs along the arrow, or parallel to the ring)."""
        now = self._reading(origin, direction)
        if now is None or self.grab is None:
            return None
        handle = self.handle
        axis = handle.axis
        if handle.kind == "move":
            offset = np.array(self.start, np.float64)
            offset[axis] += now - self.grab
            return {"offset": offset}
        if handle.kind == "pivot":
            shift = np.zeros(3)
            shift[axis] = now - self.grab
            return {key: maths.transform_points(to_part, placed + shift)
                    for key, to_part, placed in zip(("offset_a", "offset_b"), self.to_parts, self.start)}
        if handle.kind == "size":
            size = np.array(self.start, np.float64)
            size[axis] = max(size[axis] + 2.0 * (now - self.grab), MIN_SIZE * self.extent)
            return {"size": size}
        angle = _signed_angle(self.grab - handle.origin, now - handle.origin, handle.direction)
        turn = maths.quat_to_matrix(maths.quat_normalize(np.asarray(self.start, np.float64)))
        turn[:3, :3] = turn[:3, :3] @ _axis_rotation(axis, angle)
        return {"rotation": maths.quat_from_matrix(turn)}

    def move(self, origin, direction) -> bool:
        """Edit the document for the drag's latest ray; False when it gives no reading or the edit
        was refused (the profile then stays as the last good step of the drag)."""
        changes = self.change(origin, direction)
        if changes is None:
            return False
        joint = self.handle.kind in ("rotate", "pivot")
        edit = self.document.edit_joint if joint else self.document.edit_part
        try:
            edit(self.name, **changes)
        except ValueError:
            return False
        return True

    def finish(self) -> None:
        self.document.end_gesture()


# --- geometry ------------------------------------------------------------------------------------

def _unit(vector: np.ndarray) -> np.ndarray:
    return vector / max(float(np.linalg.norm(vector)), 1e-300)


def _closest(origin: np.ndarray, direction: np.ndarray, point: np.ndarray, axis: np.ndarray
             ) -> tuple[float, float, float]:
    """For a ray (unit ``direction``) and the line through ``point`` along unit ``axis``: the
    distances along each to their closest points, and the gap between those points (a ray running
    along the line gives inf along it)."""
    between = point - origin
    cross = float(direction @ axis)
    denominator = 1.0 - cross * cross
    if denominator < 1e-9:
        return float(between @ direction), np.inf, float(np.linalg.norm(np.cross(between, direction)))
    along_ray = (float(between @ direction) - cross * float(between @ axis)) / denominator
    along_axis = (cross * float(between @ direction) - float(between @ axis)) / denominator
    gap = float(np.linalg.norm(origin + direction * along_ray - (point + axis * along_axis)))
    return along_ray, along_axis, gap


def _on_plane(origin: np.ndarray, direction: np.ndarray, point: np.ndarray, normal: np.ndarray
              ) -> tuple[np.ndarray | None, float]:
    """Where a ray meets the plane through ``point`` square to ``normal`` (None: parallel or behind)."""
    facing = float(direction @ normal)
    if abs(facing) < 1e-6:
        return None, np.inf
    along = float((point - origin) @ normal) / facing
    if along <= 0:
        return None, np.inf
    return origin + direction * along, along


def _signed_angle(start: np.ndarray, end: np.ndarray, normal: np.ndarray) -> float:
    """The angle (radians) turning ``start`` to ``end`` about ``normal`` (right-handed)."""
    return float(np.arctan2(normal @ np.cross(start, end), start @ end))


def _axis_rotation(axis: int, angle: float) -> np.ndarray:
    """(3, 3) the rotation by ``angle`` about coordinate axis ``axis``."""
    cos, sin = np.cos(angle), np.sin(angle)
    j, k = [(1, 2), (2, 0), (0, 1)][axis]
    rotation = np.eye(3)
    rotation[j, j] = rotation[k, k] = cos
    rotation[k, j], rotation[j, k] = sin, -sin
    return rotation
