"""A legend drawn into a rendered picture (``render --walkmesh``): a swatch and a label per entry,
on a translucent panel in the top-left corner, sized to the picture."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.scene.walkmesh_overlay import LegendEntry

#: The label's height as a fraction of the picture's, and its least height in pixels.
TEXT_FRACTION = 0.025
MIN_TEXT = 11
PANEL_COLOR = (20, 20, 24, 170)
TEXT_COLOR = (235, 235, 235, 255)


def with_legend(band: np.ndarray, entries: Sequence[LegendEntry], picture_height: int) -> np.ndarray:
    """``band`` (rows, W, 4) uint8 RGBA, the picture's top rows, with the legend of ``entries`` drawn
    over its top-left corner (clipped to the band)."""
    if not entries:
        return band
    from PIL import Image, ImageDraw, ImageFont

    size = max(MIN_TEXT, round(picture_height * TEXT_FRACTION))
    font = ImageFont.load_default(size=size)
    picture = Image.fromarray(np.ascontiguousarray(band), "RGBA")
    overlay = Image.new("RGBA", picture.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    margin, line = size // 2, round(size * 1.4)
    widest = max(draw.textlength(entry.label, font=font) for entry in entries)
    draw.rectangle((margin, margin, margin * 3 + size + widest + margin, margin * 2 + line * len(entries)),
                   fill=PANEL_COLOR)
    for row, entry in enumerate(entries):
        top = margin * 2 + row * line
        swatch = tuple(round(255 * channel) for channel in entry.color) + (255,)
        draw.rectangle((margin * 2, top, margin * 2 + size, top + size), fill=swatch, outline=TEXT_COLOR)
        draw.text((margin * 3 + size, top), entry.label, font=font, fill=TEXT_COLOR)
    return np.asarray(Image.alpha_composite(picture, overlay))
