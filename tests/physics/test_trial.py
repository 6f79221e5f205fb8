"""``ragdoll --check``: the report on a sound profile and on deliberately bad ones (tiny limits, a 1:50
mass ratio, a missing hand part), its JSON on the command line and its exit status."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from app.cli.main import main
from app.physics.trial import THRESHOLDS, check_profile
from app.physics.profile_json import to_dict
from tests.helpers import exit_status


@pytest.fixture(scope="module")
def sound(demo, profile):
    return check_profile(demo, profile)


def test_sound_profile_passes_with_the_contract_fields(sound, demo, profile):
    assert sound["verdict"] == "pass" and sound["problems"] == [] and sound["uncovered_bones"] == []
    assert sound["thresholds"]["overshoot_deg"] == 10 and sound["thresholds"]["penetration_cm"] == 5
    assert [j["name"] for j in sound["joints"]] == [j.name for j in profile.joints]
    assert [p["name"] for p in sound["parts"]] == [p.name for p in profile.parts]
    for joint in sound["joints"]:
        assert {"name", "overshoot_deg", "rest_outside_deg"} <= set(joint)
        assert 0 <= joint["overshoot_deg"] <= THRESHOLDS["overshoot_deg"]
    masses = {p.name: p.mass for p in profile.parts}
    for part in sound["parts"]:
        assert set(part) == {"name", "mass_kg", "mass_ratio", "penetration_cm", "skin_vertices"}
        assert part["mass_kg"] == pytest.approx(masses[part["name"]], abs=0.01)
        assert 0 <= part["penetration_cm"] <= THRESHOLDS["penetration_cm"]
    # the ratio across the elbow, from the profile's own masses
    elbow = next(j for j in sound["joints"] if j["name"] == "elbow_l")
    assert elbow["mass_ratio"] == pytest.approx(masses["upperarm_l"] / masses["forearm_l"], abs=0.01)
    # every vertex weighted at least half to one bone is carried by exactly one part
    mesh_weights = np.concatenate([m.weights for m in demo.meshes if m.weights.size])
    dominated = int((mesh_weights.max(axis=1) >= 0.5).sum())
    assert sum(p["skin_vertices"] for p in sound["parts"]) == dominated


def _bad(profile, **changes):
    """The profile with parts or joints changed by name: {name: {field: value}}."""
    parts = [replace(p, **changes.get(p.name, {})) for p in profile.parts]
    joints = [replace(j, **changes.get(j.name, {})) for j in profile.joints]
    return replace(profile, parts=parts, joints=joints)


def test_tiny_limits_fail(demo, profile, short_trial):
    report = check_profile(demo, _bad(profile, elbow_l={"low": 0.0, "high": 2.0}, hip_r={"twist": 1.0}))
    assert report["verdict"] == "fail"
    limits = [line for line in report["problems"] if "has a limit of" in line]
    assert any("'elbow_l'" in line and "2°" in line for line in limits)
    assert any("'hip_r'" in line and "1°" in line for line in limits)


def test_a_1_to_50_mass_ratio_fails(demo, profile, short_trial):
    upper = next(p.mass for p in profile.parts if p.name == "upperarm_r")
    report = check_profile(demo, _bad(profile, forearm_r={"mass": upper / 50}))
    assert report["verdict"] == "fail"
    elbow = next(j for j in report["joints"] if j["name"] == "elbow_r")
    assert elbow["mass_ratio"] == pytest.approx(50.0, rel=1e-3)
    assert any("'elbow_r'" in line and "50:1" in line for line in report["problems"])


def test_a_missing_hand_part_fails(demo, profile, short_trial):
    handless = profile.copy()
    handless.remove_part("hand_l")
    report = check_profile(demo, handless)
    assert report["verdict"] == "fail"
    assert report["uncovered_bones"] == ["hand_l"]
    assert "bone 'hand_l' moves vertices but has no part" in report["problems"]


def test_cli_prints_the_report_and_exits_0_when_it_passes(capsys):
    assert main(["ragdoll", "--demo", "--check"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == "pass"


def test_cli_prints_the_report_and_exits_1_when_it_fails(tmp_path, profile, capsys, short_trial):
    """The knee's 3° limit fails the profile whatever the motion."""
    data = to_dict(profile)
    for joint in data["joints"]:
        if joint["name"] == "knee_l":
            joint["limits"] = {"low": 0.0, "high": 3.0}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert main(["ragdoll", "--demo", "--profile", str(bad), "--check"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == "fail" and any("'knee_l'" in line for line in report["problems"])


def test_check_takes_no_output(tmp_path):
    assert exit_status(["ragdoll", "--demo", "--check", "-o", str(tmp_path / "x.npz")]) == 2
    assert exit_status(["ragdoll", "--demo"]) == 2  # neither -o nor --check


def test_limit_excess_by_hand():
    from types import SimpleNamespace

    from app.physics.trial import limit_excess

    limits = [[-5.0, 135.0, 0.0], [30.0, 25.0, 30.0], [30.0, 25.0, 30.0]]
    rig = SimpleNamespace(joint_limits=np.radians(limits), hinge=np.array([True, False, False]))
    angles = np.radians([[140.0, 0.0, 3.0], [35.0, 0.0, -40.0], [10.0, -20.0, 29.0]])
    # the hinge: 5° past its high limit, but its off-axis 3° counts too (max: 5°); the cone: twist 10°
    # past; the third within its limits
    np.testing.assert_allclose(np.degrees(limit_excess(rig, angles)), [5.0, 10.0, 0.0], atol=1e-9)


def test_part_depths_by_hand():
    from types import SimpleNamespace

    from app.physics.trial import part_depths

    turn = np.eye(4)
    turn[:3, :3] = [[1, 0, 0], [0, 0, -1], [0, 1, 0]]  # a quarter turn about X: the box's Z is up
    rig = SimpleNamespace(box_rotations=np.stack([np.eye(4), turn, np.eye(4)]),
                          half_extents=np.array([[0.1, 0.2, 0.3], [0.1, 0.2, 0.3], [0.05, 0.4, 0.05]]),
                          capsules=np.array([False, False, True]))
    world = SimpleNamespace(rig=rig, floor=0.0, model=SimpleNamespace(up_axis="Y"))
    parts = np.repeat(np.eye(4)[None], 3, axis=0)
    parts[:, 1, 3] = [0.15, 0.25, 0.3]
    # box up 0.2 from its centre at 0.15: 5 cm under; turned, its 0.3 half edge is up: 5 cm under; the
    # capsule along Y (radius 0.05, 0.8 long) reaches 0.4 down from 0.3: 10 cm under
    np.testing.assert_allclose(part_depths(world, parts), [0.05, 0.05, 0.1], atol=1e-12)
