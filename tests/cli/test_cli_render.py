"""``boneyard render``: the demo is framed, lit, sized as asked, and transparent when asked."""

import numpy as np
import pytest
from PIL import Image

from app.cli.main import main

pytestmark = pytest.mark.gl


def rendered(tmp_path, *args):
    out = tmp_path / "out.png"
    assert main(["render", "--demo", "-o", str(out), *args]) == 0
    return np.asarray(Image.open(out).convert("RGBA")).astype(int)


def character_mask(image):
    """Skin-coloured pixels: the demo's body is warm and light (the red grid axis is not)."""
    red, green, blue, alpha = (image[..., i] for i in range(4))
    return (red > 110) & (green > 80) & (red - blue > 35) & (alpha > 0)


def test_walk_frame_is_framed_and_lit(gl_context, tmp_path):
    image = rendered(tmp_path, "--time", "0.5", "--size", "640x480")
    assert image.shape == (480, 640, 4)
    mask = character_mask(image)
    rows, cols = np.nonzero(mask)
    assert mask.mean() > 0.03
    # Framed: the body spans much of the height, is centred, and stays inside the picture.
    assert rows.max() - rows.min() > 0.5 * 480
    assert rows.min() > 0 and rows.max() < 479 and cols.min() > 0 and cols.max() < 639
    assert 0.35 * 640 < cols.mean() < 0.65 * 640
    # Lit: the body's brightness varies (shading), neither black nor flat.
    brightness = image[..., :3].sum(axis=-1)[mask]
    assert brightness.mean() > 200 and brightness.std() > 15


def test_transparent_background_and_size(gl_context, tmp_path):
    image = rendered(tmp_path, "--transparent", "--size", "320x200", "--view", "front")
    assert image.shape == (200, 320, 4)
    for corner in (image[0, 0], image[0, -1], image[-1, 0], image[-1, -1]):
        assert corner[3] == 0
    assert (image[..., 3] == 255).mean() > 0.02


def test_bones_and_wireframe_change_the_picture(gl_context, tmp_path):
    plain = rendered(tmp_path, "--size", "320x240", "--view", "side")
    wire = rendered(tmp_path, "--size", "320x240", "--view", "side", "--wireframe")
    assert (np.abs(plain - wire).max(axis=-1) > 30).sum() > 100


def test_dual_quaternion_skinning_renders(gl_context, tmp_path):
    lbs = rendered(tmp_path, "--time", "0.25", "--size", "320x240")
    dqs = rendered(tmp_path, "--time", "0.25", "--size", "320x240", "--skinning", "dqs")
    assert character_mask(dqs).mean() > 0.02
    assert abs(character_mask(dqs).mean() - character_mask(lbs).mean()) < 0.01


def test_in_place_renders_the_model_over_where_it_starts(gl_context, tmp_path):
    """The demo slid 3 units along X in one second (its pelvis's only key change), written as glTF:
    framed on the model either way, the ground shows where it is. Run on, the grid has moved under
    it at 1 s; in place the picture at 1 s is the one at 0 s."""
    from dataclasses import replace

    from app import loading
    from app.export.gltf import export_gltf
    from app.model import Clip, Track
    from app.resources import demo_paths

    demo = loading.load(demo_paths())
    rest = demo.skeleton.rest_local[0, :3, 3]
    slide = Clip("slide", "keyed", tracks=[Track(0, translation=(np.array([0.0, 1.0]),
                                                                 np.stack([rest, rest + [3, 0, 0]])))])
    model_file = tmp_path / "slide.glb"
    export_gltf(replace(demo, clips=[slide]), model_file)

    def picture(*args):
        out = tmp_path / "out.png"
        assert main(["render", str(model_file), "--size", "160x120", "--view", "front", "-o", str(out),
                     *args]) == 0
        return np.asarray(Image.open(out).convert("RGB")).astype(int)

    start = picture("--time", "0")
    moved = {name: int((np.abs(picture("--time", "1", *args) - start).max(axis=-1) > 30).sum())
             for name, args in (("run", []), ("placed", ["--in-place"]))}
    assert moved["placed"] == 0 and moved["run"] > 100, moved
