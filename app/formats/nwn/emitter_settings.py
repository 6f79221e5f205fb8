"""What an NWN emitter node says (docs/formats/nwn-dangly-emitters.md): its settings by their ASCII
names, from ASCII lines or from the binary form's emitter sub-header and controllers, and the
``app.emitters.Emitter`` a helper carries for the Inspector and View › Emitters."""

from __future__ import annotations

import math

import numpy as np

from app.emitters import Emitter

#: The binary form's emitter controller types and their ASCII names (Torlack's binary MDL notes, as
#: xoreos's src/graphics/aurora/model_nwn.cpp lists them). Type 128 is ``fps`` on an emitter (on a
#: mesh it is the alpha controller).
CONTROLLER_NAMES = {
    80: "alphaEnd", 84: "alphaStart", 88: "birthrate", 92: "bounce_co", 96: "colorEnd", 108: "colorStart",
    120: "combinetime", 124: "drag", 128: "fps", 132: "frameEnd", 136: "frameStart", 140: "grav",
    144: "lifeExp", 148: "mass", 152: "p2p_bezier2", 156: "p2p_bezier3", 160: "particleRot", 164: "randvel",
    168: "sizeStart", 172: "sizeEnd", 176: "sizeStart_y", 180: "sizeEnd_y", 184: "spread", 188: "threshold",
    192: "velocity", 196: "xsize", 200: "ysize", 204: "blurlength", 208: "lightningDelay",
    212: "lightningRadius", 216: "lightningScale", 228: "detonate", 464: "alphaMid", 468: "colorMid",
    480: "percentStart", 481: "percentMid", 482: "percentEnd", 484: "sizeMid", 488: "sizeMid_y",
}
#: The binary emitter sub-header's fields shown, by their ASCII names.
HEADER_NAMES = {"update": "update", "render": "render", "blend": "blend", "texture": "texture",
                "chunk_name": "chunkName", "dead_space": "deadspace", "blast_radius": "blastRadius",
                "blast_length": "blastLength", "x_grid": "xgrid", "y_grid": "ygrid",
                "spawn_type": "spawntype",
                "two_sided": "twosidedtex", "loop": "loop", "render_order": "renderorder"}
#: Every name above, looked up without case (ASCII keywords are read lower-cased).
SPELLINGS = {name.lower(): name for name in (*CONTROLLER_NAMES.values(), *HEADER_NAMES.values())}
#: The birth plane's sides (xsize, ysize) are in centimetres; the model is in metres.
SIZE_UNIT = 0.01


def setting_name(keyword: str) -> str:
    """The usual spelling of an emitter keyword (``birthrate`` → ``birthrate``, ``lifeexp`` → ``lifeExp``)."""
    return SPELLINGS.get(keyword.lower(), keyword)


def controller_settings(first_rows: dict[int, np.ndarray]) -> dict[str, str]:
    """Settings from the binary form's emitter controllers: type → the first key's values."""
    return {CONTROLLER_NAMES[kind]: " ".join(f"{value:g}" for value in values)
            for kind, values in sorted(first_rows.items()) if kind in CONTROLLER_NAMES}


def emitter(settings: dict[str, str], warnings: list[str], name: str) -> Emitter:
    """The Emitter of a node's settings; a number that cannot be read or is negative is a warning
    and drawn as 0 (the rules of ``boneyard check`` name it too)."""
    def number(key: str) -> float:
        text = settings.get(key, "")
        try:
            value = float(text.split()[0]) if text.split() else 0.0
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value >= 0):
            warnings.append(f"emitter {name!r}: {key} {text!r} is not a number ≥ 0; drawn as 0")
            return 0.0
        return value

    spread = min(number("spread"), 2 * math.pi)
    size = (number("xsize") * SIZE_UNIT, number("ysize") * SIZE_UNIT)
    return Emitter(spread=spread, size=size, reach=number("velocity") * number("lifeExp"),
                   settings=dict(settings))
