"""The colours of a model's PLT textures (Neverwinter Nights): per layer a colour index into the layer's
palette image, or an sRGB colour picked by the user where no palette was found. The Inspector's PLT
layers are a view of it.

``PltColours`` is a companion of ``ViewerState``: it listens to the state's ``model`` event, puts the
choices remembered for the model's file back, and colours the PLT images again in place (the model's
materials are among what the user chooses for the model on screen; docs/architecture.md), telling the
views through the state's ``meshes`` event. No file is read again: the material keeps the PLT it was
coloured from (``Material.plt``).

Events (``PltColours.events``):
- ``layers()``: another model is shown (it has PLT textures or not: ``active``);
- ``choice(layer)``: the layer's colour index or colour changed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from app.events import Events
from app.formats.nwn.plt import COLOUR_INDICES, LAYERS, NEUTRAL, PALETTES, PltImage
from app.model import Model


@dataclass(frozen=True)
class LayerChoice:
    """One layer's colour: ``index`` into its palette (0–175), ``colour`` the sRGB (0–255 each) drawn
    where no palette was found (None: the layer's neutral colour)."""

    index: int = 0
    colour: tuple[int, int, int] | None = None


class PltMemory(Protocol):
    """The layer choices made for a model file, remembered between sessions."""

    def get(self, file: str) -> dict[str, LayerChoice]: ...

    def remember(self, file: str, choices: dict[str, LayerChoice]) -> None: ...


class PltColours:
    """The PLT layer choices of the model ``state`` shows; ``memory`` keeps them per model file (None:
    not remembered). The choices start from the options the model was read with (``--plt``), then
    what was remembered for its file."""

    def __init__(self, state, memory: PltMemory | None = None):
        self.state = state
        self.memory = memory
        self.choices: dict[str, LayerChoice] = {}
        self.events = Events("layers", "choice")
        state.events.subscribe("model", self._model_shown)

    @property
    def model(self) -> Model | None:
        return self.state.model

    @property
    def active(self) -> bool:
        """Whether the model on screen has a PLT texture."""
        return bool(self._sources())

    def used(self, layer: str) -> bool:
        """Whether a pixel of the model's PLT textures belongs to ``layer``."""
        return any(layer in source.used_layers for source in self._sources())

    def palette(self, layer: str) -> np.ndarray | None:
        """(rows, columns, 4) uint8: the palette image found for ``layer`` (or for a layer sharing its
        image, as cloth1 and cloth2 do), or None."""
        found = (image for source in self._sources() for other, image in source.palettes.items()
                 if PALETTES[other] == PALETTES[_checked_layer(layer)])
        return next(found, None)

    def choice(self, layer: str) -> LayerChoice:
        return self.choices.get(_checked_layer(layer), LayerChoice())

    def colour(self, layer: str) -> tuple[int, int, int]:
        """The sRGB colour ``layer`` is drawn in where it has no palette."""
        return self.choice(layer).colour or NEUTRAL[layer]

    def set_index(self, layer: str, index: int) -> None:
        """``layer``'s colour index from now on (ValueError outside 0–175)."""
        if not 0 <= int(index) < COLOUR_INDICES:
            raise ValueError(f"a colour index is 0–{COLOUR_INDICES - 1}, got {index}")
        self._choose(layer, replace(self.choice(layer), index=int(index)))

    def set_colour(self, layer: str, colour: tuple[int, int, int]) -> None:
        """``layer``'s sRGB colour (0–255 each) where no palette was found."""
        rgb = tuple(int(value) for value in colour)
        if len(rgb) != 3 or not all(0 <= value <= 255 for value in rgb):
            raise ValueError(f"a colour is three values 0–255, got {colour}")
        self._choose(layer, replace(self.choice(layer), colour=rgb))

    def _choose(self, layer: str, choice: LayerChoice) -> None:
        if choice == self.choice(layer):
            return
        self.choices[layer] = choice
        if self.memory is not None and self.model is not None and self.model.files:
            self.memory.remember(self.model.files[0], dict(self.choices))
        self._recolour()
        self.events.emit("choice", layer)

    def _model_shown(self, keep_state: bool) -> None:
        """A model read again keeps the choices on screen; another starts from its read options and
        its file's remembered choices."""
        read_with = {layer: LayerChoice(index)
                     for layer, index in self.state.load_options.plt_colours.items()}
        if not keep_state:
            self.choices = dict(read_with)
            if self.memory is not None and self.model.files:
                self.choices.update(self.memory.get(self.model.files[0]))
        if self.active and _effective(self.choices) != _effective(read_with):
            self._recolour(announce=False)
        self.events.emit("layers")

    def _recolour(self, announce: bool = True) -> None:
        """Every PLT image of the model coloured with the choices (one image per PLT, shared by the
        meshes that use it, as when read)."""
        indices = {layer: choice.index for layer, choice in self.choices.items()}
        neutrals = {layer: choice.colour for layer, choice in self.choices.items() if choice.colour}
        images: dict[int, np.ndarray] = {}
        changed = []
        for number, mesh in enumerate(self.model.meshes if self.model is not None else ()):
            source = mesh.material.plt
            if not isinstance(source, PltImage):
                continue
            if id(source) not in images:
                images[id(source)] = source.coloured(indices, neutrals)
            mesh.material = replace(mesh.material, image=images[id(source)])
            changed.append(number)
        if announce and changed:
            self.state.events.emit("meshes", changed)

    def _sources(self) -> list[PltImage]:
        meshes = self.model.meshes if self.model is not None else ()
        return [mesh.material.plt for mesh in meshes if isinstance(mesh.material.plt, PltImage)]


def _effective(choices: dict[str, LayerChoice]) -> dict[str, LayerChoice]:
    """The choices that differ from the default (index 0, neutral colour)."""
    return {layer: choice for layer, choice in choices.items() if choice != LayerChoice()}


def _checked_layer(layer: str) -> str:
    if layer not in LAYERS:
        raise ValueError(f"a PLT layer is one of {', '.join(LAYERS)}, got {layer!r}")
    return layer
