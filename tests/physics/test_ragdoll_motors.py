"""Physical animation: joint motors following the demo's walk (root on the clip), recovering from a
shot, a powered fall, a blend out to limp, the strength defaults, and bad settings."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from app.cli.main import main
from app.model import Clip
from app.physics.autosetup import auto_setup
from app.physics.drive import Drive
from app.physics.motors import (CLIP_TORQUE_MARGIN, MAX_STRENGTH_RATIO, STRENGTH_GRAVITIES, clip_strengths,
                                default_strengths, load_inertias)
from app.physics.multibody import gimbal_angles
from app.physics.profile import ProfileError
from app.physics.profile_json import to_dict
from app.physics.ragdoll import TIME_STEP, Ragdoll
from app.pose import evaluate
from tests import synthetic
from tests.helpers import exit_status

#: The issue's measures for following the walk clip (degrees, seconds).
MEDIAN_ERROR, WORST_ERROR, RECOVERED, RECOVERY_SECONDS = 3.0, 10.0, 10.0, 0.75


def clip_angles(world: Ragdoll, clip, time: float) -> np.ndarray:
    """(J, 3) degrees: the joint angles the clip itself has at ``time`` (part frames from its bones,
    part b relative to part a in the joint frame), a hinge's off-axis angles zeroed."""
    rig = world.rig
    frames = rig.joint_world(rig.parts_at(evaluate(world.model, clip, time).world))
    angles = np.degrees(gimbal_angles(np.swapaxes(frames[:, 0, :3, :3], -1, -2) @ frames[:, 1, :3, :3]))
    angles[rig.hinge, 1:] = 0.0
    return angles


def errors(world: Ragdoll, clip, time: float) -> np.ndarray:
    """(J,) degrees: each joint's largest angle difference from the clip."""
    angles = np.degrees(world.joint_angles())
    angles[world.rig.hinge, 1:] = 0.0
    return np.abs((angles - clip_angles(world, clip, time) + 180.0) % 360.0 - 180.0).max(axis=1)


def following(demo, profile, **options) -> Ragdoll:
    world = Ragdoll(demo, profile)
    clip = demo.clips[0]
    world.take_over_clip(clip, 0.0)
    world.set_drive(Drive(world, clip, 0.0, follow=True, **options))
    return world


def test_follow_tracks_the_walk_clip(demo, profile):
    clip = demo.clips[0]
    with following(demo, profile) as world:
        samples, pelvis_gap = [], []
        pelvis = world.rig.part_names.index("pelvis")
        for _ in range(int(2 * clip.duration / (8 * TIME_STEP))):  # two loops of the clip
            world.step(8)
            time = clip.start + world.time % clip.duration
            samples.append(errors(world, clip, time))
            target = world.rig.parts_at(evaluate(demo, clip, time).world)[pelvis, :3, 3]
            pelvis_gap.append(np.linalg.norm(world.part_world()[pelvis, :3, 3] - target))
    samples = np.array(samples)
    assert np.median(samples) <= MEDIAN_ERROR
    assert samples.max() <= WORST_ERROR
    assert max(pelvis_gap) < 0.02  # the root is carried along the clip (metres)


def test_a_shot_forearm_reacts_and_recovers(demo, profile):
    clip = demo.clips[0]
    elbow = [j.name for j in profile.joints].index("elbow_l")
    shoulder = [j.name for j in profile.joints].index("shoulder_l")
    with following(demo, profile) as world:
        world.step(120)
        forearm = world.part_world()[world.rig.part_names.index("forearm_l"), :3, 3]
        hit = world.shoot(forearm + [0, 0, 2.0], [0, 0, -1.0], 50.0)
        assert hit is not None and hit.name in ("forearm_l", "hand_l")
        worst, back = 0.0, None
        for step in range(int(1.5 / TIME_STEP)):
            world.step()
            time = clip.start + world.time % clip.duration
            arm = errors(world, clip, time)[[elbow, shoulder]].max()
            worst = max(worst, arm)
            if worst > RECOVERED and back is None and arm <= RECOVERED:
                back = (step + 1) * TIME_STEP
            elif arm > RECOVERED:
                back = None
    assert worst > RECOVERED, "the shot should have knocked the arm off the clip"
    assert back is not None and back <= RECOVERY_SECONDS


def test_powered_fall_keeps_tone_that_a_limp_ragdoll_lacks(demo, profile):
    def drift(strength: float) -> float:
        """Mean degrees the joints move from the take-over pose over a 1.5 s fall after a shot."""
        with Ragdoll(demo, profile) as world:
            world.take_over_clip(demo.clips[0], 0.3)
            start = np.degrees(world.joint_angles())
            if strength:
                world.set_drive(Drive(world, None, strength=strength))
            chest = world.part_world()[world.rig.part_names.index("chest"), :3, 3]
            assert world.shoot(chest + [2.0, 0, 0], [-1.0, 0, 0], 80.0) is not None
            moved = []
            for _ in range(6):
                world.step(60)
                moved.append(np.abs(np.degrees(world.joint_angles()) - start).mean())
            assert world.part_world()[world.rig.part_names.index("pelvis"), 1, 3] < 0.5  # it fell
            return float(np.mean(moved))

    limp, half, full = drift(0.0), drift(0.5), drift(1.0)
    assert limp > 10.0
    assert max(half, full) < 0.25 * limp


def test_powered_fall_has_a_free_root(demo, profile):
    with Ragdoll(demo, profile) as world:
        world.take_over_clip(demo.clips[0], 0.3)
        world.set_drive(Drive(world, None, strength=1.0))
        pelvis = world.rig.part_names.index("pelvis")
        before = world.part_world()[pelvis, :3, 3].copy()
        chest = world.part_world()[world.rig.part_names.index("chest"), :3, 3]
        world.shoot(chest + [2.0, 0, 0], [-1.0, 0, 0], 150.0)
        world.step(240)
        assert np.linalg.norm(world.part_world()[pelvis, :3, 3] - before) > 0.2


def test_strength_zero_is_the_limp_ragdoll(demo, profile):
    runs = []
    for drive in (False, True):
        with Ragdoll(demo, profile) as world:
            world.take_over_clip(demo.clips[0], 0.3)
            if drive:
                world.set_drive(Drive(world, None, strength=0.0))
            world.step(240)
            runs.append(world.part_world().copy())
    np.testing.assert_allclose(runs[1], runs[0], atol=1e-6)


def test_release_blends_from_follow_to_limp(demo, profile):
    with following(demo, profile, release_at=0.5, release_over=0.5) as world:
        drive = world.drive
        assert drive.factor(0.25) == 1.0 and drive.factor(0.75) == pytest.approx(0.5)
        world.step(int(0.75 / TIME_STEP))
        assert world.drive is drive and not drive._roots  # the root is free from 0.5 s
        world.step(int(0.3 / TIME_STEP))
        assert world.drive is None  # faded out: limp
        world.step(int(2.0 / TIME_STEP))
        pelvis = world.part_world()[world.rig.part_names.index("pelvis"), :3, 3]
    assert pelvis[1] < 0.5  # collapsed (the pelvis stands at 0.95 m in the clip)


def test_default_strength_holds_the_load_at_its_lever(demo, profile):
    with Ragdoll(demo, profile) as world:
        rig, layout = world.rig, world.layout
        strengths = default_strengths(rig, layout)
        names = rig.part_names
        elbow = [j.name for j in profile.joints].index("elbow_l")
        load = [names.index("forearm_l"), names.index("hand_l")]
        masses = rig.masses[load]
        centre = (masses[:, None] * rig.part_bind[load, :3, 3]).sum(axis=0) / masses.sum()
        lever = np.linalg.norm(centre - rig.joint_bind[elbow, :3, 3]) * profile.meters_per_unit
        assert strengths[elbow] == pytest.approx(STRENGTH_GRAVITIES * 9.81 * masses.sum() * lever)
        shoulder = [j.name for j in profile.joints].index("shoulder_l")
        assert strengths[shoulder] > strengths[elbow] > 0  # the shoulder carries the whole arm


def test_profile_strength_is_used_and_saved(demo, profile, tmp_path):
    joints = [replace(j, strength=12.5) if j.name == "knee_l" else j for j in profile.joints]
    strong = replace(profile, joints=joints)
    data = to_dict(strong)
    knee = next(j for j in data["joints"] if j["name"] == "knee_l")
    assert knee["strength"] == 12.5 and "strength" not in data["joints"][0]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    out = tmp_path / "run.npz"
    assert main(["ragdoll", "--demo", "--profile", str(path), "--follow", "--seconds", "0.2",
                 "--positions", "none", "-o", str(out)]) == 0


# --- bad settings ----------------------------------------------------------------------------------

@pytest.mark.parametrize("options", [{"strength": 1.5}, {"strength": -0.1}, {"position_gain": 2.0},
                                     {"velocity_gain": -1.0}])
def test_out_of_range_settings_are_refused(demo, profile, options):
    with Ragdoll(demo, profile) as world, pytest.raises(ValueError):
        Drive(world, demo.clips[0], follow=True, **options)


def test_following_needs_a_clip(profile):
    model = synthetic.humanoid("Y")
    with Ragdoll(model, auto_setup(model)) as world, pytest.raises(ValueError, match="clip"):
        Drive(world, None, follow=True)


def test_too_strong_a_motor_names_the_joint(demo, profile):
    with Ragdoll(demo, profile) as world:
        top = MAX_STRENGTH_RATIO * default_strengths(world.rig, world.layout)
    index = [j.name for j in profile.joints].index("elbow_r")
    joints = list(profile.joints)
    joints[index] = replace(joints[index], strength=float(top[index]) * 2)
    with Ragdoll(demo, replace(profile, joints=joints)) as world, \
            pytest.raises(ProfileError, match=rf"joints\[{index}\]\.strength.*masses allow"):
        Drive(world, None, strength=1.0)


def test_cli_follow_writes_target_angles(tmp_path, demo):
    out = tmp_path / "run.npz"
    assert main(["ragdoll", "--demo", "--follow", "--clip", "walk", "--seconds", "1", "--fps", "30",
                 "--positions", "none", "-o", str(out)]) == 0
    data = np.load(out)
    assert data["target_angles"].shape == data["joint_angles"].shape == (31, len(auto_setup(demo).joints), 3)
    gap = np.abs((data["joint_angles"] - data["target_angles"] + 180) % 360 - 180).max(axis=2)
    assert np.median(gap) <= MEDIAN_ERROR and gap.max() <= WORST_ERROR
    with Ragdoll(demo, auto_setup(demo)) as world:  # the targets are the clip's own angles
        expected = clip_angles(world, demo.clips[0], 0.5)
    np.testing.assert_allclose(data["target_angles"][15], expected, atol=1e-6)


@pytest.mark.parametrize("args", [
    ["--follow", "--strength", "2"],
    ["--strength", "nan"],
    ["--release", "1"],  # nothing to release
    ["--follow", "--release", "-1"],
])
def test_cli_bad_motor_options_exit_2(tmp_path, args):
    out = tmp_path / "run.npz"
    assert exit_status(["ragdoll", "--demo", *args, "-o", str(out)]) == 2
    assert not out.exists()


def test_cli_follow_without_a_clip_exits_2(tmp_path, capsys):
    from app.export.gltf import export_gltf

    path = tmp_path / "still.glb"
    export_gltf(synthetic.humanoid("Y"), path, [])
    out = tmp_path / "run.npz"
    assert main(["ragdoll", str(path), "--follow", "-o", str(out)]) == 2
    assert "needs a clip" in capsys.readouterr().err and not out.exists()


def test_cli_too_strong_a_profile_exits_3_and_keeps_the_output(tmp_path, demo, capsys):
    data = to_dict(auto_setup(demo))
    data["joints"][0]["strength"] = 1e6
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    out = tmp_path / "run.npz"
    out.write_bytes(b"earlier run")
    assert main(["ragdoll", "--demo", "--profile", str(path), "--follow", "-o", str(out)]) == 3
    assert "joints[0].strength" in capsys.readouterr().err
    assert out.read_bytes() == b"earlier run"


@pytest.mark.parametrize("value, message", [(-1.0, "a motor torque from 0"), ("strong", "a finite number"),
                                            (2e6, "a motor torque from 0")])
def test_a_bad_strength_in_the_file_names_its_field(tmp_path, demo, value, message):
    from app.physics.profile_json import load_profile

    data = to_dict(auto_setup(demo))
    data["joints"][2]["strength"] = value
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ProfileError, match=rf"joints\[2\]\.strength.*{message}"):
        load_profile(path)


def test_a_null_strength_is_the_default(tmp_path, demo):
    from app.physics.profile_json import load_profile

    data = to_dict(auto_setup(demo))
    data["joints"][2]["strength"] = None
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    assert load_profile(path).joints[2].strength is None


def arm_through_the_body(up_axis: str = "Z"):
    """synthetic.humanoid with a 2 s clip at 30 frames a second that swings its left arm down and in
    by up to 110°, through the hips and the chest, and back (as an NWN orcus's cwalk folds its wings
    into each other)."""
    from tests.synthetic import world_with_turns

    model = synthetic.humanoid(up_axis)
    times = np.arange(61) / 30.0
    angles = -np.radians(110.0) * np.sin(np.pi * times / 2.0) ** 2
    worlds = np.stack([world_with_turns(model, {"arm.L": ("X", angle)}) for angle in angles])
    return replace(model, clips=[Clip("swing", "matrices", times=times, world=worlds)])


def follow_errors(model, profile, colliding: bool) -> tuple[np.ndarray, list[tuple[str, str]]]:
    """((F,) the worst joint error against the clip every 4 steps over one loop, the part pairs the
    drive keeps apart); ``colliding``: let those pairs collide anyway."""
    clip = model.clips[0]
    with Ragdoll(model, profile) as world:
        world.take_over_clip(clip, 0.0)
        drive = Drive(world, clip, 0.0, follow=True)
        world.set_drive(drive)
        names = world.rig.part_names
        passing = [(names[a], names[b]) for a, b in drive.passing]
        if colliding:
            world.builder.set_colliding(world.body_ids(0), drive.passing, True)
        worst = []
        for _ in range(int(clip.duration / (4 * TIME_STEP))):
            world.step(4)
            worst.append(errors(world, clip, clip.start + world.time % clip.duration).max())
    return np.array(worst), passing


def test_parts_the_clip_passes_through_each_other_do_not_collide_while_following():
    """The forearm swung through the hips and the chest: those pairs are kept from colliding while
    following, and the arm then tracks the clip within the issue's 10°; with them colliding, the
    body stops the arm past it (18° here)."""
    model = arm_through_the_body()
    profile = auto_setup(model)
    worst, passing = follow_errors(model, profile, colliding=False)
    pairs = {frozenset(pair) for pair in passing}
    assert {frozenset(("pelvis", "forearm_l")), frozenset(("chest", "forearm_l"))} <= pairs
    assert all("forearm_r" not in pair and "shin_l" not in pair for pair in pairs)
    assert worst.max() <= WORST_ERROR
    blocked, _ = follow_errors(model, profile, colliding=True)
    assert blocked.max() > WORST_ERROR


def test_clip_strengths_follow_the_clips_fastest_acceleration(demo, profile):
    """Joint angles swinging A sin(w t) on one axis, sampled every dt: each joint needs CLIP_TORQUE_MARGIN
    times its load's inertia times the sampled second difference's peak, 2 A (1 - cos(w dt)) / dt²,
    plus one g of its hold; a clip of two poses needs nothing."""
    with Ragdoll(demo, profile) as world:
        rig, layout = world.rig, world.layout
        amplitude, speed, interval = 0.5, 2 * np.pi, 1 / 60
        times = np.arange(121) * interval
        angles = np.zeros((len(times), len(rig.joint_parts), 3))
        angles[:, :, 0] = amplitude * np.sin(speed * times)[:, None]
        peak = 2 * amplitude * (1 - np.cos(speed * interval)) / interval ** 2
        hold = default_strengths(rig, layout) / STRENGTH_GRAVITIES
        expected = CLIP_TORQUE_MARGIN * load_inertias(rig, layout) * peak + hold
        np.testing.assert_allclose(clip_strengths(rig, layout, angles, interval), expected, rtol=1e-6)
        assert not clip_strengths(rig, layout, angles[:2], interval).any()
        elbow = [j.name for j in profile.joints].index("elbow_l")
        forearm, hand = (rig.part_names.index(name) for name in ("forearm_l", "hand_l"))
        pivot = rig.joint_bind[elbow, :3, 3]
        by_hand = sum(rig.masses[p] * (np.sum((rig.part_bind[p, :3, 3] - pivot) ** 2)
                                       + np.sum(np.sort(2 * rig.half_extents[p])[1:] ** 2) / 12)
                      for p in (forearm, hand))
        assert load_inertias(rig, layout)[elbow] == pytest.approx(by_hand)
