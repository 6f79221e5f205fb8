"""Root motion figures (app.animation.root_motion): the root's path over the ground, its length and speed,
and the in-place preview, against positions worked out by hand."""

import json

import numpy as np
import pytest

from app.animation.root_motion import in_place, motion_root, root_travel
from app.cli.main import main
from app.model import Clip, Track
from app.pose import frame_worlds, rest_extent
from tests.helpers import chain_model, translation
from tests.paths import CORPUS


def walk(bone=0):
    """``bone`` moved (0,0,0) → (3,4,1) → (3,4,6) at 0, 1, 2 s; an extra key at 0.5 s elsewhere."""
    moves = Track(bone, translation=(np.array([0.0, 1.0, 2.0]),
                                     np.array([[0, 0, 0], [3, 4, 1], [3, 4, 6]], dtype=float)))
    other = Track(1 - bone, rotation=(np.array([0.0, 0.5]), np.array([[0, 0, 0, 1.0]] * 2)))
    return Clip("walk", "keyed", tracks=[moves, other])


def test_travel_is_the_roots_path_over_the_ground_and_speed_its_mean():
    model = chain_model([walk()])  # Z up: the ground is X, Y
    travel, speed = root_travel(model, model.clips[0])
    # (0,0) → (1.5,2) → (3,4) → (3,4): 2.5 + 2.5 + 0 over 2 s.
    assert travel == pytest.approx(5.0, abs=1e-12)
    assert speed == pytest.approx(2.5, abs=1e-12)


def test_the_root_is_the_shallowest_bone_that_moves():
    model = chain_model([walk(bone=1)])
    worlds = frame_worlds(model, model.clips[0])
    assert motion_root(model, worlds) == 1
    # bone1 rests at (1, 0, 0) and its translation keys replace that: the same path as above.
    assert root_travel(model, model.clips[0]) == pytest.approx((5.0, 2.5), abs=1e-12)


def test_a_matrices_clip_measures_its_own_root_positions():
    frames = np.array([[translation(x, 0, 0), translation(x + 1, 0, 0)] for x in (0.0, 2.0, 1.0)])
    model = chain_model([Clip("m", "matrices", times=[0.0, 0.5, 1.0], world=frames)])
    assert root_travel(model, model.clips[0]) == pytest.approx((3.0, 3.0), abs=1e-12)


def test_a_clip_that_stays_put_travels_nothing():
    model = chain_model([Clip("still", "keyed", tracks=[
        Track(1, rotation=(np.array([0.0, 1.0]), np.array([[0, 0, 0, 1.0], [0, 0, 1, 0]])))])])
    assert root_travel(model, model.clips[0]) == (0.0, 0.0)


def test_in_place_takes_off_the_travel_over_the_ground_only():
    model = chain_model([walk()])
    worlds = frame_worlds(model, model.clips[0])
    placed = in_place(model, worlds)
    # frames at 0, 0.5, 1, 2 s: the root's height stays (0, 0.5, 1, 6), its X and Y return to 0.
    assert np.allclose(placed[:, 0, :3, 3], [[0, 0, 0], [0, 0, 0.5], [0, 0, 1], [0, 0, 6]], atol=1e-12)
    assert np.allclose(placed[:, 1, :3, 3] - placed[:, 0, :3, 3], [1, 0, 0], atol=1e-12)


def test_info_json_lists_travel_and_speed_per_clip(capsys):
    assert main(["info", "--demo", "--json"]) == 0
    clips = json.loads(capsys.readouterr().out)["clips"]
    assert all(set(clip) >= {"root_travel", "root_speed"} for clip in clips)
    for clip in clips:
        assert clip["root_speed"] == pytest.approx(clip["root_travel"] / clip["duration"])


def test_in_place_view_keeps_the_root_on_its_start_over_the_ground():
    from app.state.viewer import ViewerState

    state = ViewerState()
    state.set_model(chain_model([walk()]))
    state.playback.set_playing(False)
    state.playback.set_time(1.0)
    assert np.allclose(state.current_pose().world[0, :3, 3], [3, 4, 1], atol=1e-12)
    poses = []
    state.events.subscribe("pose", lambda: poses.append(state.current_pose()))
    state.set_display(in_place=True)
    # the travel over the ground (3, 4) is taken off; the height (1) stays, and so does bone1's reach.
    assert len(poses) == 1 and np.allclose(poses[0].world[0, :3, 3], [0, 0, 1], atol=1e-12)
    assert np.allclose(poses[0].world[1, :3, 3], [1, 0, 1], atol=1e-12)
    assert np.allclose(poses[0].skin[1] @ [1, 0, 0, 1], [1, 0, 1, 1], atol=1e-12)
    state.set_display(in_place=False)
    assert np.allclose(state.current_pose().world[0, :3, 3], [3, 4, 1], atol=1e-12)


def test_the_clip_lists_tooltip_gives_travel_and_speed():
    from app.ui.timeline import travel_text

    model = chain_model([walk()])
    assert travel_text(model, model.clips[0]) == "the root travels 5 (2.5 per second)"


def test_frame_worlds_agree_with_posing_each_frame_step_keys_included():
    from app.pose import evaluate

    step = Track(1, translation=(np.array([0.0, 0.3, 0.9]), np.array([[1.0, 0, 0], [1, 2, 0], [1, 2, 3]])),
                 interpolation="step")
    turn = Track(0, rotation=(np.array([0.1, 0.6]), np.array([[0, 0, 0, 1.0], [0, 0, 1, 0]])),
                 scale=(np.array([0.0, 1.0]), np.array([[1.0, 1, 1], [2, 2, 2]])))
    model = chain_model([Clip("mixed", "keyed", tracks=[step, turn])])
    clip = model.clips[0]
    worlds = frame_worlds(model, clip)
    assert worlds.shape == (len(clip.frame_times), 2, 4, 4)
    for frame, time in enumerate(clip.frame_times):
        assert np.abs(worlds[frame] - evaluate(model, clip, float(time)).world).max() <= 1e-12


def test_root_path_lines_follow_the_ground_with_a_facing_tick_each_second():
    from app.animation.root_motion import TICK_SHARE, root_path_lines

    model = chain_model([walk()])
    segments, ticks = root_path_lines(model, model.clips[0])
    # frames at 0, 0.5, 1, 2 s; the height is left out (Z up).
    assert np.allclose(segments, [[[0, 0, 0], [1.5, 2, 0]], [[1.5, 2, 0], [3, 4, 0]], [[3, 4, 0], [3, 4, 0]]])
    # ticks at 0, 1 and 2 s, facing the front of a Z-up model (−Y) as the root has not turned.
    reach = TICK_SHARE * rest_extent(model)
    assert np.allclose(ticks[:, 0], [[0, 0, 0], [3, 4, 0], [3, 4, 0]])
    assert np.allclose(ticks[:, 1] - ticks[:, 0], [[0, -reach, 0]] * 3)


def test_root_path_scene_is_drawn_only_when_asked():
    from app.state.viewer import ViewerState

    state = ViewerState()
    state.set_model(chain_model([walk()]))
    assert state.root_path_scene() is None
    state.set_display(root_path=True)
    scene = state.root_path_scene()
    assert scene.line_count == 3 + 3 and scene is state.root_path_scene()


def test_an_in_place_clip_is_what_the_in_place_view_shows_at_every_stored_frame():
    from app.animation.root_motion import in_place_clip
    from app.state.viewer import ViewerState

    model = chain_model([walk()])
    placed = in_place_clip(model, model.clips[0])
    assert (placed.name, placed.kind) == ("walk", "matrices")
    assert np.array_equal(placed.times, [0.0, 0.5, 1.0, 2.0])
    # bone0 keeps its height (0, 0.5, 1, 6) over its start (0, 0); bone1 stays one unit along X of it
    assert np.allclose(placed.world[:, 0, :3, 3], [[0, 0, 0], [0, 0, 0.5], [0, 0, 1], [0, 0, 6]], atol=1e-12)
    assert np.allclose(placed.world[:, 1, :3, 3], [[1, 0, 0], [1, 0, 0.5], [1, 0, 1], [1, 0, 6]], atol=1e-12)
    state = ViewerState()
    state.set_model(model)
    state.set_display(in_place=True)
    for frame, time in enumerate(placed.times):
        state.playback.set_time(time)
        assert np.abs(state.current_pose().world - placed.world[frame]).max() <= 1e-12
    assert root_travel(model, placed) == (0.0, 0.0)


def test_in_place_leaves_the_bones_above_the_root_and_clips_that_do_not_travel_alone():
    from app.animation.root_motion import in_place_clip
    from app.model import Model
    from tests.helpers import skeleton

    # an armature bone at (0, 0, 5) above the chain: the walk moves bone1 (under it) to (3, 4, 1)
    bones = skeleton([translation(0, 0, 5), translation(0, 0, 5), translation(1, 0, 5)], [-1, 0, 1])
    moves = Track(1, translation=(np.array([0.0, 1.0]), np.array([[0, 0, 0], [3, 4, 1]], dtype=float)))
    model = Model("rig", bones, clips=[Clip("walk", "keyed", tracks=[moves])])
    placed = in_place_clip(model, model.clips[0])
    assert np.allclose(placed.world[:, 0, :3, 3], [[0, 0, 5], [0, 0, 5]], atol=1e-12)
    assert np.allclose(placed.world[:, 1, :3, 3], [[0, 0, 5], [0, 0, 6]], atol=1e-12)
    assert np.allclose(placed.world[:, 2, :3, 3], [[1, 0, 5], [1, 0, 6]], atol=1e-12)
    still = Clip("still", "keyed", tracks=[Track(1, translation=(np.array([0.0, 1.0]),
                                                                 np.array([[0, 0, 0], [0, 0, 2.0]])))])
    vertex = Clip("wobble", "vertex", times=[0.0, 1.0], positions=np.zeros((2, 0, 3)))
    assert in_place_clip(model, still) is still and in_place_clip(model, vertex) is vertex


FOX = str(CORPUS / "Fox" / "Fox.glb")


def hips_over_frames(model, clip):
    """The Fox's hips (b_Hip_01) at each stored frame of ``clip``."""
    return frame_worlds(model, clip)[:, model.skeleton.names.index("b_Hip_01"), :3, 3]


def test_convert_in_place_writes_clips_without_travel_and_keeps_it_otherwise(tmp_path):
    from app import loading

    source = loading.load([FOX])
    assert main(["convert", FOX, "-o", str(tmp_path / "kept.glb")]) == 0
    assert main(["convert", FOX, "--in-place", "-o", str(tmp_path / "placed.glb")]) == 0
    kept, placed = (loading.load([str(tmp_path / name)]) for name in ("kept.glb", "placed.glb"))
    run = source.clip_index("Run")
    assert root_travel(kept, kept.clips[run])[0] == pytest.approx(root_travel(source, source.clips[run])[0],
                                                                  rel=1e-6)
    hips, written = hips_over_frames(source, source.clips[run]), hips_over_frames(placed, placed.clips[run])
    # Y up: the hips keep their height at every frame, and stay over where they start on X and Z
    assert np.allclose(written[:, 1], hips[:, 1], atol=1e-4)
    assert np.allclose(written[:, [0, 2]], hips[0, [0, 2]], atol=1e-4)
    assert root_travel(placed, placed.clips[run])[0] < 1e-4 < 26.0 < root_travel(source, source.clips[run])[0]


def test_pose_in_place_puts_the_hips_over_their_start(tmp_path):
    from app import loading

    source = loading.load([FOX])
    run = source.clips[source.clip_index("Run")]
    out = tmp_path / "pose.npz"
    assert main(["pose", FOX, "--clip", "Run", "--frame", "12", "--in-place", "-o", str(out)]) == 0
    hips = hips_over_frames(source, run)
    written = np.load(out)["world"][source.skeleton.names.index("b_Hip_01"), :3, 3]
    assert np.allclose(written, [hips[0, 0], hips[12, 1], hips[0, 2]], atol=1e-4)
