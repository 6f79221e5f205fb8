"""Clip playback state, shared by the timeline and the viewport (plain Python, no Qt).

Listeners are called with no arguments after any change; views read the state back. ``pose`` is
evaluated once per clip and time and shared, so every listener (and every change that leaves the
playhead where it was: speed, looping, direction, play and pause) gets the same Pose object.

Stepping. ``step_key`` moves to the clip's next or previous key time (``Clip.frame_times``: every
distinct key of a keyed clip, every stored frame of a matrices or vertex clip). ``step_frame`` lands
on the same times but never jumps further than ``MAX_FRAME_STEP``: a wider gap between two keys is
crossed in equal steps. So a baked or densely keyed clip steps exactly one stored frame, and a
sparsely keyed one (NWN animations may hold one key for half a second) still steps at a rate one can
watch. Both pause playback, as a video player's frame step does.

Playing a non-looping clip stops at its end, or at its start when playing backwards; pressing play
there starts again from the other end.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from app.events import Events
from app.model import Clip, Model
from app.pose import Pose, evaluate

#: The longest ``step_frame`` in seconds (at least 10 steps a second).
MAX_FRAME_STEP = 0.1
#: Times closer than this (seconds) are the same instant: float32 key times survive a round trip
#: through the time field.
TIME_TOLERANCE = 1e-6


def frame_step_times(key_times: np.ndarray, max_step: float = MAX_FRAME_STEP) -> np.ndarray:
    """(S,) ``key_times`` (K,) with every gap wider than ``max_step`` split into equal parts."""
    gaps = np.diff(key_times)
    parts = np.maximum(np.ceil(gaps / max_step - TIME_TOLERANCE), 1).astype(int)
    first_of_gap = np.repeat(np.cumsum(parts) - parts, parts)
    steps_into_gap = np.arange(parts.sum()) - first_of_gap
    times = np.repeat(key_times[:-1], parts) + np.repeat(gaps / parts, parts) * steps_into_gap
    return np.append(times, key_times[-1])


def neighbour_time(times: np.ndarray, time: float, steps: int) -> float:
    """The entry of sorted ``times`` ``steps`` entries after ``time`` (before it when negative),
    counting ``time`` itself only when it lies on an entry; clamped to the first and last."""
    at_or_before = int(np.searchsorted(times, time + TIME_TOLERANCE, side="right")) - 1
    on_entry = at_or_before >= 0 and time - times[at_or_before] <= TIME_TOLERANCE
    target = at_or_before + steps + (1 if steps < 0 and not on_entry else 0)
    return float(times[min(max(target, 0), len(times) - 1)])


class Playback:
    """Which clip plays, where on its timeline, which way and how fast.

    ``speed`` is a positive factor (below 1: slow motion); ``reverse`` plays backwards. While
    ``scrubbing`` (a user drags the playhead) ``advance`` leaves the time alone and ``playing``
    keeps its value, so playback resumes when the drag ends.
    """

    def __init__(self, model: Model):
        self.model = model
        self.clip_index: int | None = 0 if model.clips else None
        #: A clip played in the chosen clip's place: the mix of it with a second clip (``set_mix``).
        self.mix: Clip | None = None
        self.time = self.clip.start if self.clip else 0.0
        self.playing = self.clip is not None
        self.speed = 1.0
        self.loop = True
        self.reverse = False
        self.scrubbing = False
        self._pose: tuple[tuple[Clip | None, float], Pose] | None = None
        #: ``changed()`` after every change of clip, time or settings.
        self.events = Events("changed")

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after every change; returns the function that stops it."""
        return self.events.subscribe("changed", listener)

    def _changed(self) -> None:
        self.events.emit("changed")

    @property
    def chosen(self) -> Clip | None:
        """The clip chosen among the model's (``clip`` is the mix made from it while there is one)."""
        return None if self.clip_index is None else self.model.clips[self.clip_index]

    @property
    def clip(self) -> Clip | None:
        """The clip that plays: the mix while there is one, else the chosen clip."""
        return self.mix if self.mix is not None else self.chosen

    @property
    def end(self) -> float:
        """The clip's last time in seconds (0 without a clip)."""
        clip = self.clip
        return clip.start + clip.duration if clip else 0.0

    @property
    def frame_index(self) -> int:
        """The index in ``clip.frame_times`` of the stored frame at or just before ``time``."""
        if self.clip is None:
            return 0
        index = np.searchsorted(self.clip.frame_times, self.time + TIME_TOLERANCE, side="right") - 1
        return max(int(index), 0)

    # --- setters --------------------------------------------------------------------------------

    def set_clip(self, index: int | None) -> None:
        if index is not None and not 0 <= index < len(self.model.clips):
            raise ValueError(f"clip index {index} outside 0..{len(self.model.clips) - 1}")
        self.clip_index = index
        self.mix = None
        self.time = self.clip.start if self.clip else 0.0
        self.playing = self.playing and self.clip is not None
        self._changed()

    def set_mix(self, clip: Clip | None) -> None:
        """Play ``clip`` (made from the chosen clip) in the chosen clip's place, the playhead kept
        where it is (within ``clip``); None: the chosen clip again. Choosing a clip ends the mix."""
        self.mix = clip if self.clip_index is not None else None
        self.set_time(self.time)

    def set_time(self, time: float) -> None:
        clip = self.clip
        self.time = min(max(time, clip.start), self.end) if clip else 0.0
        self._changed()

    def set_frame(self, index: int) -> None:
        """Move to stored frame ``index`` of ``clip.frame_times`` (clamped to the clip's frames)."""
        clip = self.clip
        if clip is None:
            return
        self.set_time(float(clip.frame_times[min(max(index, 0), clip.frame_count - 1)]))

    def set_playing(self, playing: bool) -> None:
        self.playing = bool(playing) and self.clip is not None
        if self.playing and not self.loop and abs(self.time - self._stop_time()) <= TIME_TOLERANCE:
            self.time = self.clip.start if not self.reverse else self.end
        self._changed()

    def set_speed(self, speed: float) -> None:
        if not speed > 0:
            raise ValueError(f"speed must be positive, got {speed}")
        self.speed = float(speed)
        self._changed()

    def set_loop(self, loop: bool) -> None:
        self.loop = bool(loop)
        self._changed()

    def set_reverse(self, reverse: bool) -> None:
        self.reverse = bool(reverse)
        self._changed()

    def set_scrubbing(self, scrubbing: bool) -> None:
        self.scrubbing = bool(scrubbing)
        self._changed()

    # --- moving the playhead --------------------------------------------------------------------

    def go_to_start(self) -> None:
        self.set_time(self.clip.start if self.clip else 0.0)

    def go_to_end(self) -> None:
        self.set_time(self.end)

    def step_key(self, steps: int) -> None:
        """Pause and move ``steps`` key times forward (backward when negative)."""
        if self.clip is not None:
            self._pause_at(neighbour_time(self.clip.frame_times, self.time, steps))

    def step_frame(self, steps: int) -> None:
        """Pause and move ``steps`` frames forward (backward when negative); see the module notes."""
        if self.clip is not None:
            self._pause_at(neighbour_time(frame_step_times(self.clip.frame_times), self.time, steps))

    def _pause_at(self, time: float) -> None:
        self.playing = False
        self.set_time(time)

    def _stop_time(self) -> float:
        """Where non-looping playback stops: the end, or the start when playing backwards."""
        return self.clip.start if self.reverse else self.end

    def advance(self, seconds: float) -> None:
        """Move the playhead by ``seconds`` of wall time (scaled by ``speed``, backwards when
        ``reverse``), wrapping or stopping at the clip's ends."""
        clip = self.clip
        if not self.playing or self.scrubbing or clip is None:
            return
        time = self.time + seconds * self.speed * (-1.0 if self.reverse else 1.0)
        if clip.duration <= 0:
            time = clip.start
        elif self.loop:
            time = clip.start + (time - clip.start) % clip.duration
        elif not clip.start <= time <= self.end:
            time = self._stop_time()
            self.playing = False
        self.time = time
        self._changed()

    def pose(self) -> Pose:
        """The pose at the playhead, evaluated once per clip and time (callers share it)."""
        clip = self.clip
        if self._pose is None or self._pose[0][0] is not clip or self._pose[0][1] != self.time:
            self._pose = (clip, self.time), evaluate(self.model, clip, self.time)
        return self._pose[1]

    def carry_to(self, playback: Playback) -> None:
        """Keep this playback's chosen clip (by name), time, speed, direction and looping in
        ``playback``, of the model read again (a mix is made again from its settings:
        ``ViewerState.set_model``)."""
        names = [clip.name for clip in playback.model.clips]
        if self.chosen is not None and self.chosen.name in names:
            playback.set_clip(names.index(self.chosen.name))
            playback.set_time(self.time)
        playback.set_speed(self.speed)
        playback.set_loop(self.loop)
        playback.set_reverse(self.reverse)
        playback.set_playing(self.playing)
