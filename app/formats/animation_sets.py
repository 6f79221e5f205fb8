"""One model and any number of animation sources: unique clip names, and clips moved from the
skeleton they were read with onto the model's, bone by bone, by name (docs/cli.md "Animation sets").
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.mesh_keys import carried_mesh_keys, same_meshes
from app.model import Clip, Model, Skeleton, Track


def unique_name(name: str, taken: set[str], numbers: dict[str, int] | None = None) -> str:
    """``name``, or ``name (2)``, ``name (3)``… — the first not in ``taken`` (compared lower-cased).

    ``numbers``, kept by the caller while ``taken`` only grows, remembers the last suffix given to each
    name, so that n copies of one name take n steps in all instead of n²/2."""
    if name.lower() not in taken:
        return name
    numbers = {} if numbers is None else numbers
    number = numbers.get(name.lower(), 1)
    candidate = name
    while candidate.lower() in taken:
        number += 1
        candidate = f"{name} ({number})"
    numbers[name.lower()] = number
    return candidate


def add_clips(clips: list[Clip], new: list[Clip], warnings: list[str]) -> None:
    """Append ``new`` to ``clips``; a name already used gets a suffix and a warning."""
    taken = {clip.name.lower() for clip in clips}
    numbers: dict[str, int] = {}
    for clip in new:
        name = unique_name(clip.name, taken, numbers)
        if name != clip.name:
            source = clip.source or "another file"
            warnings.append(f"clip {clip.name!r} of {source} has the name of an earlier "
                            f"clip; shown as {name!r}")
            clip.name = name
        taken.add(name.lower())
        clips.append(clip)


def make_clip_names_unique(clips: list[Clip], warnings: list[str]) -> None:
    """Rename, in place and in order, each clip whose exact name an earlier clip of ``clips`` has to
    ``NAME (2)``, ``NAME (3)``…, with a warning naming both clips (docs/cli.md "Clips"). Names that
    differ only in case stay apart, as ``--clip`` tells them apart by exact name."""
    index_of: dict[str, int] = {}
    numbers: dict[str, int] = {}
    for index, clip in enumerate(clips):
        name = clip.name
        if name in index_of:
            number = numbers.get(name, 1) + 1
            while f"{name} ({number})" in index_of:
                number += 1
            numbers[name] = number
            name = f"{name} ({number})"
            warnings.append(f"clips {index_of[clip.name]} and {index} are both named {clip.name!r}; "
                            f"clip {index} is shown as {name!r}")
            clip.name = name
        index_of[name] = index


def bone_map(source: Skeleton, target: Skeleton) -> np.ndarray:
    """(B_source,) the target bone of each source bone with the same name (exact, else
    case-insensitive), −1 where the target has none."""
    exact = {name: index for index, name in enumerate(target.names)}
    folded: dict[str, int] = {}
    for index, name in enumerate(target.names):
        folded.setdefault(name.lower(), index)
    return np.array([exact.get(name, folded.get(name.lower(), -1)) for name in source.names], np.int64)


def retarget(clip: Clip, mapping: np.ndarray, target: Skeleton, mesh_keys: dict) -> Clip | None:
    """``clip`` on the target skeleton: keyed tracks move to the mapped bones (unmapped ones are
    dropped); matrices clips take the mapped bones' world matrices and leave the others at bind.
    ``mesh_keys``: the clip's weight channels and alpha keys for the target's meshes
    (``mesh_keys.carried_mesh_keys``). None for a clip that moves no target bone nor mesh, or cannot
    move (vertex clips belong to their meshes)."""
    if clip.kind == "keyed":
        tracks = [Track(bone=int(mapping[track.bone]), translation=track.translation, rotation=track.rotation,
                        scale=track.scale, interpolation=track.interpolation, handles=dict(track.handles))
                  for track in clip.tracks if mapping[track.bone] >= 0]
        if not tracks and not any(mesh_keys.values()):
            return None
        return Clip(name=clip.name, kind="keyed", tracks=tracks, events=clip.events, note=clip.note,
                    source=clip.source, rate=clip.rate, **mesh_keys)
    if clip.kind == "matrices" and (mapping >= 0).any():
        world = np.broadcast_to(target.bind_world, (len(clip.times), *target.bind_world.shape)).copy()
        used = np.flatnonzero(mapping >= 0)
        world[:, mapping[used]] = clip.world[:, used]
        return Clip(name=clip.name, kind="matrices", times=clip.times, world=world, events=clip.events,
                    note=clip.note, source=clip.source, rate=clip.rate, **mesh_keys)
    return None


def lent_clips(lender: Model, model: Model, error: type[Exception]) -> list[Clip]:
    """``lender``'s clips moved onto ``model``'s bones by name (an animation-only file attached to a
    model of its format), their morph weights and alpha keys onto its meshes of the same names and
    targets (``mesh_keys``); warnings go to ``model.warnings``. ``error`` (the reader's
    ReadError) names the lender's file when its clips move none of the model's bones."""
    name = Path(lender.files[0]).name
    mapping = bone_map(lender.skeleton, model.skeleton)
    pairs = same_meshes(lender, model)
    clips = []
    for clip in lender.clips:
        clip.source = name
        moved = retarget(clip, mapping, model.skeleton, carried_mesh_keys(lender, model, clip, pairs))
        if moved is None:
            model.warnings.append(f"{name}: clip {clip.name!r} moves no bone or mesh of {model.name}; "
                                  "skipped")
        else:
            clips.append(moved)
    if not clips:
        bones = ", ".join(lender.skeleton.names[:8]) or "none"
        raise error(lender.files[0], f"holds no animation for the bones of {Path(model.files[0]).name} "
                                     f"(its bones: {bones})")
    unmatched = int((mapping < 0).sum())
    if unmatched:
        model.warnings.append(f"{name}: {unmatched} bone(s) are not in {model.name}; their keys are ignored")
    return clips


def model_with_lent_clips(models: list[Model], error: type[Exception]) -> Model:
    """Several files of one format read as one model: the first with meshes (else the first) is the
    model, its clips named by its file; the others' clips are lent to it by bone name (``lent_clips``)
    and their warnings kept, named by their files."""
    model = next((m for m in models if m.meshes), models[0])
    for clip in model.clips:
        clip.source = Path(model.files[0]).name
    for other in models:
        if other is not model:
            model.warnings.extend(f"{Path(other.files[0]).name}: {warning}" for warning in other.warnings)
            add_clips(model.clips, lent_clips(other, model, error), model.warnings)
    return model
