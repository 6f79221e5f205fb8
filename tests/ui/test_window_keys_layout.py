"""The window at 1280×800 with a model of five files (a C3DE mesh and four bones files with long names):
Enter and Escape in text fields give the keys back to the view, a click in a ragdoll table keeps its
columns where they were, the status bar keeps the frame rate in sight, long clip names elide in the
middle, and a clip that travels stays in view while it plays (View › Follow the Model)."""

from __future__ import annotations

import shutil
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication

from app import loading
from app.model import Clip
from app.pose import evaluate, posed_bounds
from app.render.camera import project
from app.resources import demo_paths
from app.ui.timeline import CLIP_NAME_CHARACTERS
from tests.demo_formats import write_c3de
from tests.gui_helpers import needs_display, park_pointer

pytestmark = [pytest.mark.gui, needs_display]

LONG_BONES_FILES = ("ninjaBones_attack_overhead_with_a_long_name.c3d",
                    "ninjaBones_block_high_stance_with_a_long_name.c3d",
                    "ninjaBones_walk_forward_cycle_with_a_long_name.c3d")


def five_files(folder) -> list:
    """A C3DE mesh of the demo with its bones file and three copies of it under long names."""
    mesh, bones = write_c3de(loading.load(demo_paths()), folder)
    copies = [folder / name for name in LONG_BONES_FILES]
    for copy in copies:
        shutil.copy(bones, copy)
    return [mesh, bones, *copies]


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from app.ui.main_window import MainWindow

    monkeypatch.setattr(QMessageBox, "warning", lambda *args: QMessageBox.StandardButton.Discard)
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1280, 800)
    with qtbot.waitSignal(win.viewport.first_frame_drawn, timeout=30_000):
        win.show()
        win.state.set_model(loading.load(five_files(tmp_path)))
    park_pointer(win)
    win.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win, timeout=5_000)
    win.timer.stop()  # time passes only through state.tick
    win.playback.set_playing(False)
    win.ragdoll.document.path = tmp_path / "five.ragdoll.json"
    assert len(win.model.files) == 5 and win.width() == 1280
    yield win
    win.close()


def typed(qtbot, widget, text: str) -> None:
    """Click ``widget`` (a line edit, or a spin box's), select what it holds and type ``text``."""
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)
    focus = QApplication.focusWidget()
    assert focus in (widget, widget.parentWidget())  # a spin box keeps the focus for its line edit
    widget.selectAll()
    qtbot.keyClicks(focus, text)


def keys_reach_the_view(qtbot, window) -> None:
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.viewport, timeout=5_000)


def press(qtbot, key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    """A key pressed as the user would: delivered to whatever has the keyboard focus."""
    qtbot.keyClick(QApplication.focusWidget(), key, modifier)


# --- Enter and Escape -------------------------------------------------------------------------------

def test_enter_in_the_time_field_goes_there_and_space_then_plays(window, qtbot):
    field = window.timeline.time_box.lineEdit()
    typed(qtbot, field, "0.25")
    press(qtbot, Qt.Key.Key_Return)
    assert window.playback.time == pytest.approx(0.25)
    keys_reach_the_view(qtbot, window)
    press(qtbot, Qt.Key.Key_Space)
    assert window.playback.playing
    press(qtbot, Qt.Key.Key_Space)
    assert not window.playback.playing
    assert field.text() == f"{window.playback.time:.3f} s"  # the field shows the time, Space never reached it
    frame = window.playback.frame_index
    press(qtbot, Qt.Key.Key_Right)
    assert window.playback.frame_index == frame + 1


def test_escape_in_the_time_field_drops_the_typing_and_gives_the_keys_back(window, qtbot):
    window.playback.set_time(0.3)
    field = window.timeline.time_box.lineEdit()
    typed(qtbot, field, "0.1")
    press(qtbot, Qt.Key.Key_Escape)
    keys_reach_the_view(qtbot, window)
    assert window.playback.time == pytest.approx(0.3) and field.text() == "0.300 s"
    press(qtbot, Qt.Key.Key_Space)
    assert window.playback.playing


@pytest.mark.parametrize("key", [Qt.Key.Key_Escape, Qt.Key.Key_Return])
def test_escape_or_enter_in_the_outliner_filter_gives_the_keys_back(window, qtbot, key):
    filter_field = window.outliner.filter
    typed(qtbot, filter_field, "spine")
    press(qtbot, key)
    keys_reach_the_view(qtbot, window)
    camera = window.viewport.camera
    camera.distance *= 3.0
    far = camera.distance
    press(qtbot, Qt.Key.Key_F)
    assert window.viewport.camera.distance < 0.5 * far
    assert filter_field.text() == "spine"


def test_enter_in_a_ragdoll_field_sets_it_and_gives_the_keys_back(window, qtbot):
    window.ragdoll_panel.raise_()
    mass_box = window.ragdoll_panel.profile_box.total_mass_box
    typed(qtbot, mass_box.lineEdit(), "80")
    press(qtbot, Qt.Key.Key_Return)
    assert window.ragdoll.document.profile.total_mass == pytest.approx(80.0)
    keys_reach_the_view(qtbot, window)


def test_enter_in_a_ragdoll_table_cell_sets_it_and_gives_the_keys_back(window, qtbot):
    from app.ui.ragdoll.parts_tab import MASS

    window.ragdoll_panel.raise_()
    table = window.ragdoll_panel.parts_tab.table
    head = 3
    table.scrollToItem(table.item(head, MASS))
    cell = table.visualItemRect(table.item(head, MASS)).center()
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=cell)
    qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=cell)
    editor = QApplication.focusWidget()
    assert editor is not table and table.isAncestorOf(editor)
    line = editor if hasattr(editor, "selectAll") else editor.lineEdit()
    line.selectAll()
    qtbot.keyClicks(line, "6.5")
    press(qtbot, Qt.Key.Key_Return)
    keys_reach_the_view(qtbot, window)
    qtbot.waitUntil(lambda: window.ragdoll.document.profile.parts[head].mass == pytest.approx(6.5),
                    timeout=5_000)  # the table's editor hands its value over on a queued call


# --- the ragdoll tables ------------------------------------------------------------------------------

def test_clicking_a_row_keeps_the_table_scrolled_sideways(window, qtbot):
    from app.ui.ragdoll.parts_tab import MASS

    window.ragdoll_panel.raise_()
    table = window.ragdoll_panel.parts_tab.table
    sideways = table.horizontalScrollBar()
    qtbot.waitUntil(lambda: sideways.maximum() > 0, timeout=5_000)  # the parts table is wider than its dock
    sideways.setValue(sideways.maximum())
    row = 3
    mass_cell = table.visualItemRect(table.item(row, MASS))
    assert table.viewport().rect().contains(mass_cell.center())
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=mass_cell.center())
    assert window.ragdoll.document.selected_part == row
    assert sideways.value() == sideways.maximum()
    assert table.visualItemRect(table.item(row, MASS)) == mass_cell
    qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=mass_cell.center())
    editor = QApplication.focusWidget()
    assert table.isAncestorOf(editor) and table.currentColumn() == MASS


# --- the status bar and the clip list -----------------------------------------------------------------

def test_the_frame_rate_stays_in_the_status_bar_whole(window, qtbot):
    from app.ui.status_line import WIDEST_FRAME_TIME

    window.status.frame_label.setText(WIDEST_FRAME_TIME)
    bar = window.statusBar()
    label = window.status.frame_label
    assert label.isVisible()
    qtbot.waitUntil(lambda: label.width() >= label.fontMetrics().horizontalAdvance(WIDEST_FRAME_TIME),
                    timeout=5_000)
    assert bar.rect().contains(label.geometry())
    names = window.status.file_label
    assert names.full_text().count(" + ") == 4
    assert names.text() != names.full_text() and "…" in names.text()
    assert names.toolTip() == names.full_text()
    assert names.geometry().right() < window.status.counts_label.geometry().left()


def test_long_clip_names_elide_in_the_middle_with_the_whole_name_as_tooltip(window, qtbot):
    clips = window.timeline.clips
    window.playback.set_clip(3)
    qtbot.wait(50)
    whole = clips.currentText()
    assert whole.startswith("ninjaBones_walk_forward") and whole.endswith(".c3d")
    shown = clips.shown_text()
    assert shown != whole and "…" in shown
    head, tail = shown.split("…")
    assert whole.startswith(head) and whole.endswith(tail) and len(head) >= 8 and len(tail) >= 8
    assert clips.current_tooltip().splitlines()[0] == whole
    assert clips.width() >= clips.fontMetrics().averageCharWidth() * CLIP_NAME_CHARACTERS


# --- following a clip that travels --------------------------------------------------------------------

def travelling(model, metres_per_second: float) -> Clip:
    """The model's first clip carried along +X (over the ground of a Y-up model) as it plays."""
    clip = model.clips[0]
    times = clip.frame_times
    world = np.array([evaluate(model, clip, float(time)).world for time in times])
    world[:, :, 0, 3] += metres_per_second * (times - times[0])[:, None]
    return Clip("travel", "matrices", times=times, world=world)


def model_in_view(window) -> bool:
    """The posed model's centre projects inside the view."""
    viewport = window.viewport
    low, high = posed_bounds(window.model, window.state.current_pose())
    pixels, visible = project(viewport.camera, (0.5 * (low + high))[None], viewport.width(),
                              viewport.height())
    return bool(visible[0]) and viewport.rect().contains(QPoint(*pixels[0].astype(int)))


def play_to_the_end(window) -> None:
    for time in np.linspace(0.0, window.playback.end, 12):
        window.playback.set_time(float(time))


def test_a_travelling_clip_is_followed_and_an_in_place_one_is_not(window, qtbot):
    model = window.model
    assert model.up_axis == "Y"
    window.state.set_model(replace(model, clips=[travelling(model, 20.0), *model.clips]))
    qtbot.wait(100)
    assert window.state.display.follow and window.menus.display_actions["follow"].isChecked()
    assert window.state.following
    start = window.viewport.camera.target.copy()
    play_to_the_end(window)
    assert model_in_view(window)
    moved = window.viewport.camera.target - start
    assert moved[0] == pytest.approx(20.0 * window.playback.end) and abs(moved[1]) < 1e-9
    window.playback.set_clip(1)
    assert not window.state.following


def test_without_follow_a_travelling_clip_walks_out_of_view(window, qtbot):
    model = window.model
    window.state.set_model(replace(model, clips=[travelling(model, 20.0), *model.clips]))
    qtbot.wait(100)
    window.menus.display_actions["follow"].trigger()
    assert not window.state.display.follow and not window.state.following
    start = window.viewport.camera.target.copy()
    play_to_the_end(window)
    assert not model_in_view(window)
    assert np.array_equal(window.viewport.camera.target, start)
