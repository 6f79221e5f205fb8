"""Up axis and facing: the guess on rest poses of both kinds, --up, each format's facing, and the
named views putting the camera on the side the model faces."""

from __future__ import annotations

import numpy as np
import pytest

from app import loading, orientation
from app.formats import LoadOptions
from app.model import Mesh, Model, Skeleton
from app.render.camera import Camera, camera_for
from tests.synthetic import humanoid
from tests.writers.c3de_writer import write_bones_2009, write_mesh
from tests.writers.gltf_writer import write_gltf
from tests.writers.nwn_writer import WNode, write_mdl

#: Canonical (Z-up) → Y-up: (x, y, z) → (x, z, −y).
TO_Y_UP = np.array([[1.0, 0, 0], [0, 0, 1.0], [0, -1.0, 0]])


def box(low, high):
    """The 8 corners of an axis-aligned box."""
    return np.array(np.meshgrid(*zip(low, high))).reshape(3, -1).T


def standing_figure() -> np.ndarray:
    """A Z-up person, 1.8 tall, facing −Y: flat feet, legs, a torso, a head and arms held out."""
    feet = [box((x - 0.05, -0.2, 0.0), (x + 0.05, 0.05, 0.06)) for x in (-0.12, 0.12)]
    legs = [box((x - 0.06, -0.05, 0.06), (x + 0.06, 0.05, 0.9)) for x in (-0.12, 0.12)]
    torso = box((-0.2, -0.12, 0.9), (0.2, 0.12, 1.5))
    head = box((-0.1, -0.12, 1.5), (0.1, 0.1, 1.8))
    arms = [box((-0.8, -0.05, 1.38), (-0.2, 0.05, 1.46)), box((0.2, -0.05, 1.38), (0.8, 0.05, 1.46))]
    return np.concatenate([*feet, *legs, torso, head, *arms])


def quadruped() -> np.ndarray:
    """A Z-up animal longer than tall: a body box on four thin legs, a head out front, a tail behind."""
    body = box((-0.3, -1.0, 0.6), (0.3, 1.0, 1.0))
    legs = [box((x - 0.05, y - 0.05, 0.0), (x + 0.05, y + 0.05, 0.6))
            for x in (-0.25, 0.25) for y in (-0.9, 0.9)]
    head = box((-0.15, -1.4, 0.9), (0.15, -1.0, 1.2))
    tail = box((-0.03, 1.0, 0.8), (0.03, 1.6, 0.85))
    return np.concatenate([body, *legs, head, tail])


def spider() -> np.ndarray:
    """A Z-up eight-legged body, much wider and longer than tall, legs splayed to the ground."""
    body = box((-0.4, -0.6, 0.4), (0.4, 0.6, 0.8))
    legs = []
    for y in (-0.45, -0.15, 0.15, 0.45):
        for side in (-1, 1):
            legs.append(np.array([[side * 0.4, y, 0.6], [side * 1.0, y * 1.6, 0.7],
                                  [side * 1.5, y * 2.0, 0.0]]))
    return np.concatenate([body, *legs])


def points_model(points: np.ndarray, up: str) -> Model:
    points = points if up == "Z" else points @ TO_Y_UP.T
    mesh = Mesh("m", positions=points, joints=np.zeros((len(points), 1)), weights=np.zeros((len(points), 1)))
    empty = Skeleton(names=[], parents=np.zeros(0), bind_world=np.zeros((0, 4, 4)), heads=np.zeros((0, 3)),
                     tails=np.zeros((0, 3)), derived_tails=np.zeros(0, bool))
    return Model("points", empty, [mesh])


@pytest.mark.parametrize("up", ["Y", "Z"])
@pytest.mark.parametrize("shape", [standing_figure, quadruped, spider])
def test_up_guess_on_rest_poses(shape, up):
    assert orientation.guess_up(points_model(shape(), up)) == up


def test_no_guess_without_vertices():
    assert orientation.guess_up(humanoid("Y", with_mesh=False)) is None
    assert orientation.guess_up(points_model(np.zeros((8, 3)), "Z")) is None


def c3de_files(folder, points: np.ndarray):
    count = len(points) - len(points) % 3
    mesh = folder / "figure.c3d"
    mesh.write_bytes(write_mesh(points[:count], np.zeros(count, int), np.full(count, -1), np.ones(count),
                                layout="2009"))
    bones = folder / "figureBones.c3d"
    bones.write_bytes(write_bones_2009(np.eye(4)[None, None]))
    return [mesh, bones]


@pytest.mark.parametrize("up", ["Y", "Z"])
def test_c3de_up_is_guessed_and_the_option_wins(tmp_path, up):
    points = points_model(standing_figure(), up).meshes[0].positions
    files = c3de_files(tmp_path, points)
    model = loading.load(files)
    assert (model.up_axis, model.up_source) == (up, "guessed")
    other = "Z" if up == "Y" else "Y"
    model = loading.load(files, LoadOptions(up=other))
    assert (model.up_axis, model.up_source) == (other, "option")


def test_each_format_declares_its_facing(tmp_path):
    nwn = tmp_path / "c_n.mdl"
    nwn.write_bytes(write_mdl("c_n", WNode("c_n", children=[
        WNode("g", 0x021, (0, 0, 0), (0, 0, 0, 1), vertices=[[0, 0, 0], [1, 0, 0], [0, 1, 0]],
              faces=[[0, 1, 2]])])))
    gltf = write_gltf(tmp_path, {"scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"name": "n"}]}, [])
    model = loading.load([nwn])
    assert (model.up_axis, model.up_source, model.forward) == ("Z", "file", "+Y")
    model = loading.load([gltf])
    assert (model.up_axis, model.up_source, model.forward) == ("Y", "file", "+Z")
    model = loading.load(c3de_files(tmp_path, points_model(standing_figure(), "Y").meshes[0].positions))
    assert (model.up_axis, model.forward) == ("Y", "+Z")


def test_facing_falls_back_when_it_lies_along_up():
    assert orientation.facing("Z", "+Y") == "+Y"
    assert orientation.facing("Y", "+Y") == "+Z"
    assert orientation.facing("Z", "") == "-Y"
    assert orientation.facing("Z", "-Z") == "-Y"


@pytest.mark.parametrize("up, forward", [("Z", "+Y"), ("Z", "-Y"), ("Z", "+X"), ("Y", "+Z"), ("Y", "-X"),
                                         ("Y", "-Z")])
def test_front_view_looks_at_the_face_and_side_at_the_left(up, forward):
    camera = Camera(up_axis=up, forward=forward)
    camera.set_view("front")
    facing = np.zeros(3)
    facing["XYZ".index(forward[1])] = 1.0 if forward[0] == "+" else -1.0
    up_vector = np.eye(3)["XYZ".index(up)]
    offset = (camera.eye - camera.target) / camera.distance
    np.testing.assert_allclose(offset, facing, atol=1e-12)
    np.testing.assert_allclose(camera.world_up, up_vector, atol=1e-12)
    camera.set_view("side")
    # The model's left side: up × facing (a figure facing −Y with +Z up has its left hand at +X).
    np.testing.assert_allclose((camera.eye - camera.target) / camera.distance, np.cross(up_vector, facing),
                               atol=1e-12)


def test_camera_for_uses_the_facing():
    camera = camera_for(np.zeros(3), np.ones(3), up_axis="Z", view="front", forward="+Y")
    assert camera.eye[1] > 1.0
