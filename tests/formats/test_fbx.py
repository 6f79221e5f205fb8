"""FBX reader on files the tests write (FBX 7.4 ASCII, tests/writers/fbx_ascii_writer.py): posed
vertices held to the FBX SDK's transform formula worked out here, with pre/post rotations, a
rotation pivot, a 0.01 unit scale, Z-up axes, two stacks and a blend shape; animation-only files;
errors with their line or byte offset."""

from __future__ import annotations

import numpy as np
import pytest

from app.formats.registry import ReadError
from app.loading import load
from app.pose import evaluate, posed_positions
from tests.writers.fbx_ascii_writer import Bone, Curve, MeshSpec, ShapeCurve, Stack, write_fbx

#: Points of a two-segment strip: a quad on the root bone, a triangle on the child.
POINTS = np.array([[-1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 10.0, 0.0], [-1.0, 10.0, 0.0], [0.0, 20.0, 0.0]])
POLYGONS = [[0, 1, 2, 3], [3, 2, 4]]
INFLUENCES = {0: ([0, 1, 2, 3], [1.0, 1.0, 0.5, 0.5]), 1: ([2, 3, 4], [0.5, 0.5, 1.0])}
SMILE = (50.0, [4], np.array([[0.0, 2.0, 0.0]]))
WALK = Stack("walk", 1.0, [Curve(1, "X", (0.0, 1.0), (0.0, 90.0))])
WAVE = Stack("wave", 0.5, [Curve(0, "Z", (0.0, 0.5), (10.0, 55.0))])


def turn(axis: str, degrees: float) -> np.ndarray:
    """A right-handed rotation about one axis, 4×4 for column vectors."""
    c, s = np.cos(np.radians(degrees)), np.sin(np.radians(degrees))
    i, j = {"X": (1, 2), "Y": (2, 0), "Z": (0, 1)}[axis]
    matrix = np.eye(4)
    matrix[i, i] = matrix[j, j] = c
    matrix[j, i], matrix[i, j] = s, -s
    return matrix


def euler_xyz(degrees) -> np.ndarray:
    """FBX's eEulerXYZ: X applied first, then Y, then Z."""
    return turn("Z", degrees[2]) @ turn("Y", degrees[1]) @ turn("X", degrees[0])


def moved(offset) -> np.ndarray:
    matrix = np.eye(4)
    matrix[:3, 3] = offset
    return matrix


def local_matrix(bone: Bone, rotation) -> np.ndarray:
    """The FBX SDK's node transform T · Rp · Rpre · R · Rpost⁻¹ · Rp⁻¹ (no offsets, unit scale)."""
    pivot = moved(bone.pivot)
    return (moved(bone.translation) @ pivot @ euler_xyz(bone.pre_rotation) @ euler_xyz(rotation)
            @ np.linalg.inv(euler_xyz(bone.post_rotation)) @ np.linalg.inv(pivot))


def bones() -> list[Bone]:
    return [Bone("hips", translation=(2.0, 0.0, 1.0), pre_rotation=(0.0, 0.0, 30.0),
                 rotation=(0.0, 0.0, 10.0)),
            Bone("chest", translation=(0.0, 10.0, 0.0), post_rotation=(0.0, 0.0, 15.0), pivot=(1.0, 0.0, 0.0),
                 pre_rotation=(5.0, 0.0, 0.0), parent=0)]


def worlds(skeleton: list[Bone], rotations: dict[int, tuple]) -> list[np.ndarray]:
    """Each bone's world matrix with its Lcl Rotation replaced where ``rotations`` says."""
    result = []
    for index, bone in enumerate(skeleton):
        local = local_matrix(bone, rotations.get(index, bone.rotation))
        result.append(local if bone.parent is None else result[bone.parent] @ local)
    return result


def skinned(skeleton: list[Bone], rotations: dict[int, tuple], smile: float = SMILE[0]) -> np.ndarray:
    """(P, 3) the points in the file's space, blend shape at ``smile`` percent (default its rest
    weight), skinned from the rest pose (the clusters' bind frames) to the pose ``rotations`` gives."""
    bind, posed = worlds(skeleton, {}), worlds(skeleton, rotations)
    points = POINTS.copy()
    points[SMILE[1]] += smile / 100 * SMILE[2]
    result = np.zeros_like(points)
    for bone, (indices, weights) in INFLUENCES.items():
        move = posed[bone] @ np.linalg.inv(bind[bone])
        for point, weight in zip(indices, weights):
            result[point] += weight * (move[:3, :3] @ points[point] + move[:3, 3])
    return result


def in_metres_y_up(points: np.ndarray, up: str, metres_per_unit: float) -> np.ndarray:
    """What the reader should make of file points: scaled to metres, Z up turned to Y up."""
    if up == "Z":
        points = np.stack([points[:, 0], points[:, 2], -points[:, 1]], axis=1)
    return points * metres_per_unit


def written(tmp_path, up="Y", unit_cm=1.0, **options):
    skeleton = bones()
    bind = {index: world for index, world in enumerate(worlds(skeleton, {}))}
    mesh = MeshSpec(points=POINTS, polygons=POLYGONS, influences=INFLUENCES, bind=bind,
                    shapes={"smile": SMILE})
    return write_fbx(tmp_path / "strip.fbx", skeleton, mesh, [WALK, WAVE], up=up, unit_cm=unit_cm, **options)


def posed_points(model, clip_name: str, time: float) -> np.ndarray:
    """(P, 3) the posed vertices in control-point order (each point is one vertex here: its normal
    and UV agree on every corner)."""
    clip = model.clips[model.clip_index(clip_name)]
    return posed_positions(model, evaluate(model, clip, time))


@pytest.mark.parametrize("up, unit_cm", [("Y", 1.0), ("Z", 1.0), ("Y", 100.0)])
@pytest.mark.parametrize("clip, time, rotations", [
    ("walk", 0.0, {1: (0.0, 0.0, 0.0)}), ("walk", 0.5, {1: (45.0, 0.0, 0.0)}),
    ("walk", 1.0, {1: (90.0, 0.0, 0.0)}), ("wave", 0.0, {0: (0.0, 0.0, 10.0)}),
    ("wave", 0.25, {0: (0.0, 0.0, 32.5)}), ("wave", 0.5, {0: (0.0, 0.0, 55.0)}),
])
def test_posed_vertices_follow_the_fbx_transform_formula(tmp_path, up, unit_cm, clip, time, rotations):
    model = load([written(tmp_path, up, unit_cm)])
    expected = in_metres_y_up(skinned(bones(), rotations), up, unit_cm / 100)
    assert np.allclose(posed_points(model, clip, time), expected, atol=1e-5)


def test_the_rest_pose_puts_the_joints_where_the_formula_does(tmp_path):
    model = load([written(tmp_path, "Z")])
    heads = np.array([world[:3, 3] for world in worlds(bones(), {})])
    assert np.allclose(model.skeleton.rest_world[:, :3, 3], in_metres_y_up(heads, "Z", 0.01), atol=1e-9)
    assert model.skeleton.names == ["hips", "chest"]


def test_units_and_axes_are_converted_and_the_files_own_kept(tmp_path):
    model = load([written(tmp_path, "Z")])
    assert (model.unit, model.up_axis, model.forward) == ("metre", "Y", "+Z")
    assert model.file_unit_m == pytest.approx(0.01)
    assert model.file_axes == "Z up, +Y front"
    assert load([written(tmp_path, "Y", 100.0)]).file_axes == "Y up, -Z front"


def test_two_stacks_are_two_clips_with_their_own_times(tmp_path):
    model = load([written(tmp_path)])
    assert [clip.name for clip in model.clips] == ["walk", "wave"]
    assert [clip.duration for clip in model.clips] == pytest.approx([1.0, 0.5])
    assert [clip.frame_count for clip in model.clips] == [31, 16]  # sampled at the file's 30 fps
    assert [clip.rate for clip in model.clips] == [30.0, 30.0]


def test_a_quad_is_two_triangles_and_a_vertex_per_distinct_corner(tmp_path):
    mesh = load([written(tmp_path)]).meshes[0]
    assert mesh.triangle_count == 3 and mesh.vertex_count == 5
    assert mesh.skin is not None and mesh.uvs is not None and mesh.normals is not None


def test_the_clusters_bind_frames_win_over_a_lying_bind_pose(tmp_path):
    model = load([written(tmp_path, lying_pose=True)])
    expected = in_metres_y_up(skinned(bones(), {1: (90.0, 0.0, 0.0)}), "Y", 0.01)
    assert np.allclose(posed_points(model, "walk", 1.0), expected, atol=1e-5)


def test_an_animation_only_file_lends_its_clips_by_bone_name(tmp_path):
    model_path = written(tmp_path)
    folder = tmp_path / "anim"
    folder.mkdir()
    only = write_fbx(folder / "walk_only.fbx", bones(), None, [Stack("mixamo.com", 1.0, WALK.curves)])
    model = load([model_path, only])
    assert [clip.name for clip in model.clips] == ["walk", "wave", "mixamo.com"]
    assert model.clips[2].source == "walk_only.fbx"
    assert np.allclose(posed_points(model, "mixamo.com", 1.0), posed_points(model, "walk", 1.0), atol=1e-9)


def test_an_animation_file_for_other_bones_is_refused(tmp_path):
    only = write_fbx(tmp_path / "other.fbx", [Bone("tail")], None, [Stack("swish", 1.0, [Curve(0, "Y", (0, 1),
                                                                                             (0, 30))])])
    with pytest.raises(ReadError, match="holds no animation for the bones"):
        load([written(tmp_path), only])


def strip_with_shapes(shapes: dict) -> tuple[list[Bone], MeshSpec]:
    skeleton = bones()
    bind = {index: world for index, world in enumerate(worlds(skeleton, {}))}
    return skeleton, MeshSpec(points=POINTS, polygons=POLYGONS, influences=INFLUENCES, bind=bind,
                              shapes=shapes)


def test_animated_blend_shape_weights_are_a_weight_channel_beside_the_bones(tmp_path):
    skeleton, mesh = strip_with_shapes({"smile": SMILE})
    grin = Stack("grin", 1.0, WALK.curves, [ShapeCurve(0, (0.0, 1.0), (0.0, 100.0))])
    model = load([write_fbx(tmp_path / "grin.fbx", skeleton, mesh, [grin])])
    clip = model.clips[0]
    assert clip.kind == "keyed" and clip.motion == "skeletal" and clip.tracks
    assert model.meshes[0].morphs.names == ("smile",)
    assert model.meshes[0].morphs.defaults.tolist() == [0.5]
    [channel] = clip.weight_channels
    assert channel.mesh == 0 and channel.interpolation == "linear"
    for time, rotation, percent in ((0.0, 0.0, 0.0), (0.25, 22.5, 25.0), (0.5, 45.0, 50.0),
                                    (1.0, 90.0, 100.0)):
        pose = evaluate(model, clip, time)
        assert pose.morph_weights.tolist() == pytest.approx([percent / 100])
        expected = in_metres_y_up(skinned(skeleton, {1: (rotation, 0.0, 0.0)}, percent), "Y", 0.01)
        assert np.allclose(posed_positions(model, pose), expected, atol=1e-5)


FROWN = (20.0, [0, 1], np.array([[0.0, -3.0, 0.0], [0.5, -1.0, 0.0]]))

#: A weights-only stack: smile keyed at 0, 0.4 and 1 s (0, 80, 20 %), frown at 0.2 and 0.7 s (100, 0 %).
FACE = Stack("face", 1.0, [], [ShapeCurve(0, (0.0, 0.4, 1.0), (0.0, 80.0, 20.0)),
                               ShapeCurve(1, (0.2, 0.7), (100.0, 0.0))])


@pytest.mark.parametrize("time, smile, frown", [
    (0.0, 0.0, 100.0), (0.2, 40.0, 100.0), (0.3, 60.0, 80.0), (0.55, 65.0, 30.0), (0.85, 35.0, 0.0),
    (1.0, 20.0, 0.0)])
def test_a_stack_of_blend_shape_weights_only_is_a_morph_clip(tmp_path, time, smile, frown):
    skeleton, mesh = strip_with_shapes({"smile": SMILE, "frown": FROWN})
    model = load([write_fbx(tmp_path / "face.fbx", skeleton, mesh, [FACE])])
    clip = model.clips[0]
    assert clip.motion == "morph" and not clip.tracks
    morphs = model.meshes[0].morphs
    assert morphs.names == ("smile", "frown") and morphs.defaults.tolist() == pytest.approx([0.5, 0.2])
    pose = evaluate(model, clip, time)
    assert pose.morph_weights.tolist() == pytest.approx([smile / 100, frown / 100])
    points = POINTS.copy()  # at rest every point's skin weights sum to 1: skinning leaves it in place
    points[SMILE[1]] += smile / 100 * SMILE[2]
    points[FROWN[1]] += frown / 100 * FROWN[2]
    assert np.allclose(posed_positions(model, pose), in_metres_y_up(points, "Y", 0.01), atol=1e-6)


def test_an_unkeyed_stack_leaves_the_blend_shapes_at_their_rest_weights(tmp_path):
    skeleton, mesh = strip_with_shapes({"smile": SMILE, "frown": FROWN})
    model = load([write_fbx(tmp_path / "walk.fbx", skeleton, mesh, [WALK])])
    assert model.clips[0].weight_channels == []
    points = POINTS.copy()
    points[SMILE[1]] += 0.5 * SMILE[2]
    points[FROWN[1]] += 0.2 * FROWN[2]
    assert np.allclose(model.meshes[0].positions, in_metres_y_up(points, "Y", 0.01), atol=1e-9)


def test_a_vertex_keeps_its_four_strongest_influences_with_a_warning(tmp_path):
    skeleton = [Bone(f"b{index}", translation=(0.0, 1.0, 0.0), parent=None if index == 0 else index - 1)
                for index in range(5)]
    bind = {index: world for index, world in enumerate(worlds(skeleton, {}))}
    weights = [0.05, 0.3, 0.25, 0.2, 0.2]
    influences = {bone: ([0], [weight]) for bone, weight in enumerate(weights)}
    influences[0] = ([0, 1, 2], [weights[0], 1.0, 1.0])
    mesh = MeshSpec(points=POINTS[:3], polygons=[[0, 1, 2]], influences=influences, bind=bind)
    model = load([write_fbx(tmp_path / "five.fbx", skeleton, mesh)])
    assert any("more than 4 influences" in warning for warning in model.warnings)
    mesh = model.meshes[0]
    first = int(np.flatnonzero(np.isclose(mesh.positions[:, 0], -0.01))[0])
    kept = dict(zip(mesh.joints[first].tolist(), mesh.weights[first].tolist()))
    assert set(kept) == {1, 2, 3, 4}
    assert kept[1] == pytest.approx(0.3 / 0.95)


def test_an_unclosed_block_is_named_by_its_line(tmp_path):
    path = written(tmp_path)
    text = path.read_text()
    lines = text.splitlines()
    opened = next(number for number, line in enumerate(lines, start=1) if line.startswith("Objects:"))
    path.write_text(text[: len(text) // 2])
    with pytest.raises(ReadError) as caught:
        load([path])
    assert caught.value.line is not None and opened < caught.value.line < len(lines) // 2
    assert "strip.fbx" in str(caught.value)


def test_a_truncated_binary_file_is_named_by_its_byte_offset(tmp_path):
    path = tmp_path / "cut.fbx"
    header = b"Kaydara FBX Binary  \x00\x1a\x00" + (7400).to_bytes(4, "little")
    record = (10_000).to_bytes(4, "little") + bytes(8) + bytes([4]) + b"Node"
    path.write_bytes(header + record + bytes(30))
    with pytest.raises(ReadError) as caught:
        load([path])
    assert caught.value.offset == 27
    assert "outside" in str(caught.value)


def test_an_unclosed_quote_is_named_by_its_line(tmp_path):
    path = written(tmp_path)
    text = path.read_text()
    path.write_text(text.replace('"Model::hips"', '"Model::hips', 1))
    with pytest.raises(ReadError, match="quoted string") as caught:
        load([path])
    assert caught.value.line == text[: text.index('"Model::hips"')].count("\n") + 1


def test_garbage_after_the_binary_magic_is_a_read_error(tmp_path):
    path = tmp_path / "noise.fbx"
    path.write_bytes(b"Kaydara FBX Binary  \x00" + bytes(range(256)) * 4)
    with pytest.raises(ReadError):
        load([path])


def test_info_and_convert_check_on_blend_shape_stacks(tmp_path, capsys):
    import json

    from app.cli.main import main

    skeleton, mesh = strip_with_shapes({"smile": SMILE, "frown": FROWN})
    grin = Stack("grin", 1.0, WALK.curves, [ShapeCurve(0, (0.0, 1.0), (0.0, 100.0))])
    path = write_fbx(tmp_path / "face.fbx", skeleton, mesh, [grin, FACE])
    assert main(["info", str(path), "--json"]) == 0
    clips = {clip["name"]: clip for clip in json.loads(capsys.readouterr().out)["clips"]}
    assert clips["grin"]["kind"] == "skeletal" and clips["grin"]["morph_weights"] is True
    assert clips["face"]["kind"] == "morph" and "morph_weights" not in clips["face"]
    assert main(["convert", str(path), "-o", str(tmp_path / "face.glb"), "--check"]) == 0
    out = capsys.readouterr().out
    assert "not exported" not in out and "worst morph weight error" in out


def test_clips_of_a_file_with_the_same_meshes_bring_their_weights_along(tmp_path):
    skeleton, mesh = strip_with_shapes({"smile": SMILE, "frown": FROWN})
    character = write_fbx(tmp_path / "character.fbx", skeleton, mesh)
    grin = Stack("grin", 1.0, WALK.curves, [ShapeCurve(0, (0.0, 1.0), (0.0, 100.0))])
    takes = write_fbx(tmp_path / "takes.fbx", skeleton, mesh, [grin, FACE])
    model = load([character, takes])
    assert [(clip.name, clip.motion, clip.source) for clip in model.clips] == [
        ("grin", "skeletal", "takes.fbx"), ("face", "morph", "takes.fbx")]
    assert evaluate(model, model.clips[0], 0.25).morph_weights.tolist() == pytest.approx([0.25, 0.2])
    assert evaluate(model, model.clips[1], 0.55).morph_weights.tolist() == pytest.approx([0.65, 0.3])


def test_weights_of_other_blend_shapes_stay_behind(tmp_path):
    skeleton, mesh = strip_with_shapes({"smile": SMILE, "frown": FROWN})
    character = write_fbx(tmp_path / "character.fbx", skeleton, mesh)
    _, other = strip_with_shapes({"grin": SMILE, "frown": FROWN})
    grin = Stack("grin", 1.0, WALK.curves, [ShapeCurve(0, (0.0, 1.0), (0.0, 100.0))])
    model = load([character, write_fbx(tmp_path / "takes.fbx", skeleton, other, [grin, FACE])])
    assert [clip.name for clip in model.clips] == ["grin"] and model.clips[0].weight_channels == []
    assert any("'face' moves no bone or mesh" in warning for warning in model.warnings)


@pytest.mark.parametrize("time, percent", [(0.0, 0.0), (0.25, 0.0), (0.495, 0.0), (0.5, 100.0), (0.75, 100.0),
                                           (1.0, 0.0)])
def test_stepped_blend_shape_keys_hold_until_the_next_key(tmp_path, time, percent):
    """ufbx bakes a constant key as a pair of keys a millisecond apart; the weights hold between."""
    skeleton, mesh = strip_with_shapes({"smile": SMILE})
    steps = Stack("steps", 1.0, [], [ShapeCurve(0, (0.0, 0.5, 1.0), (0.0, 100.0, 0.0), key_flags=2)])
    model = load([write_fbx(tmp_path / "steps.fbx", skeleton, mesh, [steps])])
    assert evaluate(model, model.clips[0], time).morph_weights.tolist() == pytest.approx([percent / 100])
