"""The moderngl renderer: meshes skinned on the GPU and drawn with their materials (base colour and
texture, alpha modes, sidedness), and the overlays (skeleton, grid, wireframe, normals, weight heat map,
bounding box).

It draws into any framebuffer it is given, so the Qt viewport and the headless ``offscreen`` module
share it; it never imports Qt. Mesh data goes to the GPU once per model (``set_model``; a model shown
again, e.g. with a clip added, keeps the buffers and textures of the meshes and images it still holds);
a pose only uploads the bone texture and the morph weights (and, for vertex-animated clips, the posed
positions); the vertex stage applies the weighted morph targets, then skins.

Opaque and masked meshes are drawn first, then the grid, then blended meshes from the farthest to
the nearest without writing depth. Meshes the file hides are left out unless ``show_hidden``.

The Renderer owns the shader programs and composes one owner per family of GPU resources: the meshes
(gpu_mesh.py), the bone texture and octahedra (bones.py), the base-colour textures (materials.py), the
floor grid (floor_grid.py), the bounding box and normals (scene_overlays.py), the walkmeshes
(walkmesh_layer.py) and the framebuffers read back (readback_targets.py); the depth layers are
gl_state.py's.
"""

from __future__ import annotations

from typing import Literal

import moderngl
import numpy as np

from app import maths
from app.model import Mesh, Model
from app.morph_targets import weight_slices
from app.pose import (Pose, palette_offset, pose_morph_weights, rest_extent, rest_pose,
                      skinning_palette)
from app.render.bones import BoneShapes, BoneTexture
from app.render.camera import Camera
from app.render.floor_grid import FloorGrid
from app.render.gl_state import OVERLAY_LAYER, SCENE_LAYER, enable_blending
from app.render.gpu_mesh import GpuMesh
from app.render.materials import ALPHA_CODES, TextureCache
from app.render.readback_targets import CaptureTarget, PickTarget
from app.render.scene_overlays import BoundsBox, EmitterShapes, NormalLines
from app.render.walkmesh_layer import WalkmeshLayer
from app.render.shaders import load_program, set_uniform
from app.scene.draw_settings import DrawSettings
from app.scene.emitter_shapes import EMITTER_COLOR, emitter_lines
from app.scene.framed_bounds import framed_bounds

#: Point radius for point clouds, as a fraction of the model's extent.
POINT_RADIUS = 0.004

#: The shader's code for each skinning mode (app.scene.draw_settings.SKINNING_MODES).
SKINNING_CODES = {"none": 0, "lbs": 1, "dqs": 2}
BONE_COLOR = (0.62, 0.64, 0.70)
SELECTED_COLOR = (1.0, 0.55, 0.10)
WIREFRAME_COLOR = (0.05, 0.05, 0.08, 0.55)
#: Onion skins (sRGB): the poses before the instant shown, and after it; the nearest ghosts' alpha.
GHOST_BEFORE = (0.35, 0.55, 1.0)
GHOST_AFTER = (1.0, 0.55, 0.25)
GHOST_ALPHA = 0.35
#: glPolygonOffset (factor, units) of the ghosts, behind the model where they coincide with it.
GHOST_DEPTH_OFFSET = (2.0, 64.0)


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
        self.grid = FloorGrid(ctx, self.programs["grid"])
        self.bounds_box = BoundsBox(ctx, self.programs["lines"])
        self.emitter_shapes = EmitterShapes(ctx, self.programs["lines"])
        self.walkmesh_layer = WalkmeshLayer(ctx, self.programs["lines"])
        self.normal_lines = NormalLines(ctx, self.programs["normals"])
        self.model: Model | None = None
        self.pose: Pose | None = None
        self.palette: np.ndarray | None = None
        self.meshes: list[GpuMesh] = []
        self.bone_shapes = BoneShapes(ctx, self.programs)
        self.bone_texture = BoneTexture(ctx)
        #: The model's extent, worked out once per model (it scales points, normals and the grid).
        self.extent = 1.0
        self._bounds: dict[tuple[bool, ...], tuple[np.ndarray, np.ndarray]] | None = None
        self.pick_target = PickTarget(ctx)
        self.capture_target = CaptureTarget(ctx)
        self.textures = TextureCache(ctx)
        #: Onion skins ``draw`` adds over the model: each ghost's pose and its offset in seconds
        #: (negative: before the instant shown); set by the window and ``render --onion``.
        self.ghosts: list[tuple[Pose, float]] = []

    # --- model and pose -------------------------------------------------------------------------

    def set_model(self, model: Model, pose: Pose | None = None) -> None:
        """Upload ``model``'s meshes and skeleton (once), then show ``pose`` (default: the bind pose).

        Meshes that are the objects already on the GPU (the model shown again, e.g. with a clip added)
        keep their buffers, and images their textures; the previous model's other objects are freed.
        """
        previous = {id(gpu_mesh.mesh): gpu_mesh for gpu_mesh in self.meshes}
        self.normal_lines.forget()
        self.model = model
        self.extent = rest_extent(model)
        self.meshes = [self._gpu_mesh(model, mesh, previous) for mesh in model.meshes]
        for gpu_mesh in previous.values():
            gpu_mesh.release()
        self.bone_shapes.show(model, self.extent)
        self.bone_texture.fit(len(model.skeleton) * (1 + len(model.skins)))
        materials = [mesh.material for mesh in model.meshes]
        self.textures.keep_only([image for material in materials
                                 for image in (material.image, material.emissive_image) if image is not None])
        for material in materials:
            if material.image is not None:
                self.textures.texture(material)
            if material.emissive_image is not None:
                self.textures.emissive_texture(material)
        self.walkmesh_layer.show(model)
        self.set_pose(pose if pose is not None else rest_pose(model))
        self.grid.place(self.bounds(), self.extent)

    def _gpu_mesh(self, model: Model, mesh: Mesh, previous: dict[int, GpuMesh]) -> GpuMesh:
        """``mesh`` on the GPU: taken out of ``previous`` when it is there at the same palette offset,
        else uploaded."""
        offset = palette_offset(model, mesh)
        kept = previous.get(id(mesh))
        if kept is not None and kept.mesh is mesh and kept.palette_offset == offset:
            del previous[id(mesh)]
            return kept
        return GpuMesh(self.ctx, mesh, self.programs, offset)

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
        for index, gpu_mesh in enumerate(self.meshes):
            gpu_mesh.set_bind_positions(pose.mesh_positions.get(index))

    def _upload_bones(self, pose: Pose) -> None:
        """The bone texture: the pose's skinning palette (the skeleton's bind, then each mesh skin's), kept
        as ``palette`` for sorting blended meshes without working it out again on every draw; and each
        morphed mesh's weights."""
        self.palette = skinning_palette(self.model, pose)
        self.bone_texture.write(self.palette)
        weights = pose_morph_weights(self.model, pose)
        for gpu_mesh, part in zip(self.meshes, weight_slices(self.model.meshes)):
            if part is not None:
                gpu_mesh.upload_morph_weights(weights[part])

    def take_warnings(self) -> list[str]:
        """Problems met since the last call (an image too large for the driver), for the caller to show."""
        warnings = list(self.textures.warnings)
        self.textures.warnings.clear()
        return warnings

    def bounds(self, options: DrawSettings | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Posed bounds (min (3,), max (3,)) of what ``options`` draw in the current pose (the
        skeleton, hidden meshes, walkmeshes and emitter shapes when they are shown; the meshes alone
        by default), computed once per pose."""
        options = options or DrawSettings()
        if self._bounds is None:
            self._bounds = {}
        key = (options.bones, options.show_hidden, options.walkmesh, options.emitters)
        if key not in self._bounds:
            self._bounds[key] = framed_bounds(self.model, self.pose, options)
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
            self.bounds_box.draw(*self.bounds(options))
        if options.grid:
            self.grid.draw(camera)
        if meshes:
            self._draw_meshes(options, blended=True, framebuffer=framebuffer, camera=camera)
        if options.walkmesh:
            self.walkmesh_layer.draw(framebuffer)
        self.draw_ghosts(framebuffer, camera, options, self.ghosts)
        if options.emitters:
            self._draw_emitters()
        if options.bones and self.bone_shapes.mesh is not None:
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

    def draw_ghosts(self, framebuffer: moderngl.Framebuffer, camera: Camera, options: DrawSettings,
                    ghosts: list[tuple[Pose, float]]) -> None:
        """Onion skins over what ``draw`` left: the meshes again in each ghost's pose, lit, tinted
        (GHOST_BEFORE for a negative offset, else GHOST_AFTER) and see-through, fainter the farther
        the offset, leaving the depth buffer as it was; then the current pose's bones again."""
        skeletal = [(pose, offset) for pose, offset in ghosts if pose.positions is None and len(pose.skin)]
        if self.model is None or not skeletal or not options.shaded:
            return
        self._begin(framebuffer, camera)
        enable_blending(self.ctx)
        framebuffer.depth_mask = False
        framebuffer.use()
        # Pushed back a little: where a ghost lies on the model (what did not move) the model stays clean.
        self.ctx.polygon_offset = GHOST_DEPTH_OFFSET
        farthest = max(abs(offset) for _, offset in skeletal)
        program = self.programs["mesh"]
        for pose, offset in sorted(skeletal, key=lambda ghost: -abs(ghost[1])):
            self._upload_bones(pose)
            tint = maths.srgb_to_linear(GHOST_BEFORE if offset < 0 else GHOST_AFTER)
            alpha = GHOST_ALPHA * (1.0 - 0.5 * abs(offset) / farthest)
            for gpu_mesh in self.shown_meshes(options):
                self._mesh_uniforms(SKINNING_CODES[options.skinning], 0, (*tint, alpha), None)
                self._plain_material()
                set_uniform(program, "alpha_mode", ALPHA_CODES["BLEND"])
                gpu_mesh.draw(False, moderngl.TRIANGLES)
        self.ctx.polygon_offset = (0.0, 0.0)
        framebuffer.depth_mask = True
        framebuffer.use()
        self.ctx.disable(moderngl.BLEND)
        self._upload_bones(self.pose)

    def _draw_emitters(self) -> None:
        """View › Emitters: each emitter helper's birth plane and spread cone in the current pose."""
        emitters = [helper.emitter for helper in self.model.helpers]
        segments = emitter_lines(emitters, self.pose.helpers, self.extent)
        self.emitter_shapes.draw(segments, EMITTER_COLOR)

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
        set_uniform(mesh, "emissive_texture", 2)
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
        opacities = self._keyed_opacities()
        meshes = [gpu_mesh for gpu_mesh in self.shown_meshes(options)
                  if opacities.get(id(gpu_mesh), 1.0) > 0
                  and (gpu_mesh.mesh.material.alpha_mode == "BLEND"
                       or opacities.get(id(gpu_mesh), 1.0) < 1) == blended]
        if not meshes:
            return
        if blended:
            centres = [gpu_mesh.posed_centre(self.palette[gpu_mesh.palette_offset:], animated)
                       for gpu_mesh in meshes]
            distance = [float(np.linalg.norm(centre - camera.eye)) for centre in centres]
            meshes = [meshes[index] for index in np.argsort(distance)[::-1]]
            enable_blending(self.ctx)
            framebuffer.depth_mask = False
            framebuffer.use()
        heat = options.heatmap_bone
        for gpu_mesh in meshes:
            color = gpu_mesh.mesh.material.base_color
            if id(gpu_mesh) in opacities:
                color = (*color[:3], opacities[id(gpu_mesh)])
            self._mesh_uniforms(SKINNING_CODES[options.skinning], 0 if heat is None else 1, color,
                                None if heat is None else heat + gpu_mesh.palette_offset, animated=animated)
            self._material_uniforms(gpu_mesh, options.textures, options.vertex_colors)
            if blended:
                set_uniform(self.programs["mesh"], "alpha_mode", ALPHA_CODES["BLEND"])
            gpu_mesh.draw(animated, moderngl.TRIANGLES)
        self._plain_material()
        if blended:
            framebuffer.depth_mask = True
            framebuffer.use()
            self.ctx.disable(moderngl.BLEND)

    def _keyed_opacities(self) -> dict[int, float]:
        """id(GpuMesh) → the opacity the pose's clip keys for that mesh (NWN alpha keys)."""
        if self.pose is None or not self.pose.mesh_alpha:
            return {}
        return {id(self.meshes[index]): alpha for index, alpha in self.pose.mesh_alpha.items()
                if 0 <= index < len(self.meshes)}

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
                self.textures.keep_only([image for mesh in self.model.meshes
                                         for image in (mesh.material.image, mesh.material.emissive_image)])
            self.textures.texture(material).use(1)
        emissive_textured = textures and material.emissive_image is not None and gpu_mesh.mesh.uvs is not None
        set_uniform(program, "emissive_textured", emissive_textured)
        if emissive_textured:
            self.textures.emissive_texture(material).use(2)
        if textured or emissive_textured:
            set_uniform(program, "mirror", tuple(wrap == "mirror" for wrap in material.wrap))
            uv_transform = np.eye(3) if material.uv_transform is None else material.uv_transform
            set_uniform(program, "uv_transform", uv_transform)
        set_uniform(program, "emissive", material.emissive)
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
        set_uniform(program, "emissive_textured", False)
        set_uniform(program, "emissive", (0.0, 0.0, 0.0))
        set_uniform(program, "vertex_colors", False)
        set_uniform(program, "alpha_mode", 0)
        set_uniform(program, "unlit", False)
        set_uniform(program, "sphere_points", False)
        self.ctx.disable(moderngl.CULL_FACE)

    def _draw_wireframe(self, options: DrawSettings) -> None:
        enable_blending(self.ctx)
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
        shown = [(index, gpu_mesh) for index, gpu_mesh in enumerate(self.meshes)
                 if options.show_hidden or gpu_mesh.mesh.visible]
        self.normal_lines.draw(shown, lambda gpu_mesh: self._capture(gpu_mesh, options.skinning), self.extent)

    def _draw_bones(self, options: DrawSettings) -> None:
        self._mesh_uniforms(SKINNING_CODES["lbs"], 0, maths.srgb_to_linear(BONE_COLOR), options.selected_bone,
                            layer=OVERLAY_LAYER)
        set_uniform(self.programs["mesh"], "sphere_points", False)
        self.bone_shapes.mesh.draw(False, moderngl.TRIANGLES)

    # --- picking --------------------------------------------------------------------------------

    def mesh_at(self, camera: Camera, size: tuple[int, int], x: int, y: int,
                options: DrawSettings | None = None) -> int | None:
        """Index of the mesh drawn at pixel (``x``, ``y``) (from the top left) of a ``size`` view seen by
        ``camera``, or None: each shown mesh drawn in a colour that encodes its index (masked texels
        cut as when drawn), and the pixel read back."""
        options = options or DrawSettings()
        if self.model is None or not (0 <= x < size[0] and 0 <= y < size[1]):
            return None
        framebuffer = self.pick_target.framebuffer(size)
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
        # ``draw`` binds its target again, so nothing needs restoring.
        self.capture_target.use()
        buffer = self._capture(gpu_mesh, skinning)
        data = np.frombuffer(buffer.read(size=gpu_mesh.vertex_count * 24), dtype="f4")
        data = data.reshape(gpu_mesh.vertex_count, 6)
        return data[:, :3].copy(), data[:, 3:].copy()

    # --- teardown -------------------------------------------------------------------------------

    def _release_model(self) -> None:
        self.normal_lines.forget()
        for gpu_mesh in self.meshes:
            gpu_mesh.release()
        self.meshes = []
        self.bone_shapes.release()
        self.bone_texture.release()
        self.textures.release()
        self.model = None
        self.pose = None

    def release(self) -> None:
        """Free every GL object the renderer owns (call with its context current)."""
        self._release_model()
        self.pick_target.release()
        self.capture_target.release()
        self.grid.release()
        self.bounds_box.release()
        self.emitter_shapes.release()
        self.walkmesh_layer.release()
        for program in self.programs.values():
            program.release()
        self.programs = {}
