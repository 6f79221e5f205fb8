"""The user's work on the model on screen (added clips, mesh choices, the selected bone) kept when
the model is read again (Reload, a new frame rate), set aside when another model opens and taken up
again when its files open again (Open Recent); File › Close drops it."""

import numpy as np

from app import formats
from app.model import Clip, Mesh, Model, Track
from app.state.viewer import ViewerState
from tests.helpers import skeleton, translation


def turn(name):
    return Clip(name, "keyed", tracks=[Track(1, rotation=(np.array([0.0, 1.0]), [[0, 0, 0, 1]] * 2))])


def read_from_files(names=("root", "arm"), file="hero.glb"):
    """A fresh model as a read of ``file`` gives it: two bones, two meshes, one clip."""
    bones = skeleton([np.eye(4), translation(1, 0, 0)], [-1, 0], list(names))
    meshes = [Mesh(name, [[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0], [1], [1]], [[1], [1], [1]],
                   triangles=[[0, 1, 2]]) for name in ("body", "cloak")]
    model = Model("hero", bones, meshes=meshes, clips=[turn("walk")])
    model.files = [file]
    return model.freeze()


def worked_on() -> ViewerState:
    state = ViewerState(formats.LoadOptions())
    state.set_model(read_from_files())
    state._add_clips([turn("mapped")])  # as the bone map or Keep as Clip adds them
    state.set_mesh_visible(1, False)
    state.select_bone(1)
    return state


def test_reading_the_model_again_keeps_the_users_work():
    state = worked_on()
    state.set_model(read_from_files(), keep_state=True)
    assert [clip.name for clip in state.model.clips] == ["walk", "mapped"]
    assert [mesh.visible for mesh in state.model.meshes] == [True, False]
    assert state.selected_bone == 1
    assert state.user_work.unsaved_clips == ["mapped"]


def test_a_changed_skeleton_drops_the_added_clips_but_keeps_the_rest():
    state = worked_on()
    state.set_model(read_from_files(("arm", "root")), keep_state=True)  # bones reordered in the file
    assert [clip.name for clip in state.model.clips] == ["walk"]
    assert [mesh.visible for mesh in state.model.meshes] == [True, False]
    assert state.selected_bone == 0  # "arm", found by name


def test_another_model_starts_without_the_work():
    state = worked_on()
    state.set_model(read_from_files(file="other.glb"))
    assert [clip.name for clip in state.model.clips] == ["walk"]
    assert [mesh.visible for mesh in state.model.meshes] == [True, True]
    assert state.selected_bone is None and state.user_work.unsaved_clips == []


def test_the_work_is_set_aside_for_its_files_and_taken_up_when_they_open_again():
    state = worked_on()
    state.set_model(read_from_files(file="other.glb"))
    assert [clip.name for clip in state.model.clips] == ["walk"] and state.selected_bone is None
    assert state.user_work.clips_set_aside(["hero.glb"]) == 1
    state.set_model(read_from_files())  # File › Open Recent: hero.glb again
    assert [clip.name for clip in state.model.clips] == ["walk", "mapped"]
    assert [mesh.visible for mesh in state.model.meshes] == [True, False]
    assert state.selected_bone == 1 and state.user_work.clips_set_aside(["hero.glb"]) == 0


def test_close_drops_the_work():
    state = worked_on()
    state.close_model()
    state.set_model(read_from_files())
    assert [clip.name for clip in state.model.clips] == ["walk"]
