"""What the renderer draws of NWN effects: a danglymesh's swung positions skinned on the GPU as the CPU
reference skins them (transform-feedback readback), and View › Emitters' lines where an emitter's
birth plane and cone project (Emitter shapes built here, not read from a file)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.emitters import Emitter
from app.model import Helper, Mesh, Model, Skeleton
from app.pose import pose_from_world, posed_positions, rest_pose
from app.render.camera import camera_for, project
from app.render.offscreen import OffscreenRenderer
from app.scene.draw_settings import DrawSettings

SIZE = (320, 240)


@pytest.fixture(scope="module")
def offscreen(gl_context):
    with OffscreenRenderer(gl_context) as offscreen:
        yield offscreen


def two_bone_model(emitter: Emitter | None = None) -> Model:
    bind = np.stack([np.eye(4), np.eye(4)])
    bind[1, :3, 3] = [0, 0, 1]
    skeleton = Skeleton(names=["root", "fx"], parents=[-1, 0], bind_world=bind, heads=bind[:, :3, 3],
                        tails=bind[:, :3, 3] + [0, 0, 0.2], derived_tails=[True, True])
    square = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], np.float32)
    mesh = Mesh("cape", positions=square, joints=np.zeros((4, 1)), weights=np.ones((4, 1)),
                triangles=[[0, 1, 2], [0, 2, 3]])
    helpers = [Helper("fx", 1, np.eye(4), emitter=emitter)] if emitter else []
    return Model("fx", skeleton, meshes=[mesh], helpers=helpers)


@pytest.mark.gl
def test_swung_positions_are_skinned_like_the_cpu(offscreen):
    model = two_bone_model()
    turned = np.eye(4)
    turned[:3, :3] = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]
    turned[:3, 3] = [2, 0, 0]
    pose = pose_from_world(model, turned @ model.skeleton.bind_world)
    moved = model.meshes[0].positions + np.float32([[0, 0, 0], [0, 0, 0.3], [0.1, 0, 0.2], [0, 0, 0]])
    pose.mesh_positions[0] = moved
    renderer = offscreen.renderer
    renderer.set_model(model, pose)
    gpu, _ = renderer.skinned_vertices(0, "lbs")
    expected = moved @ turned[:3, :3].T + turned[:3, 3]   # worked out here: the root's rigid move
    np.testing.assert_allclose(gpu, expected, atol=1e-5)
    np.testing.assert_allclose(posed_positions(model, pose), expected, atol=1e-5)
    renderer.set_pose(pose_from_world(model, turned @ model.skeleton.bind_world))  # the sway ends
    gpu, _ = renderer.skinned_vertices(0, "lbs")
    np.testing.assert_allclose(gpu, model.meshes[0].positions @ turned[:3, :3].T + turned[:3, 3], atol=1e-5)


def foreground(image: np.ndarray, options: DrawSettings) -> np.ndarray:
    background = np.rint(np.array(options.background) * 255)
    return np.abs(image.astype(int) - background).max(axis=-1) > 8


@pytest.mark.gl
def test_emitter_lines_reach_where_its_plane_and_cone_project(offscreen):
    """A 2 × 1 m birth plane and a cone of 90° reaching 1.5 m, alone on screen (meshes not shaded):
    the lines' extent is the extent of the plane's corners and the cone rim's points, projected."""
    spread, reach = math.pi / 2, 1.5
    emitter = Emitter(spread=spread, size=(2.0, 1.0), reach=reach)
    model = two_bone_model(emitter)
    camera = camera_for(np.array([-3.0, -3, -1]), np.array([3.0, 3, 4]), up_axis="Z", view="iso",
                        aspect=SIZE[0] / SIZE[1])
    corners = np.array([[x, y, 1.0] for x in (-1, 1) for y in (-0.5, 0.5)])
    turns = np.linspace(0, 2 * np.pi, 721)
    radius = reach * math.sin(spread / 2)
    rim = np.column_stack([radius * np.cos(turns), radius * np.sin(turns),
                           np.full(len(turns), 1.0 + reach * math.cos(spread / 2))])
    pixels, inside = project(camera, np.concatenate([corners, rim, [[0, 0, 1.0]]]), *SIZE)
    assert inside.all()
    plain = DrawSettings(grid=False, shaded=False)
    shown = DrawSettings(grid=False, shaded=False, emitters=True)
    assert not foreground(offscreen.render_image(model, None, SIZE, plain, camera=camera), plain).any()
    image = offscreen.render_image(model, None, SIZE, shown, camera=camera)
    drawn = foreground(image, shown)
    rows, columns = np.nonzero(drawn)
    np.testing.assert_allclose([columns.min(), rows.min()], pixels.min(axis=0), atol=2.0)
    np.testing.assert_allclose([columns.max() + 1, rows.max() + 1], pixels.max(axis=0), atol=2.0)
    colours = image[drawn][:, :3].astype(int)
    assert np.median(colours[:, 0]) > 150 and np.median(colours[:, 2]) < 100   # orange lines


@pytest.mark.gl
def test_emitters_follow_the_pose(offscreen):
    model = two_bone_model(Emitter(spread=0.5, size=(0.5, 0.5), reach=0.5))
    options = DrawSettings(grid=False, shaded=False, emitters=True)
    camera = camera_for(np.array([-3.0, -3, -1]), np.array([3.0, 3, 4]), up_axis="Z", view="front",
                        aspect=SIZE[0] / SIZE[1])
    at_rest = foreground(offscreen.render_image(model, rest_pose(model), SIZE, options, camera=camera),
                         options)
    moved_world = model.skeleton.bind_world.copy()
    moved_world[:, 0, 3] += 1.0
    moved = foreground(offscreen.render_image(model, pose_from_world(model, moved_world), SIZE, options,
                                              camera=camera), options)
    shift = np.nonzero(moved)[1].mean() - np.nonzero(at_rest)[1].mean()
    expected = project(camera, np.array([[1.0, 0, 1]]), *SIZE)[0][0, 0] - project(
        camera, np.array([[0.0, 0, 1]]), *SIZE)[0][0, 0]
    assert shift == pytest.approx(expected, abs=1.5)
