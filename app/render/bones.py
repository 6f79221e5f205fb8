"""The skeleton on the GPU: the bone texture the skinning shader reads (the pose's palette) and the
bone octahedra drawn for View › Skeleton."""

from __future__ import annotations

import moderngl
import numpy as np

from app import maths
from app.model import Mesh, Model
from app.pose import rest_extent
from app.render.gpu_mesh import GpuMesh

#: Octahedral bone: the waist's distance along the bone and its radius, as fractions of the length.
BONE_WAIST = 0.12
BONE_RADIUS = 0.1
#: Length of a bone with no extent, as a fraction of the model's extent.
BONE_STUB = 0.02
#: Texels per bone in the bone texture: three matrix rows, the real and the dual quaternion.
BONE_TEXELS = 5


class BoneTexture:
    """The texture of skinning matrices (a row of ``BONE_TEXELS`` texels per palette entry); one
    texture, made again only when a model needs another number of rows."""

    def __init__(self, ctx: moderngl.Context):
        self.ctx = ctx
        self.texture: moderngl.Texture | None = None

    def fit(self, rows: int) -> None:
        """A texture of ``rows`` rows (at least one), kept when it has that size already."""
        rows = max(rows, 1)
        if self.texture is not None and self.texture.size == (BONE_TEXELS, rows):
            return
        self.release()
        self.texture = self.ctx.texture((BONE_TEXELS, rows), 4, dtype="f4")
        self.texture.filter = (moderngl.NEAREST, moderngl.NEAREST)

    def write(self, palette: np.ndarray) -> None:
        """The (P, 4, 4) skinning palette into the texture's first P rows."""
        if len(palette):
            self.texture.write(bone_texels(palette).tobytes())

    def use(self, unit: int) -> None:
        self.texture.use(unit)

    def release(self) -> None:
        if self.texture is not None:
            self.texture.release()
        self.texture = None


class BoneShapes:
    """The bone octahedra of the model shown (``mesh``, None for a model without bones), kept while the
    skeleton and the extent (their stubs' length) are the ones they were made for."""

    def __init__(self, ctx: moderngl.Context, programs: dict[str, moderngl.Program]):
        self.ctx = ctx
        self.programs = programs
        self.mesh: GpuMesh | None = None
        self._source: tuple | None = None

    def show(self, model: Model, extent: float) -> None:
        source = (model.skeleton, extent)
        kept = self._source
        if kept is not None and kept[0] is source[0] and kept[1] == source[1]:
            return
        self.release()
        if len(model.skeleton):
            self.mesh = GpuMesh(self.ctx, bone_octahedra(model), self.programs)
            self._source = source

    def release(self) -> None:
        if self.mesh is not None:
            self.mesh.release()
        self.mesh, self._source = None, None


def bone_octahedra(model: Model) -> Mesh:
    """The skeleton as one mesh of octahedral bones in bind space, each vertex weighted 1 to its bone.

    Each bone has 8 flat-shaded faces (24 vertices) from head to tail, its waist turned with the
    bone's bind X axis. Skinned by S_b, the octahedra follow ``Pose.heads_tails``.
    """
    skeleton = model.skeleton
    count = len(skeleton)
    heads, tails = skeleton.heads, skeleton.tails
    along = tails - heads
    lengths = np.linalg.norm(along, axis=1)
    y_axes, valid = maths.normalize(along)
    bind_y, _ = maths.normalize(skeleton.bind_world[:, :3, 1])
    y_axes = np.where(valid[:, None], y_axes, bind_y)
    lengths = np.where(valid, lengths, BONE_STUB * rest_extent(model))
    bind_x = skeleton.bind_world[:, :3, 0]
    x_axes = bind_x - np.sum(bind_x * y_axes, axis=1)[:, None] * y_axes
    x_axes, x_valid = maths.normalize(x_axes)
    fallback = np.where(np.abs(y_axes[:, :1]) < 0.9, [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]])
    fallback, _ = maths.normalize(np.cross(y_axes, fallback))
    x_axes = np.where(x_valid[:, None], x_axes, fallback)
    z_axes = np.cross(x_axes, y_axes)
    waist = heads + y_axes * (lengths * BONE_WAIST)[:, None]
    radius = (lengths * BONE_RADIUS)[:, None]
    ring = np.stack([waist + x_axes * radius, waist + z_axes * radius,
                     waist - x_axes * radius, waist - z_axes * radius], axis=1)  # (B, 4, 3)
    following = np.roll(ring, -1, axis=1)
    head_faces = np.stack([np.repeat(heads[:, None], 4, axis=1), following, ring], axis=2)
    tail_faces = np.stack([np.repeat(tails[:, None], 4, axis=1), ring, following], axis=2)
    corners = np.concatenate([head_faces, tail_faces], axis=1)  # (B, 8, 3, 3)
    edges = corners[:, :, 1:] - corners[:, :, :1]
    normals, _ = maths.normalize(np.cross(edges[:, :, 0], edges[:, :, 1]))
    return Mesh(
        name="skeleton",
        positions=corners.reshape(-1, 3),
        normals=np.repeat(normals, 3, axis=1).reshape(-1, 3),
        joints=np.repeat(np.arange(count), 24)[:, None],
        weights=np.ones((count * 24, 1)),
        triangles=np.arange(count * 24).reshape(-1, 3),
    )


def bone_texels(skin: np.ndarray) -> np.ndarray:
    """(B, 5, 4) f4 texture rows from skinning matrices (B, 4, 4): the top three matrix rows,
    the real quaternion and the dual quaternion (x, y, z, w)."""
    texels = np.empty((len(skin), BONE_TEXELS, 4), np.float32)
    texels[:, :3] = skin[:, :3, :]
    if len(skin):
        texels[:, 3:] = maths.dual_quaternions_from_matrices(skin)
    return texels
