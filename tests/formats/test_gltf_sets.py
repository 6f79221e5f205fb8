"""glTF animation sets: a model plus glTF files holding animations for its nodes (by node name)."""

from __future__ import annotations

import numpy as np
import pytest

from app.formats import ReadError
from app.loading import load
from app.pose import evaluate, posed_positions
from tests.writers.gltf_writer import write_gltf

POINTS = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])


def model_file(folder):
    """A triangle rigidly on node "Arm" (at (0, 0, 5) under "Root"), with its own clip "wave"."""
    document = {
        "nodes": [{"name": "Root", "children": [1]}, {"name": "Arm", "mesh": 0, "translation": [0, 0, 5]}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "animations": [{"name": "wave", "samplers": [{"input": 1, "output": 2}],
                        "channels": [{"sampler": 0, "target": {"node": 1, "path": "translation"}}]}],
    }
    arrays = [(POINTS, "VEC3", 5126), (np.array([0.0, 1.0]), "SCALAR", 5126),
              (np.array([[0, 0, 5], [0, 0, 6]]), "VEC3", 5126)]
    return write_gltf(folder, document, arrays, name="hero.gltf")


def animation_file(folder, name: str, clip: str, node: str, lift: float):
    """Only nodes and one animation moving ``node`` from z = 5 up by ``lift`` (no meshes)."""
    document = {
        "nodes": [{"name": "root", "children": [1]}, {"name": node, "translation": [0, 0, 5]},
                  {"name": "Tail"}],
        "scenes": [{"nodes": [0, 2]}],
        "animations": [{"name": clip, "samplers": [{"input": 0, "output": 1}],
                        "channels": [{"sampler": 0, "target": {"node": 1, "path": "translation"}},
                                     {"sampler": 0, "target": {"node": 2, "path": "translation"}}]}],
    }
    arrays = [(np.array([0.0, 2.0]), "SCALAR", 5126), (np.array([[0, 0, 5], [0, 0, 5 + lift]]), "VEC3", 5126)]
    return write_gltf(folder, document, arrays, name=name)


def test_animation_files_add_clips_for_the_models_nodes(tmp_path):
    files = [animation_file(tmp_path, "run.gltf", "run", "arm", 4.0), model_file(tmp_path),
             animation_file(tmp_path, "wave.gltf", "wave", "Arm", 2.0)]
    model = load(files)
    assert model.name == "hero" and len(model.meshes) == 1
    assert [(clip.name, clip.source) for clip in model.clips] == [
        ("wave", "hero.gltf"), ("run", "run.gltf"), ("wave (2)", "wave.gltf")]
    assert any("shown as 'wave (2)'" in w for w in model.warnings)
    posed = posed_positions(model, evaluate(model, model.clips[1], 1.0))
    np.testing.assert_allclose(posed, POINTS + [0, 0, 7], atol=1e-6)  # z = 5 + 4 · 1/2
    posed = posed_positions(model, evaluate(model, model.clips[2], 2.0))
    np.testing.assert_allclose(posed, POINTS + [0, 0, 7], atol=1e-6)


def test_a_file_animating_none_of_the_models_nodes_is_refused(tmp_path):
    stranger = animation_file(tmp_path, "other.gltf", "run", "Leg", 1.0)
    with pytest.raises(ReadError) as caught:
        load([model_file(tmp_path), stranger])
    message = str(caught.value)
    assert message.startswith(str(stranger)) and "no animation for the bones of hero.gltf" in message
