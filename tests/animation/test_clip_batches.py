"""Keyed clips sampled together (app.animation.clip_batches) and the root travels worked out from them
(root_motion.root_travels): the figures ``info`` gives, against paths worked out by hand and against
each clip measured alone."""

import numpy as np
import pytest

from app import loading
from app.animation import clip_batches
from app.animation.root_motion import root_travel, root_travels
from app.model import Clip, Model, Track
from app.pose import frame_worlds
from tests.helpers import chain_model, skeleton, translation
from tests.paths import CORPUS

IDENTITY = [0, 0, 0, 1.0]
QUARTER_TURN_Z = [0, 0, np.sin(np.pi / 4), np.cos(np.pi / 4)]


def turn(interpolation="linear"):
    """bone0 turns a quarter about Z between 0 and 1 s (it stays at the origin, so bone1, one unit
    along X, is the shallowest bone that moves); bone1's own keys add a frame at 0.5 s."""
    return Clip(f"turn {interpolation}", "keyed", tracks=[
        Track(0, rotation=(np.array([0.0, 1.0]), np.array([IDENTITY, QUARTER_TURN_Z])),
              interpolation=interpolation),
        Track(1, rotation=(np.array([0.0, 0.5]), np.array([IDENTITY, IDENTITY])))])


def walk():
    """bone0 moved (0,0,0) → (3,4,1) → (3,4,6) at 0, 1, 2 s (Z up: 5 over the ground)."""
    return Clip("walk", "keyed", tracks=[Track(0, translation=(
        np.array([0.0, 1.0, 2.0]), np.array([[0, 0, 0], [3, 4, 1], [3, 4, 6]], dtype=float)))])


def test_travels_of_clips_together_are_the_paths_worked_out_by_hand():
    still = Clip("still", "keyed", tracks=[Track(1, scale=(np.array([0.0, 1.0]), np.ones((2, 3))))])
    model = chain_model([walk(), turn(), turn("step"), still])
    travels = root_travels(model, model.clips)
    assert travels[0] == pytest.approx((5.0, 2.5), abs=1e-12)
    # bone1 at 0°, 45°, 90° round the origin: two chords of 2·sin(22.5°) over 1 s
    assert travels[1] == pytest.approx((4 * np.sin(np.pi / 8),) * 2, abs=1e-12)
    # held at 0° until the last key: one chord of a quarter circle, √2
    assert travels[2] == pytest.approx((np.sqrt(2),) * 2, abs=1e-12)
    assert travels[3] == (0.0, 0.0)


def varied_clips(rng, count):
    """Clips of every kind a batch meets: step and linear keys, repeated key times, scale keys, keys
    only on bones no clip's root is above, Bezier tracks, alpha keys, matrices clips, no tracks."""
    clips = []
    for index in range(count):
        times = np.sort(rng.uniform(-0.2, 1.5, size=int(rng.integers(1, 6))))
        if index % 7 == 3:
            times[-1] = times[0]
            times.sort()
        tracks = [Track(int(bone), rotation=(times, rng.normal(size=(len(times), 4))),
                        translation=(times[:1], rng.normal(size=(1, 3))) if bone == 0 else None,
                        scale=(times, rng.uniform(0.5, 2, size=(len(times), 3))) if index % 3 == 0 else None,
                        interpolation="step" if index % 4 == 1 else "linear")
                  for bone in rng.choice(5, size=int(rng.integers(0, 4)), replace=False)]
        alpha = {0: (np.array([0.25, 2.0]), np.array([1.0, 0.5]))} if index % 5 == 2 else {}
        clips.append(Clip(f"c{index}", "keyed", tracks=tracks, mesh_alpha=alpha))
    curve = Track(1, translation=(np.array([0.0, 1.0]), np.array([[0, 0, 0], [1.0, 2, 3]])),
                  handles={"translation": (np.zeros((2, 3)), np.ones((2, 3)))})
    clips.append(Clip("curved", "keyed", tracks=[curve]))
    worlds = np.repeat(np.eye(4)[None, None], 3 * 5, axis=0).reshape(3, 5, 4, 4)
    worlds[:, 0, :3, 3] = [[0, 0, 0], [3, 4, 0], [3, 4, 2]]
    clips.insert(count // 2, Clip("matrices", "matrices", times=[0.0, 1.0, 2.0], world=worlds))
    return clips


def five_bones():
    """A root, a chain of two under it, a leaf beside them and a bone under the leaf, not in index
    order down the tree."""
    places = [translation(0, 0, 0), translation(1, 0, 0), translation(1, 1, 0), translation(0, 2, 0),
              translation(0, 2, 1)]
    return skeleton(places, [-1, 0, 1, 4, 0])


@pytest.mark.parametrize("per_batch", [clip_batches.MATRICES_PER_BATCH, 12, 1])
def test_travels_together_are_each_clips_own_to_the_last_bit(monkeypatch, per_batch):
    monkeypatch.setattr(clip_batches, "MATRICES_PER_BATCH", per_batch)
    clips = varied_clips(np.random.default_rng(3), 60)
    alone = Model("alone", five_bones(), clips=clips)
    together = Model("together", five_bones(), clips=[Clip(c.name, c.kind, tracks=c.tracks, times=c.times,
                                                            world=c.world, mesh_alpha=c.mesh_alpha)
                                                       for c in clips])
    assert root_travels(together, together.clips) == [root_travel(alone, clip) for clip in alone.clips]


def test_batches_hold_each_clips_frame_worlds_for_the_bones_it_can_move(monkeypatch):
    monkeypatch.setattr(clip_batches, "MATRICES_PER_BATCH", 40)
    model = Model("five", five_bones(), clips=[c for c in varied_clips(np.random.default_rng(5), 30)
                                               if clip_batches.sampled_together(c)])
    batches = list(clip_batches.frame_batches(model.skeleton, model.clips))
    assert len(batches) > 1
    assert np.concatenate([batch.clips for batch in batches]).tolist() == list(range(len(model.clips)))
    for batch in batches:
        assert batch.worlds.shape[0] == batch.starts[-1]
        assert len(batch.clips) == 1 or batch.worlds.shape[0] * len(batch.bones) <= 40
        for row, position in enumerate(batch.clips):
            clip = model.clips[position]
            alone = frame_worlds(model, clip)[:, batch.bones]
            assert np.array_equal(batch.worlds[batch.starts[row]:batch.starts[row + 1]], alone)


def test_bones_no_clip_reaches_are_left_out_of_the_batch():
    # bone3 and its child bone4 hang off the root; the clips key bone2 only: bones 0, 1, 2 are worked out
    bend = Track(2, rotation=(np.array([0.0, 1.0]), [IDENTITY, QUARTER_TURN_Z]))
    clips = [Clip("bend", "keyed", tracks=[bend])]
    batch, = clip_batches.frame_batches(five_bones(), clips)
    assert batch.bones.tolist() == [0, 1, 2]


def test_a_model_without_bones_travels_nothing():
    model = Model("empty", skeleton(np.zeros((0, 4, 4)), np.zeros(0, int)),
                  clips=[Clip("nothing", "keyed", tracks=[])])
    assert root_travels(model, model.clips) == [(0.0, 0.0)]


def test_info_travels_on_real_files_are_each_clips_own():
    for path in (CORPUS / "Fox" / "Fox.glb", CORPUS / "cmu-bvh" / "01_01_first240.bvh"):
        model = loading.load([path])
        again = loading.load([path])
        assert root_travels(model, model.clips) == [root_travel(again, clip) for clip in again.clips]
