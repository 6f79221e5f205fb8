"""app/atomic_files.py's give-up rule: a write abandoned once its files are written (the window's
Cancel of an export in a worker) leaves every target as it was."""

import pytest

def test_a_write_given_up_leaves_the_targets_and_no_temporary(tmp_path):
    from app.atomic_files import Abandoned, abandoned_when, replacing_all

    first, second = tmp_path / "a.gltf", tmp_path / "a.bin"
    first.write_text("old")
    given_up = False
    with pytest.raises(Abandoned), abandoned_when(lambda: given_up):
        with replacing_all([first, second]) as (one, two):
            one.write_text("new")
            two.write_text("new buffer")
            given_up = True  # the user cancelled while the files were written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.gltf"] and first.read_text() == "old"
    with abandoned_when(lambda: False), replacing_all([first]) as (one,):
        one.write_text("kept")
    assert first.read_text() == "kept"
