"""glTF round trips of every seed format and the demo (issue 7's "done" criteria).

For a model of each format, written with tests/writers and read by its own reader: export with
``export_gltf``, check the file with the Khronos validator (0 errors), read it back with
``app.loading.load``, and compare posed vertices, bone world matrices and helper frames at several
times per clip (stored keys and frames, between them, before the start and after the end) against the
original's. The exporter's axis conversion is read from ``asset.extras`` and applied here with a
hand-written matrix; tolerances are relative to the model's size (``Model.extent``).

glTF holds four influences per vertex as written (JOINTS_0/WEIGHTS_0): the original's posed vertices
are computed with the same limit (``influences=4``, the GPU path's), and a BonesPro vertex with five
influences checks that the exporter says so.

'matrices' clips: between stored frames the player blends each bone's parent-relative T, R (slerp)
and S, as glTF interpolates the exported channels, so times between frames are held to the same
tolerance as the frames themselves.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pytest

from app import loading, maths, resources
from app.export.gltf import export_gltf
from app.model import Clip, Model, Track
from app.pose import evaluate, posed_positions, rest_extent
from tests.helpers import world_from_relative
from tests.writers import text_formats as write
from tests.writers.c3de_writer import write_bones_2009, write_bones_2010, write_mesh
from tests.writers.nwn_writer import WAnimation, WNode, write_mdl

#: Posed vertices, joints and helpers must agree within this fraction of the model's size.
TOLERANCE = 1e-4
#: −90° about X, written out: glTF (x, y, z) = model (x, z, −y).
Z_UP_TO_Y_UP = np.array([[1.0, 0, 0, 0], [0, 0, 1, 0], [0, -1, 0, 0], [0, 0, 0, 1]])
#: The turn to glTF's up (+Y) and front (+Z) by the source's up axis and facing: a 3ds Max model
#: (Z up, facing −Y) turns −90° about X; an NWN model (Z up, facing +Y) also half a turn about Y; a
#: Z-up C3DE model (facing +X) a quarter turn about Y instead.
TURNS = {("Z", "-Y"): Z_UP_TO_Y_UP,
         ("Z", "+Y"): np.array([[-1.0, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]]),
         ("Z", "+X"): np.array([[0.0, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 0, 1]]),
         ("Y", "+Z"): np.eye(4)}
#: The exporter's influence limit (JOINTS_0 / WEIGHTS_0).
INFLUENCES = 4
FPS = 30.0


# --- the Khronos validator ------------------------------------------------------------------------

VALIDATE_JS = """
const fs = require('fs');
const path = require('path');
const validator = require('gltf-validator');
(async () => {
  const results = {};
  for (const file of process.argv.slice(1)) {
    const folder = path.dirname(file);
    const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
      maxIssues: 0,
      externalResourceFunction: (uri) => new Promise((resolve, reject) => fs.readFile(
        path.join(folder, decodeURIComponent(uri)),
        (error, data) => error ? reject(error) : resolve(data)))});
    results[file] = report.issues;
  }
  console.log(JSON.stringify(results));
})().catch(e => { console.error(String(e)); process.exit(1); });
"""


def validator_available() -> bool:
    if shutil.which("node") is None:
        return False
    probe = subprocess.run(["node", "-e", "require.resolve('gltf-validator')"], capture_output=True,
                           check=False)
    return probe.returncode == 0


VALIDATOR = validator_available()


def validate(*paths: Path) -> dict[str, dict]:
    """The validator's issues object for each file (numErrors, numWarnings, messages …)."""
    result = subprocess.run(["node", "-e", VALIDATE_JS, *map(str, paths)], capture_output=True, text=True,
                            env=dict(os.environ), timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def extras_of(path: Path) -> dict:
    """``asset.extras`` of a written .glb, read from its JSON chunk."""
    data = path.read_bytes()
    length, kind = struct.unpack_from("<II", data, 12)
    assert data[:4] == b"glTF" and kind == 0x4E4F534A
    return json.loads(data[20:20 + length])["asset"].get("extras", {})


# --- comparing ------------------------------------------------------------------------------------

@dataclass
class Errors:
    """Largest differences found, as fractions of the model's size."""

    vertices: float = 0.0
    joints: float = 0.0
    helpers: float = 0.0
    samples: int = 0


def sample_times(clip: Clip) -> tuple[np.ndarray, np.ndarray]:
    """Stored keys/frames (plus before the start and after the end), and times between them."""
    frames = clip.frame_times
    span = max(clip.duration, 1.0 / FPS)
    stored = np.concatenate([frames, [frames[0] - 0.5 * span, frames[-1] + 0.5 * span]])
    if len(frames) < 2:
        return stored, np.zeros(0)
    gaps = np.diff(frames)
    between = np.concatenate([frames[:-1] + fraction * gaps for fraction in (0.25, 0.5, 0.8)])
    return stored, between


def conversion_of(path: Path, original: Model) -> np.ndarray:
    """The axis conversion the exporter says it applied (asset.extras), as a matrix written here."""
    extras = extras_of(path)
    assert extras["up_axis"] == original.up_axis and extras["source_format"] == original.format
    if extras["up_axis"] == "Z":
        assert extras["up_root"] == "Z_up_to_Y_up"
    else:
        assert "up_root" not in extras
    return TURNS[extras["up_axis"], extras["forward"]]


def frame_error(actual: np.ndarray, expected: np.ndarray, size: float) -> float:
    """Largest difference of (N, 4, 4) frames: the 3×3 parts relative to their own size, the
    translations relative to the model's size."""
    if not len(expected):
        return 0.0
    scale = max(float(np.abs(expected[:, :3, :3]).max()), 1e-12)
    linear = np.abs(actual[:, :3, :3] - expected[:, :3, :3]).max() / scale
    offset = np.abs(actual[:, :3, 3] - expected[:, :3, 3]).max() / size
    assert np.allclose(actual[:, 3], expected[:, 3])
    return float(max(linear, offset))


def round_trip(original: Model, path: Path) -> tuple[Model, Errors, list[str]]:
    """Export, validate, import; the largest differences of every clip at every sample time."""
    warnings = export_gltf(original, path)
    if VALIDATOR:
        issues = validate(path)[str(path)]
        assert issues["numErrors"] == 0, issues["messages"]
    loaded = loading.load([path])
    assert loaded.format == "gltf" and loaded.up_axis == "Y"
    assert [clip.name for clip in loaded.clips] == [clip.name for clip in original.clips]
    conversion = conversion_of(path, original)
    size = rest_extent(original)
    errors = Errors()
    bones = [loaded.skeleton.index(name) for name in original.skeleton.names]
    # Helpers come back as helpers (the exporter marks their nodes), in their order.
    assert [helper.name for helper in loaded.helpers] == [helper.name for helper in original.helpers]
    helpers = bool(original.helpers)

    def compare(clip: Clip | None, loaded_clip: Clip | None, time: float) -> None:
        pose = evaluate(original, clip, time)
        got = evaluate(loaded, loaded_clip, time)
        expected = maths.transform_points(conversion, posed_positions(original, pose, influences=INFLUENCES))
        actual = posed_positions(loaded, got)
        where = f"{clip.name if clip else 'bind'} at {time:.4f}"
        errors.samples += 1
        if expected.size:
            error = float(np.abs(actual - expected).max()) / size
            errors.vertices = max(errors.vertices, error)
            assert error <= TOLERANCE, f"vertices, {where}: {error:.3g} of the size"
        # Bones and helpers: their frames (glTF keeps a vertex clip's bones at rest; the exporter
        # warns when the clip had bone motion).
        if clip is not None and clip.kind == "vertex" and clip.world is not None:
            return
        errors.joints = max(errors.joints, frame_error(got.world[bones], conversion @ pose.world, size))
        assert errors.joints <= TOLERANCE, f"bone frames, {where}: {errors.joints:.3g}"
        if helpers:
            error = frame_error(got.helpers, conversion @ pose.helpers, size)
            errors.helpers = max(errors.helpers, error)
            assert errors.helpers <= TOLERANCE, f"helpers, {where}: {errors.helpers:.3g}"

    compare(None, None, 0.0)
    for clip, loaded_clip in zip(original.clips, loaded.clips, strict=True):
        stored, between = sample_times(clip)
        for time in np.concatenate([stored, between]):
            compare(clip, loaded_clip, float(time))
    return loaded, errors, warnings


# --- BonesPro (structure + Bones/Matrix, Bones/Euler and Mesh (absolute) animations) -------------

BONESPRO_NAMES = ["Bip01 Spine", "Bip01 L UpperArm", "Bip01", "Bip01 Head", "Bip01 R UpperArm"]
#: Children before their parents, as 3ds Max writes them: bone 2 is the root.
BONESPRO_PARENTS = np.array([2, 0, -1, 0, 0])


def _rotation(axis, angle) -> np.ndarray:
    return maths.quat_to_matrix(maths.quat_from_axis_angle(np.asarray(axis, float), np.array(angle)))


def _bonespro_locals(frame: float) -> np.ndarray:
    """Local (parent-relative) matrices of a smooth motion at ``frame`` (bind at frame 0)."""
    spine = maths.translation([0.0, 0.0, 30.0]) @ _rotation([0.2, 1, 0.1], 0.3 + 0.05 * frame)
    arm = maths.translation([18.0, 0.0, 25.0]) @ _rotation([1, 0, 0.3], -0.2 + 0.08 * frame) \
        @ maths.scaling([1.0, 1.2, 0.9])
    root = maths.translation([1.0 + 0.6 * frame, 2.0, 95.0]) @ _rotation([0, 0, 1], 0.1 - 0.04 * frame)
    head = maths.translation([0.0, 0.0, 40.0]) @ _rotation([0, 1, 0], 0.06 * frame)
    right = maths.translation([-18.0, 0.0, 25.0]) @ _rotation([1, 0.2, 0], 0.2 - 0.07 * frame)
    return np.stack([spine, arm, root, head, right])


def bonespro_model(folder: Path) -> Model:
    rng = np.random.default_rng(70)
    bind = world_from_relative(_bonespro_locals(0.0), BONESPRO_PARENTS)
    positions = rng.uniform([-20, -15, 60], [30, 15, 170], (40, 3))
    influences = []
    for vertex in range(len(positions)):
        count = [1, 2, 3, 4, 2][vertex % 5]
        bones = rng.choice(5, count, replace=False)
        influences.append([(int(b), float(w)) for b, w in zip(bones, rng.uniform(0.1, 1.0, count))])
    influences[7] = []  # a rigid vertex
    influences[11] = [(0, 0.3), (1, 0.25), (2, 0.2), (3, 0.15), (4, 0.1)]  # five lanes
    structure = write.bonespro_structure(folder / "body.txt", BONESPRO_NAMES, BONESPRO_PARENTS, bind,
                                         positions, influences)
    frames = 6
    world = np.stack([world_from_relative(_bonespro_locals(f), BONESPRO_PARENTS) for f in range(frames)])
    matrix = write.bonespro_bones_matrix(folder / "walk.txt", world, len(positions))
    # Euler angles relative to the parent (no scale: Euler mode has none), 3ds Max "XYZ" order.
    angles = np.array([[[0.1 * f, 0.05 * b, -0.03 * f] for b in range(5)] for f in range(frames)])
    offsets = np.array([[[0.0, 0.0, 30.0], [18.0, 0.0, 25.0], [1.0 + 0.5 * f, 2.0, 95.0], [0.0, 0.0, 40.0],
                         [-18.0, 0.0, 25.0]] for f in range(frames)])
    euler = write.bonespro_bones_euler(folder / "turn.txt", np.degrees(angles), offsets, len(positions),
                                       system="Relative to parent", first=2, step=2)
    # Mesh (absolute): every vertex moves on its own path (a vertex clip → morph targets).
    wobble = np.stack([positions + np.sin(0.4 * f + positions / 20.0) * 3.0 for f in range(4)])
    mesh = write.bonespro_mesh_absolute(folder / "ripple.txt", wobble, 5)
    return loading.load([structure, matrix, euler, mesh])


# --- LGW (skinned mesh, a rigid mesh on a bone, helpers) ------------------------------------------

LGW_MAIN = np.array([[0.73, 0, 0, 0.7572], [0, 0.73, 0, 21.6918], [0, 0, 0.73, 17.0244], [0, 0, 0, 1]])
LGW_BONE6 = np.array([[0, 0, 0.5573, -61.9757], [0.73, 0, 0, -68.0254], [0, 0.73, 0, 208.8695], [0, 0, 0, 1]])
LGW_POINT = np.array([[1, 0, 0, -0.6177], [0, 0, -1, -90.8538], [0, 1, 0, 180.6291], [0, 0, 0, 1.0]])


def lgw_model(folder: Path) -> Model:
    """The seed's pivots; LGW has no animation, so a keyed clip is added to move the skin, the rigid
    mesh and the helpers (a rest-pose-only comparison would not show a wrong binding)."""
    rng = np.random.default_rng(5)

    def vertices(count):
        return np.hstack([rng.uniform(-50, 50, (count, 3)) + [0, -40, 150], rng.uniform(0, 1, (count, 2)),
                          np.tile([0, 0, 1.0], (count, 1))])

    skin = vertices(12)
    influences = [[(1.0, "main")] if v % 3 == 0 else [(0.5, "main"), (0.5, "bone6")] if v % 3 == 1
                  else [(0.25, "main"), (0.75, "bone6")] for v in range(len(skin))]
    blocks = [
        write.lgw_mesh("veins", write.lgw_skin_link({"main": LGW_MAIN, "bone6": LGW_BONE6}), skin,
                       np.arange(12).reshape(4, 3), influences),
        write.lgw_mesh("claw", write.lgw_normal_link("hand", LGW_POINT), vertices(3), [[0, 1, 2]]),
        write.lgw_mesh("crest", [], vertices(3), [[0, 2, 1]]),
        write.lgw_helper("point-atack", "bone6", LGW_BONE6, LGW_POINT),
        write.lgw_helper("point-free", None, None, maths.translation([5.0, 6.0, 7.0])),
    ]
    model = loading.load([write.lgw_model(folder / "larva.lgw", blocks)])
    assert not model.clips
    skeleton = model.skeleton
    bone6, hand = skeleton.index("bone6"), skeleton.index("hand")
    turn = maths.quat_from_axis_angle(np.array([0.3, 0.2, 1.0]) / np.linalg.norm([0.3, 0.2, 1.0]),
                                      np.array([0.0, 0.7, -0.5]))
    bind_rotation = maths.decompose_trs(skeleton.bind_local[bone6])[1]
    rotations = maths.quat_multiply(bind_rotation[None], turn)
    added = Clip("added", "keyed", tracks=[
        Track(bone6, rotation=([0.0, 0.5, 1.0], rotations),
              translation=([0.0, 1.0], [LGW_BONE6[:3, 3], LGW_BONE6[:3, 3] + [10, -5, 3]])),
        Track(hand, scale=([0.0, 0.6], [[1, 1, 1], [1.2, 0.8, 1.0]]), interpolation="step"),
    ])
    return replace(model, clips=[*model.clips, added])


# --- .bnf + .anm + .prm (a skeleton with quaternion keys; no mesh) --------------------------------

BNF_PARENTS = np.array([-1, 0, 1, 1, 0])
BNF_CENTRES = np.array([[0, 0, 0], [0, 1.0, 0], [0.2, 2.0, 0.1], [-0.5, 1.7, 0], [0.3, -0.4, 0.2]])


def bnf_model(folder: Path) -> Model:
    rng = np.random.default_rng(11)
    quaternions = rng.normal(size=(4, 5, 4))
    quaternions /= np.linalg.norm(quaternions, axis=-1, keepdims=True)
    paths = [write.bnf(folder / "man.bnf", BNF_PARENTS, BNF_CENTRES),
             write.anm(folder / "wave.anm", [0.0, 0.5, 1.25, 2.0], quaternions),
             write.prm(folder / "man.prm", [(b, [0, 1, 2, 2, 4][b], 0.5 * b, 1.5) for b in range(5)])]
    return loading.load(paths)


# --- NWN compiled MDL (a skin mesh, a rigid trimesh part, keyed animations) ------------------------

def _axis_quaternion(axis, degrees) -> tuple:
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    half = np.radians(degrees) / 2
    return (*(axis * np.sin(half)), np.cos(half))


def nwn_model(folder: Path) -> Model:
    torso = WNode("torso_g", 0x021, (0, 0.2, 0.5), _axis_quaternion((1, 0, 0), 5),
                  vertices=np.array([[0.1, 0.0, 0.0], [0.0, 0.3, 0.1], [-0.2, 0.1, 0.4], [0.1, 0.2, 0.3]]),
                  faces=[[0, 1, 2], [0, 2, 3]], uvs=[[0, 0], [1, 0], [0, 1], [1, 1]], texture="torso_tex")
    lthigh = WNode("lthigh", 0x001, (0.2, 0, -0.1), _axis_quaternion((1, 0, 0), 20))
    lshin = WNode("lshin", 0x001, (0.0, 0.05, -0.45), _axis_quaternion((1, 0, 0), -10))
    lthigh.children = [lshin]
    pelvis = WNode("pelvis", 0x001, (0, 0, 1), _axis_quaternion((0, 0, 1), 30), children=[torso, lthigh])
    body_vertices = np.array([[0.1, 0.1, 0.9], [0.3, -0.1, 0.7], [0.2, 0.2, 0.4], [-0.1, 0.0, 1.1],
                              [0.25, 0.0, 0.3], [0.2, 0.1, 0.1]])
    bones = [["pelvis", None, None, None], [None, "lthigh", "pelvis", None], ["lthigh", None, None, None],
             ["pelvis", "lthigh", None, None], ["lthigh", "lshin", None, None], ["lshin", None, None, None]]
    weights = np.array([[1, 0, 0, 0], [0, 0.75, 0.25, 0], [1, 0, 0, 0], [0.4, 0.6, 0, 0], [0.5, 0.5, 0, 0],
                        [1, 0, 0, 0]])
    body = WNode("body", 0x061, (0, 0, 0.1), _axis_quaternion((0, 1, 0), 10), vertices=body_vertices,
                 faces=[[0, 1, 2], [0, 2, 3], [2, 4, 5]], skin_bones=bones, skin_weights=weights)
    root = WNode("c_test", 0x001, (0, 0, 0), (0, 0, 0, 1), children=[pelvis, body])
    walk = WAnimation("walk", 2.0, WNode("c_test", children=[
        WNode("pelvis", keys=[(8, [0.0, 1.0, 2.0], [(0, 0, 1), (0, 0.5, 1.2), (0, 1.0, 1.0)])]),
        WNode("lthigh", keys=[(20, [0.5, 1.5], [_axis_quaternion((1, 0, 0), d) for d in (20.0, 80.0)])]),
        WNode("lshin", keys=[(20, [0.0, 1.0, 2.0],
                              [_axis_quaternion((1, 0.2, 0), d) for d in (-10, -60, -5)])]),
    ]), events=[(0.5, "footstep_l")])
    cast = WAnimation("cast", 1.0, WNode("c_test", children=[
        WNode("pelvis", keys=[(20, [0.0, 1.0], [_axis_quaternion((0, 1, 0), d) for d in (0, 45)])])]))
    path = folder / "c_test.mdl"
    path.write_bytes(write_mdl("c_test", root, [walk, cast]))
    return loading.load([path])


# --- C3DE (2009 mesh + multi-clip bones; 2010 mesh + bones with rest frames) -----------------------

C3DE_POSITIONS = np.array([[0.1, 0.2, 0.3], [1.0, 0.0, 0.5], [0.0, 1.0, 1.5], [0.7, 0.3, 2.0],
                           [0.2, 0.9, 0.4], [1.3, 1.1, 0.9], [0.4, 0.4, 2.4], [0.9, 0.8, 1.2],
                           [0.5, 0.1, 0.2]])
C3DE_BONE0 = np.array([0, 0, 1, 1, -1, 0, 2, 2, 1])
C3DE_BONE1 = np.array([1, -1, 0, -1, -1, 1, 1, -1, 1])
C3DE_WEIGHT0 = np.array([0.25, 0.6, 0.7, 1.0, -1.0, 0.0, 0.5, 1.0, 0.9])
C3DE_UVS = np.linspace([0.1, 0.2], [0.9, 0.7], 9)


def _c3de_skinning(frames: int) -> np.ndarray:
    """(F, 3, 4, 4) skinning matrices of a smooth motion (rigid: Blender deform matrices)."""
    return np.array([[maths.translation([0.02 * f, 0, 0]) @ _rotation([0, 0, 1], np.radians(4.0 * f)),
                      maths.translation([0, 0.3, 1]) @ _rotation([1, 0, 0], np.radians(5.0 * f))
                      @ maths.translation([0, -0.3, -1]),
                      maths.translation([0, 0.4, 2]) @ _rotation([0, 1, 0.5], np.radians(-6.0 * f))
                      @ maths.translation([0, -0.4, -2])]
                     for f in range(frames)])


def c3de_2009_model(folder: Path) -> Model:
    mesh = folder / "m.c3d"
    mesh.write_bytes(write_mesh(C3DE_POSITIONS, C3DE_BONE0, C3DE_BONE1, C3DE_WEIGHT0, C3DE_UVS,
                                layout="2009"))
    bones = folder / "b.c3d"
    bones.write_bytes(write_bones_2009(_c3de_skinning(7), clip_frames=[3, 4]))
    model = loading.load([mesh, bones])
    assert len(model.clips) == 2
    return model


def c3de_2010_model(folder: Path) -> Model:
    bind = np.array([np.eye(4), maths.translation([0, 0, 1]) @ _rotation([0, 0, 1], np.pi / 2),
                     maths.translation([0, 0, 2])])
    heads = np.array([[0, 0, 0], [0, 0, 1], [0, 0, 2]])
    tails = np.array([[0, 0, 1], [0, 1, 1], [0, 0, 2.5]])
    mesh = folder / "body.c3d"
    mesh.write_bytes(write_mesh(C3DE_POSITIONS, C3DE_BONE0, C3DE_BONE1, C3DE_WEIGHT0, C3DE_UVS,
                                layout="2010"))
    bones = folder / "bodybones.c3d"
    bones.write_bytes(write_bones_2010(bind, heads, tails, _c3de_skinning(5), [-1, 0, 1]))
    return loading.load([mesh, bones])


def demo_model(folder: Path) -> Model:
    return loading.load(resources.demo_paths())


MODELS = {"bonespro": bonespro_model, "lgw": lgw_model, "bnf": bnf_model, "nwn_mdl": nwn_model,
          "c3de_2009": c3de_2009_model, "c3de_2010": c3de_2010_model, "demo": demo_model}
UP_AXES = {"bonespro": "Z", "lgw": "Z", "bnf": "Y", "nwn_mdl": "Z", "c3de_2009": "Z", "c3de_2010": "Z",
           "demo": "Y"}


# --- the round trips ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(MODELS))
def test_round_trip(tmp_path, name):
    original = MODELS[name](tmp_path)
    assert original.up_axis == UP_AXES[name]
    assert original.clips, "every model carries at least one clip"
    loaded, errors, _ = round_trip(original, tmp_path / f"{name}.glb")
    # Everything survived: meshes in order with their vertex counts, every bone and helper by name.
    assert [m.vertex_count for m in loaded.meshes] == [m.vertex_count for m in original.meshes]
    # A vertex clip comes back as a clip of morph weights (one target per frame), the others keyed.
    motions = ["morph" if clip.kind == "vertex" else "skeletal" for clip in original.clips]
    assert [clip.kind for clip in loaded.clips] == ["keyed"] * len(original.clips)
    assert [clip.motion for clip in loaded.clips] == motions
    for mesh, loaded_mesh in zip(original.meshes, loaded.meshes):
        assert loaded_mesh.triangle_count == mesh.triangle_count
        if mesh.uvs is not None:
            np.testing.assert_allclose(loaded_mesh.uvs, mesh.uvs, atol=1e-7)
        assert loaded_mesh.material.texture == mesh.material.texture
    assert errors.samples >= 2 + 3 * len(original.clips)


@pytest.mark.skipif(not VALIDATOR, reason="needs node and the npm package gltf-validator (NODE_PATH)")
def test_validator_reports_no_errors_or_warnings(tmp_path):
    """Every format's export at once: 0 errors and 0 warnings; the infos are the expected kinds."""
    paths = []
    for name, build in MODELS.items():
        folder = tmp_path / name
        folder.mkdir()
        paths.append(folder / f"{name}.glb")
        export_gltf(build(folder), paths[-1])
    for path, issues in validate(*paths).items():
        assert issues["numErrors"] == 0 and issues["numWarnings"] == 0, (path, issues["messages"])
        # Helpers and meshless bones are empty nodes; uvs without a texture are unused.
        assert {m["code"] for m in issues["messages"]} <= {"NODE_EMPTY", "UNUSED_OBJECT"}, \
            (path, issues["messages"])


# --- regressions: what the round trips found -------------------------------------------------------

def test_bone_listed_twice_for_a_vertex_is_one_joint(tmp_path):
    # C3DE vertex 8 names bone 1 twice (0.9 and 0.1): glTF forbids a joint twice with non-zero weight
    # (ACCESSOR_JOINTS_INDEX_DUPLICATE), so the exporter writes one lane with the summed weight.
    original = c3de_2009_model(tmp_path)
    assert original.meshes[0].joints[8].tolist() == [1, 1]
    export_gltf(original, tmp_path / "c3de.glb")
    mesh = loading.load([tmp_path / "c3de.glb"]).meshes[0]
    used = mesh.weights[8] > 0
    bone = loading.load([tmp_path / "c3de.glb"]).skeleton.index(original.skeleton.names[1])
    assert mesh.joints[8][used].tolist() == [bone]
    np.testing.assert_allclose(mesh.weights[8][used], [1.0])


def test_more_than_four_influences_are_cut_with_a_warning(tmp_path):
    original = bonespro_model(tmp_path)
    assert np.count_nonzero(original.meshes[0].weights[11]) == 5
    warnings = export_gltf(original, tmp_path / "bonespro.glb")
    assert any("1 vertices have more than 4 bone influences" in warning for warning in warnings)
    loaded = loading.load([tmp_path / "bonespro.glb"])
    assert np.count_nonzero(loaded.meshes[0].weights[11]) == 4
    # The cut is real: with all five influences the vertex lands elsewhere.
    clip, loaded_clip = original.clips[0], loaded.clips[0]
    full = posed_positions(original, evaluate(original, clip, clip.times[-1]))[11]
    cut = posed_positions(original, evaluate(original, clip, clip.times[-1]), influences=INFLUENCES)[11]
    actual = posed_positions(loaded, evaluate(loaded, loaded_clip, clip.times[-1]))[11]
    np.testing.assert_allclose(actual, Z_UP_TO_Y_UP[:3, :3] @ cut, atol=TOLERANCE * rest_extent(original))
    assert np.linalg.norm(full - cut) > 10 * TOLERANCE * rest_extent(original)


def test_texture_names_survive_and_only_usable_images_are_referenced(tmp_path):
    # glTF images are PNG or JPEG and must exist where the URI points (else a validator IO_ERROR):
    # a .tga name or a PNG that is not beside the output is kept in the material's extras only.
    original = lgw_model(tmp_path)
    textures = ["skin.tga", "faces/face one.png", "missing.png"]
    (tmp_path / "out" / "faces").mkdir(parents=True)
    (tmp_path / "out" / "faces" / "face one.png").write_bytes(
        bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
                      "0000000d49444154789c6360f8cfc0f01f0005000201d5a1b33b0000000049454e44ae426082"))
    original = replace(original, meshes=[_retextured(mesh, texture)
                                         for mesh, texture in zip(original.meshes, textures)])
    path = tmp_path / "out" / "larva.glb"
    warnings = export_gltf(original, path)
    assert [w for w in warnings if "texture" in w] == [
        ("texture 'skin.tga' was not found and is not a PNG or JPEG name glTF could reference; its "
         "name is kept in the material's extras")]
    document = json.loads(path.read_bytes()[20:20 + struct.unpack_from("<I", path.read_bytes(), 12)[0]])
    assert [image["uri"] for image in document["images"]] == ["faces/face%20one.png"]
    assert [m["extras"]["texture"] for m in document["materials"]] == textures
    assert [mesh.material.texture for mesh in loading.load([path]).meshes] == textures
    if VALIDATOR:
        issues = validate(path)[str(path)]
        assert issues["numErrors"] == 0 and issues["numWarnings"] == 0, issues["messages"]


def _retextured(mesh, texture: str):
    from dataclasses import replace
    return replace(mesh, material=replace(mesh.material, texture=texture))


def test_step_key_takes_effect_at_its_own_time(tmp_path):
    # 0.6 is no float32: written to nearest (0.60000002) the key would start after 0.6 s.
    original = lgw_model(tmp_path)
    hand = original.skeleton.index("hand")
    export_gltf(original, tmp_path / "larva.glb")
    loaded = loading.load([tmp_path / "larva.glb"])
    track = next(t for t in loaded.clips[0].tracks if t.interpolation == "step")
    assert 0.6 - 1e-7 < track.scale[0][1] <= 0.6  # the float32 at or before 0.6
    world = evaluate(loaded, loaded.clips[0], 0.6).world[loaded.skeleton.index("hand")]
    expected = Z_UP_TO_Y_UP @ evaluate(original, original.clips[0], 0.6).world[hand]
    np.testing.assert_allclose(world, expected, atol=1e-5 * rest_extent(original))


def test_empty_triangle_list_is_written_as_points(tmp_path):
    # TRIANGLES without indices would draw the vertices three by three (validator warning).
    original = c3de_2010_model(tmp_path)
    original = replace(original, meshes=[_without_faces(original.meshes[0])])
    export_gltf(original, tmp_path / "points.glb")
    loaded = loading.load([tmp_path / "points.glb"])
    assert loaded.meshes[0].triangles is None and not loaded.warnings
    if VALIDATOR:
        issues = validate(tmp_path / "points.glb")[str(tmp_path / "points.glb")]
        assert issues["numErrors"] == 0 and issues["numWarnings"] == 0, issues["messages"]


def _without_faces(mesh):
    from dataclasses import replace
    return replace(mesh, triangles=np.zeros((0, 3), int))


def test_skeleton_without_mesh_has_no_skin(tmp_path):
    # An unused skin is a validator info (UNUSED_OBJECT); the bones are plain nodes.
    export_gltf(bnf_model(tmp_path), tmp_path / "man.gltf")
    document = json.loads((tmp_path / "man.gltf").read_text())
    assert not document.get("skins") and len(document["nodes"]) == 5


# --- exact export of motion glTF's T·R·S cannot hold directly (issue 15) ----------------------------

#: A fixed shear and non-uniform scale: a bone moving rigidly times this has no T·R·S form under its
#: parent, but exports exactly once it is factored into the inverse bind matrices.
SHEAR = np.array([[1.0, 0.35, 0, 0], [0, 1.2, 0.1, 0], [0.2, 0, 0.9, 0], [0, 0, 0, 1]])


def _varying_shear(frame: int) -> np.ndarray:
    shear = np.eye(4)
    shear[0, 1] = 0.1 * frame
    return shear


def bonespro_sheared_model(folder: Path, sheared_bind: bool = False) -> Model:
    """BonesPro with two Bones/Matrix clips: in 'walk' the arm and the head move rigidly times a fixed
    shear (exact through the factors); 'wobble' is the same with the arm's shear changing every frame
    on top (no factor makes that T·R·S: it becomes morph targets). ``sheared_bind``: the bind frames
    carry the same fixed shears, so the rest pose agrees with 'walk'."""
    rng = np.random.default_rng(71)
    bind = world_from_relative(_bonespro_locals(0.0), BONESPRO_PARENTS)
    if sheared_bind:
        bind[1] = bind[1] @ SHEAR
        bind[3] = bind[3] @ np.linalg.inv(SHEAR)
    positions = rng.uniform([-20, -15, 60], [30, 15, 170], (30, 3))
    influences = [[(int(b), 1.0)] if v % 2 else [(int(b), 0.6), (int(b + 1) % 5, 0.4)]
                  for v, b in enumerate(rng.integers(0, 5, len(positions)))]
    structure = write.bonespro_structure(folder / "body.txt", BONESPRO_NAMES, BONESPRO_PARENTS, bind,
                                         positions, influences)
    world = np.stack([world_from_relative(_bonespro_locals(f), BONESPRO_PARENTS) for f in range(5)])
    walk = world.copy()
    walk[:, 1] = walk[:, 1] @ SHEAR
    walk[:, 3] = walk[:, 3] @ np.linalg.inv(SHEAR)
    wobble = walk.copy()
    wobble[:, 1] = np.stack([wobble[f, 1] @ _varying_shear(f) for f in range(5)])
    paths = [write.bonespro_bones_matrix(folder / f"{name}.txt", frames, len(positions))
             for name, frames in (("walk", walk), ("wobble", wobble))]
    return loading.load([structure, *paths])


def c3de_sheared_model(folder: Path) -> Model:
    """C3DE 2010 whose skinning matrices are rigid motions times a fixed shear per bone."""
    bind = np.array([np.eye(4), maths.translation([0, 0, 1]) @ _rotation([0, 0, 1], np.pi / 2),
                     maths.translation([0, 0, 2])])
    skinning = _c3de_skinning(5)
    skinning[:, 1] = skinning[:, 1] @ bind[1] @ SHEAR @ np.linalg.inv(bind[1])
    skinning[:, 2] = skinning[:, 2] @ bind[2] @ SHEAR.T @ np.linalg.inv(bind[2])
    mesh = folder / "body.c3d"
    mesh.write_bytes(write_mesh(C3DE_POSITIONS, C3DE_BONE0, C3DE_BONE1, C3DE_WEIGHT0, C3DE_UVS,
                                layout="2010"))
    bones = folder / "bodybones.c3d"
    bones.write_bytes(write_bones_2010(bind, [[0, 0, 0], [0, 0, 1], [0, 0, 2]],
                                       [[0, 0, 1], [0, 1, 1], [0, 0, 2.5]], skinning, [-1, 0, 1]))
    return loading.load([mesh, bones])


def stored_frame_error(original: Model, loaded: Model, conversion: np.ndarray) -> float:
    """Largest vertex difference (bone origins for a model without vertices) over every clip's stored
    frames, as a fraction of the model's size."""
    bones = [loaded.skeleton.index(name) for name in original.skeleton.names]
    worst = 0.0
    for clip, loaded_clip in zip(original.clips, loaded.clips, strict=True):
        assert loaded_clip.frame_count == clip.frame_count
        # Frame by frame: the file's frames sit at float32 times.
        for time, stored in zip(clip.frame_times, loaded_clip.frame_times):
            pose, loaded_pose = evaluate(original, clip, time), evaluate(loaded, loaded_clip, stored)
            if original.vertex_count:
                expected = posed_positions(original, pose, influences=INFLUENCES)
                actual = posed_positions(loaded, loaded_pose)
            else:
                expected, actual = pose.world[:, :3, 3], loaded_pose.world[bones, :3, 3]
            worst = max(worst, float(np.abs(actual - maths.transform_points(conversion, expected)).max()))
    return worst / rest_extent(original)


@pytest.mark.parametrize("build", [bonespro_sheared_model, c3de_sheared_model])
def test_sheared_clips_round_trip_exactly(tmp_path, build):
    original = build(tmp_path)
    sheared = [clip.name for clip in original.clips
               if maths.decompose_trs(world_local(original, clip)).__getitem__(3).max() > 1e-3]
    assert sheared == [clip.name for clip in original.clips], "every clip has shear T·R·S cannot hold"
    path = tmp_path / "sheared.glb"
    warnings = export_gltf(original, path)
    baked = [clip.name for clip in original.clips if any(f"clip {clip.name!r}" in w for w in warnings)]
    assert baked == (["wobble"] if build is bonespro_sheared_model else [])
    if VALIDATOR:
        issues = validate(path)[str(path)]
        assert issues["numErrors"] == 0, issues["messages"]
    loaded = loading.load([path])
    assert stored_frame_error(original, loaded, conversion_of(path, original)) <= 1e-5


def world_local(model: Model, clip: Clip) -> np.ndarray:
    """(F, B, 4, 4) each bone's matrix relative to its parent at the clip's frames."""
    world = clip.world
    local = world.copy()
    children = np.flatnonzero(model.skeleton.parents >= 0)
    local[:, children] = np.linalg.inv(world[:, model.skeleton.parents[children]]) @ world[:, children]
    return local


@pytest.mark.parametrize("name", list(MODELS))
def test_every_format_round_trips_to_1e5_at_stored_frames(tmp_path, name):
    original = MODELS[name](tmp_path)
    path = tmp_path / f"{name}.glb"
    export_gltf(original, path)
    loaded = loading.load([path])
    assert stored_frame_error(original, loaded, conversion_of(path, original)) <= 1e-5


def test_keyed_clip_keeps_its_keys_beside_factored_bones(tmp_path):
    # The root turns in a keyed clip; the arm and head have factors (they are sheared at rest and in
    # 'walk') but the keyed clip tracks neither them nor a parent of theirs, so its keys are written
    # as they are and it plays exactly between keys too.
    original = bonespro_sheared_model(tmp_path, sheared_bind=True)
    root = original.skeleton.index("Bip01")
    turn = maths.quat_from_axis_angle(np.array([0.0, 0.0, 1.0]), np.array([0.0, 0.8, 1.6]))
    rest = maths.decompose_trs(original.skeleton.rest_local[root])[1]
    original = replace(original, clips=[*original.clips, Clip("turn", "keyed", tracks=[
        Track(root, rotation=([0.0, 0.5, 1.0], maths.quat_multiply(rest[None], turn)))])])
    path = tmp_path / "turn.glb"
    warnings = export_gltf(original, path)
    assert [w.split(":")[0] for w in warnings if "morph targets" in w] == ["clip 'wobble'"]
    length = struct.unpack_from("<I", path.read_bytes(), 12)[0]
    animations = json.loads(path.read_bytes()[20:20 + length])["animations"]
    assert [len(a["channels"]) for a in animations if a["name"] == "turn"] == [1]
    loaded = loading.load([path])
    conversion = conversion_of(path, original)
    for time in (None, 0.0, 0.25, 0.5, 0.8):
        clip, loaded_clip = (None, None) if time is None else (original.clips[-1], loaded.clips[-1])
        expected = posed_positions(original, evaluate(original, clip, time or 0.0), influences=INFLUENCES)
        actual = posed_positions(loaded, evaluate(loaded, loaded_clip, time or 0.0))
        error = np.abs(actual - maths.transform_points(conversion, expected)).max() / rest_extent(original)
        assert error <= 1e-5, (time, error)
