"""The 3D view: a QOpenGLWidget hosting the shared moderngl Renderer, and mouse → camera."""

from __future__ import annotations

import time

import moderngl
import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtOpenGLWidgets import QOpenGLWidget

from app.model import Model
from app.pose import Pose
from app.render.camera import Camera, camera_for
from app.render.renderer import DisplayOptions, Renderer

#: Radians of orbit per pixel of mouse travel.
ORBIT_PER_PIXEL = 0.01
#: Zoom factor per wheel notch (120 units).
ZOOM_PER_NOTCH = 0.85


class Viewport(QOpenGLWidget):
    """Draws the model with the headless path's Renderer. Emits ``first_frame_drawn`` once per
    model, after the first frame that shows it."""

    first_frame_drawn = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumSize(320, 240)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.ctx: moderngl.Context | None = None
        self.renderer: Renderer | None = None
        self.options = DisplayOptions()
        self.camera = Camera()
        self.model: Model | None = None
        self.pose: Pose | None = None
        self.frame_seconds = 0.0
        self._pending_model = False
        self._announced = False
        self._last_mouse = None

    # --- model and pose ---------------------------------------------------------------------------

    def set_model(self, model: Model, pose: Pose) -> None:
        self.model, self.pose = model, pose
        self._pending_model = True
        self._announced = False
        self.update()

    def set_pose(self, pose: Pose) -> None:
        self.pose = pose
        self.update()

    def set_view(self, name: str) -> None:
        self.camera.set_view(name)
        self.update()

    def frame_all(self) -> None:
        if self.renderer is not None and self.model is not None:
            self.camera.frame(*self.renderer.bounds(), aspect=self._aspect())
            self.update()

    def set_up_axis(self, axis: str) -> None:
        self.camera.up_axis = axis
        self.frame_all()

    def _aspect(self) -> float:
        return self.width() / max(self.height(), 1)

    # --- GL -----------------------------------------------------------------------------------------

    def initializeGL(self) -> None:
        self.ctx = moderngl.create_context()
        self.renderer = Renderer(self.ctx)
        self.context().aboutToBeDestroyed.connect(self._release_gl)

    def _release_gl(self) -> None:
        """Free GL objects with the context current, before Qt destroys it."""
        self.makeCurrent()
        if self.renderer is not None:
            self.renderer.release()
            self.renderer = None
        self.doneCurrent()

    def paintGL(self) -> None:
        if self.renderer is None:
            return
        start = time.perf_counter()
        if self._pending_model and self.model is not None:
            self.renderer.set_model(self.model, self.pose)
            self._pending_model = False
            self.camera = camera_for(*self.renderer.bounds(), up_axis=self.model.up_axis, view="iso",
                                     aspect=self._aspect())
        elif self.pose is not None and self.pose is not self.renderer.pose:
            self.renderer.set_pose(self.pose)
        ratio = self.devicePixelRatioF()
        framebuffer = self.ctx.detect_framebuffer(self.defaultFramebufferObject())
        framebuffer.viewport = (0, 0, int(self.width() * ratio), int(self.height() * ratio))
        self.renderer.draw(framebuffer, self.camera, self.options)
        self.frame_seconds = time.perf_counter() - start
        if self.model is not None and not self._announced:
            self._announced = True
            self.first_frame_drawn.emit()

    # --- mouse and keys -----------------------------------------------------------------------------

    def mousePressEvent(self, event) -> None:
        self._last_mouse = event.position()

    def mouseReleaseEvent(self, event) -> None:
        self._last_mouse = None

    def mouseMoveEvent(self, event) -> None:
        if self._last_mouse is None:
            return
        delta = event.position() - self._last_mouse
        self._last_mouse = event.position()
        buttons = event.buttons()
        panning = buttons & Qt.MouseButton.MiddleButton or (
            buttons & Qt.MouseButton.LeftButton and event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        if panning:
            self.camera.pan(2.0 * delta.x() / max(self.width(), 1), -2.0 * delta.y() / max(self.height(), 1),
                            self._aspect())
        elif buttons & Qt.MouseButton.LeftButton:
            self.camera.orbit(-delta.x() * ORBIT_PER_PIXEL, delta.y() * ORBIT_PER_PIXEL)
        self.update()

    def wheelEvent(self, event) -> None:
        notches = event.angleDelta().y() / 120.0
        if notches:
            self.camera.zoom(ZOOM_PER_NOTCH ** notches, self._point_under(event.position()))
            self.update()

    def _point_under(self, position) -> np.ndarray:
        """The point at the camera target's depth under the cursor (zoom goes toward it)."""
        x = 2.0 * position.x() / max(self.width(), 1) - 1.0
        y = 1.0 - 2.0 * position.y() / max(self.height(), 1)
        origin, direction = self.camera.ray(x, y, self._aspect())
        forward = self.camera.axes()[0]
        depth = self.camera.distance / max(float(direction @ forward), 1e-6)
        return origin + direction * depth

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_F:
            self.frame_all()
        else:
            super().keyPressEvent(event)
