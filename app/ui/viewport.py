"""The 3D view: the shared moderngl Renderer drawing in a native GL window, mouse → camera, bone
picking, bone-name labels, editor gizmos, a ray tool (the ragdoll's shooting, dragging and part picking)
and offscreen captures at any size.

The view draws in a QOpenGLWindow held in a window container, not in a QOpenGLWidget: a QOpenGLWidget
makes Qt compose the whole main window around it in every frame, which on a software rasteriser cost
as much as drawing the model (docs/benchmarks.md). The native window is swapped on its own. Its mouse
events are handed to the Viewport widget, which owns the camera and the tools; it takes no keyboard
focus, so keys stay with the widgets and the window's shortcuts."""

from __future__ import annotations

import time

import moderngl
import numpy as np
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPoint, QPointF, Qt, Signal
from PySide6.QtGui import QImage, QOpenGLContext, QPainter, QPixmap, QSurfaceFormat
from PySide6.QtOpenGL import QOpenGLWindow
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from app.animation.root_motion import over_ground, pose_centre
from app.model import Model
from app.pose import Pose
from app.render.camera import Camera, camera_for, project
from app.render.gizmos import Gizmos
from app.render.offscreen import ImageTargets
from app.render.picking import nearest_segment
from app.render.renderer import Renderer
from app.scene.draw_settings import DrawSettings
from app.scene.framed_bounds import framed_bounds
from app.scene.gizmo_scene import GizmoScene
from app.scene.view_marks import ViewMarks
from app.ui.view_overlay import ViewOverlay

#: glPixelStorei's name for the row alignment of uploaded pixels.
GL_UNPACK_ALIGNMENT = 0x0CF5
#: Radians of orbit per pixel of mouse travel.
ORBIT_PER_PIXEL = 0.01
#: Zoom factor per wheel notch (120 units).
ZOOM_PER_NOTCH = 0.85
#: A press and release closer than this (pixels) is a click, which picks a bone.
CLICK_SLOP = 4
#: How far from a bone (pixels) a click still picks it.
PICK_RADIUS = 10


class Viewport(QWidget):
    """Draws the model with the headless path's Renderer in its ``surface`` (a ViewSurface). Emits
    ``first_frame_drawn`` once per model, after the first frame that shows it, ``bone_picked`` (index
    or None) on a click, ``warned(message)`` for each problem the renderer met (an image too large
    for the driver), and ``files_dropped(paths, shift held, position)`` for local files dropped on
    the view (drags over a native window go to it, not to the main window).

    ``gizmo_scene`` (``set_gizmo_scene``) is drawn over the model in the overlay layer. ``ray_tool``,
    when set, sees the mouse first as view rays: ``click_ray(origin, direction)`` on a click (True:
    used, no bone is picked), ``begin_drag_ray(origin, direction, forward, forced)`` on a left press
    (``forced``: Ctrl held; True: it drags, the camera stays), then ``drag_ray(origin, direction)``
    and ``end_drag()``; its ``marks()`` (a ViewMarks) are painted over the view with the orientation
    gizmo, and the bone names while ``options.bone_names`` is on. ``frames_drawn`` counts the frames
    painted (the window's frame rate).
    """

    first_frame_drawn = Signal()
    bone_picked = Signal(object)
    warned = Signal(str)
    files_dropped = Signal(list, bool, QPoint)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumSize(320, 240)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.ctx: moderngl.Context | None = None
        self.renderer: Renderer | None = None
        self.options = DrawSettings()
        self.camera = Camera()
        self.model: Model | None = None
        self.pose: Pose | None = None
        #: The centre of the last pose shown while following (``set_pose``); None when not following.
        self._followed_centre: np.ndarray | None = None
        self.frame_seconds = 0.0
        self.frames_drawn = 0
        self.overlay = ViewOverlay(self)
        self._pending_model = False
        self._framing_pose: Pose | None = None
        self._announced = False
        self._last_mouse = None
        self._press_position = None
        self.gizmos: Gizmos | None = None
        self.copy_poses: list[Pose] = []
        #: Onion skins: each ghost's pose and its offset in seconds (``state.onion``).
        self.ghosts: list[tuple[Pose, float]] = []
        self.gizmo_scene: GizmoScene | None = None
        self.ray_tool = None
        self._tool_dragging = False
        self._view_targets: ImageTargets | None = None
        #: Why the view cannot draw on this machine (None: it can); the rest of the window still works.
        self.gl_problem = opengl_problem()
        self.surface = ViewSurface(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        if self.gl_problem is None:
            layout.addWidget(self._container())
        else:
            layout.addWidget(_problem_label(self.gl_problem, self))

    def _container(self) -> QWidget:
        """The widget holding the surface in the layout."""
        container = QWidget.createWindowContainer(self.surface, self)
        # The container owns the surface, which PySide is not told: Python would delete it at exit
        # before the container, and Qt's container reads its window while the top level goes (a crash).
        # Setting the parent it already has (the container's) hands the surface over to C++.
        QObject.setParent(self.surface, self.surface.parent())
        container.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        return container

    def update(self) -> None:
        """Draw a new frame as soon as the event loop is free: the update request is posted to the
        surface at once (Qt folds the requests of one pass into one frame). ``QWindow.requestUpdate``
        waits for Qt's frame pacing instead, which on X11 without a compositor is a 5 ms timer, a
        sixth of a frame here; a driver that waits for the display's refresh paces the swaps itself."""
        QCoreApplication.postEvent(self.surface, QEvent(QEvent.Type.UpdateRequest))

    def makeCurrent(self) -> None:
        self.surface.makeCurrent()

    def doneCurrent(self) -> None:
        self.surface.doneCurrent()

    def grabFramebuffer(self) -> QImage:
        """The view drawn now, overlay included. The surface's own grab only reads its back buffer,
        which holds nothing after a swap, so a frame is drawn into it first."""
        self.surface.makeCurrent()
        self.paint_gl()
        return self.surface.grabFramebuffer()

    def grab(self) -> QPixmap:
        """The view's picture, overlay included (QWidget.grab of a native GL window is only black)."""
        return QPixmap.fromImage(self.grabFramebuffer())

    def devicePixelRatioF(self) -> float:
        return self.surface.devicePixelRatio()

    # --- model and pose ---------------------------------------------------------------------------

    def set_model(self, model: Model, pose: Pose, keep_camera: bool = False) -> None:
        """Show ``model``; a new model is framed from the iso view unless ``keep_camera``, on ``pose``
        (not on the pose at its first frame, which depends on how long the upload took)."""
        self.model, self.pose = model, pose
        self._followed_centre = None
        self._pending_model = True
        self._framing_pose = None if keep_camera else pose
        self._announced = False
        self.update()

    def set_pose(self, pose: Pose, copies: list[Pose] | None = None, follow: bool = False) -> None:
        """Show ``pose``, and the model again in each of ``copies`` (more ragdolls). ``follow``: the
        camera moves over the ground as the model's centre moved since the last pose shown."""
        if follow:
            centre = pose_centre(pose)
            if self._followed_centre is not None:
                self.camera.target = self.camera.target + over_ground(centre - self._followed_centre,
                                                                      self.camera.up_axis)
            self._followed_centre = centre
        else:
            self._followed_centre = None
        self.pose = pose
        self.copy_poses = copies or []
        self.update()

    def set_ghosts(self, ghosts: list[tuple[Pose, float]]) -> None:
        """Ghost the model in each pose of ``ghosts`` (offset < 0: before the instant shown)."""
        self.ghosts = ghosts
        self.update()

    def show_settings(self, settings: DrawSettings) -> None:
        """Draw as ``settings`` say from now on (``app.scene.draw_settings.draw_settings``)."""
        self.options = settings
        self.update()

    def set_gizmo_scene(self, scene: GizmoScene | None) -> None:
        """Gizmos to draw over the model (None: none)."""
        self.gizmo_scene = scene
        self.update()

    def set_view(self, name: str) -> None:
        self.camera.set_view(name)
        self.frame_all()

    def frame_all(self) -> None:
        """Fit the model and every ragdoll copy in the view."""
        if self.renderer is not None and self.model is not None and self.renderer.model is not None:
            low, high = self.renderer.bounds(self.options)
            for pose in self.copy_poses:
                copy_low, copy_high = framed_bounds(self.model, pose, self.options)
                low, high = np.minimum(low, copy_low), np.maximum(high, copy_high)
            self.camera.frame(low, high, aspect=self._aspect())
        self.update()

    def set_orthographic(self, on: bool) -> None:
        self.camera.orthographic = on
        self.update()

    def marks(self) -> ViewMarks:
        """What the ray tool wants drawn over the view."""
        return self.ray_tool.marks() if self.ray_tool is not None else ViewMarks()

    def reset_view(self) -> None:
        """Back to the iso view framing the model, in perspective, with the model's own up axis."""
        self.camera.orthographic = False
        if self.model is not None:
            self.camera.up_axis, self.camera.forward = self.model.up_axis, self.model.forward
        self.set_view("iso")

    def set_up_axis(self, axis: str) -> None:
        self.camera.up_axis = axis
        self.frame_all()

    def _aspect(self) -> float:
        return self.width() / max(self.height(), 1)

    # --- GL -----------------------------------------------------------------------------------------

    def initialize_gl(self) -> None:
        """The surface's context is current for the first time: make the GL objects in it."""
        try:
            self.ctx = moderngl.create_context()
        except (moderngl.Error, RuntimeError) as error:
            self.gl_problem = f"OpenGL does not work here: {error}"
            self.warned.emit(self.gl_problem)
            return
        self.renderer = Renderer(self.ctx)
        self.gizmos = Gizmos(self.ctx)
        self.surface.context().aboutToBeDestroyed.connect(self._forget_gl)

    def _forget_gl(self) -> None:
        """The surface's context is going, and every GL object in it goes too: let go of them (a new
        context gets new ones in ``initialize_gl``)."""
        self.renderer = self.gizmos = self._view_targets = None

    def _sync_renderer(self) -> None:
        """Upload a new model (once) or the current pose before drawing."""
        if self._pending_model and self.model is not None:
            self.renderer.set_model(self.model, self.pose)
            self._pending_model = False
            if self._framing_pose is not None:
                orthographic = self.camera.orthographic
                self.camera = camera_for(*framed_bounds(self.model, self._framing_pose, self.options),
                                         up_axis=self.model.up_axis, view="iso", aspect=self._aspect(),
                                         forward=self.model.forward)
                self.camera.orthographic = orthographic
                self._framing_pose = None
        elif self.pose is not None and self.pose is not self.renderer.pose:
            self.renderer.set_pose(self.pose)

    def paint_gl(self) -> None:
        """Draw a frame in the surface (its context current): the scene, resolved into the window's
        framebuffer, then the overlay painted over it."""
        if self.renderer is None:
            return
        start = time.perf_counter()
        self._sync_renderer()
        ratio = self.devicePixelRatioF()
        size = (max(int(self.surface.width() * ratio), 1), max(int(self.surface.height() * ratio), 1))
        targets = self._targets_for(size)
        self._draw_scene(targets.draw_target, self.options)
        framebuffer = self.ctx.detect_framebuffer(self.surface.defaultFramebufferObject())
        framebuffer.viewport = (0, 0, *size)
        targets.resolve_into(framebuffer)
        self._paint_overlay()
        self.frame_seconds = time.perf_counter() - start
        for warning in self.renderer.take_warnings():
            self.warned.emit(warning)
        self.frames_drawn += 1
        if self.model is not None and not self._announced:
            self._announced = True
            self.first_frame_drawn.emit()

    def _paint_overlay(self) -> None:
        """The overlay, with QPainter, over the picture in the window's framebuffer. Qt's GL paint
        engine takes the GL state as it finds it: moderngl's last vertex array is unbound first (Qt
        would set its own attributes in it) and the row alignment of Qt's glyph uploads is put back to
        GL's default (moderngl's uploads leave it at 1)."""
        functions = self.surface.context().extraFunctions()
        functions.glBindVertexArray(0)
        functions.glPixelStorei(GL_UNPACK_ALIGNMENT, 4)
        painter = QPainter(self.surface)
        self.overlay.paint(painter)
        painter.end()

    def _targets_for(self, size: tuple[int, int]) -> ImageTargets:
        """The multisampled target the view draws into before it is resolved into the window, kept
        while the size stays."""
        if self._view_targets is None or self._view_targets.size != size:
            if self._view_targets is not None:
                self._view_targets.release()
            self._view_targets = ImageTargets.create(self.ctx, size)
        return self._view_targets

    def render_image(self, width: int, height: int, transparent: bool = False) -> np.ndarray:
        """The current view (gizmos included) drawn offscreen at ``width`` × ``height``: (H, W, 4) uint8
        RGBA, straight alpha. Uses this widget's GL context, so the model is not uploaded again."""
        if self.renderer is None:
            raise RuntimeError(self.gl_problem or "the view has not been shown yet")
        self.makeCurrent()
        try:
            self._sync_renderer()
            options = self.options.for_picture(transparent)
            with ImageTargets.create(self.ctx, (int(width), int(height))) as targets:
                return targets.capture(lambda framebuffer: self._draw_scene(framebuffer, options),
                                       transparent)
        finally:
            self.doneCurrent()

    def _draw_scene(self, framebuffer: moderngl.Framebuffer, options: DrawSettings) -> None:
        """The model as ``options`` say, then the gizmos over it: what the view shows and saves."""
        self.renderer.ghosts = self.ghosts
        self.renderer.draw(framebuffer, self.camera, options)
        self.renderer.draw_copies(framebuffer, self.camera, options, self.copy_poses)
        if self.gizmos is not None and self.gizmo_scene is not None and self.renderer.model is not None:
            self.gizmos.draw(framebuffer, self.camera, self.gizmo_scene)

    # --- projection helpers -------------------------------------------------------------------------

    def bone_segments(self, size: tuple[float, float] | None = None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Posed bones in widget pixels (or in those of a picture of the view of ``size``): heads
        (B, 2), tails (B, 2) and which heads are in view."""
        width, height = size or (self.width(), self.height())
        heads, tails = self.pose.heads_tails(self.model.skeleton)
        head_pixels, head_visible = project(self.camera, heads, width, height)
        tail_pixels, _ = project(self.camera, tails, width, height)
        return head_pixels, tail_pixels, head_visible

    # --- mouse and keys -----------------------------------------------------------------------------

    def ray_at(self, position: QPointF) -> tuple[np.ndarray, np.ndarray]:
        """The view ray (origin (3,), unit direction (3,)) through a widget position."""
        x = 2.0 * position.x() / max(self.width(), 1) - 1.0
        y = 1.0 - 2.0 * position.y() / max(self.height(), 1)
        return self.camera.ray(x, y, self._aspect())

    def mousePressEvent(self, event) -> None:
        if (self.ray_tool is not None and self.model is not None
                and event.button() == Qt.MouseButton.LeftButton
                and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier):
            forced = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
            if self.ray_tool.begin_drag_ray(*self.ray_at(event.position()), self.camera.axes()[0], forced):
                self._tool_dragging = True
                return
        self._last_mouse = event.position()
        self._press_position = event.position()

    def mouseReleaseEvent(self, event) -> None:
        if self._tool_dragging:
            self._tool_dragging = False
            self.ray_tool.end_drag()
            return
        pressed, self._press_position = self._press_position, None
        self._last_mouse = None
        if (pressed is not None and event.button() == Qt.MouseButton.LeftButton
                and (event.position() - pressed).manhattanLength() <= CLICK_SLOP):
            self.click(event.position())

    def click(self, position: QPointF) -> None:
        """A left click: the ray tool's when it uses it, else pick the bone drawn there."""
        if (self.ray_tool is not None and self.model is not None
                and self.ray_tool.click_ray(*self.ray_at(position))):
            self.update()
            return
        self.bone_picked.emit(self.bone_at(position))

    def mesh_at(self, position: QPointF) -> int | None:
        """The index of the mesh drawn at a widget position, or None (nothing there, or not shown yet)."""
        if self.renderer is None or self.renderer.model is None:
            return None
        ratio = self.devicePixelRatioF()
        size = (max(int(self.width() * ratio), 1), max(int(self.height() * ratio), 1))
        self.makeCurrent()
        try:
            self._sync_renderer()
            x, y = int(position.x() * ratio), int(position.y() * ratio)
            return self.renderer.mesh_at(self.camera, size, x, y, self.options)
        finally:
            self.doneCurrent()

    def bone_at(self, position: QPointF) -> int | None:
        """The bone drawn nearest to a widget position, if within PICK_RADIUS pixels."""
        if self.model is None or self.pose is None or not len(self.model.skeleton):
            return None
        heads, tails, visible = self.bone_segments()
        return nearest_segment(heads, tails, (position.x(), position.y()), PICK_RADIUS, visible)

    def mouseMoveEvent(self, event) -> None:
        if self._tool_dragging:
            self.ray_tool.drag_ray(*self.ray_at(event.position()))
            return
        if self._last_mouse is None:
            if self.ray_tool is not None and self.model is not None:
                self.ray_tool.hover_ray(*self.ray_at(event.position()))
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

    def leaveEvent(self, event) -> None:
        """The pointer left the view: the handle it hovered goes dark."""
        if self.ray_tool is not None:
            self.ray_tool.hover_away()
        super().leaveEvent(event)

    def wheelEvent(self, event) -> None:
        notches = event.angleDelta().y() / 120.0
        if notches:
            self.camera.zoom(ZOOM_PER_NOTCH ** notches, self._point_under(event.position()))
            self.update()

    def _point_under(self, position) -> np.ndarray:
        """The point at the camera target's depth under the cursor (zoom goes toward it)."""
        origin, direction = self.ray_at(position)
        forward = self.camera.axes()[0]
        depth = self.camera.distance / max(float(direction @ forward), 1e-6)
        return origin + direction * depth



def local_files(data) -> list[str]:
    """The local file paths a drag's QMimeData carries."""
    return [url.toLocalFile() for url in data.urls() if url.isLocalFile()]


def opengl_problem() -> str | None:
    """Why this machine cannot give the view an OpenGL 3.3 context (None: it can). Asked before the
    view's window is shown: Qt's QOpenGLWindow crashes painting a frame once its context has failed."""
    context = QOpenGLContext()
    context.setFormat(QSurfaceFormat.defaultFormat())
    if not context.create():
        return "no OpenGL context can be made on this display"
    version = context.format().version()
    if version < (3, 3):
        return f"the display offers OpenGL {version[0]}.{version[1]}; the view needs 3.3"
    return None


def _problem_label(problem: str, parent: QWidget) -> QLabel:
    label = QLabel(f"The 3D view cannot draw: {problem}.\n\nEverything else works, and the command line "
                   "(boneyard render) draws without a display.", parent)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWordWrap(True)
    return label


class ViewSurface(QOpenGLWindow):
    """The native GL window a Viewport draws in: it asks the viewport to set up and to paint, hands
    it the mouse, and never takes the keyboard focus (a click focuses the viewport widget instead)."""

    def __init__(self, viewport: Viewport):
        super().__init__(QOpenGLWindow.UpdateBehavior.NoPartialUpdate)
        self.viewport = viewport
        self.setFlag(Qt.WindowType.WindowDoesNotAcceptFocus)

    def initializeGL(self) -> None:
        self.viewport.initialize_gl()

    def paintGL(self) -> None:
        self.viewport.paint_gl()

    def mousePressEvent(self, event) -> None:
        self.viewport.setFocus(Qt.FocusReason.MouseFocusReason)
        self.viewport.mousePressEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        self.viewport.mouseReleaseEvent(event)

    def mouseMoveEvent(self, event) -> None:
        self.viewport.mouseMoveEvent(event)

    def wheelEvent(self, event) -> None:
        self.viewport.wheelEvent(event)

    def event(self, event) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Leave:
            self.viewport.leaveEvent(event)
        elif kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop):
            self._drag(event)
            return True
        return super().event(event)

    def _drag(self, event) -> None:
        """Local files may be dropped on the view; a drop hands them to the viewport."""
        paths = local_files(event.mimeData())
        if not paths:
            event.ignore()
            return
        event.acceptProposedAction()
        if event.type() == QEvent.Type.Drop:
            shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
            self.viewport.files_dropped.emit(paths, shift, event.position().toPoint())
