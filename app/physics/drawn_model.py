"""A model's bind space as it is drawn: the armature's scale and turn applied.

A Mixamo rig exported through Blender binds its skin in centimetres, Z up, under an armature scaled
0.01 and turned to Y up: the bind matrices and the mesh positions are in the armature's space, and
every bone's skinning matrix at rest (``rest_world @ bind_inverse``) is that armature transform.
Parts fitted in that space are 100 times too big and lie on their backs. The ragdoll fits, builds
and measures its parts on ``as_drawn(model)``: the same model with that transform moved into the bind
space (bind matrices, heads and tails, mesh positions and normals, mesh skins' inverse binds), so
the skin is drawn exactly as before and a 0.01-armature rig gets the parts of the same rig in metres.
The rest pose and clips (bone world matrices) do not change, so poses read from either model agree.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from app import maths
from app.derived import derived
from app.model import Mesh, MeshSkin, Model, Skeleton
from app.skin_weights import dominant_bones

#: Skinning matrices at rest that differ by no more than this (relative to their scale, and to the
#: model's size for the translation) are one armature transform.
SAME_TRANSFORM = 1e-4
#: A transform this close to the identity (scale, rotation entries, translation relative to size)
#: is left alone.
IDENTITY_TOLERANCE = 1e-3


@derived
def as_drawn(model: Model) -> Model:
    """``model`` with its armature transform (``armature_transform``) moved into its bind space, or
    ``model`` itself when there is none."""
    transform = armature_transform(model)
    if transform is None:
        return model
    return _transformed(model, transform)


def armature_transform(model: Model) -> np.ndarray | None:
    """(4, 4) the similarity (uniform scale, rotation, translation) that every bone moving vertices
    has as its skinning matrix at rest, when it is not the identity; None when the skin's bones
    disagree (a rest pose that is not the bind pose) or there is no such transform."""
    skeleton = model.skeleton
    if skeleton.rest_is_bind or not len(skeleton):
        return None
    owners, positions = dominant_bones(model.meshes, drawn_only=True)
    bones = np.unique(owners[owners >= 0])
    if not len(bones):
        return None
    skins = skeleton.rest_world[bones] @ skeleton.bind_inverse[bones]
    first = skins[0]
    scale = float(np.cbrt(abs(np.linalg.det(first[:3, :3]))))
    size = float(np.ptp(positions, axis=0).max()) * scale if len(positions) else 1.0
    linear_gap = np.abs(skins[:, :3, :3] - first[:3, :3]).max() / max(scale, 1e-12)
    moved_gap = np.abs(skins[:, :3, 3] - first[:3, 3]).max() / max(size, 1e-12)
    if max(linear_gap, moved_gap) > SAME_TRANSFORM or scale <= 0:
        return None
    turn = first[:3, :3] / scale
    if np.abs(turn.T @ turn - np.eye(3)).max() > SAME_TRANSFORM or np.linalg.det(turn) < 0:
        return None
    still = (abs(scale - 1) <= IDENTITY_TOLERANCE and np.abs(turn - np.eye(3)).max() <= IDENTITY_TOLERANCE
             and np.abs(first[:3, 3]).max() <= IDENTITY_TOLERANCE * max(size, 1e-12))
    return None if still else first


def _transformed(model: Model, transform: np.ndarray) -> Model:
    """``model`` with ``transform`` (4, 4, a similarity) applied to its bind space."""
    skeleton = model.skeleton
    undo = maths.affine_inverse(transform)
    moved_skeleton = Skeleton(names=list(skeleton.names), parents=skeleton.parents,
                              bind_world=transform @ skeleton.bind_world,
                              heads=maths.transform_points(transform, skeleton.heads),
                              tails=maths.transform_points(transform, skeleton.tails),
                              derived_tails=skeleton.derived_tails, extras=list(skeleton.extras),
                              rest_local=skeleton.rest_local)
    skins = {}
    meshes = []
    for mesh in model.meshes:
        skin = mesh.skin
        if skin is not None and id(skin) not in skins:
            skins[id(skin)] = MeshSkin(joints=skin.joints, inverse_bind=skin.inverse_bind @ undo)
        meshes.append(_moved_mesh(mesh, transform, None if skin is None else skins[id(skin)]))
    return replace(model, skeleton=moved_skeleton, meshes=meshes)


def _moved_mesh(mesh: Mesh, transform: np.ndarray, skin: MeshSkin | None) -> Mesh:
    """``mesh`` with its bind positions and normals moved by ``transform``, bound by ``skin``."""
    normals = None
    if mesh.normals is not None:
        normals, _ = maths.normalize(mesh.normals @ transform[:3, :3].T)
    return replace(mesh, positions=maths.transform_points(transform, mesh.positions), normals=normals,
                   skin=skin)
