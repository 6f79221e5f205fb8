"""The PLT layer colours chosen in the Inspector, remembered per model file (QSettings, in the user's
data folder) and put back when that file is opened again (``state.plt_colours``)."""

from __future__ import annotations

import json

from PySide6.QtCore import QSettings

from app.formats.nwn.plt import COLOUR_INDICES, LAYERS
from app.json_text import JsonError, loads
from app.state.plt_colours import LayerChoice

KEY = "plt/colours"


class RememberedPltColours:
    """``{model file: {layer: {"index": 0–175, "colour": "#rrggbb" or absent}}}`` in one settings
    value; what does not read as such is ignored rather than trusted."""

    def __init__(self, settings: QSettings):
        self.settings = settings

    def _all(self) -> dict:
        try:
            stored = loads(self.settings.value(KEY, "{}"))
        except (TypeError, JsonError):
            return {}
        return stored if isinstance(stored, dict) else {}

    def get(self, file: str) -> dict[str, LayerChoice]:
        entries = self._all().get(file)
        if not isinstance(entries, dict):
            return {}
        choices = {}
        for layer, entry in entries.items():
            choice = _choice(entry) if layer in LAYERS else None
            if choice is not None:
                choices[layer] = choice
        return choices

    def remember(self, file: str, choices: dict[str, LayerChoice]) -> None:
        stored = self._all()
        stored[file] = {layer: {"index": choice.index}
                        | ({"colour": "#%02x%02x%02x" % choice.colour} if choice.colour else {})
                        for layer, choice in choices.items()}
        self.settings.setValue(KEY, json.dumps(stored))


def _choice(entry) -> LayerChoice | None:
    if not isinstance(entry, dict):
        return None
    index, colour = entry.get("index", 0), entry.get("colour")
    if not isinstance(index, int) or not 0 <= index < COLOUR_INDICES:
        return None
    if colour is None:
        return LayerChoice(index)
    if not isinstance(colour, str) or len(colour) != 7 or colour[0] != "#":
        return None
    try:
        rgb = tuple(int(colour[start:start + 2], 16) for start in (1, 3, 5))
    except ValueError:
        return None
    return LayerChoice(index, rgb)
