"""Hostile inputs to the loaders: FIFOs, devices, files given twice, glTF buffers pointing anywhere,
null entries, wrong JSON types, singular and huge transforms. Each is refused with the reader's own
one-line error (or loads with a warning), never a traceback, a hang or NaN."""

from __future__ import annotations

import json
import os
import warnings

import numpy as np
import pytest

from app import loading, maths
from app.formats import textures
from app.formats import bnf
from app.formats.registry import LoadOptions, ReadError, SniffedFile
from app.model import Clip, Mesh, Track
from app.pose import evaluate, posed_positions
from tests.helpers import read_gltf as read
from tests.writers import text_formats as write
from tests.writers.gltf_writer import write_gltf

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")
TRIANGLE = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def skinned_gltf(folder, name="case.gltf", **node):
    """Nodes root → "a" (given ``node`` members) and a mesh skinned to "a" and the root."""
    document = {"nodes": [{"name": "root", "children": [1]}, {"name": "a", **node},
                          {"name": "m", "mesh": 0, "skin": 0}],
                "scenes": [{"nodes": [0, 2]}],
                "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}}]}],
                "skins": [{"joints": [0, 1]}]}
    return write_gltf(folder, document, [(TRIANGLE, "VEC3", 5126),
                                         (np.array([[1, 0, 0, 0]] * 3), "VEC4", 5121),
                                         (np.array([[0.5, 0.5, 0, 0]] * 3, float), "VEC4", 5126)], name)


def edit_json(path, change):
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document))
    return path


def refused(path, *fragments):
    with pytest.raises(ReadError) as caught:
        read(path)
    message = str(caught.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message
    return message


def with_buffer_file(tmp_path, uri, data=None):
    """The skinned glTF with its buffer moved to ``uri`` (``data`` written there when given)."""
    path = skinned_gltf(tmp_path)
    document = json.loads(path.read_text())
    payload = document["buffers"][0]["uri"].split(",", 1)[1]
    if data is not None:
        import base64
        (tmp_path / data).write_bytes(base64.b64decode(payload))
    document["buffers"][0]["uri"] = uri
    path.write_text(json.dumps(document))
    return path


# --- entry checks ---------------------------------------------------------------------------------

@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_before_it_is_opened(tmp_path):
    fifo = tmp_path / "model.lgw"
    os.mkfifo(fifo)
    with pytest.raises(ReadError, match=r"model\.lgw: not a regular file \(a FIFO\)"):
        loading.load([fifo])


def test_a_folder_and_a_device_are_refused(tmp_path):
    with pytest.raises(ReadError, match=r"not a regular file \(a folder\)"):
        loading.load([tmp_path])
    if os.path.exists("/dev/zero"):
        with pytest.raises(ReadError, match=r"not a regular file \(a device or socket\)"):
            loading.load(["/dev/zero"])


def test_the_same_file_twice_is_refused(tmp_path):
    write.bnf(tmp_path / "b.bnf", [-1, 0], np.zeros((2, 3)))
    write.anm(tmp_path / "a.anm", [0.0], np.tile([0, 0, 0, 1.0], (1, 2, 1)))
    os.symlink(tmp_path / "a.anm", tmp_path / "link.anm")
    with pytest.raises(ReadError, match="the same file is given twice"):
        loading.load([tmp_path / "b.bnf", tmp_path / "a.anm", tmp_path / "link.anm"])
    with pytest.raises(ReadError, match="the same file is given twice"):
        loading.load([tmp_path / "b.bnf", tmp_path / "a.anm", tmp_path / "." / "a.anm"])


@pytest.mark.parametrize("role, name", [("bones", "b2.bnf"), ("parameters", "p2.prm")])
def test_two_bnf_or_two_prm_files_are_refused(tmp_path, role, name):
    write.bnf(tmp_path / "b.bnf", [-1, 0], np.zeros((2, 3)))
    write.bnf(tmp_path / "b2.bnf", [-1, 0], np.ones((2, 3)))
    write.prm(tmp_path / "p.prm", [(0, 1, 1, 1)])
    write.prm(tmp_path / "p2.prm", [(1, 0, 1, 1)])
    files = [SniffedFile(tmp_path / "b.bnf", "bnf", "bones"),
             SniffedFile(tmp_path / "p.prm", "bnf", "parameters"), SniffedFile(tmp_path / name, "bnf", role)]
    with pytest.raises(ReadError, match=rf"{name}: only one {role} file can be opened at a time"):
        bnf.load(files, LoadOptions())


# --- glTF buffers -----------------------------------------------------------------------------------

def test_buffer_in_a_sidecar_file_loads(tmp_path):
    model = read(with_buffer_file(tmp_path, "data%20file.bin", data="data file.bin"))
    np.testing.assert_allclose(model.meshes[0].positions, TRIANGLE)


def test_buffer_reads_only_byte_length_bytes(tmp_path):
    path = with_buffer_file(tmp_path, "data.bin", data="data.bin")
    with open(tmp_path / "data.bin", "ab") as handle:
        handle.write(b"\0" * 100_000)
    np.testing.assert_allclose(read(path).meshes[0].positions, TRIANGLE)
    edit_json(path, lambda d: d["buffers"][0].update(byteLength=200_000))
    refused(path, "buffers[0].byteLength is 200000 but 100096 bytes are present")


@pytest.mark.parametrize("uri, fragment", [
    ("/dev/zero", "is not a path relative to the glTF file"),
    ("file:///etc/hostname", "is not a path relative to the glTF file"),
    ("../outside.bin", "leads outside the glTF file's folder"),
    ("sub/../../outside.bin", "leads outside the glTF file's folder"),
    ("missing.bin", "missing.bin: cannot open"),
])
def test_buffer_uris_outside_the_folder_tree_are_refused(tmp_path, uri, fragment):
    folder = tmp_path / "model"
    folder.mkdir()
    (tmp_path / "outside.bin").write_bytes(b"\0" * 1000)
    refused(with_buffer_file(folder, uri), "buffers[0].uri", fragment)


def test_buffer_link_leading_out_of_the_folder_is_refused(tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    with_buffer_file(tmp_path, "data.bin", data="data.bin")
    os.symlink(tmp_path / "data.bin", folder / "link.bin")
    refused(with_buffer_file(folder, "link.bin"), "leads outside the glTF file's folder")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_buffer_fifo_is_refused(tmp_path):
    os.mkfifo(tmp_path / "pipe.bin")
    refused(with_buffer_file(tmp_path, "pipe.bin"), "buffers[0].uri: pipe.bin: not a regular file (a FIFO)")


# --- glTF schema --------------------------------------------------------------------------------------

@pytest.mark.parametrize("change, fragment", [
    (lambda d: d.update(buffers=[None]), "buffers[0]: expected an object, got null"),
    (lambda d: d.update(nodes=[None]), "nodes[0]: expected an object, got null"),
    (lambda d: d["nodes"][0].update(children=1),
     "nodes[0].children: expected a list of integers, got an integer"),
    (lambda d: d["nodes"][0].update(children=[1.5]),
     "nodes[0].children[0]: expected an integer, got a number"),
    (lambda d: d["skins"][0].update(joints=0), "skins[0].joints: expected a list of integers"),
    (lambda d: d["meshes"][0].update(primitives=[7]),
     "meshes[0].primitives[0]: expected an object, got an integer"),
    (lambda d: d["meshes"][0]["primitives"][0].update(attributes={"POSITION": "0"}),
     "meshes[0].primitives[0].attributes.POSITION: expected an accessor index, got a string"),
    (lambda d: d["scenes"][0].update(nodes=None), "scenes[0].nodes: expected a list of integers, got null"),
    (lambda d: d["accessors"][0].update(count=True),
     "accessors[0].count: expected an integer, got true/false"),
    (lambda d: d.update(animations={}), "animations: expected a list of objects, got an object"),
    (lambda d: d["nodes"][1].update(translation="far"), "nodes[1].translation: expected a list of numbers"),
])
def test_schema_errors_name_the_json_path(tmp_path, change, fragment):
    refused(edit_json(skinned_gltf(tmp_path), change), "does not follow the glTF schema", fragment)


# --- glTF transforms ----------------------------------------------------------------------------------

def test_zero_scale_node_loads_with_a_warning_and_poses_finite(tmp_path):
    """A node with zero scale at rest that no skin gives an inverse bind matrix: its rest frame is its bind
    frame, and singular."""
    document = {"nodes": [{"name": "root", "children": [1]},
                          {"name": "a", "mesh": 0, "scale": [0.0, 0.0, 0.0], "translation": [0.0, 2.0, 0.0]}],
                "scenes": [{"nodes": [0]}], "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}]}
    model = read(write_gltf(tmp_path, document, [(TRIANGLE, "VEC3", 5126)]))
    assert any("nodes[1] 'a'" in warning and "singular" in warning for warning in model.warnings)
    # the bone keeps its rest position with an unscaled frame
    np.testing.assert_allclose(model.skeleton.bind_world[1], [[1, 0, 0, 0], [0, 1, 0, 2], [0, 0, 1, 0],
                                                              [0, 0, 0, 1]])
    positions = posed_positions(model, evaluate(model, None, 0.0))
    assert np.all(np.isfinite(np.concatenate(positions)))


@pytest.mark.parametrize("member, value", [("translation", [1e308, 0, 0]), ("scale", [1e300, 1, 1]),
                                           ("matrix", [1e19] + [0] * 15)])
def test_huge_node_values_are_refused(tmp_path, member, value):
    refused(skinned_gltf(tmp_path, **{member: value}), f"nodes[1].{member}", "within ±1e+18")


def test_scales_overflowing_down_a_chain_are_refused(tmp_path):
    document = {"nodes": [{"name": f"n{i}", "scale": [1e17] * 3, **({"children": [i + 1]} if i < 19 else {})}
                          for i in range(20)]}
    path = write_gltf(tmp_path, document, [])
    refused(path, "nodes[1]: its rest world matrix is beyond ±1e+18")


def test_huge_vertex_positions_are_refused(tmp_path):
    path = skinned_gltf(tmp_path)
    document = json.loads(path.read_text())
    path = write_gltf(tmp_path, {k: document[k] for k in ("nodes", "scenes", "meshes", "skins")},
                      [(TRIANGLE * 1e30, "VEC3", 5126), (np.array([[1, 0, 0, 0]] * 3), "VEC4", 5121),
                       (np.array([[1.0, 0, 0, 0]] * 3), "VEC4", 5126)])
    refused(path, "accessors[0]", "beyond ±1e+18")


# --- memory in proportion to the file ---------------------------------------------------------------

def peak_bytes(function) -> int:
    """Peak memory Python and numpy allocate while ``function`` runs."""
    import tracemalloc
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_c3de_header_on_zeros_costs_memory_in_proportion(tmp_path):
    """A 2010 bones header (1 frame, 2 bones) followed by 16 MB of zeros: the parent list's count is
    whatever bytes remain, so it is checked before anything is read."""
    path = tmp_path / "zeros.c3d"
    size = 16 << 20
    with open(path, "wb") as handle:
        handle.write((1).to_bytes(4, "little") + (2).to_bytes(4, "little"))
        handle.truncate(size)

    def load():
        model = loading.load([path])
        assert any("the parent list has" in warning for warning in model.warnings)
    assert peak_bytes(load) < 1.5 * size


def test_sniffing_a_big_file_reads_its_head_only(tmp_path):
    path = tmp_path / "sparse.txt"
    size = 16 << 20
    with open(path, "wb") as handle:
        handle.write(b"// BonesPro structure\n2\n3\n<a>\n*\n")
        handle.truncate(size)

    def load():
        with pytest.raises(ReadError, match="not a recognised model"):
            loading.load([path])
    assert peak_bytes(load) < size / 4


def test_model_parts_refuse_values_past_the_bounds():
    """What any reader builds: vertex positions past float32's range, track keys and clip matrices
    beyond ±1e18 or not finite are refused (the readers turn the ValueError into their ReadError)."""
    with np.errstate(over="ignore"):
        with pytest.raises(ValueError, match="mesh 'm' positions: a value is not finite or beyond"):
            Mesh("m", np.array([[1e300, 0.0, 0.0]]), np.zeros((1, 1)), np.ones((1, 1)))
    with pytest.raises(ValueError, match="mesh 'm' weights: a value is not finite or beyond"):
        Mesh("m", np.zeros((1, 3)), np.zeros((1, 2)), np.array([[np.inf, 1.0]]))
    with pytest.raises(ValueError, match="bone 0 translation values: a value is not finite"):
        Track(bone=0, translation=(np.array([0.0]), np.array([[1e19, 0.0, 0.0]])))
    with pytest.raises(ValueError, match="clip 'c' world matrices: a value is not finite"):
        Clip("c", "matrices", times=np.array([0.0]), world=np.full((1, 1, 4, 4), np.inf))
    with pytest.raises(ValueError, match="clip 'c' times: a value is not finite"):
        Clip("c", "matrices", times=np.array([0.0, np.inf]), world=np.tile(np.eye(4), (2, 1, 1, 1)))
    # one NaN among finite values, a negative value past the bound, -inf: each refused on its own
    world = np.tile(np.eye(4), (3, 2, 1, 1))
    for bad in (np.nan, -1e19, -np.inf):
        spoiled = world.copy()
        spoiled[2, 1, 0, 3] = bad
        with pytest.raises(ValueError, match="clip 'c' world matrices: a value is not finite"):
            Clip("c", "matrices", times=np.array([0.0, 1.0, 2.0]), world=spoiled)
    assert Clip("c", "matrices", times=np.array([0.0, 1.0, 2.0]), world=world * 1e18).world.max() == 1e18
    assert Mesh("empty", np.zeros((0, 3)), np.zeros((0, 1)), np.zeros((0, 1))).vertex_count == 0


def test_texture_names_leading_out_of_the_folder_find_nothing(tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    (tmp_path / "secret.png").write_bytes(b"not for the model")
    (folder / "link.png").symlink_to(tmp_path / "secret.png")
    (folder / "skin.png").write_bytes(b"the model's")
    assert textures.find_texture("../secret.png", [folder]) is None
    assert textures.find_texture(str(tmp_path / "secret.png"), [folder]) is None
    assert textures.find_texture("link.png", [folder]) is None
    assert textures.find_texture("sub/../skin.png", [folder]) == folder / "skin.png"
    assert textures.find_texture("../model/skin.png", [folder]).resolve() == folder / "skin.png"


def test_nwn_ascii_weight_that_is_no_number(tmp_path):
    """A weight the '#' of MSVC's NaN spellings starts (once a StopIteration out of the reader)."""
    from tests.formats.test_nwn_ascii import every_kind_tree
    from tests.writers.nwn_ascii_writer import write_ascii_mdl

    text = write_ascii_mdl("k", every_kind_tree(), [])
    lines = text.split(b"\n")
    row = next(index for index, line in enumerate(lines) if line.strip().startswith(b"weights")) + 1
    lines[row] = lines[row].split()[0] + b" #part-number"
    (tmp_path / "k.mdl").write_bytes(b"\n".join(lines))
    expected = rf"k\.mdl:{row + 1}: weights \d+: row 1: expected 'bone weight' pairs"
    with pytest.raises(ReadError, match=expected):
        loading.load([tmp_path / "k.mdl"])


def test_texture_name_too_long_for_the_system_finds_nothing(tmp_path):
    assert textures.find_texture("1" * 5000, [tmp_path]) is None
    assert textures.find_texture("a/" * 3000 + "skin.png", [tmp_path]) is None


def test_srgb_conversion_of_colours_outside_0_to_1():
    """Negative and over-bright colours (an LGW DEFAULT_COLOR may hold any number) convert without
    a NaN or a numpy warning: below 0.04045 the linear segment, above 1 the curve continued."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        low, middle, high = maths.srgb_to_linear((-0.5, 0.5, 2.0))
    assert low == pytest.approx(-0.5 / 12.92)
    assert middle == pytest.approx(((0.5 + 0.055) / 1.055) ** 2.4)
    assert high == pytest.approx(((2.0 + 0.055) / 1.055) ** 2.4)


# --- FBX and BVH --------------------------------------------------------------------------------------

BVH_JOINT = "HIERARCHY\nROOT hips\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n}\nMOTION\n"


def test_a_bvh_frame_count_past_the_file_is_refused_before_allocating(tmp_path):
    path = tmp_path / "huge.bvh"
    path.write_text(BVH_JOINT + "Frames: 4000000000\nFrame Time: 0.01\n0 0 0\n")

    def load():
        with pytest.raises(ReadError, match="cannot fit"):
            loading.load([path])
    assert peak_bytes(load) < 8 << 20  # the count asks for 32 GB; imports take a few MB


def test_a_bvh_value_that_is_not_finite_names_its_line(tmp_path):
    path = tmp_path / "nan.bvh"
    path.write_text(BVH_JOINT + "Frames: 2\nFrame Time: 0.01\n0 0 0\n0 inf 0\n")
    with pytest.raises(ReadError) as caught:
        loading.load([path])
    assert caught.value.line == 11


def test_fbx_records_nesting_past_the_file_are_refused_with_their_offset(tmp_path):
    """A binary FBX whose first record claims to end far past the file (a record bomb): ufbx gives an
    empty scene or refuses it; either way the error names the record's offset."""
    path = tmp_path / "bomb.fbx"
    header = b"Kaydara FBX Binary  \x00\x1a\x00" + (7500).to_bytes(4, "little")
    record = (1 << 40).to_bytes(8, "little") + (1 << 30).to_bytes(8, "little") + bytes(8) + b"\x03Obj"
    path.write_bytes(header + record + bytes(64))
    with pytest.raises(ReadError) as caught:
        loading.load([path])
    assert caught.value.offset == 27


def test_an_ascii_fbx_of_nested_braces_is_refused_without_recursing(tmp_path):
    path = tmp_path / "deep.fbx"
    path.write_text("; FBX 7.4.0 project file\n" + "A: {\n" * 100_000 + "}\n" * 100_000)
    with pytest.raises(ReadError):
        loading.load([path])
