"""Files as real tools export them (issue 25): a skeleton under a scaled, turned armature, camera and
light nodes, vertex colours and more than two influence sets. Expected values are worked out by hand
from the numbers ``tests/tool_exports.py`` writes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app import maths
from app.formats import LoadOptions, ReadError
from app.loading import load
from app.model import Model
from app.pose import posed_bounds, rest_extent, rest_pose
from app.render.offscreen import OffscreenRenderer
from app.scene.draw_settings import DrawSettings
from tests.helpers import exit_status, read_gltf as read
from tests.tool_exports import (
    BONES,
    CUBE_TRIANGLES,
    bone_heads_cm,
    cube_corners,
    mixamo_character,
    vertex_colored_cube,
)
from tests.writers.gltf_writer import write_gltf


def _rest_heads_tails(model):
    return rest_pose(model).heads_tails(model.skeleton)


# --- 1. skeletons under any root transform ---------------------------------------------------------

def test_tails_under_a_scaled_turned_armature_stay_on_the_body(tmp_path):
    model = read(mixamo_character(tmp_path))
    names = model.skeleton.names
    heads, tails = _rest_heads_tails(model)
    # The armature (scale 0.01, −90° about X) points at its only child, the hips, at 100 cm up its
    # +Z: 1 m up the world's +Y (it used to end 100 m away, at the hips' centimetre coordinates).
    np.testing.assert_allclose(tails[names.index("Armature")], [0, 1, 0], atol=1e-9)
    # A thigh's only child is its foot: 10 cm aside, 100 − 10 − 85 = 5 cm up → (0.1, 0.05, 0) m.
    np.testing.assert_allclose(tails[names.index("mixamorig:LeftUpLeg")], [0.1, 0.05, 0], atol=1e-9)
    np.testing.assert_allclose(heads[names.index("mixamorig:Head")], [0, 1.7, 0], atol=1e-9)
    # Every tail lies within the body's box grown by the bone's own length.
    low, high = posed_bounds(model, rest_pose(model))
    lengths = np.linalg.norm(tails - heads, axis=1)
    outside = np.linalg.norm(np.maximum(tails - high, 0) + np.maximum(low - tails, 0), axis=1)
    assert np.all(outside <= lengths + 1e-9) and lengths.max() <= 1.0 + 1e-9  # the armature's 1 m
    assert rest_extent(model) == pytest.approx(np.linalg.norm(high - low), rel=0.2)


def test_tails_under_a_non_uniformly_scaled_root(tmp_path):
    # The same character with its armature also stretched 2× along its own Y (the world's −Z).
    path = mixamo_character(tmp_path)
    document = json.loads(path.read_text())
    document["nodes"][0]["scale"] = [0.01, 0.02, 0.01]
    path.write_text(json.dumps(document))
    model = read(path)
    names = model.skeleton.names
    heads, tails = _rest_heads_tails(model)
    armature = maths.compose_trs(np.zeros(3), np.array(document["nodes"][0]["rotation"]),
                                 np.array([0.01, 0.02, 0.01]))
    foot_cm = bone_heads_cm()[[name for name, _, _ in BONES].index("LeftFoot")]
    np.testing.assert_allclose(tails[names.index("mixamorig:LeftUpLeg")],
                               armature[:3, :3] @ foot_cm, atol=1e-9)
    np.testing.assert_allclose(tails[names.index("Armature")], [0, 1, 0], atol=1e-9)


def test_camera_and_light_nodes_are_helpers_and_not_framed(tmp_path):
    model = read(mixamo_character(tmp_path))
    assert [helper.name for helper in model.helpers] == ["Camera", "Light"]
    assert "Camera" not in model.skeleton.names and len(model.skeleton) == 1 + len(BONES)
    np.testing.assert_allclose(rest_pose(model).helpers[0][:3, 3], [0, 1, 1000])
    low, high = posed_bounds(model, rest_pose(model))
    # Hand-worked body bounds: arms reach ±(20 + 55) cm, the head's box tops out at 195 cm, the feet's
    # boxes go 5 cm below the ground... turned so that only x and y matter here.
    assert low[0] == pytest.approx(-0.75) and high[0] == pytest.approx(0.75)
    assert high[1] == pytest.approx(1.95) and high[2] < 0.2


def test_skeleton_is_framed_only_when_shown_or_alone(tmp_path):
    model = read(mixamo_character(tmp_path))
    pose = rest_pose(model)
    heads, tails = pose.heads_tails(model.skeleton)
    body_low, body_high = posed_bounds(model, pose)
    low, high = posed_bounds(model, pose, skeleton=True)
    np.testing.assert_allclose(low, np.minimum(body_low, np.minimum(heads, tails).min(0)))
    np.testing.assert_allclose(high, np.maximum(body_high, np.maximum(heads, tails).max(0)))
    # Without a mesh the skeleton is what is framed, never the camera 1,000 m away.
    bones_only = Model(name="bones", skeleton=model.skeleton, helpers=model.helpers)
    low, high = posed_bounds(bones_only, rest_pose(bones_only))
    np.testing.assert_allclose(low, np.minimum(heads, tails).min(0))
    np.testing.assert_allclose(high, np.maximum(heads, tails).max(0))


def _coverage(image: np.ndarray) -> tuple[float, float]:
    """The drawn pixels' bounding box as fractions of the picture's width and height."""
    rows, columns = np.nonzero(image[..., 3] > 0)
    return (np.ptp(columns) + 1) / image.shape[1], (np.ptp(rows) + 1) / image.shape[0]


def test_mixamo_style_character_fills_the_render(gl_context, tmp_path):
    model = read(mixamo_character(tmp_path))
    with OffscreenRenderer(gl_context) as offscreen:
        image = offscreen.render_image(model, size=(640, 480), view="front",
                                       options=DrawSettings(transparent=True, grid=False))
    width, height = _coverage(image)
    assert height > 0.8 and width > 0.3, (width, height)  # it covered 28 pixels before


# --- 2. vertex colours -------------------------------------------------------------------------------

CORNER_COLORS = np.array([[i & 1, (i >> 1) & 1, (i >> 2) & 1, 1] for i in range(8)], float)


@pytest.mark.parametrize("kind, component, scale", [("VEC4", 5121, 255), ("VEC3", 5123, 65535),
                                                    ("VEC3", 5126, 1), ("VEC4", 5126, 1)])
def test_color_0_is_read_in_every_allowed_form(tmp_path, kind, component, scale):
    if component == 5126:
        stored = CORNER_COLORS * 0.5 + 0.25
        expected = stored.copy()
    else:  # normalised integers: n / (2^bits − 1)
        stored = np.round(CORNER_COLORS * (scale - 20) + 10)
        expected = stored / scale
    if kind == "VEC3":
        stored, expected[:, 3] = stored[:, :3], 1.0
    model = read(vertex_colored_cube(tmp_path, stored, kind, component))
    np.testing.assert_allclose(model.meshes[0].colors, expected, atol=1e-6)


@pytest.mark.parametrize("kind, component, problem", [("VEC2", 5126, "expected type VEC3/VEC4"),
                                                      ("VEC4", 5125, "component types"),
                                                      ("SCALAR", 5121, "expected type VEC3/VEC4")])
def test_color_0_of_a_wrong_type_is_an_error_naming_the_mesh(tmp_path, kind, component, problem):
    values = np.zeros((8, {"VEC2": 2, "VEC4": 4, "SCALAR": 1}[kind]))
    with pytest.raises(ReadError) as error:
        read(vertex_colored_cube(tmp_path, values, kind, component))
    message = str(error.value)
    assert "cube.gltf" in message and "meshes[0].primitives[0].attributes.COLOR_0" in message
    assert problem in message


def test_color_0_of_a_wrong_count_is_an_error(tmp_path):
    with pytest.raises(ReadError, match=r"COLOR_0: 7 elements, POSITION has 8"):
        read(vertex_colored_cube(tmp_path, CORNER_COLORS[:7], "VEC4", 5126))


def test_float_colors_outside_0_1_are_clamped_with_a_warning(tmp_path):
    colors = CORNER_COLORS.copy()
    colors[0, 0] = 1.5
    model = read(vertex_colored_cube(tmp_path, colors, "VEC4", 5126))
    assert model.meshes[0].colors[0, 0] == 1.0
    assert any("COLOR_0: values outside 0..1 clamped" in warning for warning in model.warnings)


def test_vertex_colors_are_drawn_times_the_base_colour_and_can_be_turned_off(gl_context, tmp_path):
    red = np.tile([1.0, 0.0, 0.0, 1.0], (8, 1))
    model = read(vertex_colored_cube(tmp_path, red, "VEC4", 5126, base_color=(1, 1, 1, 1)))
    with OffscreenRenderer(gl_context) as offscreen:
        colored, plain = (offscreen.render_image(model, size=(160, 120), view="iso", options=DrawSettings(
            transparent=True, grid=False, vertex_colors=on)) for on in (True, False))
    drawn = colored[..., 3] > 0
    red_channel, green_channel = colored[drawn][:, 0].astype(float), colored[drawn][:, 1].astype(float)
    assert red_channel.mean() > 3 * green_channel.mean()
    plain_pixels = plain[plain[..., 3] > 0][:, :3].astype(float)
    assert abs(plain_pixels[:, 0].mean() - plain_pixels[:, 1].mean()) < 10


def test_vertex_colors_are_exported(tmp_path):
    colors = CORNER_COLORS * 0.5 + [0.25, 0.25, 0.25, 0.0]
    path = vertex_colored_cube(tmp_path, colors, "VEC4", 5126)
    out = tmp_path / "out.glb"
    assert exit_status(["convert", str(path), "-o", str(out)]) == 0
    np.testing.assert_allclose(load([out]).meshes[0].colors, colors, atol=1e-7)
    posed = tmp_path / "posed.gltf"
    assert exit_status(["pose", str(path), "-o", str(posed)]) == 0
    np.testing.assert_allclose(load([posed]).meshes[0].colors, colors, atol=1e-7)


def test_info_lists_vertex_colors(tmp_path, capsys):
    path = vertex_colored_cube(tmp_path, CORNER_COLORS, "VEC4", 5126)
    assert exit_status(["info", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["mesh_list"][0]["colors"] is True
    assert exit_status(["info", str(mixamo_character(tmp_path)), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["mesh_list"][0]["colors"] is False


# --- 4. influences --------------------------------------------------------------------------------

def _triangle_document(sets: list[tuple[np.ndarray, np.ndarray]], extra: dict | None = None):
    """One skinned triangle on eight joints at x = 0..7 (identity inverse binds), with the influence
    ``sets`` (joints (3, 4), weights (3, 4)) as JOINTS_n / WEIGHTS_n."""
    attributes = {"POSITION": 0}
    arrays = [(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], float), "VEC3", 5126)]
    for index, (joints, weights) in enumerate(sets):
        attributes[f"JOINTS_{index}"] = len(arrays)
        arrays.append((joints, "VEC4", 5121))
        attributes[f"WEIGHTS_{index}"] = len(arrays)
        arrays.append((weights, "VEC4", 5126))
    attributes.update(extra or {})
    document = {"nodes": [{"name": f"j{j}", "translation": [j, 0, 0]} for j in range(8)]
                + [{"name": "skinned", "mesh": 0, "skin": 0}],
                "meshes": [{"primitives": [{"attributes": attributes}]}],
                "skins": [{"joints": list(range(8))}]}
    return document, arrays


def test_three_influence_sets_keep_the_four_strongest_and_say_how_many_vertices_lost(tmp_path):
    joints = np.array([[0, 1, 2, 3], [4, 5, 6, 7], [0, 1, 2, 3]])
    first = np.array([[0.05, 0.30, 0.05, 0.20], [1, 0, 0, 0], [1, 0, 0, 0]], float)
    second = np.array([[0.10, 0.05, 0.15, 0.00], [0, 0, 0, 0], [0, 0, 0, 0]], float)
    third = np.array([[0.10, 0.0, 0.0, 0.0], [0, 0, 0, 0], [0, 0, 0, 0]], float)
    document, arrays = _triangle_document([(joints, first), (joints[[1, 0, 2]], second), (joints, third)])
    model = read(write_gltf(tmp_path, document, arrays))
    mesh = model.meshes[0]
    # Vertex 0's influences: j1 0.30, j3 0.20, j6 0.15, then j4 0.10 and j0 0.10 tied (the first lane
    # seen, j4 from set 1, wins); kept 0.75 of 1.0 → renormalised by 1/0.75.
    order = np.argsort(-mesh.weights[0])
    assert mesh.joints[0][order].tolist() == [1, 3, 6, 4]
    np.testing.assert_allclose(mesh.weights[0][order], np.array([0.30, 0.20, 0.15, 0.10]) / 0.75, atol=1e-6)
    assert mesh.joints.shape == (3, 4)
    lost = [warning for warning in model.warnings if "influences" in warning]
    assert lost == ["meshes[0].primitives[0]: 1 vertices have more than 4 influences (3 sets); each keeps "
                    "its 4 strongest, renormalised"]
    assert not any("do not sum to 1" in warning for warning in model.warnings)


def test_influence_sets_of_different_lengths_are_an_error(tmp_path):
    joints = np.array([[0, 1, 2, 3]] * 3)
    weights = np.array([[0.25] * 4] * 3)
    document, arrays = _triangle_document([(joints, weights), (joints, weights * 0)])
    arrays[4] = (weights[:2] * 0, "VEC4", 5126)  # WEIGHTS_1 holds two rows for three vertices
    with pytest.raises(ReadError, match=r"meshes\[0\]\.primitives\[0\]\.attributes\.WEIGHTS_1: 2 elements, "
                                        r"POSITION has 3"):
        read(write_gltf(tmp_path, document, arrays))


def test_an_unpaired_influence_set_is_ignored_with_a_warning(tmp_path):
    joints = np.array([[0, 1, 0, 0]] * 3)
    weights = np.array([[0.5, 0.5, 0, 0]] * 3)
    document, arrays = _triangle_document([(joints, weights)], extra={"JOINTS_1": 1})
    model = read(write_gltf(tmp_path, document, arrays))
    assert any("WEIGHTS_1 is missing, so the influence set 1 is ignored" in w for w in model.warnings)
    np.testing.assert_allclose(rest_pose(model).world[1][:3, 3], [1, 0, 0])


# --- 3. one clip timeline (glTF) --------------------------------------------------------------------

def _late_clip_file(tmp_path):
    """The cube on a node moved along x by a clip keyed at 1/24, 1.0 and 2.5 s (x = 1, 2, 3)."""
    path = vertex_colored_cube(tmp_path, CORNER_COLORS, "VEC4", 5126)
    document = json.loads(path.read_text())
    times = np.array([1 / 24, 1.0, 2.5], np.float32)
    values = np.array([[1, 0, 0], [2, 0, 0], [3, 0, 0]], np.float32)
    arrays = [(cube_corners(), "VEC3", 5126), (CORNER_COLORS, "VEC4", 5126),
              (CUBE_TRIANGLES.ravel(), "SCALAR", 5123), (times, "SCALAR", 5126), (values, "VEC3", 5126)]
    document["meshes"][0]["primitives"][0]["indices"] = 2
    document["animations"] = [{"name": "slide", "samplers": [{"input": 3, "output": 4}],
                               "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}]
    return write_gltf(tmp_path, document, arrays, "late.gltf")


def test_a_clip_starting_after_0_lasts_to_its_last_key(tmp_path, capsys):
    path = _late_clip_file(tmp_path)
    assert exit_status(["info", str(path), "--json"]) == 0
    clip = json.loads(capsys.readouterr().out)["clips"][0]
    assert clip["frames"] == 3 and clip["duration"] == pytest.approx(2.5)
    for selector in (["--frame", "2"], ["--time", "2.5"]):
        out = tmp_path / f"pose{selector[0]}.npz"
        assert exit_status(["pose", str(path), *selector, "-o", str(out)]) == 0
        np.testing.assert_allclose(np.load(out)["positions"], cube_corners() + [3, 0, 0], atol=1e-6)
    assert exit_status(["pose", str(path), "--frame", "0", "-o", str(tmp_path / "first.npz")]) == 0
    np.testing.assert_allclose(np.load(tmp_path / "first.npz")["positions"], cube_corners() + [1, 0, 0],
                               atol=1e-6)
    assert exit_status(["pose", str(path), "--time", "2.6", "-o", str(tmp_path / "late.npz")]) == 2
    assert "outside 0..2.5 s" in capsys.readouterr().err


def test_export_keeps_the_clip_timeline(tmp_path):
    path = _late_clip_file(tmp_path)
    out = tmp_path / "out.glb"
    assert exit_status(["convert", str(path), "-o", str(out)]) == 0
    clip = load([out]).clips[0]
    np.testing.assert_allclose(clip.frame_times, [1 / 24, 1.0, 2.5], atol=1e-6)
    assert clip.duration == pytest.approx(2.5)


# --- 7. exports face glTF's front ---------------------------------------------------------------------

@pytest.mark.parametrize("name, up, forward", [("nwn_mdl", "Z", "+Y"), ("c3de", "Z", "+X"),
                                               ("c3de", "Y", "+Z"), ("bonespro", "Z", "-Y")])
def test_exports_face_gltf_front_and_reopen_the_same(gl_context, demo, tmp_path, capsys, name, up, forward):
    from tests.demo_formats import WRITERS

    paths = WRITERS[name](demo, tmp_path)
    options = ["--up", up.lower()] if name == "c3de" else []  # C3DE states no up axis
    original = load(paths, LoadOptions(up=up) if options else None)
    assert (original.up_axis, original.forward) == (up, forward)
    out = tmp_path / "export.glb"
    assert exit_status(["convert", *map(str, paths), *options, "-o", str(out)]) == 0
    assert exit_status(["info", str(out), "--json"]) == 0
    facts = json.loads(capsys.readouterr().out)
    assert (facts["up"], facts["forward"]) == ("Y", "+Z")
    exported = load([out])
    # The point one unit ahead of the original's root, along its facing, lies one unit along +Z.
    ahead = {"+X": [1, 0, 0], "+Y": [0, 1, 0], "-Y": [0, -1, 0], "+Z": [0, 0, 1]}[forward]
    turn = rest_pose(exported).world[0] if forward != "+Z" else np.eye(4)  # the root the exporter added
    np.testing.assert_allclose(turn[:3, :3] @ ahead, [0, 0, 1], atol=1e-7)
    with OffscreenRenderer(gl_context) as offscreen:
        options = DrawSettings(transparent=True, grid=False)
        before, after = (offscreen.render_image(model, size=(200, 200), view="front", options=options)
                         for model in (original, exported))
    drawn_before, drawn_after = before[..., 3] > 0, after[..., 3] > 0
    overlap = (drawn_before & drawn_after).sum() / (drawn_before | drawn_after).sum()
    assert overlap > 0.97, overlap
    both = drawn_before & drawn_after
    assert np.abs(before[both].astype(int) - after[both]).mean() < 3


# --- 3. one clip timeline, per format --------------------------------------------------------------

def _reachable_keys(paths, tmp_path, capsys) -> int:
    """Checks, through the CLI, that every clip's duration is its last key's time and that its last key
    is reached by ``--frame`` and by its time alike; returns the number of clips checked."""
    files = list(map(str, paths))
    assert exit_status(["info", *files, "--json"]) == 0
    clips = json.loads(capsys.readouterr().out)["clips"]
    model = load(paths)
    for index, (facts, clip) in enumerate(zip(clips, model.clips)):
        last = float(clip.frame_times[-1])
        assert facts["frames"] == clip.frame_count and facts["duration"] == pytest.approx(max(last, 0.0))
        outputs = []
        for selector in (["--frame", str(clip.frame_count - 1)], ["--time", repr(last)]):
            out = tmp_path / f"clip{index}{selector[0]}.npz"
            assert exit_status(["pose", *files, "--clip", str(index), *selector, "-o", str(out)]) == 0, \
                capsys.readouterr().err
            outputs.append(np.load(out)["world"])
        np.testing.assert_array_equal(outputs[0], outputs[1])
    return len(clips)


@pytest.mark.parametrize("name", ["bonespro", "nwn_mdl", "c3de", "bnf"])
def test_every_stored_key_is_reachable_by_frame_and_time(demo, tmp_path, capsys, name):
    from tests.demo_formats import WRITERS

    assert _reachable_keys(WRITERS[name](demo, tmp_path), tmp_path, capsys) >= 1


def test_gltf_clip_starting_after_0_is_reachable_to_its_end(tmp_path, capsys):
    assert _reachable_keys([_late_clip_file(tmp_path)], tmp_path, capsys) == 1


def test_bonespro_frames_numbered_5_15_25_give_the_third_for_frame_2(demo, tmp_path, capsys):
    from tests.demo_formats import write_bonespro
    from tests.writers import text_formats

    structure, walk = write_bonespro(demo, tmp_path)
    frames = load([structure, walk]).clips[0].world[:3]
    late = text_formats.bonespro_bones_matrix(tmp_path / "late.txt", frames, demo.vertex_count,
                                              first=5, step=10)
    clip = load([structure, late]).clips[0]
    np.testing.assert_allclose(clip.frame_times, np.array([5, 15, 25]) / 30)
    assert clip.duration == pytest.approx(25 / 30)
    for animation, out in ((late, "a.npz"), (walk, "b.npz")):
        arguments = ["pose", str(structure), str(animation), "--frame", "2", "-o", str(tmp_path / out)]
        assert exit_status(arguments) == 0
    np.testing.assert_allclose(np.load(tmp_path / "a.npz")["positions"],
                               np.load(tmp_path / "b.npz")["positions"], atol=1e-6)
    assert _reachable_keys([structure, late], tmp_path, capsys) == 1
