"""Retargeting and root motion measured on real skeletons (issue 30's measures): CesiumMan's walk on
RiggedFigure and back (tests/corpus: two Cesium rigs whose names, bone order, torso and arm placement and
rest axes differ), an NWN creature written by the test carried onto both, and the root travel of real clips.

Every expected value is worked out here from the files' own data: turns from rest from the poses'
world matrices (nearest rotations by SVD), ground contact from the source's foot heights, root travel
from the glTF root track's keys read with this module's own accessor reader.
"""

from __future__ import annotations

import dataclasses
import json
import struct
from pathlib import Path

import numpy as np
import pytest

from app import loading
from app.animation.retarget import check_map, retarget_clip, suggest_map
from app.cli.main import main
from app.pose import evaluate
from tests.helpers import exit_status
from tests.formats.test_nwn_mdl import axis_quaternion
from tests.writers.nwn_ascii_writer import write_ascii_mdl
from tests.writers.nwn_writer import WAnimation, WNode
from tests.paths import CORPUS

CESIUM_MAN = CORPUS / "CesiumManDraco" / "CesiumMan.gltf"
RIGGED_FIGURE = CORPUS / "RiggedFigure" / "RiggedFigure.gltf"
FOX = CORPUS / "Fox" / "Fox.glb"

#: Mapped bones turn from rest as their source bones do, to this (issue 30).
TURN_TOLERANCE = 1e-6
#: Feet meet the ground within this share of the leg's length on contact frames (issue 30).
GROUND_SHARE = 0.05
#: A contact frame: the source's foot within this share of its leg's length of its lowest point.
CONTACT_SHARE = 0.01
#: Root travel and speed agree with the root track's own keys to this (issue 30).
TRAVEL_TOLERANCE = 1e-6

#: CesiumMan's joints on RiggedFigure's: one rig family, its torso, arm and neck joints named and
#: numbered differently (CesiumMan's left arm counts 4, 3, 2 from the shoulder).
CESIUM_TO_FIGURE = {
    "Skeleton_torso_joint_1": "torso_joint_1", "Skeleton_torso_joint_2": "torso_joint_2",
    "torso_joint_3": "torso_joint_3", "Skeleton_neck_joint_1": "neck_joint_1",
    "Skeleton_neck_joint_2": "neck_joint_2", "Skeleton_arm_joint_L__4_": "arm_joint_L_1",
    "Skeleton_arm_joint_L__3_": "arm_joint_L_2", "Skeleton_arm_joint_L__2_": "arm_joint_L_3",
    "Skeleton_arm_joint_R": "arm_joint_R_1", "Skeleton_arm_joint_R__2_": "arm_joint_R_2",
    "Skeleton_arm_joint_R__3_": "arm_joint_R_3",
    **{f"leg_joint_{side}_{joint}": f"leg_joint_{side}_{joint}" for side in "LR" for joint in (1, 2, 3, 5)}}
#: Hip, knee and ankle of each leg, on every Cesium rig.
CESIUM_LEGS = {side: [f"leg_joint_{side}_{joint}" for joint in (1, 2, 3)] for side in "LR"}
#: The test creature's legs.
NWN_LEGS = {side: [f"{side.lower()}{part}_g" for part in ("thigh", "shin", "foot")] for side in "LR"}
#: The test creature's bones on a Cesium rig: pelvis, torso (beside the pelvis, as NWN hangs it) and legs.
NWN_TO_CESIUM = {"pelvis_g": "Skeleton_torso_joint_1", "torso_g": "Skeleton_torso_joint_2",
                 **{nwn: cesium for side in "LR" for nwn, cesium in zip(NWN_LEGS[side], CESIUM_LEGS[side])}}
NWN_TO_FIGURE = {nwn: CESIUM_TO_FIGURE.get(cesium, cesium) for nwn, cesium in NWN_TO_CESIUM.items()}
#: NWN (Z up, facing +Y, left at −X) seen as glTF (Y up, facing +Z, left at +X): (x, y, z) → (−x, z, y).
NWN_TO_GLTF = np.array([[-1.0, 0, 0], [0, 0, 1], [0, 1, 0]])
UP_INDEX = {"Y": 1, "Z": 2}


# --- the NWN test creature -------------------------------------------------------------------------

#: Pelvis height, hip offset under the pelvis, thigh and shin lengths of the test creature (metres).
PELVIS, HIP_DROP, THIGH, SHIN = 1.0, 0.05, 0.45, 0.45
#: Walk keys: every 1/16 s over one second; thighs swing ±0.35 rad, the swinging knee bends up to 0.6 rad.
WALK_TIMES = np.linspace(0.0, 1.0, 17)
SWING, KNEE = 0.35, 0.6


def _about_x(angles) -> list[tuple]:
    return [axis_quaternion((1, 0, 0), np.degrees(angle)) for angle in angles]


def nwn_walker() -> bytes:
    """An ASCII MDL creature (Z up, facing +Y): rootdummy holding pelvis_g (thighs, shins, feet under it)
    and torso_g beside it, with a walk: the thighs swing in turn, the swinging knee bends back, and the
    pelvis rides on the leg that reaches lowest, so that foot stands at its rest height (on the ground);
    the pelvis moves ahead along +Y."""
    legs = []
    for side, hip_x in (("l", -0.12), ("r", 0.12)):
        foot = WNode(f"{side}foot_g", position=(0, 0, -SHIN))
        shin = WNode(f"{side}shin_g", position=(0, 0, -THIGH), children=[foot])
        legs.append(WNode(f"{side}thigh_g", position=(hip_x, 0, -HIP_DROP), children=[shin]))
    pelvis = WNode("pelvis_g", position=(0, 0, PELVIS), children=legs)
    torso = WNode("torso_g", position=(0, 0, PELVIS + 0.05), children=[WNode("head_g", position=(0, 0, 0.6))])
    root = WNode("c_walker", children=[WNode("rootdummy", children=[pelvis, torso])])

    phase = 2 * np.pi * WALK_TIMES
    thighs = {"l": SWING * np.cos(phase), "r": -SWING * np.cos(phase)}
    knees = {"l": -KNEE * np.clip(-np.sin(phase), 0, None), "r": -KNEE * np.clip(np.sin(phase), 0, None)}
    reaches = [THIGH * np.cos(thighs[side]) + SHIN * np.cos(thighs[side] + knees[side]) for side in "lr"]
    heights = PELVIS - (THIGH + SHIN) + np.maximum(*reaches)
    pelvis_keys = np.stack([np.zeros_like(WALK_TIMES), 1.2 * WALK_TIMES, heights], axis=1)
    moving = [WNode("pelvis_g", keys=[(8, WALK_TIMES, pelvis_keys)])]
    for side in "lr":
        moving += [WNode(f"{side}thigh_g", keys=[(20, WALK_TIMES, _about_x(thighs[side]))]),
                   WNode(f"{side}shin_g", keys=[(20, WALK_TIMES, _about_x(knees[side]))])]
    walk = WAnimation("walk", 1.0, WNode("c_walker", children=moving))
    return write_ascii_mdl("c_walker", root, [walk])


@pytest.fixture(scope="module")
def walker(tmp_path_factory):
    path = tmp_path_factory.mktemp("nwn") / "c_walker.mdl"
    path.write_bytes(nwn_walker())
    return loading.load([path])


@pytest.fixture(scope="module")
def cesium_man():
    return loading.load([CESIUM_MAN])


@pytest.fixture(scope="module")
def rigged_figure():
    return loading.load([RIGGED_FIGURE])


# --- measures worked out from world matrices ---------------------------------------------------------

def carried(source, target, mapping):
    """The source's first clip on the target: (the target holding it, the clip)."""
    follows = check_map(mapping, source.skeleton, target.skeleton)
    clip = retarget_clip(source, source.clips[0], target, follows)
    return dataclasses.replace(target, clips=[clip]), clip


def poses(model, clip) -> np.ndarray:
    """(F, B, 4, 4) world matrices at the clip's stored frames."""
    return np.stack([evaluate(model, clip, time).world for time in clip.frame_times])


def rotations(matrices: np.ndarray) -> np.ndarray:
    """The nearest rotations to the matrices' 3×3 parts (SVD), so the files' scales near 1 drop out."""
    u, _, vt = np.linalg.svd(matrices[..., :3, :3])
    return u @ vt


def turns_from_rest(model, worlds, names) -> np.ndarray:
    """(F, N, 3, 3) each named bone's world rotation after its rest rotation's inverse."""
    bones = [model.skeleton.index(name) for name in names]
    return rotations(worlds[:, bones]) @ np.swapaxes(rotations(model.skeleton.rest_world[bones]), -1, -2)


def up_turn(source, target) -> np.ndarray:
    return NWN_TO_GLTF if (source.up_axis, target.up_axis) == ("Z", "Y") else np.eye(3)


def leg_length(model, leg) -> float:
    """Hip to knee plus knee to ankle at rest."""
    joints = model.skeleton.rest_world[[model.skeleton.index(name) for name in leg], :3, 3]
    return float(np.linalg.norm(np.diff(joints, axis=0), axis=1).sum())


def assert_turns_agree(source, target, mapping):
    carried_model, clip = carried(source, target, mapping)
    names = list(mapping)
    expected = up_turn(source, target) @ turns_from_rest(source, poses(source, source.clips[0]), names) \
        @ up_turn(source, target).T
    got = turns_from_rest(carried_model, poses(carried_model, clip), [mapping[name] for name in names])
    assert np.abs(got - expected).max() <= TURN_TOLERANCE


def ground_errors(source, source_legs, target, target_legs, mapping) -> list[float]:
    """On each source foot's contact frames, the target's matching ankle's distance from its rest
    height (the figure standing on the ground) over the target's leg length."""
    carried_model, clip = carried(source, target, mapping)
    source_worlds, target_worlds = poses(source, source.clips[0]), poses(carried_model, clip)
    errors = []
    for side in "LR":
        ankle = source.skeleton.index(source_legs[side][-1])
        heights = source_worlds[:, ankle, UP_INDEX[source.up_axis], 3]
        contact = heights <= heights.min() + CONTACT_SHARE * leg_length(source, source_legs[side])
        target_ankle = target.skeleton.index(target_legs[side][-1])
        up = UP_INDEX[target.up_axis]
        drift = target_worlds[contact, target_ankle, up, 3] - target.skeleton.rest_world[target_ankle, up, 3]
        errors.append(float(np.abs(drift).max()) / leg_length(target, target_legs[side]))
    return errors


# --- CesiumMan ↔ RiggedFigure --------------------------------------------------------------------------

def test_the_cesium_rigs_differ(cesium_man, rigged_figure):
    """The two real skeletons are not one skeleton twice: names, bone order and rest axes differ."""
    man, figure = cesium_man, rigged_figure
    assert man.skeleton.names != figure.skeleton.names
    assert set(CESIUM_TO_FIGURE) - set(figure.skeleton.names)
    rest_turns = [rotations(model.skeleton.rest_world[model.skeleton.index(name)])
                  for model, name in ((man, "Skeleton_torso_joint_2"), (figure, "torso_joint_2"))]
    assert np.abs(rest_turns[0] - rest_turns[1]).max() > 0.1


def test_cesium_mans_walk_on_rigged_figure_turns_mapped_bones_as_cesium_mans(cesium_man, rigged_figure):
    assert_turns_agree(cesium_man, rigged_figure, CESIUM_TO_FIGURE)


def test_rigged_figures_clip_on_cesium_man_turns_mapped_bones_as_rigged_figures(cesium_man, rigged_figure):
    reverse = {target: source for source, target in CESIUM_TO_FIGURE.items()}
    assert_turns_agree(rigged_figure, cesium_man, reverse)


def test_cesium_mans_walk_keeps_rigged_figures_feet_on_the_ground(cesium_man, rigged_figure):
    errors = ground_errors(cesium_man, CESIUM_LEGS, rigged_figure, CESIUM_LEGS, CESIUM_TO_FIGURE)
    assert max(errors) <= GROUND_SHARE, errors


def test_the_suggested_map_pairs_the_cesium_legs_by_name(cesium_man, rigged_figure):
    mapping = suggest_map(cesium_man.skeleton, rigged_figure.skeleton)
    assert {name: mapping.get(name) for name in CESIUM_LEGS["L"] + CESIUM_LEGS["R"]} == \
        {name: name for name in CESIUM_LEGS["L"] + CESIUM_LEGS["R"]}


def test_pose_with_the_map_gives_the_carried_walk(tmp_path, cesium_man, rigged_figure):
    """The command line's --clips-from/--map on the real pair poses what retarget_clip carries."""
    mapping = tmp_path / "cesium_to_figure.json"
    mapping.write_text(json.dumps(CESIUM_TO_FIGURE))
    out = tmp_path / "pose.npz"
    assert main(["pose", str(RIGGED_FIGURE), "--clips-from", str(CESIUM_MAN), "--map", str(mapping),
                 "--frame", "10", "-o", str(out)]) == 0
    carried_model, clip = carried(cesium_man, rigged_figure, CESIUM_TO_FIGURE)
    with np.load(out) as arrays:
        np.testing.assert_allclose(arrays["world"], evaluate(carried_model, clip, clip.frame_times[10]).world,
                                   atol=1e-6)


def test_a_map_written_for_the_other_rig_is_refused_naming_the_bone(tmp_path, capsys):
    """CesiumMan's own names as targets on RiggedFigure: exit 3 naming the map file and the bone."""
    mapping = tmp_path / "wrong_way.json"
    mapping.write_text(json.dumps({name: name for name in CESIUM_TO_FIGURE}))
    assert exit_status(["pose", str(RIGGED_FIGURE), "--clips-from", str(CESIUM_MAN), "--map", str(mapping),
                        "-o", str(tmp_path / "pose.npz")]) == 3
    error = capsys.readouterr().err
    assert "wrong_way.json" in error and "target bone 'Skeleton_torso_joint_1'" in error
    assert len(error.strip().splitlines()) == 1


# --- an NWN creature onto glTF humanoids ---------------------------------------------------------------

def test_the_test_creatures_standing_foot_stays_on_the_ground(walker):
    """The walk as written: on each foot's contact frames the foot is at its rest height (so the
    measure below compares like with like)."""
    worlds = poses(walker, walker.clips[0])
    for side in "LR":
        foot = walker.skeleton.index(NWN_LEGS[side][-1])
        heights = worlds[:, foot, 2, 3]
        assert heights.min() == pytest.approx(walker.skeleton.rest_world[foot, 2, 3], abs=1e-6)
        assert np.ptp(heights) > 0.05


GLTF_TARGETS = [("cesium_man", NWN_TO_CESIUM), ("rigged_figure", NWN_TO_FIGURE)]


@pytest.mark.parametrize("target_name, mapping", GLTF_TARGETS)
def test_an_nwn_walk_on_a_gltf_humanoid_turns_mapped_bones_as_the_creatures(walker, target_name, mapping,
                                                                             request):
    assert_turns_agree(walker, request.getfixturevalue(target_name), mapping)


@pytest.mark.parametrize("target_name, mapping", GLTF_TARGETS)
def test_an_nwn_walk_keeps_a_gltf_humanoids_feet_on_the_ground(walker, target_name, mapping, request):
    errors = ground_errors(walker, NWN_LEGS, request.getfixturevalue(target_name), CESIUM_LEGS, mapping)
    assert max(errors) <= GROUND_SHARE, errors


@pytest.mark.parametrize("target_name, mapping", GLTF_TARGETS)
def test_an_nwn_walk_goes_toward_a_gltf_humanoids_front(walker, target_name, mapping, request):
    """The creature walks 1.2 m toward its front (+Y); the figure walks toward its own (+Z), the
    distance scaled by the ratio of the hips' rest heights over each skeleton's lowest joint
    (docs/cli.md; the creature's rootdummy stands at 0, the figure's armature too)."""
    target = request.getfixturevalue(target_name)
    carried_model, clip = carried(walker, target, mapping)
    worlds = poses(carried_model, clip)
    hips = target.skeleton.index(mapping["pelvis_g"])
    travel = worlds[-1, hips, :3, 3] - worlds[0, hips, :3, 3]
    heights = [model.skeleton.rest_world[model.skeleton.index(bone), UP_INDEX[model.up_axis], 3]
               - model.skeleton.rest_world[:, UP_INDEX[model.up_axis], 3].min()
               for model, bone in ((walker, "pelvis_g"), (target, mapping["pelvis_g"]))]
    assert heights[0] == pytest.approx(PELVIS)
    np.testing.assert_allclose(travel, [0, 0, 1.2 * heights[1] / heights[0]], atol=1e-6)


def test_no_suggested_map_between_nwn_and_cesium_names(walker, cesium_man):
    """Cesium's numbered joints (leg_joint_L_1…) name no part, so only --map can pair them."""
    assert suggest_map(walker.skeleton, cesium_man.skeleton) == {}


# --- root travel of real clips ---------------------------------------------------------------------------

def gltf_parts(path: Path) -> tuple[dict, list[bytes]]:
    """The glTF JSON and its buffers (a .glb's BIN chunk, else the files its buffers name)."""
    data = path.read_bytes()
    if data[:4] == b"glTF":
        json_length = struct.unpack_from("<I", data, 12)[0]
        document = json.loads(data[20:20 + json_length])
        bin_start = 20 + json_length
        bin_length = struct.unpack_from("<I", data, bin_start)[0]
        return document, [data[bin_start + 8:bin_start + 8 + bin_length]]
    document = json.loads(data)
    return document, [(path.parent / buffer["uri"]).read_bytes() for buffer in document["buffers"]]


def accessor_values(document: dict, buffers: list[bytes], index: int) -> np.ndarray:
    """(count, components) float64 values of a float accessor, honouring the view's stride."""
    accessor = document["accessors"][index]
    assert accessor["componentType"] == 5126 and "sparse" not in accessor
    view = document["bufferViews"][accessor["bufferView"]]
    components = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[accessor["type"]]
    stride = view.get("byteStride", 4 * components)
    start = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
    buffer = buffers[view["buffer"]]
    rows = [np.frombuffer(buffer, "<f4", components, start + row * stride)
            for row in range(accessor["count"])]
    return np.array(rows, dtype=np.float64)


def node_matrix(node: dict, translation=None, rotation=None) -> np.ndarray:
    """A node's local matrix from its matrix or T·R·S (column vectors), with animated values given."""
    if "matrix" in node:
        return np.array(node["matrix"], dtype=np.float64).reshape(4, 4).T
    x, y, z, w = rotation if rotation is not None else node.get("rotation", (0, 0, 0, 1))
    turn = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    matrix = np.eye(4)
    matrix[:3, :3] = turn * np.asarray(node.get("scale", (1, 1, 1)), dtype=np.float64)
    matrix[:3, 3] = translation if translation is not None else node.get("translation", (0, 0, 0))
    return matrix


def root_track_travel(path: Path, animation_index: int) -> tuple[float, float]:
    """Travel and mean speed of the clip's root track from the file alone: the shallowest node whose
    translation keys move, its keys placed in the world under its (unmoving) ancestors, the up (Y)
    component dropped, the segments between keys summed (linear keys: any frame between two keys lies
    on their segment); the clip lasts until its last key."""
    document, buffers = gltf_parts(path)
    animation = document["animations"][animation_index]
    parents = {child: index for index, node in enumerate(document["nodes"])
               for child in node.get("children", [])}

    def depth(node):
        return 0 if node not in parents else 1 + depth(parents[node])

    def chain(node):
        return [] if node not in parents else chain(parents[node]) + [parents[node]]

    channels = {}
    for channel in animation["channels"]:
        sampler = animation["samplers"][channel["sampler"]]
        assert sampler.get("interpolation", "LINEAR") == "LINEAR"
        channels[channel["target"]["node"], channel["target"]["path"]] = (
            accessor_values(document, buffers, sampler["input"])[:, 0],
            accessor_values(document, buffers, sampler["output"]))
    moving = [node for (node, kind), (_, values) in channels.items()
              if kind == "translation" and np.ptp(values) > 0]
    root = min(moving, key=depth)
    above = np.eye(4)
    for node in chain(root):
        keyed = {kind: values[0] for (keyed_node, kind), (_, values) in channels.items()
                 if keyed_node == node}
        assert all(np.ptp(channels[node, kind][1]) == 0 for kind in keyed)
        above = above @ node_matrix(document["nodes"][node], keyed.get("translation"), keyed.get("rotation"))
    keys = channels[root, "translation"][1]
    places = (above @ np.column_stack([keys, np.ones(len(keys))]).T).T[:, [0, 2]]
    travel = float(np.linalg.norm(np.diff(places, axis=0), axis=1).sum())
    duration = max(float(times.max()) for times, _ in channels.values())
    return travel, travel / duration


@pytest.mark.parametrize("path, animation", [(FOX, 1), (FOX, 2), (CESIUM_MAN, 0)],
                         ids=["fox-walk", "fox-run", "cesium-man-walk"])
def test_info_gives_the_root_tracks_own_travel_and_speed(path, animation, capsys):
    assert main(["info", "--json", str(path)]) == 0
    entry = json.loads(capsys.readouterr().out)["clips"][animation]
    travel, speed = root_track_travel(path, animation)
    assert travel > 0
    assert entry["root_travel"] == pytest.approx(travel, abs=TRAVEL_TOLERANCE)
    assert entry["root_speed"] == pytest.approx(speed, abs=TRAVEL_TOLERANCE)
