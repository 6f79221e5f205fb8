"""What a ray tool wants marked over the view (the window paints it with the orientation gizmo)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ViewMarks:
    """What a ray tool wants drawn: ``shot`` (origin (3,), end (3,), hit: bool, when: monotonic
    seconds) and ``spring`` (anchor on the part (3,), drag target (3,)); None for none."""

    shot: tuple[np.ndarray, np.ndarray, bool, float] | None = None
    spring: tuple[np.ndarray, np.ndarray] | None = None
