"""Width × height fields for a picture's size in pixels (the screenshot and animation dialogs)."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QSpinBox, QWidget

#: The smallest side a picture may have, in pixels.
MIN_SIDE = 16


class SizeFields(QWidget):
    """Two pixel fields, ``width_box`` × ``height_box``, from ``MIN_SIDE`` to ``max_side``."""

    def __init__(self, size: tuple[int, int], max_side: int, parent=None):
        super().__init__(parent)
        self.width_box, self.height_box = QSpinBox(self), QSpinBox(self)
        for box, value in ((self.width_box, size[0]), (self.height_box, size[1])):
            box.setRange(MIN_SIDE, max_side)
            box.setValue(value)
            box.setSuffix(" px")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.width_box)
        row.addWidget(QLabel("×", self))
        row.addWidget(self.height_box)
