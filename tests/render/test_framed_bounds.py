"""The camera frames the overlays it draws (app/scene/framed_bounds.py): a walkmesh wider than its
placeable and an emitter's cone high above its model are inside the box with ``walkmesh`` /
``emitters`` on, and left out with them off. Expected corners are worked out here from the shapes the
files were written with."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PIL import Image

from app import loading
from app.cli.main import main
from app.pose import rest_pose
from app.scene.draw_settings import DrawSettings
from app.scene.framed_bounds import framed_bounds
from tests.formats.test_nwn_dangly_emitters import tree
from tests.formats.test_nwn_walkmesh import BOX, placeable_tree
from tests.writers.nwn_ascii_writer import write_ascii_mdl
from tests.writers.nwn_walkmesh_writer import WalkNode, write_ascii_walkmesh

#: The pool's walkmesh: three times the placeable's 1 × 1 box, moved by (-1, -1): x and y in -1..2.
POOL_WALKMESH = BOX * 3 + [-1, -1, 0]


def pool(folder) -> str:
    """A 1 × 1 placeable on z = 0 with a 3 × 3 walkmesh of Water around it."""
    model = folder / "plc_pool.mdl"
    model.write_bytes(write_ascii_mdl("plc_pool", placeable_tree("plc_pool")))
    node = WalkNode("trimesh", "pool_wg", POOL_WALKMESH, [[0, 1, 2], [0, 2, 3]], [6, 6])
    (folder / "plc_pool.pwk").write_bytes(write_ascii_walkmesh("plc_pool", [node]))
    return str(model)


def fountain(folder) -> str:
    """The cape (a 1 × 1 square at z = 1) with the emitter 'fire' at (1, 2, 3): spread 1.5 rad, its
    particles reaching 1.5 m (3 m/s for 0.5 s), a 0.5 × 1.2 m birth plane."""
    model = folder / "fx.mdl"
    model.write_bytes(write_ascii_mdl("fx", tree()))
    return str(model)


def test_the_walkmesh_is_framed_only_when_drawn(tmp_path):
    model = loading.load([pool(tmp_path)])
    pose = rest_pose(model)
    low, high = framed_bounds(model, pose, DrawSettings())
    np.testing.assert_allclose([low, high], [[0, 0, 0], [1, 1, 0]], atol=1e-6)
    low, high = framed_bounds(model, pose, DrawSettings(walkmesh=True))
    np.testing.assert_allclose([low, high], [POOL_WALKMESH.min(axis=0), POOL_WALKMESH.max(axis=0)], atol=1e-6)


def test_the_emitter_cone_is_framed_only_when_drawn(tmp_path):
    model = loading.load([fountain(tmp_path)])
    pose = rest_pose(model)
    low, high = framed_bounds(model, pose, DrawSettings())
    np.testing.assert_allclose([low, high], [[0, 0, 1], [1, 1, 1]], atol=1e-6)
    # The cone's rim is a circle of radius 1.5 sin(0.75) about the emitter's +Z (its segments meet the
    # x and y axes), its axis reaches 1.5 m up; the birth plane (0.25 × 0.6 half sizes) is inside it.
    radius = 1.5 * math.sin(0.75)
    low, high = framed_bounds(model, pose, DrawSettings(emitters=True))
    np.testing.assert_allclose(low, [min(0.0, 1 - radius), min(0.0, 2 - radius), 1.0], atol=1e-5)
    np.testing.assert_allclose(high, [1 + radius, 2 + radius, 3 + 1.5], atol=1e-5)


def _inside_the_picture(mask: np.ndarray) -> bool:
    """Whether ``mask``'s pixels are all clear of the picture's outermost rows and columns."""
    return not (mask[0].any() or mask[-1].any() or mask[:, 0].any() or mask[:, -1].any())


@pytest.mark.gl
def test_render_walkmesh_frames_the_whole_walkmesh(gl_context, tmp_path):
    model = pool(tmp_path)
    out = tmp_path / "walkmesh.png"
    assert main(["render", model, "-o", str(out), "--size", "300x300", "--view", "top", "--walkmesh"]) == 0
    picture = np.asarray(Image.open(out).convert("RGB")).astype(int)
    # Water tints the faces blue (the grey background and the floor grid's lines are not); the
    # legend's swatch (top left) is not a face, so it is left out of the mask.
    faces = picture[..., 2] - picture[..., 0] > 60
    faces[:40, :150] = False
    assert faces.mean() > 0.2
    assert _inside_the_picture(faces)


@pytest.mark.gl
def test_render_emitters_frames_the_cone_above_the_model(gl_context, tmp_path):
    model = fountain(tmp_path)
    out = tmp_path / "shown.png"
    assert main(["render", model, "--emitters", "-o", str(out), "--size", "200x200", "--view", "front"]) == 0
    shown = np.asarray(Image.open(out).convert("RGB")).astype(int)
    orange = (shown[..., 0] > 180) & (shown[..., 2] < 110)
    assert orange.sum() > 40
    assert _inside_the_picture(orange)
    # The cone's tip (z = 4.5) is the highest point framed, the cape (z = 1) the lowest: in the front
    # view the orange reaches the top fifth of the picture (the framing leaves a margin).
    assert np.flatnonzero(orange.any(axis=1)).min() < 200 / 5
