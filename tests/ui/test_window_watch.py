"""File › Watch for Changes: a model file rewritten on disk is read again by itself, keeping the
user's work as Reload does; off, nothing is watched."""

import shutil

import pytest

from tests.gui_helpers import needs_display
from tests.ui.test_app_window import LOAD_TIMEOUT_MS, open_and_wait

pytestmark = [pytest.mark.gui, needs_display]


def test_a_changed_file_is_read_again_keeping_the_work(window, qtbot, tmp_path):
    from app.resources import demo_paths

    hero = shutil.copy(demo_paths()[0], tmp_path / "hero.glb")
    open_and_wait(window, qtbot, [str(hero)])
    window.playback.set_playing(False)
    window.state.set_mixing(True)
    window.state.keep_mix()
    assert window.file_watch.watcher.files() == []  # off by default
    window.menus.watch_action.trigger()
    assert window.file_watch.watcher.files() == [str(hero)]
    before = window.model
    with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
        shutil.copy(demo_paths()[0], hero)  # the exporter writes the file again
    assert window.model is not before
    assert [clip.name for clip in window.model.clips] == ["walk", "idle", "walk>idle"]
    assert window.file_watch.watcher.files() == [str(hero)]  # still watched
    window.menus.watch_action.trigger()
    assert window.file_watch.watcher.files() == []
