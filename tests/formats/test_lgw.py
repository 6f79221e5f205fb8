"""LGW reader: skin and rigid meshes, helpers, warnings and errors with their lines."""

from __future__ import annotations

import numpy as np
import pytest

from app.formats import lgw
from app.formats.registry import LoadOptions, ReadError, SniffedFile
from app.pose import evaluate, pose_from_world, posed_positions
from tests.writers import text_formats as write

#: The seed's PIVOTs: non-uniform scale, translation in the last column.
MAIN = np.array([[0.73, 0, 0, 0.7572], [0, 0.73, 0, 21.6918], [0, 0, 0.73, 17.0244], [0, 0, 0, 1]])
BONE6 = np.array([[0, 0, 0.5573, -61.9757], [0.73, 0, 0, -68.0254], [0, 0.73, 0, 208.8695], [0, 0, 0, 1]])
POINT = np.array([[1, 0, 0, -0.6177], [0, 0, -1, -90.8538], [0, 1, 0, 180.6291], [0, 0, 0, 1.0]])


def vertices(count, rng):
    return np.hstack([rng.uniform(-50, 50, (count, 3)), rng.uniform(0, 1, (count, 2)),
                      np.tile([0, 0, 1.0], (count, 1))])


@pytest.fixture
def scene(tmp_path):
    rng = np.random.default_rng(5)
    skin_vertices = vertices(4, rng)
    rigid_vertices = vertices(3, rng)
    influences = [[(1.0, "main")], [(0.5, "main"), (0.5, "bone6")], [(0.6, "bone6"), (0.6, "main")],
                  [(1.0, "bone6")]]
    blocks = [
        write.lgw_mesh("veins", write.lgw_skin_link({"main": MAIN, "bone6": BONE6}), skin_vertices,
                       [[0, 1, 2], [2, 3, 0]], influences, end_name="cievy"),
        write.lgw_mesh("claw", write.lgw_normal_link("hand", POINT), rigid_vertices, [[0, 1, 2]]),
        write.lgw_helper("point-atack", "bone6", BONE6, POINT),
    ]
    path = write.lgw_model(tmp_path / "larva.lgw", blocks, extra_material_keys=["SHININESS 0.5 0.25"])
    path.write_text(path.read_text().replace("MATERIAL_REF 0", "SMOOTHING 1 2\nMATERIAL_REF 0", 1))
    return {"path": path, "skin": skin_vertices, "rigid": rigid_vertices, "dir": tmp_path}


def load(path):
    return lgw.load([SniffedFile(path, "lgw", "model")], LoadOptions())


def test_skeleton_meshes_and_helpers(scene):
    model = load(scene["path"])
    skeleton = model.skeleton
    assert skeleton.names == ["main", "bone6", "hand"]
    assert (skeleton.parents == -1).all() and model.up_axis == "Z"
    np.testing.assert_allclose(skeleton.bind_world, [MAIN, BONE6, POINT])
    skin, claw = model.meshes
    np.testing.assert_allclose(skin.positions, scene["skin"][:, :3], atol=1e-4)
    np.testing.assert_allclose(skin.uvs, scene["skin"][:, 3:5], atol=1e-6)
    np.testing.assert_array_equal(skin.triangles, [[0, 1, 2], [2, 3, 0]])
    np.testing.assert_allclose(skin.weights.sum(axis=1), 1, atol=1e-6)
    np.testing.assert_array_equal(claw.joints[:, 0], 2)
    assert skin.material.name == "skin" and skin.material.texture == "skin.tga"
    helper = model.helpers[0]
    assert helper.parent == 1
    np.testing.assert_allclose(BONE6 @ helper.offset, POINT, atol=1e-9)


def test_warnings_for_end_names_unknown_keys_weights_and_added_bones(scene):
    warnings = "\n".join(load(scene["path"]).warnings)
    assert "'cievy' closes MESH 'veins'" in warnings
    assert "unknown key 'SMOOTHING'" in warnings and "SHININESS" not in warnings
    assert "did not sum to 1" in warnings
    assert "'hand'" in warnings


def test_posing_moves_skin_rigid_mesh_and_helper(scene):
    model = load(scene["path"])
    turn = np.array([[0, -1, 0, 5], [1, 0, 0, 0], [0, 0, 1, 2], [0, 0, 0, 1.0]])
    world = model.skeleton.bind_world.copy()
    world[1] = turn @ BONE6
    world[2] = turn @ POINT
    pose = pose_from_world(model, world)
    posed = posed_positions(model, pose)
    skin = scene["skin"][:, :3]
    moved = (turn[:3, :3] @ skin.T).T + turn[:3, 3]
    np.testing.assert_allclose(posed[0], skin[0], atol=1e-4)
    np.testing.assert_allclose(posed[1], 0.5 * skin[1] + 0.5 * moved[1], atol=1e-4)
    np.testing.assert_allclose(posed[3], moved[3], atol=1e-4)
    rigid = scene["rigid"][:, :3]
    np.testing.assert_allclose(posed[4:], (turn[:3, :3] @ rigid.T).T + turn[:3, 3], atol=1e-4)
    np.testing.assert_allclose(pose.helpers[0], turn @ POINT, atol=1e-9)
    np.testing.assert_allclose(evaluate(model, None, 0).helpers[0], POINT, atol=1e-9)


def test_sniff(scene):
    assert lgw.sniff(scene["path"].read_bytes(), scene["path"]) == "model"
    assert lgw.sniff(b"3\n5\n<a>\n", scene["path"]) is None


def edited(scene, old, new, count=1):
    text = scene["path"].read_text()
    assert old in text
    scene["path"].write_text(text.replace(old, new, count))
    return text.splitlines()


def line_of(lines, fragment):
    return next(number for number, text in enumerate(lines, 1) if fragment in text)


@pytest.mark.parametrize("old, new, fragment, message", [
    ('0.5 "bone6"', '0.5 "Larva-kost6"', '0.5 "bone6"', "Larva-kost6"),
    ("COUNT 6", "COUNT 7", "COUNT 6", "multiple of 3"),
    ("2 3 0", "2 3 9", "2 3 0", "outside 0..3"),
    ("GROUP 0 TYPE_LIST", "GROUP 0 TYPE_STRIP", "GROUP 0 TYPE_LIST", "TYPE_STRIP"),
    ("WVERTS 4", "WVERTS 4000000", "WVERTS 4", "cannot fit"),
    ("LINK_TYPE SKIN", "LINK_TYPE CHAIN", "LINK_TYPE SKIN", "SKIN or NORMAL"),
])
def test_malformed(scene, old, new, fragment, message):
    lines = edited(scene, old, new)
    with pytest.raises(ReadError, match=message) as error:
        load(scene["path"])
    assert error.value.line == line_of(lines, fragment)


def test_nan_and_singular_pivots_and_truncation(scene):
    text = scene["path"].read_text()
    first_pivot = write.numbers(MAIN.ravel())
    cases = [(text.replace(first_pivot, first_pivot.replace("0.73", "nan", 1), 1), "NaN"),
             (text.replace(first_pivot, " ".join(["0"] * 15 + ["1"]), 1), "singular|last row"),
             (text[: len(text) // 2], "ends here|file ends")]
    for broken, message in cases:
        scene["path"].write_text(broken)
        with pytest.raises(ReadError, match=message) as error:
            load(scene["path"])
        assert error.value.line is not None


def test_registry_sniffs_and_loads(scene):
    from app.loading import load as load_any

    assert load_any([scene["path"]]).format == "lgw"


def test_unknown_blocks_are_skipped_with_their_end(scene):
    """An unknown KEY … END_OF_KEY block is skipped whole, at model level as inside a mesh (one
    warning naming the key; the model loads as without it)."""
    text = scene["path"].read_text()
    light = 'LIGHT "sun"\nCOLOR 1 1 1\nEND_OF_LIGHT "sun"\n'
    morph = "MORPH 2\nWEIGHT 0.5\nEND_OF_MORPH 2\n"
    scene["path"].write_text(text.replace('HELPER "point-atack"', light + 'HELPER "point-atack"', 1)
                             .replace("DEFAULT_COLOR", morph + "DEFAULT_COLOR", 1))
    model = load(scene["path"])
    warnings = "\n".join(model.warnings)
    assert "unknown key 'LIGHT'" in warnings and "unknown key 'MORPH'" in warnings
    assert "END_OF_LIGHT" not in warnings and "END_OF_MORPH" not in warnings
    assert [helper.name for helper in model.helpers] == ["point-atack"]
    assert [mesh.name for mesh in model.meshes] == ["veins", "claw"]
    np.testing.assert_allclose(BONE6 @ model.helpers[0].offset, POINT, atol=1e-9)


#: A link PIVOT other than the bone's SKIN PIVOT: the bone 7 units along +X of where BONE6 has it.
MOVED6 = np.array([[1, 0, 0, 7.0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]) @ BONE6


def linked_elsewhere(tmp_path):
    """'bone6' bound by the skin mesh at BONE6, while a rigid mesh, a second skin mesh and a helper were
    exported with it at MOVED6 (their link's PIVOT, the parent bone's matrix at their export)."""
    rng = np.random.default_rng(9)
    skin_vertices, rigid_vertices, other_vertices = vertices(3, rng), vertices(3, rng), vertices(3, rng)
    blocks = [
        write.lgw_mesh("veins", write.lgw_skin_link({"main": MAIN, "bone6": BONE6}), skin_vertices,
                       [[0, 1, 2]], [[(1.0, "bone6")]] * 3),
        write.lgw_mesh("claw", write.lgw_normal_link("bone6", MOVED6), rigid_vertices, [[0, 1, 2]]),
        write.lgw_mesh("spine", write.lgw_skin_link({"bone6": MOVED6}), other_vertices, [[0, 1, 2]],
                       [[(1.0, "bone6")]] * 3),
        write.lgw_helper("point-atack", "bone6", MOVED6, POINT),
    ]
    path = write.lgw_model(tmp_path / "moved.lgw", blocks)
    return load(path), skin_vertices[:, :3], rigid_vertices[:, :3], other_vertices[:, :3]


def test_links_follow_the_bone_from_their_own_pivot(tmp_path):
    """Team notes: a NORMAL link's PIVOT is the parent bone's matrix at export, and a helper keeps
    ``inv(PIVOT_parent) @ PIVOT_helper``: what was exported with the bone at MOVED6 sits at
    ``W @ inv(MOVED6) @ p`` for the bone's world matrix W, the skeleton keeping BONE6 as its bind."""
    model, skin, rigid, other = linked_elsewhere(tmp_path)
    np.testing.assert_allclose(model.skeleton.bind_world[1], BONE6)
    relative = np.linalg.inv(MOVED6)
    turn = np.array([[0, -1, 0, 5], [1, 0, 0, 0], [0, 0, 1, 2], [0, 0, 0, 1.0]])
    for world_of_bone6 in (BONE6, turn @ BONE6):
        world = model.skeleton.bind_world.copy()
        world[1] = world_of_bone6
        pose = pose_from_world(model, world)
        posed = posed_positions(model, pose)
        follow = world_of_bone6 @ np.linalg.inv(BONE6)
        np.testing.assert_allclose(posed[:3], skin @ follow[:3, :3].T + follow[:3, 3], atol=1e-4)
        moved = world_of_bone6 @ relative
        np.testing.assert_allclose(posed[3:6], rigid @ moved[:3, :3].T + moved[:3, 3], atol=1e-4)
        np.testing.assert_allclose(posed[6:9], other @ moved[:3, :3].T + moved[:3, 3], atol=1e-4)
        np.testing.assert_allclose(pose.helpers[0], moved @ POINT, atol=1e-9)
    assert "different PIVOT" in "\n".join(model.warnings)


def test_windows_text_tabs_comments_and_exponents(scene):
    """A file as a Windows tool writes it: CRLF line ends, tab indents, ``//`` comment lines and
    numbers in exponent notation read as the same values."""
    text = scene["path"].read_text()
    text = text.replace(write.numbers(MAIN.ravel()), " ".join(f"{v:.6E}" for v in MAIN.ravel()), 1)
    lines = ["// exported by the converter"] + [f"\t{line}" for line in text.splitlines()]
    scene["path"].write_bytes("\r\n".join(lines).encode() + b"\r\n")
    model = load(scene["path"])
    np.testing.assert_allclose(model.skeleton.bind_world, [MAIN, BONE6, POINT], atol=1e-9)
    np.testing.assert_allclose(model.meshes[0].positions, scene["skin"][:, :3], atol=1e-4)
    np.testing.assert_allclose(model.meshes[1].normals, scene["rigid"][:, 5:8], atol=1e-6)
    np.testing.assert_array_equal(model.meshes[0].triangles, [[0, 1, 2], [2, 3, 0]])
    assert model.meshes[0].material.texture == "skin.tga"


def test_material_ref_of_minus_one_is_a_mesh_without_a_material(scene):
    path = scene["path"]
    path.write_text(path.read_text().replace("MATERIAL_REF 0", "MATERIAL_REF -1", 1))
    model = load(path)
    assert model.meshes[0].material.name == "" and model.meshes[0].material.texture == ""
    assert model.meshes[1].material.name == "skin"
