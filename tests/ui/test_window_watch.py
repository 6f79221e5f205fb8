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


def test_a_model_inside_an_archive_is_watched_through_its_archive(window, qtbot, tmp_path):
    from dataclasses import replace

    from tests.formats.test_nwn_mdl import model_tree, walk_animation
    from tests.nwn_archive_bytes import erf_bytes
    from tests.writers.nwn_writer import write_mdl

    model = write_mdl("c_test", model_tree(), [walk_animation()])
    hak = tmp_path / "mine.hak"
    hak.write_bytes(erf_bytes([("c_test", "mdl", model)]))
    textures = tmp_path / "textures.erf"
    textures.write_bytes(erf_bytes([("torso_tex", "tga", b"not read here")], kind=b"ERF "))
    window.load_options = replace(window.load_options, resources=[str(textures), str(tmp_path)])
    open_and_wait(window, qtbot, [f"{hak}:c_test"])
    window.menus.watch_action.trigger()
    # the archive instead of the member's name, and the --resources archive (folders are not watched)
    assert window.file_watch.watcher.files() == [str(hak), str(textures)]
    before = window.model
    with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
        hak.write_bytes(erf_bytes([("c_test", "mdl", write_mdl("c_test", model_tree(), []))]))
    assert window.model is not before
    assert list(window.model.files) == [f"{hak}:c_test"] and not window.model.clips
    assert window.file_watch.watcher.files() == [str(hak), str(textures)]
