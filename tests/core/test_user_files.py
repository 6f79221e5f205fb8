"""One folder for the user's files: the window and the command line find and save ragdoll profiles in
the same place, the window keeps its settings there, and files an earlier version kept in Qt's
per-application folders are moved in when the window starts."""

from __future__ import annotations

import numpy as np
import pytest

from app.cli.main import main
from app.physics.autosetup import auto_setup
from app.physics.profile_json import load_profile, save_profile
from app.physics.profile_location import in_data_dir
from app.resources import demo_paths
from app.user_files import settings_path, user_data_dir
from tests.gui_helpers import needs_display, show_demo_window


def test_the_data_folder_holds_the_settings_and_the_profiles(user_folders):
    folder = user_folders / "data" / "boneyard"
    assert user_data_dir() == folder and settings_path() == folder / "settings.ini"
    assert in_data_dir(demo_paths()[0], user_data_dir()).parent == folder / "ragdoll"


@pytest.mark.gui
@needs_display
def test_a_profile_saved_in_the_window_is_used_by_the_command_line(qtbot, tmp_path):
    window = show_demo_window(qtbot)
    window.ragdoll.document.remove_part("forearm_l")
    assert window.ragdoll_panel.profile_box.save()
    saved = window.ragdoll.document.path
    assert saved == in_data_dir(demo_paths()[0], user_data_dir()) and saved.is_file()
    window.close()
    out = tmp_path / "run.npz"
    assert main(["ragdoll", "--demo", "--seconds", "0.1", "-o", str(out)]) == 0
    parts = list(np.load(out)["parts"])
    assert "forearm_l" not in parts and "forearm_r" in parts


@pytest.mark.gui
@needs_display
def test_a_profile_the_command_line_saved_is_used_by_the_window(qtbot, tmp_path, demo):
    profile = auto_setup(demo)
    profile.remove_part("shin_r")
    written = tmp_path / "cut.json"
    save_profile(profile, written)
    place = in_data_dir(demo_paths()[0], user_data_dir())
    place.parent.mkdir(parents=True)
    assert main(["ragdoll", "--demo", "--profile", str(written), "--save-profile", str(place),
                 "--seconds", "0.1", "-o", str(tmp_path / "run.npz")]) == 0
    window = show_demo_window(qtbot)
    document = window.ragdoll.document
    assert document.loaded_from == place
    names = [part.name for part in document.profile.parts]
    assert "shin_r" not in names and "shin_l" in names
    window.close()


def write_earlier_files(user_folders, demo) -> tuple:
    """What an earlier version left: a saved demo profile in Qt's application data folder and the
    window's settings in Qt's settings file, each with something to recognise it by."""
    old_profiles = user_folders / "data" / "Boneyard" / "Boneyard" / "ragdoll"
    old_profiles.mkdir(parents=True)
    profile = auto_setup(demo)
    profile.remove_part("head")
    old_profile = old_profiles / in_data_dir(demo_paths()[0], user_data_dir()).name
    save_profile(profile, old_profile)
    old_settings = user_folders / "config" / "Boneyard" / "Boneyard.conf"
    old_settings.parent.mkdir(parents=True)
    old_settings.write_text("[General]\nlast_folder=/models/old\n")
    return old_profile, old_settings


@pytest.mark.gui
@needs_display
def test_the_window_moves_an_earlier_versions_files_in(qtbot, user_folders, demo):
    old_profile, old_settings = write_earlier_files(user_folders, demo)
    window = show_demo_window(qtbot)
    assert not old_profile.exists() and not old_settings.exists()
    assert window.settings.value("last_folder") == "/models/old"
    moved = in_data_dir(demo_paths()[0], user_data_dir())
    assert window.ragdoll.document.loaded_from == moved
    assert "head" not in [part.name for part in load_profile(moved).parts]
    window.close()


@pytest.mark.gui
@needs_display
def test_moving_in_never_replaces_a_file_already_there(qtbot, user_folders, demo):
    old_profile, old_settings = write_earlier_files(user_folders, demo)
    current = in_data_dir(demo_paths()[0], user_data_dir())
    current.parent.mkdir(parents=True)
    save_profile(auto_setup(demo), current)
    settings_path().write_text("[General]\nlast_folder=/models/new\n")
    window = show_demo_window(qtbot)
    assert old_profile.is_file() and old_settings.is_file()
    assert window.settings.value("last_folder") == "/models/new"
    assert "head" in [part.name for part in load_profile(current).parts]
    window.close()
