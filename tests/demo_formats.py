"""The demo character written in every seed format by the test writers (tests/writers), so each
reader can be checked against the glTF original and the app can be tried on every format.

Each ``write_*`` takes the demo Model and a folder and returns the paths to open together.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.model import Model
from app.pose import evaluate
from tests.writers import c3de_writer, text_formats
from tests.writers.nwn_writer import WAnimation, WNode, _quaternion, write_mdl

#: NWN events written on the demo's walk (time, name).
WALK_EVENTS = [(0.25, "snd_footstep"), (0.75, "snd_footstep")]


def strongest(model: Model, lanes: int) -> tuple[np.ndarray, np.ndarray]:
    """The first mesh's ``lanes`` largest influences per vertex, renormalised: (V, lanes) each."""
    mesh = model.meshes[0]
    order = np.argsort(-mesh.weights, axis=1, kind="stable")[:, :lanes]
    joints = np.take_along_axis(mesh.joints, order, 1)
    weights = np.take_along_axis(mesh.weights, order, 1)
    return joints, weights / weights.sum(axis=1, keepdims=True)


def walk_frames(model: Model) -> tuple[np.ndarray, np.ndarray]:
    """The walk clip's key times (F,) and bone world matrices at them (F, B, 4, 4)."""
    walk = model.clips[0]
    times = walk.frame_times
    return times, np.array([evaluate(model, walk, float(t)).world for t in times])


def local_matrices(model: Model, world: np.ndarray) -> np.ndarray:
    """(B, 4, 4) each bone relative to its parent."""
    parents = model.skeleton.parents
    return np.array([world[b] if parents[b] < 0 else np.linalg.inv(world[parents[b]]) @ world[b]
                     for b in range(len(parents))])


def write_bonespro(model: Model, folder: Path) -> list[Path]:
    """Structure (points, four influences) + a Bones/Matrix/Absolute export of the walk, one file frame
    per key (BonesPro counts frames, not seconds)."""
    skeleton, mesh = model.skeleton, model.meshes[0]
    joints, weights = strongest(model, 4)
    influences = [[(int(j), float(w)) for j, w in zip(row_j, row_w) if w > 0]
                  for row_j, row_w in zip(joints, weights)]
    structure = text_formats.bonespro_structure(folder / "demo_structure.txt", skeleton.names,
                                                skeleton.parents, skeleton.bind_world, mesh.positions,
                                                influences)
    _, frames = walk_frames(model)
    animation = text_formats.bonespro_bones_matrix(folder / "demo_walk.txt", frames, len(mesh.positions))
    return [structure, animation]


def write_lgw(model: Model, folder: Path) -> list[Path]:
    """One skinned (WVERTS) mesh and a helper 'hat' above the head."""
    skeleton, mesh = model.skeleton, model.meshes[0]
    joints, weights = strongest(model, 4)
    vertices = np.zeros((len(mesh.positions), 8))
    vertices[:, :3] = mesh.positions
    vertices[:, 5:] = mesh.normals
    influences = [[(float(w), skeleton.names[j]) for j, w in zip(row_j, row_w) if w > 0]
                  for row_j, row_w in zip(joints, weights)]
    link = text_formats.lgw_skin_link({name: skeleton.bind_world[b] for b, name in enumerate(skeleton.names)})
    head = skeleton.names.index("head")
    hat = skeleton.bind_world[head].copy()
    hat[:3, 3] += (0.0, 0.25, 0.0)
    blocks = [text_formats.lgw_mesh("body", link, vertices, mesh.triangles, influences),
              text_formats.lgw_helper("hat", "head", skeleton.bind_world[head], hat)]
    return [text_formats.lgw_model(folder / "demo.lgw", blocks)]


def write_bnf(model: Model, folder: Path) -> list[Path]:
    """Bone centres, the walk's rotations relative to the parent (from the default pose), and a
    parameter file mirroring left and right."""
    skeleton = model.skeleton
    times, frames = walk_frames(model)
    bind_rotation = skeleton.bind_world[:, :3, :3]
    keys = []
    for world in frames:
        change = world[:, :3, :3] @ np.swapaxes(bind_rotation, 1, 2)
        keys.append([_quaternion(change[b] if p < 0 else change[p].T @ change[b])
                     for b, p in enumerate(skeleton.parents)])
    names = skeleton.names
    mirror = [names.index(n.replace("_l", "_r")) if n.endswith("_l") else
              names.index(n.replace("_r", "_l")) if n.endswith("_r") else b for b, n in enumerate(names)]
    return [text_formats.bnf(folder / "demo.bnf", skeleton.parents, skeleton.heads),
            text_formats.anm(folder / "demo.anm", times, np.array(keys)),
            text_formats.prm(folder / "demo.prm", [(b, m, 0.1, 0.05) for b, m in enumerate(mirror)])]


def write_nwn(model: Model, folder: Path) -> list[Path]:
    """A skin mesh under a root dummy, the bone tree with rest TRS, and the walk with two events."""
    skeleton, mesh = model.skeleton, model.meshes[0]
    bind_local = local_matrices(model, skeleton.bind_world)
    nodes = [WNode(name, 0x001, tuple(bind_local[b][:3, 3]), tuple(_quaternion(bind_local[b][:3, :3])))
             for b, name in enumerate(skeleton.names)]
    root = _tree(skeleton.parents, nodes, WNode("demo"))
    joints, weights = strongest(model, 4)
    lanes = [[skeleton.names[j] if w > 0 else None for j, w in zip(row_j, row_w)]
             for row_j, row_w in zip(joints, weights)]
    root.children.append(WNode("body", 0x061, (0, 0, 0), (0, 0, 0, 1), vertices=mesh.positions,
                               faces=mesh.triangles, uvs=mesh.uvs, skin_bones=lanes, skin_weights=weights))
    times, frames = walk_frames(model)
    locals_ = np.array([local_matrices(model, world) for world in frames])
    animated = [WNode(name, keys=[(8, list(times), [tuple(m[:3, 3]) for m in locals_[:, b]]),
                                  (20, list(times), [tuple(_quaternion(m[:3, :3])) for m in locals_[:, b]])])
                for b, name in enumerate(skeleton.names)]
    walk = WAnimation("walk", float(times[-1]), _tree(skeleton.parents, animated, WNode("demo")), WALK_EVENTS)
    path = folder / "demo.mdl"
    path.write_bytes(write_mdl("demo", root, [walk]))
    return [path]


def _tree(parents: np.ndarray, nodes: list[WNode], root: WNode) -> WNode:
    for bone, parent in enumerate(parents):
        (root if parent < 0 else nodes[parent]).children.append(nodes[bone])
    return root


def write_c3de(model: Model, folder: Path) -> list[Path]:
    """A 2010 mesh file (two influences, index list) and a 2010 bones file of the walk."""
    skeleton, mesh = model.skeleton, model.meshes[0]
    joints, weights = strongest(model, 2)
    bone1 = np.where(weights[:, 1] > 0, joints[:, 1], -1)
    mesh_path, bones_path = folder / "demo.c3d", folder / "demo_bones.c3d"
    mesh_path.write_bytes(c3de_writer.write_mesh(mesh.positions, joints[:, 0], bone1, weights[:, 0],
                                                 uvs=mesh.uvs, normals=mesh.normals,
                                                 indices=mesh.triangles.ravel()))
    _, frames = walk_frames(model)
    skinning = frames @ np.linalg.inv(skeleton.bind_world)
    bones_path.write_bytes(c3de_writer.write_bones_2010(skeleton.bind_world, skeleton.heads, skeleton.tails,
                                                        skinning, skeleton.parents))
    return [mesh_path, bones_path]


WRITERS = {"bonespro": write_bonespro, "lgw": write_lgw, "bnf": write_bnf, "nwn_mdl": write_nwn,
           "c3de": write_c3de}
