"""The box a camera frames: what ``posed_bounds`` counts (the posed meshes, the skeleton when shown),
and the overlays that reach past the model when they are drawn — the walkmeshes (a tile's walkmesh
is as wide as the tile, whatever stands on it) and the emitters' cones and birth planes (a fountain's
cone rises far above its basin)."""

from __future__ import annotations

import numpy as np

from app.model import Model
from app.pose import Pose, posed_bounds, rest_extent
from app.scene.draw_settings import DrawSettings
from app.scene.emitter_shapes import emitter_lines


def overlay_points(model: Model, pose: Pose, options: DrawSettings) -> np.ndarray:
    """(N, 3) the points of the walkmeshes and emitter shapes ``options`` draw, in model space."""
    points = [np.zeros((0, 3))]
    if options.walkmesh:
        points += [walkmesh.vertices for walkmesh in model.walkmeshes]
    if options.emitters:
        emitters = [helper.emitter for helper in model.helpers]
        points.append(emitter_lines(emitters, pose.helpers, rest_extent(model)).reshape(-1, 3))
    return np.concatenate(points)


def framed_bounds(model: Model, pose: Pose, options: DrawSettings) -> tuple[np.ndarray, np.ndarray]:
    """Min and max corners (3,) of what ``options`` draw of ``model`` in ``pose``."""
    low, high = posed_bounds(model, pose, options.bones, options.show_hidden)
    points = overlay_points(model, pose, options)
    if not len(points):
        return low, high
    return np.minimum(low, points.min(axis=0)), np.maximum(high, points.max(axis=0))
