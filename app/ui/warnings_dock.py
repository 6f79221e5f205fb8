"""The Warnings dock: every warning the readers gave for the model on screen, with its files."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QLabel, QListWidget, QVBoxLayout, QWidget

from app.model import Model


class WarningsDock(QDockWidget):
    """Lists a model's warnings in full (one row each, wrapped): the readers' and any met while
    drawing it; the title counts them."""

    def __init__(self, parent=None):
        super().__init__("Warnings", parent)
        self.setObjectName("warnings")
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        self.files_label = QLabel(body)
        self.files_label.setWordWrap(True)
        self.files_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.list = QListWidget(body)
        self.list.setWordWrap(True)
        self.list.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        layout.addWidget(self.files_label)
        layout.addWidget(self.list)
        self.setWidget(body)
        self.files = ""

    def bind(self, model: Model, warnings: list[str]) -> None:
        """Show ``warnings``, the warnings of ``model``."""
        self.files = ", ".join(str(Path(f)) for f in model.files) or model.name
        self.list.clear()
        self.list.addItems(warnings)
        self._count_changed()

    def _count_changed(self) -> None:
        count = self.list.count()
        self.files_label.setText(f"{self.files}: {count} warning(s)" if count
                                 else f"{self.files}: no warnings")
        self.setWindowTitle(f"Warnings ({count})" if count else "Warnings")
        self.toggleViewAction().setText("Warnings")
