"""Two clips at once (app.animation.mix) against poses worked out by hand on the two-bone chain."""

from dataclasses import replace

import numpy as np
import pytest

from app.animation.mix import Mix, baked_clip, fade_weight, mixed_world, subtree_mask
from app.model import Clip, Track
from app.morph_targets import MorphTargets, WeightChannel
from app.pose import evaluate
from tests.helpers import chain_model, skeleton, translation


def quat_z(degrees):
    half = np.radians(degrees) / 2
    return [0.0, 0.0, np.sin(half), np.cos(half)]


def turn(name, bone, degrees, times=(0.0, 1.0), moves=None):
    """A clip turning ``bone`` about Z through ``degrees`` (one angle per key), the root moving
    through ``moves`` when given."""
    tracks = [Track(bone, rotation=(np.array(times), np.array([quat_z(d) for d in degrees])))]
    if moves is not None:
        tracks.append(Track(0, translation=(np.array(times), np.array(moves, dtype=float))))
    return Clip(name, "keyed", tracks=tracks)


def tip(model, clip, time):
    """Where bone1's head is at ``time``."""
    return evaluate(model, clip, time).world[1, :3, 3]


def mix(mode, second, amount=0.0, mask=None):
    return Mix(mode, second, amount, np.ones(2) if mask is None else mask)


def chain_with(*clips):
    return chain_model(clips=list(clips))


def test_blend_at_weights_0_and_1_is_each_clip_exactly():
    a = turn("a", 0, [0, 40], moves=[[0, 0, 0], [1, 0, 0]])
    b = turn("b", 0, [90, -30], times=(0.0, 0.5), moves=[[0, 2, 0], [3, 0, 1]])
    model = chain_with(a, b)
    for weight, expected in ((0.0, a), (1.0, b)):
        baked = baked_clip(model, a, mix("blend", b, weight))
        for time in (0.0, 0.25, 0.5, 0.8, 1.0):
            assert np.abs(evaluate(model, baked, time).world
                          - evaluate(model, expected, time).world).max() <= 1e-9


def test_blend_halfway_slerps_rotations_and_lerps_translations():
    a = turn("a", 0, [0, 0], moves=[[0, 0, 0], [0, 0, 0]])
    b = turn("b", 0, [90, 90], moves=[[2, 0, 0], [2, 0, 0]])
    model = chain_with(a, b)
    baked = baked_clip(model, a, mix("blend", b, 0.5))
    # root at (1, 0, 0) turned 45°: bone1, one unit along the root's X, at (1 + cos 45°, sin 45°, 0).
    expected = [1 + np.sqrt(0.5), np.sqrt(0.5), 0.0]
    assert np.allclose(tip(model, baked, 0.5), expected, atol=1e-12)
    assert baked.name == "a*b"


def test_additive_puts_the_second_clips_change_on_top():
    a = turn("a", 0, [30, 30])
    b = turn("b", 0, [10, 40], moves=[[5, 0, 0], [5, 1, 0]])
    model = chain_with(a, b)
    baked = baked_clip(model, a, mix("add", b, 1.0))
    # at 1 s: 30° + (40° − 10°) = 60° and the root moved by (0, 1, 0) from B's first frame.
    expected = np.array([0.5, np.sqrt(3) / 2, 0.0]) + [0, 1, 0]
    assert np.allclose(tip(model, baked, 1.0), expected, atol=1e-12)
    assert np.allclose(tip(model, baked, 0.0), [np.cos(np.radians(30)), 0.5, 0], atol=1e-12)


def test_additive_by_a_weight_adds_that_share_of_the_change():
    a = turn("a", 0, [30, 30])
    b = turn("b", 0, [10, 40], moves=[[5, 0, 0], [5, 1, 0]])
    model = chain_with(a, b)
    baked = baked_clip(model, a, mix("add", b, 0.5))
    # at 1 s: 30° + half of (40° − 10°) = 45°, the root moved by half of (0, 1, 0).
    expected = np.array([np.sqrt(0.5), np.sqrt(0.5), 0.0]) + [0, 0.5, 0]
    assert np.allclose(tip(model, baked, 1.0), expected, atol=1e-12)
    assert np.allclose(tip(model, baked_clip(model, a, mix("add", b, 0.0)), 1.0),
                       [np.cos(np.radians(30)), 0.5, 0], atol=1e-12)
    with pytest.raises(ValueError, match="add weight 1.5 outside 0..1"):
        baked_clip(model, a, mix("add", b, 1.5))


def test_mask_limits_the_second_clip_to_a_subtree():
    a = turn("a", 0, [90, 90])
    b = Clip("b", "keyed", tracks=[Track(0, rotation=(np.array([0.0, 1.0]), np.array([quat_z(0)] * 2))),
                                   Track(1, rotation=(np.array([0.0, 1.0]), np.array([quat_z(90)] * 2)))])
    model = chain_with(a, b)
    mask = subtree_mask(model.skeleton, [1])
    assert mask.tolist() == [0.0, 1.0]
    baked = baked_clip(model, a, mix("blend", b, 1.0, mask))
    world = evaluate(model, baked, 0.5).world
    # the root keeps A's 90°, bone1 takes B's own 90° on top: 180° in the world.
    assert np.allclose(world[1, :3, 3], [0, 1, 0], atol=1e-12)
    assert np.allclose(world[1, :3, 0], [-1, 0, 0], atol=1e-12)


def test_subtree_mask_follows_the_hierarchy_down():
    skel = skeleton([np.eye(4), translation(1, 0, 0), translation(2, 0, 0), translation(0, 1, 0)],
                    [-1, 0, 1, 0])
    assert subtree_mask(skel, [1]).tolist() == [0, 1, 1, 0]
    assert subtree_mask(skel, [3, 2]).tolist() == [0, 0, 1, 1]
    assert subtree_mask(skel, []).tolist() == [1, 1, 1, 1]


def test_crossfade_plays_a_then_b_and_lasts_both_less_the_fade():
    a = turn("a", 0, [0, 60])
    b = turn("b", 0, [-60, 0])
    model = chain_with(a, b)
    baked = baked_clip(model, a, mix("crossfade", b, 0.5))
    assert baked.duration == pytest.approx(1.5)
    for mixed_time, clip, own_time in ((0.3, a, 0.3), (0.5, a, 0.5), (1.0, b, 0.5), (1.5, b, 1.0)):
        assert np.abs(evaluate(model, baked, mixed_time).world
                      - evaluate(model, clip, own_time).world).max() <= 1e-9
    # halfway through the fade (0.75 s): A at 0.75 s is 45°, B at 0.25 s is −45°, weight ½: 0°.
    assert np.allclose(tip(model, baked, 0.75), [1, 0, 0], atol=1e-12)


def test_crossfade_angular_speed_does_not_jump_where_the_fade_begins():
    a = turn("a", 0, [0, 60])
    b = turn("b", 0, [-60, 60])
    model = chain_with(a, b)
    fade = mix("crossfade", b, 0.5)
    step = 1e-3
    times = np.arange(0.4, 1.1, step)
    angles = np.unwrap([np.arctan2(*mixed_world(model, a, fade, t)[1, 1::-1, 3]) for t in times])
    speed = np.degrees(np.diff(angles) / step)
    # A turns at 60°/s, B at 120°/s. A linear fade would jump by (2/s)·(30° − (−60°)) = 180°/s where
    # it starts (0.5 s); smoothstep starts flat, so the speed changes by at most its acceleration
    # (24/s² · 90°, plus B's pull) times one step.
    assert speed[:99] == pytest.approx(60, abs=1e-6)
    assert speed[100] == pytest.approx(60, abs=5)
    assert np.abs(np.diff(speed)).max() < 10
    assert speed[-50:] == pytest.approx(120, abs=1e-6)
    baked = baked_clip(model, a, fade)
    for time in baked.times:
        assert np.abs(evaluate(model, baked, time).world - mixed_world(model, a, fade, time)).max() < 1e-12


def test_fade_weight_starts_and_ends_flat():
    assert fade_weight(0) == 0 and fade_weight(1) == 1 and fade_weight(0.5) == 0.5
    assert fade_weight(-1) == 0 and fade_weight(2) == 1
    assert fade_weight(1e-4) < 1e-7 and 1 - fade_weight(1 - 1e-4) < 1e-7


def test_bad_mixes_are_refused_with_the_clip_named():
    a, b = turn("a", 0, [0, 10]), turn("b", 0, [0, 10], times=(0.0, 0.4))
    model = chain_with(a, b)
    with pytest.raises(ValueError, match="cross-fade of 0.5 s longer .*'b'"):
        baked_clip(model, a, mix("crossfade", b, 0.5))
    with pytest.raises(ValueError, match="blend weight 1.5 outside"):
        baked_clip(model, a, mix("blend", b, 1.5))
    stranger = turn("stranger", 4, [0, 10])
    with pytest.raises(ValueError, match="clip 'stranger' is for another skeleton.*bone map"):
        baked_clip(model, a, mix("blend", stranger, 0.5))
    vertex = Clip("wobble", "vertex", times=[0.0, 1.0], positions=np.zeros((2, 3, 3)))
    with pytest.raises(ValueError, match="clip 'wobble' moves vertices"):
        baked_clip(model, a, mix("add", vertex))


def test_the_window_state_keeps_a_mix_as_a_clip_and_plays_it():
    from app.state.viewer import ViewerState

    def keep(**settings):
        """Mix clip a with the settings on the timeline's second row, then Keep as Clip."""
        state.playback.set_clip(0)
        state.set_mixing(True)
        state.set_mix(**settings)
        return state.keep_mix()

    a, b = turn("a", 0, [0, 60]), turn("b", 0, [-60, 0])
    state = ViewerState()
    state.set_model(chain_with(a, b))
    mixed = keep(second=1, mode="crossfade", fade=0.5)
    assert [clip.name for clip in state.model.clips] == ["a", "b", "a>b"]
    assert state.playback.clip is mixed and mixed.duration == pytest.approx(1.5)
    state.playback.set_time(1.0)
    assert np.abs(state.current_pose().world - evaluate(state.model, b, 0.5).world).max() <= 1e-9
    again = keep(second=1, mode="blend", weight=1.0, mask_bone=1)
    assert again.name == "a*b" and keep(second=1, mode="blend", weight=1.0, mask_bone=1).name == "a*b 2"
    with pytest.raises(ValueError, match="cross-fade of 3 s longer"):
        keep(second=1, mode="crossfade", fade=3.0)


def with_face_weights(clip, times, values):
    """``clip`` also keying the arm's two morph targets: (K,) times, (K, 2) weights."""
    return Clip(clip.name, "keyed", tracks=clip.tracks,
                weight_channels=[WeightChannel(mesh=0, times=times, values=values)])


def morphing_chain(*clips):
    """The chain whose arm has two targets: 0 moves vertex 0 (on bone0), 1 moves vertex 1 (on bone1)."""
    arm = chain_model().meshes[0]
    deltas = np.zeros((2, 3, 3))
    deltas[0, 0] = (0.0, 0.5, 0.0)
    deltas[1, 1] = (0.0, -0.5, 0.0)
    morphs = MorphTargets(deltas, defaults=[0.0, 0.0])
    return chain_model(clips=list(clips), meshes=[replace(arm, morphs=morphs)])


#: A ramps both weights up over 1 s; B goes from 1 down to 0 at 0.5 s, then up to 0.2 and 0.6.
FACE_A = ((0.0, 1.0), [[0.0, 0.0], [1.0, 0.5]])
FACE_B = ((0.0, 0.5, 1.0), [[1.0, 1.0], [0.0, 0.0], [0.2, 0.6]])


def face_clips():
    return (with_face_weights(turn("a", 0, [0, 60]), *FACE_A),
            with_face_weights(turn("b", 0, [-60, 0]), *FACE_B))


@pytest.mark.parametrize("mode, amount, mask, time, expected", [
    ("blend", 0.25, None, 0.5, [0.375, 0.1875]),  # ¾ of A's (0.5, 0.25), ¼ of B's (0, 0)
    ("blend", 0.25, None, 0.75, [0.5875, 0.35625]),  # ¾ (0.75, 0.375) + ¼ (0.1, 0.3)
    ("blend", 1.0, [0.0, 1.0], 0.5, [0.5, 0.0]),  # target 0's vertex is on bone0, outside the mask
    ("add", 0.0, None, 0.5, [-0.5, -0.75]),  # A's (0.5, 0.25) plus B's change from its first frame
    ("crossfade", 0.5, None, 0.3, [0.3, 0.15]),  # before the fade: A alone
    ("crossfade", 0.5, None, 0.7, [0.6648, 0.438]),  # 0.4 into the fade, smoothstep 0.352 of B at 0.2 s
    ("crossfade", 0.5, None, 1.25, [0.1, 0.3]),  # after it: B alone at 0.75 s
])
def test_a_mix_carries_the_morph_weights(mode, amount, mask, time, expected):
    a, b = face_clips()
    model = morphing_chain(a, b)
    baked = baked_clip(model, a, mix(mode, b, amount, None if mask is None else np.array(mask)))
    assert [channel.mesh for channel in baked.weight_channels] == [0]
    assert evaluate(model, baked, time).morph_weights == pytest.approx(expected, abs=1e-6)


def test_a_mix_of_clips_without_weights_keys_none():
    a, b = turn("a", 0, [0, 60]), turn("b", 0, [-60, 0])
    assert baked_clip(morphing_chain(a, b), a, mix("blend", b, 0.5)).weight_channels == []
