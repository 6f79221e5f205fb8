"""The kinds of ragdoll joint, described once: which limit fields each has and their ranges, how its
angles map to the multibody's revolute axes, and what mirroring does to its limits. Validation, JSON,
the rig, the multibody, the automatic setup, symmetry, the joints tab and the command line read it.

A hinge turns about Z of the joint frame within ``[low, high]``: one angle, its limits in order. A
cone-twist is a gimbal of three angles, swing1 about Z, swing2 about Y and twist about X, each within
± its limit (docs/ragdoll.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: The middle gimbal axis (swing2) locks at 90°; docs/ragdoll.md keeps it under about 80°.
MAX_SWING2 = 85.0


@dataclass(frozen=True)
class Limit:
    """One limit field of a joint (``Joint.<name>``), in degrees within ``low``..``high``."""

    name: str
    label: str
    low: float
    high: float


@dataclass(frozen=True)
class JointKind:
    """``limits`` in the order the JSON and the tables list them. ``axes``: the joint-frame axis (0 X,
    1 Y, 2 Z) of each of the multibody's revolute links, in chain order. ``ordered``: one angle between
    its two limits (low ≤ high), which a twin whose axis points the other way mirrors as (−high, −low);
    otherwise each limit is the ± span of one angle, copied as it is."""

    name: str
    label: str
    limits: tuple[Limit, ...]
    axes: tuple[int, ...]
    ordered: bool

    @property
    def limit_names(self) -> tuple[str, ...]:
        return tuple(limit.name for limit in self.limits)

    def values(self, joint) -> tuple[float, ...]:
        """The joint's limits of this kind, in degrees."""
        return tuple(getattr(joint, name) for name in self.limit_names)

    def angle_ranges(self, values) -> np.ndarray:
        """(3, 2) degrees: the low and high of each of the joint's three angles, as the multibody's
        links take them in order (0, 0 for the angles the kind locks)."""
        ranges = np.zeros((3, 2))
        values = np.asarray(values, np.float64)
        if self.ordered:
            ranges[0] = values[:2]
        else:
            ranges[: len(values)] = np.stack([-values, values], axis=-1)
        return ranges

    def problem(self, joint) -> tuple[str, str] | None:
        """(where, what was expected) for limits out of their ranges, else None."""
        values = self.values(joint)
        if self.ordered:
            (first, second), (low, high) = self.limits, values
            if not (_finite(low) and _finite(high) and first.low <= low <= high <= second.high):
                return (".limits", f"{first.low:g} <= {first.name} <= {second.name} <= {second.high:g} "
                                   f"degrees, got {first.name} {low}, {second.name} {high}")
            return None
        for limit, value in zip(self.limits, values):
            if not (_finite(value) and limit.low <= value <= limit.high):
                return (f".limits.{limit.name}",
                        f"an angle from {limit.low:g} to {limit.high:g} degrees, got {value}")
        return None

    def mirrored(self, limits: dict[str, float], axis_reversed: bool) -> dict[str, float]:
        """``limits`` (this kind's, by name) as a twin holds them whose axis is the mirror of this
        joint's (``axis_reversed`` False) or points the other way (True)."""
        if not (self.ordered and axis_reversed):
            return dict(limits)
        low, high = (limits[limit.name] for limit in self.limits)
        return {self.limits[0].name: -high, self.limits[1].name: -low}


def _finite(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


HINGE = JointKind("hinge", "Hinge",
                  (Limit("low", "Low °", -180.0, 180.0), Limit("high", "High °", -180.0, 180.0)),
                  axes=(2,), ordered=True)
CONE_TWIST = JointKind("cone_twist", "Cone-twist",
                       (Limit("swing1", "Swing 1 (Z) °", 0.0, 180.0),
                        Limit("swing2", "Swing 2 (Y) °", 0.0, MAX_SWING2),
                        Limit("twist", "Twist (X) °", 0.0, 180.0)),
                       axes=(2, 1, 0), ordered=False)
#: Every kind by the name profiles give it.
KINDS = {kind.name: kind for kind in (HINGE, CONE_TWIST)}
JOINT_KINDS = tuple(KINDS)
#: Every limit field of every kind.
LIMIT_NAMES = tuple(name for kind in KINDS.values() for name in kind.limit_names)
