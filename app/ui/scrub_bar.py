"""The timeline's scrub bar: a clip's range with a time ruler, a tick per key, event marks and the
playhead; pressing and dragging the mouse scrubs."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QEvent, QLineF, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from app.model import Clip

#: Height of the time ruler above the track, in pixels.
RULER_HEIGHT = 18
#: Length of the ruler's ticks; labels sit above them.
RULER_TICK = 3
#: Space left and right of the clip range so the playhead handle stays whole at either end.
SIDE_MARGIN = 8
#: Fewest pixels between two ruler labels.
LABEL_SPACING = 70
#: Half the width of an event's triangle, and how near (pixels) the mouse must be for its tooltip.
EVENT_HALF_WIDTH = 5
EVENT_COLOR = QColor(240, 150, 30)
PLAYHEAD_COLOR = QColor(80, 140, 230)


def ruler_step(duration: float, width: float) -> float:
    """The smallest 1, 2 or 5 × 10^k seconds that keeps ruler labels ``LABEL_SPACING`` apart."""
    wanted = max(duration * LABEL_SPACING / max(width, 1.0), 1e-6)
    decade = 10.0 ** math.floor(math.log10(wanted))
    return next(decade * factor for factor in (1, 2, 5, 10) if decade * factor >= wanted)


class ScrubBar(QWidget):
    """Shows the clip and playhead time it is given (``set_clip``, ``set_time``); it decides nothing
    about playback itself.

    Signals: ``scrub_started`` on a left press, ``scrubbed(seconds)`` on that press and each drag
    move, ``scrub_finished`` on release.
    """

    scrub_started = Signal()
    scrubbed = Signal(float)
    scrub_finished = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.clip: Clip | None = None
        self.time = 0.0
        self._dragging = False
        self.setMinimumSize(200, RULER_HEIGHT + 26)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def set_clip(self, clip: Clip | None) -> None:
        self.clip = clip
        self.time = clip.start if clip else 0.0
        self.update()

    def set_time(self, time: float) -> None:
        """Move the playhead; repaints only when it lands on another pixel."""
        moved = round(self.x_of(time)) != round(self.x_of(self.time))
        self.time = time
        if moved:
            self.update()

    # --- geometry -------------------------------------------------------------------------------

    def _span(self) -> float:
        return max(self.width() - 2 * SIDE_MARGIN, 1)

    def x_of(self, time: float) -> float:
        clip = self.clip
        if clip is None or clip.duration <= 0:
            return SIDE_MARGIN
        return SIDE_MARGIN + (time - clip.start) / clip.duration * self._span()

    def time_at(self, x: float) -> float:
        clip = self.clip
        if clip is None:
            return 0.0
        fraction = min(max((x - SIDE_MARGIN) / self._span(), 0.0), 1.0)
        return clip.start + fraction * clip.duration

    def tick_positions(self) -> np.ndarray:
        """(T,) int x of the key ticks: one per pixel column that holds a key, so never more ticks
        than pixels however many frames the clip stores."""
        clip = self.clip
        if clip is None:
            return np.zeros(0, int)
        if clip.duration <= 0:
            return np.array([SIDE_MARGIN])
        xs = SIDE_MARGIN + (clip.frame_times - clip.start) / clip.duration * self._span()
        return np.unique(np.round(xs).astype(int))

    def event_marks(self) -> list[tuple[float, str]]:
        """``(x, name)`` of each of the clip's events."""
        return [(self.x_of(time), name) for time, name in self.clip.events] if self.clip else []

    def _track(self) -> QRectF:
        return QRectF(SIDE_MARGIN, RULER_HEIGHT, self._span(), self.height() - RULER_HEIGHT - 2)

    # --- painting -------------------------------------------------------------------------------

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        track = self._track()
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(palette.base())
        painter.drawRoundedRect(track, 3, 3)
        if self.clip is None:
            return
        self._paint_ruler(painter, track)
        self._paint_ticks(painter, track)
        self._paint_events(painter, track)
        self._paint_playhead(painter)

    def _paint_ruler(self, painter: QPainter, track: QRectF) -> None:
        clip = self.clip
        step = ruler_step(clip.duration, track.width())
        first = math.ceil(clip.start / step - 1e-9)
        last = math.floor((clip.start + clip.duration) / step + 1e-9)
        decimals = max(0, -math.floor(math.log10(step) + 1e-9))
        painter.setPen(self.palette().placeholderText().color())
        font = painter.font()
        font.setPointSizeF(font.pointSizeF() * 0.85)
        painter.setFont(font)
        metrics = painter.fontMetrics()
        for index in range(first, last + 1):
            time = index * step
            x = self.x_of(time)
            painter.drawLine(QLineF(x, RULER_HEIGHT - RULER_TICK, x, RULER_HEIGHT))
            text = f"{time:.{decimals}f}"
            width = metrics.horizontalAdvance(text)
            # Centred on its tick, but pushed inside the widget at either end.
            left = min(max(x - width / 2, 0), self.width() - width)
            label = QRectF(left, 0, width, RULER_HEIGHT - RULER_TICK - 1)
            painter.drawText(label, Qt.AlignmentFlag.AlignBottom, text)

    def _paint_ticks(self, painter: QPainter, track: QRectF) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.setPen(self.palette().text().color())
        top, bottom = track.center().y(), track.bottom() - 3
        painter.drawLines([QLineF(x, top, x, bottom) for x in self.tick_positions().tolist()])
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)

    def _paint_events(self, painter: QPainter, track: QRectF) -> None:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(EVENT_COLOR)
        top = track.top() + 1
        for x, _ in self.event_marks():
            corners = [QPointF(x - EVENT_HALF_WIDTH, top), QPointF(x + EVENT_HALF_WIDTH, top),
                       QPointF(x, top + 2 * EVENT_HALF_WIDTH)]
            painter.drawPolygon(QPolygonF(corners))

    def _paint_playhead(self, painter: QPainter) -> None:
        x = self.x_of(self.time)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(PLAYHEAD_COLOR)
        painter.drawRect(QRectF(x - 1, RULER_HEIGHT - 2, 2, self.height() - RULER_HEIGHT))
        painter.drawRoundedRect(QRectF(x - SIDE_MARGIN + 2, 1, 2 * SIDE_MARGIN - 4, RULER_HEIGHT - 3), 2, 2)

    # --- mouse ----------------------------------------------------------------------------------

    def mousePressEvent(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton or self.clip is None:
            return super().mousePressEvent(event)
        self._dragging = True
        self.scrub_started.emit()
        self.scrubbed.emit(self.time_at(event.position().x()))

    def mouseMoveEvent(self, event) -> None:
        if self._dragging:
            self.scrubbed.emit(self.time_at(event.position().x()))

    def mouseReleaseEvent(self, event) -> None:
        if self._dragging and event.button() == Qt.MouseButton.LeftButton:
            self._dragging = False
            self.scrub_finished.emit()

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            self._show_event_tooltip(event)
            return True
        return super().event(event)

    def _show_event_tooltip(self, event) -> None:
        """Name the events under the mouse (their times too), or hide the tooltip."""
        x = event.pos().x()
        names = [f"{name}  ({time:.3f} s)" for time, name in (self.clip.events if self.clip else [])
                 if abs(self.x_of(time) - x) <= EVENT_HALF_WIDTH + 1]
        if names:
            QToolTip.showText(event.globalPos(), "\n".join(names), self)
        else:
            QToolTip.hideText()
