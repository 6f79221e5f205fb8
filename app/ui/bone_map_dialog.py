"""File › Attach Clips of Another Skeleton…: the bone map from the other model's skeleton to this
one, suggested (``retarget.suggested_map``: names, the hierarchy, or where numbered loose bones rest)
or as saved beside the model last time (app/animation/bone_maps.py), edited in a table, saved beside
the model, then the other model's clips are carried onto this one."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.animation.bone_maps import save_map, saved_map_path, starting_map
from app.model import Model
from app.state.viewer import ViewerState

NONE = "(none: keeps its rest pose)"


class BoneMapDialog(QDialog):
    def __init__(self, source: Model, state: ViewerState, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Bone Map")
        self.source, self.state = source, state
        target_names = state.model.skeleton.names
        mapping = starting_map(source, state.model)
        self.table = QTableWidget(len(source.skeleton.names), 2, self)
        self.table.setHorizontalHeaderLabels([f"{source.name} bone", f"{state.model.name} bone"])
        self.choices: list[QComboBox] = []
        for row, name in enumerate(source.skeleton.names):
            item = QTableWidgetItem(name)
            self.table.setItem(row, 0, item)
            choice = QComboBox(self.table)
            choice.addItems([NONE, *target_names])
            choice.setCurrentIndex(target_names.index(mapping[name]) + 1 if name in mapping else 0)
            self.table.setCellWidget(row, 1, choice)
            self.choices.append(choice)
        self.table.resizeColumnsToContents()
        standard = QDialogButtonBox.StandardButton
        buttons = QDialogButtonBox(standard.Ok | standard.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        explanation = QLabel(f"Play the clips of {source.name} on {state.model.name}: pair the bones "
                             "(suggested from names and the hierarchy, or where numbered bones rest)", self)
        explanation.setWordWrap(True)
        layout.addWidget(explanation)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(560, 480)

    def mapping(self) -> dict[str, str]:
        target_names = self.state.model.skeleton.names
        pairs = zip(self.source.skeleton.names, self.choices)
        return {name: target_names[choice.currentIndex() - 1]
                for name, choice in pairs if choice.currentIndex() > 0}

    def accept(self) -> None:
        """Carry the clips over and save the map beside the model; a map that cannot be used is
        explained (naming the bone) and the dialog stays open."""
        mapping = self.mapping()
        try:
            self.state.add_clips_from(self.source, mapping)
        except ValueError as error:
            QMessageBox.warning(self, "Bone Map", str(error))
            return
        path = saved_map_path(self.state.model)
        if path is not None:
            try:
                save_map(path, mapping)
            except OSError as error:
                QMessageBox.warning(self, "Bone Map", f"The map could not be saved to {path}: {error}")
        super().accept()
