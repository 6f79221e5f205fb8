"""The moderngl renderer: meshes skinned on the GPU and drawn with their materials (base colour and
texture, alpha modes, sidedness), and the overlays (skeleton, grid, wireframe, normals, weight heat map).

It draws into any framebuffer it is given, so the Qt viewport and the headless ``offscreen`` module
share it; it never imports Qt. Mesh data goes to the GPU once per model (``set_model``; a model shown
again, e.g. with a clip added, keeps the buffers and textures of the meshes and images it still holds);
a pose only uploads the bone texture (and, for vertex-animated clips, the posed positions).

Opaque and masked meshes are drawn first, then the grid, then blended meshes from the farthest to
the nearest without writing depth. Meshes the file hides are left out unless ``show_hidden``.

Depth is split in two layers: meshes and the grid in the back half, the skeleton in the front half,
so bones show through the skin yet still hide each other.
"""

from __future__ import annotations

import math
from typing import Literal

import moderngl
import numpy as np

from app import maths
from app.model import Mesh, Model
from app.pose import (
    Pose,
    floor_height,
    palette_offset,
    posed_bounds,
    rest_extent,
    rest_pose,
    skinning_palette,
)
from app.render.camera import Camera
from app.render.materials import ALPHA_CODES, TextureCache, anchor, culls_back_faces
from app.render.shaders import load_program, set_uniform
from app.scene.draw_settings import DrawSettings
from app.scene.gizmo_scene import box_lines
from app.skin_weights import top_influences

#: (scale, offset) applied to clip-space z for each depth layer.
SCENE_LAYER = (0.5, 0.5)
OVERLAY_LAYER = (0.5, -0.5)
#: Octahedral bone: the waist's distance along the bone and its radius, as fractions of the length.
BONE_WAIST = 0.12
BONE_RADIUS = 0.1
#: Length of a bone with no extent, as a fraction of the model's extent.
BONE_STUB = 0.02
#: Point radius for point clouds and normal line length, as fractions of the model's extent.
POINT_RADIUS = 0.004
NORMAL_LENGTH = 0.03
#: Texels per bone in the bone texture: three matrix rows, the real and the dual quaternion.
BONE_TEXELS = 5

#: The shader's code for each skinning mode (app.scene.draw_settings.SKINNING_MODES).
SKINNING_CODES = {"none": 0, "lbs": 1, "dqs": 2}
BONE_COLOR = (0.62, 0.64, 0.70)
SELECTED_COLOR = (1.0, 0.55, 0.10)
WIREFRAME_COLOR = (0.05, 0.05, 0.08, 0.55)
NORMALS_COLOR = (0.25, 0.55, 1.0, 0.9)
BOUNDS_COLOR = (0.95, 0.80, 0.30, 1.0)


class GpuMesh:
    """One mesh's GPU buffers and the vertex arrays made from them; ``release`` frees them all.

    positions, normals: (V, 3) f4; joints: (V, 4) i4 rows of the bone texture (bone indices plus
    ``palette_offset``, where the mesh's own skin's matrices start); weights: (V, 4) f4 (the four
    largest influences, renormalised); uvs: (V, 2) f4 (zeros when the mesh has none); colors: (V, 4)
    f4 linear RGBA (ones when the mesh has none); indices: (T·3,) i4 or none for point clouds.
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
        self.index_buffer = None if self.points else ctx.buffer(mesh.triangles.astype("i4").tobytes())
        self.animated_buffer: moderngl.Buffer | None = None
        self.capture_buffer: moderngl.Buffer | None = None
        self.programs = programs
        self.vertex_arrays: dict[str, moderngl.VertexArray] = {}

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

    def draw(self, animated: bool, mode: int) -> None:
        """Draw with the mesh program (its uniforms already set): triangles or points."""
        vertex_array = self._vertex_array("mesh", animated)
        vertex_array.render(mode if not self.points else moderngl.POINTS)

    def capture(self, animated: bool) -> moderngl.Buffer:
        """Run the skinning vertex stage alone and keep (V, 6) f4 positions and normals."""
        if self.capture_buffer is None:
            self.capture_buffer = self.ctx.buffer(reserve=max(self.vertex_count, 1) * 24)
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


def nice_cell(extent: float) -> float:
    """A round grid spacing (1, 2 or 5 × 10^k) about a tenth of ``extent``."""
    raw = max(extent, 1e-9) / 10.0
    power = 10.0 ** math.floor(math.log10(raw))
    return power * min((1.0, 2.0, 5.0, 10.0), key=lambda step: abs(math.log(raw / (power * step))))


class Renderer:
    """Draws one model in one pose into a framebuffer; owns every GL object it creates."""

    def __init__(self, ctx: moderngl.Context):
        self.ctx = ctx
        self.programs = {
            "mesh": load_program(ctx, "mesh.glsl"),
            "capture": load_program(ctx, "mesh.glsl", varyings=("v_world", "v_normal")),
            "grid": load_program(ctx, "grid.glsl"),
            "normals": load_program(ctx, "normals.glsl"),
            "lines": load_program(ctx, "gizmo.glsl"),
        }
        self.grid_array = ctx.vertex_array(self.programs["grid"], [])
        #: The bounding box's 12 edges: (24 ends, position and colour) rewritten for each frame drawn.
        self.bounds_buffer = ctx.buffer(reserve=24 * 7 * 4, dynamic=True)
        self.bounds_array = ctx.vertex_array(self.programs["lines"],
                                             [(self.bounds_buffer, "3f 4f", "in_position", "in_color")])
        self.model: Model | None = None
        self.pose: Pose | None = None
        self.palette: np.ndarray | None = None
        self.meshes: list[GpuMesh] = []
        self.skeleton_mesh: GpuMesh | None = None
        self.bone_texture: moderngl.Texture | None = None
        #: The model's extent, worked out once per model (it scales points, normals and the grid).
        self.extent = 1.0
        self._skeleton_source: tuple | None = None
        self.normal_arrays: dict[int, moderngl.VertexArray] = {}
        self._bounds: dict[bool, tuple[np.ndarray, np.ndarray]] | None = None
        self._floor_bounds: tuple[np.ndarray, np.ndarray] | None = None
        self._capture_framebuffer: moderngl.Framebuffer | None = None
        self._pick_targets: dict[str, moderngl.Framebuffer | moderngl.Renderbuffer] = {}
        self.textures = TextureCache(ctx)

    # --- model and pose -------------------------------------------------------------------------

    def set_model(self, model: Model, pose: Pose | None = None) -> None:
        """Upload ``model``'s meshes and skeleton (once), then show ``pose`` (default: the bind pose).

        Meshes that are the objects already on the GPU (the model shown again, e.g. with a clip added)
        keep their buffers, and images their textures; the previous model's other objects are freed.
        """
        previous = {id(gpu_mesh.mesh): gpu_mesh for gpu_mesh in self.meshes}
        self._release_vertex_arrays()
        self.model = model
        self.extent = rest_extent(model)
        self.meshes = [self._gpu_mesh(model, mesh, previous) for mesh in model.meshes]
        for gpu_mesh in previous.values():
            gpu_mesh.release()
        self._set_skeleton_mesh(model)
        rows = max(len(model.skeleton) * (1 + len(model.skins)), 1)
        if self.bone_texture is None or self.bone_texture.size != (BONE_TEXELS, rows):
            if self.bone_texture is not None:
                self.bone_texture.release()
            self.bone_texture = self.ctx.texture((BONE_TEXELS, rows), 4, dtype="f4")
            self.bone_texture.filter = (moderngl.NEAREST, moderngl.NEAREST)
        materials = [mesh.material for mesh in model.meshes if mesh.material.image is not None]
        self.textures.keep_only([material.image for material in materials])
        for material in materials:
            self.textures.texture(material)
        self.set_pose(pose if pose is not None else rest_pose(model))
        # The grid stays where the model first stood: it does not bob with the animation, and
        # playback needs no CPU skinning per frame to place it.
        self._floor_bounds = self.bounds()

    def _gpu_mesh(self, model: Model, mesh: Mesh, previous: dict[int, GpuMesh]) -> GpuMesh:
        """``mesh`` on the GPU: taken out of ``previous`` when it is there at the same palette offset,
        else uploaded."""
        offset = palette_offset(model, mesh)
        kept = previous.get(id(mesh))
        if kept is not None and kept.mesh is mesh and kept.palette_offset == offset:
            del previous[id(mesh)]
            return kept
        return GpuMesh(self.ctx, mesh, self.programs, offset)

    def _set_skeleton_mesh(self, model: Model) -> None:
        """The bone octahedra, kept when the skeleton and the extent (their stubs' length) are the ones
        they were made for."""
        source = (model.skeleton, self.extent)
        kept = self._skeleton_source
        if kept is not None and kept[0] is source[0] and kept[1] == source[1]:
            return
        if self.skeleton_mesh is not None:
            self.skeleton_mesh.release()
        self.skeleton_mesh, self._skeleton_source = None, None
        if len(model.skeleton):
            self.skeleton_mesh = GpuMesh(self.ctx, bone_octahedra(model), self.programs)
            self._skeleton_source = source

    def set_pose(self, pose: Pose) -> None:
        """Upload the pose's bone texture, or its vertex positions for a vertex-animated clip."""
        if self.model is None:
            raise RuntimeError("set_model before set_pose")
        self.pose = pose
        self._bounds = None
        self._upload_bones(pose)
        if pose.positions is not None:
            offsets = np.cumsum([0] + [mesh.vertex_count for mesh in self.meshes])
            for gpu_mesh, start, end in zip(self.meshes, offsets[:-1], offsets[1:]):
                gpu_mesh.upload_positions(pose.positions[start:end])

    def _upload_bones(self, pose: Pose) -> None:
        """The bone texture: the pose's skinning palette (the skeleton's bind, then each mesh skin's), kept
        as ``palette`` for sorting blended meshes without working it out again on every draw."""
        self.palette = skinning_palette(self.model, pose)
        if len(self.palette):
            self.bone_texture.write(bone_texels(self.palette).tobytes())

    def take_warnings(self) -> list[str]:
        """Problems met since the last call (an image too large for the driver), for the caller to show."""
        warnings = list(self.textures.warnings)
        self.textures.warnings.clear()
        return warnings

    def bounds(self, skeleton: bool = False, show_hidden: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Posed bounds (min (3,), max (3,)) of what is drawn in the current pose (the skeleton too
        when it is shown, hidden meshes when they are), computed once per pose."""
        if self._bounds is None:
            self._bounds = {}
        key = (skeleton, show_hidden)
        if key not in self._bounds:
            self._bounds[key] = posed_bounds(self.model, self.pose, skeleton, show_hidden)
        return self._bounds[key]

    # --- drawing --------------------------------------------------------------------------------

    def draw(self, framebuffer: moderngl.Framebuffer, camera: Camera,
             options: DrawSettings | None = None) -> None:
        """Clear ``framebuffer`` and draw the model, seen by ``camera``, as ``options`` say.

        With ``options.transparent`` the background has alpha 0 and colours are premultiplied.
        """
        options = options or DrawSettings()
        framebuffer.use()
        self.ctx.viewport = framebuffer.viewport
        background = (0.0, 0.0, 0.0, 0.0) if options.transparent else options.background
        framebuffer.clear(*background, depth=1.0)
        if self.model is None:
            return
        self._begin(framebuffer, camera)
        meshes = options.shaded or options.heatmap_bone is not None
        if meshes:
            self._draw_meshes(options, blended=False)
        if options.wireframe:
            self._draw_wireframe(options)
        if options.normals:
            self._draw_normals(options)
        if options.bounds:
            self._draw_bounds(options)
        if options.grid:
            self._draw_grid(camera)
        if meshes:
            self._draw_meshes(options, blended=True, framebuffer=framebuffer, camera=camera)
        if options.bones and self.skeleton_mesh is not None:
            self._draw_bones(options)
        self.ctx.disable(moderngl.BLEND | moderngl.PROGRAM_POINT_SIZE)

    def draw_copies(self, framebuffer: moderngl.Framebuffer, camera: Camera, options: DrawSettings,
                    poses: list[Pose]) -> None:
        """Draw the meshes again, shaded, in each of ``poses`` (e.g. more ragdolls) over what ``draw``
        left in ``framebuffer``, sharing its depth; then restore the current pose's bones."""
        skeletal = [pose for pose in poses if pose.positions is None and len(pose.skin)]
        if self.model is None or not skeletal or not options.shaded:
            return
        self._begin(framebuffer, camera)
        plain = DrawSettings(skinning=options.skinning, point_size=options.point_size,
                             textures=options.textures, show_hidden=options.show_hidden,
                             vertex_colors=options.vertex_colors)
        for pose in skeletal:
            self._upload_bones(pose)
            self._draw_meshes(plain, blended=False)
            self._draw_meshes(plain, blended=True, framebuffer=framebuffer, camera=camera)
        self._upload_bones(self.pose)
        self.ctx.disable(moderngl.PROGRAM_POINT_SIZE)

    def _begin(self, framebuffer: moderngl.Framebuffer, camera: Camera) -> None:
        """Bind ``framebuffer``, set every program's camera uniforms and the depth-tested state."""
        framebuffer.use()
        self.ctx.viewport = framebuffer.viewport
        width, height = framebuffer.viewport[2:]
        projection = camera.projection_matrix(width / max(height, 1))
        self._set_common(camera.view_matrix(), projection, camera, height)
        self.ctx.enable(moderngl.DEPTH_TEST | moderngl.PROGRAM_POINT_SIZE)
        self.ctx.disable(moderngl.BLEND | moderngl.CULL_FACE)

    def _set_common(self, view: np.ndarray, projection: np.ndarray, camera: Camera, height: int) -> None:
        for program in self.programs.values():
            set_uniform(program, "view", view)
            set_uniform(program, "projection", projection)
        mesh = self.programs["mesh"]
        set_uniform(mesh, "eye", tuple(camera.eye))
        set_uniform(mesh, "up", tuple(camera.world_up))
        set_uniform(mesh, "viewport_height", float(height))
        set_uniform(mesh, "point_radius", POINT_RADIUS * self.extent)
        self.bone_texture.use(0)
        for name in ("mesh", "capture"):
            set_uniform(self.programs[name], "bones", 0)
        set_uniform(mesh, "base_texture", 1)
        set_uniform(mesh, "uv_transform", np.eye(3))
        set_uniform(mesh, "textured", False)
        set_uniform(mesh, "alpha_mode", 0)

    def _mesh_uniforms(self, skinning: int, mode: int, color, heat_bone: int | None,
                       layer=SCENE_LAYER, animated: bool = False, highlight=SELECTED_COLOR) -> None:
        program = self.programs["mesh"]
        set_uniform(program, "skinning", 0 if animated else skinning)
        set_uniform(program, "mode", mode)
        set_uniform(program, "color", tuple(color) if len(color) == 4 else (*color, 1.0))
        set_uniform(program, "highlight_color", maths.srgb_to_linear(highlight))
        set_uniform(program, "heat_bone", -1 if heat_bone is None else int(heat_bone))
        set_uniform(program, "depth_layer", layer)
        set_uniform(program, "derivative_normals", animated)

    def _animated(self) -> bool:
        return self.pose is not None and self.pose.positions is not None

    def shown_meshes(self, options: DrawSettings) -> list[GpuMesh]:
        """The meshes ``options`` draw: every mesh with ``show_hidden``, else the visible ones."""
        return [gpu_mesh for gpu_mesh in self.meshes if options.show_hidden or gpu_mesh.mesh.visible]

    def _draw_meshes(self, options: DrawSettings, blended: bool,
                     framebuffer: moderngl.Framebuffer | None = None, camera: Camera | None = None) -> None:
        """The opaque and masked meshes, or (``blended``) the blended ones from the farthest to the
        nearest, blending over what is drawn and leaving the depth buffer as it was."""
        animated = self._animated()
        meshes = [gpu_mesh for gpu_mesh in self.shown_meshes(options)
                  if (gpu_mesh.mesh.material.alpha_mode == "BLEND") == blended]
        if not meshes:
            return
        if blended:
            centres = [gpu_mesh.posed_centre(self.palette[gpu_mesh.palette_offset:], animated)
                       for gpu_mesh in meshes]
            distance = [float(np.linalg.norm(centre - camera.eye)) for centre in centres]
            meshes = [meshes[index] for index in np.argsort(distance)[::-1]]
            self._enable_blending()
            framebuffer.depth_mask = False
            framebuffer.use()
        heat = options.heatmap_bone
        for gpu_mesh in meshes:
            self._mesh_uniforms(SKINNING_CODES[options.skinning], 0 if heat is None else 1,
                                gpu_mesh.mesh.material.base_color,
                                None if heat is None else heat + gpu_mesh.palette_offset, animated=animated)
            self._material_uniforms(gpu_mesh, options.textures, options.vertex_colors)
            gpu_mesh.draw(animated, moderngl.TRIANGLES)
        self._plain_material()
        if blended:
            framebuffer.depth_mask = True
            framebuffer.use()
            self.ctx.disable(moderngl.BLEND)

    def _material_uniforms(self, gpu_mesh: GpuMesh, textures: bool, vertex_colors: bool = True) -> None:
        """The mesh's texture, vertex colours, alpha mode and culling (its colour goes with
        ``_mesh_uniforms``)."""
        program = self.programs["mesh"]
        material = gpu_mesh.mesh.material
        set_uniform(program, "vertex_colors", vertex_colors and gpu_mesh.mesh.colors is not None)
        textured = textures and material.image is not None and gpu_mesh.mesh.uvs is not None
        set_uniform(program, "textured", textured)
        if textured:
            if id(material.image) not in self.textures.entries:  # a newly assigned image replaces one
                self.textures.keep_only([mesh.material.image for mesh in self.model.meshes])
            self.textures.texture(material).use(1)
            set_uniform(program, "mirror", tuple(wrap == "mirror" for wrap in material.wrap))
            uv_transform = np.eye(3) if material.uv_transform is None else material.uv_transform
            set_uniform(program, "uv_transform", uv_transform)
        set_uniform(program, "alpha_mode", ALPHA_CODES[material.alpha_mode])
        set_uniform(program, "alpha_cutoff", float(material.alpha_cutoff))
        set_uniform(program, "unlit", material.unlit)
        set_uniform(program, "sphere_points", gpu_mesh.points)
        if gpu_mesh.cull_back:
            self.ctx.enable(moderngl.CULL_FACE)
        else:
            self.ctx.disable(moderngl.CULL_FACE)

    def _plain_material(self) -> None:
        """Back to an untextured, opaque, unculled material for the overlays."""
        program = self.programs["mesh"]
        set_uniform(program, "textured", False)
        set_uniform(program, "vertex_colors", False)
        set_uniform(program, "alpha_mode", 0)
        set_uniform(program, "unlit", False)
        set_uniform(program, "sphere_points", False)
        self.ctx.disable(moderngl.CULL_FACE)

    def _draw_wireframe(self, options: DrawSettings) -> None:
        self._enable_blending()
        self.ctx.wireframe = True
        self.ctx.polygon_offset = (-1.0, -1.0)
        animated = self._animated()
        color = (*maths.srgb_to_linear(WIREFRAME_COLOR), WIREFRAME_COLOR[3])
        for gpu_mesh in self.shown_meshes(options):
            if gpu_mesh.points:
                continue
            self._mesh_uniforms(SKINNING_CODES[options.skinning], 2, color, None, animated=animated)
            gpu_mesh.draw(animated, moderngl.TRIANGLES)
        self.ctx.polygon_offset = (0.0, 0.0)
        self.ctx.wireframe = False
        self.ctx.disable(moderngl.BLEND)

    def _draw_normals(self, options: DrawSettings) -> None:
        program = self.programs["normals"]
        set_uniform(program, "line_length", NORMAL_LENGTH * self.extent)
        set_uniform(program, "depth_layer", SCENE_LAYER)
        alpha = NORMALS_COLOR[3]
        set_uniform(program, "color", tuple(c * alpha for c in NORMALS_COLOR[:3]) + (alpha,))
        self._enable_blending()
        for index, gpu_mesh in enumerate(self.meshes):
            if not (options.show_hidden or gpu_mesh.mesh.visible):
                continue
            buffer = self._capture(gpu_mesh, options.skinning)
            if index not in self.normal_arrays:
                self.normal_arrays[index] = self.ctx.vertex_array(
                    program, [(buffer, "3f 3f", "in_position", "in_normal")])
            self.normal_arrays[index].render(moderngl.POINTS, vertices=gpu_mesh.vertex_count)
        self.ctx.disable(moderngl.BLEND)

    def _draw_bounds(self, options: DrawSettings) -> None:
        """The edges of the box that frames what is drawn (``bounds``), hidden where the model is in
        front of them."""
        low, high = self.bounds(options.bones, options.show_hidden)
        frame = np.eye(4)
        frame[:3, 3] = 0.5 * (low + high)
        ends = box_lines(frame[None], (0.5 * (high - low))[None]).reshape(-1, 3)
        colors = np.broadcast_to(BOUNDS_COLOR, (len(ends), 4))
        self.bounds_buffer.write(np.ascontiguousarray(np.hstack([ends, colors]), dtype="f4").tobytes())
        set_uniform(self.programs["lines"], "depth_layer", SCENE_LAYER)
        self.bounds_array.render(moderngl.LINES, vertices=len(ends))

    def _draw_grid(self, camera: Camera) -> None:
        """The floor: perpendicular to the up axis, under the model's lowest point in the pose it
        was shown in first (or through the origin when that point is just above it: ``floor_height``)."""
        low, high = self._floor_bounds
        up = camera.world_up
        axis_u = np.eye(3)[0]
        axis_v = np.cross(up, axis_u)
        extent = max(float(np.linalg.norm(high - low)), self.extent * 0.1, 1e-6)
        cell = nice_cell(extent)
        centre = 0.5 * (low + high)
        # Snapped to the lines, so the grid does not swim as the model moves over it.
        origin = (axis_u * np.round(centre @ axis_u / cell)
                  + axis_v * np.round(centre @ axis_v / cell)) * cell
        origin = origin + up * floor_height(low, high, up)
        program = self.programs["grid"]
        for name, value in (("origin", origin), ("axis_u", axis_u), ("axis_v", axis_v)):
            set_uniform(program, name, tuple(float(v) for v in value))
        set_uniform(program, "half_size", 1.5 * extent)
        set_uniform(program, "cell", cell)
        set_uniform(program, "depth_layer", SCENE_LAYER)
        set_uniform(program, "line_color", (0.55, 0.56, 0.58))
        set_uniform(program, "fill_color", (0.30, 0.31, 0.33))
        set_uniform(program, "u_axis_color", (0.75, 0.30, 0.30))
        set_uniform(program, "v_axis_color", (0.35, 0.65, 0.35))
        # Drawn last in the scene layer, so its depth writes hide nothing (moderngl has no depth mask).
        self._enable_blending()
        self.grid_array.render(moderngl.TRIANGLE_STRIP, vertices=4)
        self.ctx.disable(moderngl.BLEND)

    def _draw_bones(self, options: DrawSettings) -> None:
        self._mesh_uniforms(SKINNING_CODES["lbs"], 0, maths.srgb_to_linear(BONE_COLOR), options.selected_bone,
                            layer=OVERLAY_LAYER)
        set_uniform(self.programs["mesh"], "sphere_points", False)
        self.skeleton_mesh.draw(False, moderngl.TRIANGLES)

    def _enable_blending(self) -> None:
        """Premultiplied-alpha blending, which also accumulates coverage into alpha."""
        self.ctx.enable(moderngl.BLEND)
        self.ctx.blend_func = (moderngl.ONE, moderngl.ONE_MINUS_SRC_ALPHA,
                               moderngl.ONE, moderngl.ONE_MINUS_SRC_ALPHA)

    # --- picking --------------------------------------------------------------------------------

    def mesh_at(self, camera: Camera, size: tuple[int, int], x: int, y: int,
                options: DrawSettings | None = None) -> int | None:
        """Index of the mesh drawn at pixel (``x``, ``y``) (from the top left) of a ``size`` view seen by
        ``camera``, or None: each shown mesh drawn in a colour that encodes its index (masked texels
        cut as when drawn), and the pixel read back."""
        options = options or DrawSettings()
        if self.model is None or not (0 <= x < size[0] and 0 <= y < size[1]):
            return None
        framebuffer = self._pick_target(size)
        framebuffer.clear(0.0, 0.0, 0.0, 0.0, depth=1.0)
        self._begin(framebuffer, camera)
        animated = self._animated()
        for index, gpu_mesh in enumerate(self.meshes):
            if not (options.show_hidden or gpu_mesh.mesh.visible):
                continue
            code = tuple(((index + 1) >> shift & 255) / 255.0 for shift in (0, 8, 16)) + (1.0,)
            self._mesh_uniforms(SKINNING_CODES[options.skinning], 3, code, None, animated=animated)
            self._material_uniforms(gpu_mesh, options.textures, options.vertex_colors)
            gpu_mesh.draw(animated, moderngl.TRIANGLES)
        self._plain_material()
        self.ctx.disable(moderngl.PROGRAM_POINT_SIZE)
        pixel = np.frombuffer(framebuffer.read(viewport=(x, size[1] - 1 - y, 1, 1), components=4), np.uint8)
        code = int(pixel[0]) | int(pixel[1]) << 8 | int(pixel[2]) << 16
        return code - 1 if code else None

    def _pick_target(self, size: tuple[int, int]) -> moderngl.Framebuffer:
        """A single-sample colour + depth framebuffer of ``size``, kept while the size stays."""
        framebuffer = self._pick_targets.get("framebuffer")
        if framebuffer is not None and framebuffer.size == tuple(size):
            return framebuffer
        self._release_pick_target()
        color = self.ctx.renderbuffer(tuple(size), 4)
        depth = self.ctx.depth_renderbuffer(tuple(size))
        self._pick_targets = {"color": color, "depth": depth,
                              "framebuffer": self.ctx.framebuffer([color], depth)}
        return self._pick_targets["framebuffer"]

    def _release_pick_target(self) -> None:
        for name in ("framebuffer", "color", "depth"):
            if name in self._pick_targets:
                self._pick_targets.pop(name).release()

    # --- transform feedback ---------------------------------------------------------------------

    def _capture(self, gpu_mesh: GpuMesh, skinning: str) -> moderngl.Buffer:
        program = self.programs["capture"]
        animated = self._animated()
        set_uniform(program, "skinning", 0 if animated else SKINNING_CODES[skinning])
        set_uniform(program, "bones", 0)
        self.bone_texture.use(0)
        return gpu_mesh.capture(animated)

    def skinned_vertices(self, mesh_index: int, skinning: Literal["lbs", "dqs"] = "lbs"
                         ) -> tuple[np.ndarray, np.ndarray]:
        """Read back what the vertex shader makes of one mesh in the current pose by transform
        feedback: positions (V, 3) and unnormalised normals (V, 3), float32."""
        gpu_mesh = self.meshes[mesh_index]
        # Drawing needs a complete framebuffer even with rasterisation off, and a headless context
        # has none of its own. ``draw`` binds its target again, so nothing needs restoring.
        self._capture_target().use()
        buffer = self._capture(gpu_mesh, skinning)
        data = np.frombuffer(buffer.read(size=gpu_mesh.vertex_count * 24), dtype="f4")
        data = data.reshape(gpu_mesh.vertex_count, 6)
        return data[:, :3].copy(), data[:, 3:].copy()

    def _capture_target(self) -> moderngl.Framebuffer:
        if self._capture_framebuffer is None:
            self._capture_framebuffer = self.ctx.framebuffer([self.ctx.renderbuffer((1, 1))])
        return self._capture_framebuffer

    # --- teardown -------------------------------------------------------------------------------

    def _release_vertex_arrays(self) -> None:
        for vertex_array in self.normal_arrays.values():
            vertex_array.release()
        self.normal_arrays.clear()

    def _release_model(self) -> None:
        self._release_vertex_arrays()
        for gpu_mesh in self.meshes + ([self.skeleton_mesh] if self.skeleton_mesh else []):
            gpu_mesh.release()
        self.meshes = []
        self.skeleton_mesh = None
        self._skeleton_source = None
        if self.bone_texture is not None:
            self.bone_texture.release()
        self.bone_texture = None
        self.textures.release()
        self.model = None
        self.pose = None

    def release(self) -> None:
        """Free every GL object the renderer owns (call with its context current)."""
        self._release_model()
        self._release_pick_target()
        self.grid_array.release()
        self.bounds_array.release()
        self.bounds_buffer.release()
        if self._capture_framebuffer is not None:
            for attachment in self._capture_framebuffer.color_attachments:
                attachment.release()
            self._capture_framebuffer.release()
            self._capture_framebuffer = None
        for program in self.programs.values():
            program.release()
        self.programs = {}
