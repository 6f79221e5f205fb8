"""The ragdoll panel in small and default windows (under Xvfb): its tables keep four rows and the
joint editor its fields (scrolled to, in the panel's pixels), keys typed into a cell edit it and not
the timeline, the tab stays on a joint's selection, committing a cell makes no Qt warning, and the
strength slider shows its value."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt, qInstallMessageHandler
from PySide6.QtWidgets import QApplication, QScrollArea

from tests.gui_helpers import image_array, needs_display

#: The window sizes issue 38 names: the smallest supported and the default.
SIZES = [(900, 640), (1280, 800)]


def _gui(test):
    return pytest.mark.gui(needs_display(test))


@pytest.fixture
def sized(window, qtbot, request):
    """The window at the size the test asks for, back to its own afterwards."""
    old = window.size()
    window.resize(*request.param)
    qtbot.waitUntil(lambda: window.ragdoll_panel.height() > 0, timeout=5_000)
    qtbot.wait(50)
    yield window
    window.resize(old)


def scrolled_to(panel, widget) -> None:
    """Scroll the panel so ``widget`` is in view."""
    scroll = panel.findChild(QScrollArea)
    scroll.ensureWidgetVisible(widget, 0, 0)


def fully_visible(widget) -> bool:
    """Whether the whole of ``widget`` is drawn (not clipped by a scroll area or the dock)."""
    return widget.visibleRegion().boundingRect().size() == widget.size()


def highlighted_rows(table, row_height: int) -> int:
    """Rows of the selection colour in the table's picture, counted in row heights."""
    picture = image_array(table.viewport().grab())[..., :3].astype(int)
    colour = table.palette().highlight().color()
    target = np.array([colour.red(), colour.green(), colour.blue()])
    rows = np.flatnonzero((np.abs(picture - target).max(axis=-1) < 12).mean(axis=1) > 0.3)
    return round(len(rows) / row_height)


@_gui
@pytest.mark.parametrize("sized", SIZES, indirect=True, ids=["900x640", "1280x800"])
def test_the_parts_table_keeps_four_rows_in_view(sized, qtbot):
    panel = sized.ragdoll_panel
    panel.tabs.setCurrentWidget(panel.parts_tab)
    table = panel.parts_tab.table
    scrolled_to(panel, panel.tabs)
    qtbot.wait(50)
    row_height = table.verticalHeader().defaultSectionSize()
    assert table.viewport().visibleRegion().boundingRect().height() >= 4 * row_height
    # Four rows selected one after another each paint the selection colour where they are.
    for row in range(4):
        sized.ragdoll.document.select_part(row)
        qtbot.wait(20)
        assert highlighted_rows(table, row_height) == 1
        rect = table.visualRect(table.model().index(row, 0))
        assert table.viewport().visibleRegion().contains(rect.center())


@_gui
@pytest.mark.parametrize("sized", SIZES, indirect=True, ids=["900x640", "1280x800"])
def test_the_joint_editor_fields_are_in_view_with_four_rows(sized, qtbot):
    panel = sized.ragdoll_panel
    tab = panel.joints_tab
    panel.tabs.setCurrentWidget(tab)
    sized.ragdoll.document.select_joint(0)
    scrolled_to(panel, panel.tabs)
    qtbot.wait(50)
    row_height = tab.table.verticalHeader().defaultSectionSize()
    assert tab.table.viewport().visibleRegion().boundingRect().height() >= 4 * row_height
    fields = [tab.part_a_box, tab.part_b_box, tab.kind_box, *tab.offset_a_boxes, *tab.euler_boxes]
    fields += [box for box in tab.limit_boxes.values() if not box.isHidden()]
    for field in fields:
        assert fully_visible(field), field.toolTip()
        picture = image_array(field.grab())[..., :3]
        assert np.ptp(picture.reshape(-1, 3), axis=0).max() > 40  # drawn: a frame and text, not blank


@_gui
def test_selecting_a_joint_keeps_the_joints_tab(window, qtbot):
    panel = window.ragdoll_panel
    panel.tabs.setCurrentWidget(panel.joints_tab)
    window.ragdoll.document.select_part(None)
    table = panel.joints_tab.table
    rect = table.visualRect(table.model().index(1, 0))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.ragdoll.document.selected_joint == 1
    window.ragdoll.document.select_part(2)  # as picking the joint's part in the view would
    window.ragdoll.document.select_joint(2)
    qtbot.wait(20)
    assert panel.tabs.currentWidget() is panel.parts_tab  # another part: the Parts tab shows it
    panel.tabs.setCurrentWidget(panel.joints_tab)
    window.ragdoll.document.select_joint(3)
    qtbot.wait(20)
    assert panel.tabs.currentWidget() is panel.joints_tab


@_gui
def test_keys_typed_into_a_cell_edit_it_and_not_the_timeline(window, qtbot):
    from app.ui.ragdoll.parts_tab import MASS

    panel = window.ragdoll_panel
    panel.tabs.setCurrentWidget(panel.parts_tab)
    table = panel.parts_tab.table
    document = window.ragdoll.document
    row = document.profile.part_index("head")
    table.setFocus()
    table.setCurrentCell(row, MASS)
    time = window.playback.time
    messages = []
    previous = qInstallMessageHandler(lambda kind, context, text: messages.append(text))
    try:
        qtbot.keyClick(table, "7")  # the first digit opens the cell's editor (any key edits)
        editor = QApplication.focusWidget()
        assert editor is not table and table.isAncestorOf(editor)
        qtbot.keyClicks(editor, ".5")
        qtbot.keyClick(editor, Qt.Key.Key_Left)  # in the editor, not the timeline: 7.|5
        qtbot.keyClick(editor, "2")
        assert editor.text() == "7.25"
        qtbot.keyClick(editor, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: document.profile.parts[row].mass == pytest.approx(7.25), timeout=5_000)
        assert window.playback.time == time
        qtbot.waitUntil(lambda: window.viewport.hasFocus(), timeout=5_000)  # Enter hands the keys back
        qtbot.keyClick(window.viewport, Qt.Key.Key_Right)
        assert window.playback.time != time
        table.setFocus()
        qtbot.keyClick(table, Qt.Key.Key_Escape)  # so does Escape on the table itself
        assert not panel.isAncestorOf(QApplication.focusWidget())
    finally:
        qInstallMessageHandler(previous)
    assert not [text for text in messages if "commitData" in text]
    window.menus.undo_action.trigger()


@_gui
def test_the_strength_slider_shows_its_value(window, qtbot):
    box = window.ragdoll_panel.simulation_box
    box.strength_slider.setValue(35)
    assert box.strength_label.text() == "35 %"
    assert window.ragdoll.simulation.motor_strength == pytest.approx(0.35)
    assert box.strength_label.isVisible()
    box.strength_slider.setValue(100)
    assert box.strength_label.text() == "100 %"


@_gui
def test_the_view_follows_the_running_ragdoll_and_returns_on_stop(window, qtbot):
    """A shot sends the body sideways: the camera's target moves with it over the ground while the
    ragdoll runs, and is back where it was after Stop."""
    import numpy as np

    camera = window.viewport.camera
    before = camera.target.copy()
    session = window.ragdoll
    window.ragdoll_panel.go_action.trigger()
    assert window.state.following
    ragdoll = session.simulation.ragdoll
    pelvis = session.document.profile.part_index("pelvis")
    centre = ragdoll.part_world()[pelvis, :3, 3]
    ragdoll.shoot(centre + np.array([2.0, 0.0, 0.0]), np.array([-1.0, 0.0, 0.0]), 150.0)
    for _ in range(60):
        window.state.tick(1 / 30)
    moved = ragdoll.part_world()[pelvis, :3, 3] - centre
    assert abs(moved[0]) > 0.3
    shift = camera.target - before
    assert shift[0] == pytest.approx(moved[0], abs=0.25)  # over the ground: x and z, not y (Y up)
    window.ragdoll_panel.go_action.trigger()
    assert not session.simulation.running
    np.testing.assert_allclose(camera.target, before)


def column_pictures(table) -> list[np.ndarray]:
    """Each column's header section and first rows as drawn (RGB arrays), in the table's pixels."""
    picture = image_array(table.grab())[..., :3].astype(int)
    header = table.horizontalHeader()
    left = table.frameWidth() + header.pos().x()
    return [picture[:, left + header.sectionViewportPosition(column):
                    left + header.sectionViewportPosition(column) + header.sectionSize(column)]
            for column in range(table.columnCount())]


@_gui
@pytest.mark.parametrize("sized", [(1280, 800)], indirect=True, ids=["1280x800"])
@pytest.mark.parametrize("tab", ["parts_tab", "joints_tab"])
def test_every_column_is_readable_at_the_default_size(sized, qtbot, tab):
    """At 1280×800 the dock widens to its tables: every column of the Parts and Joints tables lies
    within the table's view (no sideways scrolling), is as wide as its header and its contents need
    (no text elided), and shows ink in its pixels; the view keeps at least half the window."""
    panel = sized.ragdoll_panel
    table = getattr(panel, tab).table
    panel.tabs.setCurrentWidget(getattr(panel, tab))
    scrolled_to(panel, panel.tabs)
    qtbot.waitUntil(lambda: table.horizontalScrollBar().maximum() == 0, timeout=5_000)
    header = table.horizontalHeader()
    for column in range(table.columnCount()):
        wanted = max(table.sizeHintForColumn(column), header.sectionSizeHint(column))
        assert table.columnWidth(column) >= wanted, table.horizontalHeaderItem(column).text()
        assert header.sectionViewportPosition(column) + table.columnWidth(column) <= table.viewport().width()
    background = np.array(table.palette().base().color().getRgb()[:3])
    for column, picture in enumerate(column_pictures(table)):
        dark = (np.abs(picture - background).max(axis=-1) > 100).sum()
        assert dark > 20, table.horizontalHeaderItem(column).text()  # its header and cells' text drawn
    assert sized.viewport.width() >= sized.width() // 2


@_gui
def test_the_parts_headers_say_their_units(window):
    from app.ui.ragdoll.parts_tab import MASS, OFFSET_Y, SIZE_X

    table = window.ragdoll_panel.parts_tab.table
    tips = [table.horizontalHeaderItem(column).toolTip() for column in (SIZE_X, OFFSET_Y, MASS)]
    assert tips == ["Size along X: the box's edge (model units)",
                    "Offset along Y from the bone's middle (model units)", "Mass (kg)"]


@_gui
@pytest.mark.parametrize("sized", [(900, 640)], indirect=True, ids=["900x640"])
def test_a_small_window_keeps_half_its_width_for_the_view(sized, qtbot):
    """Coming down from a window the dock widened in, the dock gives the view back its half."""
    sized.resize(1280, 800)
    qtbot.waitUntil(lambda: sized.ragdoll_panel.width() > 560, timeout=5_000)
    sized.resize(900, 640)
    qtbot.waitUntil(lambda: sized.viewport.width() >= 900 // 2, timeout=5_000)


@_gui
def test_offsets_under_half_a_millimetre_show_as_zero(window, qtbot):
    """A hair from zero is 0 in the cell (``-6.1e-05`` would widen the column); the tool tip and the
    editor keep the exact value, and half a millimetre or more shows as it is."""
    from PySide6.QtWidgets import QDoubleSpinBox

    from app.ui.ragdoll.parts_tab import OFFSET_X, OFFSET_Y, OFFSET_Z, VALUE_ROLE

    panel, document = window.ragdoll_panel, window.state.simulation.document
    panel.tabs.setCurrentWidget(panel.parts_tab)
    table = panel.parts_tab.table
    row = document.profile.part_index("head")
    old = document.profile.parts[row].offset
    document.edit_part("head", offset=(-6.1e-05, 0.00049, -0.0007))
    try:
        cells = [table.item(row, column) for column in (OFFSET_X, OFFSET_Y, OFFSET_Z)]
        assert [cell.text() for cell in cells] == ["0", "0", "-0.0007"]
        assert [cell.toolTip() for cell in cells] == ["-6.1e-05", "0.00049", "-0.0007"]
        assert [cell.data(VALUE_ROLE) for cell in cells] == [-6.1e-05, 0.00049, -0.0007]
        table.setCurrentItem(cells[1])
        table.editItem(cells[1])
        editor = table.viewport().findChild(QDoubleSpinBox)
        assert editor is not None
        assert editor.value() == pytest.approx(0.00049, abs=10.0 ** -editor.decimals())
        assert editor.value() != 0.0
        qtbot.keyClick(editor, Qt.Key.Key_Escape)
    finally:
        document.undo()
    assert document.profile.parts[row].offset == old
