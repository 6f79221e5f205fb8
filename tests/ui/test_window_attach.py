"""File › Attach Animation by relation: a creature's own animation models (its supermodel, from any
folder) attach at once, as the command line reads them, and answer the warning they were missing
for; the bone map opens only for another skeleton (tests/ui/test_app_window.py)."""

import pytest

from tests.formats.test_nwn_mdl import model_tree, save, walk_animation
from tests.formats.test_nwn_sets import lender_tree, lifting
from tests.gui_helpers import needs_display
from tests.ui.test_app_window import LOAD_TIMEOUT_MS, open_and_wait
from tests.writers.nwn_ascii_writer import write_ascii_mdl
from tests.writers.nwn_writer import write_mdl

pytestmark = [pytest.mark.gui, needs_display]

MISSING = "supermodel 'a_base' not found beside c_hero.mdl: its animations are missing"


def test_the_supermodel_attaches_without_the_bone_map_and_clears_its_warning(window, qtbot, tmp_path,
                                                                              monkeypatch):
    from app.ui.bone_map_dialog import BoneMapDialog

    (tmp_path / "model").mkdir()
    (tmp_path / "anims").mkdir()
    hero = save(tmp_path / "model", "c_hero.mdl",
                write_mdl("c_hero", model_tree(), [walk_animation()], supermodel="a_base"))
    base = save(tmp_path / "anims", "a_base.mdl",
                write_ascii_mdl("a_base", lender_tree(), [lifting("idle", 2.0), lifting("castout", 3.0)]))
    maps = []
    monkeypatch.setattr(BoneMapDialog, "exec", lambda dialog: maps.append(dialog) or dialog.reject())
    open_and_wait(window, qtbot, [str(hero)])
    assert MISSING in window.state.warnings
    with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
        window.attach_files([str(base)])
    assert maps == []
    assert list(window.model.files) == [str(hero), str(base)]
    assert [clip.name for clip in window.model.clips] == ["walk", "idle", "castout"]
    assert not any(warning.startswith("supermodel") for warning in window.state.warnings)
