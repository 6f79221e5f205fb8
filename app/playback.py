"""Clip playback state, shared by the timeline and the viewport (plain Python, no Qt).

Listeners are called with no arguments after any change; views read the state back.
"""

from __future__ import annotations

from typing import Callable

from app.model import Clip, Model
from app.pose import Pose, evaluate


class Playback:
    """Which clip plays, where on its timeline, and how fast."""

    def __init__(self, model: Model):
        self.model = model
        self.clip_index: int | None = 0 if model.clips else None
        self.time = self.clip.start if self.clip else 0.0
        self.playing = self.clip is not None
        self.speed = 1.0
        self.loop = True
        self._listeners: list[Callable[[], None]] = []

    def subscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def _changed(self) -> None:
        for listener in self._listeners:
            listener()

    @property
    def clip(self) -> Clip | None:
        return None if self.clip_index is None else self.model.clips[self.clip_index]

    def set_clip(self, index: int | None) -> None:
        if index is not None and not 0 <= index < len(self.model.clips):
            raise ValueError(f"clip index {index} outside 0..{len(self.model.clips) - 1}")
        self.clip_index = index
        self.time = self.clip.start if self.clip else 0.0
        self._changed()

    def set_time(self, time: float) -> None:
        clip = self.clip
        self.time = min(max(time, clip.start), clip.start + clip.duration) if clip else 0.0
        self._changed()

    def set_playing(self, playing: bool) -> None:
        self.playing = bool(playing) and self.clip is not None
        self._changed()

    def advance(self, seconds: float) -> None:
        """Move the playhead by ``seconds`` of wall time (scaled by ``speed``), wrapping or stopping
        at the clip's end."""
        clip = self.clip
        if not self.playing or clip is None:
            return
        time = self.time + seconds * self.speed
        end = clip.start + clip.duration
        if clip.duration <= 0:
            time = clip.start
        elif self.loop:
            time = clip.start + (time - clip.start) % clip.duration
        elif not clip.start <= time <= end:
            time = min(max(time, clip.start), end)
            self.playing = False
        self.time = time
        self._changed()

    def pose(self) -> Pose:
        return evaluate(self.model, self.clip, self.time)
