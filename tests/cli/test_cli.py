"""The command-line contract of docs/cli.md: outputs, shapes, conventions and exit codes."""

import json
import subprocess
import sys

import numpy as np
import pytest

from app.cli.main import main
from tests.helpers import exit_status

DEMO_BONES = 17


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True, text=True, timeout=120)


def test_info_json_describes_the_demo(capsys):
    assert main(["info", "--demo", "--json"]) == 0
    facts = json.loads(capsys.readouterr().out)
    assert set(facts) >= {"files", "format", "warnings", "bones", "vertices", "triangles", "meshes",
                          "helpers", "clips", "bone_names", "parents", "derived_tails"}
    assert facts["bones"] == DEMO_BONES and len(facts["bone_names"]) == DEMO_BONES
    assert facts["vertices"] >= 5000 and facts["triangles"] > 0 and facts["meshes"] == 1
    assert facts["parents"][0] == -1 and all(-1 <= p < DEMO_BONES for p in facts["parents"])
    clips = {clip["name"]: clip for clip in facts["clips"]}
    assert {"walk", "idle"} <= set(clips)
    assert clips["walk"]["kind"] == "skeletal" and clips["walk"]["duration"] == pytest.approx(1.0)
    assert facts["files"][0].endswith("demo.glb")


def test_info_text_lists_clips(capsys):
    assert main(["info", "--demo"]) == 0
    text = capsys.readouterr().out
    assert "walk" in text and "bones:" in text


def test_pose_npz_keys_shapes_and_conventions(tmp_path):
    out = tmp_path / "pose.npz"
    assert main(["pose", "--demo", "--clip", "walk", "--frame", "3", "-o", str(out)]) == 0
    data = np.load(out)
    assert set(data.files) == {"positions", "bone_names", "parents", "world", "skin", "heads", "tails",
                               "morph_weights"}
    assert data["morph_weights"].shape == (0,)
    bones = len(data["bone_names"])
    assert data["world"].shape == data["skin"].shape == (bones, 4, 4)
    assert data["heads"].shape == data["tails"].shape == (bones, 3)
    assert data["positions"].shape[1] == 3 and len(data["positions"]) >= 5000
    # Column vectors: the last row of every matrix is (0, 0, 0, 1).
    assert np.allclose(data["world"][:, 3], [0, 0, 0, 1]) and np.allclose(data["skin"][:, 3], [0, 0, 0, 1])
    # The walk moves bones at frame 3, so this is not the bind pose.
    bind = np.load(_pose(tmp_path, "bind.npz"))
    assert not np.allclose(data["world"], bind["world"])
    # S = W @ inv(B): with no clip W is the rest pose, which for the demo (glTF) is its bind pose to
    # float32 precision (the file's nodes and inverse bind matrices), so S @ W_rest = W.
    assert np.allclose(data["skin"] @ bind["world"], data["world"], atol=1e-6)
    assert np.allclose(bind["skin"], np.eye(4), atol=1e-6)
    # Heads are the posed joints: S applied to the bind heads.
    bind_heads = np.concatenate([bind["heads"], np.ones((bones, 1))], axis=1)
    assert np.allclose(np.einsum("bij,bj->bi", data["skin"], bind_heads)[:, :3], data["heads"])
    assert data["bone_names"].dtype.kind == "U" and data["parents"].dtype.kind == "i"


def _pose(tmp_path, name, *extra):
    out = tmp_path / name
    assert main(["pose", "--demo", *extra, "-o", str(out)]) == 0
    return out


def test_pose_time_and_frame_agree_on_a_key(tmp_path):
    by_frame = np.load(_pose(tmp_path, "a.npz", "--clip", "0", "--frame", "6"))
    by_time = np.load(_pose(tmp_path, "b.npz", "--clip", "walk", "--time", "0.5"))
    assert np.allclose(by_frame["positions"], by_time["positions"], atol=1e-6)


def test_pose_json_has_the_same_keys(tmp_path):
    out = tmp_path / "pose.json"
    assert main(["pose", "--demo", "--time", "0.25", "-o", str(out)]) == 0
    data = json.loads(out.read_text())
    assert set(data) == {"positions", "bone_names", "parents", "world", "skin", "heads", "tails",
                         "morph_weights"}
    assert np.array(data["world"]).shape == (DEMO_BONES, 4, 4)


def test_pose_obj_writes_vertices_and_faces(tmp_path):
    out = tmp_path / "pose.obj"
    assert main(["pose", "--demo", "--time", "0.25", "-o", str(out)]) == 0
    lines = out.read_text().splitlines()
    vertices = [line for line in lines if line.startswith("v ")]
    faces = [line for line in lines if line.startswith("f ")]
    assert len(vertices) >= 5000 and len(faces) > 0


def test_pose_glb_is_the_posed_mesh_as_a_static_gltf(tmp_path):
    from app import loading

    npz, glb = tmp_path / "pose.npz", tmp_path / "pose.glb"
    assert main(["pose", "--demo", "--time", "0.25", "-o", str(npz)]) == 0
    assert main(["pose", "--demo", "--time", "0.25", "-o", str(glb)]) == 0
    static = loading.load([glb])
    assert not static.clips and static.skeleton.names == ["body"], "one mesh node, no skin joints"
    # The demo is Y-up like glTF: the vertices come back as posed, in file order.
    assert np.allclose(static.meshes[0].positions, np.load(npz)["positions"], atol=1e-5)


@pytest.mark.parametrize("args", [
    ["pose", "--demo", "--frame", "1", "--time", "0.5", "-o", "x.npz"],
    ["pose", "--demo", "-o", "x.txt"],
    ["pose", "--demo", "--clip", "nope", "--frame", "0", "-o", "x.npz"],
    ["pose", "--demo", "--clip", "walk", "--frame", "999", "-o", "x.npz"],
    ["render", "--demo", "--size", "big", "-o", "x.png"],
    ["info"],
])
def test_bad_arguments_exit_2(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert exit_status(args) == 2


def test_unreadable_files_exit_3_with_one_line(tmp_path):
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(bytes(range(256)) * 4)
    result = run_cli("info", str(garbage))
    assert result.returncode == 3
    assert "garbage.bin" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    missing = run_cli("info", str(tmp_path / "missing.glb"))
    assert missing.returncode == 3 and "missing.glb" in missing.stderr


def test_version_and_help():
    version = run_cli("--version")
    assert version.returncode == 0 and "boneyard" in version.stdout
    assert run_cli("--help").returncode == 0
    assert run_cli("render", "--help").returncode == 0


def test_headless_modules_never_import_qt():
    code = ("import sys, app.cli.commands, app.formats, app.pose, app.render.offscreen, app.export.gltf; "
            "from app.cli.main import main; "
            "assert not any(m.startswith('PySide6') for m in sys.modules), 'Qt was imported'")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_app_without_display_says_how_to_render(monkeypatch):
    env = {k: v for k, v in __import__("os").environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    result = subprocess.run([sys.executable, "-m", "app"], capture_output=True, text=True, timeout=60,
                            env=env)
    assert result.returncode != 0
    assert "no display" in result.stderr and "boneyard render" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_convert_check_reports_the_worst_vertex_error(tmp_path, capsys):
    import re

    from app import loading, resources
    from app.pose import posed_positions, rest_pose

    assert main(["convert", "--demo", "-o", str(tmp_path / "demo.glb"), "--check"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    match = re.fullmatch(r"check: worst vertex error (\S+) \((\S+) of size\) at clip (.+) frame (\d+)", last)
    assert match, last
    demo = loading.load(resources.demo_paths())
    rest = posed_positions(demo, rest_pose(demo))
    diagonal = float(np.linalg.norm(rest.max(axis=0) - rest.min(axis=0)))
    error, fraction = float(match[1]), float(match[2])
    assert error <= 1e-5 * diagonal and fraction == pytest.approx(error / diagonal, rel=1e-2, abs=1e-12)
    assert match[3] in [clip.name for clip in demo.clips]
    assert int(match[4]) < demo.clips[[c.name for c in demo.clips].index(match[3])].frame_count


def test_convert_check_without_clips_is_at_bind_pose(tmp_path, capsys):
    from app import loading, resources
    from app.export.gltf import export_gltf

    demo = loading.load(resources.demo_paths())
    export_gltf(demo, tmp_path / "still.glb", clips=[])
    assert main(["convert", str(tmp_path / "still.glb"), "-o", str(tmp_path / "again.glb"), "--check"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("check: worst vertex error ") and last.endswith(" of size) at bind pose")


@pytest.mark.parametrize("show_hidden", [False, True])
def test_convert_check_compares_only_the_meshes_written(tmp_path, capsys, show_hidden):
    """A mesh marked not rendered is left out of the file unless --show-hidden; the check must compare
    the same meshes (it used to fail on real NWN creatures whose shadow meshes have render 0)."""
    import re

    from tests.formats.test_nwn_mdl import model_tree, walk_animation
    from tests.writers.nwn_ascii_writer import write_ascii_mdl

    tree = model_tree()
    tree.children[0].children[0].render = 0  # torso_g: 3 of the model's 7 vertices
    source = tmp_path / "c_test.mdl"
    source.write_bytes(write_ascii_mdl("c_test", tree, [walk_animation()]))
    output = tmp_path / "c_test.glb"
    arguments = ["convert", str(source), "-o", str(output), "--check"] + ["--show-hidden"] * show_hidden
    assert main(arguments) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    match = re.fullmatch(r"check: worst vertex error (\S+) \(\S+ of size\) at clip walk frame \d+", last)
    assert match and float(match[1]) < 1e-5, last
    assert main(["info", str(output), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["vertices"] == (7 if show_hidden else 4)
