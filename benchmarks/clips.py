"""``info`` on a model with thousands of small clips: ``python -m benchmarks.clips`` (or
``python -m benchmarks.bench clips``).

An NWN animation set or a game's library of moves holds thousands of clips of a few keys each. What
``info`` works out per clip (its root's travel and speed) must not pay numpy's per-call overhead once
per clip: ``info_8000_clips_vs_one_clip`` is ``describe`` (``info``'s facts) of a 40-bone model with
8,000 clips of six key times each (the root's translation and eight bones' rotations), over
``describe`` of the same skeleton with one clip of as many key times on as many channels: CPU time,
best of three. The clip-by-clip root travel (how ``info`` worked before) is printed beside it.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from app import maths
from app.model import Clip, Model, Skeleton, Track

CLIPS = 8000
BONES = 40
KEYS = 6
KEYED_BONES = 8


def _skeleton() -> Skeleton:
    """A 40-bone tree: a spine of ten, four limbs of six and a tail of six, 0.1 apart."""
    parents = [-1, *range(9)]
    for attach in (3, 3, 8, 8, 0):
        parents += [attach] + [len(parents) + k for k in range(5)]
    rng = np.random.default_rng(1)
    local = maths.translation(rng.normal(scale=0.1, size=(BONES, 3)))
    world = np.empty_like(local)
    for bone, parent in enumerate(parents):
        world[bone] = local[bone] if parent < 0 else world[parent] @ local[bone]
    heads = world[:, :3, 3]
    return Skeleton([f"bone{i:02d}" for i in range(BONES)], np.array(parents), world, heads, heads + 0.05,
                    np.zeros(BONES, bool))


def _tracks(rng: np.random.Generator, times: np.ndarray) -> list[Track]:
    """Rotation keys on KEYED_BONES bones and translation keys on the root, at ``times``."""
    bones = np.sort(rng.choice(np.arange(1, BONES), KEYED_BONES, replace=False))
    tracks = [Track(0, translation=(times, rng.normal(size=(len(times), 3))))]
    tracks += [Track(int(bone), rotation=(times, maths.quat_normalize(rng.normal(size=(len(times), 4)))))
               for bone in bones]
    return tracks


def many_clips_model(count: int = CLIPS) -> Model:
    """``count`` clips of KEYS key times each (1/30 s apart), each keying its own bones."""
    rng = np.random.default_rng(0)
    times = np.arange(KEYS) / 30.0
    clips = [Clip(f"clip{i:05d}", "keyed", tracks=_tracks(rng, times)) for i in range(count)]
    return Model("many clips", _skeleton(), clips=clips)


def one_clip_model(count: int = CLIPS) -> Model:
    """As many key times as ``many_clips_model`` has, one after another in one clip keying as many
    channels (the root's translation, eight bones' rotations)."""
    rng = np.random.default_rng(0)
    times = np.arange(KEYS * count) / 30.0
    return Model("one clip", _skeleton(), clips=[Clip("all", "keyed", tracks=_tracks(rng, times))])


def _describe_seconds(model: Model) -> float:
    """CPU seconds of ``describe`` on a fresh copy of ``model``'s clips (nothing cached from before)."""
    from app.cli.shared import describe

    fresh = Model(model.name, model.skeleton, clips=[
        Clip(clip.name, clip.kind, tracks=clip.tracks) for clip in model.clips])
    started = time.process_time()
    describe(fresh)
    return time.process_time() - started


def _one_at_a_time_seconds(model: Model) -> float:
    """CPU seconds of ``root_travel`` clip by clip (how ``info`` measured clips before they were
    batched), on a fresh copy of ``model``'s clips."""
    from app.animation.root_motion import root_travel

    fresh = Model(model.name, model.skeleton, clips=[
        Clip(clip.name, clip.kind, tracks=clip.tracks) for clip in model.clips])
    started = time.process_time()
    for clip in fresh.clips:
        root_travel(fresh, clip)
    return time.process_time() - started


def run() -> dict:
    many, one = many_clips_model(), one_clip_model()
    many_s = min(_describe_seconds(many) for _ in range(3))
    one_s = min(_describe_seconds(one) for _ in range(3))
    one_at_a_time_s = min(_one_at_a_time_seconds(many) for _ in range(2))
    return {"describe, 8000 clips of 6 keys (s)": many_s,
            "describe, one clip of 48000 keys (s)": one_s,
            "root travel clip by clip, 8000 clips (s)": one_at_a_time_s,
            "per clip (ms)": many_s / CLIPS * 1e3,
            "info_8000_clips_vs_one_clip": many_s / one_s}


if __name__ == "__main__":
    for key, value in run().items():
        print(f"  {key:<45} {value:.4g}")
    sys.exit(0)
