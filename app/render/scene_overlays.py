"""Overlays drawn among the meshes: the bounding box's edges and the normals' lines in the scene's
depth layer, the emitters' shapes in the overlay layer (seen through the skin, as gizmos are)."""

from __future__ import annotations

from typing import Callable

import moderngl
import numpy as np

from app.render.gl_state import OVERLAY_LAYER, SCENE_LAYER, enable_blending
from app.render.gpu_mesh import GpuMesh
from app.render.shaders import set_uniform
from app.scene.gizmo_scene import box_lines

BOUNDS_COLOR = (0.95, 0.80, 0.30, 1.0)
NORMALS_COLOR = (0.25, 0.55, 1.0, 0.9)
#: Normal line length, as a fraction of the model's extent.
NORMAL_LENGTH = 0.03


class BoundsBox:
    """The 12 edges of a box, hidden where the model is in front of them; owns one buffer of 24 ends
    (position and colour), rewritten for each frame drawn, and its vertex array."""

    def __init__(self, ctx: moderngl.Context, program: moderngl.Program):
        self.program = program
        self.buffer = ctx.buffer(reserve=24 * 7 * 4, dynamic=True)
        self.vertex_array = ctx.vertex_array(program, [(self.buffer, "3f 4f", "in_position", "in_color")])

    def draw(self, low: np.ndarray, high: np.ndarray) -> None:
        """The box from ``low`` (3,) to ``high`` (3,)."""
        frame = np.eye(4)
        frame[:3, 3] = 0.5 * (low + high)
        ends = box_lines(frame[None], (0.5 * (high - low))[None]).reshape(-1, 3)
        colors = np.broadcast_to(BOUNDS_COLOR, (len(ends), 4))
        self.buffer.write(np.ascontiguousarray(np.hstack([ends, colors]), dtype="f4").tobytes())
        set_uniform(self.program, "depth_layer", SCENE_LAYER)
        self.vertex_array.render(moderngl.LINES, vertices=len(ends))

    def release(self) -> None:
        self.vertex_array.release()
        self.buffer.release()


class NormalLines:
    """A line along each skinned vertex's normal, drawn from the meshes' transform-feedback capture;
    owns a vertex array per mesh over its capture buffer (``forget`` frees them for a new model)."""

    def __init__(self, ctx: moderngl.Context, program: moderngl.Program):
        self.ctx = ctx
        self.program = program
        self.vertex_arrays: dict[int, moderngl.VertexArray] = {}

    def draw(self, meshes: list[tuple[int, GpuMesh]], capture: Callable[[GpuMesh], moderngl.Buffer],
             extent: float) -> None:
        """The normals of ``meshes`` ((index in the model, GPU mesh) pairs), each captured in the
        current pose by ``capture``; lines ``NORMAL_LENGTH`` of the model's ``extent`` long."""
        program = self.program
        set_uniform(program, "line_length", NORMAL_LENGTH * extent)
        set_uniform(program, "depth_layer", SCENE_LAYER)
        alpha = NORMALS_COLOR[3]
        set_uniform(program, "color", tuple(c * alpha for c in NORMALS_COLOR[:3]) + (alpha,))
        enable_blending(self.ctx)
        for index, gpu_mesh in meshes:
            buffer = capture(gpu_mesh)
            if index not in self.vertex_arrays:
                self.vertex_arrays[index] = self.ctx.vertex_array(
                    program, [(buffer, "3f 3f", "in_position", "in_normal")])
            self.vertex_arrays[index].render(moderngl.POINTS, vertices=gpu_mesh.vertex_count)
        self.ctx.disable(moderngl.BLEND)

    def forget(self) -> None:
        for vertex_array in self.vertex_arrays.values():
            vertex_array.release()
        self.vertex_arrays.clear()


class EmitterShapes:
    """Line segments (K, 2, 3) in one colour (View › Emitters); owns a buffer grown to the most ends
    drawn so far, rewritten for each frame drawn, and its vertex array."""

    def __init__(self, ctx: moderngl.Context, program: moderngl.Program):
        self.ctx = ctx
        self.program = program
        self.buffer: moderngl.Buffer | None = None
        self.vertex_array: moderngl.VertexArray | None = None

    def draw(self, segments: np.ndarray, color) -> None:
        ends = segments.reshape(-1, 3)
        if not len(ends):
            return
        data = np.ascontiguousarray(np.hstack([ends, np.broadcast_to(color, (len(ends), 4))]), dtype="f4")
        if self.buffer is None or self.buffer.size < data.nbytes:
            self.release()
            self.buffer = self.ctx.buffer(reserve=data.nbytes, dynamic=True)
            self.vertex_array = self.ctx.vertex_array(self.program,
                                                      [(self.buffer, "3f 4f", "in_position", "in_color")])
        self.buffer.write(data.tobytes())
        set_uniform(self.program, "depth_layer", OVERLAY_LAYER)
        self.vertex_array.render(moderngl.LINES, vertices=len(ends))

    def release(self) -> None:
        if self.vertex_array is not None:
            self.vertex_array.release()
            self.buffer.release()
        self.buffer = self.vertex_array = None
