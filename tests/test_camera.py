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
