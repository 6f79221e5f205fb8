"""File › Attach Clips of Another Skeleton…: the bone map table, its checks and the saved map."""

import json

import pytest

from app import loading
from app.resources import demo_paths
from tests.gui_helpers import needs_display
from tests.tool_exports import mixamo_character

pytestmark = needs_display


@pytest.fixture
def soldier_state(tmp_path):
    from app.state.viewer import ViewerState

    state = ViewerState()
    state.set_model(loading.load([str(mixamo_character(tmp_path))]))
    return state


def test_the_suggested_map_carries_the_walk_and_is_saved_beside_the_model(qtbot, soldier_state, tmp_path):
    from app.ui.bone_map_dialog import BoneMapDialog

    demo = loading.load([str(path) for path in demo_paths()])
    dialog = BoneMapDialog(demo, soldier_state)
    qtbot.addWidget(dialog)
    mapping = dialog.mapping()
    assert mapping["thigh_l"] == "mixamorig:LeftUpLeg" and "shin_l" not in mapping
    dialog.accept()
    assert [clip.name for clip in soldier_state.model.clips] == ["walk", "idle"]
    assert soldier_state.playback.clip.name == "walk"
    assert json.loads((tmp_path / "soldier.bonemap.json").read_text()) == mapping
    # next time the saved map is where the table starts
    again = BoneMapDialog(demo, soldier_state)
    qtbot.addWidget(again)
    assert again.mapping() == mapping


def test_two_bones_on_one_is_explained_and_nothing_changes(qtbot, soldier_state, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from app.ui.bone_map_dialog import BoneMapDialog

    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: shown.append(text))
    demo = loading.load([str(path) for path in demo_paths()])
    dialog = BoneMapDialog(demo, soldier_state)
    qtbot.addWidget(dialog)
    hips = soldier_state.model.skeleton.names.index("mixamorig:Hips") + 1
    dialog.choices[demo.skeleton.names.index("chest")].setCurrentIndex(hips)
    dialog.accept()
    assert shown and "target bone 'mixamorig:Hips' has two source bones: 'pelvis' and 'chest'" in shown[0]
    assert list(soldier_state.model.clips) == []


def test_c3de_characters_of_one_inferred_hierarchy_start_paired_by_index(qtbot):
    from app.state.viewer import ViewerState
    from app.ui.bone_map_dialog import BoneMapDialog
    from tests.loose_rigs import figure, loose_model, posed_frames, skinning, walk_turns

    shape = figure()
    walk = skinning(shape, posed_frames(shape, walk_turns(8), 0.5))
    walker = loose_model(shape, "walker", skinning_frames=walk)
    state = ViewerState()
    state.set_model(loose_model(shape, "larger", scale=1.5))
    dialog = BoneMapDialog(walker, state)
    qtbot.addWidget(dialog)
    assert dialog.mapping() == {f"bone {i}": f"bone {i}" for i in range(9)}
    dialog.accept()
    assert [clip.name for clip in state.model.clips] == ["walk"]


def test_c3de_characters_of_other_hierarchies_start_paired_by_where_bones_rest(qtbot):
    from app.state.viewer import ViewerState
    from app.ui.bone_map_dialog import BoneMapDialog
    from tests.loose_rigs import Z_UP_FACING_X, figure, loose_model, posed_frames, skinning, walk_turns

    shape, other = figure(), figure(thigh=0.6, shin=0.38, torso=0.3, hips=0.18, foot=0.2)
    walk = skinning(shape, posed_frames(shape, walk_turns(8), 0.5))
    walker = loose_model(shape, "walker", skinning_frames=walk)
    order = (5, 2, 0, 7, 1, 8, 3, 6, 4)  # file bone i of the other character is canonical bone order[i]
    state = ViewerState()
    state.set_model(loose_model(other, "other", order=order, axes=Z_UP_FACING_X))
    dialog = BoneMapDialog(walker, state)
    qtbot.addWidget(dialog)
    assert dialog.mapping() == {f"bone {bone}": f"bone {order.index(bone)}" for bone in range(9)}
    dialog.accept()
    assert [clip.name for clip in state.model.clips] == ["walk"]
