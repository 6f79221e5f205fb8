"""What a clip keys on meshes (morph weights, NWN alpha keys) kept where clips are remade: carried
onto another skeleton (the bone map, --clips-from) when the meshes are the same, and taken in place."""

import dataclasses

import numpy as np
import pytest

from app.animation.retarget import check_map, retarget_clip, retarget_clips, suggest_map
from app.animation.root_motion import in_place_clip
from app.morph_targets import MorphTargets, WeightChannel
from app.pose import evaluate
from tests.animation.test_retarget import scaled, walk_clip
from tests.synthetic import humanoid

#: Weights of the body's two targets keyed at 0, 0.5 and 1 s; opacity keyed at 0 and 1 s.
WEIGHT_TIMES, WEIGHTS = np.array([0.0, 0.5, 1.0]), np.array([[0.0, 1.0], [0.5, 0.25], [1.0, 0.0]])
ALPHA = (np.array([0.0, 1.0]), np.array([1.0, 0.2]))


def with_face(model, names=("smile", "frown")):
    """``model`` whose body has two targets (named ``names``) moving its first vertex."""
    body = model.meshes[0]
    deltas = np.zeros((2, len(body.positions), 3))
    deltas[:, 0] = [(0.0, 0.1, 0.0), (0.0, -0.1, 0.0)]
    return dataclasses.replace(model, meshes=[dataclasses.replace(
        body, morphs=MorphTargets(deltas, defaults=[0.0, 0.0], names=names))])


def face_walk(model):
    return dataclasses.replace(walk_clip(model), weight_channels=[WeightChannel(0, WEIGHT_TIMES, WEIGHTS)],
                               mesh_alpha={0: ALPHA})


def source_model():
    model = with_face(humanoid())
    return dataclasses.replace(model, clips=[face_walk(model)])


def carried(target):
    source = source_model()
    follows = check_map(suggest_map(source.skeleton, target.skeleton), source.skeleton, target.skeleton)
    return retarget_clips(source, target, follows)[0], retarget_clip(source, source.clips[0], target, follows)


@pytest.mark.parametrize("time, weights, alpha", [(0.25, [0.25, 0.625], 0.8), (0.75, [0.75, 0.125], 0.4)])
def test_clips_carried_onto_the_same_meshes_keep_their_weights_and_alpha(time, weights, alpha):
    target = with_face(scaled(humanoid(), 1.5))
    for clip in carried(target):
        pose = evaluate(target, clip, time)
        assert pose.morph_weights == pytest.approx(weights) and pose.mesh_alpha == {0: pytest.approx(alpha)}


def test_weights_stay_behind_when_the_target_mesh_has_other_targets():
    for clip in carried(with_face(scaled(humanoid(), 1.5), names=("blink", "frown"))):
        assert clip.weight_channels == [] and set(clip.mesh_alpha) == {0}


def test_nothing_is_carried_to_a_mesh_of_another_name():
    target = with_face(scaled(humanoid(), 1.5))
    target = dataclasses.replace(target, meshes=[dataclasses.replace(target.meshes[0], name="other")])
    for clip in carried(target):
        assert clip.weight_channels == [] and clip.mesh_alpha == {}


def test_an_in_place_clip_keeps_its_weights_and_alpha():
    model = source_model()
    placed = in_place_clip(model, model.clips[0])
    assert placed.kind == "matrices"
    pose = evaluate(model, placed, 0.25)
    assert pose.morph_weights == pytest.approx([0.25, 0.625]) and pose.mesh_alpha == {0: pytest.approx(0.8)}
