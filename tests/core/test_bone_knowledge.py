"""Bone knowledge in the core: what names say (app.bone_names), ancestry on the Skeleton, the bone each
vertex is dominated by (skin_weights.dominant_bones) — each checked against answers written by hand."""

from __future__ import annotations

import numpy as np
import pytest

from app import bone_names
from app.animation.clip_batches import movable_bones
from app.model import Mesh, Skeleton
from app.skin_weights import dominant_bones


# --- names ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, expected", [
    ("Bip01 L Calf", "shin.l"), ("mixamorig:RightLeg", "shin.r"), ("rshin_g", "shin.r"),
    ("Bip01 Lft Forearm", "forearm.l"), ("LeftLowerArm", "forearm.l"), ("Bip01 L Clavicle", "clavicle.l"),
    ("mixamorig:LeftToeBase", "toe.l"), ("Hips", "pelvis"), ("chest", "spine"),
    ("knee_l", "knee.l"), ("wrist.R", "wrist.r"), ("bone 7", ""), ("Joint_12", ""),
])
def test_name_key_unifies_the_words_of_one_bone(name, expected):
    assert bone_names.name_key(name) == expected


#: Motion capture names (CMU's BVH conversions, MotionBuilder's joint-named takes) and the key of
#: the Mixamo bone each should pair with ('' : none).
MOCAP_KEYS = {"LeftUpLeg": "thigh.l", "RightLeg": "shin.r", "Spine1": "spine1", "LeftForeArm": "forearm.l",
              "LeftToeBase": "toe.l", "LeftHip": "thigh.l", "RightKnee": "shin.r", "LeftElbow": "forearm.l",
              "RightWrist": "hand.r", "LeftAnkle": "foot.l", "LeftCollar": "clavicle.l", "Chest": "spine"}


@pytest.mark.parametrize("name, key", MOCAP_KEYS.items())
def test_mocap_names_meet_mixamo_and_biped_names(name, key):
    assert bone_names.name_key(name) == key
    mixamo = {"thigh.l": "LeftUpLeg", "shin.r": "RightLeg", "spine1": "Spine1", "forearm.l": "LeftForeArm",
              "toe.l": "LeftToeBase", "hand.r": "RightHand", "foot.l": "LeftFoot",
              "clavicle.l": "LeftShoulder", "spine": "Spine"}[key]
    assert bone_names.name_key(f"mixamorig:{mixamo}") == key


@pytest.mark.parametrize("name", ["LHipJoint", "RHipJoint", "LowerBack", "Neck1", "LeftFingerBase", "LThumb"])
def test_cmu_extra_bones_pair_with_no_mixamo_bone(name):
    mixamo_keys = {bone_names.name_key(f"mixamorig:{part}") for part in (
        "Hips", "Spine", "Spine1", "Spine2", "Neck", "Head", "LeftShoulder", "LeftArm", "LeftForeArm",
        "LeftHand", "LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToeBase", "LeftHandThumb1")}
    assert bone_names.name_key(name) not in mixamo_keys


@pytest.mark.parametrize("name, expected", [
    ("knee_l", ("shin", "l")), ("wrist.R", ("hand", "r")), ("Abdomen", ("spine", None)),
    ("Bip01 L Calf", ("shin", "l")), ("Bip01 L Clavicle", (None, "l")), ("L_Toe0", (None, None)),
    ("Bip01 Lft Forearm", (None, None)), ("R_Hip", ("thigh", "r")), ("Bip01 Head", ("head", None)),
])
def test_bone_role_reads_regions_as_their_part(name, expected):
    assert bone_names.bone_role(name) == expected


def test_both_readings_share_the_words_of_each_bone():
    """Every word retargeting unifies means the same part to the ragdoll, where the ragdoll has it."""
    for word, role in bone_names.KEY_WORDS.items():
        assert bone_names.RAGDOLL_WORDS.get(word, role) == role
    assert bone_names.RAGDOLL_WORDS["leg"] == bone_names.KEY_WORDS["leg"] == "shin"
    assert "knee" in bone_names.RAGDOLL_WORDS and "knee" not in bone_names.KEY_WORDS


def test_words_split_namespaces_camel_case_and_numbers():
    assert bone_names.words("mixamorig:LeftUpLeg") == ["left", "up", "leg"]
    assert bone_names.words("b_LeftUpperArm_09", drop_number=True) == ["b", "left", "upper", "arm"]
    assert bone_names.is_helper("Bip01 HeadNub") and not bone_names.is_helper("Bip01 Head")


@pytest.mark.parametrize("name, keys", [
    ("Ettin_Lcalf", [("l", "ettin *calf")]), ("b_RightUpperArm_06", [("r", "b * upper arm")]),
    ("pelvis", []),
])
def test_side_keys(name, keys):
    assert bone_names.side_keys(name) == keys


# --- ancestry on the skeleton ----------------------------------------------------------------------

def two_trees() -> Skeleton:
    """hips(0) ─ spine(1) ─ head(2); hips ─ thigh(3) ─ shin(4); and apart: prop(5) ─ tip(6), listed with
    a child before its parent (7 under 8)."""
    parents = [-1, 0, 1, 0, 3, -1, 5, 8, 0]
    count = len(parents)
    return Skeleton(names=[f"b{i}" for i in range(count)], parents=np.array(parents),
                    bind_world=np.tile(np.eye(4), (count, 1, 1)), heads=np.zeros((count, 3)),
                    tails=np.zeros((count, 3)), derived_tails=np.zeros(count, bool))


def test_skeleton_ancestors_nearest_first():
    skeleton = two_trees()
    assert skeleton.ancestors(4) == [3, 0]
    assert skeleton.ancestors(2) == [1, 0]
    assert skeleton.ancestors(7) == [8, 0]
    assert skeleton.ancestors(0) == [] and skeleton.ancestors(6) == [5]
    assert skeleton.tree is skeleton.tree  # worked out once


@pytest.mark.parametrize("roots, inside", [
    ([0], [0, 1, 2, 3, 4, 7, 8]), ([3], [3, 4]), ([1, 5], [1, 2, 5, 6]), ([8], [7, 8]), ([], []),
    ([3, 0], [0, 1, 2, 3, 4, 7, 8]), (np.array([6]), [6]),
])
def test_skeleton_subtree_mask(roots, inside):
    assert np.flatnonzero(two_trees().subtree_mask(roots)).tolist() == inside


def test_movable_bones_are_the_animated_subtrees_and_what_is_above_them():
    skeleton = two_trees()
    assert movable_bones(skeleton, np.array([3])).tolist() == [0, 3, 4]
    assert movable_bones(skeleton, np.array([1, 6])).tolist() == [0, 1, 2, 5, 6]
    assert movable_bones(skeleton, np.zeros(0, int)).tolist() == []


# --- the bone each vertex belongs to ---------------------------------------------------------------

def three_vertex_mesh(visible: bool = True) -> Mesh:
    """Vertex 0 all bone 2's, vertex 1 split 0.6/0.4 between bones 1 and 0, vertex 2 split evenly
    three ways (no bone gives it half)."""
    return Mesh(name="m", positions=np.arange(9, dtype=np.float32).reshape(3, 3),
                joints=np.array([[2, 0, 0], [0, 1, 0], [0, 1, 2]]),
                weights=np.array([[1.0, 0, 0], [0.4, 0.6, 0], [1 / 3, 1 / 3, 1 / 3]]), visible=visible)


def test_dominant_bones_at_half_the_weight_and_at_other_shares():
    owners, positions = dominant_bones([three_vertex_mesh()])
    assert owners.tolist() == [2, 1, -1]
    assert positions.dtype == np.float64 and positions.tolist() == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    assert dominant_bones([three_vertex_mesh()], share=0.7)[0].tolist() == [2, -1, -1]
    assert dominant_bones([three_vertex_mesh()], share=0.3)[0].tolist() == [2, 1, 0]


def test_dominant_bones_of_drawn_meshes_only_when_asked():
    meshes = [three_vertex_mesh(visible=False), three_vertex_mesh()]
    assert dominant_bones(meshes)[0].tolist() == [2, 1, -1, 2, 1, -1]
    owners, positions = dominant_bones(meshes, drawn_only=True)
    assert owners.tolist() == [2, 1, -1] and len(positions) == 3
    assert dominant_bones([], drawn_only=True)[0].shape == (0,)
