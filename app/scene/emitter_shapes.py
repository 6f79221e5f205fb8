"""View › Emitters as lines: each particle emitter's birth plane (its x × y rectangle) and the cone
its particles leave in (the spread about the emitter's +Z, as long as they travel), in model space."""

from __future__ import annotations

import numpy as np

from app.emitters import Emitter

#: Segments of the cone's rim.
RIM_SEGMENTS = 24
#: Spokes from the cone's apex to its rim.
SPOKES = 4
#: The cone's length, as a share of the model's size, for an emitter that does not say how far its
#: particles travel.
DEFAULT_REACH_SHARE = 0.1
#: The colour the lines are drawn in (sRGB, with alpha).
EMITTER_COLOR = (1.0, 0.55, 0.1, 1.0)


def _local_lines(emitter: Emitter, reach: float) -> np.ndarray:
    """(K, 2, 3) the emitter's lines in its own frame."""
    half_x, half_y = emitter.size[0] / 2, emitter.size[1] / 2
    corners = np.array([[-half_x, -half_y, 0], [half_x, -half_y, 0], [half_x, half_y, 0],
                        [-half_x, half_y, 0]])
    plane = np.stack([corners, np.roll(corners, -1, axis=0)], axis=1)
    half_angle = emitter.spread / 2
    turns = np.linspace(0.0, 2 * np.pi, RIM_SEGMENTS + 1)
    rim = reach * np.column_stack([np.sin(half_angle) * np.cos(turns), np.sin(half_angle) * np.sin(turns),
                                   np.full(len(turns), np.cos(half_angle))])
    circle = np.stack([rim[:-1], rim[1:]], axis=1)
    spokes = np.stack([np.zeros((SPOKES, 3)), rim[:-1:RIM_SEGMENTS // SPOKES]], axis=1)
    axis = np.array([[[0.0, 0.0, 0.0], [0.0, 0.0, reach]]])
    drawn = [circle, spokes, axis]
    if half_x > 0 or half_y > 0:
        drawn.insert(0, plane)
    return np.concatenate(drawn)


def emitter_lines(emitters: list[Emitter | None], frames: np.ndarray, extent: float) -> np.ndarray:
    """(K, 2, 3) line segments of every emitter (None: not one) at its world matrix in ``frames``
    (E, 4, 4); ``extent``: the model's size, for the cone of an emitter that gives no reach."""
    segments = []
    for emitter, frame in zip(emitters, frames):
        if emitter is None:
            continue
        reach = emitter.reach if emitter.reach > 0 else DEFAULT_REACH_SHARE * extent
        local = _local_lines(emitter, reach)
        segments.append(local @ frame[:3, :3].T + frame[:3, 3])
    return np.concatenate(segments) if segments else np.zeros((0, 2, 3))
