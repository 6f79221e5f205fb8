"""The timeline's second clip: which clip joins the chosen one, how (cross-fade, blend, add), by how
much, and under which bone. ViewerState bakes the mix from these settings and plays it in the
chosen clip's place, again whenever they or the chosen clip change."""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.animation.mix import Mix, MixMode, subtree_mask
from app.model import Clip, Model

#: The modes in the order the timeline offers them.
MODES: tuple[MixMode, ...] = ("crossfade", "blend", "add")


@dataclass(frozen=True)
class MixSettings:
    """``second``: the joining clip's index among the model's clips; ``fade``: a cross-fade's length
    in seconds; ``weight``: a blend's share of the second clip (0..1); ``add_weight``: how much of
    the second clip's change is added (0..1); ``mask_bone``: the bone whose
    subtree alone takes the second clip (None: the whole body). Each mode keeps its own amount, so
    switching modes back and forth loses nothing."""

    second: int
    mode: MixMode = "crossfade"
    fade: float = 0.3
    weight: float = 0.5
    add_weight: float = 1.0
    mask_bone: int | None = None

    @property
    def amount(self) -> float:
        """What ``Mix.amount`` means in this mode: the fade's seconds, the blend's or the add's weight."""
        return {"crossfade": self.fade, "blend": self.weight, "add": self.add_weight}[self.mode]

    def mix(self, model: Model) -> Mix:
        mask = subtree_mask(model.skeleton, [] if self.mask_bone is None else [self.mask_bone])
        return Mix(self.mode, model.clips[self.second], self.amount, mask)


def first_settings(model: Model, chosen: int) -> MixSettings:
    """The settings mixing starts with: the clip after the chosen one joins it in a cross-fade."""
    return MixSettings(second=(chosen + 1) % len(model.clips))


def checked(settings: MixSettings, model: Model) -> MixSettings:
    """``settings`` with a known mode and a clip and bone the model has; ValueError naming what is wrong."""
    if settings.mode not in MODES:
        raise ValueError(f"mix mode {settings.mode!r} is none of {', '.join(MODES)}")
    if not 0 <= settings.second < len(model.clips):
        raise ValueError(f"clip {settings.second} outside 0..{len(model.clips) - 1}")
    bone = settings.mask_bone
    if bone is not None and not 0 <= bone < len(model.skeleton):
        raise ValueError(f"bone {bone} outside 0..{len(model.skeleton) - 1}")
    return settings


def carried(settings: MixSettings, before: Model, after: Model) -> MixSettings | None:
    """``settings`` for ``after``, the model read again or extended: the second clip and the mask
    bone found by name; None when ``after`` lacks the clip (the bone alone is dropped)."""
    clips = [clip.name for clip in after.clips]
    name = before.clips[settings.second].name
    if name not in clips:
        return None
    bone = None
    if settings.mask_bone is not None and before.skeleton.names[settings.mask_bone] in after.skeleton.names:
        bone = after.skeleton.names.index(before.skeleton.names[settings.mask_bone])
    return replace(settings, second=clips.index(name), mask_bone=bone)


def mix_names(settings: MixSettings | None, model: Model | None, chosen: Clip | None) -> dict | None:
    """A live mix by names (the chosen clip, the second, the mask bone), to be put back on the model
    read again in another session (``mix_from_names``); None without a mix."""
    if settings is None or model is None or chosen is None:
        return None
    bone = settings.mask_bone
    return {"chosen": chosen.name, "second": model.clips[settings.second].name, "mode": settings.mode,
            "fade": settings.fade, "weight": settings.weight, "add_weight": settings.add_weight,
            "mask_bone": None if bone is None else model.skeleton.names[bone]}


def mix_from_names(names: dict | None, model: Model) -> tuple[int, MixSettings] | None:
    """The chosen clip's index and the mix settings ``names`` (``mix_names``) give on ``model``; None
    when it lacks either clip or the settings are not ones a mix takes (the mask bone alone is
    dropped when the model lacks it)."""
    clips = [clip.name for clip in model.clips]
    if not names or names["chosen"] not in clips or names["second"] not in clips:
        return None
    bones = model.skeleton.names
    bone = bones.index(names["mask_bone"]) if names.get("mask_bone") in bones else None
    settings = MixSettings(clips.index(names["second"]), names["mode"], float(names["fade"]),
                           float(names["weight"]), float(names["add_weight"]), bone)
    try:
        return clips.index(names["chosen"]), checked(settings, model)
    except ValueError:
        return None
