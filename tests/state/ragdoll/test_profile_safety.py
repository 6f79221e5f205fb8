"""Profiles are never lost: where they are saved and found (one policy for the command line and the
window), a saved profile that fails validation is reported and left untouched, the automatic setup
that replaces it is unsaved, and saving asks before replacing the user's file. Headless, on the Qt-free
``RagdollDocument``."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from app import loading
from app.cli.main import main
from app.physics import profile_location
from app.physics.autosetup import auto_setup
from app.physics.profile_json import save_profile, to_dict
from app.physics.profile_location import beside, find_profile, in_data_dir, save_location
from app.resources import demo_paths
from app.state.ragdoll.document import RagdollDocument
from app.user_files import user_data_dir


@pytest.fixture(scope="module")
def demo():
    return loading.load(demo_paths())


@pytest.fixture
def hero(tmp_path, demo):
    """A copy of the demo under another name, in a folder of its own."""
    folder = tmp_path / "models"
    folder.mkdir()
    path = folder / "hero.glb"
    shutil.copyfile(demo_paths()[0], path)
    return path


@pytest.fixture
def doc(tmp_path):
    return RagdollDocument(tmp_path / "data", builtin_files=tuple(demo_paths()))


def test_profiles_live_beside_a_model_in_a_writable_folder(hero, tmp_path):
    data = tmp_path / "data"
    assert save_location(hero, data) == hero.parent / "hero.glb.ragdoll.json" == beside(hero)
    assert find_profile(hero, data) is None
    beside(hero).write_text("{}")
    assert find_profile(hero, data) == beside(hero)


def test_builtin_demo_and_read_only_folders_use_the_data_folder(hero, tmp_path, monkeypatch):
    data = tmp_path / "data"
    demo_file = demo_paths()[0]
    place = save_location(demo_file, data, builtin=True)
    assert place.parent == data / "ragdoll" and place.name.startswith("demo.glb.")
    assert place.name.endswith(".ragdoll.json") and place == in_data_dir(demo_file, data)
    # A folder the user may not write to (root may write anywhere, so the check is simulated).
    monkeypatch.setattr(profile_location.os, "access", lambda path, mode: False)
    elsewhere = in_data_dir(tmp_path / "x" / "hero.glb", data)
    assert save_location(hero, data) == in_data_dir(hero, data) != elsewhere
    in_data_dir(hero, data).parent.mkdir(parents=True)
    in_data_dir(hero, data).write_text("{}")
    assert find_profile(hero, data) == in_data_dir(hero, data)


def test_user_data_dir_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert user_data_dir() == tmp_path / "boneyard"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert user_data_dir() == tmp_path / ".local" / "share" / "boneyard"


def test_a_bad_profile_is_reported_left_alone_and_replaced_only_when_asked(hero, demo, doc):
    data = to_dict(auto_setup(demo))
    data["joints"][2]["limits"]["twist"] = -5
    bad = beside(hero)
    bad.write_text(json.dumps(data))
    original = bad.read_bytes()
    doc.set_model(loading.load([hero]))
    error = doc.load_error
    assert error is not None and error.path == str(bad) and error.where == "joints[2].limits.twist"
    assert "-5" in error.message
    assert doc.profile is not None and doc.dirty, "a new automatic setup, marked unsaved"
    assert doc.path == bad and doc.replaces() == bad
    with pytest.raises(FileExistsError):
        doc.save()
    assert bad.read_bytes() == original
    doc.save(replace=True)
    assert json.loads(bad.read_text()) == to_dict(doc.profile)
    assert not doc.dirty and doc.load_error is None and doc.replaces() is None


def test_a_good_profile_saves_back_without_asking(hero, demo, doc):
    profile = auto_setup(demo)
    profile.set_total_mass(60.0)
    save_profile(profile, beside(hero))
    doc.set_model(loading.load([hero]))
    assert doc.load_error is None and not doc.dirty
    assert doc.profile.total_mass == pytest.approx(60.0)
    doc.set_total_mass(70.0)
    assert doc.replaces() is None
    doc.save()
    assert not doc.dirty and json.loads(beside(hero).read_text())["parts"][0]["mass"] > 0


def test_auto_setup_does_not_overwrite_a_file_it_did_not_come_from(hero, demo, doc):
    """The model had no profile; one appears beside it (another program, a copy): saving asks."""
    doc.set_model(loading.load([hero]))
    assert doc.path == beside(hero) and doc.replaces() is None
    beside(hero).write_text("precious")
    assert doc.replaces() == beside(hero)
    with pytest.raises(FileExistsError):
        doc.save()
    assert beside(hero).read_text() == "precious"


def test_the_demo_saves_in_the_data_folder(demo, doc, tmp_path):
    doc.set_model(demo)
    assert doc.path == in_data_dir(demo_paths()[0], tmp_path / "data")
    doc.set_total_mass(65.0)
    doc.save()
    assert doc.path.is_file() and not beside(demo_paths()[0]).exists()
    other = RagdollDocument(tmp_path / "data", builtin_files=tuple(demo_paths()))
    other.set_model(demo)
    assert other.profile.total_mass == pytest.approx(65.0)


def test_the_command_line_finds_the_demo_profile_in_the_data_folder(demo, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    profile = auto_setup(demo)
    profile.remove_part("forearm_l")
    place = in_data_dir(demo_paths()[0], user_data_dir())
    place.parent.mkdir(parents=True)
    save_profile(profile, place)
    out = tmp_path / "run.npz"
    assert main(["ragdoll", "--demo", "--seconds", "0.1", "-o", str(out)]) == 0
    assert "forearm_l" not in list(np.load(out)["parts"])
