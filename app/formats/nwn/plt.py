"""Neverwinter Nights PLT textures: each pixel a grey value and one of ten colour layers, coloured by
the game's palette images (docs/formats/plt.md).

File layout (rollnw lib/nw/formats/Plt.cpp, xoreos): "PLT V1  ", 8 unknown bytes, width and height
(u32 each, at bytes 16 and 20), then width × height pixels of two bytes each: the value (0–255),
then the layer (0–9). Rows are stored bottom row first, as NWN's other textures are (so they are
reversed here: row 0 at the top, as the model's images are). A pixel of value 255 is transparent
(rollnw's decode_plt_color).

Colouring: the layer's palette image (``PALETTES``; 256 columns × 176 rows) gives the colour at row =
the colour index chosen for the layer (``--plt LAYER=INDEX``, 0–175), column = the pixel's value.
Without a palette image, a built-in neutral colour per layer (``NEUTRAL``) is scaled by value / 255.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from app.errors import ReadError

SIGNATURE = b"PLT V1  "
HEADER_BYTES = 24
LAYERS = ("skin", "hair", "metal1", "metal2", "cloth1", "cloth2", "leather1", "leather2", "tattoo1",
          "tattoo2")
#: The palette image of each layer (rollnw ResourceManager.cpp; the game's own names).
PALETTES = {"skin": "pal_skin01", "hair": "pal_hair01", "metal1": "pal_armor01", "metal2": "pal_armor02",
            "cloth1": "pal_cloth01", "cloth2": "pal_cloth01", "leather1": "pal_leath01",
            "leather2": "pal_leath01", "tattoo1": "pal_tattoo01", "tattoo2": "pal_tattoo01"}
#: Colour indices a palette has (its rows).
COLOUR_INDICES = 176
#: Largest PLT read, in pixels (4096 × 4096).
MAX_PIXELS = 4096 * 4096
#: A neutral sRGB colour per layer, used when its palette image is not found: told apart at a glance.
NEUTRAL = {"skin": (224, 172, 138), "hair": (110, 72, 40), "metal1": (190, 190, 200),
           "metal2": (150, 140, 110), "cloth1": (160, 40, 40), "cloth2": (40, 70, 150),
           "leather1": (120, 80, 50), "leather2": (80, 60, 40), "tattoo1": (40, 110, 60),
           "tattoo2": (90, 40, 110)}


def read_plt(data: bytes, where: str) -> tuple[np.ndarray, np.ndarray]:
    """(values, layers), each (H, W) uint8 with row 0 at the top; a ReadError naming ``where`` and the
    byte offset for a malformed file."""
    if data[:8] != SIGNATURE:
        raise ReadError(where, f"not a PLT V1 texture (signature {data[:8]!r})", offset=0)
    if len(data) < HEADER_BYTES:
        raise ReadError(where, f"a PLT header is {HEADER_BYTES} bytes, the file has {len(data)}", offset=0)
    width, height = struct.unpack_from("<2I", data, 16)
    if width * height > MAX_PIXELS:
        raise ReadError(where, f"{width}×{height} pixels is more than the {MAX_PIXELS} read", offset=16)
    expected = HEADER_BYTES + 2 * width * height
    if len(data) < expected:
        raise ReadError(where, f"{width}×{height} pixels need {expected} bytes, the file has {len(data)}",
                        offset=len(data))
    pixels = np.frombuffer(data, np.uint8, 2 * width * height, HEADER_BYTES).reshape(height, width, 2)[::-1]
    layers = pixels[..., 1]
    bad = np.flatnonzero(layers[::-1].ravel() >= len(LAYERS))
    if bad.size:
        raise ReadError(where, f"pixel {bad[0]} has layer {layers[::-1].ravel()[bad[0]]}; layers are 0–9",
                        offset=HEADER_BYTES + 2 * int(bad[0]) + 1)
    return np.ascontiguousarray(pixels[..., 0]), np.ascontiguousarray(layers)


@dataclass(frozen=True, eq=False)
class PltImage:
    """A PLT as read (``values``, ``layers``: (H, W) uint8, row 0 at the top) with the palette images
    found for its layers (``palettes``: layer → (rows, columns, 4) uint8 RGBA): what a material's image
    is coloured from, kept on the material so the window can colour it again without reading."""

    values: np.ndarray
    layers: np.ndarray
    palettes: dict

    @property
    def used_layers(self) -> tuple[str, ...]:
        """The layers some pixel belongs to, in LAYERS order."""
        return tuple(LAYERS[number] for number in np.unique(self.layers))

    def coloured(self, indices: dict[str, int], neutrals: dict[str, tuple[int, int, int]] | None = None
                 ) -> np.ndarray:
        """``colour`` of this PLT, read-only."""
        rgba = colour(self.values, self.layers, self.palettes, indices, neutrals)
        rgba.flags.writeable = False
        return rgba


def colour(values: np.ndarray, layers: np.ndarray, palettes: dict[str, np.ndarray | None],
           indices: dict[str, int], neutrals: dict[str, tuple[int, int, int]] | None = None) -> np.ndarray:
    """(H, W, 4) uint8 RGBA of a PLT: per layer, its palette's row ``indices[layer]`` (default 0)
    indexed by value, or the layer's sRGB colour in ``neutrals`` (default its NEUTRAL colour) scaled by
    value / 255. Value 255 is transparent."""
    neutrals = {**NEUTRAL, **(neutrals or {})}
    # One (layer, value) → RGBA table, then one gather: a 1024² PLT colours in milliseconds.
    table = np.zeros((len(LAYERS), 256, 4), np.uint8)
    shades = np.arange(256, dtype=np.float64)[:, None] / 255.0
    for number, layer in enumerate(LAYERS):
        palette = palettes.get(layer)
        if palette is not None:
            row = palette[min(indices.get(layer, 0), palette.shape[0] - 1)]
            table[number] = row[np.minimum(np.arange(256), row.shape[0] - 1)]
        else:
            table[number, :, :3] = np.round(np.array(neutrals[layer], np.float64) * shades).astype(np.uint8)
    table[:, :, 3] = 255
    table[:, 255, 3] = 0
    packed = table.view(np.uint32).reshape(-1)  # a pixel as one 4-byte word: one gather, not four
    keys = layers.astype(np.intp) * 256 + values
    return packed[keys].view(np.uint8).reshape(*values.shape, 4)


def parse_choice(text: str) -> tuple[str, int]:
    """``LAYER=INDEX`` → (layer, index); a ValueError naming what was expected."""
    layer, equals, index = text.partition("=")
    layer = layer.strip().lower()
    if not equals or layer not in LAYERS or not index.strip().isdigit() or int(index) >= COLOUR_INDICES:
        raise ValueError(f"expected LAYER=INDEX with LAYER one of {', '.join(LAYERS)} and INDEX 0–"
                         f"{COLOUR_INDICES - 1}, got {text[:40]!r}")
    return layer, int(index)
