"""A danglymesh's sway parameters (Neverwinter Nights): what a mesh carries so that it can be swung by
the spring simulation (app/animation/dangly_swing.py; docs/formats/nwn-dangly-emitters.md)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: The largest per-vertex constraint: a vertex at it may move the full displacement.
FULL_CONSTRAINT = 255.0
#: The largest damping ratio a tightness gives (1 would be critical damping, which the swing's closed
#: form, written for an underdamped spring, does not cover).
MAX_DAMPING_RATIO = 0.999


@dataclass(frozen=True, eq=False)
class DanglyParams:
    """period: seconds of one free swing; tightness: how quickly a swing dies away (see
    ``damping_ratio``); displacement: the farthest a vertex with the full constraint may move from
    its animated place, in model units; constraints: (V,) float32 per vertex in 0..255, 0 pinned.
    Every number is checked here: a reader that cannot give such values gives no DanglyParams."""

    period: float
    tightness: float
    displacement: float
    constraints: np.ndarray

    def __post_init__(self):
        for name in ("period", "tightness", "displacement"):
            value = float(getattr(self, name))
            if not (np.isfinite(value) and value > 0):
                raise ValueError(f"danglymesh {name} must be a positive number, got {value}")
            object.__setattr__(self, name, value)
        constraints = np.array(self.constraints, np.float32).reshape(-1)
        if not np.all((constraints >= 0) & (constraints <= FULL_CONSTRAINT)):
            raise ValueError("danglymesh constraints must lie in 0..255")
        constraints.flags.writeable = False
        object.__setattr__(self, "constraints", constraints)

    @property
    def angular_frequency(self) -> float:
        """ω = 2π / period, radians per second."""
        return 2.0 * np.pi / self.period

    @property
    def damping_ratio(self) -> float:
        """ζ = tightness / (1 + tightness): a loose mesh (tightness near 0) swings on, a tight one
        (tightness ≫ 1) comes nearly to rest in one swing; at most MAX_DAMPING_RATIO (an underdamped
        spring)."""
        return min(self.tightness / (1.0 + self.tightness), MAX_DAMPING_RATIO)

    @property
    def reach(self) -> np.ndarray:
        """(V,) how far each vertex may move: displacement × constraint / 255."""
        return self.displacement * self.constraints.astype(np.float64) / FULL_CONSTRAINT
