"""Camera-facing textured quads for the material tests (offscreen and in the window): images the test
paints, a quad with glTF UVs, and a camera that shows it head-on at a known size."""

from __future__ import annotations

import math

import numpy as np

from app.model import Material, Mesh, Model, Skeleton
from app.render.camera import Camera

SIZE = (200, 200)
#: The quad's corners land 80 px either side of the centre of the 200 px view (see ``front_camera``).
QUAD_PIXELS = 160
RED, GREEN, BLUE, GREY = (255, 0, 0, 255), (0, 200, 0, 255), (30, 60, 230, 255), (128, 128, 128, 255)


def srgb_to_linear(values) -> np.ndarray:
    """The sRGB transfer function's inverse (IEC 61966-2-1), on 0..255 values."""
    c = np.asarray(values, dtype=np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def quadrants(top_left, top_right, bottom_left, bottom_right, side: int = 32) -> np.ndarray:
    """A (2·side, 2·side, 4) RGBA image of four flat blocks, row 0 at the top."""
    image = np.zeros((2 * side, 2 * side, 4), np.uint8)
    image[:side, :side], image[:side, side:] = top_left, top_right
    image[side:, :side], image[side:, side:] = bottom_left, bottom_right
    return image


def quad(material: Material, z: float = 0.0, x: float = 0.0, half: float = 1.0, uv_scale: float = 1.0,
         name: str = "quad", visible: bool = True, flip_winding: bool = False) -> Mesh:
    """A square in the plane ``z`` facing +Z, UV (0, 0) at its top-left corner (glTF's convention)."""
    positions = np.array([[-1, 1, 0], [1, 1, 0], [1, -1, 0], [-1, -1, 0]], np.float64) * half + [x, 0.0, z]
    uvs = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64) * uv_scale
    triangles = np.array([[0, 3, 2], [0, 2, 1]])  # counter-clockwise seen from +Z
    return Mesh(name=name, positions=positions, normals=np.tile([0.0, 0.0, 1.0], (4, 1)), uvs=uvs,
                triangles=triangles[:, ::-1] if flip_winding else triangles, joints=np.zeros((4, 1)),
                weights=np.zeros((4, 1)), material=material, visible=visible)


def scene(*meshes: Mesh) -> Model:
    skeleton = Skeleton(names=["root"], parents=[-1], bind_world=np.eye(4)[None], heads=np.zeros((1, 3)),
                        tails=[[0.0, 0.1, 0.0]], derived_tails=[False])
    return Model(name="quads", skeleton=skeleton, meshes=list(meshes), up_axis="Y")


def front_camera(behind: bool = False) -> Camera:
    """Looking down −Z at the origin (or up +Z from behind), the quad of half size 1 spanning 160 px."""
    fov = math.radians(40.0)
    distance = 1.0 / (QUAD_PIXELS / SIZE[1] * math.tan(0.5 * fov))
    return Camera(up_axis="Y", yaw=math.pi if behind else 0.0, pitch=0.0, distance=distance, fov=fov,
                  radius=2.0)
