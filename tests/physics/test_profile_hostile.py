"""Profiles under hostile input: values that would run the simulation to NaN, JSON that nests too
deeply or holds numbers Python will not convert, FIFOs; and saves that keep the file's mode, write
through a symlink and leave no temporary file behind, even when killed midway."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest

from app.physics.profile import ProfileError
from app.physics.profile_json import load_profile, save_profile, to_dict
from tests.physics.test_physics_profile import three_bone_profile


def written(tmp_path, change=None, text=None):
    path = tmp_path / "p.ragdoll.json"
    data = to_dict(three_bone_profile())
    if change:
        change(data)
    path.write_text(text if text is not None else json.dumps(data))
    return path


@pytest.mark.parametrize("change, where, expected", [
    (lambda d: d["parts"][0].update(mass=1e18), "parts[0].mass", "up to 100000 kg"),
    (lambda d: d["parts"][1].update(mass=10 ** 400), "parts[1].mass", "a finite number"),
    (lambda d: d["damping"].update(linear=1e308), "damping.linear", "a fraction from 0 to 1"),
    (lambda d: d["damping"].update(angular=2), "damping.angular", "a fraction from 0 to 1"),
    (lambda d: d["parts"][0].update(size=[1e300, 1, 1]), "parts[0].size", "up to 1e+06"),
    (lambda d: d["parts"][0].update(offset=[0, -1e7, 0]), "parts[0].offset", "within ±1e+06"),
    (lambda d: d["joints"][0]["offsets"][1].__setitem__(2, 1e9), "joints[0].offsets[1]", "within ±1e+06"),
    (lambda d: d.update(meters_per_unit=1e-300), "meters_per_unit", "from 1e-06 to 1e+06"),
])
def test_values_out_of_range_name_the_json_path(tmp_path, change, where, expected):
    path = written(tmp_path, change)
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    assert caught.value.where == where and expected in str(caught.value)
    assert len(str(caught.value)) < 300


def test_deeply_nested_json(tmp_path):
    path = written(tmp_path, text="[" * 100_000 + "]" * 100_000)
    where = "at line 1 column 201$"  # the 201st bracket opens the first level too deep
    with pytest.raises(ProfileError, match="nests 100000 levels deep; at most 200 are read " + where):
        load_profile(path)


def test_five_thousand_digit_number(tmp_path):
    text = json.dumps(to_dict(three_bone_profile())).replace('"mass": 2.0', '"mass": ' + "9" * 5000)
    column = text.index("9" * 5000) + 1
    message = f"integer too long: 5000 digits, at most 4000 are read at line 1 column {column}$"
    with pytest.raises(ProfileError, match=message):
        load_profile(written(tmp_path, text=text))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_profile_is_refused(tmp_path):
    os.mkfifo(tmp_path / "pipe.json")
    with pytest.raises(ProfileError, match=r"not a regular file \(a FIFO\)"):
        load_profile(tmp_path / "pipe.json")


# --- saving ----------------------------------------------------------------------------------------

def test_save_keeps_the_mode(tmp_path):
    path = written(tmp_path)
    for mode in (0o644, 0o640, 0o600):
        os.chmod(path, mode)
        save_profile(three_bone_profile(), path)
        assert stat.S_IMODE(os.stat(path).st_mode) == mode
    assert os.listdir(tmp_path) == [path.name]


def test_new_file_mode_follows_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        save_profile(three_bone_profile(), tmp_path / "new.json")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new.json").st_mode) == 0o644


def test_save_writes_through_a_symlink(tmp_path):
    target = tmp_path / "real" / "p.ragdoll.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    profile = three_bone_profile()
    save_profile(profile, link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert json.loads(target.read_text()) == to_dict(profile)
    assert sorted(os.listdir(target.parent)) == ["p.ragdoll.json"]


def test_a_save_killed_midway_keeps_the_old_file_and_the_next_save_cleans_up(tmp_path):
    path = written(tmp_path)
    before = path.read_bytes()
    # The child is killed (SIGKILL: no cleanup runs) once the new bytes are written, before the rename.
    script = ("import os, signal, sys\n"
              "from app.physics import profile_json\n"
              "from tests.physics.test_physics_profile import three_bone_profile\n"
              "os.fsync = lambda handle: os.kill(os.getpid(), signal.SIGKILL)\n"
              "profile_json.save_profile(three_bone_profile(), sys.argv[1])\n")
    for _ in range(3):
        result = subprocess.run([sys.executable, "-c", script, str(path)], cwd=os.getcwd(), timeout=120,
                                check=False, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        assert result.returncode == -9
        assert path.read_bytes() == before
        assert len(os.listdir(tmp_path)) == 2  # the file, and the one temporary of the killed save
    (tmp_path / ".other.json.1.0123abcd.tmp").write_text("another file's temporary")
    save_profile(three_bone_profile(), path)
    assert sorted(os.listdir(tmp_path)) == [".other.json.1.0123abcd.tmp", path.name]
    assert json.loads(path.read_text()) == to_dict(three_bone_profile())
