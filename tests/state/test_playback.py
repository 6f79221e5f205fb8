"""Playback state without Qt: playing both ways, looping, speed, stepping and scrubbing, on
hand-built clips whose expected times are worked out by hand."""

import numpy as np
import pytest

from app.model import Clip, Track
from app.state.playback import Playback, frame_step_times
from tests.helpers import chain_model

IDENTITY_QUATERNION = [0.0, 0.0, 0.0, 1.0]


def sparse_clip():
    """Keyed: three keys over one second, at 0, 0.25 and 1."""
    times = [0.0, 0.25, 1.0]
    return Clip("sparse", "keyed", tracks=[Track(0, rotation=(times, [IDENTITY_QUATERNION] * 3))],
                events=[(0.5, "hit")])


def baked_clip():
    """Matrices: four frames at 30 fps from 1 s to 1.1 s; its timeline runs from 0 to 1.1 s (before
    the first frame the first is held)."""
    times = 1.0 + np.arange(4) / 30
    return Clip("baked", "matrices", times=times, world=np.tile(np.eye(4), (4, 2, 1, 1)))


@pytest.fixture
def playback():
    return Playback(chain_model(clips=[sparse_clip(), baked_clip()]))


def test_starts_playing_the_first_clip_at_its_start(playback):
    assert (playback.clip.name, playback.time, playback.playing) == ("sparse", 0.0, True)
    assert (playback.speed, playback.loop, playback.reverse) == (1.0, True, False)


def test_forward_playback_wraps_when_looping(playback):
    playback.advance(0.3)
    assert playback.time == pytest.approx(0.3)
    playback.advance(0.8)  # 1.1 wraps to 0.1
    assert playback.time == pytest.approx(0.1) and playback.playing


def test_reverse_playback_moves_backwards_and_wraps(playback):
    playback.set_time(0.2)
    playback.set_reverse(True)
    playback.advance(0.1)
    assert playback.time == pytest.approx(0.1)
    playback.advance(0.3)  # -0.2 wraps to 0.8
    assert playback.time == pytest.approx(0.8)


def test_speed_scales_the_advance(playback):
    playback.set_speed(0.25)
    playback.advance(0.4)
    assert playback.time == pytest.approx(0.1)
    playback.set_speed(4)
    playback.advance(0.1)
    assert playback.time == pytest.approx(0.5)


def test_speed_must_be_positive(playback):
    with pytest.raises(ValueError, match="-1"):
        playback.set_speed(-1)


def test_without_loop_playback_stops_at_the_end_and_play_starts_over(playback):
    playback.set_loop(False)
    playback.set_time(0.9)
    playback.advance(0.3)
    assert playback.time == 1.0 and not playback.playing
    playback.set_playing(True)
    assert playback.time == 0.0 and playback.playing


def test_without_loop_reverse_playback_stops_at_the_start_and_play_starts_from_the_end(playback):
    playback.set_clip(1)
    playback.set_loop(False)
    playback.set_reverse(True)
    playback.set_time(0.05)
    playback.advance(0.1)
    assert playback.time == 0.0 and not playback.playing
    playback.set_playing(True)
    assert playback.time == pytest.approx(1.1) and playback.playing


def test_play_in_the_middle_keeps_the_time(playback):
    playback.set_loop(False)
    playback.set_playing(False)
    playback.set_time(0.5)
    playback.set_playing(True)
    assert playback.time == 0.5


def test_go_to_start_and_end_keep_playing(playback):
    playback.set_clip(1)
    playback.go_to_end()
    assert playback.time == pytest.approx(1.1) and playback.playing
    playback.go_to_start()
    assert playback.time == 0.0 and playback.playing


def test_step_key_visits_each_key_and_pauses(playback):
    visited = []
    for _ in range(4):
        playback.step_key(+1)
        visited.append(playback.time)
    assert visited == [0.25, 1.0, 1.0, 1.0] and not playback.playing
    playback.step_key(-1)
    assert playback.time == 0.25
    playback.step_key(-2)
    assert playback.time == 0.0


def test_step_key_from_between_keys_goes_to_the_neighbours(playback):
    playback.set_time(0.5)
    playback.step_key(-1)
    assert playback.time == 0.25
    playback.set_time(0.5)
    playback.step_key(+1)
    assert playback.time == 1.0


def test_step_frame_splits_long_gaps_between_keys(playback):
    # 0 → 0.25 is split into 3 steps of 1/12 s; 0.25 → 1 into 8 steps of 0.09375 s.
    playback.step_frame(+1)
    assert playback.time == pytest.approx(1 / 12)
    playback.step_frame(+2)
    assert playback.time == pytest.approx(0.25)
    playback.step_frame(+1)
    assert playback.time == pytest.approx(0.34375)
    playback.go_to_end()
    playback.step_frame(-1)
    assert playback.time == pytest.approx(0.90625)


def test_step_frame_on_a_baked_clip_steps_one_stored_frame(playback):
    playback.set_clip(1)
    playback.step_frame(+1)  # from 0 to the first stored frame
    assert playback.time == 1.0 and playback.frame_index == 0
    playback.step_frame(+1)
    assert playback.time == pytest.approx(1 + 1 / 30) and playback.frame_index == 1
    playback.step_frame(-1)
    assert playback.time == 1.0 and playback.frame_index == 0


def test_frame_step_times_split_gaps_evenly():
    np.testing.assert_allclose(frame_step_times(np.array([0.0, 0.5, 0.55])),
                               [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.55])
    np.testing.assert_allclose(frame_step_times(np.array([2.0])), [2.0])


@pytest.mark.parametrize("time, frame", [(0.0, 0), (0.24, 0), (0.25 - 1e-9, 1), (0.3, 1), (1.0, 2)])
def test_frame_index_is_the_stored_frame_at_or_before_the_time(playback, time, frame):
    playback.set_time(time)
    assert playback.frame_index == frame


@pytest.mark.parametrize("frame, time", [(1, 0.25), (2, 1.0), (7, 1.0), (-3, 0.0)])
def test_set_frame_moves_to_the_stored_frame(playback, frame, time):
    playback.set_frame(frame)
    assert playback.time == time


def test_scrubbing_holds_the_playhead_while_playing(playback):
    playback.set_time(0.5)
    playback.set_scrubbing(True)
    playback.advance(0.2)
    assert playback.time == 0.5 and playback.playing
    playback.set_scrubbing(False)
    playback.advance(0.2)
    assert playback.time == pytest.approx(0.7)


def test_set_time_clamps_to_the_clip(playback):
    playback.set_clip(1)
    playback.set_time(-1.0)
    assert playback.time == 0.0
    playback.set_time(5.0)
    assert playback.time == pytest.approx(1.1)


def test_listeners_hear_every_change(playback):
    calls = []
    playback.subscribe(lambda: calls.append(playback.time))
    playback.set_speed(2)
    playback.set_loop(False)
    playback.set_reverse(True)
    playback.set_frame(1)
    playback.advance(0.1)
    playback.step_key(+1)
    assert len(calls) == 6


def test_a_listener_that_stops_hears_nothing_more(playback):
    calls = []
    stop = playback.subscribe(lambda: calls.append(playback.time))
    playback.set_speed(2)
    stop()
    playback.set_speed(3)
    assert len(calls) == 1


def test_clip_index_out_of_range_is_refused(playback):
    with pytest.raises(ValueError, match="clip index 2 outside 0..1"):
        playback.set_clip(2)


def test_a_model_without_clips_stays_in_the_bind_pose():
    playback = Playback(chain_model())
    playback.step_frame(+1)
    playback.step_key(-1)
    playback.set_playing(True)
    playback.advance(1.0)
    assert (playback.clip, playback.time, playback.playing, playback.frame_index) == (None, 0.0, False, 0)


def test_a_single_key_clip_holds_its_time():
    clip = Clip("still", "keyed", tracks=[Track(0, rotation=([0.5], [IDENTITY_QUATERNION]))])
    playback = Playback(chain_model(clips=[clip]))
    playback.advance(0.3)
    playback.step_frame(+1)
    assert playback.time == 0.5


def test_pose_is_evaluated_once_per_clip_and_time(playback):
    pose = playback.pose()
    playback.set_speed(2.0)
    playback.set_loop(False)
    playback.set_playing(False)
    assert playback.pose() is pose  # nothing moved the playhead: listeners share one evaluation
    playback.set_time(0.5)
    moved = playback.pose()
    assert moved is not pose and playback.pose() is moved
    playback.set_clip(1)
    assert playback.pose() is not moved
