"""The load path's measures that were rewritten for speed, against hand-worked values: the fit
check's edge lengths (loading) and the extents the up-axis guess weighs (orientation)."""

from __future__ import annotations

import numpy as np

from app.loading import _edge_lengths
from app.orientation import _extents


def test_edge_lengths_follow_each_triangles_edges_in_turn():
    positions = np.array([[0, 0, 0], [3, 0, 0], [3, 4, 0], [0, 0, 2]], np.float32)
    triangles = np.array([[0, 1, 2], [3, 0, 1]])
    # 0→1 = 3, 1→2 = 4, 2→0 = 5; 3→0 = 2, 0→1 = 3, 1→3 = √13
    assert np.allclose(_edge_lengths(positions, triangles), [3, 4, 5, 2, 3, np.sqrt(13)])


def test_edge_lengths_of_no_triangles():
    assert _edge_lengths(np.zeros((2, 3), np.float32), np.zeros((0, 3), np.int64)).shape == (0,)


def test_extents_are_each_axis_span():
    points = np.array([[1.0, -2.0, 0.5], [4.0, 3.0, 0.5], [-1.0, 0.0, 0.5]])
    assert _extents(points).tolist() == [5.0, 5.0, 0.0]
