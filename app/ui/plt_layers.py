"""The Inspector's PLT layers (Neverwinter Nights): per layer its colour index (0–175) with the palette
row as a swatch, or a colour button where no palette was found. Shown while the model has PLT textures;
a view of ``state.plt_colours.PltColours`` (it keeps no choice of its own)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage, QPixmap
from PySide6.QtWidgets import QColorDialog, QGridLayout, QGroupBox, QLabel, QPushButton, QSpinBox, QWidget

from app.formats.nwn.plt import COLOUR_INDICES, LAYERS, PALETTES
from app.state.plt_colours import PltColours

#: The swatch's size in pixels (the palette row's 256 columns, squeezed).
SWATCH_SIZE = (96, 16)


def row_pixmap(row: np.ndarray) -> QPixmap:
    """A palette row ((columns, 4) uint8 RGBA) as a SWATCH_SIZE strip, darkest value on the left."""
    pixels = np.ascontiguousarray(row[None, :, :4], np.uint8)
    image = QImage(pixels.data, pixels.shape[1], 1, pixels.shape[1] * 4, QImage.Format.Format_RGBA8888)
    return QPixmap.fromImage(image.scaled(*SWATCH_SIZE))


class PltLayersBox(QGroupBox):
    """Ten rows, one per layer: the name, then the index box and swatch or the colour button."""

    def __init__(self, colours: PltColours, parent: QWidget | None = None):
        super().__init__("PLT colours", parent)
        self.colours = colours
        self.setToolTip("The colours of the model's PLT textures, remembered for its file")
        grid = QGridLayout(self)
        self.names: dict[str, QLabel] = {}
        self.indices: dict[str, QSpinBox] = {}
        self.swatches: dict[str, QLabel] = {}
        self.buttons: dict[str, QPushButton] = {}
        for row, layer in enumerate(LAYERS):
            self.names[layer] = QLabel(layer)
            box = QSpinBox()
            box.setRange(0, COLOUR_INDICES - 1)
            box.setAccessibleName(f"{layer} colour index")
            box.valueChanged.connect(lambda value, name=layer: self.colours.set_index(name, value))
            swatch = QLabel()
            swatch.setFixedSize(*SWATCH_SIZE)
            button = QPushButton()
            button.setFixedSize(*SWATCH_SIZE)
            button.setToolTip(f"No palette image {PALETTES[layer]} was found: pick the colour {layer} is "
                              "drawn in (shaded by each pixel's value)")
            button.clicked.connect(lambda _=False, name=layer: self.pick_colour(name))
            self.indices[layer], self.swatches[layer], self.buttons[layer] = box, swatch, button
            grid.addWidget(self.names[layer], row, 0)
            grid.addWidget(box, row, 1)
            grid.addWidget(swatch, row, 2)
            grid.addWidget(button, row, 2)
        grid.setColumnStretch(3, 1)
        colours.events.subscribe("layers", self.show_layers)
        colours.events.subscribe("choice", self.show_choice)
        self.show_layers()

    def show_layers(self) -> None:
        """The model changed: shown when it has PLT textures, each layer with or without a palette."""
        self.setVisible(self.colours.active)
        for layer in LAYERS:
            has_palette = self.colours.palette(layer) is not None
            used = self.colours.used(layer)
            self.indices[layer].setVisible(has_palette)
            self.swatches[layer].setVisible(has_palette)
            self.buttons[layer].setVisible(not has_palette)
            for widget in (self.names[layer], self.indices[layer], self.buttons[layer]):
                widget.setEnabled(used)
            unused = "No pixel of the model's PLT textures is on this layer"
            self.names[layer].setToolTip("" if used else unused)
            self.show_choice(layer)

    def show_choice(self, layer: str) -> None:
        choice, palette = self.colours.choice(layer), self.colours.palette(layer)
        box = self.indices[layer]
        box.blockSignals(True)
        box.setValue(choice.index)
        box.blockSignals(False)
        if palette is not None:
            row = palette[min(choice.index, palette.shape[0] - 1)]
            self.swatches[layer].setPixmap(row_pixmap(row))
            self.swatches[layer].setToolTip(f"{PALETTES[layer]}, row {choice.index}")
        colour = QColor(*self.colours.colour(layer))
        self.buttons[layer].setStyleSheet(f"background-color: {colour.name()}; border: 1px solid gray")

    def pick_colour(self, layer: str) -> None:
        colour = QColorDialog.getColor(QColor(*self.colours.colour(layer)), self, f"PLT layer {layer}")
        if colour.isValid():
            self.colours.set_colour(layer, (colour.red(), colour.green(), colour.blue()))


def place_in(inspector, colours: PltColours) -> PltLayersBox:
    """The box under the inspector's pages."""
    box = PltLayersBox(colours, inspector)
    inspector.layout().addWidget(box)
    box.setAlignment(Qt.AlignmentFlag.AlignLeft)
    return box
