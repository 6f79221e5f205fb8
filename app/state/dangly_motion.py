"""View › Dangly Motion: the model's danglymeshes swung (app/animation/dangly_swing.py) while its
clip plays. Only playing moves the swing on, by the clip seconds played; any other move of the
playhead (a scrub, a seek, a step, another clip, the loop starting over) starts it again from rest,
so what is shown depends only on how the clip was played from there; pausing holds it."""

from __future__ import annotations

from collections.abc import Callable

from app.animation.dangly_swing import DanglySwing
from app.model import Model
from app.pose import Pose
from app.state.playback import Playback


class DanglyMotion:
    """The swing of ``model``'s danglymeshes under ``playback``; ``pose_of()`` gives the pose the
    swing hangs from (the pose on screen before any sway). Subscribe it to the playback before the
    views are told of its changes (``ViewerState.set_model`` does), so a view drawing a frame sees
    the swing already stepped to it."""

    def __init__(self, model: Model, playback: Playback, pose_of: Callable[[], Pose]):
        self.swing = DanglySwing(model)
        self.playback = playback
        self.pose_of = pose_of
        self.on = False
        self._played: float | None = None  # the clip seconds ``advance`` is playing, while it runs
        self._started_at = playback.time
        self._at = (playback.clip, playback.time)  # where the last change left the playhead
        playback.subscribe(self._playback_changed)

    def set_on(self, on: bool) -> None:
        self.on = bool(on)
        self.swing.reset()

    def restart(self) -> None:
        """From rest again (the view comes back to the clip from elsewhere: the ragdoll stopped)."""
        self.swing.reset()

    def advance(self, seconds: float) -> None:
        """Play ``seconds`` of wall time (``Playback.advance``), stepping the swing by the clip time
        that passes."""
        playback = self.playback
        start = playback.time
        self._played = seconds * playback.speed
        self._started_at = start
        try:
            playback.advance(seconds)
        finally:
            self._played = None

    def _playback_changed(self) -> None:
        at, self._at = self._at, (self.playback.clip, self.playback.time)
        if not self.on or not self.swing.active or (self._played is None and at == self._at):
            return  # off, or a setting changed (pause, speed, loop) with the playhead where it was
        played = self._played
        moved = self.playback.time - self._started_at if played is not None else 0.0
        wrapped = moved != 0 and (moved < 0) != self.playback.reverse
        if played is None or wrapped:
            self.swing.reset()
        self.swing.step(self.pose_of(), played or 0.0)

    def swung(self, pose: Pose) -> Pose:
        """``pose`` with the meshes swung while Dangly Motion is on."""
        return self.swing.swung(pose) if self.on and self.swing.active else pose
