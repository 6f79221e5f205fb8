"""File › Open Archive…: an NWN archive's models in a searchable list (name, kind, size); the one chosen
opens as ``ARCHIVE:RESREF`` through the window's usual load. The archive is listed off the window's
thread (a KEY's BIFs can hold thousands of models)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QLineEdit, QTreeView, QVBoxLayout, QWidget

from app.errors import InputError
from app.state.archive_models import SUFFIXES, ArchiveModel, archive_models, matching, size_text
from app.ui.loader import BackgroundLoader

#: The file dialog's filter for archives.
ARCHIVE_FILTER = (f"Neverwinter Nights archives ({' '.join(f'*{suffix}' for suffix in SUFFIXES)})"
                  ";;All files (*)")
COLUMNS = ("Model", "Kind", "Size")
#: How each column sorts: by name, kind then name, size in bytes.
SORT_KEYS = (lambda model: model.name, lambda model: (model.kind, model.name), lambda model: model.size)


class ModelsTable(QAbstractTableModel):
    """The archive's models that match the search (``shown``), sorted as the header says. Filtering
    and sorting are list operations, not per-row widgets: a game KEY holds thousands of models."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.models: list[ArchiveModel] = []
        self.shown: list[ArchiveModel] = []
        self.search = ""
        self.order = (0, Qt.SortOrder.AscendingOrder)

    def set_models(self, models: list[ArchiveModel]) -> None:
        self.models = models
        self._refresh()

    def set_search(self, text: str) -> None:
        self.search = text
        self._refresh()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.order = (column, order)
        self._refresh()

    def _refresh(self) -> None:
        self.beginResetModel()
        column, order = self.order
        self.shown = sorted(matching(self.models, self.search), key=SORT_KEYS[column],
                            reverse=order == Qt.SortOrder.DescendingOrder)
        self.endResetModel()

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.shown)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        model = self.shown[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return (model.name, model.kind, size_text(model.size))[index.column()]
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == 2:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            return model.path
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None


class ArchiveDialog(QDialog):
    """Lists the models of the archive at ``path``; ``chosen`` is the path to open (``ARCHIVE:RESREF``)
    once the dialog is accepted, else None."""

    def __init__(self, path: str | Path, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(f"Open from {Path(path).name}")
        self.resize(520, 480)
        self.chosen: str | None = None
        self.status = QLabel(f"Reading {Path(path).name}…")
        self.status.setWordWrap(True)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search names and kinds")
        self.search.setClearButtonEnabled(True)
        self.table = ModelsTable(self)
        self.list = QTreeView()
        self.list.setModel(self.table)
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.setSortingEnabled(True)
        self.list.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.list.doubleClicked.connect(lambda _index: self.accept())
        self.table.modelReset.connect(self._first_current)
        self.list.selectionModel().currentChanged.connect(lambda *_: self._enable_open())
        self.search.textChanged.connect(self.table.set_search)
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
        self.status.setText(f"{len(models)} model{'' if len(models) == 1 else 's'}" if models
                            else "This archive holds no models.")
        self.table.set_models(models)
        metrics = self.list.fontMetrics()
        for column, texts in enumerate(([model.name for model in models], [model.kind for model in models])):
            # The longest text measured, not resizeColumnToContents: that measures every row.
            longest = max(texts, key=len, default="")
            self.list.header().resizeSection(column, max(metrics.horizontalAdvance(longest) + 24, 80))
        self.search.setFocus()

    def show_error(self, error: Exception) -> None:
        unexpected = f"Unexpected {type(error).__name__}: {error}"
        message = str(error) if isinstance(error, InputError) else unexpected
        self.status.setText(f"Cannot list the archive: {message}")

    def _first_current(self) -> None:
        """After a search or a sort the first row shown is the current one."""
        if self.table.shown:
            self.list.setCurrentIndex(self.table.index(0, 0))
        self._enable_open()

    def _current(self) -> ArchiveModel | None:
        index = self.list.currentIndex()
        shown = self.table.shown
        return shown[index.row()] if index.isValid() and index.row() < len(shown) else None

    def _enable_open(self) -> None:
        self.buttons.button(QDialogButtonBox.StandardButton.Open).setEnabled(self._current() is not None)

    def accept(self) -> None:
        current = self._current()
        if current is None:
            return
        self.chosen = current.path
        super().accept()

    def reject(self) -> None:
        self.loader.cancel()
        super().reject()
