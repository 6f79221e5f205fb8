"""What the ragdoll's editor gizmos are, as data: part boxes and capsules, joint frames, hinge arcs,
swing cones, twist arcs and drag handles, with their colours, and the ray-box test that picks parts.

Plain numpy, no GL (the Qt-free state builds scenes and picks with it): ``ragdoll_scene`` and
``handle_scene`` make a ``GizmoScene`` of coloured line segments and translucent triangles, in model
units and model axes; ``app.render.gizmos.Gizmos`` draws one.

Limit conventions are the ragdoll's (docs/ragdoll.md, ``app.physics.multibody``): in a joint frame
``J`` as carried by part a, a hinge turns part b's X axis about Z from ``low`` to ``high``; a
cone-twist swings it by ``Rz(a) @ Ry(b)`` with ``|a| <= swing1`` and ``|b| <= swing2`` (a box in angle
space, which is what the gimbal links enforce, so the cone is drawn as that box's outline, not as an
ellipse) and twists it about X within ``±twist``. A white spoke shows where part b's X axis is now.
Column vectors; matrices (..., 4, 4).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: Corners of the unit box (8, 3) and its 12 edges as corner index pairs.
BOX_CORNERS = np.array([[x, y, z] for x in (-1.0, 1.0) for y in (-1.0, 1.0) for z in (-1.0, 1.0)])
BOX_EDGES = np.array([[0, 1], [2, 3], [4, 5], [6, 7], [0, 2], [1, 3], [4, 6], [5, 7],
                      [0, 4], [1, 5], [2, 6], [3, 7]])
#: The 12 triangles of the unit box's faces (corner indices).
BOX_TRIANGLES = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                          [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
#: Line segments per full turn of an arc or cone outline, and of a capsule's rings.
ARC_SEGMENTS = 48
CAPSULE_SEGMENTS = 24
#: Limit gizmo radius and joint axis length, as fractions of the model's extent.
LIMIT_RADIUS = 0.06
AXIS_LENGTH = 0.045
#: A selected joint's gizmos are drawn this much larger.
SELECTED_SCALE = 1.4
#: How far along X (fraction of the radius) the twist arc sits from the joint's centre.
TWIST_OFFSET = 0.35

#: Display (sRGB) colours with straight alpha.
BOX_COLOR = (0.55, 0.80, 1.00, 0.85)
SELECTED_BOX_COLOR = (1.00, 0.55, 0.10, 1.00)
SELECTED_FILL_COLOR = (1.00, 0.55, 0.10, 0.20)
COPY_BOX_COLOR = (0.80, 0.80, 0.86, 0.75)
AXIS_COLORS = ((0.95, 0.30, 0.30, 1.0), (0.35, 0.90, 0.35, 1.0), (0.35, 0.55, 1.00, 1.0))
HINGE_COLOR = (1.00, 0.85, 0.20, 0.95)
CONE_COLOR = (0.25, 0.90, 0.90, 0.90)
TWIST_COLOR = (0.95, 0.45, 0.95, 0.90)
CURRENT_COLOR = (1.00, 1.00, 1.00, 0.95)
#: Unselected joints' gizmos are drawn with this alpha factor when a joint is selected.
DIMMED = 0.35
#: Drag handles: an arrow's head as a share of its length and its radius as a share of the head's
#: length, the sides of its cone; the colour of the handle being dragged.
ARROW_HEAD = 0.25
ARROW_RADIUS = 0.35
ARROW_SIDES = 12
ACTIVE_HANDLE_COLOR = (1.00, 0.95, 0.25, 1.00)


@dataclass
class GizmoScene:
    """Gizmo geometry in model units: line segment ends (2L, 3) with colours (2L, 4), and triangles
    (3T, 3) with colours (3T, 4); float32, display colours with straight alpha."""

    lines: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.float32))
    line_colors: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))
    triangles: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.float32))
    triangle_colors: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))

    @property
    def line_count(self) -> int:
        return len(self.lines) // 2


class _Builder:
    """Collects (K, 2, 3) segments and (K, 3, 3) triangles with a colour each (or one for all)."""

    def __init__(self):
        self.segments, self.segment_colors, self.faces, self.face_colors = [], [], [], []

    def lines(self, segments: np.ndarray, colors) -> None:
        segments = np.asarray(segments, np.float64).reshape(-1, 2, 3)
        self.segments.append(segments)
        self.segment_colors.append(np.broadcast_to(np.asarray(colors, np.float64), (len(segments), 4)))

    def triangles(self, triangles: np.ndarray, colors) -> None:
        triangles = np.asarray(triangles, np.float64).reshape(-1, 3, 3)
        self.faces.append(triangles)
        self.face_colors.append(np.broadcast_to(np.asarray(colors, np.float64), (len(triangles), 4)))

    def scene(self) -> GizmoScene:
        def joined(items: list, width: int, repeat: int = 1) -> np.ndarray:
            if not items:
                return np.zeros((0, width), np.float32)
            return np.repeat(np.concatenate(items).reshape(-1, width), repeat, axis=0).astype(np.float32)

        return GizmoScene(lines=joined(self.segments, 3), line_colors=joined(self.segment_colors, 4, 2),
                          triangles=joined(self.faces, 3), triangle_colors=joined(self.face_colors, 4, 3))


# --- geometry -----------------------------------------------------------------------------------

def box_corners(frames: np.ndarray, half_extents: np.ndarray) -> np.ndarray:
    """(N, 8, 3) the corners of boxes with frames (N, 4, 4) (centre and axes) and half extents (N, 3)."""
    frames = np.asarray(frames, np.float64).reshape(-1, 4, 4)
    local = BOX_CORNERS[None] * np.asarray(half_extents, np.float64).reshape(-1, 1, 3)
    return _in_frames(frames, local)


def box_lines(frames: np.ndarray, half_extents: np.ndarray) -> np.ndarray:
    """(N, 12, 2, 3) the 12 edges of each box."""
    return box_corners(frames, half_extents)[:, BOX_EDGES]


def box_triangles(frames: np.ndarray, half_extents: np.ndarray) -> np.ndarray:
    """(N, 12, 3, 3) the faces of each box as triangles."""
    return box_corners(frames, half_extents)[:, BOX_TRIANGLES]


def _capsule_layout(frames, half_extents) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Frames (N, 4, 4); each capsule's axis order (N, 3): the two across axes, then the long one; its
    radius and the half length of its straight middle (N, 1), as ``capsule_dimensions`` fits them."""
    frames = np.asarray(frames, np.float64).reshape(-1, 4, 4)
    half = np.asarray(half_extents, np.float64).reshape(-1, 3)
    axis = np.argmax(half, axis=1)
    across = np.array([[1, 2], [0, 2], [0, 1]])[axis]
    radius = np.take_along_axis(half, across, axis=1).min(axis=1)[:, None]
    middle = np.take_along_axis(half, axis[:, None], axis=1) - radius
    return frames, np.column_stack([across, axis]), radius, middle


def capsule_lines(frames: np.ndarray, half_extents: np.ndarray,
                  segments: int = CAPSULE_SEGMENTS) -> np.ndarray:
    """(N, 4 S + 4, 2, 3) the outline of the capsule inside each box (frames (N, 4, 4), half extents
    (N, 3)) as ``capsule_dimensions`` fits it: the rings where its straight middle meets the caps,
    four side lines, and on each cap two half circles across it."""
    frames, order, radius, middle = _capsule_layout(frames, half_extents)
    turn = np.linspace(0.0, 2 * np.pi, segments + 1)
    ring = np.stack([np.cos(turn), np.sin(turn), np.zeros_like(turn)], axis=1)
    arch = np.linspace(0.0, np.pi, segments // 2 + 1)
    cap_uv = np.stack([np.cos(arch), np.zeros_like(arch), np.sin(arch)], axis=1)
    cap_vu = cap_uv[:, [1, 0, 2]]
    sides = np.eye(3)[[0, 1, 0, 1]] * [[1], [1], [-1], [-1]]
    lines = []
    for sign in (1.0, -1.0):
        end = np.array([1.0, 1.0, sign])
        shift = np.array([0.0, 0.0, sign])
        lines.append(_polyline(ring[None] * radius[:, :, None] + shift * middle[:, :, None]))
        for cap in (cap_uv, cap_vu):
            lines.append(_polyline((cap * end)[None] * radius[:, :, None] + shift * middle[:, :, None]))
    tops = sides[None] * radius[:, :, None] + [0.0, 0.0, 1.0] * middle[:, :, None]
    bottoms = sides[None] * radius[:, :, None] - [0.0, 0.0, 1.0] * middle[:, :, None]
    lines.append(np.stack([tops, bottoms], axis=2))
    canonical = np.concatenate(lines, axis=1)
    local = _axes_in_order(canonical, order)
    count = canonical.shape[1]
    return _in_frames(frames, local.reshape(len(frames), -1, 3)).reshape(len(frames), count, 2, 3)


def capsule_triangles(frames: np.ndarray, half_extents: np.ndarray,
                      segments: int = CAPSULE_SEGMENTS) -> np.ndarray:
    """(N, T, 3, 3) the surface of the capsule inside each box (as ``capsule_lines`` outlines it): a
    surface of revolution about its long axis, from pole to pole through both caps and the straight
    middle between them, ``segments`` around and ``segments // 4`` rings on each cap."""
    frames, order, radius, middle = _capsule_layout(frames, half_extents)
    rings = max(segments // 4, 1)
    # The profile from the bottom pole to the top one: latitude and which cap's centre it turns about.
    latitude = np.concatenate([np.linspace(-np.pi / 2, 0.0, rings + 1),
                               np.linspace(0.0, np.pi / 2, rings + 1)])
    cap = np.repeat([-1.0, 1.0], rings + 1)
    around = np.linspace(0.0, 2 * np.pi, segments + 1)
    reach = np.cos(latitude)[None, :, None] * radius[:, :, None]  # (N, K, 1)
    height = np.sin(latitude)[None] * radius + cap[None] * middle  # (N, K)
    canonical = np.stack(np.broadcast_arrays(reach * np.cos(around), reach * np.sin(around),
                                             height[:, :, None]), axis=-1)  # (N, K, S + 1, 3)
    count, width = len(latitude), segments + 1
    k, j = np.meshgrid(np.arange(count - 1), np.arange(segments), indexing="ij")
    corner = (k * width + j).reshape(-1)
    faces = np.concatenate([np.stack([corner, corner + width, corner + width + 1], axis=1),
                            np.stack([corner, corner + width + 1, corner + 1], axis=1)])
    local = _axes_in_order(canonical, order).reshape(len(frames), -1, 3)
    return _in_frames(frames, local)[:, faces]


def part_triangles(frames: np.ndarray, half_extents: np.ndarray, capsule: bool) -> np.ndarray:
    """(T, 3, 3) one part's surface: its box's faces, or its capsule's."""
    return (capsule_triangles if capsule else box_triangles)(frames, half_extents).reshape(-1, 3, 3)


def part_lines(frames: np.ndarray, half_extents: np.ndarray,
               capsules: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each part's outline, a box's edges or its capsule's lines: segments (K, 2, 3) and the part of
    each (K,)."""
    frames = np.asarray(frames, np.float64).reshape(-1, 4, 4)
    half = np.asarray(half_extents, np.float64).reshape(-1, 3)
    capsules = np.zeros(len(frames), bool) if capsules is None else np.asarray(capsules, bool)
    segments, owners = [], []
    for chosen, outline in ((~capsules, box_lines), (capsules, capsule_lines)):
        indices = np.flatnonzero(chosen)
        if len(indices):
            lines = outline(frames[indices], half[indices])
            segments.append(lines.reshape(-1, 2, 3))
            owners.append(np.repeat(indices, lines.shape[1]))
    if not segments:
        return np.zeros((0, 2, 3)), np.zeros(0, np.intp)
    return np.concatenate(segments), np.concatenate(owners)


def axis_lines(frames: np.ndarray, length) -> np.ndarray:
    """(N, 3, 2, 3) each frame's X, Y and Z axes as segments of ``length`` (scalar or (N,)) from its
    origin."""
    frames = np.asarray(frames, np.float64).reshape(-1, 4, 4)
    length = np.broadcast_to(np.asarray(length, np.float64), (len(frames),))
    origins = frames[:, :3, 3]
    ends = origins[:, None, :] + np.swapaxes(frames[:, :3, :3], 1, 2) * length[:, None, None]
    return np.stack([np.broadcast_to(origins[:, None, :], ends.shape), ends], axis=2)


def _polyline(points: np.ndarray) -> np.ndarray:
    """(N, S, 2, 3) segments joining consecutive points of (N, S + 1, 3) polylines."""
    return np.stack([points[:, :-1], points[:, 1:]], axis=2)


def _in_frames(frames: np.ndarray, local: np.ndarray) -> np.ndarray:
    """(N, S, 3) points given in each frame's axes (N, S, 3) placed in the world (a matmul: numpy's
    einsum for this took most of the ragdoll gizmos' time, which the view pays every frame)."""
    return local @ np.swapaxes(frames[:, :3, :3], 1, 2) + frames[:, None, :3, 3]


def _axes_in_order(canonical: np.ndarray, order: np.ndarray) -> np.ndarray:
    """(N, ..., 3) each capsule's canonical points (across, across, long) with their coordinates moved
    onto its axes ``order`` (N, 3): coordinate j goes to axis ``order[n, j]``."""
    inverse = np.argsort(order, axis=1)
    return np.take_along_axis(canonical, inverse.reshape(len(order), *(1,) * (canonical.ndim - 2), 3),
                              axis=-1)


def hinge_arcs(frames: np.ndarray, low: np.ndarray, high: np.ndarray, radius,
               segments: int = ARC_SEGMENTS) -> np.ndarray:
    """(N, S + 2, 2, 3) hinge limit arcs: in each frame's XY plane, X turned about Z from ``low`` to
    ``high`` radians (N,), at ``radius`` (scalar or (N,)), plus the two spokes to the arc's ends."""
    frames = np.asarray(frames, np.float64).reshape(-1, 4, 4)
    radius = np.broadcast_to(np.asarray(radius, np.float64), (len(frames),))
    widest = np.max(np.abs(np.asarray(high) - np.asarray(low)), initial=0.0)
    steps = max(int(segments * widest / (2 * np.pi)), 2)
    angles = np.linspace(np.asarray(low, np.float64), np.asarray(high, np.float64), steps + 1, axis=-1)
    local = np.stack([np.cos(angles), np.sin(angles), np.zeros_like(angles)], axis=-1) * radius[:, None, None]
    points = _in_frames(frames, local)
    centres = np.broadcast_to(frames[:, None, :3, 3], (len(frames), 2, 3))
    spokes = np.stack([centres, points[:, [0, -1]]], axis=2)
    return np.concatenate([_polyline(points), spokes], axis=1)


def cone_directions(swing1: np.ndarray, swing2: np.ndarray, segments: int = ARC_SEGMENTS) -> np.ndarray:
    """(N, S + 1, 3) closed outline of the directions ``Rz(a) @ Ry(b) @ X`` with ``|a| = swing1`` or
    ``|b| = swing2`` (radians, (N,)): the edge of what a cone-twist's swing reaches, in its frame."""
    swing1 = np.asarray(swing1, np.float64).reshape(-1)
    swing2 = np.asarray(swing2, np.float64).reshape(-1)
    side = max(segments // 4, 1)
    t = np.linspace(-1.0, 1.0, side, endpoint=False)
    # The rectangle's edges, anticlockwise: a = +s1, b = +s2, a = -s1, b = -s2.
    unit_a = np.concatenate([np.ones(side), -t, -np.ones(side), t, [1.0]])
    unit_b = np.concatenate([t, np.ones(side), -t, -np.ones(side), [-1.0]])
    a = unit_a[None] * swing1[:, None]
    b = unit_b[None] * swing2[:, None]
    return np.stack([np.cos(a) * np.cos(b), np.sin(a) * np.cos(b), -np.sin(b)], axis=-1)


def swing_cones(frames: np.ndarray, swing1: np.ndarray, swing2: np.ndarray, radius,
                segments: int = ARC_SEGMENTS) -> np.ndarray:
    """(N, S + 8, 2, 3) each cone-twist's swing limit: its outline at ``radius`` from the joint
    and eight spokes from the joint to the outline (corners and edge middles)."""
    frames = np.asarray(frames, np.float64).reshape(-1, 4, 4)
    radius = np.broadcast_to(np.asarray(radius, np.float64), (len(frames),))
    directions = cone_directions(swing1, swing2, segments)
    points = _in_frames(frames, directions * radius[:, None, None])
    count = directions.shape[1] - 1
    picks = np.round(np.arange(8) * count / 8).astype(int)
    centres = np.broadcast_to(frames[:, None, :3, 3], (len(frames), 8, 3))
    spokes = np.stack([centres, points[:, picks]], axis=2)
    return np.concatenate([_polyline(points), spokes], axis=1)


def twist_arcs(frames: np.ndarray, twist: np.ndarray, radius, segments: int = ARC_SEGMENTS) -> np.ndarray:
    """(N, S + 2, 2, 3) twist limits: in the plane square to X, a little along it, Y turned about X
    within ``±twist`` radians (N,), plus the spokes to the ends from the point on the X axis."""
    frames = np.asarray(frames, np.float64).reshape(-1, 4, 4)
    twist = np.asarray(twist, np.float64).reshape(-1)
    radius = np.broadcast_to(np.asarray(radius, np.float64), (len(frames),))
    steps = max(int(segments * 2 * np.max(twist, initial=0.0) / (2 * np.pi)), 2)
    angles = np.linspace(-twist, twist, steps + 1, axis=-1)
    along = np.full_like(angles, TWIST_OFFSET)
    local = np.stack([along, np.cos(angles), np.sin(angles)], axis=-1) * radius[:, None, None]
    points = _in_frames(frames, local)
    on_axis = np.stack([TWIST_OFFSET * radius, 0 * radius, 0 * radius], axis=-1)[:, None]
    axis_points = _in_frames(frames, on_axis)
    spokes = np.stack([np.repeat(axis_points, 2, axis=1), points[:, [0, -1]]], axis=2)
    return np.concatenate([_polyline(points), spokes], axis=1)


def pick_box(origin, direction, frames: np.ndarray, half_extents: np.ndarray) -> tuple[int, float] | None:
    """The nearest box a ray enters (or starts inside): (index, distance along the unit ray), or None."""
    frames = np.asarray(frames, np.float64).reshape(-1, 4, 4)
    if not len(frames):
        return None
    direction = np.asarray(direction, np.float64)
    direction = direction / np.linalg.norm(direction)
    rotations_t = np.swapaxes(frames[:, :3, :3], 1, 2)
    start = np.einsum("nij,nj->ni", rotations_t, np.asarray(origin, np.float64) - frames[:, :3, 3])
    heading = np.einsum("nij,j->ni", rotations_t, direction)
    half = np.asarray(half_extents, np.float64).reshape(-1, 3)
    parallel = np.abs(heading) < 1e-15
    safe = np.where(parallel, 1.0, heading)
    first, second = (-half - start) / safe, (half - start) / safe
    inside = np.abs(start) <= half
    # A ray parallel to a slab is in it for ever or never.
    near = np.where(parallel, np.where(inside, -np.inf, np.inf), np.minimum(first, second))
    far = np.where(parallel, np.where(inside, np.inf, -np.inf), np.maximum(first, second))
    enter = near.max(axis=1)
    leave = far.min(axis=1)
    hits = (enter <= leave) & (leave >= 0)
    if not hits.any():
        return None
    distances = np.where(hits, np.maximum(enter, 0.0), np.inf)
    index = int(np.argmin(distances))
    return index, float(distances[index])


# --- the ragdoll's scene ------------------------------------------------------------------------

def _faded(color, factor: float) -> tuple[float, ...]:
    return (*color[:3], color[3] * factor)


def ragdoll_scene(box_world: np.ndarray, half_extents: np.ndarray, *, extent: float,
                  joint_world: np.ndarray | None = None, hinge: np.ndarray | None = None,
                  joint_limits: np.ndarray | None = None, selected_part: int | None = None,
                  selected_joint: int | None = None, copy_box_world: np.ndarray | None = None,
                  show_joints: bool = True, capsules: np.ndarray | None = None) -> GizmoScene:
    """The gizmos of one ragdoll: its boxes (P, 4, 4) with half extents (P, 3) (the selected one
    highlighted and filled), each joint's frame, limits and current direction from ``joint_world``
    (J, 2, 4, 4) (frames carried by part a and part b), ``hinge`` (J,) and ``joint_limits`` (J, 3)
    radians (hinge: low, high, 0; cone-twist: swing1, swing2, twist), sized from the model's
    ``extent``; and the boxes of other copies (C, P, 4, 4), plain. Parts flagged in ``capsules`` (P,)
    are drawn (and filled when selected) as the capsule inside their box."""
    builder = _Builder()
    half_extents = np.asarray(half_extents, np.float64).reshape(-1, 3)
    if copy_box_world is not None and len(copy_box_world):
        frames = np.asarray(copy_box_world, np.float64).reshape(-1, 4, 4)
        repeats = len(frames) // max(len(half_extents), 1)
        copy_capsules = None if capsules is None else np.tile(capsules, repeats)
        outlines, _ = part_lines(frames, np.tile(half_extents, (repeats, 1)), copy_capsules)
        builder.lines(outlines, COPY_BOX_COLOR)
    if box_world is not None and len(box_world):
        colors = np.tile(BOX_COLOR, (len(box_world), 1))
        if selected_part is not None and 0 <= selected_part < len(box_world):
            colors[selected_part] = SELECTED_BOX_COLOR
            capsule = capsules is not None and bool(capsules[selected_part])
            builder.triangles(part_triangles(box_world[selected_part], half_extents[selected_part], capsule),
                              SELECTED_FILL_COLOR)
        segments, owners = part_lines(box_world, half_extents, capsules)
        builder.lines(segments, colors[owners])
    if show_joints and joint_world is not None and len(joint_world):
        _joint_gizmos(builder, np.asarray(joint_world, np.float64), np.asarray(hinge, bool),
                      np.asarray(joint_limits, np.float64), extent, selected_joint)
    return builder.scene()


def _joint_gizmos(builder: _Builder, joint_world: np.ndarray, hinge: np.ndarray, limits: np.ndarray,
                  extent: float, selected: int | None) -> None:
    count = len(joint_world)
    scale = np.ones(count)
    alpha = np.ones(count)
    if selected is not None and 0 <= selected < count:
        scale[selected] = SELECTED_SCALE
        alpha[:] = DIMMED
        alpha[selected] = 1.0
    radius = LIMIT_RADIUS * extent * scale
    frames_a, frames_b = joint_world[:, 0], joint_world[:, 1]

    def add(segments: np.ndarray, color, which: np.ndarray) -> None:
        per_joint = segments.shape[1]
        colors = np.array([_faded(color, factor) for factor in alpha[which]])
        builder.lines(segments, np.repeat(colors, per_joint, axis=0))

    axes = axis_lines(frames_a, AXIS_LENGTH * extent * scale)
    for axis in range(3):
        add(axes[:, axis:axis + 1], AXIS_COLORS[axis], np.arange(count))
    hinges, cones = np.flatnonzero(hinge), np.flatnonzero(~hinge)
    if len(hinges):
        add(hinge_arcs(frames_a[hinges], limits[hinges, 0], limits[hinges, 1], radius[hinges]),
            HINGE_COLOR, hinges)
    if len(cones):
        add(swing_cones(frames_a[cones], limits[cones, 0], limits[cones, 1], radius[cones]),
            CONE_COLOR, cones)
        add(twist_arcs(frames_a[cones], limits[cones, 2], radius[cones]), TWIST_COLOR, cones)
    origins = frames_a[:, :3, 3]
    current = np.stack([origins, origins + frames_b[:, :3, 0] * radius[:, None]], axis=1)[:, None]
    add(current, CURRENT_COLOR, np.arange(count))


# --- drag handles ----------------------------------------------------------------------------------

def perpendiculars(directions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors (N, 3) each, square to each unit direction (N, 3) and to each other."""
    directions = np.asarray(directions, np.float64).reshape(-1, 3)
    helper = np.where(np.abs(directions[:, :1]) < 0.9, [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]])
    first = np.cross(directions, helper)
    first /= np.linalg.norm(first, axis=1, keepdims=True)
    return first, np.cross(directions, first)


def arrow_shapes(origins: np.ndarray, directions: np.ndarray, lengths: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Arrows from ``origins`` (N, 3) along unit ``directions`` (N, 3), ``lengths`` (N,) long: the
    shafts (N, 2, 3) and the heads' cones as triangles (N, 2 ARROW_SIDES, 3, 3)."""
    origins = np.asarray(origins, np.float64).reshape(-1, 3)
    directions = np.asarray(directions, np.float64).reshape(-1, 3)
    lengths = np.asarray(lengths, np.float64).reshape(-1, 1)
    tips = origins + directions * lengths
    bases = tips - directions * lengths * ARROW_HEAD
    first, second = perpendiculars(directions)
    turn = np.linspace(0.0, 2 * np.pi, ARROW_SIDES + 1)
    radius = (lengths * ARROW_HEAD * ARROW_RADIUS)[:, :, None]
    rim = bases[:, None] + (np.cos(turn)[None, :, None] * first[:, None]
                            + np.sin(turn)[None, :, None] * second[:, None]) * radius
    sides = np.stack([np.broadcast_to(tips[:, None], rim[:, 1:].shape), rim[:, :-1], rim[:, 1:]], axis=2)
    floor = np.stack([np.broadcast_to(bases[:, None], rim[:, 1:].shape), rim[:, 1:], rim[:, :-1]], axis=2)
    return np.stack([origins, bases], axis=1), np.concatenate([sides, floor], axis=1)


def knob_triangles(centres: np.ndarray, directions: np.ndarray, half_sizes: np.ndarray) -> np.ndarray:
    """(N, 12, 3, 3) small cubes of half size ``half_sizes`` (N,) at ``centres`` (N, 3), turned to
    face along ``directions`` (N, 3)."""
    directions = np.asarray(directions, np.float64).reshape(-1, 3)
    first, second = perpendiculars(directions)
    frames = np.tile(np.eye(4), (len(directions), 1, 1))
    frames[:, :3, 0], frames[:, :3, 1], frames[:, :3, 2] = directions, first, second
    frames[:, :3, 3] = np.asarray(centres, np.float64).reshape(-1, 3)
    half = np.repeat(np.asarray(half_sizes, np.float64).reshape(-1, 1), 3, axis=1)
    return box_triangles(frames, half)


def ring_lines(centres: np.ndarray, normals: np.ndarray, radii: np.ndarray,
               segments: int = ARC_SEGMENTS) -> np.ndarray:
    """(N, S, 2, 3) circles of ``radii`` (N,) about ``centres`` (N, 3), square to ``normals`` (N, 3)."""
    first, second = perpendiculars(normals)
    turn = np.linspace(0.0, 2 * np.pi, segments + 1)
    radii = np.asarray(radii, np.float64).reshape(-1, 1, 1)
    points = (np.asarray(centres, np.float64).reshape(-1, 1, 3)
              + (np.cos(turn)[None, :, None] * first[:, None] + np.sin(turn)[None, :, None] * second[:, None])
              * radii)
    return _polyline(points)


def handle_scene(kinds: list[str], origins: np.ndarray, directions: np.ndarray, lengths: np.ndarray,
                 colors: np.ndarray) -> GizmoScene:
    """Drag handles: per handle a kind ('arrow': from its origin along its direction, 'knob': a
    cube of half size ``length`` at its origin, 'ring': a circle of radius ``length`` about its
    origin square to its direction), its origin (3,), unit direction (3,), length and colour (4,)."""
    builder = _Builder()
    kinds = np.asarray(kinds)
    origins = np.asarray(origins, np.float64).reshape(-1, 3)
    directions = np.asarray(directions, np.float64).reshape(-1, 3)
    lengths = np.asarray(lengths, np.float64).reshape(-1)
    colors = np.asarray(colors, np.float64).reshape(-1, 4)
    for kind in ("arrow", "knob", "ring"):
        chosen = np.flatnonzero(kinds == kind)
        if not len(chosen):
            continue
        where, towards, size, color = origins[chosen], directions[chosen], lengths[chosen], colors[chosen]
        if kind == "arrow":
            shafts, heads = arrow_shapes(where, towards, size)
            builder.lines(shafts, color)
            builder.triangles(heads, np.repeat(color, heads.shape[1], axis=0))
        elif kind == "knob":
            cubes = knob_triangles(where, towards, size)
            builder.triangles(cubes, np.repeat(color, cubes.shape[1], axis=0))
        else:
            rings = ring_lines(where, towards, size)
            builder.lines(rings, np.repeat(color, rings.shape[1], axis=0))
    return builder.scene()


def joined_scenes(*scenes: GizmoScene | None) -> GizmoScene:
    """One scene drawing all of ``scenes`` (None skipped)."""
    scenes = [GizmoScene()] + [scene for scene in scenes if scene is not None]
    return GizmoScene(*(np.concatenate([getattr(s, name) for s in scenes])
                        for name in ("lines", "line_colors", "triangles", "triangle_colors")))


def path_scene(segments: np.ndarray, ticks: np.ndarray, color) -> GizmoScene:
    """Segments and ticks (K, 2, 3) as lines of one colour."""
    builder = _Builder()
    builder.lines(np.concatenate([segments, ticks]).reshape(-1, 2, 3), color)
    return builder.scene()


def bone_axes_scene(world: np.ndarray, length: float) -> GizmoScene:
    """View › Bone Axes: each bone's local X, Y and Z (red, green, blue) from its joint, ``length``
    long, for bone world matrices (B, 4, 4) (as Babylon's skeleton viewer shows them)."""
    axes = axis_lines(world, length)
    builder = _Builder()
    for axis in range(3):
        builder.lines(axes[:, axis], AXIS_COLORS[axis])
    return builder.scene()
