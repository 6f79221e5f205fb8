"""Numeric options must be finite and in range (exit 2 naming the option), a profile out of range is
exit 3 naming its JSON path; no command ends in a traceback or writes NaN."""

from __future__ import annotations

import json

import pytest

from app.physics.profile_json import to_dict
from tests.helpers import exit_status
from tests.physics.test_physics_profile import three_bone_profile


@pytest.mark.parametrize("args, option", [
    (["ragdoll", "--demo", "--fps", "inf"], "--fps"),
    (["ragdoll", "--demo", "--fps", "0"], "--fps"),
    (["ragdoll", "--demo", "--seconds", "1e9"], "--seconds"),
    (["ragdoll", "--demo", "--seconds", "nan"], "--seconds"),
    (["ragdoll", "--demo", "--impulse", "inf"], "--impulse"),
    (["ragdoll", "--demo", "--impulse", "-1"], "--impulse"),
    (["ragdoll", "--demo", "--shoot", "0,0,1e300:0,0,-1"], "--shoot"),
    (["pose", "--demo", "--time", "nan"], "--time"),
    (["pose", "--demo", "--time", "-inf"], "--time"),
    (["render", "--demo", "--time", "1e300"], "--time"),
    (["info", "--demo", "--fps", "nan"], "--fps"),
])
def test_numeric_options_must_be_finite_and_in_range(tmp_path, capsys, args, option):
    suffix = ".png" if args[0] == "render" else ".json" if args[0] == "pose" else ".npz"
    output = [] if args[0] == "info" else ["-o", str(tmp_path / f"out{suffix}")]
    assert exit_status(args + output) == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"argument {option}" in error and "Traceback" not in error
    assert not list(tmp_path.iterdir())


def test_too_many_ragdoll_frames(tmp_path, capsys):
    output = str(tmp_path / "r.npz")
    assert exit_status(["ragdoll", "--demo", "--seconds", "600", "--fps", "1000", "-o", output]) == 2
    assert "at most 36000" in capsys.readouterr().err


def test_profile_out_of_range_is_exit_3_naming_the_field(tmp_path, capsys):
    data = to_dict(three_bone_profile())
    data["parts"][0]["mass"] = 1e18
    (tmp_path / "p.json").write_text(json.dumps(data))
    profile, output = str(tmp_path / "p.json"), str(tmp_path / "r.npz")
    assert exit_status(["ragdoll", "--demo", "--profile", profile, "-o", output]) == 3
    assert "parts[0].mass" in capsys.readouterr().err
