"""The writer tables: every suffix writes what it says, and an unknown one is refused by name."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app import loading
from app.export.writers import MODEL_WRITERS, POSE_WRITERS, pose_arrays, writer_for
from app.pose import posed_positions, rest_extent
from tests import synthetic


@pytest.fixture(scope="module")
def posed():
    model = synthetic.humanoid(up_axis="Y")  # glTF is Y-up: read back without a turn
    return model, synthetic.wave_pose(model)


@pytest.mark.parametrize("suffix", sorted(POSE_WRITERS))
def test_each_pose_writer_keeps_the_posed_vertices(tmp_path, posed, suffix):
    model, pose = posed
    expected = posed_positions(model, pose).reshape(-1, 3)
    path = tmp_path / f"pose{suffix}"
    writer_for(path, POSE_WRITERS)(path, model, pose_arrays(model, pose))
    if suffix == ".npz":
        written = np.load(path)["positions"]
    elif suffix == ".json":
        written = np.array(json.loads(path.read_text())["positions"])
    elif suffix == ".obj":
        written = np.array([[float(v) for v in line.split()[1:]] for line in path.read_text().splitlines()
                            if line.startswith("v ")])
    else:
        written = loading.load([path]).bind_positions
    np.testing.assert_allclose(written, expected, atol=1e-5 * rest_extent(model))


@pytest.mark.parametrize("suffix", sorted(MODEL_WRITERS))
def test_model_writers_write_a_model_that_reads_back(tmp_path, posed, suffix):
    model, _ = posed
    path = tmp_path / f"model{suffix}"
    writer_for(path, MODEL_WRITERS)(path, model, None, False)
    assert len(loading.load([path]).skeleton) >= len(model.skeleton)


def test_an_unknown_suffix_names_every_known_one():
    with pytest.raises(ValueError) as error:
        writer_for("pose.fbx", POSE_WRITERS)
    assert str(error.value) == "must end in .npz, .json, .obj, .glb or .gltf, got 'pose.fbx'"
