"""Hostile inputs at the edges of what the readers and the command line take: a glTF buffer URI that
is a symlink loop, JSON integers too large for a float, a sidecar buffer far larger than its document
needs, thousands of NWN animations of one name, output names longer than the file system allows,
abbreviated options, frame rates that would overflow a file's times, a 12000×12000 texture and a
ragdoll profile saved over itself. Each ends in exit 0 (with a warning) or exit 3 (2 for a bad
option) with one line, quickly."""

from __future__ import annotations

import base64
import json
import struct
import time

import numpy as np
import pytest
from PIL import Image

from app.physics.profile_json import save_profile
from tests.helpers import exit_status
from tests.formats.test_c3de import BIND, BONE0, BONE1, HEADS, POSITIONS, TAILS, WEIGHT0, skinning_frames
from tests.physics.test_physics_profile import three_bone_profile
from tests.writers.c3de_writer import write_bones_2010, write_mesh

#: Longest a command may take on a file under 3 MB, seconds.
QUICK = 2.0
TRIANGLE = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0)


def triangle_document(uri: str, byte_length: int = len(TRIANGLE)) -> dict:
    """A glTF document of one triangle whose 36-byte buffer is at ``uri``."""
    return {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
            "nodes": [{"mesh": 0}], "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
            "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                           "min": [0, 0, 0], "max": [1, 1, 0]}],
            "bufferViews": [{"buffer": 0, "byteLength": len(TRIANGLE)}],
            "buffers": [{"uri": uri, "byteLength": byte_length}]}


def embedded_uri() -> str:
    return "data:application/octet-stream;base64," + base64.b64encode(TRIANGLE).decode()


def run(args: list[str], capsys) -> tuple[int, list[str], float]:
    """``boneyard ARGS``: exit status, the lines on stderr, seconds taken."""
    started = time.perf_counter()
    status = exit_status([str(arg) for arg in args])
    elapsed = time.perf_counter() - started
    return status, capsys.readouterr().err.strip().splitlines(), elapsed


def assert_one_line_exit_3(status: int, lines: list[str], elapsed: float, *expected: str) -> None:
    assert status == 3 and len(lines) == 1, lines
    assert all(text in lines[0] for text in expected), lines[0]
    assert elapsed < QUICK


def test_buffer_uri_naming_a_symlink_loop(tmp_path, capsys):
    (tmp_path / "loop.bin").symlink_to("loop.bin")
    (tmp_path / "model.gltf").write_text(json.dumps(triangle_document("loop.bin")))
    assert_one_line_exit_3(*run(["info", tmp_path / "model.gltf"], capsys), "buffers[0].uri", "loop.bin")


@pytest.mark.parametrize("member, value", [
    ("translation", "[{big}, 0, 0]"),
    ("matrix", "[{big}, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]"),
    ("translation", "[-{big}, 0, 0]"),
])
@pytest.mark.parametrize("digits", [400, 5000])  # 5,000 digits: past Python's int parsing limit too
def test_json_integer_too_large_for_a_float(tmp_path, capsys, member, value, digits):
    document = triangle_document(embedded_uri())
    document["nodes"][0][member] = "VALUE"
    text = json.dumps(document).replace('"VALUE"', value.format(big="9" * digits))
    (tmp_path / "model.gltf").write_text(text)
    assert_one_line_exit_3(*run(["info", tmp_path / "model.gltf"], capsys), f"nodes[0].{member}")


@pytest.fixture
def three_gib_file(tmp_path):
    """A 3 GiB buffer file (sparse: no disk is used) whose first bytes are the triangle."""
    path = tmp_path / "huge.bin"
    with open(path, "wb") as handle:
        handle.write(TRIANGLE)
        handle.truncate(3 << 30)
    return path


def test_sidecar_buffer_longer_than_the_file_is_refused_before_reading(tmp_path, capsys, three_gib_file):
    (tmp_path / "model.gltf").write_text(json.dumps(triangle_document("huge.bin", 4 << 30)))
    assert_one_line_exit_3(*run(["info", tmp_path / "model.gltf"], capsys),
                           f"byteLength is {4 << 30} but {3 << 30} bytes")


def test_sidecar_buffer_file_is_read_only_as_far_as_the_document_needs(tmp_path, capsys, three_gib_file):
    (tmp_path / "model.gltf").write_text(json.dumps(triangle_document("huge.bin")))
    status, lines, elapsed = run(["info", "--json", tmp_path / "model.gltf"], capsys)
    assert status == 0 and elapsed < QUICK


def test_sidecar_buffer_without_a_byte_length(tmp_path, capsys, three_gib_file):
    document = triangle_document("huge.bin")
    del document["buffers"][0]["byteLength"]
    (tmp_path / "model.gltf").write_text(json.dumps(document))
    assert_one_line_exit_3(*run(["info", tmp_path / "model.gltf"], capsys), "buffers[0].byteLength")


def test_glb_is_read_only_as_far_as_its_header_says(tmp_path, capsys):
    document = triangle_document("unused")
    del document["buffers"][0]["uri"]
    text = json.dumps(document).encode()
    text += b" " * (-len(text) % 4)
    chunks = struct.pack("<II", len(text), 0x4E4F534A) + text + struct.pack("<II", 36, 0x004E4942) + TRIANGLE
    path = tmp_path / "model.glb"
    with open(path, "wb") as handle:  # the GLB, then 3 GiB of (sparse) bytes after its end
        handle.write(b"glTF" + struct.pack("<II", 2, 12 + len(chunks)) + chunks)
        handle.truncate(3 << 30)
    status, _, elapsed = run(["info", path], capsys)
    assert status == 0 and elapsed < QUICK


def duplicated_animations(count: int) -> str:
    """An NWN ASCII model (a root and an arm) with ``count`` animations all named 'walk'."""
    lines = ["newmodel m", "setsupermodel m NULL", "classification character", "beginmodelgeom m",
             "node dummy m", "  parent NULL", "endnode",
             "node dummy arm", "  parent m", "  position 0 0 0", "endnode", "endmodelgeom m"]
    for index in range(count):
        lines += ["newanim walk m", "  length 1.0", "  transtime 0.25", "  animroot m",
                  "node dummy m", "  parent NULL", "endnode",
                  "node dummy arm", "  parent m", "  positionkey 3", "    0.0 0 0 0",
                  f"    0.5 {index} 0 1", "    1.0 0 0 2", "endnode", "doneanim walk m"]
    return "\n".join(lines + ["donemodel m"]) + "\n"


def test_nwn_ascii_duplicate_animation_names_load_in_linear_time(tmp_path, capsys):
    seconds = {}
    for count in (1000, 8000):
        path = tmp_path / f"dup{count}.mdl"
        path.write_text(duplicated_animations(count))
        assert path.stat().st_size < 3_000_000
        best = []
        for _ in range(2):
            # CPU seconds, not wall time: the bound is on the work done, which other jobs on a busy
            # machine do not stretch (a hang would block a FIFO test, not this one).
            started = time.process_time()
            assert exit_status(["info", "--json", str(path)]) == 0
            best.append(time.process_time() - started)
            printed = capsys.readouterr().out
        seconds[count] = min(best)
    # Eight times the animations: linear time is about 8 times as long, the old quadratic loop 30-60.
    assert seconds[8000] < 20 * seconds[1000], seconds
    clips = json.loads(printed)["clips"]
    assert [clip["name"] for clip in clips] == ["walk"] + [f"walk ({n})" for n in range(2, 8001)]


def test_duplicate_names_skip_suffixes_already_used(tmp_path, capsys):
    text = duplicated_animations(4).replace("newanim walk m", "newanim NAME m")
    for name in ("walk", "walk (2)", "walk", "walk"):
        text = text.replace("newanim NAME m", f"newanim {name} m", 1)
    (tmp_path / "m.mdl").write_text(text)
    assert exit_status(["info", "--json", str(tmp_path / "m.mdl")]) == 0
    clips = json.loads(capsys.readouterr().out)["clips"]
    assert [clip["name"] for clip in clips] == ["walk", "walk (2)", "walk (3)", "walk (4)"]


LONG = "x" * 300


@pytest.mark.parametrize("args", [
    ["render", "--demo", "--size", "64x48", "-o", f"{LONG}.png"],
    ["pose", "--demo", "-o", f"{LONG}.npz"],
    ["convert", "--demo", "-o", f"{LONG}.glb"],
    ["ragdoll", "--demo", "--seconds", "0.05", "-o", "run.npz", "--save-profile", f"{LONG}.json"],
    ["render", "--demo", "--size", "64x48", "-o", f"{LONG}/out.png"],
])
def test_output_name_longer_than_the_file_system_allows(tmp_path, capsys, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    assert_one_line_exit_3(*run(args, capsys), "cannot write", "too long")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("args, option", [
    (["render", "--demo", "--bone", "-o", "out.png"], "--bone"),
    (["ragdoll", "--demo", "--sec", "1", "-o", "out.npz"], "--sec"),
    (["info", "--demo", "--js"], "--js"),
])
def test_options_are_never_abbreviated(tmp_path, capsys, monkeypatch, args, option):
    monkeypatch.chdir(tmp_path)
    assert exit_status(args) == 2
    assert f"unrecognized arguments: {option}" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def c3de_pair(folder) -> list[str]:
    """A C3DE mesh and a bones file of three frames (C3DE stores frames without times)."""
    (folder / "mesh.c3d").write_bytes(write_mesh(POSITIONS, BONE0, BONE1, WEIGHT0))
    (folder / "bones.c3d").write_bytes(write_bones_2010(BIND, HEADS, TAILS, skinning_frames(3), [-1, 0]))
    return [str(folder / "mesh.c3d"), str(folder / "bones.c3d")]


@pytest.mark.parametrize("value", ["1e-300", "0.0009", "5e-324"])
def test_frame_rate_that_would_overflow_frame_times_is_an_option_error(tmp_path, capsys, value):
    assert exit_status(["info", *c3de_pair(tmp_path), "--fps", value]) == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "argument --fps" in error and "at least 0.001" in error and "c3d" not in error


def test_slowest_frame_rate_accepted_gives_finite_times(tmp_path, capsys):
    assert exit_status(["info", "--json", *c3de_pair(tmp_path), "--fps", "0.001"]) == 0
    (clip,) = json.loads(capsys.readouterr().out)["clips"]
    assert clip["frames"] == 3 and clip["duration"] == pytest.approx(2 / 0.001)


def test_texture_of_12000_pixels_a_side_is_downscaled_with_a_warning(tmp_path, capsys):
    picture = tmp_path / "big.png"
    pixels = np.zeros((12000, 12000, 3), np.uint8)
    pixels[:, 6000:] = (200, 100, 50)  # left half black, right half orange
    Image.fromarray(pixels).save(picture, compress_level=1)
    del pixels
    assert picture.stat().st_size < 3_000_000
    started = time.process_time()  # CPU seconds: other jobs on a busy machine do not stretch them
    assert exit_status(["info", "--json", "--demo", "--texture", str(picture)]) == 0
    assert time.process_time() - started < QUICK
    facts = json.loads(capsys.readouterr().out)
    assert any("12000×12000 is larger than 8192 on a side: downscaled to 6000×6000" in warning
               for warning in facts["warnings"])
    assert facts["mesh_list"][0]["texture_path"] == str(picture)
    from app.formats import textures

    image, _ = textures.read_image(picture)
    # Halved by averaging 2×2 blocks: the edge at column 6000 falls between blocks, so it stays sharp.
    assert image.shape == (6000, 6000, 4)
    assert (image[:, :3000] == (0, 0, 0, 255)).all() and (image[:, 3000:] == (200, 100, 50, 255)).all()


def test_profile_saved_over_itself_is_refused_as_an_output_over_an_input(tmp_path, capsys):
    profile = tmp_path / "p.json"
    save_profile(three_bone_profile(), profile)  # bones bone0..bone2: none of them the demo's
    text = profile.read_text() + "\n"
    profile.write_text(text)
    status, lines, _ = run(["ragdoll", "--demo", "--profile", profile, "--save-profile", profile,
                            "-o", tmp_path / "run.npz"], capsys)
    assert status == 2 and len(lines) == 1 and "is the input file" in lines[0]
    assert profile.read_text() == text
    assert not (tmp_path / "run.npz").exists()
