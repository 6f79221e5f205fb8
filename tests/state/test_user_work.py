"""The user's work on the model on screen (added clips, mesh choices, the selected bone) kept when
the model is read again (Reload, a new frame rate) and forgotten when another model opens."""

import numpy as np

from app import formats
from app.model import Clip, Mesh, Model, Track
from app.state.viewer import ViewerState
from tests.helpers import skeleton, translation


def turn(name):
    return Clip(name, "keyed", tracks=[Track(1, rotation=(np.array([0.0, 1.0]), [[0, 0, 0, 1]] * 2))])


def read_from_files(names=("root", "arm")):
    """A fresh model as a read of ``hero.glb`` gives it: two bones, two meshes, one clip."""
    bones = skeleton([np.eye(4), translation(1, 0, 0)], [-1, 0], list(names))
    meshes = [Mesh(name, [[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0], [1], [1]], [[1], [1], [1]],
                   triangles=[[0, 1, 2]]) for name in ("body", "cloak")]
    model = Model("hero", bones, meshes=meshes, clips=[turn("walk")])
    model.files = ["hero.glb"]
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


def test_another_model_forgets_the_work():
    state = worked_on()
    state.set_model(read_from_files())
    assert [clip.name for clip in state.model.clips] == ["walk"]
    assert [mesh.visible for mesh in state.model.meshes] == [True, True]
    assert state.selected_bone is None and state.user_work.unsaved_clips == []
