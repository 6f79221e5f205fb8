"""The renderer: GPU skinning held to app.pose (transform-feedback readback), shader loading,
and pixel checks on small synthetic models."""

from __future__ import annotations

import numpy as np
import pytest

from app import maths
from app.model import Material, Mesh, Model, Skeleton
from app.pose import pose_from_world, rest_pose, skin_mesh
from app.render import shaders
from app.render.offscreen import DEFAULT_SAMPLES, OffscreenRenderer
from app.render.renderer import Renderer
from app.resources import shader_path
from app.scene.draw_settings import DrawSettings
from tests.synthetic import humanoid, wave_pose

SIZE = (160, 120)


def random_rigid(rng: np.random.Generator, count: int, reach: float) -> np.ndarray:
    """(count, 4, 4) random rotations (any angle) with translations within ``reach``."""
    quaternions = maths.quat_normalize(rng.normal(size=(count, 4)))
    return maths.compose_trs(rng.uniform(-reach, reach, (count, 3)), quaternions, np.ones((count, 3)))


def skinned_model(rng: np.random.Generator, bones: int, vertices: int, lanes: int) -> Model:
    """Random bind frames, vertices with ``lanes`` random influences and every tenth vertex rigid."""
    bind = random_rigid(rng, bones, 1.0)
    heads = bind[:, :3, 3]
    skeleton = Skeleton(names=[f"b{i}" for i in range(bones)], parents=np.full(bones, -1), bind_world=bind,
                        heads=heads, tails=heads + 0.1, derived_tails=np.zeros(bones, bool))
    weights = rng.uniform(0.0, 1.0, (vertices, lanes)) ** 2
    weights[::10] = 0.0
    mesh = Mesh(name="blob", positions=rng.uniform(-1.0, 1.0, (vertices, 3)),
                normals=maths.normalize(rng.normal(size=(vertices, 3)))[0],
                joints=rng.integers(0, bones, (vertices, lanes)), weights=weights,
                triangles=rng.integers(0, vertices, (vertices, 3)))
    return Model(name="random", skeleton=skeleton, meshes=[mesh])


def scaled_pose(rng: np.random.Generator, model: Model, scale: bool):
    """A pose turning every bone by a random rotation, with non-uniform scale when ``scale``."""
    count = len(model.skeleton)
    world = random_rigid(rng, count, 2.0)
    if scale:
        world = world @ maths.scaling(rng.uniform(0.5, 2.0, (count, 3)))
    return pose_from_world(model, world)


@pytest.fixture()
def renderer(gl_context):
    renderer = Renderer(gl_context)
    yield renderer
    renderer.release()


@pytest.fixture(scope="module")
def offscreen(gl_context):
    with OffscreenRenderer(gl_context) as offscreen:
        yield offscreen


# --- GPU skinning against the CPU reference -----------------------------------------------------

@pytest.mark.gl
@pytest.mark.parametrize(("method", "scale"), [("lbs", True), ("lbs", False), ("dqs", False), ("dqs", True)])
@pytest.mark.parametrize(("bones", "vertices", "lanes"), [(6, 500, 6), (1000, 4000, 4), (3, 50, 2)])
def test_gpu_skinning_matches_cpu(renderer, method, scale, bones, vertices, lanes):
    rng = np.random.default_rng(bones + vertices)
    model = skinned_model(rng, bones, vertices, lanes)
    pose = scaled_pose(rng, model, scale)
    renderer.set_model(model, pose)
    gpu, _ = renderer.skinned_vertices(0, method)
    cpu = skin_mesh(model.meshes[0], pose.skin, method, influences=4)
    size = np.ptp(cpu, axis=0).max()
    np.testing.assert_allclose(gpu, cpu, atol=1e-4 * size, rtol=0)


@pytest.mark.gl
def test_rigid_vertices_keep_bind_position(renderer):
    model = skinned_model(np.random.default_rng(1), 4, 100, 4)
    renderer.set_model(model, scaled_pose(np.random.default_rng(2), model, True))
    gpu, normals = renderer.skinned_vertices(0, "lbs")
    np.testing.assert_array_equal(gpu[::10], model.meshes[0].positions[::10])
    np.testing.assert_array_equal(normals[::10], model.meshes[0].normals[::10])


@pytest.mark.gl
@pytest.mark.parametrize("method", ["lbs", "dqs"])
def test_normals_turn_with_a_rotated_bone(renderer, method):
    model = humanoid()
    turn = maths.axis_rotation("Z", np.pi / 2)
    renderer.set_model(model, pose_from_world(model, turn @ model.skeleton.bind_world))
    _, normals = renderer.skinned_vertices(0, method)
    expected = model.meshes[0].normals @ turn[:3, :3].T
    np.testing.assert_allclose(normals, expected, atol=1e-5)


@pytest.mark.gl
def test_vertex_animated_pose_replaces_skinning(renderer):
    model = humanoid()
    moved = model.meshes[0].positions + np.float32([0.0, 0.0, 0.5])
    pose = pose_from_world(model, model.skeleton.bind_world.copy(), moved)
    renderer.set_model(model, pose)
    gpu, _ = renderer.skinned_vertices(0, "lbs")
    np.testing.assert_allclose(gpu, moved, atol=1e-6)


@pytest.mark.gl
def test_set_pose_keeps_the_mesh_buffers(renderer):
    model = humanoid()
    renderer.set_model(model)
    buffers = dict(renderer.meshes[0].buffers)
    renderer.set_pose(wave_pose(model))
    assert renderer.meshes[0].buffers == buffers


# --- shader loading -----------------------------------------------------------------------------

def test_stage_source_keeps_line_numbers():
    source = "#version 330 core\nuniform float a;\n#if defined VERTEX_SHADER\nvoid main() {}\n#endif\n"
    staged = shaders.stage_source(source, "VERTEX_SHADER", {"EXTRA": 1})
    lines = staged.splitlines()
    assert lines[:4] == ["#version 330 core", "#define VERTEX_SHADER", "#define EXTRA 1", "#line 2"]
    assert lines[4] == "uniform float a;"


@pytest.mark.gl
def test_compile_error_names_the_file_and_line(gl_context, tmp_path, monkeypatch):
    broken = tmp_path / "broken.glsl"
    broken.write_text("#version 330 core\n#if defined VERTEX_SHADER\nvoid main() {\n"
                      "    gl_Position = undefined_thing;\n}\n#endif\n")
    monkeypatch.setattr(shaders, "shader_path", lambda name: tmp_path / name)
    with pytest.raises(shaders.ShaderError) as caught:
        shaders.load_program(gl_context, "broken.glsl")
    message = str(caught.value)
    assert "broken.glsl" in message
    assert "0:4" in message or "(4)" in message


@pytest.mark.gl
def test_every_shader_compiles(gl_context):
    """Every file in shaders/, so a new one is checked without being named here; each with the
    SAMPLES the resolve pass is compiled with (a define the others ignore)."""
    names = sorted(path.name for path in shader_path("mesh.glsl").parent.glob("*.glsl"))
    assert {"mesh.glsl", "grid.glsl", "normals.glsl", "gizmo.glsl", "resolve.glsl"} <= set(names)
    for name in names:
        shaders.load_program(gl_context, name, defines={"SAMPLES": DEFAULT_SAMPLES}).release()


# --- pixels -------------------------------------------------------------------------------------

def foreground(image: np.ndarray, options: DrawSettings) -> np.ndarray:
    """(H, W) bool: pixels that differ from the background."""
    background = np.rint(np.array(options.background) * 255)
    return np.abs(image.astype(int) - background).max(axis=-1) > 8


@pytest.mark.gl
@pytest.mark.parametrize("up_axis", ["Z", "Y"])
@pytest.mark.parametrize("view", ["front", "side", "top", "iso"])
def test_model_is_framed(offscreen, up_axis, view):
    options = DrawSettings(grid=False)
    model = humanoid(up_axis)
    image = offscreen.render_image(model, wave_pose(model), SIZE, options, view=view)
    mask = foreground(image, options)
    assert mask.sum() > 0.02 * mask.size
    border = np.concatenate([mask[0], mask[-1], mask[:, 0], mask[:, -1]])
    assert not border.any()


@pytest.mark.gl
def test_front_view_faces_the_figure(offscreen):
    """The figure's right arm (−X) is raised: seen from the front it is on the image's left."""
    options = DrawSettings(grid=False)
    for up_axis in ("Z", "Y"):
        model = humanoid(up_axis)
        image = offscreen.render_image(model, wave_pose(model), SIZE, options, view="front")
        mask = foreground(image, options)
        rows, columns = np.nonzero(mask)
        top = rows < rows.min() + 0.15 * np.ptp(rows)
        assert columns[top].mean() < np.median(columns), up_axis


@pytest.mark.gl
def test_skeleton_overlay_adds_pixels(offscreen):
    model = humanoid()
    plain = DrawSettings(grid=False, shaded=False)
    bones = DrawSettings(grid=False, shaded=False, bones=True)
    assert not foreground(offscreen.render_image(model, None, SIZE, plain), plain).any()
    assert foreground(offscreen.render_image(model, None, SIZE, bones), bones).sum() > 100


@pytest.mark.gl
def test_bounding_box_outlines_what_is_drawn(offscreen):
    """The box's edges, alone on screen, reach exactly as far as its eight corners project."""
    from app.pose import posed_bounds
    from app.render.camera import camera_for, project

    model = humanoid()
    low, high = posed_bounds(model, rest_pose(model), False)
    # Framed wider than the box, so all of it is in the picture.
    camera = camera_for(low - (high - low), high + (high - low), up_axis=model.up_axis, view="iso",
                        aspect=SIZE[0] / SIZE[1])
    corners = np.array([[x, y, z] for x in (low[0], high[0]) for y in (low[1], high[1])
                        for z in (low[2], high[2])])
    pixels, inside = project(camera, corners, *SIZE)
    assert inside.all()
    plain = DrawSettings(grid=False, shaded=False)
    boxed = DrawSettings(grid=False, shaded=False, bounds=True)
    assert not foreground(offscreen.render_image(model, None, SIZE, plain, camera=camera), plain).any()
    drawn = foreground(offscreen.render_image(model, None, SIZE, boxed, camera=camera), boxed)
    rows, columns = np.nonzero(drawn)
    np.testing.assert_allclose([columns.min(), rows.min()], pixels.min(axis=0), atol=1.5)
    np.testing.assert_allclose([columns.max() + 1, rows.max() + 1], pixels.max(axis=0), atol=1.5)


@pytest.mark.gl
def test_selected_bone_is_highlighted(offscreen):
    model = humanoid()
    plain = offscreen.render_image(model, None, SIZE, DrawSettings(grid=False, bones=True))
    selected = offscreen.render_image(model, None, SIZE,
                                      DrawSettings(grid=False, bones=True, selected_bone=1))
    changed = np.abs(plain.astype(int) - selected.astype(int)).max(axis=-1) > 30
    assert changed.sum() > 20


@pytest.mark.gl
def test_meshless_skeleton_is_visible_and_lit(offscreen):
    model = humanoid(with_mesh=False)
    options = DrawSettings(grid=False, bones=True)
    image = offscreen.render_image(model, wave_pose(model), SIZE, options)
    mask = foreground(image, options)
    assert mask.sum() > 100
    brightness = image[mask][:, :3].astype(int).sum(axis=-1)
    assert np.ptp(brightness) > 60


@pytest.mark.gl
def test_heat_map_follows_the_bone(offscreen):
    model = humanoid()
    chest = offscreen.render_image(model, None, SIZE, DrawSettings(grid=False, heatmap_bone=1)).astype(int)
    head = offscreen.render_image(model, None, SIZE, DrawSettings(grid=False, heatmap_bone=2)).astype(int)
    red_chest = (chest[..., 0] > chest[..., 2] + 60).sum()
    red_head = (head[..., 0] > head[..., 2] + 60).sum()
    assert red_chest > 50 and red_head > 20
    assert np.abs(chest - head).max(axis=-1).astype(bool).sum() > 100


@pytest.mark.gl
def test_transparent_background(offscreen):
    image = offscreen.render_image(humanoid(), None, SIZE, DrawSettings(transparent=True, grid=False))
    for corner in (image[0, 0], image[0, -1], image[-1, 0]):
        assert corner[3] == 0
    assert (image[..., 3] == 255).sum() > 0.02 * image[..., 3].size


@pytest.mark.gl
def test_grid_and_overlays_draw(offscreen):
    model = humanoid()
    base = DrawSettings(grid=False)
    plain = offscreen.render_image(model, None, SIZE, base).astype(int)
    for options in (DrawSettings(grid=True), DrawSettings(grid=False, wireframe=True),
                    DrawSettings(grid=False, normals=True), DrawSettings(grid=False, skinning="dqs",
                                                                             wireframe=True)):
        image = offscreen.render_image(model, wave_pose(model), SIZE, options).astype(int)
        assert np.abs(image - plain).max() > 30, options


@pytest.mark.gl
def test_points_mode_renders(offscreen):
    rng = np.random.default_rng(3)
    skeleton = Skeleton(names=["root"], parents=[-1], bind_world=np.eye(4)[None], heads=np.zeros((1, 3)),
                        tails=[[0.0, 0.0, 1.0]], derived_tails=[False])
    cloud = Mesh(name="cloud", positions=rng.uniform(-1, 1, (300, 3)), joints=np.zeros((300, 1)),
                 weights=np.ones((300, 1)))
    model = Model(name="points", skeleton=skeleton, meshes=[cloud])
    options = DrawSettings(grid=False)
    image = offscreen.render_image(model, None, SIZE, options, view="front")
    assert foreground(image, options).sum() > 300


@pytest.mark.gl
def test_large_image(offscreen):
    image = offscreen.render_image(humanoid(), None, (3840, 2160), DrawSettings())
    assert image.shape == (2160, 3840, 4)


def test_renderer_does_not_import_qt():
    import subprocess
    import sys

    code = ("import sys, app.render.renderer, app.render.offscreen, app.render.camera; "
            "assert not any(m.startswith('PySide6') for m in sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.gl
def test_new_model_releases_the_old_one(gl_context):
    renderer = Renderer(gl_context)
    renderer.set_model(humanoid())
    old = renderer.meshes[0].buffers["in_position"]
    renderer.set_model(humanoid("Y"))
    assert old.mglo is not None and isinstance(old.mglo, type(old.mglo))
    renderer.release()
    assert renderer.meshes == [] and renderer.programs == {}


@pytest.mark.gl
def test_copies_are_drawn_skinned_beside_the_model(offscreen):
    """A copy posed one model-width to the right (+X) fills the right half of a front view that
    frames both, and the current pose's bones are restored afterwards."""
    from app.render.camera import camera_for
    from app.render.offscreen import ImageTargets

    options = DrawSettings(grid=False)
    model = humanoid("Z")
    pose = rest_pose(model)
    width = float(np.ptp(model.meshes[0].positions[:, 0]))
    shifted = pose_from_world(model, maths.translation(np.array([1.5 * width, 0.0, 0.0])) @ pose.world)
    renderer = offscreen.renderer
    renderer.set_model(model, pose)
    low, high = renderer.bounds()
    camera = camera_for(low, high + [1.5 * width, 0, 0], up_axis="Z", view="front", aspect=SIZE[0] / SIZE[1])

    def draw(copies):
        with ImageTargets.create(offscreen.ctx, SIZE) as targets:
            def scene(framebuffer):
                renderer.draw(framebuffer, camera, options)
                renderer.draw_copies(framebuffer, camera, options, copies)
            return foreground(targets.capture(scene, False), options)

    alone, together = draw([]), draw([shifted])
    right = slice(SIZE[0] // 2 + SIZE[0] // 10, None)
    assert alone[:, right].sum() < 0.01 * alone[:, right].size
    assert together[:, right].sum() > 0.5 * alone.sum(), "the copy is as big as the model"
    assert (together & alone).sum() == alone.sum(), "the model itself is still drawn in place"
    assert np.array_equal(draw([]), alone), "the current pose's bones were restored"


@pytest.mark.gl
def test_showing_the_same_meshes_again_keeps_their_gpu_objects(offscreen):
    """The window shows its model again when a baked clip is added: the meshes, skeleton and images
    that are the same objects keep their buffers and textures (same picture); a mesh that is a new
    object is uploaded, and what the new model no longer uses is freed."""
    from dataclasses import replace

    from app.model import Clip

    checker = np.zeros((4, 4, 4), np.uint8)
    checker[::2, ::2] = checker[1::2, 1::2] = 255
    base = humanoid()
    body = replace(base.meshes[0], material=Material(image=checker))
    model = replace(base, meshes=[body, replace(body, name="twin")])
    renderer = offscreen.renderer
    pose = wave_pose(model)
    first = offscreen.render_image(model, pose, SIZE)
    meshes, skeleton_mesh = list(renderer.meshes), renderer.bone_shapes.mesh
    bone_texture = renderer.bone_texture.texture
    buffers = [dict(gpu_mesh.buffers) for gpu_mesh in meshes]
    image = body.material.image
    texture = renderer.textures.entries[id(image)][1]

    model.clips.append(Clip("baked", "keyed", tracks=[]))
    renderer.set_model(model, pose)
    assert [a is b for a, b in zip(renderer.meshes, meshes)] == [True, True]
    assert [gpu_mesh.buffers for gpu_mesh in renderer.meshes] == buffers
    assert renderer.bone_shapes.mesh is skeleton_mesh and renderer.bone_texture.texture is bone_texture
    assert renderer.textures.entries[id(image)][1] is texture
    assert np.array_equal(offscreen.render_image(model, pose, SIZE), first)

    plain = replace(body, name="plain", material=Material())
    renderer.set_model(replace(model, meshes=[body, plain]), pose)
    assert renderer.meshes[0] is meshes[0] and renderer.meshes[1].mesh is plain
    assert meshes[1].buffers == {}, "the replaced mesh's buffers are freed"
    assert renderer.bone_shapes.mesh is skeleton_mesh, "same skeleton, same extent"

    renderer.set_model(humanoid("Y"))
    assert meshes[0].buffers == {} and renderer.textures.entries == {}
    assert renderer.bone_shapes.mesh is not skeleton_mesh
