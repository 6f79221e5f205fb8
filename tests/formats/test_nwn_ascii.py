"""NWN ASCII MDL reader: files from tests/writers/nwn_ascii_writer.py; expected poses from the explicit
matrices of test_nwn_mdl, and the same content written as binary must give the same Model."""

from __future__ import annotations

import numpy as np
import pytest

from app import formats, loading
from app.formats.nwn import ascii as nwn_ascii
from app.formats.registry import ReadError
from app.pose import evaluate, posed_positions
from tests.formats.test_nwn_mdl import (cast_animation, expected_positions, model_tree, rotation, save,
                                        walk_animation)
from tests.writers.nwn_ascii_writer import write_ascii_mdl
from tests.writers.nwn_writer import WAnimation, WNode, write_mdl

TIMES = [0.0, 0.25, 0.5, 0.8, 1.0, 1.3, 2.0]


def ascii_file(tmp_path, name="c_test.mdl", **options):
    return save(tmp_path, name, write_ascii_mdl("c_test", model_tree(), [walk_animation(), cast_animation()],
                                                **options))


def corner_positions(model, pose) -> np.ndarray:
    """Posed positions of every triangle corner, mesh by mesh (independent of vertex order)."""
    posed = posed_positions(model, pose)
    corners, start = [], 0
    for mesh in model.meshes:
        corners.append(posed[start:start + mesh.vertex_count][mesh.triangles].reshape(-1, 3))
        start += mesh.vertex_count
    return np.concatenate(corners)


@pytest.mark.parametrize("options", [{}, {"key_form": "endlist"}])
def test_poses_match_hand_computed_matrices(tmp_path, options):
    model = loading.load([ascii_file(tmp_path, **options)])
    assert model.format == "nwn_ascii" and model.up_axis == "Z"
    assert [clip.name for clip in model.clips] == ["walk", "cast"]
    np.testing.assert_allclose(posed_positions(model, evaluate(model, None, 0.0)), expected_positions(None),
                               atol=1e-5)
    for time in TIMES:
        pose = evaluate(model, model.clips[0], time)
        np.testing.assert_allclose(posed_positions(model, pose), expected_positions(time), atol=1e-5)
    pose = evaluate(model, model.clips[1], 0.3)
    np.testing.assert_allclose(pose.world[1][:3, :3], rotation((0, 1, 0), 45)[:3, :3], atol=1e-6)


@pytest.mark.parametrize("split_uvs", [False, True])
def test_ascii_and_binary_give_the_same_model(tmp_path, split_uvs):
    binary = loading.load([save(tmp_path, "bin.mdl", write_mdl("c_test", model_tree(),
                                                               [walk_animation(), cast_animation()]))])
    text = loading.load([ascii_file(tmp_path, split_uvs=split_uvs)])
    assert text.skeleton.names == binary.skeleton.names
    np.testing.assert_array_equal(text.skeleton.parents, binary.skeleton.parents)
    np.testing.assert_allclose(text.skeleton.bind_world, binary.skeleton.bind_world, atol=1e-6)
    assert [m.name for m in text.meshes] == [m.name for m in binary.meshes]
    assert [c.name for c in text.clips] == [c.name for c in binary.clips]
    assert [c.events for c in text.clips] == [c.events for c in binary.clips]
    for mesh_text, mesh_binary in zip(text.meshes, binary.meshes):
        corners_text = mesh_text.triangles.ravel()
        corners_binary = mesh_binary.triangles.ravel()
        np.testing.assert_allclose(mesh_text.positions[corners_text], mesh_binary.positions[corners_binary],
                                   atol=1e-6)
        if mesh_binary.uvs is not None:
            np.testing.assert_allclose(mesh_text.uvs[corners_text], mesh_binary.uvs[corners_binary],
                                       atol=1e-6)
        if not split_uvs:
            np.testing.assert_array_equal(mesh_text.joints, mesh_binary.joints)
            np.testing.assert_allclose(mesh_text.weights, mesh_binary.weights, atol=1e-6)
    for clip_text, clip_binary in zip(text.clips, binary.clips):
        for time in TIMES:
            np.testing.assert_allclose(corner_positions(text, evaluate(text, clip_text, time)),
                                       corner_positions(binary, evaluate(binary, clip_binary, time)),
                                       atol=1e-5)


def test_header_animation_fields_and_uvs(tmp_path):
    path = ascii_file(tmp_path, classification="Character", animation_scale=1.14)
    parsed = nwn_ascii.parse(path, path.read_bytes())
    assert (parsed.name, parsed.supermodel_name, parsed.classification) == ("c_test", "", "character")
    assert parsed.animation_scale == pytest.approx(1.14)
    walk = parsed.animations[0]
    assert (walk.name, walk.length, walk.root, walk.transition) == ("walk", 2.0, "c_test", 0.25)
    assert walk.events == [(1.5, "footstep_r"), (0.5, "footstep_l")]
    model = loading.load([path])
    assert model.clips[0].events == [(0.5, "footstep_l"), (1.5, "footstep_r")]
    torso = model.meshes[0]
    assert torso.material.texture == "torso_tex" and torso.visible
    # the file's (u, v) with v measured from the bottom; the model's from the top
    np.testing.assert_allclose(torso.uvs, [[0, 1], [1, 1], [0, 0]], atol=1e-6)


def test_uv_seams_split_vertices(tmp_path):
    text = b"""newmodel quad
setsupermodel quad NULL
beginmodelgeom quad
node dummy quad
  parent NULL
endnode
node trimesh plane
  parent quad
  bitmap grid
  verts 4
    0 0 0
    1 0 0
    1 1 0
    0 1 0
  tverts 5
    0 0 0
    1 0 0
    1 1 0
    0 1 0
    0.5 0.5 0
  faces 2
    0 1 2 1 0 1 2 0
    0 2 3 1 4 2 3 0
endnode
endmodelgeom quad
donemodel quad
"""
    model = loading.load([save(tmp_path, "quad.mdl", text)])
    mesh = model.meshes[0]
    assert mesh.vertex_count == 5  # vertex 0 has two texture vertices
    corners = mesh.triangles.ravel()
    np.testing.assert_allclose(mesh.positions[corners],
                               [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 0, 0], [1, 1, 0], [0, 1, 0]])
    np.testing.assert_allclose(mesh.uvs[corners],
                               [[0, 1], [1, 1], [1, 0], [0.5, 0.5], [1, 0], [0, 0]])


def every_kind_tree() -> WNode:
    square = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], float)
    faces = [[0, 1, 2], [0, 2, 3]]
    kinds = [("mesh01", 0x021), ("dangle01", 0x121), ("anim01", 0x0A1), ("walk01", 0x221)]
    meshes = [WNode(name, flags, (0, 0, 0.5), None, vertices=square, faces=faces) for name, flags in kinds]
    skin = WNode("skin01", 0x061, vertices=square, faces=faces, skin_bones=[["bone_a", None]] * 4,
                 skin_weights=np.ones((4, 1)))
    others = [WNode("light01", 0x003), WNode("emit01", 0x005), WNode("ref01", 0x011)]
    bone = WNode("bone_a", position=(0, 0, 1), orientation=(0, 0, 0, 1))
    return WNode("kinds", children=[bone, *meshes, skin, *others])


def test_every_node_kind(tmp_path):
    tree = every_kind_tree()
    tree.children[1].render = 0
    path = save(tmp_path, "kinds.mdl", write_ascii_mdl("kinds", tree))
    model = loading.load([path])
    kinds = {name: extra["node_type"] for name, extra in zip(model.skeleton.names, model.skeleton.extras)}
    assert kinds == {"kinds": "dummy", "bone_a": "dummy", "mesh01": "trimesh", "dangle01": "dangly",
                     "anim01": "animmesh", "walk01": "aabb", "skin01": "skin", "light01": "light",
                     "emit01": "emitter", "ref01": "reference"}
    assert [mesh.name for mesh in model.meshes] == ["mesh01", "dangle01", "anim01", "skin01"]
    hidden = next(w for w in model.warnings if w.startswith("nodes not drawn"))
    for name in ("walk01", "light01", "ref01"):
        assert name in hidden
    # The emitter is a helper, drawn with View › Emitters: not listed as a node not drawn.
    assert "anim01" not in hidden and "dangle01" not in hidden and "emit01" not in hidden
    assert [helper.name for helper in model.helpers] == ["emit01"]
    assert ("danglymesh 'dangle01': period (none), tightness (none), displacement (none) (expected positive "
            "numbers); drawn without sway") in model.warnings
    assert model.meshes[1].dangly is None
    assert [mesh.visible for mesh in model.meshes] == [False, True, True, True]  # mesh01 has render 0
    skin = model.meshes[3]
    assert set(skin.joints[skin.weights > 0].tolist()) == {model.skeleton.index("bone_a")}


# --- bad input ----------------------------------------------------------------------------------

def _error(tmp_path, text: str) -> ReadError:
    path = save(tmp_path, "bad.mdl", text.encode())
    with pytest.raises(ReadError) as caught:
        loading.load([path])
    assert "\n" not in str(caught.value)
    return caught.value


GOOD = write_ascii_mdl("c_test", model_tree(), [walk_animation()]).decode()


def _line_of(text: str, start: str) -> int:
    return next(number for number, line in enumerate(text.splitlines(), 1) if line.strip().startswith(start))


def test_bad_count(tmp_path):
    text = GOOD.replace("verts 3\n", "verts 5\n", 1)
    error = _error(tmp_path, text)
    assert error.line == _line_of(text, "tverts") and "verts 5" in error.message


def test_face_index_out_of_range(tmp_path):
    line = _line_of(GOOD, "faces 1") + 1
    lines = GOOD.splitlines()
    lines[line - 1] = "    0 1 7 1 0 1 2 0"
    error = _error(tmp_path, "\n".join(lines))
    assert error.line == line and "outside 0..2" in error.message


def test_key_line_cut_short(tmp_path):
    line = _line_of(GOOD, "positionkey") + 2
    lines = GOOD.splitlines()
    lines[line - 1] = "    1.0 0 0.5"
    error = _error(tmp_path, "\n".join(lines))
    assert error.line == line and "should hold 4 numbers" in error.message


@pytest.mark.parametrize("change, expected", [
    (lambda t: t.replace("endnode\nendmodelgeom", "endmodelgeom"), "endnode"),
    (lambda t: t.replace("parent pelvis", "parent nobody", 1), "parent 'nobody'"),
    (lambda t: t.replace("position 0.0 0.0 1.0", "position 0.0 x 1.0", 1), "expected 3 numbers"),
    (lambda t: t.replace("setanimationscale 1.0", "setanimationscale big"), "expected 1 numbers"),
])
def test_other_malformed_files(tmp_path, change, expected):
    assert expected in _error(tmp_path, change(GOOD)).message


def test_sniffed_by_content(tmp_path):
    path = save(tmp_path, "model.txt", GOOD.encode())
    assert formats.sniff(path).format == "nwn_ascii"
    binary = save(tmp_path, "model.bin", write_mdl("c_test", model_tree()))
    assert formats.sniff(binary).format == "nwn_mdl"


def test_scale_keys(tmp_path):
    root = WNode("s", children=[WNode("grow", position=(0, 0, 0), orientation=(0, 0, 0, 1))])
    grow = WNode("grow", keys=[(36, [0.0, 1.0], [[1.0], [3.0]])])
    animation = WAnimation("grow", 1.0, WNode("s", children=[grow]))
    model = loading.load([save(tmp_path, "s.mdl",
                               write_ascii_mdl("s", root, [animation], key_form="endlist"))])
    pose = evaluate(model, model.clips[0], 0.5)
    np.testing.assert_allclose(pose.world[1][:3, :3], 2.0 * np.eye(3), atol=1e-6)


def test_animation_nodes_may_name_parents_the_animation_does_not_list(tmp_path):
    text = GOOD.replace("  parent c_test\n  #part-number 3\n  positionkey",
                        "  parent rootdummy\n  positionkey", 1)
    assert text != GOOD
    model = loading.load([save(tmp_path, "lenient.mdl", text.encode())])
    assert [clip.name for clip in model.clips] == ["walk"]


def test_diffuse_is_a_display_colour_read_as_linear(tmp_path):
    """The writer's ``diffuse 0.8 0.7 0.6`` is an sRGB colour: the material holds it in linear light
    (the sRGB curve, written out here from its definition)."""
    model = loading.load([ascii_file(tmp_path)])

    def linear(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    expected = [linear(0.8), linear(0.7), linear(0.6)]
    np.testing.assert_allclose(model.meshes[0].material.base_color[:3], expected, atol=1e-6)


# --- blank and comment lines inside lists --------------------------------------------------------

LISTS_WITH_GAPS = """\
newmodel gaps
setsupermodel gaps NULL
beginmodelgeom gaps
node dummy gaps
  parent NULL
endnode
node skin plate
  parent gaps
  position 0 0 1
  verts 3
    0 0 0

    # the second vertex
    2 0 0
    0 4 0
  faces 1
    0 1 2 1 0 0 0 1
  weights 3
    gaps 1.0

    plate 1.0
    # a skin row for the last vertex
    gaps 0.5 plate 0.5
endnode
endmodelgeom gaps
newanim slide gaps
  length 2.0
  node dummy plate
    parent gaps
    positionkey
      0.0 0 0 1
      # halfway
      1.0 0 0 3

      2.0 0 0 5
    endlist
    orientationkey 2
      0.0 0 0 1 0

      2.0 0 0 1 3.14159265
  endnode
doneanim slide gaps
donemodel gaps
"""


def test_blank_and_comment_lines_inside_lists_are_skipped(tmp_path):
    """The grammar ignores blank lines and '#' comment lines anywhere, so inside a counted list
    (verts, weights, orientationkey N) or an endlist-terminated key list they are not rows: the
    vertices are (0,0,0), (2,0,0), (0,4,0) moved by the node's position (0,0,1), and the key list
    has three keys (z = 1, 3, 5 at t = 0, 1, 2) and the counted one two (0 and π about Z)."""
    model = loading.load([save(tmp_path, "gaps.mdl", LISTS_WITH_GAPS.encode())])
    plate = model.meshes[0]
    np.testing.assert_allclose(plate.positions, [[0, 0, 1], [2, 0, 1], [0, 4, 1]], atol=1e-6)
    gaps, bone = model.skeleton.index("gaps"), model.skeleton.index("plate")
    heaviest = plate.joints[:, 0].tolist()
    assert heaviest[:2] == [gaps, bone]
    np.testing.assert_allclose(np.sort(plate.weights[2])[::-1][:2], [0.5, 0.5])
    track = model.clips[0].tracks[0]
    np.testing.assert_allclose(track.translation[0], [0.0, 1.0, 2.0])
    np.testing.assert_allclose(track.translation[1][:, 2], [1.0, 3.0, 5.0])
    np.testing.assert_allclose(track.rotation[0], [0.0, 2.0])
    np.testing.assert_allclose(np.abs(track.rotation[1][1]), [0, 0, 1, 0], atol=1e-6)
    pose = evaluate(model, model.clips[0], 1.0)
    np.testing.assert_allclose(pose.world[bone][:3, 3], [0, 0, 3], atol=1e-6)


def test_a_counted_list_cut_short_by_blank_lines_names_its_line(tmp_path):
    text = LISTS_WITH_GAPS.replace("verts 3", "verts 4", 1)
    error = _error(tmp_path, text)
    assert error.line == _line_of(text, "faces 1") and "verts 4" in error.message


def test_face_rows_after_a_comment_line_keep_their_texture_vertices(tmp_path):
    """Whether face rows carry texture-vertex indices is told from the first row, not from a comment
    line before it: the quad's two faces use tverts (0,0) (1,0) (1,1) (0,1), so the vertices keep
    those UVs (v flipped once: 1 − v)."""
    text = """\
newmodel quad
beginmodelgeom quad
node dummy quad
  parent NULL
endnode
node trimesh card
  parent quad
  verts 4
    0 0 0
    1 0 0
    1 1 0
    0 1 0
  tverts 4
    0 0 0
    1 0 0
    1 1 0
    0 1 0
  faces 2
    # two faces of the quad
    0 1 2 1 0 1 2 0
    0 2 3 1 0 2 3 0
endnode
endmodelgeom quad
donemodel quad
"""
    model = loading.load([save(tmp_path, "quad.mdl", text.encode())])
    card = model.meshes[0]
    assert card.uvs is not None
    np.testing.assert_allclose(card.uvs, [[0, 1], [1, 1], [1, 0], [0, 0]], atol=1e-6)


def test_an_animation_named_twice_is_kept_under_a_new_name_with_a_warning(tmp_path):
    """Two animations called ``walk`` in one file: both play, the second as ``walk (2)``, and a warning
    names the file and the name it is shown under."""
    path = save(tmp_path, "c_test.mdl", write_ascii_mdl("c_test", model_tree(), [walk_animation(),
                                                                                  walk_animation()]))
    model = loading.load([path])
    assert [clip.name for clip in model.clips] == ["walk", "walk (2)"]
    assert "animation 'walk' appears twice in c_test.mdl; the second is shown as 'walk (2)'" in model.warnings
