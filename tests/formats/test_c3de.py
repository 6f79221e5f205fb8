"""C3DE reader: files from tests/writers/c3de_writer.py, posed vertices checked against explicit matrices."""

from __future__ import annotations

import numpy as np
import pytest

from app import formats, loading
from app.formats import c3de
from app.formats.registry import LoadOptions, ReadError, SniffedFile
from app.pose import evaluate, posed_positions
from tests.writers.c3de_writer import write_bones_2009, write_bones_2010, write_mesh


def translate(x, y, z):
    matrix = np.eye(4)
    matrix[:3, 3] = (x, y, z)
    return matrix


def rotate_z(degrees):
    angle = np.radians(degrees)
    matrix = np.eye(4)
    matrix[:2, :2] = [[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]]
    return matrix


def rotate_x(degrees):
    angle = np.radians(degrees)
    matrix = np.eye(4)
    matrix[1:3, 1:3] = [[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]]
    return matrix


POSITIONS = np.array([[0.1, 0.2, 0.3], [1.0, 0.0, 0.5], [0.0, 1.0, 1.5],
                      [0.7, 0.3, 2.0], [0.2, 0.9, 0.4], [1.3, 1.1, 0.9]])
BONE0 = np.array([0, 0, 1, 1, -1, 0])
BONE1 = np.array([1, -1, 0, -1, -1, 1])
WEIGHT0 = np.array([0.25, 0.6, 0.7, 1.0, -1.0, 0.0])
UVS = np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6], [0.7, 0.8], [0.9, 0.15], [0.25, 0.35]])


def skinning_frames(frames: int) -> np.ndarray:
    """(F, 2, 4, 4) skinning matrices with no exact decimal form."""
    return np.array([[translate(0.1 * f, 0, 0) @ rotate_z(7.0 * f),
                      translate(0, 0.3, 1) @ rotate_x(11.0 * f) @ translate(0, -0.3, -1)]
                     for f in range(frames)])


def expected(skinning: np.ndarray) -> np.ndarray:
    """Posed vertices by the doc's formula, one vertex at a time (the test's own reference)."""
    result = []
    for p, b0, b1, w0 in zip(POSITIONS, BONE0, BONE1, WEIGHT0):
        point = np.append(p, 1.0)
        if b0 < 0:
            result.append(p)
        elif b1 < 0:
            result.append((skinning[b0] @ point)[:3])
        else:
            result.append((w0 * (skinning[b0] @ point) + (1 - w0) * (skinning[b1] @ point))[:3])
    return np.array(result)


def save(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    return path


BIND = np.array([np.eye(4), translate(0, 0, 1) @ rotate_z(90)])
HEADS = np.array([[0, 0, 0], [0, 0, 1]])
TAILS = np.array([[0, 0, 1], [0, 1, 1]])


@pytest.mark.parametrize("mesh_layout", ["2009", "2010"])
def test_2010_bones_pose_the_mesh_with_skinning_matrices(tmp_path, mesh_layout):
    skinning = skinning_frames(4)
    mesh = save(tmp_path, "body.c3d", write_mesh(POSITIONS, BONE0, BONE1, WEIGHT0, UVS, layout=mesh_layout))
    bones = save(tmp_path, "bodybones.c3d", write_bones_2010(BIND, HEADS, TAILS, skinning, [-1, 0]))
    assert formats.sniff(mesh).role == "mesh" and formats.sniff(bones).role == "bones"
    model = loading.load([mesh, bones])
    assert model.format == "c3de" and len(model.skeleton) == 2
    np.testing.assert_allclose(model.skeleton.bind_world, BIND, atol=1e-6)
    np.testing.assert_allclose(model.skeleton.heads, HEADS)
    np.testing.assert_allclose(model.meshes[0].uvs, UVS, atol=1e-6)
    np.testing.assert_array_equal(model.meshes[0].triangles, [[0, 1, 2], [3, 4, 5]])
    assert list(model.skeleton.parents) == [-1, 0]
    assert any("unconfirmed" in w for w in model.warnings)
    clip = model.clips[0]
    assert clip.kind == "matrices"
    np.testing.assert_allclose(clip.times, np.arange(4) / 30.0)
    for frame in range(4):
        pose = evaluate(model, clip, frame / 30.0)
        np.testing.assert_allclose(pose.skin, skinning[frame], atol=1e-5)
        np.testing.assert_allclose(posed_positions(model, pose), expected(skinning[frame]), atol=1e-5)


def test_2009_multi_clip_trailer_and_fps_option(tmp_path):
    skinning = skinning_frames(5)
    mesh = save(tmp_path, "m.c3d", write_mesh(POSITIONS, BONE0, BONE1, WEIGHT0, layout="2009"))
    bones = save(tmp_path, "b.c3d", write_bones_2009(skinning, clip_frames=[2, 3]))
    model = loading.load([mesh, bones], LoadOptions(fps=10))
    assert [len(c.times) for c in model.clips] == [2, 3]
    np.testing.assert_allclose(model.clips[1].times, [0.0, 0.1, 0.2])
    np.testing.assert_allclose(model.skeleton.bind_world, np.broadcast_to(np.eye(4), (2, 4, 4)))
    assert model.skeleton.derived_tails.all() and any("no rest frames" in w for w in model.warnings)
    pose = evaluate(model, model.clips[1], 0.2)
    np.testing.assert_allclose(posed_positions(model, pose), expected(skinning[4]), atol=1e-5)
    assert list(model.skeleton.parents) == [-1, -1], "a 2009 bones file has no hierarchy"
    # Halfway between frames 2 and 3 each bone's rotation is halfway (slerp) and its translation the
    # mean: bone 0 turns 17.5° about Z; bone 1 turns 27.5° about X, but its pivot is not kept.
    pose = evaluate(model, model.clips[1], 0.05)
    halfway = rotate_x(27.5)
    halfway[:3, 3] = 0.5 * (skinning[2][1, :3, 3] + skinning[3][1, :3, 3])
    blended = np.array([translate(0.25, 0, 0) @ rotate_z(17.5), halfway])
    np.testing.assert_allclose(posed_positions(model, pose), expected(blended), atol=1e-5)


def test_2009_single_clip_and_index_list_variant(tmp_path):
    skinning = skinning_frames(3)
    indices = [0, 1, 2, 2, 1, 3, 3, 4, 5]
    mesh = save(tmp_path, "m.c3d",
                write_mesh(POSITIONS, BONE0, BONE1, WEIGHT0, layout="2010", indices=indices))
    bones = save(tmp_path, "b.c3d", write_bones_2009(skinning, clip_frames=[3]))
    model = loading.load([mesh, bones])
    np.testing.assert_array_equal(model.meshes[0].triangles, np.reshape(indices, (3, 3)))
    assert len(model.clips) == 1
    pose = evaluate(model, model.clips[0], 2 / 30)
    np.testing.assert_allclose(posed_positions(model, pose), expected(skinning[2]), atol=1e-5)


def test_mesh_alone_and_bones_alone(tmp_path):
    mesh = save(tmp_path, "m.c3d", write_mesh(POSITIONS, BONE0, BONE1, WEIGHT0))
    model = loading.load([mesh])
    assert len(model.skeleton) == 2 and not model.clips
    assert any("no bones file" in w for w in model.warnings)
    bones = save(tmp_path, "b.c3d", write_bones_2010(BIND, HEADS, TAILS, skinning_frames(2), [-1, 0]))
    model = loading.load([bones])
    assert not model.meshes and len(model.clips) == 1


def test_parent_list_of_other_length_is_ignored(tmp_path):
    bones = save(tmp_path, "b.c3d", write_bones_2010(BIND, HEADS, TAILS, skinning_frames(2), [-1, 0, 1]))
    model = loading.load([bones])
    assert list(model.skeleton.parents) == [-1, -1]
    assert any("parent list has 3 entries" in w for w in model.warnings)


def _load(path, role):
    return c3de.load([SniffedFile(path, "c3de", role)], LoadOptions())


def test_file_fitting_no_layout_names_the_expected_sizes(tmp_path):
    data = write_mesh(POSITIONS, BONE0, BONE1, WEIGHT0)[:-5]
    path = save(tmp_path, "m.c3d", data)
    with pytest.raises(ReadError) as caught:
        _load(path, "mesh")
    assert caught.value.offset == 0 and "12 + 44·6 = 276" in caught.value.message
    with pytest.raises(ReadError):
        formats.sniff(path)


def test_index_past_vertex_count(tmp_path):
    path = save(tmp_path, "m.c3d", write_mesh(POSITIONS, BONE0, BONE1, WEIGHT0, layout="2009",
                                              indices=[0, 1, 2, 3, 4, 6]))
    with pytest.raises(ReadError) as caught:
        _load(path, "mesh")
    assert caught.value.offset == 8 + 4 * 5


def test_vertex_bone_beyond_bones_file(tmp_path):
    mesh = save(tmp_path, "m.c3d", write_mesh(POSITIONS, BONE0 + 2, BONE1, WEIGHT0))
    bones = save(tmp_path, "b.c3d", write_bones_2009(skinning_frames(1)))
    with pytest.raises(ReadError, match="bone 3"):
        c3de.load([SniffedFile(mesh, "c3de", "mesh"), SniffedFile(bones, "c3de", "bones")], LoadOptions())


def test_absurd_counts_fail_before_allocating(tmp_path):
    path = save(tmp_path, "b.c3d", np.array([2**30, 2**30], "<i4").tobytes() + bytes(64))
    with pytest.raises(ReadError) as caught:
        _load(path, "bones")
    assert caught.value.offset == 0


# --- animation sets: one bones file per animation ---------------------------------------------

def test_a_mesh_with_many_bones_files_gets_a_clip_per_file(tmp_path):
    mesh = save(tmp_path, "Hero.c3d", write_mesh(POSITIONS, BONE0, BONE1, WEIGHT0, layout="2010"))
    walk, idle = skinning_frames(4), skinning_frames(2)[::-1]
    files = [mesh, save(tmp_path, "HeroBones.c3d", write_bones_2010(BIND, HEADS, TAILS, walk, [-1, 0])),
             save(tmp_path, "HeroIdle.c3d", write_bones_2010(BIND, HEADS, TAILS, idle, [-1, 0]))]
    (tmp_path / "again").mkdir()
    again = write_bones_2010(BIND, HEADS, TAILS, walk[:3], [-1, 0])
    files.append(save(tmp_path / "again", "HeroIdle.c3d", again))
    model = loading.load(files)
    assert [(c.name, c.source) for c in model.clips] == [
        ("HeroBones", "HeroBones.c3d"), ("HeroIdle", "HeroIdle.c3d"), ("HeroIdle (2)", "HeroIdle.c3d")]
    assert any("shown as 'HeroIdle (2)'" in w for w in model.warnings)
    idle_clip = model.clips[1]
    for frame in range(2):
        pose = evaluate(model, idle_clip, frame / 30.0)
        np.testing.assert_allclose(posed_positions(model, pose), expected(idle[frame]), atol=1e-5)
    assert len(model.clips[2].times) == 3  # the second HeroIdle.c3d, from another folder


@pytest.mark.parametrize("change, bone, what", [
    (lambda bind, parents: (bind[:1], parents[:1]), 1, "only one of them"),
    (lambda bind, parents: (bind, [-1, -1]), 1, "has parent -1 here, 0 there"),
    (lambda bind, parents: (np.array([bind[0], translate(0, 0, 2)]), parents), 1, "rest frame"),
])
def test_bones_files_whose_skeletons_disagree(tmp_path, change, bone, what):
    mesh = save(tmp_path, "m.c3d", write_mesh(POSITIONS, BONE0, BONE1, WEIGHT0))
    first = save(tmp_path, "mBones.c3d", write_bones_2010(BIND, HEADS, TAILS, skinning_frames(2), [-1, 0]))
    bind, parents = change(BIND, [-1, 0])
    other = save(tmp_path, "mRun.c3d", write_bones_2010(bind, HEADS[:len(bind)], TAILS[:len(bind)],
                                                        skinning_frames(2)[:, :len(bind)], parents))
    with pytest.raises(ReadError) as caught:
        loading.load([mesh, first, other])
    message = str(caught.value)
    assert message.startswith(str(other)) and "differs from mBones.c3d" in message
    assert f"bone {bone}" in message and what in message and "\n" not in message
