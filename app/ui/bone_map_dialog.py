"""File › Attach Clips of Another Skeleton… (and Attach Animation with files of another skeleton):
the bone map from the other model's skeleton to this one, then the other model's clips carried onto
this one. The table starts from the map remembered for this pair of models, else the suggestion
(``retarget.suggested_map``: names, the hierarchy, or where numbered loose bones rest) with how sure
each row is; each row picks its bone from a searchable list in hierarchy order. Beside the table the
two skeletons are drawn at rest, the selected row's pair highlighted (ui/skeleton_pair.py). Load Map…
and Save Map… read and write the ``--map`` JSON; OK remembers the map in the user's data folder
(``bone_maps.remember_map``), never beside the model."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.animation.bone_maps import confidence, read_map, remember_map, remembered_map, save_map, usable_part
from app.animation.retarget import suggested_map
from app.bone_tree import tree_order
from app.errors import InputError
from app.model import Model
from app.state.viewer import ViewerState
from app.ui.skeleton_pair import SkeletonPairView

NONE = "(none: keeps its rest pose)"
SOURCE, TARGET, MATCH = range(3)
#: The colour of each confidence in the Match column.
MATCH_COLOURS = {"same name": "#2e8b57", "name": "#3c9d5d", "hierarchy or placement": "#c08000",
                 "remembered": "#4a78c0", "loaded": "#4a78c0", "chosen": "#808080"}
JSON_FILTER = "Bone maps (*.json);;All files (*)"


class BoneMapDialog(QDialog):
    def __init__(self, source: Model, state: ViewerState, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Bone Map")
        self.source, self.state, self.target = source, state, state.model
        self.table = QTableWidget(len(source.skeleton.names), 3, self)
        self.table.setHorizontalHeaderLabels([f"{source.name} bone", f"{self.target.name} bone", "Match"])
        self.choices = [self._picker(row, name) for row, name in enumerate(source.skeleton.names)]
        self.skeletons = SkeletonPairView(source, self.target, self)
        remembered = remembered_map(source, self.target)
        if remembered:
            self.show_map(remembered, "remembered")
        else:
            suggestion = suggested_map(source, self.target)
            self.show_map(suggestion, None)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(SOURCE, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(TARGET, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(MATCH, QHeaderView.ResizeMode.ResizeToContents)
        self.table.currentCellChanged.connect(lambda *_: self._show_pairs())
        layout = QVBoxLayout(self)
        explanation = QLabel(f"Play the clips of {source.name} on {self.target.name}: pair the bones "
                             "(suggested from names, the hierarchy or where numbered bones rest; type in "
                             "a bone box to search). The selected row's pair is drawn in pink.", self)
        explanation.setWordWrap(True)
        layout.addWidget(explanation)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.table)
        split.addWidget(self.skeletons)
        split.setSizes([560, 420])
        layout.addWidget(split, 1)
        layout.addWidget(self._buttons())
        self.resize(1000, 560)

    def _picker(self, row: int, name: str) -> QComboBox:
        """Row ``row``: the source bone, and a searchable list of the target's bones in hierarchy
        order (indented by depth), each item holding its bone index."""
        self.table.setItem(row, SOURCE, QTableWidgetItem(name))
        self.table.setItem(row, MATCH, QTableWidgetItem(""))
        choice = QComboBox(self.table)
        choice.setEditable(True)
        choice.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        choice.addItem(NONE, None)
        names = self.target.skeleton.names
        order, depths = tree_order(self.target.skeleton.parents)
        for bone in order:
            choice.addItem("  " * int(depths[bone]) + names[bone], int(bone))
        completer = QCompleter(choice.model(), choice)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        choice.setCompleter(completer)
        choice.currentIndexChanged.connect(lambda _index, r=row: self._chosen(r))
        self.table.setCellWidget(row, TARGET, choice)
        return choice

    def _buttons(self) -> QDialogButtonBox:
        standard = QDialogButtonBox.StandardButton
        buttons = QDialogButtonBox(standard.Ok | standard.Cancel)
        load = QPushButton("&Load Map…", self)
        save = QPushButton("&Save Map…", self)
        buttons.addButton(load, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(save, QDialogButtonBox.ButtonRole.ActionRole)
        load.clicked.connect(self.load_dialog)
        save.clicked.connect(self.save_dialog)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        return buttons

    def show_map(self, mapping: dict[str, str], origin: str | None) -> None:
        """Set every row from ``mapping`` (rows it lacks: none); the Match column says ``origin``
        ('remembered', 'loaded') or, for a suggestion (None), how sure each pair is."""
        names = self.target.skeleton.names
        for row, name in enumerate(self.source.skeleton.names):
            choice = self.choices[row]
            choice.blockSignals(True)
            target = mapping.get(name)
            choice.setCurrentIndex(choice.findData(names.index(target)) if target in names else 0)
            choice.blockSignals(False)
            if target in names:
                self._show_match(row, origin or confidence(name, target))
            else:
                self._show_match(row, "")
        self._show_pairs()

    def _chosen(self, row: int) -> None:
        """The user picked row ``row``'s bone: it is selected, so the picture shows the new pair."""
        self._show_match(row, "chosen")
        if self.table.currentRow() != row:
            self.table.setCurrentCell(row, TARGET)
        else:
            self._show_pairs()

    def _show_pairs(self) -> None:
        """The picture follows the rows: every pair made, the selected row's highlighted."""
        pairs = [(row, choice.currentData()) for row, choice in enumerate(self.choices)
                 if choice.currentData() is not None]
        row = self.table.currentRow()
        selected = (row, self.choices[row].currentData()) if 0 <= row < len(self.choices) else (None, None)
        self.skeletons.set_pairs(pairs, selected)

    def _show_match(self, row: int, match: str) -> None:
        item = self.table.item(row, MATCH)
        item.setText(match)
        item.setForeground(QColor(MATCH_COLOURS.get(match, "#808080")))

    def mapping(self) -> dict[str, str]:
        names = self.target.skeleton.names
        pairs = zip(self.source.skeleton.names, self.choices)
        return {name: names[choice.currentData()] for name, choice in pairs
                if choice.currentData() is not None}

    def load_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Load a bone map", "", JSON_FILTER)
        if path:
            self.load_map(path)

    def load_map(self, path: str) -> None:
        """The map in ``path`` (the ``--map`` JSON) shown in the rows; a file that cannot be read is
        explained (file, line) and the rows stay; pairs naming bones these skeletons lack are named."""
        try:
            loaded = read_map(path)
        except InputError as error:
            QMessageBox.warning(self, "Load Map", str(error))
            return
        usable = usable_part(loaded, self.source, self.target)
        self.show_map(usable, "loaded")
        skipped = [source for source in loaded if source not in usable]
        if skipped:
            QMessageBox.information(self, "Load Map", f"{len(skipped)} pair(s) name bones these skeletons do "
                                    f"not have and were left out: {', '.join(skipped[:5])}")

    def save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save the bone map", f"{self.source.name}.bonemap.json",
                                              JSON_FILTER)
        if path:
            try:
                save_map(path, self.mapping())
            except OSError as error:
                QMessageBox.warning(self, "Save Map", f"The map could not be saved to {path}: {error}")

    def accept(self) -> None:
        """Carry the clips over and remember the map for this pair of models (the user's data
        folder); a map that cannot be used is explained (naming the bone) and the dialog stays open."""
        mapping = self.mapping()
        try:
            self.state.add_clips_from(self.source, mapping)
        except ValueError as error:
            QMessageBox.warning(self, "Bone Map", str(error))
            return
        try:
            remember_map(self.source, self.target, mapping)
        except OSError as error:
            QMessageBox.warning(self, "Bone Map", f"The map could not be remembered: {error}")
        super().accept()
