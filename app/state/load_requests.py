"""What a user's open, attach, reload, frame-rate change or drop asks to read: the state decides, the
window only runs the read in the background and asks the user when it must."""

from __future__ import annotations

from dataclasses import dataclass

from app import formats


@dataclass(frozen=True)
class LoadRequest:
    """``paths`` to read as one model with ``options``; ``keep_state``: the clip, time and ragdoll
    profile on screen carry over (``ViewerState.set_model``)."""

    paths: tuple[str, ...]
    options: formats.LoadOptions
    keep_state: bool


@dataclass(frozen=True)
class TextureDrop:
    """An image dropped on the model: it becomes the texture of the meshes under it."""

    path: str
