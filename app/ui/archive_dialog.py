"""File › Open Archive…: an NWN archive's models in a searchable list (name, kind, size); the one chosen
opens as ``ARCHIVE:RESREF`` through the window's usual load. The archive is listed off the window's
thread (a KEY's BIFs can hold thousands of models)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.errors import InputError
from app.state.archive_models import SUFFIXES, ArchiveModel, archive_models, matching, size_text
from app.ui.loader import BackgroundLoader

#: The file dialog's filter for archives.
ARCHIVE_FILTER = (f"Neverwinter Nights archives ({' '.join(f'*{suffix}' for suffix in SUFFIXES)})"
                  ";;All files (*)")


class _Row(QTreeWidgetItem):
    """A model's row; the size column sorts by bytes, not by its text."""

    def __lt__(self, other: QTreeWidgetItem) -> bool:
        column = self.treeWidget().sortColumn() if self.treeWidget() is not None else 0
        if column == 2:
            return self.data(2, Qt.ItemDataRole.UserRole) < other.data(2, Qt.ItemDataRole.UserRole)
        return self.text(column).lower() < other.text(column).lower()  # Qt's own calls back into this


class ArchiveDialog(QDialog):
    """Lists the models of the archive at ``path``; ``chosen`` is the path to open (``ARCHIVE:RESREF``)
    once the dialog is accepted, else None."""

    def __init__(self, path: str | Path, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(f"Open from {Path(path).name}")
        self.resize(520, 480)
        self.models: list[ArchiveModel] = []
        self.chosen: str | None = None
        self.status = QLabel(f"Reading {Path(path).name}…")
        self.status.setWordWrap(True)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search names and kinds")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.show_matching)
        self.list = QTreeWidget()
        self.list.setHeaderLabels(["Model", "Kind", "Size"])
        self.list.setRootIsDecorated(False)
        self.list.setSortingEnabled(True)
        self.list.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.list.itemDoubleClicked.connect(lambda _item, _column: self.accept())
        self.list.currentItemChanged.connect(lambda *_: self._enable_open())
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Open
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (self.status, self.search, self.list, self.buttons):
            layout.addWidget(widget)
        self._enable_open()
        self.loader = BackgroundLoader(self)
        self.loader.loaded.connect(lambda models, _request: self.show_models(models))
        self.loader.failed.connect(lambda error, _request: self.show_error(error))
        self.loader.start(lambda: archive_models(path))

    def show_models(self, models: list[ArchiveModel]) -> None:
        self.models = models
        self.status.setText(f"{len(models)} model{'' if len(models) == 1 else 's'}" if models
                            else "This archive holds no models.")
        self.list.setSortingEnabled(False)
        for model in models:
            item = _Row([model.name, model.kind, size_text(model.size)])
            item.setData(0, Qt.ItemDataRole.UserRole, model.path)
            item.setData(2, Qt.ItemDataRole.UserRole, model.size)
            item.setTextAlignment(2, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.list.addTopLevelItem(item)
        self.list.setSortingEnabled(True)
        for column in range(2):
            self.list.resizeColumnToContents(column)
        self.show_matching(self.search.text())
        self.search.setFocus()

    def show_error(self, error: Exception) -> None:
        unexpected = f"Unexpected {type(error).__name__}: {error}"
        message = str(error) if isinstance(error, InputError) else unexpected
        self.status.setText(f"Cannot list the archive: {message}")

    def show_matching(self, text: str) -> None:
        """Only the models whose name or kind holds every word typed; the first shown is current."""
        shown = {model.path for model in matching(self.models, text)}
        first = None
        for row in range(self.list.topLevelItemCount()):
            item = self.list.topLevelItem(row)
            hidden = item.data(0, Qt.ItemDataRole.UserRole) not in shown
            item.setHidden(hidden)
            if first is None and not hidden:
                first = item
        current = self.list.currentItem()
        if current is None or current.isHidden():
            self.list.setCurrentItem(first)
        self._enable_open()

    def _enable_open(self) -> None:
        current = self.list.currentItem()
        self.buttons.button(QDialogButtonBox.StandardButton.Open).setEnabled(
            current is not None and not current.isHidden())

    def accept(self) -> None:
        current = self.list.currentItem()
        if current is None or current.isHidden():
            return
        self.chosen = current.data(0, Qt.ItemDataRole.UserRole)
        super().accept()

    def reject(self) -> None:
        self.loader.cancel()
        super().reject()
