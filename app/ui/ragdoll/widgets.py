"""Small pieces shared by the ragdoll panel's parts: number boxes, length steps, button rows."""

from __future__ import annotations

import math

from PySide6.QtCore import QItemSelectionModel, QSignalBlocker, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QDoubleSpinBox, QHBoxLayout, QHeaderView, QInputDialog,
                               QMessageBox, QPushButton, QTableWidget, QToolButton, QVBoxLayout, QWidget)

#: Offsets and sizes may reach this many times the model's size.
OFFSET_REACH = 10.0
#: An offset nearer zero than this (model units: half a millimetre in metres) shows as 0 in its cell.
OFFSET_SHOWN_AS_ZERO = 0.0005


def number_text(value: float) -> str:
    return f"{value:.4g}"


def cell_text(value: float) -> str:
    """A number as a table cell shows it: three significant digits, so the columns stay narrow (the
    cell's tool tip and its editor give more)."""
    return f"{value:.3g}"


def offset_cell_text(value: float) -> str:
    """An offset as its cell shows it: ``cell_text``, but 0 for one under half a millimetre, as the
    automatic setup leaves them (``-6.1e-05`` would widen its column for a distance nobody sees)."""
    return "0" if abs(value) < OFFSET_SHOWN_AS_ZERO else cell_text(value)


def length_step(extent: float) -> tuple[float, int]:
    """(single step, decimals) for length spin boxes on a model of size ``extent``: about a
    hundredth of it, rounded to 1, 2 or 5 × 10^k, with decimals to show three digits of the step."""
    raw = max(extent, 1e-9) / 100.0
    power = 10.0 ** math.floor(math.log10(raw))
    step = power * min((1.0, 2.0, 5.0), key=lambda s: abs(math.log(raw / (power * s))))
    return step, max(0, 2 - int(math.floor(math.log10(step)))) + 1


def spin(parent, low: float, high: float, step: float, decimals: int, suffix: str = "",
         tip: str = "") -> QDoubleSpinBox:
    box = QDoubleSpinBox(parent)
    box.setRange(low, high)
    box.setDecimals(decimals)
    box.setSingleStep(step)
    box.setKeyboardTracking(False)
    box.setAlignment(Qt.AlignmentFlag.AlignRight)
    if suffix:
        box.setSuffix(suffix)
    if tip:
        box.setToolTip(tip)
    return box


def set_value(box, value) -> None:
    """Show ``value`` without echoing it back to the state."""
    with QSignalBlocker(box):
        box.setValue(value)


def tool_button(parent, action: QAction) -> QToolButton:
    button = QToolButton(parent)
    button.setDefaultAction(action)
    button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
    return button


def with_buttons(holder: QWidget, widget: QWidget, *buttons) -> list[QPushButton]:
    """Lay ``widget`` out in ``holder`` above a row of (label, slot) push buttons; the buttons."""
    layout = QVBoxLayout(holder)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(widget, stretch=1)
    row = QHBoxLayout()
    made = []
    for label, slot in buttons:
        button = QPushButton(label, holder)
        button.clicked.connect(lambda _=False, f=slot: f())
        row.addWidget(button)
        made.append(button)
    layout.addLayout(row)
    return made


def make_action(owner, text: str, shortcut: str | list | None, slot, checkable: bool = False,
                tip: str = "") -> QAction:
    """A window-wide action of ``owner`` (its tool tip names the shortcut)."""
    action = QAction(text, owner)
    if shortcut:
        keys = shortcut if isinstance(shortcut, list) else [shortcut]
        action.setShortcuts([QKeySequence(key) for key in keys])
        tip = f"{tip or text} ({action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)})"
    action.setToolTip(tip or text)
    action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    action.setCheckable(checkable)
    (action.toggled if checkable else action.triggered).connect(slot)
    owner.addAction(action)
    return action


def choose(parent, title: str, label: str, items: list[str]) -> str | None:
    """One of ``items`` picked in a dialog, or None (cancelled, or nothing to pick)."""
    if not items:
        return None
    item, ok = QInputDialog.getItem(parent, title, label, items, 0, False)
    return item if ok else None


def choose_two_parts(parent, names: list[str], title: str, first_label: str,
                     second_label: str) -> tuple[str | None, str | None]:
    """Two different parts picked one after the other (None where the user cancelled)."""
    first = choose(parent, title, first_label, names)
    second = choose(parent, title, second_label, [n for n in names if n != first]) if first else None
    return first, second


def warn_on_error(parent, title: str, edit) -> bool:
    """Run an edit; its ``ValueError`` or ``KeyError`` in a warning box."""
    try:
        edit()
    except (ValueError, KeyError) as error:
        QMessageBox.warning(parent, title, str(error))
        return False
    return True


def row_table(columns: tuple[str, ...], edit_triggers, on_select, tips: tuple[str, ...] = ()) -> QTableWidget:
    """A profile table: ``columns`` headed (``tips``: each header's tool tip), one whole row selected
    at a time (``on_select`` is told), no row numbers, columns as wide as their contents."""
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(columns)
    for column, tip in enumerate(tips):
        table.horizontalHeaderItem(column).setToolTip(tip)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(edit_triggers)
    table.verticalHeader().hide()
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.itemSelectionChanged.connect(on_select)
    return table


#: Rows a profile table keeps in view however small the window (issue 38: at 900×640 none showed).
VISIBLE_ROWS = 4


def rows_height(table: QTableWidget, rows: int = VISIBLE_ROWS) -> int:
    """Pixels ``table`` needs to show its header, ``rows`` rows and its horizontal scroll bar."""
    return (table.horizontalHeader().sizeHint().height() + rows * table.verticalHeader().defaultSectionSize()
            + table.horizontalScrollBar().sizeHint().height() + 2 * table.frameWidth())


def show_selected_row(table, row: int | None) -> None:
    """Select ``row`` of a profile table (scrolled into view), or nothing, without signalling. The
    current cell keeps its column, and the table scrolls only up or down: the cell the user clicked
    stays current and under the pointer."""
    with QSignalBlocker(table):
        if row is None:
            table.clearSelection()
            return
        sideways = table.horizontalScrollBar().value()
        current = table.model().index(row, max(table.currentColumn(), 0))
        table.selectionModel().setCurrentIndex(current, QItemSelectionModel.SelectionFlag.ClearAndSelect
                                               | QItemSelectionModel.SelectionFlag.Rows)
        table.scrollToItem(table.item(row, 0))
        table.horizontalScrollBar().setValue(sideways)
