"""Help › Shortcuts: every action that has a key, grouped by menu, plus the mouse bindings."""

from __future__ import annotations

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTableWidget, QTableWidgetItem, QVBoxLayout

MOUSE = [("Viewport", "Orbit", "Left drag"), ("Viewport", "Pan", "Middle drag or Shift + left drag"),
         ("Viewport", "Zoom toward the cursor", "Wheel"), ("Viewport", "Select a bone", "Left click on it"),
         ("Ragdoll", "Select a part (panel shown, not running)", "Left click on its box"),
         ("Ragdoll", "Shoot a part (running, Shoot Tool)", "Left click on it"),
         ("Ragdoll", "Drag a part on a spring (running)",
          "Ctrl + left drag, or left drag with the Drag Tool")]


def shortcut_rows(menu_bar) -> list[tuple[str, str, str]]:
    """(menu, action, keys) for every menu action with a shortcut, in menu order."""
    rows = []
    for menu_action in menu_bar.actions():
        menu = menu_action.menu()
        if menu is None:
            continue
        pending = list(menu.actions())
        while pending:
            action = pending.pop(0)
            if action.menu() is not None:
                pending = list(action.menu().actions()) + pending
                continue
            keys = [key.toString(QKeySequence.SequenceFormat.NativeText) for key in action.shortcuts()]
            if keys:
                rows.append((menu.title().replace("&", ""), action.text().replace("&", ""), ", ".join(keys)))
    return rows


class ShortcutsDialog(QDialog):
    def __init__(self, menu_bar, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Keyboard and Mouse Shortcuts")
        rows = shortcut_rows(menu_bar) + MOUSE
        self.table = QTableWidget(len(rows), 3, self)
        self.table.setHorizontalHeaderLabels(["Menu", "Action", "Keys"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for row, values in enumerate(rows):
            for column, value in enumerate(values):
                self.table.setItem(row, column, QTableWidgetItem(value))
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(520, 560)
