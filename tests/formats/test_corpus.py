"""Real files from public sample repositories (tests/corpus/, each model's licence beside it): each
loads, renders from the front filling the picture, shows its colours or textures, poses every clip
at its first and last key (the file's own key times), and converts to glTF within 1e-6 of its size.

What a file holds (vertex colours, textures, key times) is read from the file itself here, not from
the reader under test. tests/corpus/README.md lists the files and why no NWN or C3DE file is among
them.
"""

from __future__ import annotations

import json
import struct
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from app.export.roundtrip import check_export
from app.export.gltf import export_gltf
from app.loading import load
from app.pose import evaluate, posed_positions

from tests.paths import CORPUS

FILES = sorted(path for path in CORPUS.rglob("*") if path.suffix.lower() in (".gltf", ".glb"))
#: Picture size: small, for speed.
SIZE = (160, 120)
#: The drawn pixels must span this share of the picture's height or width (a framed model spans
#: most of one of them; a tall model in a wide picture cannot cover 40 % of its area).
MIN_FILL = 0.4
#: Mean per-channel difference (0..255) over drawn pixels between the model as loaded and the same
#: model without its images and vertex colours: below it, the colours were not drawn.
MIN_COLOUR_EFFECT = 4.0
#: convert --check's worst vertex error, as a share of the model's size.
MAX_CHECK = 1e-6


def _document(path: Path) -> dict:
    """The glTF JSON (a .glb's JSON chunk)."""
    data = path.read_bytes()
    if data[:4] == b"glTF":
        length = struct.unpack_from("<I", data, 12)[0]
        return json.loads(data[20:20 + length])
    return json.loads(data)


def _has_colours(document: dict) -> bool:
    """Whether a primitive carries COLOR_0 or its material a base-colour texture."""
    materials = document.get("materials", [])
    for mesh in document.get("meshes", []):
        for primitive in mesh["primitives"]:
            material = materials[primitive["material"]] if "material" in primitive else {}
            if "COLOR_0" in primitive["attributes"] or \
                    "baseColorTexture" in material.get("pbrMetallicRoughness", {}):
                return True
    return False


def _key_range(document: dict, animation: dict) -> tuple[float, float]:
    """The first and last key time of an animation, from its inputs' min and max (which the glTF
    specification requires on animation inputs)."""
    inputs = [document["accessors"][sampler["input"]] for sampler in animation["samplers"]]
    return min(a["min"][0] for a in inputs), max(a["max"][0] for a in inputs)


@pytest.fixture(scope="module")
def renderer():
    from app.render.offscreen import OffscreenRenderer

    try:
        with OffscreenRenderer() as offscreen:
            yield offscreen
    except RuntimeError as error:
        pytest.skip(f"no headless OpenGL context: {error}")


def _drawn(renderer, model) -> np.ndarray:
    from app.scene.draw_settings import DrawSettings

    options = DrawSettings(transparent=True, grid=False, bones=not model.meshes)
    return renderer.render_image(model, size=SIZE, options=options, view="front")


def _without_colours(model):
    """The model with its images and vertex colours taken away (base colours kept)."""
    meshes = []
    for mesh in model.meshes:
        colours = {"colors": None} if getattr(mesh, "colors", None) is not None else {}
        meshes.append(replace(mesh, material=replace(mesh.material, image=None), **colours))
    return replace(model, meshes=meshes)


def test_the_corpus_is_30_licensed_files():
    assert len(FILES) >= 30
    for path in FILES:
        folder = next(parent for parent in path.parents if parent.parent == CORPUS)
        assert (folder / "LICENSE.md").is_file(), folder.name
        assert "CC" in (folder / "LICENSE.md").read_text()


@pytest.mark.parametrize("path", FILES, ids=lambda path: str(path.relative_to(CORPUS)))
def test_real_file(path, renderer, tmp_path):
    document = _document(path)
    model = load([path])

    image = _drawn(renderer, model)
    drawn = image[..., 3] > 0
    rows, columns = np.flatnonzero(drawn.any(axis=1)), np.flatnonzero(drawn.any(axis=0))
    assert rows.size, "nothing drawn"
    fill = max((np.ptp(rows) + 1) / drawn.shape[0], (np.ptp(columns) + 1) / drawn.shape[1])
    assert fill >= MIN_FILL, f"the model spans {fill:.0%} of the picture"

    if _has_colours(document):
        plain = _drawn(renderer, _without_colours(model))
        both = drawn | (plain[..., 3] > 0)
        effect = float(np.abs(image[both][:, :3].astype(float) - plain[both][:, :3]).mean())
        assert effect >= MIN_COLOUR_EFFECT, f"drawn as without its colours (difference {effect:.2f})"

    animations = document.get("animations", [])
    assert len(model.clips) == len(animations)
    for clip, animation in zip(model.clips, animations):
        first, last = _key_range(document, animation)
        np.testing.assert_allclose([clip.frame_times[0], clip.frame_times[-1]], [first, last], atol=1e-6,
                                   err_msg=f"clip {clip.name!r}: first and last stored key")
        for time in (first, last):
            assert np.isfinite(posed_positions(model, evaluate(model, clip, time))).all()

    output = tmp_path / "out.glb"
    export_gltf(model, output)
    result = check_export(model, load([output]))
    assert result.fraction <= MAX_CHECK, result.line()
