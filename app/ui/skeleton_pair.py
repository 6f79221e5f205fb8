"""The bone map dialog's picture: the two skeletons side by side at rest, seen from the front (each
model's own up axis and facing), the bones of the pairs made so far in one colour, the others grey,
and the selected row's pair highlighted in both. Drawn with QPainter from the bones' rest heads and
tails: no OpenGL context for a dialog."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QWidget

from app.model import Model
from app.pose import rest_pose
from app.render.camera import basis

#: Colours (sRGB): the background, unpaired bones, paired bones, the selected pair, the names.
BACKGROUND = QColor("#26282c")
UNPAIRED = QColor("#6a6e76")
PAIRED = QColor("#5f9fe0")
HIGHLIGHT = QColor("#ff2fa0")
TEXT = QColor("#d8d8d8")
#: Pixels kept clear around each skeleton, and the strip above it for the model's name.
MARGIN, TITLE = 14, 22


def front_points(model: Model) -> tuple[np.ndarray, np.ndarray]:
    """Each bone's rest head and tail seen from the front: (B, 2) each, x to the viewer's right (the
    model's left), y up, in the model's units."""
    heads, tails = rest_pose(model).heads_tails(model.skeleton)
    to_canonical = basis(model.up_axis, model.forward).T  # canonical: −Y is the facing, +Z up
    flat = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]) @ to_canonical
    return heads @ flat.T, tails @ flat.T


class SkeletonPairView(QWidget):
    """``source`` on the left, ``target`` on the right; ``set_pairs`` says which bones are paired and
    which pair is selected."""

    def __init__(self, source: Model, target: Model, parent: QWidget | None = None):
        super().__init__(parent)
        self.models = (source, target)
        self.points = (front_points(source), front_points(target))
        self.paired: tuple[set[int], set[int]] = (set(), set())
        self.selected: tuple[int | None, int | None] = (None, None)
        self.setMinimumSize(320, 240)

    def set_pairs(self, pairs: list[tuple[int, int]], selected: tuple[int | None, int | None]) -> None:
        """``pairs``: (source bone, target bone) of every row paired; ``selected``: the selected row's
        source bone and its target bone (None: none)."""
        self.paired = ({source for source, _ in pairs}, {target for _, target in pairs})
        self.selected = selected
        self.update()

    def pane(self, side: int) -> QRectF:
        """Where skeleton ``side`` (0: source, 1: target) is drawn, its name strip left out."""
        half = self.width() / 2.0
        return QRectF(side * half + MARGIN, TITLE + MARGIN, half - 2 * MARGIN,
                      self.height() - TITLE - 2 * MARGIN)

    def to_pixels(self, side: int, points: np.ndarray) -> np.ndarray:
        """(N, 2) front-view points of skeleton ``side`` → (N, 2) widget pixels, the skeleton's extent
        fitted in its pane (same scale on both axes), centred."""
        heads, tails = self.points[side]
        every = np.concatenate([heads, tails]) if len(heads) else np.zeros((1, 2))
        low, high = every.min(axis=0), every.max(axis=0)
        pane = self.pane(side)
        extent = np.maximum(high - low, 1e-9)
        scale = min(pane.width() / extent[0], pane.height() / extent[1])
        centre = (low + high) / 2.0
        x = pane.center().x() + (points[:, 0] - centre[0]) * scale
        y = pane.center().y() - (points[:, 1] - centre[1]) * scale
        return np.stack([x, y], axis=1)

    def paintEvent(self, _event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), BACKGROUND)
        for side in (0, 1):
            self._draw_skeleton(painter, side)
        painter.end()

    def _draw_skeleton(self, painter: QPainter, side: int) -> None:
        model = self.models[side]
        painter.setPen(TEXT)
        half = self.width() / 2.0
        painter.drawText(QRectF(side * half, 4, half, TITLE), Qt.AlignmentFlag.AlignCenter,
                         f"{('from', 'onto')[side]} {model.name}")
        heads, tails = (self.to_pixels(side, points) for points in self.points[side])
        selected = self.selected[side]
        order = [bone for bone in range(len(heads)) if bone != selected]
        for bone in order + ([selected] if selected is not None else []):
            colour, width = UNPAIRED, 2.0
            if bone in self.paired[side]:
                colour = PAIRED
            if bone == selected:
                colour, width = HIGHLIGHT, 5.0
            painter.setPen(QPen(colour, width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
            head, tail = QPointF(*heads[bone]), QPointF(*tails[bone])
            painter.drawLine(head, tail)
            painter.setBrush(colour)
            radius = width
            painter.drawEllipse(head, radius, radius)
