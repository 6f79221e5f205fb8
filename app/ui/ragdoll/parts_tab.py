"""The ragdoll panel's Parts tab: one row per part (bone, shape, size, offset, mass), edited in place,
with Add Part and Remove Part. A view of ``RagdollDocument``: a finished cell edit goes to the
document, and the table is refilled from the profile it then shows."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt, QTimer
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QStyledItemDelegate, QTableWidgetItem, QWidget)

from app.physics.profile import SHAPES
from app.state.ragdoll.document import RagdollDocument
from app.ui.ragdoll.widgets import (OFFSET_REACH, cell_text, choose, length_step, number_text,
                                    offset_cell_text, row_table, rows_height, show_selected_row, spin,
                                    warn_on_error, with_buttons)
from app.pose import rest_extent

#: Short headers, so every column fits the dock at the default window size (issue 38); what each
#: holds, with its unit, is its header's tool tip (COLUMN_TIPS).
PART_COLUMNS = ("Part", "Bone", "Shape", "SX", "SY", "SZ", "OX", "OY", "OZ", "kg")
NAME, BONE, SHAPE, SIZE_X, SIZE_Y, SIZE_Z, OFFSET_X, OFFSET_Y, OFFSET_Z, MASS = range(len(PART_COLUMNS))
COLUMN_TIPS = ("The part's name", "The bone the part follows", "Box, or the capsule inside the box",
               *(f"Size along {axis}: the box's edge (model units)" for axis in "XYZ"),
               *(f"Offset along {axis} from the bone's middle (model units)" for axis in "XYZ"),
               "Mass (kg)")
#: Item data role holding a cell's number.
VALUE_ROLE = Qt.ItemDataRole.UserRole


def _cell_text(column: int, value) -> str:
    """What the cell of ``column`` shows for ``value`` (its tool tip and editor keep the exact value)."""
    if isinstance(value, str):
        return value
    return offset_cell_text(value) if OFFSET_X <= column <= OFFSET_Z else cell_text(value)


class _PartDelegate(QStyledItemDelegate):
    """Editors for the parts table: a bone list for the bone, a shape list, spin boxes for the numbers; a
    finished edit goes to the document, not into the item (the table is refilled from the profile)."""

    def __init__(self, tab: PartsTab):
        super().__init__(tab)
        self.tab = tab

    def createEditor(self, parent, option, index):
        model = self.tab.document.model
        if index.column() == BONE:
            combo = QComboBox(parent)
            combo.addItems(list(model.skeleton.names))
            return combo
        if index.column() == SHAPE:
            combo = QComboBox(parent)
            combo.addItems(list(SHAPES))
            return combo
        if index.column() == MASS:
            return spin(parent, 0.001, 1e6, 0.1, 3)
        step, decimals = length_step(rest_extent(model))
        reach = OFFSET_REACH * rest_extent(model)
        low = 10.0 ** -decimals if index.column() <= SIZE_Z else -reach
        return spin(parent, low, reach, step, decimals)

    def setEditorData(self, editor, index) -> None:
        value = index.data(VALUE_ROLE)
        if isinstance(editor, QComboBox):
            editor.setCurrentText(str(value))
        else:
            editor.setValue(float(value))

    def setModelData(self, editor, model, index) -> None:
        """The edit goes to the document once the view has closed the editor: refilling the table
        while the view still holds it made Qt warn that commitData came from a foreign editor."""
        value = editor.currentText() if isinstance(editor, QComboBox) else editor.value()
        row, column = index.row(), index.column()
        QTimer.singleShot(0, self.tab, lambda: self.tab.edit_cell(row, column, value))


class PartsTab(QWidget):
    """``attempt(edit, refresh)`` runs an edit and shows its error (the profile box's)."""

    def __init__(self, document: RagdollDocument, attempt, parent=None):
        super().__init__(parent)
        self.document = document
        self.attempt = attempt
        triggers = (QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed
                    | QAbstractItemView.EditTrigger.AnyKeyPressed)
        self.table = table = row_table(PART_COLUMNS, triggers, self._row_selected, COLUMN_TIPS)
        table.setItemDelegate(_PartDelegate(self))
        table.setMinimumHeight(rows_height(table))
        with_buttons(self, table, ("Add Part…", self.add_part_dialog), ("Remove Part", self.remove_part))
        document.events.subscribe("profile", self._fill)
        document.events.subscribe("selection", self._show_selection)
        self._fill()

    def _fill(self, _why: str = "") -> None:
        table = self.table
        profile = self.document.profile
        parts = profile.parts if profile is not None else []
        with QSignalBlocker(table):
            table.setRowCount(len(parts))
            for row, part in enumerate(parts):
                values = [part.name, part.bone, part.shape, *part.size, *part.offset, part.mass]
                for column, value in enumerate(values):
                    item = table.item(row, column)
                    if item is None:
                        item = QTableWidgetItem()
                        flags = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
                        if column != NAME:
                            flags |= Qt.ItemFlag.ItemIsEditable
                        item.setFlags(flags)
                        if column >= SIZE_X:
                            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                        table.setItem(row, column, item)
                    item.setData(VALUE_ROLE, value)
                    item.setText(_cell_text(column, value))
                    item.setToolTip(value if isinstance(value, str) else number_text(value))
        self.setEnabled(profile is not None)
        self._show_selection()

    def _show_selection(self) -> None:
        show_selected_row(self.table, self.document.selected_part)

    def _row_selected(self) -> None:
        rows = {index.row() for index in self.table.selectedIndexes()}
        self.document.select_part(min(rows) if rows else None)

    def edit_cell(self, row: int, column: int, value) -> bool:
        """Apply an edit of the table's cell (what the cell editors call)."""
        part = self.document.profile.parts[row]
        if column == BONE:
            changes = {"bone": str(value)}
        elif column == SHAPE:
            changes = {"shape": str(value)}
        elif SIZE_X <= column <= SIZE_Z:
            size = list(part.size)
            size[column - SIZE_X] = float(value)
            changes = {"size": tuple(size)}
        elif OFFSET_X <= column <= OFFSET_Z:
            offset = list(part.offset)
            offset[column - OFFSET_X] = float(value)
            changes = {"offset": tuple(offset)}
        elif column == MASS:
            changes = {"mass": float(value)}
        else:
            return False
        return self.attempt(lambda: self.document.edit_part(part.name, **changes), self._fill)

    def add_part_dialog(self) -> bool:
        document = self.document
        taken = {part.bone for part in document.profile.parts}
        bones = [b for b in document.model.skeleton.names if b not in taken]
        bone = choose(self, "Add part", "Bone:", bones)
        return bone is not None and warn_on_error(self, "Add part", lambda: document.add_part(bone))

    def remove_part(self) -> bool:
        index = self.document.selected_part
        if index is None:
            return False
        name = self.document.profile.parts[index].name
        return warn_on_error(self, "Remove part", lambda: self.document.remove_part(name))

