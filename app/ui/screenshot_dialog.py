"""Save Screenshot…: the image size (the view's or a chosen one) and a transparent background."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtWidgets import QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFormLayout

from app.ui.size_fields import SizeFields

PRESETS = [("1280 × 720 (HD)", (1280, 720)), ("1920 × 1080 (Full HD)", (1920, 1080)),
           ("2560 × 1440 (QHD)", (2560, 1440)), ("3840 × 2160 (4K UHD)", (3840, 2160))]


@dataclass
class ScreenshotSettings:
    width: int
    height: int
    transparent: bool


class ScreenshotDialog(QDialog):
    """Asks for a size and the background; ``settings()`` reads the answer."""

    def __init__(self, view_size: tuple[int, int], max_side: int, transparent: bool = False, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Save Screenshot")
        self.view_size = view_size
        self.size_choice = QComboBox(self)
        self.size_choice.addItem(f"View size ({view_size[0]} × {view_size[1]})", view_size)
        for label, size in PRESETS:
            self.size_choice.addItem(label, size)
        self.size_choice.addItem("Custom", None)
        custom = SizeFields(view_size, max_side, self)
        self.width_box, self.height_box = custom.width_box, custom.height_box
        self.transparent = QCheckBox("Transparent background", self)
        self.transparent.setChecked(transparent)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Size", self.size_choice)
        form.addRow("", custom)
        form.addRow("", self.transparent)
        form.addRow(buttons)
        self.size_choice.currentIndexChanged.connect(self._size_chosen)
        self._size_chosen()

    def _size_chosen(self) -> None:
        size = self.size_choice.currentData()
        custom = size is None
        self.width_box.setEnabled(custom)
        self.height_box.setEnabled(custom)
        if not custom:
            self.width_box.setValue(size[0])
            self.height_box.setValue(size[1])

    def settings(self) -> ScreenshotSettings:
        return ScreenshotSettings(self.width_box.value(), self.height_box.value(),
                                  self.transparent.isChecked())
