"""``boneyard ragdoll`` (docs/cli.md): the .npz arrays, the .glb clip, shots, profiles and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from app import loading
from app.cli.main import main
from app.physics.autosetup import auto_setup
from app.physics.profile_json import save_profile, to_dict
from app.physics.profile_location import beside
from app.pose import evaluate
from app.resources import demo_paths
from tests.helpers import exit_status

DEMO_BONES = 17
KEYS = {"times", "world", "positions", "bone_names", "parts", "part_world", "joint_names", "joint_angles",
        "joint_limits", "target_angles"}


@pytest.fixture(scope="module")
def demo():
    return loading.load(demo_paths())


def test_npz_holds_the_run_at_the_display_rate(tmp_path, demo, capsys):
    out = tmp_path / "run.npz"
    assert main(["ragdoll", "--demo", "--seconds", "1", "-o", str(out)]) == 0
    data = np.load(out)
    assert set(data.files) == KEYS
    frames, parts = 61, len(data["parts"])
    np.testing.assert_allclose(data["times"], np.arange(frames) / 60)
    assert data["world"].shape == (frames, DEMO_BONES, 4, 4)
    assert data["positions"].shape == (frames, demo.vertex_count, 3)
    assert data["part_world"].shape == (frames, parts, 4, 4) and parts >= 10
    assert list(data["bone_names"]) == demo.skeleton.names and "pelvis" in list(data["parts"])
    assert np.allclose(data["world"][..., 3, :], [0, 0, 0, 1])
    np.testing.assert_allclose(data["world"][0], demo.skeleton.bind_world, atol=1e-7)  # starts at bind
    np.testing.assert_allclose(data["positions"][0], demo.bind_positions, atol=1e-5)
    assert data["world"][-1, 0, 1, 3] < data["world"][0, 0, 1, 3] - 0.3, "the pelvis fell"


def test_takes_over_from_a_clip_instant_and_shoots(tmp_path, demo, capsys):
    out = tmp_path / "run.npz"
    status = main(["ragdoll", "--demo", "--clip", "walk", "--time", "0.3", "--seconds", "0.5", "--fps", "20",
                   "--shoot", "0,1.3,2:0,0,-1@0.1", "--shoot", "5,5,5:1,0,0", "--impulse", "30",
                   "-o", str(out)])
    assert status == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["shot at 0.1 s from 0,1.3,2: hit part 'chest'", "shot at 0.5 s from 5,5,5: hit nothing"]
    data = np.load(out)
    assert len(data["times"]) == 11
    np.testing.assert_allclose(data["world"][0], evaluate(demo, demo.clips[0], 0.3).world, atol=1e-4)


@pytest.mark.parametrize("name", ["run.glb", "run.gltf"])
def test_gltf_holds_one_clip_of_the_run(tmp_path, demo, name):
    out = tmp_path / name
    assert main(["ragdoll", "--demo", "--seconds", "0.75", "--fps", "20", "-o", str(out)]) == 0
    model = loading.load([out])
    assert len(model.clips) == 1 and model.clips[0].duration == pytest.approx(0.75)
    assert model.clips[0].frame_count == 16 and len(model.skeleton) == DEMO_BONES


def test_profile_beside_the_model_or_given(tmp_path, demo):
    model_path = tmp_path / "hero.glb"
    model_path.write_bytes(open(demo.files[0], "rb").read())
    profile = auto_setup(demo)
    profile.remove_part("forearm_l")
    save_profile(profile, beside(model_path))
    out = tmp_path / "run.npz"
    assert main(["ragdoll", str(model_path), "--seconds", "0.1", "-o", str(out)]) == 0
    assert "forearm_l" not in list(np.load(out)["parts"])
    other = tmp_path / "other.json"
    profile.remove_part("forearm_r")
    save_profile(profile, other)
    status = main(["ragdoll", str(model_path), "--profile", str(other), "--seconds", "0.1", "-o", str(out)])
    assert status == 0
    assert len(np.load(out)["parts"]) == len(profile.parts)


def test_an_output_of_another_kind_is_a_usage_error(tmp_path, capsys):
    assert main(["ragdoll", "--demo", "-o", str(tmp_path / "run.fbx")]) == 2
    assert "must end in .npz, .glb or .gltf, got 'run.fbx'" in capsys.readouterr().err


def test_bad_profile_exits_3_naming_file_and_field(tmp_path, demo, capsys):
    data = to_dict(auto_setup(demo))
    data["joints"][2]["limits"]["twist"] = -5
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert main(["ragdoll", "--demo", "--profile", str(bad), "-o", str(tmp_path / "x.npz")]) == 3
    message = capsys.readouterr().err.strip()
    assert message == f"error: {bad}: joints[2].limits.twist: an angle from 0 to 180 degrees, got -5.0"


@pytest.mark.parametrize("args", [
    ["ragdoll", "--demo", "-o", "x.txt"],
    ["ragdoll", "--demo", "--shoot", "1,2:0,0,1", "-o", "x.npz"],
    ["ragdoll", "--demo", "--shoot", "0,0,0:0,0,0", "-o", "x.npz"],
    ["ragdoll", "--demo", "--fps", "0", "-o", "x.npz"],
    ["ragdoll", "--demo", "--seconds", "-1", "-o", "x.npz"],
    ["ragdoll", "--demo", "--clip", "walk", "-o", "x.npz"],
    ["ragdoll", "--demo", "--clip", "nope", "--frame", "0", "-o", "x.npz"],
    ["ragdoll", "--demo", "--profile", "p.json", "--frame", "1", "--time", "1", "-o", "x.npz"],
])
def test_bad_arguments_exit_2(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert exit_status(args) == 2


def test_runs_without_qt_and_quietly(tmp_path):
    code = ("import sys; from app.cli.main import main; "
            "assert main(['ragdoll', '--demo', '--seconds', '0.05', '-o', 'out.npz']) == 0; "
            "assert not any(m.startswith('PySide6') for m in sys.modules), 'Qt was imported'")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "" and result.stdout == "" and (tmp_path / "out.npz").is_file()


def test_save_profile_writes_the_profile_the_run_used(tmp_path, demo):
    out, saved = tmp_path / "run.npz", tmp_path / "used.json"
    assert main(["ragdoll", "--demo", "--seconds", "0.1", "-o", str(out), "--save-profile", str(saved)]) == 0
    assert json.loads(saved.read_text()) == to_dict(auto_setup(demo))
    mask = os.umask(0)
    os.umask(mask)
    assert saved.stat().st_mode & 0o777 == 0o666 & ~mask, "readable by everyone under a normal umask"
    status = main(["ragdoll", "--demo", "--seconds", "0.1", "-o", str(out),
                   "--save-profile", str(tmp_path / "missing" / "used.json")])
    assert status == 3


def test_npz_joint_angles_and_limits_in_degrees(tmp_path, demo):
    out = tmp_path / "run.npz"
    assert main(["ragdoll", "--demo", "--seconds", "1", "--fps", "30", "-o", str(out)]) == 0
    data = np.load(out)
    profile = auto_setup(demo)
    joints = profile.joints
    assert list(data["joint_names"]) == [joint.name for joint in joints]
    assert data["joint_angles"].shape == (31, len(joints), 3)
    assert data["joint_limits"].shape == (len(joints), 3, 2)
    for index, joint in enumerate(joints):
        limits = data["joint_limits"][index]
        angles = data["joint_angles"][:, index]
        if joint.kind == "hinge":
            np.testing.assert_array_equal(limits, [[joint.low, joint.high], [0, 0], [0, 0]])
            assert not angles[:, 1:].any()
        else:
            expected = [joint.swing1, joint.swing2, joint.twist]
            np.testing.assert_array_equal(limits, np.stack([np.negative(expected), expected], axis=-1))
    # The run starts at the bind pose, where every joint is at 0, and the body then bends.
    np.testing.assert_allclose(data["joint_angles"][0], 0.0, atol=1e-6)
    assert np.abs(data["joint_angles"][-1]).max() > 5.0
    within = (data["joint_angles"] >= data["joint_limits"][:, :, 0] - 15) & (
        data["joint_angles"] <= data["joint_limits"][:, :, 1] + 15)
    assert within.all()
