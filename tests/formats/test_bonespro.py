"""BonesPro reader: files written from arrays, poses checked against independent computations."""

from __future__ import annotations

import numpy as np
import pytest

from app.formats.bonespro import structure as bonespro
from app.formats.registry import LoadOptions, ReadError, SniffedFile
from app.pose import evaluate, posed_positions
from tests.writers import text_formats as write
from tests.helpers import world_from_relative

NAMES = ["Bip01 Spine", "Bip01 L UpperArm", "Bip01"]
#: File order puts children before their parents: bone 2 is the root.
PARENTS = np.array([2, 0, -1])
ORDERS = ["XYZ", "XZY", "YZX", "YXZ", "ZXY", "ZYX", "XYX", "YZY", "ZXZ"]


def rx(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1]])


def ry(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0, s, 0], [0, 1, 0, 0], [-s, 0, c, 0], [0, 0, 0, 1]])


def rz(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])


AXES = {"X": rx, "Y": ry, "Z": rz}


def euler_matrix(angles, order, translation):
    """3ds Max static axes, first letter first: R = R_o3(e2) @ R_o2(e1) @ R_o1(e0)."""
    matrix = AXES[order[2]](angles[2]) @ AXES[order[1]](angles[1]) @ AXES[order[0]](angles[0])
    matrix[:3, 3] = translation
    return matrix


def affine(rng, scale=True):
    matrix = euler_matrix(rng.uniform(-2, 2, 3), "XYZ", rng.uniform(-5, 5, 3))
    if scale:
        matrix[:3, :3] = matrix[:3, :3] @ np.diag(rng.uniform(0.5, 1.5, 3))
    return matrix


def skin_by_hand(world, bind, positions, influences):
    """Σ_i w_i W_b inv(B_b) p per vertex, weights normalised, rigid vertices unchanged."""
    result = []
    for position, influence in zip(positions, influences):
        total = sum(w for _, w in influence)
        if not influence:
            result.append(position)
            continue
        point = np.append(position, 1.0)
        result.append(sum(w / total * (world[b] @ np.linalg.inv(bind[b]) @ point)[:3] for b, w in influence))
    return np.array(result)


@pytest.fixture
def rig(tmp_path):
    rng = np.random.default_rng(7)
    bind = np.array([affine(rng) for _ in NAMES])
    positions = rng.uniform(-3, 3, (5, 3))
    influences = [[(0, 1.0)], [(0, 0.25), (1, 0.5)], [], [(2, 0.3), (1, 0.7)], [(0, 0.2), (1, 0.3), (2, 0.5)]]
    path = write.bonespro_structure(tmp_path / "body.txt", NAMES, PARENTS, bind, positions, influences,
                                    boxes=np.arange(9.0).reshape(3, 3))
    return {"path": path, "bind": bind, "positions": positions, "influences": influences, "rng": rng,
            "dir": tmp_path}


def load(*paths, fps=None):
    """The reader on ``paths`` (body.txt is the structure; .obj files attach faces)."""
    roles = ["structure" if path.name == "body.txt" else "animation" for path in paths]
    files = [SniffedFile(path, "obj", "faces") if path.suffix == ".obj"
             else SniffedFile(path, "bonespro", role) for path, role in zip(paths, roles)]
    return bonespro.load(files, LoadOptions(fps=fps))


def test_structure_bind_weights_and_extras(rig):
    model = load(rig["path"])
    skeleton, mesh = model.skeleton, model.meshes[0]
    assert skeleton.names == NAMES
    np.testing.assert_array_equal(skeleton.parents, PARENTS)
    np.testing.assert_allclose(skeleton.bind_world, rig["bind"], atol=1e-12)
    np.testing.assert_allclose(mesh.positions, rig["positions"], atol=1e-5)
    assert mesh.triangles is None and model.triangle_count is None
    assert model.up_axis == "Z" and skeleton.derived_tails.all()
    assert skeleton.extras[1]["box"] == [3.0, 4.0, 5.0]
    np.testing.assert_allclose(skeleton.extras[0]["node_matrix"], rig["bind"][0], atol=1e-12)
    np.testing.assert_allclose(mesh.weights.sum(axis=1), [1, 1, 0, 1, 1], atol=1e-6)
    assert any("did not sum to 1" in warning for warning in model.warnings)
    np.testing.assert_allclose(posed_positions(model, evaluate(model, None, 0)), rig["positions"], atol=1e-5)


def test_row_vector_block_is_transposed(tmp_path):
    text = "1\n1\n<b>\n*\n1 1 1\n1 2 3\n4 5 6\n7 8 10\n11 12 13\n1 0 0\n0 1 0\n0 0 1\n0 0 0\n0 0 0\n0\n"
    (tmp_path / "body.txt").write_text(text)
    model = load(tmp_path / "body.txt")
    expected = np.array([[1, 4, 7, 11], [2, 5, 8, 12], [3, 6, 10, 13], [0, 0, 0, 1.0]])
    np.testing.assert_array_equal(model.skeleton.bind_world[0], expected)


def test_uniform_and_mixed_counts_agree(tmp_path):
    rng = np.random.default_rng(3)
    bind = np.array([affine(rng) for _ in NAMES])
    positions = rng.uniform(-1, 1, (300, 3))
    uniform = [[(0, 0.5), (2, 0.5)] for _ in positions]
    mixed = [[(0, 0.5), (2, 0.5)] if i % 7 else [(1, 1.0)] for i in range(len(positions))]
    for influences in (uniform, mixed):
        path = write.bonespro_structure(tmp_path / "body.txt", NAMES, PARENTS, bind, positions, influences)
        mesh = load(path).meshes[0]
        for vertex in (0, 1, 7, 299):
            expected = dict(influences[vertex])
            got = {int(j): float(w) for j, w in zip(mesh.joints[vertex], mesh.weights[vertex]) if w > 0}
            assert got == pytest.approx(expected)


@pytest.mark.parametrize("system", ["Absolute", "Relative to parent"])
def test_bones_matrix_mode(rig, system):
    rng = rig["rng"]
    world = np.array([[affine(rng) for _ in NAMES] for _ in range(3)])
    written = world if system == "Absolute" else np.array(
        [[np.linalg.inv(w[PARENTS[b]]) @ w[b] if PARENTS[b] >= 0 else w[b] for b in range(3)] for w in world])
    animation = write.bonespro_bones_matrix(rig["dir"] / "walk.txt", written, 5, system=system)
    model = load(rig["path"], animation)
    clip = model.clips[0]
    assert clip.kind == "matrices" and clip.name == "walk"
    for frame in range(3):
        pose = evaluate(model, clip, frame / 30)
        np.testing.assert_allclose(pose.world, world[frame], atol=1e-9)
        expected = skin_by_hand(world[frame], rig["bind"], rig["positions"], rig["influences"])
        np.testing.assert_allclose(posed_positions(model, pose), expected, atol=1e-4)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("units", ["Degrees", "Radians"])
@pytest.mark.parametrize("system", ["Absolute", "Relative to parent"])
def test_bones_euler_mode(rig, order, units, system):
    rng = rig["rng"]
    angles = rng.uniform(-3, 3, (2, 3, 3))
    translations = rng.uniform(-4, 4, (2, 3, 3))
    written = np.degrees(angles) if units == "Degrees" else angles
    animation = write.bonespro_bones_euler(rig["dir"] / "euler.txt", written, translations, 5, order=order,
                                           units=units, system=system, quoted=False)
    model = load(rig["path"], animation)
    for frame in range(2):
        local = np.array([euler_matrix(angles[frame, b], order, translations[frame, b]) for b in range(3)])
        expected = local if system == "Absolute" else world_from_relative(local, PARENTS)
        np.testing.assert_allclose(evaluate(model, model.clips[0], frame / 30).world, expected, atol=1e-9)


def test_frame_times_use_first_frame_step_and_fps(rig):
    world = np.repeat(rig["bind"][None], 4, axis=0)
    animation = write.bonespro_bones_matrix(rig["dir"] / "a.txt", world, 5, first=10, step=2)
    np.testing.assert_allclose(load(rig["path"], animation).clips[0].times, np.array([10, 12, 14, 16]) / 30)
    np.testing.assert_allclose(load(rig["path"], animation, fps=24).clips[0].times,
                               np.array([10, 12, 14, 16]) / 24)


def test_mesh_absolute_is_a_vertex_clip(rig):
    positions = rig["rng"].uniform(-1, 1, (3, 5, 3))
    animation = write.bonespro_mesh_absolute(rig["dir"] / "mesh.txt", positions, 3)
    model = load(rig["path"], animation)
    clip = model.clips[0]
    assert clip.kind == "vertex"
    np.testing.assert_allclose(posed_positions(model, evaluate(model, clip, 2 / 30)), positions[2], atol=1e-6)


def bone_space_entries(world, positions, influences):
    """Per frame, per bone: (vertex, inv(W_b) @ p_world) for the vertices the bone influences."""
    entries = []
    for frame_world, frame_positions in zip(world, positions):
        frame = [[] for _ in NAMES]
        for vertex, influence in enumerate(influences):
            for bone, _ in influence:
                local = np.linalg.inv(frame_world[bone]) @ np.append(frame_positions[vertex], 1)
                frame[bone].append((vertex, local[:3]))
        entries.append(frame)
    return entries


def test_mesh_bones_cs_with_partner(rig):
    rng = rig["rng"]
    world = np.array([[affine(rng) for _ in NAMES] for _ in range(2)])
    targets = rng.uniform(-2, 2, (2, 5, 3))
    targets[:, 2] = rig["positions"][2]  # vertex 2 is rigid
    bones = write.bonespro_bones_matrix(rig["dir"] / "bones.txt", world, 5)
    mesh = write.bonespro_mesh_bones(rig["dir"] / "skin.txt",
                                     bone_space_entries(world, targets, rig["influences"]), 3, 5)
    model = load(rig["path"], bones, mesh)
    clip = model.clips[[c.name for c in model.clips].index("skin")]
    assert clip.kind == "vertex" and not clip.note
    for frame in range(2):
        np.testing.assert_allclose(posed_positions(model, evaluate(model, clip, frame / 30)), targets[frame],
                                   atol=1e-5)


def test_mesh_bones_cs_alone_is_listed_with_a_note(rig):
    world = np.repeat(rig["bind"][None], 2, axis=0)
    entries = bone_space_entries(world, np.repeat(rig["positions"][None], 2, 0), rig["influences"])
    mesh = write.bonespro_mesh_bones(rig["dir"] / "skin.txt", entries, 3, 5)
    model = load(rig["path"], mesh)
    assert model.clips[0].note and "Bones-mode" in model.clips[0].note
    assert any("Bones-mode" in warning for warning in model.warnings)


def test_several_animations_make_several_clips(rig):
    world = np.repeat(rig["bind"][None], 2, axis=0)
    paths = [write.bonespro_bones_matrix(rig["dir"] / f"{name}.txt", world, 5) for name in ("run", "jump")]
    assert [clip.name for clip in load(rig["path"], *paths).clips] == ["run", "jump"]


def test_mode_words_any_case_without_quotes(rig):
    world = np.repeat(rig["bind"][None], 1, axis=0)
    path = write.bonespro_bones_matrix(rig["dir"] / "a.txt", world, 5)
    text = path.read_text().replace('"Bones"', "BONES").replace('"Absolute"', "absolute")
    path.write_text(text.replace('"Matrix"', "matrix // the representation"))
    assert load(rig["path"], path).clips[0].kind == "matrices"


def test_sniff_roles(rig):
    world = np.repeat(rig["bind"][None], 1, axis=0)
    animation = write.bonespro_bones_matrix(rig["dir"] / "a.txt", world, 5)
    assert bonespro.sniff(rig["path"].read_bytes(), rig["path"]) == "structure"
    assert bonespro.sniff(animation.read_bytes(), animation) == "animation"
    assert bonespro.sniff(b"MODEL \"x\"\n", rig["path"]) is None


def test_animation_alone_needs_its_structure(rig):
    world = np.repeat(rig["bind"][None], 1, axis=0)
    animation = write.bonespro_bones_matrix(rig["dir"] / "a.txt", world, 5)
    with pytest.raises(ReadError, match="structure file"):
        load(animation)


def test_count_mismatch_names_the_line(rig):
    world = np.repeat(rig["bind"][None], 1, axis=0)
    animation = write.bonespro_bones_matrix(rig["dir"] / "a.txt", world, 6)
    with pytest.raises(ReadError, match="Nv") as error:
        load(rig["path"], animation)
    assert error.value.line == 2


def test_obj_faces_attach(rig):
    triangles = np.array([[0, 1, 2], [2, 3, 4]])
    obj = write.obj(rig["dir"] / "faces.obj", rig["positions"], triangles)
    np.testing.assert_array_equal(load(rig["path"], obj).meshes[0].triangles, triangles)
    wrong = write.obj(rig["dir"] / "wrong.obj", rig["positions"][:4], triangles[:1])
    with pytest.raises(ReadError, match="4 vertices"):
        load(rig["path"], wrong)


def structure_lines(rig):
    return rig["path"].read_text().splitlines()


@pytest.mark.parametrize("edit, line, message", [
    (lambda lines: lines[:1], 1, "bone count"),
    (lambda lines: lines[:20], 20, "box and matrices"),
    (lambda lines: lines[:-3], 51, "data ends"),
    (lambda lines: [*lines[:4], "7", *lines[5:]], 5, "parent .* is 7, expected 0..2"),
    (lambda lines: [*lines[:26], "1", *lines[27:]], 5, "cycle"),
    (lambda lines: [*lines[:38], "9 1", *lines[39:]], 39, "bone index 9"),
    (lambda lines: [*lines[:39], "nan 1 2", *lines[40:]], 40, "NaN"),
    (lambda lines: [*lines[:2], "99999999", *lines[3:]], 3, "cannot fit"),
    (lambda lines: [*lines[:40], "2.5", *lines[41:]], 41, "whole number"),
    (lambda lines: [*lines[:3], "<unterminated", *lines[4:]], 4, "unterminated"),
    (lambda lines: [*lines[:38], "0 zero", *lines[39:]], 39, "expected a number"),
    (lambda lines: [*lines[:6], "0 0 0", "0 0 0", "0 0 0", *lines[9:]], 6, "singular"),
])
def test_malformed_structure(rig, edit, line, message):
    rig["path"].write_text("\n".join(edit(structure_lines(rig))) + "\n")
    with pytest.raises(ReadError, match=message) as error:
        load(rig["path"])
    assert error.value.line == line


def test_empty_and_binary_files(rig):
    rig["path"].write_bytes(b"")
    with pytest.raises(ReadError, match="empty"):
        load(rig["path"])
    rig["path"].write_bytes(bytes(range(256)) * 4)
    with pytest.raises(ReadError):
        load(rig["path"])


def test_malformed_animation_lines(rig):
    world = np.repeat(rig["bind"][None], 2, axis=0)
    path = write.bonespro_bones_matrix(rig["dir"] / "a.txt", world, 5)
    lines = path.read_text().splitlines()
    cases = [([*lines[:3], '"Sideways"', *lines[4:]], 4, "ExportMode"),
             ([*lines[:6], '"XYZW"', *lines[7:]], 7, "EulerOrder"),
             ([*lines[:10], "0", *lines[11:]], 11, "Step"),
             (lines[:-4], 61, "expected 162 values"),
             ([*lines[:2], "0", *lines[3:]], 3, "Nf")]
    for edited, line, message in cases:
        path.write_text("\n".join(edited) + "\n")
        with pytest.raises(ReadError, match=message) as error:
            load(rig["path"], path)
        assert error.value.line == line, message


def test_registry_sniffs_and_loads_the_set(rig):
    from app.loading import load as load_any

    world = np.repeat(rig["bind"][None], 2, axis=0)
    animation = write.bonespro_bones_matrix(rig["dir"] / "walk.txt", world, 5)
    obj = write.obj(rig["dir"] / "faces.obj", rig["positions"], [[0, 1, 2]])
    model = load_any([rig["path"], animation, obj])
    assert model.format == "bonespro" and model.triangle_count == 1 and model.clips[0].name == "walk"


def test_bone_space_file_must_list_the_vertices_it_rebuilds(tmp_path):
    """A Mesh (bones c.s) clip holds Nf × Nv positions, but each frame lists only ``b Nvb`` and
    its entries: 1500 frames of empty records (2 tokens each) would make 1500 × 3000 positions from a
    few kilobytes. The spec's Nvb is the number of vertices bone b affects, so a frame lists
    its weighted vertices; a clip of over 4 Mi positions listing fewer than 1 in 16 of them is refused
    at Nf, while a smaller one (a mostly rigid model's) loads."""
    bind = np.eye(4)[None]
    structure = write.bonespro_structure(tmp_path / "body.txt", ["root"], [-1], bind, np.zeros((3000, 3)),
                                         [[] for _ in range(3000)])
    empty = write.bonespro_mesh_bones(tmp_path / "skin.txt", [[[]] for _ in range(1500)], 1, 3000)
    with pytest.raises(ReadError, match="1500 frames × 3000 vertices") as error:
        load(structure, empty)
    assert error.value.line == 3
    for frames in (1, 400):
        still = write.bonespro_mesh_bones(tmp_path / f"still{frames}.txt", [[[]]] * frames, 1, 3000)
        clip = load(structure, still).clips[0]
        assert clip.kind == "vertex"
