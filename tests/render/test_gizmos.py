"""Ragdoll gizmo geometry checked by hand (boxes, axes, hinge arcs, swing cones, twist arcs, box
picking), the demo's scene, and the lines drawn in a headless context over a rendered model."""

from __future__ import annotations

import numpy as np
import pytest

from app import loading, maths
from app.physics.autosetup import auto_setup
from app.physics.rig import bind_rig
from app.scene import gizmo_scene
from app.render.camera import Camera, project
from app.scene.gizmo_scene import (GizmoScene, axis_lines, box_lines, box_triangles, cone_directions,
                                    hinge_arcs, pick_box, ragdoll_scene, swing_cones, twist_arcs)
from app.render.gizmos import Gizmos
from app.render.offscreen import ImageTargets
from app.render.renderer import Renderer
from app.scene.draw_settings import DrawSettings
from app.resources import demo_paths
from app.pose import rest_extent


def turned(axis: str, degrees: float, at=(0.0, 0.0, 0.0)) -> np.ndarray:
    frame = maths.axis_rotation(axis, np.radians(degrees))
    frame[:3, 3] = at
    return frame


# --- geometry ------------------------------------------------------------------------------------

def test_box_edges_join_the_corners_of_a_turned_box():
    frame = turned("Z", 90.0, at=(1.0, 2.0, 3.0))
    half = np.array([0.5, 0.25, 0.125])
    edges = box_lines(frame[None], half[None])[0]
    assert edges.shape == (12, 2, 3)
    # Turned 90° about Z, the box's X extent lies along world Y.
    points = edges.reshape(-1, 3)
    np.testing.assert_allclose(points.min(axis=0), [0.75, 1.5, 2.875])
    np.testing.assert_allclose(points.max(axis=0), [1.25, 2.5, 3.125])
    lengths = np.sort(np.linalg.norm(edges[:, 1] - edges[:, 0], axis=1))
    np.testing.assert_allclose(lengths, np.repeat([0.25, 0.5, 1.0], 4))
    corners = {tuple(np.round(p, 9)) for p in points}
    assert len(corners) == 8


def test_box_triangles_cover_the_faces():
    triangles = box_triangles(np.eye(4)[None], np.ones((1, 3)))[0]
    normals = np.cross(triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0])
    areas = 0.5 * np.linalg.norm(normals, axis=1)
    np.testing.assert_allclose(areas.sum(), 24.0)  # six faces of 2 × 2
    centres = triangles.mean(axis=1)
    outward = np.einsum("ij,ij->i", normals, centres)
    assert np.all(outward != 0)


def test_axis_lines_follow_the_frame():
    frame = turned("X", 90.0, at=(0.0, 0.0, 1.0))
    lines = axis_lines(frame[None], 2.0)[0]
    np.testing.assert_allclose(lines[:, 0], np.tile([0.0, 0.0, 1.0], (3, 1)))
    np.testing.assert_allclose(lines[:, 1], [[2.0, 0.0, 1.0], [0.0, 0.0, 3.0], [0.0, -2.0, 1.0]], atol=1e-12)


def test_hinge_arc_spans_low_to_high_about_z():
    low, high = np.radians([-30.0]), np.radians([120.0])
    segments = hinge_arcs(np.eye(4)[None], low, high, 2.0)[0]
    arc, spokes = segments[:-2], segments[-2:]
    points = np.concatenate([arc[:, 0], arc[-1:, 1]])
    np.testing.assert_allclose(np.linalg.norm(points, axis=1), 2.0)
    np.testing.assert_allclose(points[:, 2], 0.0)
    angles = np.degrees(np.arctan2(points[:, 1], points[:, 0]))
    np.testing.assert_allclose([angles[0], angles[-1]], [-30.0, 120.0])
    assert np.all(np.diff(angles) > 0)
    np.testing.assert_allclose(spokes[:, 0], 0.0)
    np.testing.assert_allclose(spokes[:, 1], points[[0, -1]])


def test_cone_outline_is_the_gimbal_limit_box():
    swing1, swing2 = np.radians(60.0), np.radians(20.0)
    directions = cone_directions(np.array([swing1]), np.array([swing2]))[0]
    np.testing.assert_allclose(np.linalg.norm(directions, axis=1), 1.0)
    np.testing.assert_allclose(directions[0], directions[-1])  # closed
    # Undo Rz(a) @ Ry(b): every outline point has |a| = swing1 or |b| = swing2, within both.
    a = np.arctan2(directions[:, 1], directions[:, 0])
    b = np.arcsin(-directions[:, 2])
    assert np.all(np.abs(a) <= swing1 + 1e-9) and np.all(np.abs(b) <= swing2 + 1e-9)
    on_edge = np.isclose(np.abs(a), swing1) | np.isclose(np.abs(b), swing2)
    assert on_edge.all()
    segments = swing_cones(turned("Y", 0.0, at=(1.0, 0.0, 0.0))[None], [swing1], [swing2], 0.5)[0]
    spokes = segments[-8:]
    np.testing.assert_allclose(spokes[:, 0], np.tile([1.0, 0.0, 0.0], (8, 1)))
    np.testing.assert_allclose(np.linalg.norm(spokes[:, 1] - spokes[:, 0], axis=1), 0.5)


def test_twist_arc_turns_y_about_x():
    segments = twist_arcs(np.eye(4)[None], np.radians([45.0]), 1.0)[0]
    arc = segments[:-2]
    points = np.concatenate([arc[:, 0], arc[-1:, 1]])
    np.testing.assert_allclose(points[:, 0], gizmo_scene.TWIST_OFFSET)
    angles = np.degrees(np.arctan2(points[:, 2], points[:, 1]))
    np.testing.assert_allclose([angles[0], angles[-1]], [-45.0, 45.0])


def test_pick_box_finds_the_nearest_box_along_the_ray():
    frames = np.stack([turned("Z", 0.0, at=(0.0, 0.0, 5.0)), turned("Z", 30.0, at=(0.0, 0.0, 2.0)),
                       turned("Z", 0.0, at=(3.0, 0.0, 2.0))])
    half = np.full((3, 3), 0.5)
    assert pick_box([0, 0, -10], [0, 0, 1], frames, half) == (1, pytest.approx(11.5))
    assert pick_box([0, 0, 3.5], [0, 0, 1], frames, half)[0] == 0  # behind the start: not hit
    assert pick_box([3, 0, 2], [1, 0, 0], frames, half) == (2, 0.0)  # starts inside
    assert pick_box([10, 10, 0], [0, 0, 1], frames, half) is None
    assert pick_box([0, 0, 0], [1, 0, 0], frames[:0], half[:0]) is None


# --- the demo's scene ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def demo_rig():
    model = loading.load(demo_paths())
    return model, bind_rig(model, auto_setup(model))


def demo_scene(model, rig, **options) -> GizmoScene:
    frames = rig.part_bind
    return ragdoll_scene(frames @ rig.box_rotations, rig.half_extents, extent=rest_extent(model),
                         joint_world=rig.joint_world(frames), hinge=rig.hinge, joint_limits=rig.joint_limits,
                         **options)


def test_demo_scene_has_every_box_and_joint_gizmo(demo_rig):
    model, rig = demo_rig
    scene = demo_scene(model, rig)
    parts, hinges = len(rig.part_bones), int(rig.hinge.sum())
    cones = len(rig.hinge) - hinges
    assert scene.lines.dtype == np.float32 and scene.lines.shape[1] == 3
    assert scene.lines.shape[0] == scene.line_colors.shape[0] == 2 * scene.line_count
    assert scene.line_count > 12 * parts + 4 * len(rig.hinge) + hinges * 3 + cones * 10
    assert len(scene.triangles) == 0
    # Every box's edges lie on its box: the first 12 · P segments are the boxes.
    boxes = scene.lines[: 24 * parts].reshape(parts, 24, 3)
    centres = rig.part_bind[:, :3, 3]
    np.testing.assert_allclose(boxes.mean(axis=1), centres, atol=1e-5)
    assert np.allclose(scene.line_colors[: 24 * parts], gizmo_scene.BOX_COLOR)


def test_selection_is_highlighted_and_filled(demo_rig):
    model, rig = demo_rig
    scene = demo_scene(model, rig, selected_part=3, selected_joint=1)
    parts = len(rig.part_bones)
    colors = scene.line_colors[: 24 * parts].reshape(parts, 24, 4)
    assert np.allclose(colors[3], gizmo_scene.SELECTED_BOX_COLOR)
    assert np.allclose(np.delete(colors, 3, axis=0), gizmo_scene.BOX_COLOR)
    assert len(scene.triangles) == 36
    np.testing.assert_allclose(scene.triangles.mean(axis=0), rig.part_bind[3, :3, 3], atol=1e-5)
    # Other joints are dimmed; the selected joint's gizmos are drawn larger.
    plain = demo_scene(model, rig)
    assert scene.line_count == plain.line_count
    assert scene.line_colors[24 * parts:, 3].min() < plain.line_colors[24 * parts:, 3].min()


def test_copies_draw_plain_boxes_only(demo_rig):
    model, rig = demo_rig
    copies = (rig.part_bind @ rig.box_rotations)[None].repeat(2, axis=0)
    copies[:, :, 0, 3] += np.array([1.0, 2.0])[:, None]
    scene = ragdoll_scene(None, rig.half_extents, extent=rest_extent(model),
                          copy_box_world=copies.reshape(-1, 4, 4), show_joints=False)
    assert scene.line_count == 2 * 12 * len(rig.part_bones)
    assert np.allclose(scene.line_colors, gizmo_scene.COPY_BOX_COLOR)


# --- drawing -------------------------------------------------------------------------------------

@pytest.mark.gl
def test_gizmo_lines_draw_over_the_model(gl_context, demo_rig):
    model, rig = demo_rig
    renderer = Renderer(gl_context)
    drawer = Gizmos(gl_context)
    size = (200, 240)
    try:
        renderer.set_model(model)
        camera = Camera(up_axis="Y")
        camera.set_view("front")
        camera.frame(*renderer.bounds(), aspect=size[0] / size[1])
        options = DrawSettings(grid=False)
        scene = ragdoll_scene((rig.part_bind @ rig.box_rotations)[:1], rig.half_extents[:1],
                              extent=rest_extent(model), show_joints=False)
        with ImageTargets.create(gl_context, size) as targets:
            plain = targets.render(renderer, camera, options)
            renderer.draw(targets.draw_target, camera, options)
            drawer.draw(targets.draw_target, camera, scene)
            if targets.draw_target is not targets.resolved:
                gl_context.copy_framebuffer(targets.resolved, targets.draw_target)
            data = targets.resolved.read(components=4, alignment=1)
            drawn = np.frombuffer(data, np.uint8).reshape(size[1], size[0], 4)[::-1]
    finally:
        drawer.release()
        renderer.release()
    changed = np.abs(drawn[..., :3].astype(int) - plain[..., :3].astype(int)).max(axis=-1) > 40
    assert changed.sum() > 100, "the box lines should show, even over the skin"
    # The changed pixels lie on the pelvis box's outline: near its projected corners' hull.
    corners = gizmo_scene.box_corners((rig.part_bind @ rig.box_rotations)[:1], rig.half_extents[:1])[0]
    pixels, visible = project(camera, corners, *size)
    assert visible.all()
    rows, cols = np.nonzero(changed)
    assert pixels[:, 0].min() - 3 <= cols.min() and cols.max() <= pixels[:, 0].max() + 3
    assert pixels[:, 1].min() - 3 <= rows.min() and rows.max() <= pixels[:, 1].max() + 3
    # Blue-ish: the box colour.
    colors = drawn[changed][:, :3].astype(int)
    assert (colors[:, 2] > colors[:, 0]).mean() > 0.8


def test_capsule_lines_lie_on_the_capsule_inside_the_box():
    from app.scene.gizmo_scene import CAPSULE_SEGMENTS, capsule_lines, part_lines

    frame = np.eye(4)
    frame[:3, 3] = (1.0, 2.0, 3.0)
    half = np.array([0.1, 0.5, 0.05])  # long axis Y, radius 0.05 (half the thinner Z edge)
    lines = capsule_lines(frame[None], half[None])
    assert lines.shape == (1, 4 * CAPSULE_SEGMENTS + 4, 2, 3)
    local = lines.reshape(-1, 3) - frame[:3, 3]
    # Every point is on the capsule's surface: distance 0.05 from the segment y in [-0.45, 0.45].
    nearest = np.clip(local[:, 1], -0.45, 0.45)
    distance = np.linalg.norm(local - np.column_stack([0 * nearest, nearest, 0 * nearest]), axis=1)
    np.testing.assert_allclose(distance, 0.05, atol=1e-12)
    assert local[:, 1].min() == pytest.approx(-0.5) and local[:, 1].max() == pytest.approx(0.5)
    segments, owners = part_lines(np.stack([frame, frame]), np.stack([half, half]), np.array([False, True]))
    assert list(np.bincount(owners)) == [12, 4 * CAPSULE_SEGMENTS + 4]


def test_capsule_triangles_cover_the_capsule_inside_the_box():
    from app.scene.gizmo_scene import CAPSULE_SEGMENTS, capsule_triangles

    frame = np.eye(4)
    frame[:3, 3] = (1.0, 2.0, 3.0)
    half = np.array([0.1, 0.5, 0.05])  # long axis Y, radius 0.05
    triangles = capsule_triangles(frame[None], half[None])
    rings = CAPSULE_SEGMENTS // 4
    assert triangles.shape == (1, 2 * CAPSULE_SEGMENTS * (2 * rings + 1), 3, 3)
    local = triangles.reshape(-1, 3) - frame[:3, 3]
    nearest = np.clip(local[:, 1], -0.45, 0.45)
    distance = np.linalg.norm(local - np.column_stack([0 * nearest, nearest, 0 * nearest]), axis=1)
    np.testing.assert_allclose(distance, 0.05, atol=1e-12)
    assert local[:, 1].min() == pytest.approx(-0.5) and local[:, 1].max() == pytest.approx(0.5)
    # Closed: the areas of the triangles add up to the capsule's area (a sphere and a cylinder), to
    # within what the facets cut off.
    edges = triangles[0, :, 1:] - triangles[0, :, :1]
    area = 0.5 * np.linalg.norm(np.cross(edges[:, 0], edges[:, 1]), axis=1).sum()
    assert area == pytest.approx(4 * np.pi * 0.05 ** 2 + 2 * np.pi * 0.05 * 0.9, rel=0.03)
