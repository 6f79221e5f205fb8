"""One mesh on the GPU: its vertex buffers, its morph targets' textures and the vertex arrays each
program makes of them."""

from __future__ import annotations

import moderngl
import numpy as np

from app.model import Mesh
from app.render.materials import anchor, culls_back_faces
from app.skin_weights import top_influences

#: Texels per row of the morph textures (rows wrap; any count of targets and vertices fits).
MORPH_TEXTURE_WIDTH = 4096
#: Texture units of the morph deltas and weights (the bone texture is 0, the base colour 1).
MORPH_DELTAS_UNIT, MORPH_WEIGHTS_UNIT = 2, 3


class GpuMesh:
    """One mesh's GPU buffers and the vertex arrays made from them; ``release`` frees them all.

    positions, normals: (V, 3) f4; joints: (V, 4) i4 rows of the bone texture (bone indices plus
    ``palette_offset``, where the mesh's own skin's matrices start); weights: (V, 4) f4 (the four
    largest influences, renormalised); uvs: (V, 2) f4 (zeros when the mesh has none); colors: (V, 4)
    f4 linear RGBA (ones when the mesh has none); indices: (T·3,) i4 or none for point clouds.
    A mesh with morph targets has two float textures (``MorphTextures``): the deltas and the pose's
    weights, which the vertex stage applies before skinning.
    """

    def __init__(self, ctx: moderngl.Context, mesh: Mesh, programs: dict[str, moderngl.Program],
                 palette_offset: int = 0):
        self.ctx = ctx
        self.mesh = mesh
        self.palette_offset = palette_offset
        self.vertex_count = mesh.vertex_count
        self.points = mesh.triangles is None
        joints, weights = top_influences(mesh.joints, mesh.weights)
        uvs = mesh.uvs if mesh.uvs is not None else np.zeros((mesh.vertex_count, 2))
        colors = mesh.colors if mesh.colors is not None else np.ones((mesh.vertex_count, 4))
        self.buffers = {
            "in_position": ctx.buffer(mesh.positions.astype("f4").tobytes()),
            "in_normal": ctx.buffer(mesh.smooth_normals.astype("f4").tobytes()),
            "in_joints": ctx.buffer((joints + palette_offset).astype("i4").tobytes()),
            "in_weights": ctx.buffer(weights.astype("f4").tobytes()),
            "in_uv": ctx.buffer(uvs.astype("f4").tobytes()),
            "in_color": ctx.buffer(colors.astype("f4").tobytes()),
        }
        self.cull_back = culls_back_faces(mesh)
        self.centre, self.anchor_bone = anchor(mesh)
        self.animated_centre: np.ndarray | None = None
        #: Whether the position buffer holds swung positions rather than the mesh's own.
        self.swung = False
        self.index_buffer = None if self.points else ctx.buffer(mesh.triangles.astype("i4").tobytes())
        self.animated_buffer: moderngl.Buffer | None = None
        self.capture_buffer: moderngl.Buffer | None = None
        self.programs = programs
        self.vertex_arrays: dict[str, moderngl.VertexArray] = {}
        self.morphs = None if mesh.morphs is None else MorphTextures(ctx, mesh)

    def _vertex_array(self, program_name: str, animated: bool = False) -> moderngl.VertexArray:
        key = program_name + (":animated" if animated else "")
        if key not in self.vertex_arrays:
            program = self.programs[program_name]
            formats = {"in_position": "3f", "in_normal": "3f", "in_joints": "4i", "in_weights": "4f",
                       "in_uv": "2f", "in_color": "4f"}
            sources = dict(self.buffers)
            if animated:
                sources["in_position"] = self.animated_buffer
            content = [(sources[name], formats[name], name) for name in formats if name in program]
            index = None if program_name == "capture" else self.index_buffer
            self.vertex_arrays[key] = self.ctx.vertex_array(program, content, index_buffer=index,
                                                            index_element_size=4)
        return self.vertex_arrays[key]

    def set_bind_positions(self, positions: np.ndarray | None) -> None:
        """Skin ``positions`` (V, 3) in place of the mesh's own bind positions (a danglymesh's sway);
        None puts the mesh's own back."""
        if positions is None and not self.swung:
            return
        source = self.mesh.positions if positions is None else positions
        self.buffers["in_position"].write(np.ascontiguousarray(source, dtype="f4").tobytes())
        self.swung = positions is not None

    def upload_positions(self, positions: np.ndarray) -> None:
        """Replace the drawn positions (V, 3) (a vertex-animated clip's frame)."""
        data = np.ascontiguousarray(positions, dtype="f4").tobytes()
        self.animated_centre = positions.mean(axis=0, dtype=np.float64) if len(positions) else self.centre
        if self.animated_buffer is None:
            self.animated_buffer = self.ctx.buffer(data, dynamic=True)
        else:
            self.animated_buffer.write(data)

    def posed_centre(self, skin: np.ndarray, animated: bool) -> np.ndarray:
        """(3,) the mesh's centre in the current pose (for sorting blended meshes)."""
        if animated and self.animated_centre is not None:
            return self.animated_centre
        if self.anchor_bone < 0 or self.anchor_bone >= len(skin):
            return self.centre
        return skin[self.anchor_bone, :3, :3] @ self.centre + skin[self.anchor_bone, :3, 3]

    def upload_morph_weights(self, weights: np.ndarray) -> None:
        """The pose's weights (M,) of this mesh's targets (a mesh without targets ignores them)."""
        if self.morphs is not None:
            self.morphs.write_weights(weights)

    def _bind_morphs(self, program: moderngl.Program, animated: bool) -> None:
        """The morph uniforms of ``program``: this mesh's targets, or none (a vertex clip's frame
        already holds them)."""
        if "morph_count" not in program:
            return
        if self.morphs is None or animated:
            program["morph_count"].value = 0
            return
        self.morphs.use(program)

    def draw(self, animated: bool, mode: int) -> None:
        """Draw with the mesh program (its uniforms already set): triangles or points."""
        self._bind_morphs(self.programs["mesh"], animated)
        vertex_array = self._vertex_array("mesh", animated)
        vertex_array.render(mode if not self.points else moderngl.POINTS)

    def capture(self, animated: bool) -> moderngl.Buffer:
        """Run the skinning vertex stage alone and keep (V, 6) f4 positions and normals."""
        if self.capture_buffer is None:
            self.capture_buffer = self.ctx.buffer(reserve=max(self.vertex_count, 1) * 24)
        self._bind_morphs(self.programs["capture"], animated)
        self._vertex_array("capture", animated).transform(
            self.capture_buffer, mode=moderngl.POINTS, vertices=self.vertex_count)
        return self.capture_buffer

    def release(self) -> None:
        for vertex_array in self.vertex_arrays.values():
            vertex_array.release()
        for buffer in (*self.buffers.values(), self.index_buffer, self.animated_buffer, self.capture_buffer):
            if buffer is not None:
                buffer.release()
        self.vertex_arrays.clear()
        self.buffers.clear()
        if self.morphs is not None:
            self.morphs.release()
            self.morphs = None


def _wrapped_texture(ctx: moderngl.Context, texels: np.ndarray, components: int) -> moderngl.Texture:
    """A float texture of ``texels`` (N, components) in rows of ``MORPH_TEXTURE_WIDTH`` (the last
    padded), read with texelFetch."""
    width = max(1, min(len(texels), MORPH_TEXTURE_WIDTH))
    rows = max(1, -(-len(texels) // width))
    padded = np.zeros((rows * width, components), "f4")
    padded[: len(texels)] = texels
    texture = ctx.texture((width, rows), components, padded.tobytes(), dtype="f4")
    texture.filter = (moderngl.NEAREST, moderngl.NEAREST)
    return texture


class MorphTextures:
    """One mesh's morph targets on the GPU: deltas (positions of every target, then normals; RGBA32F,
    texel ``m·V + v``) and the weights less the defaults (R32F, one texel per target)."""

    def __init__(self, ctx: moderngl.Context, mesh: Mesh):
        morphs = mesh.morphs
        self.count, self.vertices = morphs.count, mesh.vertex_count
        self.defaults = morphs.defaults
        normals = morphs.normals if morphs.normals is not None else np.zeros_like(morphs.positions)
        deltas = np.concatenate([morphs.positions, normals]).reshape(-1, 3)
        self.deltas = _wrapped_texture(ctx, np.pad(deltas, ((0, 0), (0, 1))), 4)
        self.weights = _wrapped_texture(ctx, np.zeros((self.count, 1)), 1)

    def write_weights(self, weights: np.ndarray) -> None:
        texels = np.zeros(self.weights.size[0] * self.weights.size[1], "f4")
        texels[: self.count] = np.asarray(weights, dtype=np.float64) - self.defaults
        self.weights.write(texels.tobytes())

    def use(self, program: moderngl.Program) -> None:
        self.deltas.use(MORPH_DELTAS_UNIT)
        self.weights.use(MORPH_WEIGHTS_UNIT)
        program["morph_deltas"].value = MORPH_DELTAS_UNIT
        program["morph_weights"].value = MORPH_WEIGHTS_UNIT
        program["morph_count"].value = self.count
        program["morph_vertices"].value = self.vertices

    def release(self) -> None:
        self.deltas.release()
        self.weights.release()
