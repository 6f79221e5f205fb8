"""CMU motion capture (the corpus's BVH take) on a Mixamo-named glTF character (tests/tool_exports.py):
the suggested bone map pairs the limbs by name, leaves CMU's extra bones out, and the carried clip
poses the character everywhere finite, its feet leaving the ground when the take hops."""

from __future__ import annotations

import numpy as np

from app.animation.retarget import check_map, retarget_clips, suggested_map
from app.loading import load
from app.pose import evaluate, posed_positions
from tests.paths import CORPUS
from tests.tool_exports import mixamo_character

TAKE = CORPUS / "cmu-bvh" / "01_01_first240.bvh"


def test_cmu_names_pair_with_mixamo_names(tmp_path):
    take, character = load([TAKE]), load([mixamo_character(tmp_path)])
    mapping = suggested_map(take, character)
    for cmu, mixamo in (("Hips", "mixamorig:Hips"), ("LeftUpLeg", "mixamorig:LeftUpLeg"),
                        ("RightLeg", "mixamorig:RightLeg"), ("LeftForeArm", "mixamorig:LeftForeArm"),
                        ("Head", "mixamorig:Head")):
        if mixamo in character.skeleton.names:
            assert mapping.get(cmu) == mixamo, cmu
    assert not {"LHipJoint", "RHipJoint", "LowerBack"} & set(mapping)


def test_the_take_plays_on_the_character(tmp_path):
    take, character = load([TAKE]), load([mixamo_character(tmp_path)])
    follows = check_map(suggested_map(take, character), take.skeleton, character.skeleton)
    clip = retarget_clips(take, character, follows)[0]
    heights = []
    for time in np.linspace(clip.start, clip.start + clip.duration, 9):
        positions = posed_positions(character, evaluate(character, clip, time))
        assert np.isfinite(positions).all()
        heights.append(positions[:, 1].min())
    assert max(heights) - min(heights) > 0.01  # the hops lift the feet (the character is in metres)
