"""What is painted over the 3D view: the orientation gizmo in a corner, the bone names, the walkmesh
legend, the last shot's ray and impact, and the spring of a part being dragged. Painted with QPainter
from projected points on the view's own GL window after the scene, so they stay crisp at any size and
show in its grabs."""

from __future__ import annotations

import time

import numpy as np
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen

from app.render.camera import project
from app.scene.walkmesh_overlay import model_legend

#: The gizmo's axis length and its centre's distance from the view's bottom-left corner, in pixels.
GIZMO_LENGTH = 28
GIZMO_MARGIN = 42
AXIS_COLORS = {"X": QColor(230, 70, 70), "Y": QColor(90, 200, 90), "Z": QColor(80, 140, 240)}
#: How long a shot's ray and impact stay on screen (seconds), fading out.
SHOT_SECONDS = 1.5
SHOT_COLOR = QColor(255, 90, 40)
SPRING_COLOR = QColor(120, 230, 255)
MARKER_RADIUS = 7
#: The walkmesh legend's margin and colour swatch, in pixels.
LEGEND_MARGIN = 8
LEGEND_SWATCH = 12


def gizmo_axes(view: np.ndarray) -> list[tuple[str, np.ndarray, float]]:
    """(name, screen direction (2,) with +y down, depth toward the viewer) of each world axis under
    the view rotation, farthest first so nearer axes are painted over them."""
    rotation = np.asarray(view, np.float64)[:3, :3]
    axes = [(name, rotation[:, index]) for index, name in enumerate("XYZ")]
    return [(name, np.array([eye[0], -eye[1]]), float(eye[2]))
            for name, eye in sorted(axes, key=lambda axis: axis[1][2])]


class ViewOverlay:
    """Paints the marks, and the bone names while the view's draw settings show them, over
    ``viewport``'s picture."""

    def __init__(self, viewport):
        self.viewport = viewport

    def paint(self, painter: QPainter) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setFont(self.viewport.font())
        if self.viewport.options.bone_names:
            self.paint_bone_names(painter)
        if self.viewport.options.walkmesh and self.viewport.model is not None:
            self.paint_walkmesh_legend(painter)
        self._paint_gizmo(painter)
        marks = self.viewport.marks()
        if marks.shot is not None:
            self._paint_shot(painter, *marks.shot)
        if marks.spring is not None:
            self._paint_spring(painter, *marks.spring)

    def paint_bone_names(self, painter: QPainter, size: tuple[float, float] | None = None) -> None:
        """Each bone's name at its posed midpoint, the selected bone's in orange, on a picture of the
        view of ``size`` (logical pixels; None: the view's own)."""
        view = self.viewport
        if view.model is None or view.pose is None or not len(view.model.skeleton):
            return
        heads, tails, visible = view.bone_segments(size)
        middles = 0.5 * (heads + tails)
        font = QFont(view.font())
        font.setPointSizeF(max(font.pointSizeF() - 1.0, 7.0))
        painter.setFont(font)
        selected = view.options.selected_bone
        for index in np.flatnonzero(visible):
            x, y = middles[index]
            name = view.model.skeleton.names[index]
            painter.setPen(QColor(0, 0, 0, 180))
            painter.drawText(QPointF(x + 5, y + 1), name)
            painter.setPen(QColor(255, 170, 60) if index == selected else QColor(235, 235, 240))
            painter.drawText(QPointF(x + 4, y), name)

    def paint_walkmesh_legend(self, painter: QPainter) -> None:
        """A swatch and a label per surface material of the model's walkmeshes, top left (View ›
        Walkmesh); a line saying so when the model has none."""
        entries = model_legend(self.viewport.model)
        metrics = painter.fontMetrics()
        line = metrics.height() + 4
        labels = [entry.label for entry in entries] or ["no walkmesh"]
        width = max(metrics.horizontalAdvance(label) for label in labels) + LEGEND_SWATCH + 3 * LEGEND_MARGIN
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(20, 20, 24, 170))
        painter.drawRect(LEGEND_MARGIN, LEGEND_MARGIN, width, line * len(labels) + LEGEND_MARGIN)
        for row, label in enumerate(labels):
            top = LEGEND_MARGIN * 3 // 2 + row * line
            if entries:
                painter.setBrush(QColor.fromRgbF(*entries[row].color))
                painter.setPen(QColor(235, 235, 240))
                painter.drawRect(2 * LEGEND_MARGIN, top + 2, LEGEND_SWATCH, LEGEND_SWATCH)
            painter.setPen(QColor(235, 235, 240))
            painter.drawText(QPointF(3 * LEGEND_MARGIN + LEGEND_SWATCH, top + metrics.ascent()), label)
        painter.setBrush(Qt.BrushStyle.NoBrush)

    def _paint_gizmo(self, painter: QPainter) -> None:
        centre = np.array([GIZMO_MARGIN, self.viewport.height() - GIZMO_MARGIN], np.float64)
        font = QFont(self.viewport.font())
        font.setBold(True)
        painter.setFont(font)
        for name, direction, _ in gizmo_axes(self.viewport.camera.view_matrix()):
            tip = centre + direction * GIZMO_LENGTH
            painter.setPen(QPen(AXIS_COLORS[name], 2.5))
            painter.drawLine(QPointF(*centre), QPointF(*tip))
            label = centre + direction * (GIZMO_LENGTH + 9)
            painter.drawText(QPointF(label[0] - 4, label[1] + 5), name)

    def _pixels(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return project(self.viewport.camera, points, self.viewport.width(), self.viewport.height())

    def _paint_shot(self, painter: QPainter, origin, end, hit: bool, when: float) -> None:
        age = time.monotonic() - when
        if age > SHOT_SECONDS:
            return
        color = QColor(SHOT_COLOR)
        color.setAlphaF(max(0.0, 1.0 - age / SHOT_SECONDS))
        # The ray starts at the eye, where it cannot be projected: draw it from just in front.
        near, _ = self.viewport.camera.clip_planes()
        origin, end = np.asarray(origin, np.float64), np.asarray(end, np.float64)
        length = float(np.linalg.norm(end - origin))
        start = origin + (end - origin) * min(2.0 * near / max(length, 1e-12), 1.0)
        pixels, inside = self._pixels(np.stack([start, end]))
        painter.setPen(QPen(color, 3.0))
        if inside.any():
            painter.drawLine(QPointF(*pixels[0]), QPointF(*pixels[1]))
        if hit and inside[1]:
            x, y = pixels[1]
            painter.drawEllipse(QPointF(x, y), MARKER_RADIUS, MARKER_RADIUS)
            painter.drawLine(QPointF(x - 2 * MARKER_RADIUS, y), QPointF(x + 2 * MARKER_RADIUS, y))
            painter.drawLine(QPointF(x, y - 2 * MARKER_RADIUS), QPointF(x, y + 2 * MARKER_RADIUS))

    def _paint_spring(self, painter: QPainter, anchor, target) -> None:
        pixels, inside = self._pixels(np.stack([anchor, target]))
        if not inside.any():
            return
        pen = QPen(SPRING_COLOR, 2.0, Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.drawLine(QPointF(*pixels[0]), QPointF(*pixels[1]))
        painter.setPen(QPen(SPRING_COLOR, 2.0))
        painter.setBrush(SPRING_COLOR)
        painter.drawEllipse(QPointF(*pixels[0]), 3.5, 3.5)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawEllipse(QPointF(*pixels[1]), 5.0, 5.0)
