"""Bone knowledge in the core: what names say (app.bone_names), ancestry on the Skeleton, the bone each
vertex is dominated by (skin_weights.dominant_bones) — each checked against answers written by hand."""

from __future__ import annotations

import pytest

from app import bone_names


# --- names ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, expected", [
    ("Bip01 L Calf", "shin.l"), ("mixamorig:RightLeg", "shin.r"), ("rshin_g", "shin.r"),
    ("Bip01 Lft Forearm", "forearm.l"), ("LeftLowerArm", "forearm.l"), ("Bip01 L Clavicle", "clavicle.l"),
    ("mixamorig:LeftToeBase", "toe.l"), ("Hips", "pelvis"), ("chest", "spine"),
    ("knee_l", "knee.l"), ("wrist.R", "wrist.r"), ("bone 7", ""), ("Joint_12", ""),
])
def test_name_key_unifies_the_words_of_one_bone(name, expected):
    assert bone_names.name_key(name) == expected


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
