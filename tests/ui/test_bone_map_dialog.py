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


def test_the_suggested_map_carries_the_walk_and_is_remembered_in_the_data_folder(qtbot, soldier_state,
                                                                                  tmp_path):
    from app.ui.bone_map_dialog import BoneMapDialog
    from app.user_files import user_data_dir

    demo = loading.load([str(path) for path in demo_paths()])
    soldier = soldier_state.model
    dialog = BoneMapDialog(demo, soldier_state)
    qtbot.addWidget(dialog)
    mapping = dialog.mapping()
    assert mapping["thigh_l"] == "mixamorig:LeftUpLeg" and "shin_l" not in mapping
    row = demo.skeleton.names.index("thigh_l")
    assert dialog.table.item(row, 2).text() == "name"  # thigh_l and LeftUpLeg agree by name_key
    dialog.accept()
    assert [clip.name for clip in soldier_state.model.clips] == ["walk", "idle"]
    assert soldier_state.playback.clip.name == "walk"
    assert sorted(p.name for p in tmp_path.iterdir() if "bonemap" in p.name) == []  # nothing beside it
    remembered = list((user_data_dir() / "bone_maps").iterdir())
    assert len(remembered) == 1 and json.loads(remembered[0].read_text()) == mapping
    # next time, for this pair, the remembered map is where the table starts
    soldier_state.set_model(soldier)
    again = BoneMapDialog(demo, soldier_state)
    qtbot.addWidget(again)
    assert again.mapping() == mapping and again.table.item(row, 2).text() == "remembered"


def test_two_bones_on_one_is_explained_and_nothing_changes(qtbot, soldier_state, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from app.ui.bone_map_dialog import BoneMapDialog

    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: shown.append(text))
    demo = loading.load([str(path) for path in demo_paths()])
    dialog = BoneMapDialog(demo, soldier_state)
    qtbot.addWidget(dialog)
    hips = soldier_state.model.skeleton.names.index("mixamorig:Hips")
    chest = dialog.choices[demo.skeleton.names.index("chest")]
    chest.setCurrentIndex(chest.findData(hips))
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


def test_the_picker_lists_bones_in_hierarchy_order_and_finds_them_by_any_part(qtbot, soldier_state):
    from app.ui.bone_map_dialog import BoneMapDialog

    demo = loading.load([str(path) for path in demo_paths()])
    dialog = BoneMapDialog(demo, soldier_state)
    qtbot.addWidget(dialog)
    picker = dialog.choices[0]
    names = soldier_state.model.skeleton.names
    parents = soldier_state.model.skeleton.parents
    listed = [picker.itemData(i) for i in range(1, picker.count())]
    assert sorted(listed) == list(range(len(names)))
    # every bone comes after its parent, indented one step further
    for position, bone in enumerate(listed):
        if parents[bone] >= 0:
            parent_position = listed.index(parents[bone])
            assert parent_position < position
            indent = len(picker.itemText(position + 1)) - len(names[bone])
            parent_indent = len(picker.itemText(parent_position + 1)) - len(names[parents[bone]])
            assert indent == parent_indent + 2
    completer = picker.completer()
    completer.setCompletionPrefix("leftupleg")  # any part of the name, any case
    matches = completer.completionModel()
    found = [matches.index(i, 0).data().strip() for i in range(completer.completionCount())]
    assert found == ["mixamorig:LeftUpLeg"]


def test_load_map_and_save_map_use_the_map_json(qtbot, soldier_state, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    from app.ui.bone_map_dialog import BoneMapDialog

    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, title, text: shown.append((title, text)))
    monkeypatch.setattr(QMessageBox, "information", lambda _parent, title, text: shown.append((title, text)))
    demo = loading.load([str(path) for path in demo_paths()])
    dialog = BoneMapDialog(demo, soldier_state)
    qtbot.addWidget(dialog)
    good = tmp_path / "good.json"
    good.write_text('{"pelvis": "mixamorig:Hips", "chest": "mixamorig:Spine", "tail": "mixamorig:Head"}')
    dialog.load_map(str(good))
    assert dialog.mapping() == {"pelvis": "mixamorig:Hips", "chest": "mixamorig:Spine"}
    assert dialog.table.item(demo.skeleton.names.index("pelvis"), 2).text() == "loaded"
    assert shown[-1][0] == "Load Map" and "tail" in shown[-1][1]  # the pair naming an unknown bone
    bad = tmp_path / "bad.json"
    bad.write_text('{"pelvis": "mixamorig:Hips",\n "chest": }')
    dialog.load_map(str(bad))
    assert shown[-1][0] == "Load Map" and "bad.json" in shown[-1][1] and ":2" in shown[-1][1]
    assert dialog.mapping() == {"pelvis": "mixamorig:Hips", "chest": "mixamorig:Spine"}  # rows kept
    saved = tmp_path / "saved.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: (str(saved), ""))
    dialog.save_dialog()
    assert json.loads(saved.read_text()) == {"pelvis": "mixamorig:Hips", "chest": "mixamorig:Spine"}


def highlighted_pixels(image, left: int, right: int):
    """(rows, columns) of the pane between columns ``left`` and ``right`` in the highlight's pink."""
    import numpy as np

    pane = image[:, left:right].astype(int)
    red, green, blue = pane[..., 0], pane[..., 1], pane[..., 2]
    mask = (red > 200) & (green < 110) & (blue > 120) & (blue < 210)
    rows, columns = np.nonzero(mask)
    return rows, columns + left


def drawn_rows(image, left: int, right: int):
    """The top and bottom rows of what is drawn (not background) in a pane, below the name strip."""
    import numpy as np

    pane = image[30:, left:right].astype(int)
    drawn = np.abs(pane - pane[-1, 2]).max(axis=-1) > 40
    rows = np.nonzero(drawn.any(axis=1))[0] + 30
    return rows.min(), rows.max()


@pytest.mark.gui
def test_the_two_skeletons_are_drawn_with_the_selected_pair_highlighted(qtbot, soldier_state):
    """The demo's skeleton left, the soldier's right, both standing (up is up on screen). Selecting a
    row draws its pair in pink where those bones are: the head's pair near the top of both, the left
    foot's near the bottom, each at its height among its skeleton's bones, worked out here from the
    rest pose (the up axis's coordinate) and compared with the pixels."""
    import numpy as np

    from app.pose import rest_pose
    from app.ui.bone_map_dialog import BoneMapDialog
    from tests.gui_helpers import image_array

    demo = loading.load([str(path) for path in demo_paths()])
    soldier = soldier_state.model
    dialog = BoneMapDialog(demo, soldier_state)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)

    def height_share(model, bone):
        """Where the bone's middle is between the lowest and the highest bone end (0: bottom, 1: top)."""
        heads, tails = rest_pose(model).heads_tails(model.skeleton)
        up = {"Y": 1, "Z": 2}[model.up_axis]
        ends = np.concatenate([heads[:, up], tails[:, up]])
        middle = (heads[bone, up] + tails[bone, up]) / 2
        return (middle - ends.min()) / (ends.max() - ends.min())

    for source_name, target_name in (("head", "mixamorig:Head"), ("foot_l", "mixamorig:LeftFoot")):
        row = demo.skeleton.names.index(source_name)
        target = soldier.skeleton.names.index(target_name)
        dialog.table.setCurrentCell(row, 0)
        dialog.choices[row].setCurrentIndex(dialog.choices[row].findData(target))
        image = image_array(dialog.skeletons.grab().toImage())
        half = image.shape[1] // 2
        for (left, right), model, bone in (((0, half), demo, row), ((half, 2 * half), soldier, target)):
            rows, _ = highlighted_pixels(image, left, right)
            assert len(rows) > 20, (source_name, model.name)
            top, bottom = drawn_rows(image, left, right)
            seen = (bottom - rows.mean()) / (bottom - top)
            assert abs(seen - height_share(model, bone)) < 0.12, (source_name, model.name, seen)
    dialog.choices[row].setCurrentIndex(0)  # (none): nothing to highlight on the right
    image = image_array(dialog.skeletons.grab().toImage())
    assert len(highlighted_pixels(image, half, 2 * half)[0]) == 0
    assert len(highlighted_pixels(image, 0, half)[0]) > 20
    head = demo.skeleton.names.index("head")
    dialog.choices[head].setCurrentIndex(0)  # picking a bone in another row selects that row
    assert dialog.table.currentRow() == head
