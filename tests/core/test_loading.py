"""The load stage: readers leave what needs the model posed in ``Model.pending`` as data, and
``loading.load`` does it (glTF tails found at rest, the C3DE fit check; glTF morph weights stay
weight channels, nothing to bake), leaving the list empty; a result past the model's bounds is a
ReadError naming the file."""

from __future__ import annotations

import re

import numpy as np
import pytest

from app import formats, loading
from app.formats import ReadError
from app.pose import evaluate, posed_positions
from app.posing_steps import CheckFit, DeriveTailsAtRest
from tests.formats.test_c3de import save, translate
from tests.formats.test_gltf_import_edge import POINTS, morph_document
from tests.writers.c3de_writer import write_bones_2009, write_mesh
from tests.writers.gltf_writer import write_gltf


def test_the_reader_keeps_morph_weights_as_a_weight_channel_and_loading_bakes_nothing(tmp_path):
    """Rest weight 0.25 (in the bind positions); the weight is keyed 0, 1, 0.5 at 0, 1, 2 s, so the
    posed points sit at z + 0, + 1, + 0.5 then, and z + 0.75 halfway from 1 s to 2 s."""
    path = write_gltf(tmp_path, *morph_document("LINEAR", [0.25]))
    read = formats.read_unposed([path])
    assert [type(step) for step in read.pending] == [DeriveTailsAtRest]
    model = loading.load([path])
    clip = model.clips[0]
    assert clip.kind == "keyed" and clip.motion == "morph"
    assert clip.name == "pulse" and clip.source == path.name
    channel = clip.weight_channels[0]
    np.testing.assert_array_equal(channel.times, [0.0, 1.0, 2.0])
    for time, z in ((0.0, 0.0), (1.0, 1.0), (2.0, 0.5), (1.5, 0.75)):
        np.testing.assert_allclose(posed_positions(model, evaluate(model, clip, time)), POINTS + [0, 0, z],
                                   atol=1e-6, err_msg=f"t={time}")


def test_weights_that_move_vertices_past_the_bounds_are_a_read_error_naming_the_file(tmp_path):
    """A target moving the points 1e17 at weight 100: 1e19 is past the ±1e18 a model holds."""
    document, arrays = morph_document("LINEAR", None)
    arrays[1] = (np.array([[0, 0, 1e17]] * 3), "VEC3", 5126)
    arrays[3] = (np.array([0.0, 100.0, 0.0]), "SCALAR", 5126)
    path = write_gltf(tmp_path, document, arrays)
    with pytest.raises(ReadError, match=rf"^{re.escape(str(path))}: animations\[0\]: the weights keyed for "
                                        r"node 0 move its mesh's vertices past ±1e\+18$"):
        loading.load([path])


def test_tails_are_derived_at_rest_only_by_the_load_stage(tmp_path):
    """Two nodes, the child 2 up +Y: read, the root's tail is its head (nothing derived yet); loaded,
    it is the only child's head."""
    document = {"nodes": [{"name": "root", "children": [1]}, {"name": "tip", "translation": [0, 2, 0]}]}
    path = write_gltf(tmp_path, document, [])
    assert formats.read_unposed([path]).skeleton.tails[0].tolist() == [0, 0, 0]
    model = loading.load([path])
    assert model.skeleton.tails[0].tolist() == [0, 2, 0] and list(model.pending) == []


def test_the_fit_check_is_pending_until_loaded(tmp_path):
    """One quad, its bottom edge on bone 0 and its top edge on bone 1, which is ten units up at the
    first frame: the sides stretch from 1 to 11 and the diagonal (in both triangles) from √2 to √122,
    4 of the 6 edge uses: 67 %."""
    positions = np.array([[0.0, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1]])
    mesh = save(tmp_path, "quad.c3d", write_mesh(positions, np.array([0, 0, 1, 1]), -np.ones(4, int),
                                                 np.ones(4), layout="2009", indices=[0, 1, 2, 0, 2, 3]))
    bones = save(tmp_path, "otherBones.c3d", write_bones_2009(np.array([[np.eye(4), translate(0, 0, 10)]])))
    read = formats.read_unposed([mesh, bones])
    check = next(step for step in read.pending if isinstance(step, CheckFit))
    assert (check.mesh_files, check.bones_file) == (["quad.c3d"], "otherBones.c3d")
    assert not [warning for warning in read.warnings if "does not fit" in warning]
    model = loading.load([mesh, bones])
    assert list(model.pending) == []
    assert [warning for warning in model.warnings if "does not fit" in warning] == [
        "quad.c3d does not fit otherBones.c3d: at its first frame 67% of the mesh's edges stretch or shrink "
        "more than 2 times (the bones of another character?)"]


def test_a_model_with_nothing_pending_is_loaded_as_read(tmp_path):
    path = write_gltf(tmp_path, {"nodes": [{"name": "only"}]}, [])
    model = formats.read_unposed([path])
    model.pending = []
    skeleton, clips = model.skeleton, list(model.clips)
    assert loading.finish(model) is model
    assert model.skeleton is skeleton and list(model.clips) == clips


def test_a_loaded_model_does_not_change(tmp_path):
    """Loading freezes the model: its lists are tuples, its arrays read-only and its fields fixed but
    for the up axis the user may choose; a change is a new model."""
    from dataclasses import replace

    from app.pose import rest_extent
    from app.resources import demo_paths

    model = loading.load(demo_paths())
    assert all(isinstance(getattr(model, name), tuple) for name in ("meshes", "clips", "files", "warnings"))
    assert not model.meshes[0].positions.flags.writeable and not model.skeleton.bind_world.flags.writeable
    with pytest.raises(AttributeError, match="does not change"):
        model.clips = []
    model.up_axis = "Y"
    grown = replace(model, clips=(*model.clips, model.clips[0])).freeze()
    assert len(grown.clips) == len(model.clips) + 1 and grown.meshes is model.meshes
    assert rest_extent(grown) == rest_extent(model)
