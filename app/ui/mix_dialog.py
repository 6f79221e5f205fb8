"""Playback › Mix Clips…: a second clip with a blend mode (cross-fade, blend, add), optionally only
under the bone selected in the Outliner; the mix is added to the model as a clip and plays."""

from __future__ import annotations

from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout,
                               QLabel, QMessageBox, QWidget)

from app.state.viewer import ViewerState

#: Modes as the dialog names them: (mode, label, what the amount is, its range, its default).
MODES = (("crossfade", "Cross-fade (A, then B)", "Fade (seconds)", (0.0, 1e4), 0.3),
         ("blend", "Blend (A and B by a weight)", "Weight of B (0..1)", (0.0, 1.0), 0.5),
         ("add", "Add (B's change on top of A)", "", (0.0, 0.0), 0.0))


class MixDialog(QDialog):
    def __init__(self, state: ViewerState, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Mix Clips")
        self.state = state
        names = [clip.name for clip in state.model.clips]
        self.first, self.second, self.mode = QComboBox(self), QComboBox(self), QComboBox(self)
        self.first.addItems(names)
        self.second.addItems(names)
        clips = state.model.clips
        current = clips.index(state.playback.clip) if state.playback.clip in clips else 0
        self.first.setCurrentIndex(current)
        self.second.setCurrentIndex((current + 1) % max(len(names), 1))
        self.mode.addItems([label for _, label, _, _, _ in MODES])
        self.amount, self.amount_label = QDoubleSpinBox(self), QLabel(self)
        self.amount.setDecimals(3)
        self.amount.setSingleStep(0.05)
        bone = state.selected_bone
        self.masked = QCheckBox(self)
        self.masked.setEnabled(bone is not None)
        self.masked.setText("Only under a bone (select one in the Outliner first)" if bone is None
                            else f"Only {state.model.skeleton.names[bone]!r} and the bones under it")
        standard = QDialogButtonBox.StandardButton
        buttons = QDialogButtonBox(standard.Ok | standard.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Clip A", self.first)
        form.addRow("Clip B", self.second)
        form.addRow("Mode", self.mode)
        form.addRow(self.amount_label, self.amount)
        form.addRow(self.masked)
        form.addRow(buttons)
        self.mode.currentIndexChanged.connect(self._show_mode)
        self._show_mode(0)

    def _show_mode(self, index: int) -> None:
        _, _, label, (low, high), default = MODES[index]
        self.amount_label.setText(label)
        self.amount.setRange(low, high)
        self.amount.setValue(default)
        self.amount.setEnabled(bool(label))

    def accept(self) -> None:
        """Add the mix; a mix that cannot be made is explained and the dialog stays open."""
        mask = self.state.selected_bone if self.masked.isChecked() else None
        try:
            self.state.add_mix(self.first.currentIndex(), self.second.currentIndex(),
                               MODES[self.mode.currentIndex()][0], self.amount.value(), mask)
        except ValueError as error:
            QMessageBox.warning(self, "Mix Clips", str(error))
            return
        super().accept()
