"""Projection to window pixels and screen-space bone picking, checked by hand."""

import numpy as np

from app.render.camera import Camera, project
from app.render.picking import nearest_segment


def test_target_projects_to_the_centre_and_offsets_by_focal_length():
    camera = Camera(target=np.zeros(3), distance=10.0, up_axis="Z")
    camera.set_view("front")  # looking along +Y, Z up, X to the right
    pixels, inside = project(camera, [[0, 0, 0], [1, 0, 0], [0, 0, 1], [0, -20, 0]], 200, 100)
    focal = 1.0 / np.tan(0.5 * camera.fov)
    assert np.allclose(pixels[0], (100, 50))
    # One unit right at depth 10: ndc x = focal / aspect / 10 → pixels = (1 + x) · 100.
    assert np.allclose(pixels[1], (100 + focal / 2.0 / 10.0 * 100, 50))
    assert np.allclose(pixels[2], (100, 50 - focal / 10.0 * 50))
    assert inside[:3].all() and not inside[3], "a point behind the eye is not in view"


def test_nearest_segment_measures_distance_to_the_segment_not_its_ends():
    starts = np.array([[0.0, 0.0], [0.0, 50.0]])
    ends = np.array([[100.0, 0.0], [100.0, 50.0]])
    assert nearest_segment(starts, ends, (50, 8), radius=10) == 0
    assert nearest_segment(starts, ends, (50, 42), radius=10) == 1
    assert nearest_segment(starts, ends, (50, 25), radius=10) is None
    assert nearest_segment(starts, ends, (110, 0), radius=10) == 0, "past the end: distance to the end point"
    assert nearest_segment(starts, ends, (50, 8), radius=10, usable=np.array([False, True])) is None
    assert nearest_segment(np.zeros((0, 2)), np.zeros((0, 2)), (0, 0), radius=10) is None


def test_zero_length_segment_is_a_point():
    assert nearest_segment(np.array([[5.0, 5.0]]), np.array([[5.0, 5.0]]), (8, 9), radius=6) == 0
