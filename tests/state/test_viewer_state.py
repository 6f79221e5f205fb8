"""The viewer's state without Qt or timers: models shown and reloaded, time moved by ``tick(dt)``,
display options and selection with their events, mesh visibility and textures, the up axis, warnings
and exports. Expected poses are worked out by hand on a two-bone chain turning about Z."""

import math

import numpy as np
import pytest
from PIL import Image

from app import formats, loading
from app.model import Clip, Mesh, Track
from app.state.display import DisplayOptions
from app.state.exports import with_suffix
from app.state.viewer import ViewerState
from app.formats.textures import TextureError
from tests.helpers import chain_model

#: The turn clip: bone0 turns from 0 to 90 degrees about Z over one second.
TURN = [[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, math.sin(math.pi / 4), math.cos(math.pi / 4)]]


def turn_clip(name="turn"):
    return Clip(name, "keyed", tracks=[Track(0, rotation=([0.0, 1.0], TURN))])


def hold_clip():
    """Two seconds holding the bind pose."""
    return Clip("hold", "keyed", tracks=[Track(0, rotation=([0.0, 2.0], [TURN[0]] * 2))])


def tip_at(pose) -> np.ndarray:
    """Where bone1 (one unit along bone0's X) is in the pose."""
    return pose.world[1, :3, 3]


def turned(degrees) -> list[float]:
    angle = math.radians(degrees)
    return [math.cos(angle), math.sin(angle), 0.0]


class Recorder:
    """Every event of a state, in order, as (name, args)."""

    def __init__(self, events, names):
        self.calls = []
        for name in names:
            events.subscribe(name, lambda *args, n=name: self.calls.append((n, args)))

    def names(self):
        return [name for name, _ in self.calls]


class DictMemory:
    """The per-file memories the window keeps in QSettings, kept in dicts."""

    def __init__(self):
        self.axes, self.images = {}, {}

    def get(self, file):
        return self.axes.get(file)

    def remember(self, *args):
        if len(args) == 2:
            self.axes[args[0]] = args[1]
        else:
            model, indices, image = args
            self.images.setdefault(model.files[0], {}).update({index: image for index in indices})

    def for_model(self, model):
        found = {}
        for index, image in self.images.get(model.files[0], {}).items():
            found.setdefault(image, []).append(index)
        return found


@pytest.fixture
def state():
    viewer = ViewerState()
    viewer.set_model(chain_model(clips=[turn_clip(), hold_clip()]))
    return viewer


def test_a_new_model_plays_its_first_clip_from_the_start(state):
    events = Recorder(state.events, ["model", "pose"])
    state.set_model(chain_model(clips=[turn_clip()]))
    assert events.names() == ["model", "pose"] and events.calls[0][1] == (False,)
    assert (state.playback.clip.name, state.playback.time, state.playback.playing) == ("turn", 0.0, True)
    np.testing.assert_allclose(tip_at(state.current_pose()), turned(0), atol=1e-6)


def test_tick_moves_the_playhead_by_the_wall_time(state):
    events = Recorder(state.events, ["pose"])
    state.tick(0.25)
    state.tick(0.25)
    assert state.playback.time == pytest.approx(0.5) and len(events.calls) == 2
    np.testing.assert_allclose(tip_at(state.current_pose()), turned(45), atol=1e-6)
    state.playback.set_playing(False)
    state.tick(0.3)
    assert state.playback.time == pytest.approx(0.5)


def test_tick_follows_speed_and_direction(state):
    state.playback.set_speed(0.5)
    state.tick(0.5)
    assert state.playback.time == pytest.approx(0.25)
    state.playback.set_reverse(True)
    state.tick(0.1)
    assert state.playback.time == pytest.approx(0.2)


def test_a_reload_keeps_clip_time_speed_and_direction_by_clip_name(state):
    state.playback.set_clip(1)
    state.playback.set_time(1.5)
    state.playback.set_speed(2.0)
    state.playback.set_loop(False)
    state.playback.set_reverse(True)
    events = Recorder(state.events, ["model"])
    state.set_model(chain_model(clips=[turn_clip("other"), hold_clip()]), keep_state=True)
    playback = state.playback
    assert events.calls == [("model", (True,))]
    assert (playback.clip.name, playback.time, playback.speed) == ("hold", 1.5, 2.0)
    assert (playback.loop, playback.reverse, playback.playing) == (False, True, True)


def test_another_model_starts_afresh(state):
    state.playback.set_clip(1)
    state.playback.set_speed(2.0)
    state.set_model(chain_model(clips=[turn_clip(), hold_clip()]))
    assert (state.playback.clip.name, state.playback.speed) == ("turn", 1.0)


def test_a_model_without_meshes_shows_its_skeleton(state):
    assert not state.display.bones
    events = Recorder(state.events, ["display"])
    state.set_model(chain_model(meshes=[]))
    assert state.display.bones and events.calls == [("display", ("bones", True))]


def test_display_options_emit_their_own_event_once_per_change():
    options = DisplayOptions()
    calls = []
    options.events.subscribe("wireframe", lambda value: calls.append(("wireframe", value)))
    options.events.subscribe("changed", lambda name, value: calls.append(("changed", name, value)))
    options.wireframe = True
    options.wireframe = True
    options.set(grid=False, skinning="dqs")
    assert calls == [("wireframe", True), ("changed", "wireframe", True), ("changed", "grid", False),
                     ("changed", "skinning", "dqs")]


@pytest.mark.parametrize("change", [{"skinning": "quaternion"}, {"background": (1.0, 0.0, 0.0)},
                                    {"background": (2.0, 0.0, 0.0, 1.0)}, {"colour": 1}])
def test_display_options_refuse_values_they_cannot_hold(change):
    options = DisplayOptions()
    with pytest.raises((ValueError, AttributeError)):
        options.set(**change)
    assert (options.skinning, options.background) == ("lbs", DisplayOptions().background)


def test_the_state_passes_display_changes_on(state):
    events = Recorder(state.events, ["display", "message"])
    state.set_display(normals=True)
    state.set_display(heatmap=True)
    assert events.calls[0] == ("display", ("normals", True))
    assert events.names()[1:] == ["message", "display"], "a heat map without a bone asks for one"
    state.select_bone(1)
    events.calls.clear()
    state.set_display(heatmap=False)
    state.set_display(heatmap=True)
    assert events.names() == ["display", "display"]


def test_selecting_a_bone_tells_the_views_and_names_it(state):
    events = Recorder(state.events, ["selection", "message"])
    state.select_bone(1)
    state.select_bone(None)
    assert events.calls == [("selection", (1,)), ("message", ("bone 1: bone1",)), ("selection", (None,))]
    with pytest.raises(ValueError, match="bone 2 outside 0..1"):
        state.select_bone(2)
    state.select_bone(1)
    state.set_model(chain_model())
    assert state.selected_bone is None


def test_mesh_visibility(state):
    events = Recorder(state.events, ["meshes"])
    state.set_mesh_visible(0, False)
    assert not state.model.meshes[0].visible and events.calls == [("meshes", ([0],))]


def two_meshes(files):
    arm = chain_model().meshes[0]
    other = Mesh("other", positions=arm.positions, joints=arm.joints, weights=arm.weights,
                 triangles=arm.triangles, uvs=np.zeros((3, 2)))
    model = chain_model(meshes=[arm, other])
    model.files = files
    return model


def test_an_assigned_texture_shows_on_its_meshes_and_comes_back_next_time(tmp_path):
    picture = np.zeros((2, 3, 4), np.uint8)
    picture[..., 0], picture[..., 3] = 200, 255
    Image.fromarray(picture, "RGBA").save(tmp_path / "skin.png")
    memory = DictMemory()
    state = ViewerState(textures=memory)
    state.set_model(two_meshes([str(tmp_path / "hero.mdl")]))
    events = Recorder(state.events, ["meshes", "message"])
    message = state.assign_texture([1], tmp_path / "skin.png")
    assert events.calls == [("meshes", ([1],)), ("message", (message,))]
    assert message == "skin.png on other"
    other = state.model.meshes[1].material
    assert (other.image == picture).all() and other.base_color[:3] == (1.0, 1.0, 1.0)
    assert state.model.meshes[0].material.image is None
    again = ViewerState(textures=memory)
    again.set_model(two_meshes([str(tmp_path / "hero.mdl")]))
    assert (again.model.meshes[1].material.image == picture).all()


def test_an_image_without_texture_coordinates_is_named(tmp_path, state):
    Image.fromarray(np.zeros((1, 1, 4), np.uint8), "RGBA").save(tmp_path / "skin.png")
    assert state.assign_texture([0], tmp_path / "skin.png").endswith(
        "arm has no texture coordinates, so it shows its base colour")


def test_an_unreadable_image_leaves_the_meshes_alone(tmp_path, state):
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not a picture")
    before = state.model.meshes[0].material
    with pytest.raises(TextureError):
        state.assign_texture([0], bad)
    assert state.model.meshes[0].material is before


def test_a_gone_remembered_image_is_a_message(tmp_path):
    memory = DictMemory()
    model = two_meshes([str(tmp_path / "hero.mdl")])
    memory.remember(model, [0], str(tmp_path / "gone.png"))
    state = ViewerState(textures=memory)
    events = Recorder(state.events, ["message"])
    state.set_model(model)
    assert "gone.png" in events.calls[0][1][0] and state.model.meshes[0].material.image is None


def test_dropped_images_go_on_the_mesh_under_the_cursor_else_on_every_mesh(state):
    assert state.texture_targets(None) == [0] and state.texture_targets(0) == [0]
    state.set_model(two_meshes([]))
    assert state.texture_targets(1) == [1] and state.texture_targets(None) == [0, 1]


def test_the_up_axis_is_remembered_per_file_unless_the_command_line_gives_one(tmp_path):
    memory = DictMemory()
    state = ViewerState(up_axes=memory)
    state.set_model(two_meshes([str(tmp_path / "hero.mdl")]))
    other = "Y" if state.model.up_axis == "Z" else "Z"
    events = Recorder(state.events, ["up_axis"])
    state.set_up_axis(other)
    assert events.calls == [("up_axis", (other,))] and memory.axes == {str(tmp_path / "hero.mdl"): other}
    assert (state.model.up_axis, state.model.up_source) == (other, "option")
    state.set_model(two_meshes([str(tmp_path / "hero.mdl")]))
    assert state.model.up_axis == other
    given = two_meshes([str(tmp_path / "hero.mdl")])
    given.up_source = "option"
    state.set_model(given)
    assert state.model.up_axis != other, "--up wins over the remembered axis"
    with pytest.raises(ValueError):
        state.set_up_axis("X")


def test_warnings_are_the_models_and_those_met_while_drawing(state):
    model = chain_model()
    model.warnings = ["read: odd"]
    state.set_model(model)
    events = Recorder(state.events, ["warnings"])
    state.add_warning("texture shrunk")
    assert events.calls == [("warnings", (["read: odd", "texture shrunk"],))]
    state.set_model(chain_model())
    assert state.warnings == []


def test_export_pose_writes_the_pose_on_screen(tmp_path, state):
    state.playback.set_playing(False)
    state.playback.set_time(0.5)
    done = state.export_pose(tmp_path / "pose")
    assert done.path == tmp_path / "pose.obj" and done.warnings == []
    vertices = [line.split()[1:] for line in done.path.read_text().splitlines() if line.startswith("v ")]
    # The arm's second vertex, (2, 0, 0) on bone0, turned 45 degrees with it.
    np.testing.assert_allclose(np.array(vertices, float)[1], np.array(turned(45)) * 2, atol=1e-5)
    arrays = np.load(state.export_pose(tmp_path / "pose.npz").path)
    np.testing.assert_allclose(arrays["world"][1, :3, 3], turned(45), atol=1e-6)


def test_export_gltf_writes_every_clip_and_checks_the_file(tmp_path):
    state = ViewerState()
    state.set_model(loading.load([formats_demo()]))
    done = state.export_gltf(tmp_path / "all")
    assert done.path == tmp_path / "all.glb" and "vertex error" in done.note
    back = loading.load([done.path])
    assert [clip.name for clip in back.clips] == [clip.name for clip in state.model.clips]
    assert state.export_gltf(tmp_path / "all.gltf").path.suffix == ".gltf"


def formats_demo():
    from app.resources import demo_paths

    return demo_paths()[0]


def test_close_goes_back_to_the_demo_keeping_the_quaternion_convention(state):
    state.load_options = formats.LoadOptions(fps=5.0, conjugate_quaternions=True)
    state.close_model()
    assert list(state.model.files) == [str(formats_demo())]
    assert state.load_options.fps is None and state.load_options.conjugate_quaternions


def test_suffixes_are_kept_when_known_and_added_otherwise():
    assert with_suffix("a.OBJ", (".obj",), ".obj").name == "a.OBJ"
    assert with_suffix("a.pose", (".obj",), ".obj").name == "a.pose.obj"


def test_export_gltf_writes_the_meshes_the_view_shows(tmp_path):
    state = ViewerState()
    model = two_meshes([])
    model.meshes[1].visible = False
    state.set_model(model)
    shown = state.export_gltf(tmp_path / "shown.glb")
    assert [mesh.name for mesh in loading.load([shown.path]).meshes] == ["arm"] and shown.note
    state.set_display(show_hidden=True)
    every = state.export_gltf(tmp_path / "every.glb")
    assert sorted(mesh.name for mesh in loading.load([every.path]).meshes) == ["arm", "other"]


def test_dropped_animation_files_attach_and_models_open(tmp_path):
    from tests.demo_formats import WRITERS

    demo = loading.load([formats_demo()])
    structure, animation = WRITERS["bonespro"](demo, tmp_path)
    mesh, bones = WRITERS["c3de"](demo, tmp_path)
    state = ViewerState()
    state.set_model(chain_model())
    assert not state.attaches([animation], forced=True), "a model without files has none to read again"
    state.set_model(loading.load([structure]))
    assert state.attaches([animation]) and not state.attaches([structure]) and not state.attaches([bones])
    assert state.attaches([structure], forced=True)
    assert state.files_with([animation, structure]) == [str(structure), str(animation)]
    state.set_model(loading.load([mesh]))
    assert state.attaches([bones]) and not state.attaches([tmp_path / "missing.anm"])


# --- the ragdoll: go, tick, stop, bake ------------------------------------------------------------

@pytest.fixture
def ragdoll_state(tmp_path):
    """The demo with its auto-set-up ragdoll, playing the walk from 0.3 s."""
    from app.resources import demo_paths

    state = ViewerState(ragdoll_dir=tmp_path)
    state.set_model(loading.load(demo_paths()))
    state.document.path = None  # never write beside the built-in demo
    state.playback.set_time(0.3)
    yield state
    state.simulation.close()


def test_going_ragdoll_takes_over_the_pose_and_tick_steps_the_simulation(ragdoll_state):
    state = ragdoll_state
    clip_pose = state.playback.pose()
    events = Recorder(state.events, ["ragdoll", "pose"])
    assert state.go_ragdoll(True) and state.ragdoll_running
    assert events.calls[0] == ("ragdoll", (True,)) and "pose" in events.names()
    assert not state.playback.playing, "playback pauses while the ragdoll runs"
    np.testing.assert_allclose(state.current_pose().world, clip_pose.world, atol=1e-4)
    for _ in range(20):
        state.tick(0.05)
    assert state.simulation.time > 0.2 and state.playback.time == pytest.approx(0.3)
    shown = state.current_pose()
    np.testing.assert_allclose(shown.world, state.simulation.pose().world)
    assert np.abs(shown.world[:, :3, 3] - clip_pose.world[:, :3, 3]).max() > 0.05, "gravity moved it"
    assert state.go_ragdoll(True) and state.ragdoll_running, "Go while running keeps running"


def test_stopping_goes_back_to_the_clip_and_resumes_playback(ragdoll_state):
    state = ragdoll_state
    state.go_ragdoll(True)
    state.tick(0.1)
    events = Recorder(state.events, ["ragdoll", "pose"])
    assert state.go_ragdoll(False) and not state.ragdoll_running
    assert events.calls[0] == ("ragdoll", (False,)) and state.playback.playing
    np.testing.assert_allclose(state.current_pose().world, state.playback.pose().world)
    state.tick(0.1)
    assert state.playback.time == pytest.approx(0.4)


def test_a_paused_clip_stays_paused_after_the_ragdoll(ragdoll_state):
    state = ragdoll_state
    state.playback.set_playing(False)
    state.go_ragdoll(True)
    state.go_ragdoll(False)
    assert not state.playback.playing and state.playback.time == pytest.approx(0.3)


def test_a_new_model_stops_the_ragdoll(ragdoll_state):
    state = ragdoll_state
    state.go_ragdoll(True)
    events = Recorder(state.events, ["ragdoll", "model"])
    state.set_model(loading.load([formats_demo()]))
    assert events.names() == ["ragdoll", "model"] and not state.ragdoll_running
    assert state.playback.playing and state.playback.time == 0.0


def test_bake_adds_the_run_as_a_clip_at_its_start(ragdoll_state):
    state = ragdoll_state
    events = Recorder(state.events, ["message", "model"])
    assert state.bake_ragdoll_run() is None
    assert events.calls == [("message", ("Nothing to bake yet: run the ragdoll for a moment first",))]
    clips = len(state.model.clips)
    state.go_ragdoll(True)
    for _ in range(10):
        state.tick(0.05)
    run_end, ran = state.simulation.pose().world, state.simulation.time
    events.calls.clear()
    clip = state.bake_ragdoll_run()
    assert clip is not None and len(state.model.clips) == clips + 1 and state.model.clips[-1] is clip
    assert clip.duration == pytest.approx(ran, abs=0.05) and ran > 0.3
    assert not state.ragdoll_running and events.names() == ["model", "message"]
    assert (state.playback.clip, state.playback.time, state.playback.playing) == (clip, clip.start, False)
    state.playback.set_time(clip.start + clip.duration)
    np.testing.assert_allclose(state.current_pose().world, run_end, atol=1e-3)


def test_a_ragdoll_that_cannot_start_is_an_action_error(ragdoll_state, monkeypatch):
    from app.state.viewer import ActionError

    state = ragdoll_state

    def refuse(clip, time):
        raise RuntimeError("pybullet refused the joint limits")

    monkeypatch.setattr(state.simulation, "go", refuse)
    with pytest.raises(ActionError, match="Could not start the ragdoll: pybullet refused"):
        state.go_ragdoll(True)
    assert not state.ragdoll_running and state.playback.playing
