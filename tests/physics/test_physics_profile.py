"""Ragdoll profiles: the article's frames against hand computation, JSON round trips, errors, editing,
and the auto-setup's reading of bone names. No pybullet here."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from app.bone_names import bone_role
from app.errors import InputError
from app.model import Model, Skeleton
from app.physics.autosetup import auto_setup, humanoid_slots
from app.physics.multibody import build_layout, gimbal_angles, joint_positions
from app.physics.profile import Joint, Part, ProfileError, RagdollProfile, capsule_dimensions
from app.physics.profile_json import load_profile, save_profile, to_dict
from app.physics.rig import bind_rig
from tests import synthetic

# Rotations written out by hand (column vectors), independent of app.maths.
RZ90 = np.array([[0.0, -1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
RX90 = np.array([[1.0, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]])


def moved(matrix, x, y, z):
    result = np.array(matrix, dtype=float)
    result[:3, 3] = (x, y, z)
    return result


def three_bones() -> Model:
    """bone0 at (1, 2, 3) turned 90° about Z, length 1 along +Y; bone1 its child, scaled by 2;
    bone2 a second child; bone3 a child of bone1."""
    bind = np.array([moved(RZ90, 1, 2, 3), moved(np.diag([2.0, 2, 2, 1]), 1, 3, 3), moved(np.eye(4), 0, 0, 5),
                     moved(np.eye(4), 1, 4, 3)])
    heads = bind[:, :3, 3]
    tails = heads + [[0, 1, 0], [0, 1, 0], [0, 0, 1], [0, 1, 0]]
    skeleton = Skeleton(["bone0", "bone1", "bone2", "bone3"], [-1, 0, 0, 1], bind, heads, tails,
                        np.zeros(4, bool))
    return Model("three", skeleton, up_axis="Z")


def three_bone_profile() -> RagdollProfile:
    return RagdollProfile(
        parts=[Part("A", "bone0", (0.2, 1.0, 0.2), offset=(0.1, 0.0, 0.0), mass=2.0),
               Part("B", "bone1", (0.2, 1.0, 0.2), mass=1.0)],
        relations={"bone2": "A"},
        joints=[Joint("elbow", "A", "B", offset_a=(0.5, 0.0, 0.0), offset_b=(-0.5, 0.0, 0.0),
                      rotation=(0.0, 0.0, np.sqrt(0.5), np.sqrt(0.5)), kind="hinge", low=-10, high=120)])


# --- the article's frames ------------------------------------------------------------------------

def test_part_frame_and_bone_to_part_by_hand():
    rig = bind_rig(three_bones(), three_bone_profile())
    # P_A = T((tail − head)/2 + offset) @ B_0: translation (1, 2, 3) + (0, 0.5, 0) + (0.1, 0, 0).
    np.testing.assert_allclose(rig.part_bind[0], moved(RZ90, 1.1, 2.5, 3.0), atol=1e-12)
    # boneToPart = inv(P_A) @ B_0 = T(Rz90ᵀ ((1, 2, 3) − (1.1, 2.5, 3))) = T(−0.5, 0.1, 0).
    np.testing.assert_allclose(rig.bone_to_part[0], moved(np.eye(4), -0.5, 0.1, 0.0), atol=1e-12)
    # A scaled bone gives a rigid part; the scale stays in its boneToPart.
    np.testing.assert_allclose(rig.part_bind[1], moved(np.eye(4), 1.0, 3.5, 3.0), atol=1e-12)
    scaled = moved(np.diag([2.0, 2, 2, 1]), 0.0, -0.5, 0.0)
    np.testing.assert_allclose(rig.bone_to_part[1], scaled, atol=1e-12)


def test_bones_follow_parts_with_relations_by_hand():
    rig = bind_rig(three_bones(), three_bone_profile())
    assert list(rig.bone_parts) == [0, 1, 0, 1]  # bone2 by relation, bone3 after its parent bone1
    part_a = moved(RX90, 5.0, 0.0, 0.0)
    world = rig.bone_world(np.array([part_a, moved(np.eye(4), 0, 0, 0)]))
    # bone0 = P_A(t) @ T(−0.5, 0.1, 0): Rx90 turns (−0.5, 0.1, 0) into (−0.5, 0, 0.1).
    np.testing.assert_allclose(world[0], moved(RX90, 4.5, 0.0, 0.1), atol=1e-12)
    # bone2 = P_A(t) @ inv(P_A) @ B_2: offset Rz90ᵀ((0, 0, 5) − (1.1, 2.5, 3)) = (−2.5, 1.1, 2),
    # turned by Rx90 to (−2.5, −2, 1.1); rotation Rx90 @ Rz90ᵀ.
    expected = np.array([[0.0, 1, 0, 2.5], [0, 0, -1, -2.0], [-1, 0, 0, 1.1], [0, 0, 0, 1]])
    np.testing.assert_allclose(world[2], expected, atol=1e-12)
    # bone3 follows part B; with P_B(t) = identity it sits at B_3 relative to P_B(bind) = T(1, 3.5, 3).
    np.testing.assert_allclose(world[3], moved(np.eye(4), 0.0, 0.5, 0.0), atol=1e-12)


def test_joint_frame_by_hand():
    rig = bind_rig(three_bones(), three_bone_profile())
    # P_A @ (0.5, 0, 0) = (1.1, 2.5, 3) + Rz90 (0.5, 0, 0) = (1.1, 3.0, 3);
    # P_B @ (−0.5, 0, 0) = (0.5, 3.5, 3); the midpoint is (0.8, 3.25, 3).
    np.testing.assert_allclose(rig.joint_bind[0], moved(RZ90, 0.8, 3.25, 3.0), atol=1e-12)
    assert rig.hinge.tolist() == [True]
    np.testing.assert_allclose(np.degrees(rig.joint_limits[0]), [-10, 120, 0])


def test_parts_at_a_pose_carry_their_bones():
    model = three_bones()
    rig = bind_rig(model, three_bone_profile())
    world = model.skeleton.bind_world.copy()
    world[0] = moved(RX90, 0, 0, 1) @ world[0]
    parts = rig.parts_at(world)
    np.testing.assert_allclose(rig.bone_world(parts)[0], world[0], atol=1e-12)


def test_gimbal_angles_and_joint_positions():
    a, b, c = 0.3, -0.4, 1.1
    rz = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    ry = np.array([[np.cos(b), 0, np.sin(b)], [0, 1, 0], [-np.sin(b), 0, np.cos(b)]])
    rx = np.array([[1, 0, 0], [0, np.cos(c), -np.sin(c)], [0, np.sin(c), np.cos(c)]])
    np.testing.assert_allclose(gimbal_angles(rz @ ry @ rx), [a, b, c], atol=1e-12)
    model = three_bones()
    profile = three_bone_profile()
    rig = bind_rig(model, profile)
    body, = build_layout(rig)
    assert [link.axis for link in body.links] == [2] and body.base == 0
    # Turn part B about the joint's Z axis (world Z here: the joint frame is Rz90) by 0.7 rad.
    turn = np.eye(4)
    turn[:2, :2] = [[np.cos(0.7), -np.sin(0.7)], [np.sin(0.7), np.cos(0.7)]]
    pivot = rig.joint_bind[0][:3, 3]
    about = moved(np.eye(4), *pivot) @ turn @ moved(np.eye(4), *-pivot)
    parts = rig.part_bind.copy()
    parts[1] = about @ parts[1]
    np.testing.assert_allclose(joint_positions(rig, body, parts), [0.7], atol=1e-12)


# --- JSON ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def demo_profile(demo_model):
    return auto_setup(demo_model)


@pytest.fixture(scope="module")
def demo_model():
    from app import loading
    from app.resources import demo_paths

    return loading.load(demo_paths())


def test_round_trip(tmp_path, demo_profile):
    path = save_profile(demo_profile, tmp_path / "demo.glb.ragdoll.json")
    again = load_profile(path)
    assert again.parts == demo_profile.parts and again.joints == demo_profile.joints
    assert again.relations == demo_profile.relations
    assert again.disabled_collisions == demo_profile.disabled_collisions
    assert to_dict(again) == to_dict(demo_profile)
    assert os.listdir(tmp_path) == ["demo.glb.ragdoll.json"]  # the temporary file was renamed


def test_shapes_round_trip_and_old_profiles_load_as_boxes(tmp_path, demo_profile):
    shapes = ["capsule" if i % 2 else "box" for i in range(len(demo_profile.parts))]
    data = to_dict(demo_profile)
    for part, shape in zip(data["parts"], shapes):
        part["shape"] = shape
    path = tmp_path / "shapes.ragdoll.json"
    path.write_text(json.dumps(data))
    loaded = load_profile(path)
    assert [part.shape for part in loaded.parts] == shapes
    save_profile(loaded, path)
    assert [part["shape"] for part in json.loads(path.read_text())["parts"]] == shapes
    for part in data["parts"]:
        del part["shape"]
    path.write_text(json.dumps(data))
    assert {part.shape for part in load_profile(path).parts} == {"box"}


@pytest.mark.parametrize("size, expected", [((0.1, 0.5, 0.08), (1, 0.04, 0.5)),
                                            ((0.6, 0.2, 0.3), (0, 0.1, 0.6)),
                                            ((0.2, 0.2, 0.2), (0, 0.1, 0.2))])
def test_capsule_dimensions_follow_the_long_axis(size, expected):
    assert capsule_dimensions(size) == pytest.approx(expected)


def test_saved_beside_the_model_and_found_again(tmp_path, demo_model, demo_profile):
    from app import loading

    from app.physics.model_profile import model_profile
    from app.physics.profile_location import beside

    copy = tmp_path / "hero.glb"
    copy.write_bytes(open(demo_model.files[0], "rb").read())
    model = loading.load([copy])
    data_dir = tmp_path / "data"
    assert beside(copy) == tmp_path / "hero.glb.ragdoll.json"
    assert model_profile(model, data_dir)[1:] == (None, None)
    edited = demo_profile.copy()
    edited.set_total_mass(50.0)
    save_profile(edited, beside(copy))
    found, path, problem = model_profile(model, data_dir)
    assert found.total_mass == pytest.approx(50.0) and found.path == path == beside(copy) and problem is None


def test_save_replaces_atomically(tmp_path, demo_profile, monkeypatch):
    path = tmp_path / "p.json"
    path.write_text("old")

    def broken_replace(source, target):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        save_profile(demo_profile, path)
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["p.json"]


def _bad(data: dict, change) -> dict:
    data = json.loads(json.dumps(data))
    change(data)
    return data


BAD = [
    (lambda d: d.pop("parts"), "parts", "missing"),
    (lambda d: d.update(version=7), "version", "version from 1 to 1"),
    (lambda d: d["parts"][1].update(size=[0.1, -2, 0.1]), "parts[1].size", "positive edge lengths"),
    (lambda d: d["parts"][0].update(mass="heavy"), "parts[0].mass", 'finite number, got "heavy"'),
    (lambda d: d["parts"][2].update(name="pelvis"), "parts[2].name", "unique name"),
    (lambda d: d["joints"][0]["parts"].__setitem__(1, "tail"), "joints[0].parts[1]", "name of a part"),
    (lambda d: d["joints"][0].update(type="ball"), "joints[0].type", "hinge, cone_twist"),
    (lambda d: d["joints"][0]["limits"].update(swing2=89), "joints[0].limits.swing2", "0 to 85"),
    (lambda d: d["joints"][4]["limits"].pop("high"), "joints[4].limits.high", "missing"),
    (lambda d: d["relations"].update(neck="nobody"), 'relations["neck"]', "name of a part"),
    (lambda d: d.update(disabled_collisions=[["pelvis"]]), "disabled_collisions[0]", "two part names"),
    (lambda d: d.update(meters_per_unit=0), "meters_per_unit", "positive"),
    (lambda d: d["parts"][5].update(shape="sphere"), "parts[5].shape", 'box, capsule, got "sphere"'),
    (lambda d: d["parts"][0].update(shape=None), "parts[0].shape", "box, capsule, got null"),
]


@pytest.mark.parametrize("change, where, expected", BAD, ids=[case[1] for case in BAD])
def test_bad_profiles_name_file_field_and_expectation(tmp_path, demo_profile, change, where, expected):
    path = tmp_path / "bad.ragdoll.json"
    path.write_text(json.dumps(_bad(to_dict(demo_profile), change)))
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    error = caught.value
    assert isinstance(error, InputError) and error.where == where
    assert str(error).startswith(f"{path}: {where}: ") and expected in str(error)


def test_not_json_and_unknown_bones(tmp_path, demo_model, demo_profile):
    path = tmp_path / "broken.json"
    path.write_text('{"version": 1,\n "parts": [}')
    with pytest.raises(ProfileError, match=r"broken.json: not JSON: .* line 2"):
        load_profile(path)
    data = _bad(to_dict(demo_profile), lambda d: d["parts"][3].update(bone="skull"))
    path.write_text(json.dumps(data))
    with pytest.raises(ProfileError, match=r"parts\[3\]\.bone: the name of a bone of .*got 'skull'"):
        bind_rig(demo_model, load_profile(path))
    with pytest.raises(ProfileError, match="ragdoll profile: parts: at least one part"):
        bind_rig(demo_model, RagdollProfile())


# --- editing -------------------------------------------------------------------------------------

def test_edits_check_notify_and_follow_renames(demo_profile):
    profile = demo_profile.copy()
    heard = []
    profile.subscribe(lambda: heard.append(1))
    profile.set_part("head", name="skull", size=(0.2, 0.25, 0.2))
    assert profile.parts[profile.part_index("skull")].size == (0.2, 0.25, 0.2)
    assert profile.joints[profile.joint_index("neck")].part_b == "skull"
    assert profile.relations == {**demo_profile.relations}  # nothing followed the head part
    before = to_dict(profile)
    with pytest.raises(ValueError, match=r"parts\[0\]\.mass"):
        profile.set_part("pelvis", mass=-1)
    assert to_dict(profile) == before and len(heard) == 1
    profile.set_collision("thigh_l", "thigh_r", enabled=False)
    profile.set_relation("foot_l", "thigh_l")
    profile.set_joint("knee_l", high=90.0)
    profile.remove_part("forearm_r")
    assert "elbow_r" not in [j.name for j in profile.joints] and "hand_r" not in profile.relations
    profile.set_total_mass(100.0)
    assert profile.total_mass == pytest.approx(100.0) and len(heard) == 6


# --- auto-setup names ----------------------------------------------------------------------------

@pytest.mark.parametrize("name, role", [
    ("Bip01 L Thigh", ("thigh", "l")), ("Bip01 R UpperArm", ("upperarm", "r")),
    ("Bip01 Spine1", ("spine", None)),
    ("Bip01 HeadNub", (None, None)), ("Bip01 L Finger0", (None, None)), ("Bip01", (None, None)),
    ("mixamorig:LeftUpLeg", ("thigh", "l")), ("mixamorig:RightForeArm", ("forearm", "r")),
    ("mixamorig:LeftLeg", ("shin", "l")), ("mixamorig:Hips", ("pelvis", None)),
    ("lbicep_g", ("upperarm", "l")), ("rshin_g", ("shin", "r")), ("torso_g", ("spine", None)),
    ("rootdummy", (None, None)), ("thigh.L", ("thigh", "l")), ("upperarm_r", ("upperarm", "r")),
    ("L_Hip", ("thigh", "l")), ("UpperArmTwist_L", (None, None)), ("arm", (None, None)),
])
def test_bone_roles(name, role):
    assert bone_role(name) == role


def test_humanoid_slots_of_the_demo(demo_model):
    slots = humanoid_slots(demo_model)
    names = demo_model.skeleton.names
    torso = ("pelvis", "spine", "chest", "head")
    assert {key: names[bone] for key, bone in slots.items() if key in torso} == {key: key for key in torso}
    assert names[slots["shin_r"]] == "shin_r"
    blender_style = synthetic.humanoid("Z")
    assert blender_style.skeleton.names[humanoid_slots(blender_style)["upperarm_l"]] == "arm.L"
    anonymous = synthetic.humanoid("Z")
    anonymous.skeleton.names = [f"bone{i}" for i in range(len(anonymous.skeleton))]
    assert humanoid_slots(anonymous) is None
