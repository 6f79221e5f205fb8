"""Two clips at once: a cross-fade from one clip into another, a blend of two by a weight, and one
clip's motion added on top of another, optionally limited to a subtree of bones (a mask).

Clips are mixed in each bone's parent-relative (local) TRS: rotations by slerp, translations and
scales linearly. The result is baked into one 'matrices' clip that plays, renders and exports like
any other. Morph weights are mixed as the bones are (the same fade or weight, 'add' adding the second
clip's change from its first frame), each target by its share of the mask: the mask at the bones of the
vertices it moves, weighted by their skin weights; the mix keys them linearly at its own instants and
at both clips' weight keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from app import maths
from app.model import Clip, Model, Skeleton
from app.morph_targets import WeightChannel, sampled_weights, weight_slices
from app.pose import compose_world, evaluate, keyed_local_frames

MixMode = Literal["blend", "add", "crossfade"]
#: Samples across a cross-fade at least, so the fade is smooth even between sparse keys.
FADE_SAMPLES = 16


@dataclass(frozen=True)
class Mix:
    """How ``second`` joins the first clip: 'blend' by ``amount`` (0 = the first clip, 1 = second),
    'add' with ``amount`` of the second clip's change (1: all of it, 0: none), or 'crossfade' over
    ``amount`` seconds. ``mask``: (B,) 1 for the
    bones the second clip reaches, 0 for the others."""

    mode: MixMode
    second: Clip
    amount: float
    mask: np.ndarray


def subtree_mask(skeleton: Skeleton, roots: list[int]) -> np.ndarray:
    """(B,) 1.0 for the bones in the subtrees of ``roots`` (every bone when ``roots`` is empty)."""
    if not roots:
        return np.ones(len(skeleton.parents))
    return skeleton.subtree_mask(roots).astype(np.float64)


def check_skeletal(model: Model, clip: Clip) -> None:
    """A clip that can be mixed on ``model``: skeletal and made for its skeleton."""
    if not clip.skeletal:
        raise ValueError(f"clip {clip.name!r} moves vertices, not bones; only skeletal clips mix")
    bones = len(model.skeleton.parents)
    used = (clip.world.shape[1] if clip.world is not None
            else max((track.bone + 1 for track in clip.tracks), default=0))
    if (clip.world is not None and used != bones) or used > bones:
        raise ValueError(f"clip {clip.name!r} is for another skeleton ({used} bones, this one has {bones}); "
                         "it needs a bone map")


def local_trs(model: Model, clip: Clip, times: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each bone's parent-relative translation (F, B, 3), rotation (F, B, 4) and scale (F, B, 3) at
    each of ``times`` (F,): a keyed clip in one pass, a sampled clip instant by instant."""
    if clip.kind == "keyed":
        local = np.swapaxes(keyed_local_frames(model.skeleton, clip, times), 0, 1)
    else:
        world = np.stack([evaluate(model, clip, float(time)).world for time in times])
        parents = model.skeleton.parents
        local = world.copy()
        has_parent = parents >= 0
        local[:, has_parent] = maths.affine_inverse(world[:, parents[has_parent]]) @ world[:, has_parent]
    translations, rotations, scales, _ = maths.decompose_trs(local)
    return translations, rotations, scales


def blend_trs(first, second, weights: np.ndarray):
    """Per bone: ``first`` toward ``second`` by ``weights`` (..., B)."""
    share = weights[..., None]
    return ((1.0 - share) * first[0] + share * second[0], maths.slerp(first[1], second[1], weights),
            (1.0 - share) * first[2] + share * second[2])


def add_trs(base, second, reference, weights: np.ndarray):
    """``base`` with ``second``'s change from ``reference`` on top, scaled per bone by ``weights``."""
    share = weights[..., None]
    delta = maths.quat_multiply(maths.quat_conjugate(reference[1]), second[1])
    shape = delta.shape[:-1]
    delta = maths.slerp(maths.quat_identity(shape), delta, np.broadcast_to(weights, shape))
    ratio = np.divide(second[2], reference[2], out=np.ones_like(second[2]), where=reference[2] != 0)
    return (base[0] + share * (second[0] - reference[0]), maths.quat_multiply(base[1], delta),
            base[2] * ((1.0 - share) + share * ratio))


def fade_weight(progress):
    """The second clip's share ``progress`` (a number or an array) of the way through a fade:
    smoothstep, so that no joint's angular speed jumps where the fade begins or ends."""
    u = np.clip(progress, 0.0, 1.0)
    return u * u * (3.0 - 2.0 * u)


def duration(first: Clip, mix: Mix) -> float:
    """The mixed clip's length: a cross-fade lasts both clips less the fade, the others the first."""
    if mix.mode == "crossfade":
        return first.duration + mix.second.duration - mix.amount
    return first.duration


def check_mix(model: Model, first: Clip, mix: Mix) -> None:
    for clip in (first, mix.second):
        check_skeletal(model, clip)
    if mix.mode in ("blend", "add") and not 0.0 <= mix.amount <= 1.0:
        raise ValueError(f"{mix.mode} weight {mix.amount:g} outside 0..1")
    if mix.mode == "crossfade" and not 0.0 <= mix.amount <= min(first.duration, mix.second.duration):
        raise ValueError(f"cross-fade of {mix.amount:g} s longer than clip {first.name!r} "
                         f"({first.duration:g} s) or {mix.second.name!r} ({mix.second.duration:g} s)")


def _second_offset(first: Clip, mix: Mix) -> float:
    """The instant of the mix (on the first clip's timeline) where the second clip begins."""
    return first.start + first.duration - mix.amount if mix.mode == "crossfade" else first.start


def _second_time(first: Clip, mix: Mix, time: float) -> float:
    return time - _second_offset(first, mix) + mix.second.start


def mixed_worlds(model: Model, first: Clip, mix: Mix, times: np.ndarray) -> np.ndarray:
    """(F, B, 4, 4) bone world matrices of the mix at ``times`` (F,) seconds of its timeline."""
    times = np.asarray(times, dtype=np.float64)
    pose_a = local_trs(model, first, times)
    pose_b = local_trs(model, mix.second, _second_time(first, mix, times))
    if mix.mode == "add":
        reference = local_trs(model, mix.second, mix.second.frame_times[:1])
        weights = np.broadcast_to(mix.amount * mix.mask, (len(times), len(mix.mask)))
        local = add_trs(pose_a, pose_b, reference, weights)
    else:
        weights = np.full(len(times), float(mix.amount))
        if mix.mode == "crossfade":
            join = _second_offset(first, mix)
            weights = (fade_weight((times - join) / mix.amount) if mix.amount > 0
                       else (times >= join).astype(np.float64))
        local = blend_trs(pose_a, pose_b, weights[:, None] * mix.mask)
    world = compose_world(model.skeleton, np.swapaxes(maths.compose_trs(*local), 0, 1))
    return np.swapaxes(world, 0, 1)


def mixed_world(model: Model, first: Clip, mix: Mix, time: float) -> np.ndarray:
    """(B, 4, 4) bone world matrices of the mix at ``time`` seconds of its timeline."""
    return mixed_worlds(model, first, mix, np.array([time]))[0]


def mix_times(first: Clip, mix: Mix) -> np.ndarray:
    """The instants the baked clip stores: both clips' own frames where they play, and at least
    ``FADE_SAMPLES`` across a cross-fade; each a float32 number, and no two alike as float32
    (``float32_instants``)."""
    offset = _second_offset(first, mix)
    times = [first.frame_times, mix.second.frame_times - mix.second.start + offset]
    if mix.mode == "crossfade" and mix.amount > 0:
        times.append(np.linspace(offset, offset + mix.amount, FADE_SAMPLES))
    return float32_instants(np.concatenate(times), first.start, first.start + duration(first, mix))


def float32_instants(times: np.ndarray, start: float, end: float) -> np.ndarray:
    """``times`` within ``start``..``end``, and both ends, each moved to the nearest float32 number
    (the ends inward), ascending and each once. Instants apart in float64 but not in float32 (a
    second clip's frame at 0.37500000001 s beside the first's at 0.375 s) become one, so glTF's
    float32 key times of the mix are strictly increasing, as the Khronos validator requires."""
    first, last = _float32_inward(start, end)
    snapped = np.asarray(times, dtype=np.float64).astype(np.float32).astype(np.float64)
    inside = snapped[(snapped > first) & (snapped < last)]
    return maths.sorted_unique(np.concatenate([[first], inside, [last]]))


def _float32_inward(start: float, end: float) -> tuple[float, float]:
    """``start`` rounded up and ``end`` rounded down to float32 numbers (an instant never leaves
    the clips' timeline)."""
    low, high = np.float32(start), np.float32(end)
    if low < start:
        low = np.nextafter(low, np.float32(np.inf))
    if high > end:
        high = np.nextafter(high, np.float32(-np.inf))
    return float(low), float(max(low, high))


def baked_clip(model: Model, first: Clip, mix: Mix) -> Clip:
    """The mix as one clip of world matrices at ``mix_times``, named for both clips."""
    check_mix(model, first, mix)
    times = mix_times(first, mix)
    world = mixed_worlds(model, first, mix, times)
    sign = {"blend": "*", "add": "+", "crossfade": ">"}[mix.mode]
    return Clip(f"{first.name}{sign}{mix.second.name}", "matrices", times=times, world=world,
                source=first.source, weight_channels=mixed_weight_channels(model, first, mix, times))


def target_shares(model: Model, mask: np.ndarray) -> np.ndarray:
    """(T,) each morph target's share of ``mask`` (B,), targets in ``rest_weights`` order: the mean,
    over the vertices the target moves (all of the mesh's when it moves none), of the mask at their
    bones weighted by their skin weights."""
    shares = []
    for mesh in model.meshes:
        if mesh.morphs is None:
            continue
        totals = mesh.weights.sum(axis=1)
        vertex_shares = np.divide((mesh.weights * mask[mesh.joints]).sum(axis=1), totals,
                                  out=np.zeros(len(totals)), where=totals > 0)
        moved = np.any(mesh.morphs.positions != 0, axis=2)
        moved[~moved.any(axis=1)] = True
        shares.append((moved * vertex_shares).sum(axis=1) / moved.sum(axis=1))
    return np.concatenate(shares) if shares else np.zeros(0)


def mixed_weights(model: Model, first: Clip, mix: Mix, times: np.ndarray) -> np.ndarray:
    """(F, T) every morph target's weight in the mix at ``times`` (F,) seconds of its timeline."""
    def sampled(clip: Clip, at: np.ndarray) -> np.ndarray:
        return np.array([sampled_weights(model.meshes, clip.weight_channels, float(time)) for time in at])

    shares = target_shares(model, mix.mask)
    weights_a = sampled(first, times)
    weights_b = sampled(mix.second, _second_time(first, mix, times))
    if mix.mode == "add":
        reference = sampled(mix.second, mix.second.frame_times[:1])
        return weights_a + shares * (weights_b - reference)
    amounts = np.full(len(times), float(mix.amount))
    if mix.mode == "crossfade":
        join = _second_offset(first, mix)
        amounts = (fade_weight((times - join) / mix.amount) if mix.amount > 0
                   else (times >= join).astype(np.float64))
    share = amounts[:, None] * shares
    return (1.0 - share) * weights_a + share * weights_b


def mixed_weight_channels(model: Model, first: Clip, mix: Mix, times: np.ndarray) -> list[WeightChannel]:
    """The mix's weight channels, one per mesh either clip keys, linear at ``times`` and at both
    clips' weight keys (on the mix's timeline)."""
    keyed = {channel.mesh for clip in (first, mix.second) for channel in clip.weight_channels}
    if not keyed:
        return []
    offset = _second_offset(first, mix) - mix.second.start
    key_times = ([times] + [channel.times for channel in first.weight_channels]
                 + [channel.times + offset for channel in mix.second.weight_channels])
    instants = float32_instants(np.concatenate(key_times), times[0], times[-1])
    weights = mixed_weights(model, first, mix, instants)
    slices = weight_slices(model.meshes)
    return [WeightChannel(mesh=mesh, times=instants, values=weights[:, slices[mesh]])
            for mesh in sorted(keyed)]
