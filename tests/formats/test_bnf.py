""".bnf/.anm/.prm reader, held against the page's matrix recursion computed here independently."""

from __future__ import annotations

import numpy as np
import pytest

from app.formats import bnf
from app.formats.registry import LoadOptions, ReadError, SniffedFile
from app.pose import evaluate
from tests.writers import text_formats as write

PARENTS = np.array([-1, 0, 1, 1, 0])
CENTRES = np.array([[0, 0, 0], [0, 1.0, 0], [0.2, 2.0, 0.1], [-0.5, 1.7, 0], [0.3, -0.4, 0.2]])


def rotation(q):
    """Rotation matrix of a unit quaternion (x, y, z, w), written out from the Hamilton product."""
    x, y, z, w = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y), 0],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x), 0],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y), 0],
                     [0, 0, 0, 1.0]])


def shift(offset):
    matrix = np.eye(4)
    matrix[:3, 3] = offset
    return matrix


def page_world(quaternions):
    """The page's recursion M[b] = M[p] T(R_b) Rot(q_b) T(−R_b) (parents come first), W_b = M[b] T(R_b)."""
    skinning = []
    for bone, parent in enumerate(PARENTS):
        local = shift(CENTRES[bone]) @ rotation(quaternions[bone]) @ shift(-CENTRES[bone])
        skinning.append(local if parent < 0 else skinning[parent] @ local)
    return np.array([m @ shift(c) for m, c in zip(skinning, CENTRES)]), np.array(skinning)


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(11)
    quaternions = rng.normal(size=(3, 5, 4))
    quaternions /= np.linalg.norm(quaternions, axis=-1, keepdims=True)
    return {"bnf": write.bnf(tmp_path / "man.bnf", PARENTS, CENTRES),
            "anm": write.anm(tmp_path / "wave.anm", [0.0, 0.5, 2.0], quaternions),
            "prm": write.prm(tmp_path / "man.prm", [(b, [0, 1, 2, 2, 4][b], 0.5 * b, 1.5) for b in range(5)]),
            "quaternions": quaternions, "dir": tmp_path}


def load(*paths, conjugate=False):
    roles = {".bnf": "bones", ".anm": "animation", ".prm": "parameters"}
    return bnf.load([SniffedFile(p, "bnf", roles[p.suffix]) for p in paths],
                    LoadOptions(conjugate_quaternions=conjugate))


def test_skeleton_from_rotation_centres(files):
    model = load(files["bnf"], files["prm"])
    skeleton = model.skeleton
    np.testing.assert_array_equal(skeleton.parents, PARENTS)
    np.testing.assert_allclose(skeleton.heads, CENTRES)
    np.testing.assert_allclose(skeleton.bind_world[:, :3, 3], CENTRES)
    np.testing.assert_allclose(skeleton.bind_world[:, :3, :3], np.tile(np.eye(3), (5, 1, 1)))
    assert (np.linalg.norm(skeleton.tails - skeleton.heads, axis=1) > 0).all()
    assert skeleton.derived_tails.all() and model.up_axis == "Y" and list(model.meshes) == []
    assert skeleton.extras[3] == {"mirror": 2, "H": 1.5, "R": 1.5}


def test_a_bone_without_a_mirror_is_written_minus_one(files):
    files["prm"].write_text(files["prm"].read_text().replace("3 2 ", "3 -1 ", 1))
    skeleton = load(files["bnf"], files["prm"]).skeleton
    assert skeleton.extras[3] == {"H": 1.5, "R": 1.5}
    assert skeleton.extras[2] == {"mirror": 2, "H": 1.0, "R": 1.5}


def test_keys_match_the_page_recursion(files):
    model = load(files["bnf"], files["anm"])
    clip = model.clips[0]
    assert clip.kind == "keyed" and clip.name == "wave"
    for key, time in enumerate([0.0, 0.5, 2.0]):
        expected_world, skinning = page_world(files["quaternions"][key])
        pose = evaluate(model, clip, time)
        np.testing.assert_allclose(pose.world, expected_world, atol=1e-9)
        np.testing.assert_allclose(pose.skin, skinning, atol=1e-9)
        joints = np.einsum("bij,bj->bi", skinning, np.hstack([CENTRES, np.ones((5, 1))]))[:, :3]
        np.testing.assert_allclose(pose.world[:, :3, 3], joints, atol=1e-9)


def test_slerp_between_keys(tmp_path):
    half = np.sqrt(0.5)
    quaternions = np.tile([0, 0, 0, 1.0], (2, 5, 1))
    quaternions[1, 0] = [0, 0, half, half]  # the root turns 90° about Z
    model = load(write.bnf(tmp_path / "a.bnf", PARENTS, CENTRES),
                 write.anm(tmp_path / "a.anm", [0, 1], quaternions))
    world = evaluate(model, model.clips[0], 0.5).world
    angle = np.radians(45)
    np.testing.assert_allclose(world[0, :2, :2],
                               [[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]],
                               atol=1e-9)


def test_conjugate_option(files):
    model = load(files["bnf"], files["anm"], conjugate=True)
    conjugated = files["quaternions"][1] * [-1, -1, -1, 1]
    np.testing.assert_allclose(evaluate(model, model.clips[0], 0.5).world, page_world(conjugated)[0],
                               atol=1e-9)


def test_sniff_roles(files):
    for key, role in (("bnf", "bones"), ("anm", "animation"), ("prm", "parameters")):
        assert bnf.sniff(files[key].read_bytes(), files[key]) == role


@pytest.mark.parametrize("partner", ["anm", "prm"])
def test_partner_without_bnf(files, partner):
    with pytest.raises(ReadError, match=r"\.bnf"):
        load(files[partner])


@pytest.mark.parametrize("key, old, new, line, message", [
    ("bnf", "\n1 0 ", "\n1 3 ", 3, "cycle"),
    ("bnf", "4 0 0.3", "4 7 0.3", 6, "ParentID"),
    ("bnf", "5\n", "6\n", 6, "the file ends"),
    ("bnf", "0 -1", "0 -1 nan", 2, "NaN|number"),
    ("anm", "NumBones: 5", "NumBones: 4", 1, "NumBones is 4"),
    ("anm", "Time: 2", "Time: 0.25", 16, "does not come after"),
    ("anm", "Quaternions:", "Quats:", 3, "Quaternions:"),
    ("prm", "3 2", "3 9", 4, "mirror"),
    ("prm", "3 2", "3 -2", 4, "mirror"),
])
def test_malformed(files, key, old, new, line, message):
    text = files[key].read_text()
    assert old in text
    files[key].write_text(text.replace(old, new, 1))
    with pytest.raises(ReadError, match=message) as error:
        load(files["bnf"], files["anm"], files["prm"])
    assert error.value.line == line


def test_truncated_animation(files):
    text = files["anm"].read_text()
    files["anm"].write_text(text[: text.rindex("Quaternions:") + 30])
    with pytest.raises(ReadError, match="quaternions") as error:
        load(files["bnf"], files["anm"])
    assert error.value.line == len(files["anm"].read_text().rstrip().splitlines())


def test_registry_sniffs_and_loads_the_set(files):
    from app.loading import load as load_any

    model = load_any([files["bnf"], files["anm"], files["prm"]])
    assert model.format == "bnf" and len(model.clips) == 1


def test_windows_text_tabs_and_exponents(files):
    """CRLF line ends, tabs and exponent notation (as a Windows C runtime's printf may write them) read as
    the same bones and keys."""
    text = files["anm"].read_text().replace(" ", "\t")
    files["anm"].write_bytes(text.replace("\n", "\r\n").encode())
    rows = "\r\n".join(f"{b}\t{p}\t" + "\t".join(f"{v:.15e}" for v in c)
                       for b, (p, c) in enumerate(zip(PARENTS, CENTRES)))
    files["bnf"].write_bytes(f"5\r\n{rows}\r\n".encode())
    model = load(files["bnf"], files["anm"])
    np.testing.assert_array_equal(model.skeleton.parents, PARENTS)
    np.testing.assert_allclose(model.skeleton.heads, CENTRES, atol=1e-12)
    last = evaluate(model, model.clips[0], 2.0).world
    np.testing.assert_allclose(last, page_world(files["quaternions"][2])[0], atol=1e-9)
