"""Onion skins (View › Onion Skin): the clip on screen ghosted a few frames before and after the
instant shown, so a pose is seen with where it comes from and where it goes. The spacing is one
frame of the clip's own rate (``clip_measures.frame_rate``; 30 per second for a clip without one), as
``render --onion N`` spaces them by default."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from app.animation.root_motion import pose_in_place
from app.model import Clip, Model
from app.pose import Pose, evaluate
from app.state.clip_measures import frame_rate, travel_start

if TYPE_CHECKING:
    from app.state.viewer import ViewerState

#: Ghosts on each side of the instant the window shows.
ONION_COUNT = 2
#: The spacing (seconds) for a clip whose frames do not step evenly.
DEFAULT_STEP = 1.0 / 30.0


def onion_step(clip: Clip) -> float:
    """One frame of ``clip``'s own rate, in seconds."""
    rate = frame_rate(clip)
    return 1.0 / rate if rate else DEFAULT_STEP


def onion_offsets(count: int, step: float) -> list[float]:
    """The ghosts' offsets from the instant (seconds), nearest first on each side: −step, +step,
    −2·step, +2·step, …"""
    if count < 0 or not np.isfinite(step) or step <= 0:
        raise ValueError(f"onion skins need a count ≥ 0 and a step > 0 (got {count}, {step})")
    return [sign * k * step for k in range(1, count + 1) for sign in (-1, 1)]


def onion_poses(model: Model, clip: Clip | None, time: float, count: int = ONION_COUNT,
                step: float | None = None) -> list[tuple[Pose, float]]:
    """Each ghost's pose and its offset (negative: before the instant), for ``count`` ghosts each side
    ``step`` seconds apart (default ``onion_step``), within the clip's timeline; none without a clip
    or for a clip of vertices (ghosts are skinned by the bones)."""
    if clip is None or not clip.skeletal:
        return []
    step = onion_step(clip) if step is None else step
    start, end = clip.start, clip.start + clip.duration
    return [(evaluate(model, clip, time + offset), offset) for offset in onion_offsets(count, step)
            if start - 1e-9 <= time + offset <= end + 1e-9]


def shown_ghosts(state: ViewerState) -> list[tuple[Pose, float]]:
    """The onion skins the window draws for ``state``: none while View › Onion Skin is off or the
    ragdoll runs; in place, as the pose shown is, while View › In Place is on."""
    playback = state.playback
    if not state.display.onion or playback is None or state.ragdoll_running:
        return []
    ghosts = onion_poses(state.model, playback.clip, playback.time)
    if state.display.in_place and ghosts:
        root, start = travel_start(playback.clip, state.model)
        ghosts = [(pose_in_place(state.model, pose, root, start), offset) for pose, offset in ghosts]
    return ghosts
