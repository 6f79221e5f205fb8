"""A particle emitter as a helper carries it: the settings a file gives (for the Inspector) and the
shape View › Emitters draws (app/scene/emitter_shapes.py). Particles themselves are not simulated."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Emitter:
    """spread: the full angle of the cone particles leave in, radians, about the helper's +Z;
    size: (x, y) of the plane they are born on, centred on the helper, in model units; reach: how
    far they travel (velocity × life), model units, 0 when the file does not say; settings: the
    file's values by their file names, as text, in file order."""

    spread: float = 0.0
    size: tuple[float, float] = (0.0, 0.0)
    reach: float = 0.0
    settings: dict[str, str] = field(default_factory=dict)

    def __post_init__(self):
        numbers = (self.spread, *self.size, self.reach)
        if len(self.size) != 2 or not all(np.isfinite(value) and value >= 0 for value in numbers):
            raise ValueError(f"emitter shape needs finite values ≥ 0, got spread {self.spread}, "
                             f"size {self.size}, reach {self.reach}")
