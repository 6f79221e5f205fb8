"""A model's up axis and facing: the facing a view takes as the front, and guessing the up axis
from the rest pose for formats whose files do not state it.

A creature stands on its feet: along its up axis it is tall, its lowest points (feet, paws, leg tips)
spread over much of its footprint, and its centre of mass lies over them. Along a wrong axis the
lowest points are one hand, a tail tip or the flat of the back. Each candidate axis (+Y, +Z) gets

    height / largest extent  +  2 · support area / footprint area  −  off-balance (at most 1)

where the support is the box around the points within 3 % (of the largest extent) of the bottom and
the off-balance is how far the centre of the points lies from that box's centre, in half-widths of
the box plus 10 %. The larger score wins. Tuned and checked on real files of both kinds: the C3DE
characters characterMale, Swimmer and dog (Y up) and ninja and spider (Z up), the Fox and CesiumMan
glTF samples and NWN creatures (docs/formats/README.md, "Up axis").
"""

from __future__ import annotations

import numpy as np

from app.model import Model

#: The slab at the bottom of the model, as a fraction of its largest extent, taken as touching the ground.
CONTACT_SLAB = 0.03
#: Added to lengths (as a fraction of the largest extent) so thin or single-point supports stay finite.
PADDING = 0.02
#: The support's weight against the height (both fractions of the model's size).
SUPPORT_WEIGHT = 2.0
#: How far (as a fraction of the largest extent) the centre of mass may stray past the support.
BALANCE_PADDING = 0.1
#: Fewer points than this give no evidence: the axis is left as the reader set it.
MIN_POINTS = 4


#: The facing assumed when a model gives none, or gives one along its up axis.
DEFAULT_FORWARD = {"Z": "-Y", "Y": "+Z"}


def facing(up_axis: str, forward: str) -> str:
    """The direction a model faces: ``forward`` ('+Y', '-Z', …) unless it is empty or lies along
    the up axis, then the up axis's default."""
    if len(forward) == 2 and forward[0] in "+-" and forward[1] in "XYZ" and forward[1] != up_axis:
        return forward
    return DEFAULT_FORWARD[up_axis]


def guess_up(model: Model) -> str | None:
    """'Y' or 'Z' from the bind-pose vertices, or None when there are too few to tell (a skeleton's
    joints alone are too few and too thin to stand on)."""
    points = model.bind_positions.astype(np.float64)
    if len(points) < MIN_POINTS:
        return None
    extents = _extents(points)
    if not extents.max() > 0:
        return None
    scores = {axis: standing_score(points, index, extents) for axis, index in (("Y", 1), ("Z", 2))}
    return max(scores, key=scores.get)


def _extents(points: np.ndarray) -> np.ndarray:
    """(3,) ``np.ptp(points, axis=0)`` of (N, 3) points, reduced along rows of their transpose (a
    tenth of the time: a reduction down the short axis of an (N, 3) array walks it three numbers at a
    time)."""
    columns = np.ascontiguousarray(points.T)
    return columns.max(axis=1) - columns.min(axis=1)


def standing_score(points: np.ndarray, axis: int, extents: np.ndarray | None = None) -> float:
    """How well (N, 3) ``points`` look like something standing with +``axis`` up (larger: better);
    ``extents``: their ``_extents``, when the caller has them."""
    extents = _extents(points) if extents is None else extents
    largest = float(extents.max())
    pad = PADDING * largest
    heights = points[:, axis]
    contact = points[heights <= heights.min() + CONTACT_SLAB * largest]
    across = [other for other in range(3) if other != axis]
    footprint = np.prod(extents[across] + pad)
    low, high = contact[:, across].min(axis=0), contact[:, across].max(axis=0)
    support = np.prod(high - low + pad) / footprint
    centre_of_mass = points[:, across].mean(axis=0)
    reach = 0.5 * (high - low) + BALANCE_PADDING * largest
    off_balance = min(float(np.max(np.abs(centre_of_mass - 0.5 * (low + high)) / reach)), 1.0)
    return float(extents[axis] / largest + SUPPORT_WEIGHT * support - off_balance)


def apply_guess(model: Model) -> None:
    """Set the model's up axis from ``guess_up`` (the reader's default stays when there is no
    evidence); either way it is marked 'guessed': the file did not say."""
    model.up_axis = guess_up(model) or model.up_axis
    model.up_source = "guessed"
