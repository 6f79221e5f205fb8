"""Following a long clip in the window (under Xvfb): the motors' set-up (``physics/drive.Drive``) on a
60 s clip keeps the window's event loop turning: a 10 ms QTimer never waits more than 200 ms. (The
set-up looks at up to 240 poses of the clip, however long; testing every part pair's boxes in each
took 100-230 ms on a loaded machine, the pairs whose bounding spheres meet 25-85 ms.)"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
import pytest

from app.model import Clip, Track
from tests.gui_helpers import needs_display

#: The longest the window may stop answering (ms).
MOST_GAP_MS = 200


def long_clip(clip: Clip, seconds: float = 60.0, fps: float = 30.0) -> Clip:
    """``clip``'s keys played over and over, one key every 1/fps s, for ``seconds``."""
    count = int(seconds * fps) + 1
    times = np.arange(count) / fps
    tracks = []
    for track in clip.tracks:
        channels = {name: (times, keys[1][np.arange(count) % len(keys[1])])
                    for name in ("translation", "rotation", "scale")
                    if (keys := getattr(track, name)) is not None}
        tracks.append(Track(track.bone, interpolation=track.interpolation, **channels))
    return Clip("long walk", "keyed", tracks=tracks)


def gaps_while(qtbot, action) -> list[float]:
    """The gaps (ms) between a 10 ms timer's ticks while ``action`` runs from the event loop."""
    from PySide6.QtCore import QTimer

    ticks = [time.perf_counter()]
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(10)
    done = []
    QTimer.singleShot(30, lambda: done.append(action()))
    qtbot.waitUntil(lambda: bool(done), timeout=30_000)
    qtbot.wait(60)
    timer.stop()
    return list(np.diff(ticks) * 1000.0)


@pytest.mark.gui
@needs_display
def test_following_a_long_clip_keeps_the_window_answering(window, qtbot):
    state, simulation = window.state, window.state.simulation
    walk = state.model.clips[state.model.clip_index("walk")]
    clip = long_clip(walk)
    assert clip.duration == pytest.approx(60.0)
    state.set_model(replace(state.model, clips=(*state.model.clips, clip)).freeze(), keep_state=True)
    state.playback.set_clip(len(state.model.clips) - 1)
    state.playback.set_time(12.0)
    assert window.set_ragdoll_running(True)  # the world is built for the new model: not the follow set-up
    window.set_ragdoll_running(False)
    state.playback.set_time(12.0)
    window.ragdoll_panel.simulation_box.follow_action.setChecked(True)
    try:
        assert simulation.follow
        gaps = gaps_while(qtbot, lambda: window.set_ragdoll_running(True))
        assert simulation.running and simulation.ragdoll.drive is not None
        assert simulation.ragdoll.drive.clip.name == "long walk"
        assert max(gaps) < MOST_GAP_MS, f"the window stopped answering for {max(gaps):.0f} ms"
    finally:
        window.set_ragdoll_running(False)
        window.ragdoll_panel.simulation_box.follow_action.setChecked(False)
