"""`convert --plt LAYER=INDEX` and the window's Export glTF bake the PLT colours chosen into the exported
image (issue 40): the GLB is taken apart here (chunks, bufferView, PNG) and its pixels held to the
palette colours the test wrote."""

from __future__ import annotations

import io
import json
import struct

import numpy as np
import pytest
from PIL import Image

from app import loading
from app.cli.main import main
from app.state.plt_colours import PltColours
from app.state.viewer import ViewerState
from tests.plt_files import expected_image, write_plt_model


def glb_images(path) -> list[np.ndarray]:
    """Every image embedded in a GLB, decoded to (H, W, 4) uint8 (glTF 2.0: a 12-byte header, a JSON
    chunk, a BIN chunk; each image a bufferView of the BIN chunk)."""
    data = path.read_bytes()
    magic, _, _ = struct.unpack_from("<4sII", data)
    assert magic == b"glTF"
    json_length, _ = struct.unpack_from("<II", data, 12)
    document = json.loads(data[20:20 + json_length])
    binary_at = 20 + json_length + 8
    images = []
    for image in document.get("images", []):
        view = document["bufferViews"][image["bufferView"]]
        start = binary_at + view.get("byteOffset", 0)
        encoded = data[start:start + view["byteLength"]]
        images.append(np.asarray(Image.open(io.BytesIO(encoded)).convert("RGBA")))
    return images


@pytest.mark.parametrize("choices, skin, cloth", [
    ([], 0, 0), (["--plt", "skin=120", "--plt", "cloth1=37"], 120, 37), (["--plt", "cloth1=175"], 0, 175)])
def test_convert_bakes_the_plt_choices(tmp_path, choices, skin, cloth):
    model = write_plt_model(tmp_path)
    out = tmp_path / "out.glb"
    assert main(["convert", str(model), "-o", str(out), *choices]) == 0
    (image,) = glb_images(out)
    assert np.array_equal(image, expected_image(skin, cloth))


def test_two_choices_give_two_images(tmp_path):
    model = write_plt_model(tmp_path)
    first, second = tmp_path / "a.glb", tmp_path / "b.glb"
    assert main(["convert", str(model), "-o", str(first), "--plt", "skin=10"]) == 0
    assert main(["convert", str(model), "-o", str(second), "--plt", "skin=160"]) == 0
    left_first, left_second = glb_images(first)[0][0, 0], glb_images(second)[0][0, 0]
    assert left_first[0] > left_first[2] and left_second[2] > left_second[0]  # red rows, then blue rows


def test_the_windows_export_bakes_the_layers_chosen(tmp_path):
    model = write_plt_model(tmp_path)
    state = ViewerState()
    colours = PltColours(state)
    state.set_model(loading.load([model]))
    colours.set_index("skin", 140)
    colours.set_index("cloth1", 12)
    out = tmp_path / "window.glb"
    state.export_gltf(out)
    (image,) = glb_images(out)
    assert np.array_equal(image, expected_image(140, 12))
