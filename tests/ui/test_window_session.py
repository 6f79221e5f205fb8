"""The user's work survives File › Reload (F5) and Open Recent: a kept mix, a mesh hidden in the
Outliner and the selected bone come back on the model read again; File › Close asks before dropping
added clips."""

import shutil

import pytest
from PySide6.QtCore import Qt

from tests.gui_helpers import needs_display
from tests.ui.test_app_window import LOAD_TIMEOUT_MS, open_and_wait

pytestmark = [pytest.mark.gui, needs_display]


@pytest.fixture
def worked_on(window, qtbot, tmp_path):
    """A copy of the demo opened, its walk and idle blended and kept, its first mesh hidden in the
    Outliner, bone 2 selected."""
    from app.resources import demo_paths

    copy = shutil.copy(demo_paths()[0], tmp_path / "hero.glb")
    open_and_wait(window, qtbot, [str(copy)])
    window.playback.set_playing(False)
    window.state.set_mixing(True)
    window.state.set_mix(mode="blend")
    window.state.keep_mix()
    window.outliner.mesh_items[0].setCheckState(0, Qt.CheckState.Unchecked)
    window.state.select_bone(2)
    return window


def test_reload_keeps_kept_clips_hidden_meshes_and_the_selected_bone(worked_on, qtbot):
    window = worked_on
    assert [clip.name for clip in window.model.clips] == ["walk", "idle", "walk*idle"]
    before = window.model
    with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
        window.menus.reload_action.trigger()
    assert window.model is not before
    assert [clip.name for clip in window.model.clips] == ["walk", "idle", "walk*idle"]
    assert not window.model.meshes[0].visible
    assert window.outliner.mesh_items[0].checkState(0) == Qt.CheckState.Unchecked
    assert window.state.selected_bone == 2
    assert window.outliner.tree.currentItem() is window.outliner.bone_items[2]


def test_close_asks_before_dropping_added_clips(worked_on, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    window = worked_on
    asked = []

    def answer(_parent, title, text, *_buttons):
        asked.append((title, text))
        return QMessageBox.StandardButton.Cancel if len(asked) == 1 else QMessageBox.StandardButton.Discard

    monkeypatch.setattr(QMessageBox, "warning", answer)
    window.close_model()
    assert asked[0][0] == "Unsaved clips" and "'walk*idle'" in asked[0][1]
    assert window.model.files[0].endswith("hero.glb")  # cancelled: the model stays
    window.close_model()
    assert not window.model.files[0].endswith("hero.glb") and window.state.user_work.unsaved_clips == []


def test_open_recent_brings_the_work_back_and_says_so(worked_on, qtbot, tmp_path):
    import shutil

    from app.resources import demo_paths

    window = worked_on
    other = shutil.copy(demo_paths()[0], tmp_path / "other.glb")
    open_and_wait(window, qtbot, [str(other)])
    assert [clip.name for clip in window.model.clips] == ["walk", "idle"]
    window.menus.fill_recent_menu()
    entry = next(action for action in window.menus.recent_menu.actions() if "hero.glb" in action.text())
    assert "(with 1 added clip)" in entry.text()
    with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
        entry.trigger()
    assert [clip.name for clip in window.model.clips] == ["walk", "idle", "walk*idle"]
    assert window.outliner.mesh_items[0].checkState(0) == Qt.CheckState.Unchecked
    assert window.outliner.tree.currentItem() is window.outliner.bone_items[2]


def test_the_work_and_a_live_mix_come_back_after_a_restart(qtbot, tmp_path):
    """The window closes with a kept clip, a hidden mesh, a selected bone and a blend still mixing
    (not kept); a new window (a restart) lists the model in Open Recent with its clip, and opening it
    brings everything back, the mix playing again."""
    from app.resources import demo_paths
    from tests.gui_helpers import show_demo_window

    first = show_demo_window(qtbot)
    copy = shutil.copy(demo_paths()[0], tmp_path / "hero.glb")
    open_and_wait(first, qtbot, [str(copy)])
    first.playback.set_playing(False)
    first.state.set_mixing(True)
    first.state.set_mix(mode="blend")
    first.state.keep_mix()  # "walk*idle", playing alone
    first.playback.set_clip(0)
    first.state.set_mixing(True)  # walk with idle again, live this time
    first.state.set_mix(mode="add", add_weight=0.4)
    first.outliner.mesh_items[0].setCheckState(0, Qt.CheckState.Unchecked)
    first.state.select_bone(2)
    first.close()

    second = show_demo_window(qtbot)
    second.menus.fill_recent_menu()
    entry = next(action for action in second.menus.recent_menu.actions() if "hero.glb" in action.text())
    assert "(with 1 added clip)" in entry.text()
    with qtbot.waitSignal(second.model_changed, timeout=LOAD_TIMEOUT_MS):
        entry.trigger()
    assert [clip.name for clip in second.model.clips] == ["walk", "idle", "walk*idle"]
    assert second.outliner.mesh_items[0].checkState(0) == Qt.CheckState.Unchecked
    assert second.state.selected_bone == 2
    mix = second.state.mix
    assert (second.playback.chosen.name, mix.mode, mix.add_weight) == ("walk", "add", 0.4)
    assert second.model.clips[mix.second].name == "idle" and second.playback.mix is not None
    assert second.timeline.mix_action.isChecked()


def test_the_work_on_a_model_inside_an_archive_comes_back_through_open_recent(qtbot, tmp_path):
    """A model opened as ``ARCHIVE:RESREF`` (read from a scratch copy) with its mesh hidden and a bone
    selected; after a restart Open Recent lists it and opening it brings both back."""
    from tests.gui_helpers import show_demo_window
    from tests.state.test_saved_sessions import _archive_with_a_placeable

    member = f"{_archive_with_a_placeable(tmp_path)}:plc_a"
    first = show_demo_window(qtbot)
    open_and_wait(first, qtbot, [member])
    first.outliner.mesh_items[0].setCheckState(0, Qt.CheckState.Unchecked)
    first.state.select_bone(1)
    first.close()

    second = show_demo_window(qtbot)
    second.menus.fill_recent_menu()
    entry = next(action for action in second.menus.recent_menu.actions() if "plc_a" in action.text())
    with qtbot.waitSignal(second.model_changed, timeout=LOAD_TIMEOUT_MS):
        entry.trigger()
    assert list(second.model.files) == [member]
    assert second.outliner.mesh_items[0].checkState(0) == Qt.CheckState.Unchecked
    assert second.state.selected_bone == 1
