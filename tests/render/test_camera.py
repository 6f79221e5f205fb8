"""The orbit camera: framing, named views for both up axes, moving, and picking rays."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from app.render.camera import Camera, camera_for

#: The direction each named view looks along, per up axis (Z-up faces −Y, Y-up faces +Z).
LOOK_DIRECTIONS = {
    "Z": {"front": (0, 1, 0), "side": (-1, 0, 0), "top": (0, 0, -1)},
    "Y": {"front": (0, 0, -1), "side": (-1, 0, 0), "top": (0, -1, 0)},
}
SCREEN_UP = {"Z": {"front": (0, 0, 1), "side": (0, 0, 1), "top": (0, 1, 0)},
             "Y": {"front": (0, 1, 0), "side": (0, 1, 0), "top": (0, 0, -1)}}


def to_ndc(camera: Camera, points: np.ndarray, aspect: float) -> np.ndarray:
    """(N, 3) world points → (N, 3) normalised device coordinates."""
    homogeneous = np.concatenate([points, np.ones((len(points), 1))], axis=1)
    clip = homogeneous @ (camera.projection_matrix(aspect) @ camera.view_matrix()).T
    return clip[:, :3] / clip[:, 3:]


@pytest.mark.parametrize("up_axis", ["Z", "Y"])
@pytest.mark.parametrize("view", ["front", "side", "top", "iso"])
@pytest.mark.parametrize("aspect", [0.5, 1.0, 16 / 9])
def test_framing_keeps_the_corners_in_view(up_axis, view, aspect):
    low, high = np.array([-0.3, 2.0, 0.0]), np.array([0.5, 2.4, 1.8])
    camera = camera_for(low, high, up_axis, view, aspect)
    corners = np.array(list(itertools.product(*zip(low, high))))
    ndc = to_ndc(camera, corners, aspect)
    assert np.all(np.abs(ndc) < 1.0)
    assert np.abs(ndc[:, :2]).max() > 0.4


@pytest.mark.parametrize("up_axis", ["Z", "Y"])
@pytest.mark.parametrize("view", ["front", "side", "top"])
def test_views_look_along_the_model_axes(up_axis, view):
    camera = Camera(up_axis=up_axis)
    camera.set_view(view)
    forward, right, up = camera.axes()
    np.testing.assert_allclose(forward, LOOK_DIRECTIONS[up_axis][view], atol=1e-12)
    np.testing.assert_allclose(up, SCREEN_UP[up_axis][view], atol=1e-12)
    np.testing.assert_allclose(np.cross(right, up), -forward, atol=1e-12)


@pytest.mark.parametrize("up_axis", ["Z", "Y"])
def test_iso_view_is_above_and_in_front(up_axis):
    camera = Camera(up_axis=up_axis)
    camera.set_view("iso")
    offset = camera.eye - camera.target
    front = -np.array(LOOK_DIRECTIONS[up_axis]["front"], float)
    assert offset @ front > 0
    assert offset @ camera.world_up > 0


def test_view_matrix_is_rigid_and_centres_the_target():
    camera = Camera(target=np.array([1.0, 2.0, 3.0]), distance=4.0, yaw=0.3, pitch=-0.2)
    view = camera.view_matrix()
    np.testing.assert_allclose(view[:3, :3] @ view[:3, :3].T, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(view @ [1.0, 2.0, 3.0, 1.0], [0, 0, -4.0, 1.0], atol=1e-12)


def test_orbit_clamps_pitch_and_keeps_distance():
    camera = Camera(distance=3.0)
    camera.orbit(0.5, 10.0)
    assert camera.pitch == pytest.approx(math.pi / 2)
    assert np.linalg.norm(camera.eye - camera.target) == pytest.approx(3.0)


def test_pan_moves_the_target_across_the_screen():
    camera = Camera(up_axis="Z")
    camera.set_view("front")
    camera.pan(1.0, 0.0)
    assert camera.target[0] < 0 and abs(camera.target[2]) < 1e-12


def test_zoom_toward_a_point_keeps_it_in_place():
    camera = Camera(distance=10.0)
    point = np.array([1.0, 0.5, 0.0])
    before = to_ndc(camera, point[None], 1.0)
    camera.zoom(0.5, toward=point)
    assert camera.distance == pytest.approx(5.0)
    np.testing.assert_allclose(to_ndc(camera, point[None], 1.0)[:, :2], before[:, :2], atol=0.05)
    with pytest.raises(ValueError):
        camera.zoom(0.0)


@pytest.mark.parametrize("up_axis", ["Z", "Y"])
def test_ray_passes_through_the_projected_point(up_axis):
    camera = camera_for(np.zeros(3), np.ones(3), up_axis, "iso", 1.5)
    point = np.array([0.8, 0.1, 0.6])
    x, y, _ = to_ndc(camera, point[None], 1.5)[0]
    origin, direction = camera.ray(x, y, 1.5)
    along = (point - origin) @ direction
    np.testing.assert_allclose(origin + along * direction, point, atol=1e-9)


def test_unknown_view_and_up_axis_are_refused():
    with pytest.raises(ValueError):
        Camera(up_axis="X")
    with pytest.raises(ValueError):
        Camera().set_view("back")


# --- pyrr at the boundary: row-vector matrices transposed once ----------------------------------------

def test_pyrr_look_at_is_row_vector_and_the_camera_transposes_it():
    """pyrr's look-at maps row vectors (``p @ M``, translation in the last row); the camera's view
    matrix is its transpose, for column vectors. Pinned with a camera whose frame is known by hand:
    front view of a Z-up model from 4 units down −Y, so eye (1, 2 − 4, 3), right +X, up +Z."""
    from pyrr import matrix44

    camera = Camera(target=np.array([1.0, 2.0, 3.0]), distance=4.0, yaw=0.0, pitch=0.0, up_axis="Z")
    rows = matrix44.create_look_at([1.0, -2.0, 3.0], [1.0, 2.0, 3.0], [0.0, 0.0, 1.0])
    np.testing.assert_allclose(rows[3, :3], [-1.0, -3.0, -2.0], atol=1e-12)  # translation in the last row
    expected = np.array([[1.0, 0.0, 0.0, -1.0],   # right = +X
                         [0.0, 0.0, 1.0, -3.0],   # up = +Z
                         [0.0, -1.0, 0.0, -2.0],  # the eye looks along its −Z = +Y
                         [0.0, 0.0, 0.0, 1.0]])
    np.testing.assert_allclose(camera.view_matrix(), expected, atol=1e-12)
    np.testing.assert_allclose(camera.view_matrix(), rows.T, atol=1e-12)
    assert camera.view_matrix().flags.c_contiguous


def test_perspective_projection_maps_the_frustum_to_the_unit_cube():
    camera = Camera(distance=10.0, fov=math.radians(60.0), radius=1.0)
    near, far = camera.clip_planes()
    projection = camera.projection_matrix(2.0)
    top = math.tan(math.radians(30.0))

    def ndc(x, y, depth):
        clip = projection @ [x, y, -depth, 1.0]
        return clip[:3] / clip[3]

    np.testing.assert_allclose(ndc(0.0, 0.0, near), [0.0, 0.0, -1.0], atol=1e-9)
    np.testing.assert_allclose(ndc(0.0, 0.0, far), [0.0, 0.0, 1.0], atol=1e-9)
    np.testing.assert_allclose(ndc(2.0 * top * 5.0, top * 5.0, 5.0)[:2], [1.0, 1.0], atol=1e-9)
    np.testing.assert_allclose(projection[3], [0.0, 0.0, -1.0, 0.0])  # w = depth: a column-vector matrix


def test_orthographic_shows_the_target_plane_as_perspective_does_and_has_parallel_rays():
    camera = Camera(distance=10.0, fov=math.radians(60.0), orthographic=True)
    projection = camera.projection_matrix(1.5)
    half_height = 10.0 * math.tan(math.radians(30.0))
    for depth in (1.0, 10.0, 30.0):  # the same size at every depth
        clip = projection @ [1.5 * half_height, half_height, -depth, 1.0]
        np.testing.assert_allclose(clip[:2] / clip[3], [1.0, 1.0], atol=1e-9)
    np.testing.assert_allclose(projection[3], [0.0, 0.0, 0.0, 1.0])
    forward = camera.axes()[0]
    first, first_direction = camera.ray(-0.5, 0.2, 1.5)
    second, second_direction = camera.ray(0.9, -0.7, 1.5)
    np.testing.assert_allclose(first_direction, forward)
    np.testing.assert_allclose(second_direction, forward)
    assert not np.allclose(first, second)


@pytest.mark.parametrize("orthographic", [False, True])
def test_rays_pass_through_projected_points_in_both_projections(orthographic):
    camera = camera_for(np.zeros(3), np.ones(3), "Y", "iso", 1.5)
    camera.orthographic = orthographic
    point = np.array([0.8, 0.1, 0.6])
    x, y, _ = to_ndc(camera, point[None], 1.5)[0]
    origin, direction = camera.ray(x, y, 1.5)
    along = (point - origin) @ direction
    np.testing.assert_allclose(origin + along * direction, point, atol=1e-9)


def test_the_view_matrix_is_made_again_whenever_the_camera_moves():
    """The view matrix is kept between frames; every change of the camera (a field set, the target
    moved in place, a pan, an orbit) gives the matrix a camera made afresh with those values gives."""
    camera = Camera(target=np.array([0.5, 0.0, 1.0]), distance=4.0, up_axis="Y", forward="+Z")

    def fresh():
        return Camera(target=camera.target.copy(), distance=camera.distance, yaw=camera.yaw,
                      pitch=camera.pitch, up_axis=camera.up_axis, forward=camera.forward).view_matrix()

    first = camera.view_matrix()
    first[0, 0] = 99.0  # a caller's copy: the kept matrix is not changed through it
    assert np.array_equal(camera.view_matrix(), fresh())
    for move in (lambda: setattr(camera, "yaw", 0.3), lambda: setattr(camera, "distance", 7.0),
                 lambda: camera.target.__setitem__(1, 2.0), lambda: camera.pan(0.1, -0.2),
                 lambda: camera.orbit(0.2, 0.1), lambda: setattr(camera, "up_axis", "Z")):
        before = camera.view_matrix()
        move()
        assert np.array_equal(camera.view_matrix(), fresh())
        assert not np.array_equal(camera.view_matrix(), before)
