"""What the view measures of a clip on a model, once: whether it travels (View › Follow), where its
root starts (View › In Place), its root path (View › Root Path) and its frame rate (the timeline's
fps box).

Each is cached on the clip (``app.derived``), per model, so a mix replaced by another takes its
measures with it.
"""

from __future__ import annotations

import numpy as np

from app.animation.root_motion import PATH_COLOR, has_root_motion, root_path_lines, start_of_travel
from app.derived import derived
from app.model import Clip, Model
from app.scene.gizmo_scene import GizmoScene, path_scene


#: Steps between stored frames within this share of the usual step count as that step.
RATE_TOLERANCE = 1e-3


@derived
def frame_rate(clip: Clip) -> float | None:
    """``clip``'s frames per second: the rate its file states (``Clip.rate``: FBX, BVH), else the
    rate its stored frames step at (1 / the usual step between them) when at least half its steps
    are that step; None for a clip of one frame or of uneven steps without a stated rate."""
    if clip.rate:
        return float(clip.rate)
    steps = np.diff(clip.frame_times)
    if len(steps) == 0:
        return None
    usual = float(np.median(steps))
    if usual <= 0 or np.mean(np.abs(steps - usual) <= RATE_TOLERANCE * usual) < 0.5:
        return None
    return 1.0 / usual


@derived
def travels(clip: Clip, model: Model) -> bool:
    """Whether ``clip`` carries ``model`` away (root motion): the view follows it."""
    return has_root_motion(model, clip)


@derived
def travel_start(clip: Clip, model: Model) -> tuple[int, np.ndarray]:
    """``clip``'s motion root on ``model`` and where it starts."""
    return start_of_travel(model, clip)


@derived
def root_path(clip: Clip, model: Model) -> GizmoScene:
    """``clip``'s root path on the ground with its facing each second, as gizmo lines."""
    return path_scene(*root_path_lines(model, clip), PATH_COLOR)
