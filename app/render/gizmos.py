"""Draws a ``GizmoScene`` (app.scene.gizmo_scene) in the renderer's overlay depth layer, so the
gizmos show through the skin yet hide each other."""

from __future__ import annotations

import moderngl
import numpy as np

from app.render.camera import Camera
from app.scene.gizmo_scene import GizmoScene
from app.render.gl_state import OVERLAY_LAYER
from app.render.shaders import load_program, set_uniform


class Gizmos:
    """Draws a GizmoScene; owns its program, buffer and vertex array (``release`` frees them).

    The buffer is rewritten only when a different scene object is drawn, and grows as needed.
    """

    def __init__(self, ctx: moderngl.Context):
        self.ctx = ctx
        self.program = load_program(ctx, "gizmo.glsl")
        self.buffer: moderngl.Buffer | None = None
        self.vertex_array: moderngl.VertexArray | None = None
        self._scene: GizmoScene | None = None
        self._counts = (0, 0)

    def _upload(self, scene: GizmoScene) -> None:
        positions = np.concatenate([scene.lines, scene.triangles]).astype("f4")
        colors = np.concatenate([scene.line_colors, scene.triangle_colors]).astype("f4")
        data = np.ascontiguousarray(np.concatenate([positions, colors], axis=1)).tobytes()
        if self.buffer is None or self.buffer.size < len(data):
            self._release_buffer()
            self.buffer = self.ctx.buffer(reserve=max(len(data), 1024) * 2, dynamic=True)
            self.vertex_array = self.ctx.vertex_array(
                self.program, [(self.buffer, "3f 4f", "in_position", "in_color")])
        if data:
            self.buffer.write(data)
        self._scene = scene
        self._counts = (len(scene.lines), len(scene.triangles))

    def draw(self, framebuffer: moderngl.Framebuffer, camera: Camera, scene: GizmoScene | None) -> None:
        """Draw ``scene`` over what ``framebuffer`` holds (its depth kept), seen by ``camera``."""
        if scene is None or (not len(scene.lines) and not len(scene.triangles)):
            return
        if scene is not self._scene:
            self._upload(scene)
        framebuffer.use()
        width, height = framebuffer.viewport[2:]
        set_uniform(self.program, "view", camera.view_matrix())
        set_uniform(self.program, "projection", camera.projection_matrix(width / max(height, 1)))
        set_uniform(self.program, "depth_layer", OVERLAY_LAYER)
        self.ctx.enable(moderngl.DEPTH_TEST | moderngl.BLEND)
        self.ctx.blend_func = (moderngl.ONE, moderngl.ONE_MINUS_SRC_ALPHA,
                               moderngl.ONE, moderngl.ONE_MINUS_SRC_ALPHA)
        lines, triangles = self._counts
        if lines:
            self.vertex_array.render(moderngl.LINES, vertices=lines, first=0)
        if triangles:
            # After the lines: the fill tints the edges behind it instead of hiding them.
            self.vertex_array.render(moderngl.TRIANGLES, vertices=triangles, first=lines)
        self.ctx.disable(moderngl.BLEND)

    def _release_buffer(self) -> None:
        if self.vertex_array is not None:
            self.vertex_array.release()
        if self.buffer is not None:
            self.buffer.release()
        self.vertex_array = self.buffer = None

    def release(self) -> None:
        """Free the GL objects (call with the context current)."""
        self._release_buffer()
        self.program.release()
        self._scene = None
