"""View › Dangly Motion in the state (app/state/dangly_motion.py): only playing moves the sway on (by
the clip time played); a seek, a scrub, another clip or the loop starting over starts it from rest;
off, the pose on screen is the clip's own."""

from __future__ import annotations

import numpy as np
import pytest

from app.animation.dangly_swing import DanglySwing
from app.pose import evaluate, posed_positions
from app.state.viewer import ViewerState
from tests.animation.test_dangly_swing import flag_model

STEP = 0.05


@pytest.fixture
def state(tmp_path):
    viewer = ViewerState()
    viewer.set_model(flag_model(tmp_path))
    viewer.playback.set_time(0.9)
    viewer.playback.set_playing(True)
    return viewer


def swayed(state) -> np.ndarray:
    """(V, 3) how far the flag's vertices are from where the clip puts them."""
    model = state.model
    return posed_positions(model, state.current_pose()) - posed_positions(model, state.playback.pose())


def test_off_by_default_and_the_clip_pose_is_shown(state):
    for _ in range(6):
        state.tick(STEP)
    assert not state.display.dangly_motion
    assert not swayed(state).any()


def test_playing_swings_as_the_clip_played_from_where_it_started(state):
    state.set_display(dangly_motion=True)
    for _ in range(6):
        state.tick(STEP)
    # the same swing worked out apart: from rest at 0.9 s, six steps of 0.05 s
    model = state.model
    swing = DanglySwing(model)
    for number in range(7):
        swing.step(evaluate(model, model.clips[0], 0.9 + STEP * number), STEP if number else 0.0)
    assert state.playback.time == pytest.approx(1.2)
    np.testing.assert_allclose(swayed(state), swing.offsets[0], atol=1e-5)
    assert abs(swayed(state)).max() > 0.01


def test_speed_scales_the_step(state):
    state.set_display(dangly_motion=True)
    state.playback.set_speed(0.5)
    for _ in range(6):
        state.tick(2 * STEP)
    assert state.playback.time == pytest.approx(1.2)
    model = state.model
    swing = DanglySwing(model)
    for number in range(7):
        swing.step(evaluate(model, model.clips[0], 0.9 + STEP * number), STEP if number else 0.0)
    np.testing.assert_allclose(swayed(state), swing.offsets[0], atol=1e-5)


@pytest.mark.parametrize("jump", ["seek", "scrub", "clip", "toggle"])
def test_any_other_move_of_the_playhead_starts_from_rest(state, jump):
    state.set_display(dangly_motion=True)
    for _ in range(6):
        state.tick(STEP)
    assert swayed(state).any()
    if jump == "seek":
        state.playback.set_time(1.15)
    elif jump == "scrub":
        state.playback.set_scrubbing(True)
        state.playback.set_time(1.3)
        state.playback.set_scrubbing(False)
    elif jump == "clip":
        state.playback.set_clip(0)
    else:
        state.set_display(dangly_motion=False)
        state.set_display(dangly_motion=True)
    assert not swayed(state).any()


def test_the_loop_starting_over_starts_from_rest(state):
    state.set_display(dangly_motion=True)
    state.playback.set_time(2.9)
    state.tick(STEP)
    state.tick(STEP)
    state.tick(STEP)   # past 3.0 s: back to 0.05 s
    assert state.playback.time == pytest.approx(0.05)
    assert not swayed(state).any()


def test_pausing_holds_the_sway(state):
    state.set_display(dangly_motion=True)
    for _ in range(6):
        state.tick(STEP)
    held = swayed(state)
    state.playback.set_playing(False)
    state.tick(STEP)
    np.testing.assert_array_equal(swayed(state), held)
