"""The Ragdoll dock as wide as its tables' columns, where the window has room (issue 38: at the
default 1280×800 the 430-pixel dock showed the Parts table's ten columns only by scrolling sideways).

When the window is resized, a table is laid out anew and the profile's tables are refilled, the
dock widens to what its widest table needs (``fitting_width``), leaving the view at least
MIN_VIEW_SHARE of the window's width; when the window is resized, a dock wider than that leaves
narrows to it (Qt takes a smaller window's width from the view alone: at 900×640 it was left 326
pixels).
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow, QTableWidget

#: The share of the window's width the view keeps however wide the dock's tables want it.
MIN_VIEW_SHARE = 0.5
#: Pixels to spare: a column's width moves a pixel or two with the rows in view.
SLACK = 4


def columns_width(table: QTableWidget) -> int:
    """Pixels ``table``'s columns need side by side, none cut: each the wider of its header and its
    contents."""
    header = table.horizontalHeader()
    return sum(max(table.sizeHintForColumn(column), header.sectionSizeHint(column))
               for column in range(table.columnCount()))


def fitting_width(dock: QDockWidget, tables: list[QTableWidget]) -> int | None:
    """The dock's width at which every column of ``tables`` is in view without scrolling sideways, a
    vertical scroll bar beside them; None while none of them shows. A hidden tab's table keeps the
    width it last had, so what the dock spends around a table is measured on the one that shows
    (the tabs' pages are equally wide)."""
    shown = [table for table in tables if table.isVisible()]
    if not shown:
        return None
    around = dock.width() - shown[0].viewport().width() - _vertical_bar(shown[0])
    bar = shown[0].verticalScrollBar().sizeHint().width()
    return around + bar + max(columns_width(table) for table in tables) + SLACK


def _vertical_bar(table: QTableWidget) -> int:
    """The width of ``table``'s vertical scroll bar where it shows (the viewport leaves it room)."""
    bar = table.verticalScrollBar()
    return bar.width() if bar.isVisible() else 0


class DockFit(QObject):
    """Widens ``dock`` (in ``window``) to show every column of ``tables`` when the window is resized or
    ``refit`` is called (the tables were refilled)."""

    def __init__(self, window: QMainWindow, dock: QDockWidget, tables: list[QTableWidget]):
        super().__init__(dock)
        self.window = window
        self.dock = dock
        self.tables = tables
        window.installEventFilter(self)
        for table in tables:  # a table laid out anew (its tab shown, its scroll bar come or gone)
            table.viewport().installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.refit(narrow=watched is self.window)
        return False

    def refit(self, narrow: bool = False) -> None:
        """Widen the dock (``narrow``: or narrow it to leave the view its share) once the window's
        layout has settled (after the pending events)."""
        QTimer.singleShot(0, self, lambda: self._fit(narrow))

    def _fit(self, narrow: bool) -> None:
        if self.dock.isFloating() or not self.dock.isVisible():
            return
        width = self.dock.width()
        view = self.window.centralWidget().width()
        room = width + view - math.ceil(self.window.width() * MIN_VIEW_SHARE)
        fitting = fitting_width(self.dock, self.tables)
        if fitting is None:
            return
        wanted = min(fitting, room)
        if wanted > width or (narrow and width > room):
            target = wanted if wanted > width else room
            self.window.resizeDocks([self.dock], [target], Qt.Orientation.Horizontal)
