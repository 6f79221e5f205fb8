"""NWN1 binary MDL reader: files from tests/writers/nwn_writer.py; expected poses from explicit matrices."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from app import formats, loading
from app.formats.nwn import binary
from app.formats.nwn import supermodels
from app.formats.registry import LoadOptions, ReadError, SniffedFile
from app.pose import evaluate, posed_positions
from tests.writers.nwn_writer import WAnimation, WNode, write_mdl


def axis_quaternion(axis, degrees):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    half = np.radians(degrees) / 2
    return (*(axis * np.sin(half)), np.cos(half))


def rotation(axis, degrees):
    """4×4 rotation about a unit axis (Rodrigues), independent of the reader's quaternion code."""
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    angle = np.radians(degrees)
    cross = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    matrix = np.eye(4)
    matrix[:3, :3] = np.eye(3) + np.sin(angle) * cross + (1 - np.cos(angle)) * cross @ cross
    return matrix


def translate(offset):
    matrix = np.eye(4)
    matrix[:3, 3] = offset
    return matrix


# rest values: name → (position, axis, degrees)
REST = {"c_test": ((0, 0, 0), (0, 0, 1), 0), "pelvis": ((0, 0, 1), (0, 0, 1), 30),
        "torso_g": ((0, 0.2, 0.5), (1, 0, 0), 0), "lthigh": ((0.2, 0, -0.1), (1, 0, 0), 20),
        "body": ((0, 0, 0.1), (0, 1, 0), 10)}
PARENT = {"c_test": None, "pelvis": "c_test", "torso_g": "pelvis", "lthigh": "pelvis", "body": "c_test"}
TORSO = np.array([[0.1, 0.0, 0.0], [0.0, 0.3, 0.1], [-0.2, 0.1, 0.4]])
BODY = np.array([[0.1, 0.1, 0.9], [0.3, -0.1, 0.7], [0.2, 0.2, 0.4], [-0.1, 0.0, 1.1]])
BODY_BONES = [["pelvis", None, None, None], [None, "lthigh", "pelvis", None],
              ["lthigh", None, None, None], ["pelvis", "lthigh", None, None]]
BODY_WEIGHTS = np.array([[1, 0, 0, 0], [0, 0.75, 0.25, 0], [1, 0, 0, 0], [0.4, 0.6, 0, 0]])


def node(name, flags=0x001, children=(), **more):
    position, axis, degrees = REST[name]
    return WNode(name, flags, position, axis_quaternion(axis, degrees), list(children), **more)


def model_tree() -> WNode:
    torso = node("torso_g", 0x021, vertices=TORSO, faces=[[0, 1, 2]], uvs=[[0, 0], [1, 0], [0, 1]],
                 texture="torso_tex")
    lthigh = node("lthigh")
    pelvis = node("pelvis", children=[torso, lthigh])
    body = node("body", 0x061, vertices=BODY, faces=[[0, 1, 2], [0, 2, 3]], skin_bones=BODY_BONES,
                skin_weights=BODY_WEIGHTS)
    others = [WNode("light01", 0x003), WNode("emit01", 0x005), WNode("ref01", 0x011),
              WNode("walkmesh", 0x221, vertices=np.zeros((0, 3)), faces=np.zeros((0, 3)))]
    return node("c_test", children=[pelvis, body, *others])


# keyed animation "walk": pelvis position keys and lthigh orientation keys (about x, 20° → 80°)
PELVIS_TIMES, PELVIS_POSITIONS = [0.0, 1.0, 2.0], [(0, 0, 1), (0, 0.5, 1.2), (0, 1.0, 1.0)]
THIGH_TIMES, THIGH_DEGREES = [0.5, 1.5], [20.0, 80.0]


def walk_animation() -> WAnimation:
    pelvis = WNode("pelvis", keys=[(8, PELVIS_TIMES, PELVIS_POSITIONS)])
    thigh = WNode("LThigh", keys=[(20, THIGH_TIMES, [axis_quaternion((1, 0, 0), d) for d in THIGH_DEGREES])])
    stray = WNode("not_in_model", keys=[(8, [0.0], [(9, 9, 9)])])
    root = WNode("c_test", children=[pelvis, thigh, stray])
    return WAnimation("walk", 2.0, root, events=[(1.5, "footstep_r"), (0.5, "footstep_l")])


def cast_animation() -> WAnimation:
    pelvis = WNode("pelvis", keys=[(20, [0.0], [axis_quaternion((0, 1, 0), 45)])])
    return WAnimation("cast", 1.0, WNode("c_test", children=[pelvis]), events=[(0.5, "cast")])


def expected_world(time: float | None) -> dict[str, np.ndarray]:
    """World matrices by hand: walk's keys (linear position, angle-interpolated rotation) over rest."""
    local = {}
    for name, (position, axis, degrees) in REST.items():
        if time is not None and name == "pelvis":
            position = [np.interp(time, PELVIS_TIMES, np.array(PELVIS_POSITIONS)[:, k]) for k in range(3)]
        if time is not None and name == "lthigh":
            degrees = np.interp(time, THIGH_TIMES, THIGH_DEGREES)
        local[name] = translate(position) @ rotation(axis, degrees)
    world = {}
    for name in REST:
        parent = PARENT[name]
        world[name] = local[name] if parent is None else world[parent] @ local[name]
    return world


def expected_positions(time: float | None) -> np.ndarray:
    rest, posed = expected_world(None), expected_world(time)
    torso = [(posed["torso_g"] @ np.append(p, 1))[:3] for p in TORSO]
    body = []
    for p, bones, weights in zip(BODY, BODY_BONES, BODY_WEIGHTS):
        point = rest["body"] @ np.append(p, 1)
        body.append(sum(w * (posed[b] @ np.linalg.inv(rest[b]) @ point)[:3]
                        for b, w in zip(bones, weights) if b is not None))
    return np.array(torso + body)


def save(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.fixture
def model_file(tmp_path):
    return save(tmp_path, "c_test.mdl",
                write_mdl("c_test", model_tree(), [walk_animation(), cast_animation()]))


def test_skeleton_meshes_and_rest_pose(model_file):
    assert formats.sniff(model_file).role == "model"
    model = loading.load([model_file])
    assert model.format == "nwn_mdl" and model.up_axis == "Z" and model.name == "c_test"
    names = model.skeleton.names
    assert names == ["c_test", "pelvis", "torso_g", "lthigh", "body", "light01", "emit01", "ref01",
                     "walkmesh"]
    assert [names[p] if p >= 0 else None for p in model.skeleton.parents][:5] == [
        None, "c_test", "pelvis", "pelvis", "c_test"]
    assert [m.name for m in model.meshes] == ["torso_g", "body"]
    assert model.meshes[0].material.texture == "torso_tex"
    types = [extra["node_type"] for extra in model.skeleton.extras]
    assert types[5:] == ["light", "emitter", "reference", "aabb"]
    assert any("nodes not drawn" in w for w in model.warnings)
    assert not any("inverse-bind" in w for w in model.warnings)
    rest = expected_world(None)
    np.testing.assert_allclose(model.skeleton.bind_world[1], rest["pelvis"], atol=1e-6)
    pose = evaluate(model, None, 0.0)
    np.testing.assert_allclose(posed_positions(model, pose), expected_positions(None), atol=1e-5)


@pytest.mark.parametrize("time", [0.0, 0.25, 0.5, 0.8, 1.0, 1.3, 2.0, 3.0])
def test_keyed_animation_between_keys(model_file, time):
    model = loading.load([model_file])
    clip = model.clips[model.clip_index("walk")]
    assert clip.kind == "keyed"
    assert clip.events == [(0.5, "footstep_l"), (1.5, "footstep_r")]
    pose = evaluate(model, clip, time)
    np.testing.assert_allclose(posed_positions(model, pose), expected_positions(time), atol=1e-5)
    assert any("c_test.mdl: 1 animation(s) key nodes the model does not have" in w for w in model.warnings)


def test_several_animations_with_events(model_file):
    model = loading.load([model_file])
    assert [c.name for c in model.clips] == ["walk", "cast"]
    cast = model.clips[1]
    assert cast.events == [(0.5, "cast")]
    pose = evaluate(model, cast, 0.3)
    np.testing.assert_allclose(pose.world[1][:3, :3],
                               rotation((0, 1, 0), 45)[:3, :3], atol=1e-6)
    np.testing.assert_allclose(pose.world[1][:3, 3], (0, 0, 1), atol=1e-6)


def test_supermodel_and_animation_only_file(tmp_path):
    skeleton = WNode("c_test", position=(0, 0, 0), children=[WNode("pelvis", position=(0, 0, 1))])
    save(tmp_path, "A_Base.mdl", write_mdl("a_base", skeleton, [cast_animation()]))
    child = save(tmp_path, "c_child.mdl", write_mdl("c_child", model_tree(), [walk_animation()],
                                                    supermodel="a_base"))
    model = loading.load([child])
    assert [c.name for c in model.clips] == ["walk", "cast"]
    extra = save(tmp_path, "extra.mdl", write_mdl("extra", skeleton, [WAnimation(
        "wave", 1.0,
        WNode("c_test", children=[WNode("PELVIS", keys=[(8, [0.0, 1.0], [(0, 0, 1), (0, 0, 2)])])]))]))
    model = loading.load([child, extra])
    assert model.name == "c_child" and [c.name for c in model.clips] == ["walk", "wave", "cast"]
    pose = evaluate(model, model.clips[1], 0.5)
    np.testing.assert_allclose(pose.world[1][:3, 3], (0, 0, 1.5), atol=1e-6)


def test_missing_supermodel_warns(tmp_path):
    path = save(tmp_path, "m.mdl", write_mdl("m", model_tree(), supermodel="nowhere"))
    model = loading.load([path])
    assert any("supermodel 'nowhere' not found" in w for w in model.warnings)


# --- malformed files ----------------------------------------------------------------------------

def _corrupt(tmp_path, change) -> tuple[ReadError, dict]:
    """Write the test model, let ``change(data, where)`` damage it, and return the reader's error
    with ``where`` (the writer's layout: block name -> offset in the model data)."""
    where: dict = {}
    data = bytearray(write_mdl("c_test", model_tree(), [walk_animation()], layout_of=where))
    change(data, where)
    path = save(tmp_path, "bad.mdl", bytes(data))
    with pytest.raises(ReadError) as caught:
        supermodels.load([SniffedFile(path, "nwn_mdl", "model")], LoadOptions())
    return caught.value, where


def test_truncated(tmp_path):
    def cut(data, where):
        del data[len(data) - 10:]
    error, _ = _corrupt(tmp_path, cut)
    assert error.offset == 4 and "truncated" in error.message


def test_pointer_past_its_block(tmp_path):
    def past(data, where):
        struct.pack_into("<I", data, 12 + where["pelvis.children"], struct.unpack_from("<I", data, 4)[0] + 8)
    error, where = _corrupt(tmp_path, past)
    assert error.offset == 12 + where["pelvis.children"]
    assert "the model data holds" in error.message


def test_child_cycle(tmp_path):
    def cycle(data, where):
        struct.pack_into("<I", data, 12 + where["pelvis.children"] + 4, where["c_test"])
    error, where = _corrupt(tmp_path, cycle)
    assert error.offset == 12 + where["pelvis.children"] + 4 and "reached twice" in error.message


def test_face_index_past_vertex_count(tmp_path):
    def face(data, where):
        struct.pack_into("<H", data, 12 + where["torso_g.faces"] + 0x1A + 2, 3)
    error, where = _corrupt(tmp_path, face)
    assert error.offset == 12 + where["torso_g.faces"] + 0x1A and "vertex 3" in error.message


def test_absurd_counts(tmp_path):
    def absurd(data, where):
        struct.pack_into("<II", data, 12 + where["pelvis"] + 0x58, 0x7FFFFFFF, 0x7FFFFFFF)
    error, where = _corrupt(tmp_path, absurd)
    assert error.offset == 12 + where["pelvis"] + 0x54 and "2147483647" in error.message


def test_bad_controller_indices(tmp_path):
    def controller(data, where):
        struct.pack_into("<H", data, 12 + where["pelvis.keys"] + 8, 500)
    error, where = _corrupt(tmp_path, controller)
    assert error.offset == 12 + where["pelvis.keys"]


def test_not_binary(tmp_path):
    path = save(tmp_path, "ascii.mdl", b"newmodel c_test\n" * 10)
    with pytest.raises(ReadError) as caught:
        binary.parse(path, path.read_bytes())
    assert caught.value.offset == 0


# --- skins with more bones than the 1.69 table holds ---------------------------------------------

def _many_bone_skin(table: int, bones: int) -> WNode:
    """A root with ``bones`` bones b0, b1, … (one at x = i each) and a skin whose vertex i is weighted
    wholly to bone i, so its lanes use slots 0 … bones − 1."""
    children = [WNode(f"b{i}", position=(float(i), 0.0, 0.0), orientation=(0, 0, 0, 1)) for i in range(bones)]
    vertices = np.array([[float(i), 0.0, 1.0] for i in range(bones)])
    skin = WNode("body", 0x061, (0, 0, 0), (0, 0, 0, 1), vertices=vertices,
                 faces=[[i, i + 1, i + 2] for i in range(bones - 2)],
                 skin_bones=[[f"b{i}", None, None, None] for i in range(bones)],
                 skin_weights=np.tile([1.0, 0.0, 0.0, 0.0], (bones, 1)), skin_table=table)
    return WNode("many", position=(0, 0, 0), orientation=(0, 0, 0, 1), children=[*children, skin])


def test_skin_with_an_ee_bone_table_of_64_slots(tmp_path):
    """Slots past 16 need the EE skin layout (a 64-entry slot table at node +0x2B0, the team notes
    2.8 and 5.8): read, with a warning that says so. Pre-order: many = 0, b0 … b19 = 1 … 20, so
    vertex i follows node i + 1; lifting b19 by 1 on z moves vertex 19 only."""
    lifted = WNode("b19", keys=[(8, [0.0], [(19.0, 0.0, 1.0)])])
    lift = WAnimation("lift", 1.0, WNode("many", children=[lifted]))
    path = save(tmp_path, "many.mdl", write_mdl("many", _many_bone_skin(64, 20), [lift]))
    model = loading.load([path])
    body = model.meshes[0]
    np.testing.assert_array_equal(body.joints[:, 0], np.arange(1, 21))
    assert any("64" in warning and "EE" in warning for warning in model.warnings)
    posed = posed_positions(model, evaluate(model, model.clips[0], 0.0))
    expected = np.array([[float(i), 0.0, 1.0] for i in range(20)])
    expected[19, 2] += 1.0
    np.testing.assert_allclose(posed, expected, atol=1e-5)


def test_skin_slot_past_the_ee_table_is_an_error(tmp_path):
    layout = {}
    data = bytearray(write_mdl("many", _many_bone_skin(64, 20), layout_of=layout))
    slots_at = 12 + struct.unpack_from("<I", data, 4)[0] + layout["body.slots"]
    struct.pack_into("<h", data, slots_at + 8 * 3, 64)
    with pytest.raises(ReadError) as caught:
        binary.parse(save(tmp_path, "bad.mdl", bytes(data)), bytes(data))
    assert caught.value.offset == slots_at + 8 * 3 and "bone slot 64" in caught.value.message
