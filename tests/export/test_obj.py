"""The posed-mesh OBJ writer."""

from __future__ import annotations

import numpy as np
import pytest

from app.export.obj import write_obj
from app.model import Mesh, Model, Skeleton


def _skeleton() -> Skeleton:
    return Skeleton(["root"], [-1], np.eye(4)[None], np.zeros((1, 3)), [[0, 1, 0]], [True])


def _read_obj(path) -> tuple[np.ndarray, np.ndarray, list[list[str]]]:
    """Positions (N, 3), normals (M, 3) and face corner tokens of an OBJ file."""
    lines = [line.split() for line in path.read_text().splitlines()]
    vertices = np.array([[float(x) for x in line[1:]] for line in lines if line[0] == "v"])
    normals = np.array([[float(x) for x in line[1:]] for line in lines if line[0] == "vn"]).reshape(-1, 3)
    faces = [line[1:] for line in lines if line[0] == "f"]
    return vertices, normals, faces


def test_triangles_with_offsets_and_normals(tmp_path):
    square = Mesh("square", [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], np.zeros((4, 1)), np.ones((4, 1)),
                  triangles=[[0, 1, 2], [0, 2, 3]])
    tri = Mesh("a tri", [[0, 0, 1], [0, 1, 1], [1, 0, 1]], np.zeros((3, 1)), np.ones((3, 1)),
               triangles=[[0, 1, 2]])
    model = Model("m", _skeleton(), [square, tri])
    posed = model.bind_positions + np.array([1.0 / 3.0, 0.1, -0.7])
    write_obj(tmp_path / "out.obj", model, posed)
    vertices, normals, faces = _read_obj(tmp_path / "out.obj")
    np.testing.assert_allclose(vertices, posed, atol=1e-7)
    assert faces == [["1//1", "2//2", "3//3"], ["1//1", "3//3", "4//4"], ["5//5", "6//6", "7//7"]]
    np.testing.assert_allclose(normals[:4], [[0, 0, 1]] * 4, atol=1e-6)
    np.testing.assert_allclose(normals[4:], [[0, 0, -1]] * 3, atol=1e-6)
    assert "o a_tri" in (tmp_path / "out.obj").read_text()


def test_points_only_mesh_writes_vertices(tmp_path):
    cloud = Mesh("cloud", [[0, 0, 0], [1, 2, 3]], np.zeros((2, 1)), np.zeros((2, 1)))
    model = Model("m", _skeleton(), [cloud])
    write_obj(tmp_path / "cloud.obj", model, [[0.5, 0, 0], [1, 2, 3.25]])
    vertices, normals, faces = _read_obj(tmp_path / "cloud.obj")
    np.testing.assert_allclose(vertices, [[0.5, 0, 0], [1, 2, 3.25]])
    assert normals.size == 0 and faces == []


def test_wrong_position_count(tmp_path):
    model = Model("m", _skeleton(), [Mesh("one", [[0, 0, 0]], np.zeros((1, 1)), np.zeros((1, 1)))])
    with pytest.raises(ValueError, match=r"expected shape \(1, 3\)"):
        write_obj(tmp_path / "bad.obj", model, np.zeros((2, 3)))
