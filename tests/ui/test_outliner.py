"""The outliner tree (nesting, filter, selection signals) and the inspector (matrices, skin, extras)."""

import numpy as np
import pytest

from app.model import Helper, Material, Mesh, Model, Skeleton
from app.pose import pose_from_world, rest_pose
from tests.gui_helpers import needs_display
from tests.helpers import rotation_z, translation

pytestmark = [pytest.mark.gui, needs_display]

#: Children before their parents on purpose: the tree must not depend on array order.
NAMES = ["hand", "arm", "root", "leg"]
PARENTS = [1, 2, -1, 2]
HAND, ARM, ROOT, LEG = range(4)


def small_model(extras=None, file_format=""):
    bind = np.stack([translation(3, 0, 0), translation(1.5, 0, 0), np.eye(4), translation(0, 0, -1)])
    heads = bind[:, :3, 3]
    skeleton = Skeleton(names=NAMES, parents=PARENTS, bind_world=bind, heads=heads, tails=heads + [0.5, 0, 0],
                        derived_tails=[True, False, False, False], extras=extras or [])
    mesh = Mesh("sleeve", positions=[[1, 0, 0], [2, 0, 0], [3, 1, 0]], joints=[[1, 2], [1, 0], [0, 0]],
                weights=[[0.5, 0.5], [1, 0], [1, 0]], triangles=[[0, 1, 2]], material=Material(name="cloth"))
    helpers = [Helper("grip", HAND, translation(0, 1, 0)), Helper("origin", -1, np.eye(4))]
    return Model("small", skeleton, meshes=[mesh], helpers=helpers, format=file_format)


def chain_model(count):
    bind = np.repeat(np.eye(4)[None], count, axis=0)
    bind[:, 0, 3] = np.arange(count)
    heads = bind[:, :3, 3]
    skeleton = Skeleton(names=[f"link{i}" for i in range(count)], parents=np.arange(count) - 1,
                        bind_world=bind, heads=heads, tails=heads + [1, 0, 0],
                        derived_tails=np.zeros(count, bool))
    return Model("chain", skeleton)


@pytest.fixture
def outliner(qtbot):
    from app.ui.outliner import OutlinerDock

    dock = OutlinerDock()
    qtbot.addWidget(dock)
    dock.bind(small_model())
    dock.show()
    return dock


@pytest.fixture
def inspector(qtbot):
    from app.ui.inspector import Inspector

    widget = Inspector()
    qtbot.addWidget(widget)
    widget.resize(400, 700)
    widget.show()
    return widget


def texts(item):
    return [item.child(row).text(0) for row in range(item.childCount())]


# --- outliner -------------------------------------------------------------------------------------

def test_tree_nests_bones_and_helpers_under_their_parents(outliner):
    skeleton_group, mesh_group = outliner.groups
    bones, helpers = outliner.bone_items, outliner.helper_items
    assert texts(skeleton_group) == ["root", "origin"]
    assert texts(bones[ROOT]) == ["arm", "leg"]
    assert texts(bones[ARM]) == ["hand"]
    assert texts(bones[HAND]) == ["grip"]
    assert helpers[0].text(1) == "helper" and bones[HAND].text(1) == "bone"
    assert skeleton_group.text(2) == "4 bones · 2 helpers"
    assert texts(mesh_group) == ["sleeve"]
    assert outliner.mesh_items[0].text(2) == "3 vertices · 1 triangle · cloth"


def test_filter_shows_matches_with_their_ancestors(outliner):
    bones = outliner.bone_items
    outliner.filter.setText("HAN")
    assert [bones[b].isHidden() for b in (HAND, ARM, ROOT, LEG)] == [False, False, False, True]
    assert outliner.groups[1].isHidden() and outliner.helper_items[0].isHidden()
    outliner.filter.setText("grip")
    assert not outliner.helper_items[0].isHidden() and not bones[HAND].isHidden() and bones[LEG].isHidden()
    outliner.filter.setText("sleeve")
    assert outliner.groups[0].isHidden() and not outliner.mesh_items[0].isHidden()
    outliner.filter.clear()
    assert not any(item.isHidden() for item in bones + outliner.helper_items + outliner.mesh_items)


def test_clicking_a_bone_row_emits_its_index(outliner, qtbot):
    from PySide6.QtCore import Qt

    tree = outliner.tree
    centre = tree.visualItemRect(outliner.bone_items[ARM]).center()
    with qtbot.waitSignal(outliner.bone_selected) as blocker:
        qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    assert blocker.args == [ARM]


def test_non_bone_rows_emit_none_and_a_helper_is_inspected(outliner, qtbot):
    with qtbot.waitSignal(outliner.bone_selected) as blocker:
        outliner.tree.setCurrentItem(outliner.helper_items[1])
    assert blocker.args == [None]
    assert outliner.inspector.helper_page.labels["name"].text() == "origin"
    with qtbot.waitSignal(outliner.bone_selected) as blocker:
        outliner.tree.setCurrentItem(outliner.mesh_items[0])
    assert blocker.args == [None] and outliner.inspector.shown is None
    outliner.tree.setCurrentItem(outliner.bone_items[LEG])
    with qtbot.waitSignal(outliner.bone_selected) as blocker:
        outliner.tree.clearSelection()
    assert blocker.args == [None]


def test_attached_to_a_viewer_state_the_outliner_shows_it_and_sends_it_the_users_choices(qtbot):
    from PySide6.QtCore import Qt

    from app.state.viewer import ViewerState
    from app.ui.outliner import OutlinerDock

    state, dock = ViewerState(), OutlinerDock()
    qtbot.addWidget(dock)
    dock.attach(state)
    state.set_model(small_model())
    assert dock.model is state.model and len(dock.bone_items) == 4
    state.select_bone(LEG)
    assert dock.selected() == ("bone", LEG) and dock.inspector.shown == ("bone", LEG)
    dock.tree.setCurrentItem(dock.bone_items[ARM])
    assert state.selected_bone == ARM
    state.set_mesh_visible(0, False)
    assert dock.mesh_items[0].checkState(0) == Qt.CheckState.Unchecked
    dock.mesh_items[0].setCheckState(0, Qt.CheckState.Checked)
    assert state.model.meshes[0].visible
    state.set_model(chain_model(3))
    assert [item.text(0) for item in dock.bone_items] == ["link0", "link1", "link2"]


def test_collapse_all_keeps_the_groups_open_and_expand_all_opens_everything(outliner):
    from PySide6.QtWidgets import QToolButton

    buttons = {button.toolTip(): button for button in outliner.findChildren(QToolButton)}
    buttons["Collapse all"].click()
    assert outliner.groups[0].isExpanded() and not outliner.bone_items[ROOT].isExpanded()
    buttons["Expand all"].click()
    assert outliner.bone_items[HAND].isExpanded()


def test_select_bone_selects_and_inspects_without_emitting(outliner, qtbot):
    with qtbot.assertNotEmitted(outliner.bone_selected):
        outliner.select_bone(HAND)
        assert outliner.selected() == ("bone", HAND)
        assert outliner.inspector.bone_page.labels["name"].text() == "hand"
        outliner.select_bone(None)
        assert outliner.selected() is None and outliner.inspector.shown is None
    with pytest.raises(ValueError, match="bone 4 outside 0..3"):
        outliner.select_bone(4)


def test_bind_replaces_the_tree_and_clears_selection_and_filter(outliner, qtbot):
    outliner.select_bone(ARM)
    outliner.filter.setText("leg")
    with qtbot.assertNotEmitted(outliner.bone_selected):
        outliner.bind(chain_model(3))
    assert outliner.selected() is None and outliner.filter.text() == ""
    assert texts(outliner.groups[0]) == ["link0"] and texts(outliner.groups[1]) == []


def test_a_2000_bone_chain_nests_filters_and_selects(outliner):
    outliner.bind(chain_model(2000))
    assert outliner.bone_items[1999].parent() is outliner.bone_items[1998]
    outliner.select_bone(1999)
    assert outliner.selected() == ("bone", 1999)
    labels = outliner.inspector.bone_page.labels
    assert labels["parent"].text() == "link1998 (#1998)" and labels["skin"].text() == "no meshes"
    outliner.filter.setText("link1999")
    assert not outliner.bone_items[0].isHidden()
    assert not outliner.bone_items[1999].isHidden()


def test_the_outliner_passes_poses_to_the_inspector(outliner):
    model = small_model()
    outliner.bind(model)
    outliner.select_bone(LEG)
    world = model.skeleton.bind_world.copy()
    world[LEG, :3, 3] = (4, 5, 6)
    outliner.set_pose(pose_from_world(model, world))
    assert "6.0000" in outliner.inspector.bone_page.labels["current"].text()


# --- inspector ------------------------------------------------------------------------------------

def test_inspector_shows_the_bone_and_follows_the_pose(inspector):
    from app.ui.inspector import matrix_text

    model = small_model()
    inspector.bind(model)
    inspector.set_pose(rest_pose(model))
    inspector.show_bone(ARM)
    labels = inspector.bone_page.labels
    assert labels["name"].text() == "arm" and labels["parent"].text() == "root (#2)"
    assert labels["children"].text() == "1  (hand)"
    assert labels["bind"].text().splitlines()[0].split() == ["1.0000", "0.0000", "0.0000", "1.5000"]
    assert labels["current"].text() == labels["bind"].text()
    assert labels["rest"].text() == "= bind world"  # a skeleton whose rest is its bind
    assert "(from the file)" in labels["tail"].text()
    # Vertices 0 and 1 weigh on the arm; the hand's zero-weight lane on vertex 1 does not count.
    assert labels["skin"].text() == "2 of 3 vertices"

    world = model.skeleton.bind_world.copy()
    world[ARM] = world[ARM] @ rotation_z(0.5)
    inspector.set_pose(pose_from_world(model, world))
    assert labels["current"].text() == matrix_text(world[ARM])
    assert labels["current"].text() != labels["bind"].text()


def test_inspector_shows_a_rest_pose_apart_from_bind(inspector):
    from app.ui.inspector import matrix_text

    model = small_model()
    rest_local = model.skeleton.bind_local.copy()
    rest_local[ARM] = rest_local[ARM] @ rotation_z(0.5)
    skeleton = model.skeleton
    model.skeleton = Skeleton(names=skeleton.names, parents=skeleton.parents,
                              bind_world=skeleton.bind_world, heads=skeleton.heads, tails=skeleton.tails,
                              derived_tails=skeleton.derived_tails, rest_local=rest_local)
    inspector.bind(model)
    inspector.set_pose(rest_pose(model))
    inspector.show_bone(ARM)
    labels = inspector.bone_page.labels
    expected = model.skeleton.bind_world[model.skeleton.parents[ARM]] @ rest_local[ARM]
    assert labels["rest"].text() == matrix_text(expected) == labels["current"].text()
    assert labels["rest"].text() != labels["bind"].text()


def test_inspector_skips_pose_updates_while_hidden(inspector):
    model = small_model()
    inspector.bind(model)
    inspector.set_pose(rest_pose(model))
    inspector.show_bone(HAND)
    before = inspector.bone_page.labels["current"].text()
    inspector.hide()
    world = model.skeleton.bind_world.copy()
    world[HAND, :3, 3] = (7, 8, 9)
    inspector.set_pose(pose_from_world(model, world))
    assert inspector.bone_page.labels["current"].text() == before
    inspector.show()
    assert "9.0000" in inspector.bone_page.labels["current"].text()


def extras_rows(inspector):
    from PySide6.QtWidgets import QFormLayout

    form = inspector.bone_page.form
    label, field = QFormLayout.ItemRole.LabelRole, QFormLayout.ItemRole.FieldRole
    return {form.itemAt(row, label).widget().text(): form.itemAt(row, field).widget().text()
            for row in range(inspector.extras_start, form.rowCount())}


def test_inspector_renders_bonespro_prm_and_nwn_extras(inspector):
    node = np.arange(16.0).reshape(4, 4)
    extras = [{"box": [0.1, 0.25, 2], "node_matrix": node.tolist()},
              {"mirror": LEG, "H": 0.5, "R": 1.25},
              {"node_type": "skin mesh", "part_number": 3, "flags": "0x61", "other_controllers": [12, 14]},
              {}]
    inspector.bind(small_model(extras, file_format="bonespro"))
    assert inspector.extras_title.text() == "From the BonesPro export (structure / animation .txt)"
    inspector.show_bone(HAND)
    rows = extras_rows(inspector)
    assert rows["Box size"] == "0.1000 × 0.2500 × 2.0000"
    assert rows["Node matrix"].splitlines()[1].split() == ["4.0000", "5.0000", "6.0000", "7.0000"]
    inspector.show_bone(ARM)
    assert extras_rows(inspector) == {"Mirror bone": "leg (#3)", "H": "0.5000", "R": "1.2500"}
    inspector.show_bone(ROOT)
    assert extras_rows(inspector) == {"Node type": "skin mesh", "Part number": "3", "Flags": "0x61",
                                      "Other controllers": "12, 14"}
    inspector.show_bone(LEG)
    assert extras_rows(inspector) == {} and inspector.extras_title.isHidden()


def test_inspector_shows_a_helper(inspector):
    model = small_model()
    inspector.bind(model)
    inspector.set_pose(rest_pose(model))
    inspector.show_helper(0)
    labels = inspector.helper_page.labels
    assert labels["name"].text() == "grip" and labels["parent"].text() == "hand (#0)"
    assert labels["offset"].text().splitlines()[1].split()[-1] == "1.0000"
    assert labels["current"].text().splitlines()[0].split()[-1] == "3.0000"
    inspector.show_helper(1)
    assert labels["parent"].text() == "the model (no bone)"
    inspector.show_bone(None)
    assert inspector.pages.currentWidget() is inspector.empty


def test_influence_counts_count_each_vertex_once():
    from app.ui.inspector import influence_counts

    mesh = Mesh("m", positions=np.zeros((3, 3)), joints=[[1, 1], [0, 1], [1, 0]],
                weights=[[0.5, 0.5], [1, 0], [0, 1]])
    counts = influence_counts(Model("m", chain_model(2).skeleton, meshes=[mesh]))
    assert counts.tolist() == [[2, 1]]


def walking_chain(unit):
    """link0 of a two-link chain walks (0, 0, 0) → (3, 4, 0) → (3, 4, 2) at 0, 1, 2 s: 5 over the
    ground (Z up) in 2 s; a second clip holds still."""
    from app.model import Clip, Track

    model = chain_model(2)
    keys = (np.array([0.0, 1.0, 2.0]), np.array([[0, 0, 0], [3, 4, 0], [3, 4, 2]], float))
    still = (np.array([0.0, 1.0]), np.zeros((2, 3)))
    model.clips = [Clip("walk", "keyed", tracks=[Track(0, translation=keys)]),
                   Clip("stand", "keyed", tracks=[Track(0, translation=still)])]
    model.unit = unit
    return model


def test_travel_text_gives_distance_time_and_speed_in_the_models_units():
    from app.ui.inspector import travel_text

    metres, other = walking_chain("metre"), walking_chain("unknown")
    assert travel_text(metres, metres.clips[0]) == "5 m in 2 s · 2.5 m/s"
    assert travel_text(other, other.clips[0]) == "5 model units in 2 s · 2.5 per second"
    assert travel_text(metres, metres.clips[1]) == "0 m in 1 s · 0 m/s"


def test_the_inspector_shows_the_clip_on_screen_and_its_travel(qtbot):
    from app.state.viewer import ViewerState
    from app.ui.outliner import OutlinerDock

    state, dock = ViewerState(), OutlinerDock()
    qtbot.addWidget(dock)
    dock.attach(state)
    state.set_model(walking_chain("metre"))
    labels = dock.inspector.clip_page.labels
    assert (labels["clip"].text(), labels["travel"].text()) == ("walk", "5 m in 2 s · 2.5 m/s")
    state.playback.set_clip(1)
    assert (labels["clip"].text(), labels["travel"].text()) == ("stand", "0 m in 1 s · 0 m/s")
    state.set_mixing(True)  # stand, then walk cross-faded over 0.3 s: the walk's 5 after the fade
    assert labels["clip"].text() == "stand>walk" and labels["travel"].text().startswith("5 m in 2.7 s")
    state.set_model(chain_model(2))
    assert (labels["clip"].text(), labels["travel"].text()) == ("(bind pose)", "—")


def test_travel_figures_keep_three_digits_without_exponents():
    from app.ui.inspector import figure

    assert [figure(v) for v in (5.0, 26.6047, 22.968, 0.0, 4.68e-05, 1234.5)] == [
        "5", "26.6", "23", "0", "0.0000468", "1230"]


def test_every_column_is_as_wide_as_its_text(qtbot):
    """83 bones nested deep in a narrow dock: the Info column shows "83 bones" whole and the Type
    column "helper" (widths measured with the tree's own font, not asked of the column)."""
    from app.ui.outliner import INFO, TYPE, OutlinerDock

    dock = OutlinerDock()
    qtbot.addWidget(dock)
    dock.resize(260, 500)
    dock.bind(chain_model(83))
    dock.show()
    qtbot.waitExposed(dock)
    metrics = dock.tree.fontMetrics()
    assert dock.groups[0].text(INFO) == "83 bones"
    assert dock.tree.columnWidth(INFO) >= metrics.horizontalAdvance("83 bones")
    assert dock.tree.columnWidth(TYPE) >= metrics.horizontalAdvance("bone")
    info_right = dock.tree.columnViewportPosition(INFO) + dock.tree.columnWidth(INFO)
    assert info_right <= dock.tree.viewport().width()  # in view, not past the dock's edge
    narrow = dock.tree.columnWidth(0)
    dock.resize(900, 500)
    qtbot.waitUntil(lambda: dock.tree.columnWidth(0) > narrow)  # a wider dock shows more of the names


def test_bone_names_are_whole_before_a_meshs_long_line(qtbot):
    """A mesh line ("3 vertices · 1 triangle · leather_and_brass_material · …") is what gets cut in a
    dock that cannot show everything: bone names whole, the groups' counts whole, the mesh line elided
    (whole in its tooltip)."""
    from app.ui.outliner import INFO, NAME, OutlinerDock

    model = chain_model(4)
    skeleton = model.skeleton
    named = Skeleton(names=["upperarm_twist_left", "forearm_twist_left", "hand_left", "index_01_left"],
                     parents=skeleton.parents, bind_world=skeleton.bind_world, heads=skeleton.heads,
                     tails=skeleton.tails, derived_tails=skeleton.derived_tails)
    long_material = Material(name="leather_and_brass_material_of_the_left_gauntlet")
    mesh = Mesh("gauntlet", positions=[[0, 0, 0], [1, 0, 0], [0, 1, 0]], joints=[[0], [0], [0]],
                weights=[[1.0], [1.0], [1.0]], triangles=[[0, 1, 2]], material=long_material)
    dock = OutlinerDock()
    qtbot.addWidget(dock)
    dock.resize(330, 500)
    dock.bind(Model("arm", named, meshes=[mesh]))
    dock.show()
    qtbot.waitExposed(dock)
    tree, metrics = dock.tree, dock.tree.fontMetrics()
    assert tree.columnWidth(NAME) >= tree.sizeHintForColumn(NAME)  # deepest name with its indent
    assert tree.columnWidth(INFO) >= metrics.horizontalAdvance("4 bones")
    assert tree.columnWidth(INFO) < metrics.horizontalAdvance(long_material.name)  # this one is cut
    assert tree.columnViewportPosition(INFO) + tree.columnWidth(INFO) <= tree.viewport().width()
    assert long_material.name in dock.mesh_items[0].toolTip(INFO)
