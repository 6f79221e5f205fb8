"""Draws the model's walkmeshes (app/scene/walkmesh_overlay.py) over the shaded model: translucent
faces coloured by surface material, depth-tested and pulled a little towards the camera so a floor
they lie on does not hide them, and their edges faintly through whatever is in front."""

from __future__ import annotations

import moderngl
import numpy as np

from app.model import Model
from app.render.gl_state import OVERLAY_LAYER, SCENE_LAYER, enable_blending
from app.render.shaders import set_uniform
from app.scene.walkmesh_overlay import walkmesh_edges, walkmesh_triangles

#: glPolygonOffset (factor, units) of the faces: in front of the surfaces they coincide with.
FACE_DEPTH_OFFSET = (-1.0, -64.0)


class WalkmeshLayer:
    """Owns one buffer (faces then edges: position and colour per corner) and its vertex array, made
    for each model that has walkmeshes (``show``); ``release`` frees them."""

    def __init__(self, ctx: moderngl.Context, program: moderngl.Program):
        self.ctx, self.program = ctx, program
        self.buffer: moderngl.Buffer | None = None
        self.vertex_array: moderngl.VertexArray | None = None
        self.counts = (0, 0)

    def show(self, model: Model) -> None:
        """Upload ``model``'s walkmeshes (nothing when it has none)."""
        self.release()
        corners, corner_colors = walkmesh_triangles(model.walkmeshes)
        ends, end_colors = walkmesh_edges(model.walkmeshes)
        self.counts = (len(corners), len(ends))
        if not len(corners):
            return
        rows = np.hstack([np.concatenate([corners, ends]), np.concatenate([corner_colors, end_colors])])
        self.buffer = self.ctx.buffer(np.ascontiguousarray(rows, dtype="f4").tobytes())
        self.vertex_array = self.ctx.vertex_array(self.program,
                                                  [(self.buffer, "3f 4f", "in_position", "in_color")])

    def draw(self, framebuffer: moderngl.Framebuffer) -> None:
        """The faces, then the edges, over what ``framebuffer`` holds; its depth is left as it was."""
        faces, edges = self.counts
        if self.vertex_array is None:
            return
        enable_blending(self.ctx)
        framebuffer.depth_mask = False
        self.ctx.polygon_offset = FACE_DEPTH_OFFSET
        set_uniform(self.program, "depth_layer", SCENE_LAYER)
        self.vertex_array.render(moderngl.TRIANGLES, vertices=faces, first=0)
        self.ctx.polygon_offset = (0.0, 0.0)
        set_uniform(self.program, "depth_layer", OVERLAY_LAYER)
        self.vertex_array.render(moderngl.LINES, vertices=edges, first=faces)
        framebuffer.depth_mask = True
        self.ctx.disable(moderngl.BLEND)

    def release(self) -> None:
        if self.vertex_array is not None:
            self.vertex_array.release()
            self.buffer.release()
        self.vertex_array = self.buffer = None
        self.counts = (0, 0)
