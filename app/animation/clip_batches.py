"""Many keyed clips sampled together at their stored frames: a library of thousands of small clips
(an NWN animation set) costs what its frames cost, not numpy's overhead once per clip.

The clips' frames are laid end to end (clip after clip, each at its own ``frame_times``) and every
track is sampled at its own clip's frames in one pass per channel, with the arithmetic of
``pose.keyed_local_frames`` element by element, so each clip's matrices are the ones it gets alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app import maths
from app.bone_tree import hierarchy_levels, world_from_local
from app.model import Clip, Skeleton
from app.pose import rest_local_trs

#: Bone matrices (frames × bones) one batch holds (16 MB of float64 4×4 matrices per array): the
#: clips are cut into batches so memory stays bounded whatever the library's size.
MATRICES_PER_BATCH = 1 << 17
_CHANNELS = (("translation", 0), ("rotation", 1), ("scale", 2))


def movable_bones(skeleton: Skeleton, animated: np.ndarray) -> np.ndarray:
    """(S,) ascending: the ``animated`` bones, the bones below them (the only ones a clip can move)
    and the bones above those (their worlds are composed from them)."""
    below = skeleton.subtree_mask(animated)
    return np.flatnonzero(below | skeleton.tree.marked_below(below))


def sampled_together(clip: Clip) -> bool:
    """Whether ``clip`` can join a batch: keyed, with no Bezier track (those are sampled instant by
    instant, ``pose.keyed_local_frames``)."""
    return clip.kind == "keyed" and clip.world is None and not any(track.handles for track in clip.tracks)


@dataclass(frozen=True)
class FrameBatch:
    """Some clips' bone world matrices at their stored frames, end to end.

    clips: (C,) positions of the clips in the list given; bones: (S,) ascending, the bones any of the
    clips can move and those above them; worlds: (F, S, 4, 4); starts: (C + 1,) where each clip's
    frames begin in ``worlds`` (the last entry is F). Bones outside ``bones`` stay at rest."""

    clips: np.ndarray
    bones: np.ndarray
    worlds: np.ndarray
    starts: np.ndarray


@dataclass(frozen=True)
class _ChannelRows:
    """One channel of every track that keys it, ragged: row r has keys ``key_starts[r]`` up to
    ``key_starts[r + 1]`` in ``times`` (K,) and ``values`` (K, w); ``clips`` (R,) its clip's position,
    ascending; ``bones`` (R,); ``step`` (R,) bool."""

    clips: np.ndarray
    bones: np.ndarray
    step: np.ndarray
    key_starts: np.ndarray
    times: np.ndarray
    values: np.ndarray

    @classmethod
    def gather(cls, clips: list[Clip], channel: str, width: int) -> _ChannelRows:
        """The ``channel`` keys (``width`` values each) of every track of ``clips`` that has them."""
        clip_of, bones, step, times, values = [], [], [], [], []
        for position, clip in enumerate(clips):
            for track in clip.tracks:
                keys = getattr(track, channel)
                if keys is not None:
                    clip_of.append(position)
                    bones.append(track.bone)
                    step.append(track.interpolation == "step")
                    times.append(keys[0])
                    values.append(keys[1])
        counts = np.array([len(keys) for keys in times], dtype=np.intp)
        return cls(np.array(clip_of, dtype=np.intp), np.array(bones, dtype=np.intp), np.array(step, bool),
                   np.concatenate([[0], np.cumsum(counts)]).astype(np.intp),
                   np.concatenate(times) if times else np.zeros(0),
                   np.concatenate(values) if values else np.zeros((0, width)))

    def rows_of(self, first: int, last: int) -> slice:
        """The rows of the clips at positions ``first`` up to (not including) ``last``."""
        return slice(*np.searchsorted(self.clips, [first, last]))

    def sample(self, rows: slice, first_clip: int, frame_times: np.ndarray,
               starts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rows' values at each of their clip's frames: values (P, w), the frames (P,) (indices
        into ``frame_times``, the batch's frames end to end; ``starts`` where each clip's begin,
        clips counted from ``first_clip``) and the bones (P,)."""
        clip_of = self.clips[rows] - first_clip
        key_starts = self.key_starts[rows.start:rows.stop + 1]
        counts = np.diff(key_starts)
        row, frame = _rows_at_frames(clip_of, starts)
        at = frame_times[frame]
        times = self.times[key_starts[0]:key_starts[-1]]
        upto = _keys_up_to(times, np.repeat(np.arange(len(clip_of)), counts), key_starts - key_starts[0],
                           at, row)
        before = np.clip(upto - 1, 0, counts[row] - 1)
        after = np.minimum(before + 1, counts[row] - 1)
        before, after = before + key_starts[row], after + key_starts[row]
        start, end = self.times[before], self.times[after]
        span = np.where(end > start, end - start, 1.0)
        moves = (end > start) & ~self.step[rows][row]
        fraction = np.where(moves, np.clip((at - start) / span, 0.0, 1.0), 0.0)
        first, second = self.values[before], self.values[after]
        if first.shape[1] == 4:
            values = maths.slerp(first, second, fraction)
        else:
            values = first + fraction[..., None] * (second - first)
        return values, frame, self.bones[rows][row]


def _rows_at_frames(clip_of: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row (its clip ``clip_of`` (R,)) paired with each of its clip's frames (``starts``: where
    each clip's frames begin): the rows (P,) and the frames (P,), row by row."""
    frames_per_row = starts[clip_of + 1] - starts[clip_of]
    row = np.repeat(np.arange(len(clip_of)), frames_per_row)
    within = np.arange(len(row)) - np.repeat(np.cumsum(frames_per_row) - frames_per_row, frames_per_row)
    return row, starts[clip_of][row] + within


def _keys_up_to(times: np.ndarray, row_of_key: np.ndarray, key_starts: np.ndarray,
                at: np.ndarray, row: np.ndarray) -> np.ndarray:
    """(P,) how many of row ``row[p]``'s key times are at or before ``at[p]``: one sorted search over
    every row at once, the times replaced by their ranks among all the times involved (exact integers
    that order as the times do, equal times alike) and each row's ranks lifted above the previous
    row's (as ``pose._PackedChannel.keys_up_to`` does for one clip)."""
    grid = np.sort(np.concatenate([times, at]))
    stride = len(grid) + 1
    lifted = np.searchsorted(grid, times) + stride * row_of_key
    query = np.searchsorted(grid, at) + stride * row
    return np.searchsorted(lifted, query, side="right") - key_starts[row]


def frame_batches(skeleton: Skeleton, clips: list[Clip]):
    """``FrameBatch``es covering ``clips`` (each ``sampled_together``) in order, each holding at most
    about MATRICES_PER_BATCH matrices (a clip larger than that alone)."""
    rows = {channel: _ChannelRows.gather(clips, channel, 4 if channel == "rotation" else 3)
            for channel, _ in _CHANNELS}
    animated = np.concatenate([channel.bones for channel in rows.values()])
    bones = movable_bones(skeleton, maths.sorted_unique(animated))
    frames = np.array([clip.frame_count for clip in clips], dtype=np.intp)
    first = 0
    while first < len(clips):
        fitting = np.searchsorted(np.cumsum(frames[first:]), MATRICES_PER_BATCH // max(len(bones), 1),
                                  side="right")
        last = first + max(int(fitting), 1)
        yield _batch(skeleton, clips, rows, bones, first, last)
        first = last


def _batch(skeleton: Skeleton, clips: list[Clip], rows: dict[str, _ChannelRows], bones: np.ndarray,
           first: int, last: int) -> FrameBatch:
    """The clips at positions ``first`` up to ``last``, sampled at their frames."""
    frame_times = np.concatenate([clip.frame_times for clip in clips[first:last]])
    starts = np.concatenate([[0], np.cumsum([clip.frame_count for clip in clips[first:last]])])
    row_of = np.full(len(skeleton), -1, dtype=np.intp)
    row_of[bones] = np.arange(len(bones))
    trs = [np.repeat(rest[bones][None], len(frame_times), axis=0) for rest in rest_local_trs(skeleton)]
    animated = np.zeros((len(frame_times), len(bones)), bool)
    for channel, slot in _CHANNELS:
        values, frame, bone = rows[channel].sample(rows[channel].rows_of(first, last), first, frame_times,
                                                   starts)
        trs[slot][frame, row_of[bone]] = values
        animated[frame, row_of[bone]] = True
    local = np.repeat(skeleton.rest_local[bones][:, None], len(frame_times), axis=1)
    frame, bone_row = np.nonzero(animated)
    local[bone_row, frame] = maths.compose_trs(*(part[frame, bone_row] for part in trs))
    parents = np.where(skeleton.parents[bones] >= 0, row_of[skeleton.parents[bones]], -1)
    worlds = np.swapaxes(world_from_local(local, parents, hierarchy_levels(parents)), 0, 1)
    return FrameBatch(np.arange(first, last), bones, worlds, starts)
