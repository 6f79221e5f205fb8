"""The command line's clips of another skeleton (``--clips-from``, ``--map``) and two-clip options
(``--blend``, ``--add``, ``--crossfade``, ``--mask``): the model the command then poses, renders or
exports holds the carried-over clips, or only the mix.

The mixing and retargeting modules are imported when an option asks for them: a plain ``render`` or
``info`` does without them (a few ms of start-up)."""

from __future__ import annotations

import dataclasses
from argparse import Namespace
from typing import TYPE_CHECKING

from app import formats, loading
from app.errors import InputError
from app.model import Model
from app.cli.clip_choice import chosen_clip_index

if TYPE_CHECKING:
    from app.animation.mix import Mix

#: Without --map, numbered loose bones paired by where they rest must pair at least this share of the
#: smaller skeleton's bones.
PLACED_SHARE = 0.5


def with_clips_from(model: Model, args: Namespace, options: formats.LoadOptions) -> Model:
    """``model`` playing the clips of the ``--clips-from`` files, read with the model's reader
    ``options`` as the other skeleton's (unchanged without the option). ValueError for a suggested map
    that cannot be used; InputError naming the map file for its own."""
    if not args.clips_from:
        if args.map:
            raise ValueError("--map needs --clips-from")
        return model
    from app.animation.bone_maps import read_map
    from app.animation.retarget import check_map, retarget_clips, suggested_map

    source = loading.load(args.clips_from, loading.other_skeleton_options(options))
    _check_clips(args.clips_from[0], source)
    if args.map:
        try:
            follows = check_map(read_map(args.map), source.skeleton, model.skeleton)
        except ValueError as error:
            raise InputError(args.map, str(error)) from None
    else:
        mapping = suggested_map(source, model)
        if not mapping or _too_few_placed(mapping, source, model):
            raise ValueError(_no_suggestion(args.clips_from[0], source, model, mapping))
        follows = check_map(mapping, source.skeleton, model.skeleton)
    return dataclasses.replace(model, clips=retarget_clips(source, model, follows))


def _check_clips(path: str, source: Model) -> None:
    """ValueError unless ``source``, read from ``path``, has a clip that moves bones."""
    if not source.clips:
        raise ValueError(f"--clips-from: there are no clips in {path}")
    if not any(clip.skeletal for clip in source.clips):
        raise ValueError(f"--clips-from: the clips in {path} move vertices, not bones; only skeletal "
                         "clips carry over to another skeleton")


def _too_few_placed(mapping: dict[str, str], source: Model, model: Model) -> bool:
    """Numbered loose bones paired by where they rest, fewer than half of the smaller skeleton's: the
    two are not alike enough (a character and a dog) for the suggestion to stand without a look."""
    from app.animation.retarget import numbered_loose

    placed = numbered_loose(source.skeleton) and numbered_loose(model.skeleton)
    return placed and len(mapping) < PLACED_SHARE * min(len(source.skeleton), len(model.skeleton))


def _no_suggestion(path: str, source: Model, model: Model, mapping: dict[str, str]) -> str:
    """Why no bone map is suggested for carrying ``source``'s clips onto ``model``."""
    from app.animation.retarget import hierarchy_difference, numbered_loose
    from app.bone_names import name_key

    if numbered_loose(source.skeleton) and numbered_loose(model.skeleton):
        smaller = min(len(source.skeleton), len(model.skeleton))
        return (f"--clips-from: the bones of {path} and the model's are only numbered, the hierarchies "
                f"inferred for them differ ({hierarchy_difference(source, model)}), and only "
                f"{len(mapping)} of {smaller} bones pair by where they rest; give --map")
    unnamed = [skeleton for skeleton in (source.skeleton, model.skeleton)
               if not any(name_key(name) for name in skeleton.names)]
    why = " (numbered bones, as C3DE's, say nothing of the part)" if unnamed else ""
    return f"--clips-from: no bone names of {path} match the model's{why}; give --map"


def wants_mix(args: Namespace) -> bool:
    return any(getattr(args, option, None) for option in ("blend", "add", "crossfade"))


def first_selector(args: Namespace) -> str | None:
    """The clip ``--clip`` names for the mix (``convert`` takes a list: its first)."""
    if isinstance(args.clip, list):
        return args.clip[0] if args.clip else None
    return args.clip


def requested_mix(model: Model, args: Namespace) -> Mix:
    """The Mix the options ask for; ValueError naming an unknown clip or bone."""
    from app.animation.mix import Mix, subtree_mask

    if args.blend:
        mode, (name, amount) = "blend", args.blend
    elif args.crossfade:
        mode, (name, amount) = "crossfade", args.crossfade
    else:
        mode, name, amount = "add", args.add, 1.0  # the whole change
    try:
        second = model.clips[chosen_clip_index(model, name)]
    except (KeyError, IndexError) as error:
        raise ValueError(error.args[0]) from None
    names = model.skeleton.names
    unknown = [bone for bone in args.mask if bone not in names]
    if unknown:
        raise ValueError(f"--mask: no bone {unknown[0]!r} in the skeleton")
    return Mix(mode, second, amount, subtree_mask(model.skeleton, [names.index(b) for b in args.mask]))


def mixed_model(model: Model, args: Namespace, options: formats.LoadOptions) -> Model:
    """``model``, read with ``options``, with its clips replaced by the mix the options ask for
    (unchanged without them); ``--clip`` then means the mix. ValueError for a mix that cannot be made."""
    if getattr(args, "clips_from", None) is not None:
        model = with_clips_from(model, args, options)
    if not wants_mix(args):
        if getattr(args, "mask", None):
            raise ValueError("--mask needs --blend, --add or --crossfade")
        return model
    try:
        first = model.clips[chosen_clip_index(model, first_selector(args))]
    except (KeyError, IndexError) as error:
        raise ValueError(error.args[0]) from None
    from app.animation.mix import baked_clip

    mixed = baked_clip(model, first, requested_mix(model, args))
    args.clip = None
    return dataclasses.replace(model, clips=[mixed])
