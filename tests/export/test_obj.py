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


def _textured_square(material) -> Model:
    square = Mesh("square", [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], np.zeros((4, 1)), np.ones((4, 1)),
                  uvs=[[0, 0], [1, 0], [1, 0.25], [0, 1]], triangles=[[0, 1, 2], [0, 2, 3]],
                  material=material)
    bare = Mesh("bare", [[0, 0, 2], [1, 0, 2], [0, 1, 2]], np.zeros((3, 1)), np.ones((3, 1)),
                triangles=[[0, 1, 2]])
    return Model("m", _skeleton(), [square, bare])


def test_uvs_flipped_normals_and_a_material_with_its_decoded_image_beside(tmp_path):
    from PIL import Image

    from app.model import Material

    pixels = np.zeros((2, 3, 4), np.uint8)
    pixels[0] = [255, 0, 0, 255]  # the top row red, the bottom row green (row 0 is the top)
    pixels[1] = [0, 255, 0, 255]
    # linear 0.21404114 is sRGB 0.5 (0.5 = 1.055 · 0.21404114^(1/2.4) − 0.055)
    skin = Material(name="fox skin", base_color=(0.21404114, 1.0, 0.0, 0.5), texture="embedded", image=pixels)
    model = _textured_square(skin)
    written = write_obj(tmp_path / "fox.obj", model, model.bind_positions)
    text = (tmp_path / "fox.obj").read_text()
    lines = [line.split() for line in text.splitlines()]
    assert ["mtllib", "fox.mtl"] in lines and ["usemtl", "fox_skin"] in lines
    uvs = [[float(x) for x in line[1:]] for line in lines if line[0] == "vt"]
    assert uvs == [[0, 1], [1, 1], [1, 0.75], [0, 0]]  # v = 1 − glTF's v
    faces = [line[1:] for line in lines if line[0] == "f"]
    assert faces == [["1/1/1", "2/2/2", "3/3/3"], ["1/1/1", "3/3/3", "4/4/4"], ["5//5", "6//6", "7//7"]]
    assert len([line for line in lines if line[0] == "vn"]) == 7
    mtl = (tmp_path / "fox.mtl").read_text().splitlines()
    start = mtl.index("newmtl fox_skin")
    kd = [float(x) for x in mtl[start + 1].split()[1:]]
    np.testing.assert_allclose(kd, [0.5, 1.0, 0.0], atol=1e-6)
    assert mtl[start + 2:start + 4] == ["d 0.500000", "map_Kd fox_fox_skin.png"]
    assert "newmtl bare" in mtl
    assert written == [tmp_path / "fox.mtl", tmp_path / "fox_fox_skin.png"]
    written_image = Image.open(tmp_path / "fox_fox_skin.png").convert("RGBA")
    np.testing.assert_array_equal(np.asarray(written_image), pixels)


def test_an_image_read_from_a_file_is_named_relative_to_the_obj(tmp_path):
    from app.model import Material

    (tmp_path / "textures").mkdir()
    (tmp_path / "out").mkdir()
    image_file = tmp_path / "textures" / "skin.png"
    image_file.write_bytes(b"not read again")
    skin = Material(name="skin", texture="skin.png", texture_path=str(image_file),
                    image=np.zeros((1, 1, 4), np.uint8))
    model = _textured_square(skin)
    written = write_obj(tmp_path / "out" / "pose.obj", model, model.bind_positions)
    assert "map_Kd ../textures/skin.png" in (tmp_path / "out" / "pose.mtl").read_text().splitlines()
    assert written == [tmp_path / "out" / "pose.mtl"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["pose.mtl", "pose.obj"]


def test_the_fox_keeps_its_texture_through_pose_obj(tmp_path):
    """The Fox sample (texture embedded in the GLB): `pose -o fox.obj` writes UVs for every vertex and
    the texture as a PNG the .mtl names, of the sample's image size."""
    from PIL import Image

    from app import loading
    from tests.helpers import exit_status
    from tests.paths import CORPUS

    fox = CORPUS / "Fox" / "Fox.glb"
    model = loading.load([fox])
    assert exit_status(["pose", str(fox), "-o", str(tmp_path / "fox.obj")]) == 0
    lines = (tmp_path / "fox.obj").read_text().splitlines()
    assert sum(line.startswith("vt ") for line in lines) == model.vertex_count
    maps = [line.split(None, 1)[1] for line in (tmp_path / "fox.mtl").read_text().splitlines()
            if line.startswith("map_Kd ")]
    assert len(maps) == 1
    texture = np.asarray(Image.open(tmp_path / maps[0]).convert("RGBA"))
    assert texture.shape == model.meshes[0].material.image.shape
