"""What a user's open, attach, reload, frame-rate change or drop asks to read: the state decides, the
window only runs the read in the background and asks the user when it must.

File › Attach Clips of Another Skeleton reads its files alone (``OtherSkeletonRequest``), in the
background like every read, and then the window opens the bone map for them.

Attaching files that bring a skeleton of their own (a glTF or NWN model, not an animation file of
the model's) is decided by their relation to the model. The model's own animation models — its
supermodels and their animation sets (``a_ba_casts`` for ``a_ba``), known by file name — are read
together with the model at once, as the command line reads them. Other files are read alone first
(``ClipsRequest``); then ``related`` says whether they animate the model's own skeleton (read again
together with the model) or another one (the window opens the bone map)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

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


#: Files whose skeleton has a bone of the same name for at least this share of the model's bones are
#: of the model's own skeleton (NWN animation models add cloak and belt bones a creature lacks).
SAME_SKELETON_SHARE = 0.8


def supermodel_names(model: Model) -> set[str]:
    """The lower-case names of ``model``'s supermodel chain (NWN), found or not."""
    return {name.lower() for name, _ in model.supermodels}


def is_own_animation_file(model: Model, path: str) -> bool:
    """Whether the file at ``path`` is, by its name, one of ``model``'s supermodels or an animation set
    of one (``a_ba_casts.mdl`` for the supermodel ``a_ba``): the model's own animations."""
    stem = Path(path).stem.lower()
    return any(stem == name or stem.startswith(name + "_") for name in supermodel_names(model))


def shares_skeleton(source: Model, model: Model) -> bool:
    """Whether ``source``'s skeleton is ``model``'s by bone names: its clips move a bone the model
    has, and the model's bones have a namesake in ``source`` for SAME_SKELETON_SHARE of them."""
    moved = animated_bones(source)
    toward_model = bone_map(source.skeleton, model.skeleton)
    if not (moved & (toward_model >= 0)).any():
        return False
    named = (bone_map(model.skeleton, source.skeleton) >= 0).mean()
    return bool(named >= SAME_SKELETON_SHARE)


def related(source: Model, model: Model) -> bool:
    """Whether the files read as ``source`` are the model's own animations (read together with it
    rather than through a bone map): its supermodels or their animation sets, a file sharing a
    supermodel with it, or clips of the model's skeleton (``fits``, ``shares_skeleton``)."""
    names = supermodel_names(model)
    if names & ({source.name.lower()} | {Path(path).stem.lower() for path in source.files}):
        return True
    if names & supermodel_names(source) or any(is_own_animation_file(model, path) for path in source.files):
        return True
    return fits(source, model) or shares_skeleton(source, model)


def only_adds_animations(model: Model, paths: list[str]) -> bool:
    """True when every file only adds animations to ``model``: animation files, or C3DE bones files
    (one animation each) for a C3DE model."""
    try:
        sniffed = [formats.sniff(path) for path in paths]
    except formats.ReadError:
        return False
    return all(s.role == "animation" or (s.role == "bones" and s.format == model.format == "c3de")
               for s in sniffed)
