"""The floor grid: perpendicular to the up axis, under the model where it first stood."""

from __future__ import annotations

import math

import moderngl
import numpy as np

from app.pose import floor_height
from app.render.camera import Camera
from app.render.gl_state import SCENE_LAYER, enable_blending
from app.render.shaders import set_uniform

#: glPolygonOffset (factor, units) of the grid: behind the model's surfaces that lie on it.
GRID_DEPTH_OFFSET = (1.0, 64.0)


class FloorGrid:
    """Draws the grid program's quad; owns its vertex array. ``place`` fixes where the floor lies."""

    def __init__(self, ctx: moderngl.Context, program: moderngl.Program):
        self.ctx = ctx
        self.program = program
        self.vertex_array = ctx.vertex_array(program, [])
        self.bounds: tuple[np.ndarray, np.ndarray] | None = None
        self.extent = 1.0

    def place(self, bounds: tuple[np.ndarray, np.ndarray], extent: float) -> None:
        """The floor under ``bounds`` (min (3,), max (3,)), the model's pose when it was first shown:
        the grid does not bob with the animation, and playback needs no CPU skinning per frame to
        place it. ``extent`` (the model's) sets its smallest size."""
        self.bounds, self.extent = bounds, extent

    def draw(self, camera: Camera) -> None:
        """Under the model's lowest point (or through the origin when that point is just above it:
        ``floor_height``), drawn last in the scene layer, so its depth writes hide nothing (moderngl
        has no depth mask)."""
        low, high = self.bounds
        up = camera.world_up
        axis_u = np.eye(3)[0]
        axis_v = np.cross(up, axis_u)
        extent = max(float(np.linalg.norm(high - low)), self.extent * 0.1, 1e-6)
        cell = nice_cell(extent)
        centre = 0.5 * (low + high)
        # Snapped to the lines, so the grid does not swim as the model moves over it.
        origin = (axis_u * np.round(centre @ axis_u / cell)
                  + axis_v * np.round(centre @ axis_v / cell)) * cell
        origin = origin + up * floor_height(low, high, up)
        program = self.program
        for name, value in (("origin", origin), ("axis_u", axis_u), ("axis_v", axis_v)):
            set_uniform(program, name, tuple(float(v) for v in value))
        set_uniform(program, "half_size", 1.5 * extent)
        set_uniform(program, "cell", cell)
        set_uniform(program, "depth_layer", SCENE_LAYER)
        set_uniform(program, "line_color", (0.55, 0.56, 0.58))
        set_uniform(program, "fill_color", (0.30, 0.31, 0.33))
        set_uniform(program, "u_axis_color", (0.75, 0.30, 0.30))
        set_uniform(program, "v_axis_color", (0.35, 0.65, 0.35))
        enable_blending(self.ctx)
        # Pushed back a little: a model's floor lying on the grid (a tile's) hides it, not stripes.
        self.ctx.polygon_offset = GRID_DEPTH_OFFSET
        self.vertex_array.render(moderngl.TRIANGLE_STRIP, vertices=4)
        self.ctx.polygon_offset = (0.0, 0.0)
        self.ctx.disable(moderngl.BLEND)

    def release(self) -> None:
        self.vertex_array.release()


def nice_cell(extent: float) -> float:
    """A round grid spacing (1, 2 or 5 × 10^k) about a tenth of ``extent``."""
    raw = max(extent, 1e-9) / 10.0
    power = 10.0 ** math.floor(math.log10(raw))
    return power * min((1.0, 2.0, 5.0, 10.0), key=lambda step: abs(math.log(raw / (power * step))))
