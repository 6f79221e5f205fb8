"""How far a clip carries the model over the ground: a walk that travels (root motion) against one
that stays in place. The view follows a travelling clip so that it stays in sight."""

from __future__ import annotations

import numpy as np

from app.model import Clip, Model
from app.pose import Pose, evaluate

#: A clip has root motion when the model's centre strays over the ground by more than this share of
#: the model's size (a walk in place sways by a few per cent).
ROOT_MOTION_SHARE = 0.25
#: Frames looked at to measure a clip's travel (evenly spread over its stored frames).
TRAVEL_SAMPLES = 64
_UP_INDEX = {"Y": 1, "Z": 2}


def pose_centre(pose: Pose) -> np.ndarray:
    """(3,) the centre of what a pose moves: its vertices for a vertex-animated pose, else the mean
    of its bones' origins (the origin for a pose with neither)."""
    if pose.positions is not None and len(pose.positions):
        return pose.positions.mean(axis=0, dtype=np.float64)
    if len(pose.world):
        return pose.world[:, :3, 3].mean(axis=0)
    return np.zeros(3)


def over_ground(offset: np.ndarray, up_axis: str) -> np.ndarray:
    """``offset`` without its part along the up axis."""
    flat = np.array(offset, dtype=np.float64)
    flat[..., _UP_INDEX[up_axis]] = 0.0
    return flat


def clip_travel(model: Model, clip: Clip) -> float:
    """The farthest the model's centre gets over the ground from where it starts in ``clip``."""
    times = clip.frame_times
    if len(times) > TRAVEL_SAMPLES:
        times = times[np.linspace(0, len(times) - 1, TRAVEL_SAMPLES).round().astype(int)]
    centres = np.array([pose_centre(evaluate(model, clip, float(time))) for time in times])
    return float(np.linalg.norm(over_ground(centres - centres[0], model.up_axis), axis=1).max())


def has_root_motion(model: Model, clip: Clip) -> bool:
    return clip_travel(model, clip) > ROOT_MOTION_SHARE * model.extent()
