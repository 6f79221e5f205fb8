"""Contact sheets: one row per clip of K evenly spaced frames, each labelled with the clip's name
and the frame's time (``render --sheet``, the window's Export Animation), within the limits both
keep to."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from app.model import Model
from app.pose import evaluate
from app.render.video import Ghosts, framing_camera

#: Height of the label strip under each frame, as a share of the frame's height (at least 14 px).
LABEL_SHARE = 0.1
#: Most frames per clip on a contact sheet.
MAX_SHEET_FRAMES = 64
#: Largest side of a contact sheet.
MAX_SIDE = 16384


def sheet_times(start: float, end: float, frames: int) -> np.ndarray:
    """(K,) evenly spaced times from ``start`` to ``end``, both included (``start`` alone for K = 1)."""
    return np.linspace(start, end, frames) if frames > 1 else np.array([start])


def label_height(cell_height: int) -> int:
    return max(14, round(cell_height * LABEL_SHARE))


def sheet_size(model: Model, frames: int, cell: tuple[int, int]) -> tuple[int, int]:
    """The whole sheet's width and height for ``model``'s clips."""
    return cell[0] * frames, (cell[1] + label_height(cell[1])) * len(model.clips)


def check_sheet_size(width: int, height: int) -> None:
    """ValueError for a sheet of ``width`` × ``height`` pixels over MAX_SIDE on a side."""
    if max(width, height) > MAX_SIDE:
        raise ValueError(f"the sheet would be {width}×{height} pixels, over {MAX_SIDE} on a side")


def frames_held(model: Model, frames: int) -> int:
    """Frames of a cell's size a sheet of ``frames`` per clip holds in memory: the sheet, and its PNG."""
    return frames * len(model.clips) * 2


def render_sheet(offscreen, model: Model, frames: int, cell: tuple[int, int], options, view: str,
                 progress: Callable[[float], None] = lambda share: None,
                 ghosts: Ghosts | None = None) -> np.ndarray:
    """The sheet as an (H, W, 4) uint8 RGBA image: row r is clip r, framed on that clip's run;
    ``ghosts(clip, time)``: each frame's onion skins (none without)."""
    from PIL import Image, ImageDraw, ImageFont

    width, height = cell
    strip = label_height(height)
    sheet = Image.new("RGBA", sheet_size(model, frames, cell), (255, 255, 255, 255))
    draw = ImageDraw.Draw(sheet)
    font = ImageFont.load_default(size=max(10, strip - 4))
    for row, clip in enumerate(model.clips):
        times = sheet_times(clip.start, clip.start + clip.duration, frames)
        camera = framing_camera(model, clip, times, cell, view, options)
        top = row * (height + strip)
        for column, time in enumerate(times):
            drawn = ghosts(clip, float(time)) if ghosts is not None else []
            image = offscreen.render_image(model, evaluate(model, clip, float(time)), cell, options, view,
                                           camera=camera, ghosts=drawn)
            sheet.paste(Image.fromarray(image, "RGBA"), (column * width, top))
            label = fitted(draw, font, clip.name, f"  {time:.2f} s", width - 8)
            draw.text((column * width + 4, top + height + 2), label, fill=(20, 20, 20, 255), font=font)
            progress((row * frames + column + 1) / (len(model.clips) * frames))
    return np.asarray(sheet)


def fitted(draw, font, name: str, suffix: str, width: int) -> str:
    """``name + suffix``, the name cut short with an ellipsis where the whole is wider than ``width``."""
    label = name + suffix
    while draw.textlength(label, font=font) > width and name:
        name = name[:-1]
        label = name + "…" + suffix
    return label
