"""The command line's two-clip options (``--blend``, ``--add``, ``--crossfade``, ``--mask``) turned
into one baked clip: the model the command then poses, renders or exports holds only the mix."""

from __future__ import annotations

import dataclasses
from argparse import Namespace

from app.clip_mix import Mix, baked_clip, subtree_mask
from app.model import Model


def wants_mix(args: Namespace) -> bool:
    return any(getattr(args, option, None) for option in ("blend", "add", "crossfade"))


def first_selector(args: Namespace) -> str | None:
    """The clip ``--clip`` names for the mix (``convert`` takes a list: its first)."""
    if isinstance(args.clip, list):
        return args.clip[0] if args.clip else None
    return args.clip


def requested_mix(model: Model, args: Namespace) -> Mix:
    """The Mix the options ask for; ValueError naming an unknown clip or bone."""
    if args.blend:
        mode, (name, amount) = "blend", args.blend
    elif args.crossfade:
        mode, (name, amount) = "crossfade", args.crossfade
    else:
        mode, name, amount = "add", args.add, 0.0
    try:
        second = model.clips[model.clip_index(name)]
    except (KeyError, IndexError) as error:
        raise ValueError(error.args[0]) from None
    names = model.skeleton.names
    unknown = [bone for bone in args.mask if bone not in names]
    if unknown:
        raise ValueError(f"--mask: no bone {unknown[0]!r} in the skeleton")
    return Mix(mode, second, amount, subtree_mask(model.skeleton, [names.index(b) for b in args.mask]))


def mixed_model(model: Model, args: Namespace) -> Model:
    """``model`` with its clips replaced by the mix the options ask for (unchanged without them);
    ``--clip`` then means the mix. ValueError for a mix that cannot be made."""
    if not wants_mix(args):
        if getattr(args, "mask", None):
            raise ValueError("--mask needs --blend, --add or --crossfade")
        return model
    try:
        first = model.clips[model.clip_index(first_selector(args))]
    except (KeyError, IndexError) as error:
        raise ValueError(error.args[0]) from None
    mixed = baked_clip(model, first, requested_mix(model, args))
    args.clip = None
    return dataclasses.replace(model, clips=[mixed])
