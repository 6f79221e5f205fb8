"""Morph targets on the GPU: the vertex stage applies the weighted targets before skinning, held to
the CPU path (app.pose) by transform-feedback readback, for any count of targets and vertices."""

from __future__ import annotations

import numpy as np
import pytest

from app import loading
from app.model import Mesh, Model, Skeleton
from app.morph_targets import MorphTargets
from app.pose import evaluate, pose_from_world, posed_positions
from app.render.gpu_mesh import MORPH_TEXTURE_WIDTH
from app.render.renderer import Renderer
from tests.formats.morph_rig import INSTANTS, expected_state, morph_rig_document
from tests.writers.gltf_writer import write_gltf


@pytest.fixture()
def renderer(gl_context):
    renderer = Renderer(gl_context)
    yield renderer
    renderer.release()


@pytest.mark.gl
def test_skinned_morphed_mesh_matches_the_specification(renderer, tmp_path):
    model = loading.load([write_gltf(tmp_path, *morph_rig_document())])
    for name, instants in INSTANTS.items():
        clip = model.clips[model.clip_index(name)]
        for time in instants:
            renderer.set_model(model, evaluate(model, clip, time))
            gpu, _ = renderer.skinned_vertices(0, "lbs")
            np.testing.assert_allclose(gpu, expected_state(name, time)[0], atol=1e-5,
                                       err_msg=f"{name} {time}")


@pytest.mark.gl
def test_many_targets_over_many_texture_rows_match_the_cpu(renderer):
    """70 targets of 300 vertices: 42,000 delta texels, over ten rows of the texture."""
    rng = np.random.default_rng(7)
    vertices, targets = 300, 70
    assert 2 * targets * vertices > MORPH_TEXTURE_WIDTH
    deltas = rng.uniform(-0.05, 0.05, (targets, vertices, 3))
    mesh = Mesh(name="blob", positions=rng.uniform(-1, 1, (vertices, 3)), joints=np.zeros((vertices, 1)),
                weights=np.ones((vertices, 1)), normals=np.tile([0.0, 0.0, 1.0], (vertices, 1)),
                triangles=np.arange(vertices - vertices % 3).reshape(-1, 3),
                morphs=MorphTargets(positions=deltas, defaults=np.zeros(targets),
                                    normals=rng.uniform(-0.1, 0.1, (targets, vertices, 3))))
    skeleton = Skeleton(names=["root"], parents=np.array([-1]), bind_world=np.eye(4)[None],
                        heads=np.zeros((1, 3)), tails=np.array([[0.0, 1.0, 0.0]]),
                        derived_tails=np.zeros(1, bool))
    model = Model(name="many", skeleton=skeleton, meshes=[mesh])
    world = np.eye(4)[None].copy()
    world[0, :3, 3] = (0.5, 0.0, 0.0)
    weights = rng.uniform(-1, 1, targets)
    pose = pose_from_world(model, world, morph_weights=weights)
    renderer.set_model(model, pose)
    gpu, normals = renderer.skinned_vertices(0, "lbs")
    expected = mesh.positions + np.einsum("m,mvi->vi", weights, deltas) + (0.5, 0.0, 0.0)
    np.testing.assert_allclose(gpu, expected, atol=1e-5)
    np.testing.assert_allclose(gpu, posed_positions(model, pose), atol=1e-5)
    np.testing.assert_allclose(normals, mesh.normals + np.einsum("m,mvi->vi", weights, mesh.morphs.normals),
                               atol=1e-5)
