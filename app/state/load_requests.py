"""What a user's open, attach, reload, frame-rate change or drop asks to read: the state decides, the
window only runs the read in the background and asks the user when it must.

File › Attach Clips of Another Skeleton reads its files alone (``OtherSkeletonRequest``), in the
background like every read, and then the window opens the bone map for them.

Attaching files that bring a skeleton of their own (a glTF or NWN model, not an animation file of
the model's) is decided in two steps: they are read alone (``ClipsRequest``), then ``fits`` says
whether they animate the model's own bones (read again together with the model, as animation files
are) or another skeleton's (the window opens the bone map)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app import formats
from app.formats.animation_sets import bone_map
from app.model import Model


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


@dataclass(frozen=True)
class ClipsRequest:
    """Files attached to the model that bring a skeleton of their own: ``paths`` read alone with
    ``options`` (the model's, less its up axis and images), then ``ViewerState.attach_read``."""

    paths: tuple[str, ...]
    options: formats.LoadOptions


@dataclass(frozen=True)
class OtherSkeletonRequest:
    """File › Attach Clips of Another Skeleton: ``paths`` read alone with ``options`` (the model's, for
    another skeleton: ``loading.other_skeleton_options``), then the bone map for their clips."""

    paths: tuple[str, ...]
    options: formats.LoadOptions


def brings_skeleton(paths: list[str]) -> bool:
    """Whether every file is a model of its own (neither an animation file nor a bones file, which
    only make sense with their model); False when one cannot be recognised (its read says why)."""
    try:
        sniffed = [formats.sniff(path) for path in paths]
    except formats.ReadError:
        return False
    return all(s.role not in ("animation", "bones") for s in sniffed)


def animated_bones(model: Model) -> np.ndarray:
    """The bones ``model``'s skeletal clips move: the tracked bones of keyed clips, every bone of a
    clip of matrices."""
    moved = np.zeros(len(model.skeleton), bool)
    for clip in model.clips:
        if clip.kind == "matrices":
            moved[:] = True
        elif clip.kind == "keyed":
            moved[[track.bone for track in clip.tracks]] = True
    return moved


def fits(source: Model, model: Model) -> bool:
    """Whether ``source``'s clips animate ``model``'s own skeleton: every bone they move has a bone
    of its name (any case) in ``model`` — what reading the files together with the model expects."""
    moved = animated_bones(source)
    return bool(moved.any()) and bool((bone_map(source.skeleton, model.skeleton)[moved] >= 0).all())


def only_adds_animations(model: Model, paths: list[str]) -> bool:
    """True when every file only adds animations to ``model``: animation files, or C3DE bones files
    (one animation each) for a C3DE model."""
    try:
        sniffed = [formats.sniff(path) for path in paths]
    except formats.ReadError:
        return False
    return all(s.role == "animation" or (s.role == "bones" and s.format == model.format == "c3de")
               for s in sniffed)
