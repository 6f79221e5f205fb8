"""Draw Boneyard's icon: packaging/boneyard.svg and packaging/boneyard.png (256×256), and the same PNG
as assets/boneyard.png, the window's icon (installed with the app).

    python packaging/make_icon.py

One description of the picture (a bone across a dark rounded square, with an orange joint) is written
as SVG by hand and drawn into the PNG with Pillow, supersampled for smooth edges. Both files are
committed; run this again after changing the picture.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from PIL import Image, ImageDraw

HERE = Path(__file__).resolve().parent
SIZE = 256
SUPERSAMPLE = 4

BACKGROUND = "#2b303b"
FLOOR = "#3b4252"
BONE = "#efe3c8"
BONE_EDGE = "#a68d63"
JOINT = "#e8833a"

#: The bone, drawn along x and then turned about the centre: shaft half-length and half-width, the
#: knobs' radius and how far each knob sits from the axis; the outline's width.
ANGLE = -40.0
SHAFT_HALF_LENGTH = 62.0
SHAFT_HALF_WIDTH = 15.0
KNOB_RADIUS = 22.0
KNOB_OFFSET = 17.0
EDGE = 7.0
JOINT_RADIUS = 11.0
CENTRE = (128.0, 124.0)


def _knobs() -> list[tuple[float, float]]:
    return [(sx * SHAFT_HALF_LENGTH, sy * KNOB_OFFSET) for sx in (-1, 1) for sy in (-1, 1)]


def svg() -> str:
    cx, cy = CENTRE
    knobs = "\n".join(f'      <circle cx="{x:g}" cy="{y:g}" r="{KNOB_RADIUS:g}"/>' for x, y in _knobs())
    bone = (f'      <rect x="{-SHAFT_HALF_LENGTH:g}" y="{-SHAFT_HALF_WIDTH:g}" '
            f'width="{2 * SHAFT_HALF_LENGTH:g}" height="{2 * SHAFT_HALF_WIDTH:g}"/>\n{knobs}')
    size = f'width="{SIZE}" height="{SIZE}" viewBox="0 0 {SIZE} {SIZE}"'
    return f"""<svg xmlns="http://www.w3.org/2000/svg" {size}>
  <title>Boneyard</title>
  <rect x="8" y="8" width="240" height="240" rx="48" fill="{BACKGROUND}"/>
  <ellipse cx="128" cy="206" rx="84" ry="18" fill="{FLOOR}"/>
  <g transform="translate({cx:g} {cy:g}) rotate({ANGLE:g})">
    <g fill="{BONE_EDGE}" stroke="{BONE_EDGE}" stroke-width="{2 * EDGE:g}" stroke-linejoin="round">
{bone}
    </g>
    <g fill="{BONE}">
{bone}
    </g>
    <circle r="{JOINT_RADIUS:g}" fill="{JOINT}"/>
  </g>
</svg>
"""


def _place(x: float, y: float) -> tuple[float, float]:
    """A point of the bone's own frame → icon pixels (supersampled)."""
    turn = math.radians(ANGLE)
    px = CENTRE[0] + x * math.cos(turn) - y * math.sin(turn)
    py = CENTRE[1] + x * math.sin(turn) + y * math.cos(turn)
    return px * SUPERSAMPLE, py * SUPERSAMPLE


def _draw_bone(draw: ImageDraw.ImageDraw, grow: float, colour: str) -> None:
    s = SUPERSAMPLE
    hl, hw = SHAFT_HALF_LENGTH + grow, SHAFT_HALF_WIDTH + grow
    draw.polygon([_place(x, y) for x, y in ((-hl, -hw), (hl, -hw), (hl, hw), (-hl, hw))], fill=colour)
    for x, y in _knobs():
        px, py = _place(x, y)
        r = (KNOB_RADIUS + grow) * s
        draw.ellipse((px - r, py - r, px + r, py + r), fill=colour)


def png() -> Image.Image:
    s = SUPERSAMPLE
    image = Image.new("RGBA", (SIZE * s, SIZE * s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((8 * s, 8 * s, 248 * s - 1, 248 * s - 1), radius=48 * s, fill=BACKGROUND)
    draw.ellipse(((128 - 84) * s, (206 - 18) * s, (128 + 84) * s, (206 + 18) * s), fill=FLOOR)
    _draw_bone(draw, EDGE, BONE_EDGE)
    _draw_bone(draw, 0.0, BONE)
    cx, cy = _place(0.0, 0.0)
    r = JOINT_RADIUS * s
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=JOINT)
    return image.resize((SIZE, SIZE), Image.Resampling.LANCZOS)


def main() -> int:
    (HERE / "boneyard.svg").write_text(svg(), encoding="utf-8")
    image = png()
    for target in (HERE / "boneyard.png", HERE.parent / "assets" / "boneyard.png"):
        image.save(target, optimize=True)
    print(f"wrote {HERE / 'boneyard.svg'}, {HERE / 'boneyard.png'} and "
          f"{HERE.parent / 'assets' / 'boneyard.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
