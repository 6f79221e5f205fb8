"""The timeline's second clip in the state: mixing on and off, each setting re-baking the mix that
plays in the chosen clip's place, the chosen clip, the model read again, keeping the mix as a clip,
and mixes that cannot be made. Angles worked out by hand on the two-bone chain (bone1 one unit
along bone0's X), every clip turning about Z."""

import math
from dataclasses import replace

import numpy as np
import pytest

from app.model import Clip, Track
from app.state.viewer import ActionError, ViewerState
from tests.helpers import chain_model


def quat_z(degrees):
    half = np.radians(np.asarray(degrees, float)) / 2
    return np.stack([np.zeros_like(half), np.zeros_like(half), np.sin(half), np.cos(half)], axis=-1)


def clip(name, bone0, bone1, seconds=1.0):
    """bone0 and bone1 turn linearly from the first to the second angle (degrees) over ``seconds``."""
    times = np.array([0.0, seconds])
    return Clip(name, "keyed", tracks=[Track(0, rotation=(times, quat_z(bone0))),
                                       Track(1, rotation=(times, quat_z(bone1)))])


def angles(state) -> tuple[float, float]:
    """bone0's and bone1's turn in the world (degrees, in (-180, 180]: a half turn is 180 whichever
    side of it the last bits of the matrix fall) in the pose on screen."""
    world = state.current_pose().world
    turns = (math.degrees(math.atan2(world[b, 1, 0], world[b, 0, 0])) for b in (0, 1))
    return tuple(turn + 360.0 if turn <= -180.0 + 1e-9 else turn for turn in turns)


@pytest.fixture
def state():
    """a: bone1 turns 0 → 60°; b: bone0 and bone1 hold 90°; c: bone0 holds 30° for two seconds."""
    viewer = ViewerState()
    viewer.set_model(chain_model([clip("a", [0, 0], [0, 60]), clip("b", [90, 90], [90, 90]),
                                  clip("c", [30, 30], [0, 0], seconds=2.0)]))
    viewer.playback.set_playing(False)
    return viewer


def test_mixing_starts_as_a_cross_fade_into_the_next_clip_that_plays_in_the_chosen_ones_place(state):
    seen = []
    state.events.subscribe("mix", seen.append)
    state.set_mixing(True)
    assert state.mix.second == 1 and state.mix.mode == "crossfade" and state.mix.fade == 0.3
    playback = state.playback
    assert playback.clip_index == 0 and playback.chosen.name == "a" and playback.clip.name == "a>b"
    assert playback.end == pytest.approx(1.0 + 1.0 - 0.3)
    assert angles(state) == pytest.approx((0, 0), abs=1e-9)
    playback.set_time(0.5)  # before the fade (it starts at 0.7 s): a alone, bone1 at 30°
    assert angles(state) == pytest.approx((0, 30), abs=1e-9)
    playback.set_time(1.7)  # after it: b alone, bone1 90° on bone0's 90°
    assert angles(state) == pytest.approx((90, 180), abs=1e-9)
    assert seen == [state.mix]


def test_each_setting_bakes_the_mix_again_and_keeps_the_playhead(state):
    state.set_mixing(True)
    state.playback.set_time(0.5)
    state.set_mix(mode="blend")  # weight 0.5: bone0 halfway 0 → 90, bone1 local halfway 30 → 90
    assert state.playback.clip.name == "a*b" and state.playback.time == 0.5
    assert angles(state) == pytest.approx((45, 45 + 60), abs=1e-9)
    state.set_mix(weight=1.0, mask_bone=1)  # only bone1's subtree takes b: bone0 stays a's 0°
    assert angles(state) == pytest.approx((0, 90), abs=1e-9)
    state.set_mix(second=2, mode="add", mask_bone=None)  # c holds its first frame: adds nothing
    assert state.playback.clip.name == "a+c"
    assert angles(state) == pytest.approx((0, 30), abs=1e-9)
    state.set_mix(mode="crossfade")  # each mode keeps its own amount
    assert (state.mix.fade, state.mix.weight) == (0.3, 1.0)


def test_choosing_another_clip_mixes_that_one(state):
    state.set_mixing(True)
    state.set_mix(second=0, mode="blend", weight=1.0)
    state.playback.set_clip(2)
    assert state.playback.clip_index == 2 and state.playback.clip.name == "c*a"
    assert state.playback.end == 2.0  # a blend lasts as long as the chosen clip
    state.playback.set_time(1.0)  # a at its end: bone0 0°, bone1 60°
    assert angles(state) == pytest.approx((0, 60), abs=1e-9)


def test_a_mix_that_cannot_be_made_says_why_and_the_chosen_clip_plays_alone(state):
    seen = []
    state.set_mixing(True)
    state.events.subscribe("mix", seen.append)
    state.set_mix(fade=5.0)
    assert "cross-fade of 5 s longer than clip 'a' (1 s)" in state.mix_problem
    assert state.playback.mix is None and state.playback.clip.name == "a" and seen == [state.mix]
    with pytest.raises(ValueError, match="cross-fade of 5 s"):
        state.keep_mix()
    state.set_mix(fade=0.5)
    assert state.mix_problem == "" and state.playback.clip.name == "a>b"
    with pytest.raises(ValueError, match="clip 7 outside 0..2"):
        state.set_mix(second=7)
    with pytest.raises(ValueError, match="bone 2 outside 0..1"):
        state.set_mix(mask_bone=2)
    assert state.mix.second == 1 and state.mix.mask_bone is None  # the bad settings were not taken


def test_keeping_the_mix_adds_it_as_a_clip_and_ends_mixing(state):
    state.set_mixing(True)
    state.set_mix(mode="blend", weight=1.0, mask_bone=1)
    kept = state.keep_mix()
    assert [c.name for c in state.model.clips] == ["a", "b", "c", "a*b"]
    assert state.mix is None and state.playback.mix is None and state.playback.clip is kept
    state.playback.set_time(0.5)
    assert angles(state) == pytest.approx((0, 90), abs=1e-9)


def test_mixing_needs_two_clips_and_ends_with_a_new_model(state):
    state.set_mixing(True)
    state.set_model(chain_model([clip("only", [0, 0], [0, 0])]))
    assert state.mix is None and state.playback.mix is None
    with pytest.raises(ActionError, match="two clips or more"):
        state.set_mixing(True)


def test_the_mix_survives_the_model_read_again_by_clip_and_bone_names(state):
    state.set_mixing(True)
    state.set_mix(second=2, mode="blend", weight=1.0, mask_bone=1)
    state.playback.set_clip(1)
    again = replace(state.model, clips=[state.model.clips[2], state.model.clips[1]])  # c, b
    state.set_model(again, keep_state=True)
    assert state.mix.second == 0 and state.mix.mask_bone == 1
    assert state.playback.chosen.name == "b" and state.playback.clip.name == "b*c"
    without_c = replace(state.model, clips=[state.model.clips[1]])
    state.set_model(without_c, keep_state=True)
    assert state.mix is None and state.playback.clip.name == "b"


def test_mixing_off_plays_the_chosen_clip_again(state):
    state.set_mixing(True)
    state.playback.set_time(1.5)
    state.set_mixing(False)
    assert state.mix is None and state.playback.clip.name == "a" and state.playback.time == 1.0


def test_export_animation_offers_the_mix_on_screen_after_the_models_clips(state):
    assert state.animation_model() == (state.model, 0)
    state.playback.set_clip(2)
    assert state.animation_model() == (state.model, 2)
    state.set_mixing(True)  # c, then a
    model, index = state.animation_model()
    assert [clip.name for clip in model.clips] == ["a", "b", "c", "c>a"] and index == 3
    assert model.clips[3] is state.playback.clip and [c.name for c in state.model.clips] == ["a", "b", "c"]


def test_export_gltf_writes_the_mix_on_screen_as_a_clip_after_the_models_own(state, tmp_path):
    from app import loading

    state.playback.set_clip(2)
    state.set_mixing(True)  # c (bone0 at 30° for 2 s), then a, faded over 0.3 s: 2.7 s in all
    exported = state.export_gltf(tmp_path / "mixed.glb")
    read = loading.load([exported.path])
    assert [clip.name for clip in read.clips] == ["a", "b", "c", "c>a"]
    assert read.clips[3].duration == pytest.approx(2.7, abs=1e-6)
    assert [clip.name for clip in state.model.clips] == ["a", "b", "c"]  # the model keeps its clips
