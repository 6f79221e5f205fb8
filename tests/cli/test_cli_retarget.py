"""``--clips-from FILE... [--map MAP.json]`` on pose, render and convert (docs/cli.md)."""

import json

import numpy as np
import pytest

from app import loading, maths
from app.cli.main import main
from app.resources import demo_paths
from app.pose import rest_extent
from tests.helpers import exit_status
from tests.tool_exports import mixamo_character
from tests.paths import CORPUS

DEMO = str(demo_paths()[0])


def posed(tmp_path, *arguments):
    out = tmp_path / "pose.npz"
    assert main(["pose", *arguments, "-o", str(out)]) == 0
    with np.load(out) as arrays:
        return arrays["world"]


@pytest.fixture(scope="module")
def soldier(tmp_path_factory):
    folder = tmp_path_factory.mktemp("soldier")
    mixamo_character(folder)
    return str(folder / "soldier.gltf")


def test_the_demos_clips_on_the_demo_reproduce_the_clip(tmp_path):
    size = rest_extent(loading.load([DEMO]))
    for time in ("0", "0.25", "0.5"):
        own = posed(tmp_path, "--demo", "--clip", "walk", "--time", time)
        carried = posed(tmp_path, "--demo", "--clips-from", DEMO, "--clip", "walk", "--time", time)
        assert np.abs(carried - own).max() <= 1e-6 * size


def test_a_walk_on_a_mixamo_rig_turns_its_bones_as_the_demos_turn(tmp_path, soldier):
    demo, target = loading.load([DEMO]), loading.load([soldier])
    source_world = posed(tmp_path, "--demo", "--clip", "walk", "--time", "0.25")
    target_world = posed(tmp_path, soldier, "--clips-from", DEMO, "--clip", "walk", "--time", "0.25")
    rotation = maths.rotation_part
    pairs = (("thigh_l", "mixamorig:LeftUpLeg"), ("forearm_r", "mixamorig:RightForeArm"),
             ("spine", "mixamorig:Spine"))
    for source_name, target_name in pairs:
        s, t = demo.skeleton.index(source_name), target.skeleton.index(target_name)
        change_s = rotation(source_world[s][None])[0] @ rotation(demo.skeleton.rest_world[s][None])[0].T
        change_t = rotation(target_world[t][None])[0] @ rotation(target.skeleton.rest_world[t][None])[0].T
        assert np.abs(change_t - change_s).max() <= 1e-6


def test_convert_writes_the_carried_clips(tmp_path, soldier):
    out = tmp_path / "soldier_walk.glb"
    assert main(["convert", soldier, "--clips-from", DEMO, "-o", str(out)]) == 0
    assert [clip.name for clip in loading.load([str(out)]).clips] == ["walk", "idle"]


def test_a_carried_clip_blends_with_another(tmp_path, soldier):
    carried = posed(tmp_path, soldier, "--clips-from", DEMO, "--clip", "idle", "--time", "0.5")
    mixed = posed(tmp_path, soldier, "--clips-from", DEMO, "--clip", "idle", "--blend", "walk:0",
                  "--time", "0.5")
    assert np.abs(mixed - carried).max() <= 1e-9


@pytest.mark.parametrize("content, message", [
    ({"pelvis": "mixamorig:Hips", "tail": "mixamorig:Spine"}, "source bone 'tail'"),
    ({"pelvis": "mixamorig:Pelvis"}, "target bone 'mixamorig:Pelvis'"),
    ({"pelvis": "mixamorig:Hips", "spine": "mixamorig:Hips"}, "target bone 'mixamorig:Hips' has two"),
    ({"pelvis": "mixamorig:Spine", "spine": "mixamorig:Hips"}, "cycle"),
    (["pelvis"], "expected a JSON object"),
])
def test_a_bad_map_is_exit_3_naming_the_file_and_bone(tmp_path, capsys, soldier, content, message):
    bad = tmp_path / "map.json"
    bad.write_text(json.dumps(content))
    assert exit_status(["convert", soldier, "--clips-from", DEMO, "--map", str(bad),
                        "-o", str(tmp_path / "x.glb")]) == 3
    error = capsys.readouterr().err
    assert "map.json" in error and message in error


def test_a_map_that_is_not_json_names_its_line(tmp_path, capsys, soldier):
    bad = tmp_path / "map.json"
    bad.write_text('{\n  "pelvis": \n}')
    assert exit_status(["pose", soldier, "--clips-from", DEMO, "--map", str(bad),
                        "-o", str(tmp_path / "x.npz")]) == 3
    assert "map.json:3: not JSON" in capsys.readouterr().err


def test_map_without_clips_from_is_a_usage_error(tmp_path, capsys):
    assert exit_status(["pose", "--demo", "--map", "m.json", "-o", str(tmp_path / "x.npz")]) == 2
    assert "--map needs --clips-from" in capsys.readouterr().err


def test_clips_from_a_skeleton_whose_names_match_nothing_asks_for_a_map(tmp_path, capsys):
    fox = str(CORPUS / "Fox" / "Fox.glb")
    assert exit_status(["pose", "--demo", "--clips-from", fox, "-o", str(tmp_path / "x.npz")]) == 2
    error = capsys.readouterr().err
    assert "no bone names of" in error and "Fox.glb" in error and "give --map" in error


def test_clips_from_a_file_with_the_same_meshes_keep_their_blend_shape_weights(tmp_path):
    from tests.formats.test_fbx import FACE, FROWN, SMILE, WALK, strip_with_shapes
    from tests.writers.fbx_ascii_writer import ShapeCurve, Stack, write_fbx

    skeleton, mesh = strip_with_shapes({"smile": SMILE, "frown": FROWN})
    character = write_fbx(tmp_path / "character.fbx", skeleton, mesh)
    grin = Stack("grin", 1.0, WALK.curves, [ShapeCurve(0, (0.0, 1.0), (0.0, 100.0))])
    takes = write_fbx(tmp_path / "takes.fbx", skeleton, mesh, [grin, FACE])
    out = tmp_path / "pose.npz"
    assert main(["pose", str(character), "--clips-from", str(takes), "--clip", "grin", "--time", "0.25",
                 "-o", str(out)]) == 0
    with np.load(out) as arrays:
        assert arrays["morph_weights"].tolist() == pytest.approx([0.25, 0.2])  # frown at its rest 20 %
