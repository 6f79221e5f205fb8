"""Finding and decoding texture images (app/formats/textures.py): lookup rules, each image type, bad images,
assigned images, and the textures each reader names, on files the tests write."""

from __future__ import annotations

import base64
import os
import struct

import numpy as np
import pytest
from PIL import Image

from app import loading
from app.formats import textures
from app.formats import LoadOptions
from tests.writers import text_formats as write
from tests.writers.c3de_writer import write_bones_2009, write_mesh
from tests.writers.gltf_writer import write_gltf
from tests.writers.nwn_writer import WNode, write_mdl

#: A 4×2 picture whose top row differs from its bottom row, so row order shows.
PICTURE = np.array([[[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [255, 255, 255, 255]],
                    [[10, 20, 30, 255], [40, 50, 60, 128], [70, 80, 90, 0], [0, 0, 0, 255]]], np.uint8)


def save_image(path, pixels=PICTURE, **params):
    Image.fromarray(pixels, "RGBA").save(path, **params)
    return path


# --- DDS built by hand (docs: DirectX "DDS" header; BC1/BC3 blocks) ------------------------------

RED_565, BLUE_565 = 0xF800, 0x001F


def dxt1_block() -> bytes:
    """One 4×4 BC1 block: colour 0 red, colour 1 blue (c0 > c1: opaque mode); the top two rows use
    index 0, the bottom two index 1."""
    indices = sum(1 << (2 * (4 * row + col)) for row in (2, 3) for col in range(4))
    return struct.pack("<HHI", RED_565, BLUE_565, indices)


def dxt5_block() -> bytes:
    """One BC3 block: alpha endpoints 255 and 0, the left two columns alpha index 0 (255), the right
    two index 1 (0); the colour half as ``dxt1_block``."""
    bits = sum(1 << (3 * (4 * row + col)) for row in range(4) for col in (2, 3))
    return struct.pack("<BB", 255, 0) + bits.to_bytes(6, "little") + dxt1_block()


def dds(fourcc: bytes, blocks: bytes, width=4, height=4) -> bytes:
    header = struct.pack("<4s7I44x2I4s20xI16x", b"DDS ", 124, 0x81007, height, width, len(blocks), 0, 0,
                         32, 0x4, fourcc, 0x1000)
    return header + blocks


def expected_dxt(alpha_columns: bool) -> np.ndarray:
    image = np.zeros((4, 4, 4), np.uint8)
    image[:2, :, :3] = (255, 0, 0)
    image[2:, :, :3] = (0, 0, 255)
    image[..., 3] = 255
    if alpha_columns:
        image[:, 2:, 3] = 0
    return image


@pytest.mark.parametrize("suffix, params", [(".png", {}), (".tga", {}), (".tga", {"orientation": 1}),
                                            (".bmp", {})])
def test_lossless_images_decode_top_row_first(tmp_path, suffix, params):
    pixels = PICTURE if suffix != ".bmp" else PICTURE.copy()
    if suffix == ".bmp":
        pixels[..., 3] = 255  # BMP keeps no alpha here
    path = save_image(tmp_path / f"picture{suffix}", pixels, **params)
    image, note = textures.read_image(path)
    np.testing.assert_array_equal(image, pixels)
    assert note == "" and not image.flags.writeable


def test_jpeg_decodes_close_to_its_colours(tmp_path):
    flat = np.zeros((16, 16, 4), np.uint8)
    flat[:8], flat[8:] = (200, 40, 40, 255), (40, 40, 200, 255)
    image, _ = textures.read_image(_jpeg(tmp_path / "p.jpg", flat))
    assert np.abs(image[2, 2].astype(int) - (200, 40, 40, 255)).max() < 12
    assert np.abs(image[13, 13].astype(int) - (40, 40, 200, 255)).max() < 12


def _jpeg(path, pixels):
    Image.fromarray(pixels[..., :3], "RGB").save(path, quality=95)
    return path


@pytest.mark.parametrize("fourcc, block, alpha", [(b"DXT1", dxt1_block(), False),
                                                   (b"DXT3", None, False), (b"DXT5", dxt5_block(), True)])
def test_dxt_dds_decodes(tmp_path, fourcc, block, alpha):
    if block is None:  # DXT3: 64 bits of explicit 4-bit alpha (all 15 → 255), then the colour block
        block = b"\xff" * 8 + dxt1_block()
    path = tmp_path / "block.dds"
    path.write_bytes(dds(fourcc, block))
    image, _ = textures.read_image(path)
    np.testing.assert_array_equal(image, expected_dxt(alpha))


def test_bioware_dds_decodes(tmp_path):
    """NWN's own DDS: width, height, channels (4: DXT5), size, average alpha, then the blocks."""
    path = tmp_path / "nwn.dds"
    path.write_bytes(struct.pack("<4If", 4, 4, 4, 16, 0.5) + dxt5_block())
    image, _ = textures.read_image(path)
    np.testing.assert_array_equal(image, expected_dxt(True))


@pytest.mark.parametrize("name, data, why", [
    ("text.png", b"this is not an image at all", "not an image"),
    ("short.png", None, "cannot be decoded"),
    ("odd.dds", dds(b"ZZZZ", b"\0" * 16), "cannot be decoded"),
])
def test_bad_images_are_warnings_and_the_model_loads(tmp_path, name, data, why):
    if data is None:  # a PNG cut short in its pixel data
        whole = tmp_path / "whole.png"
        save_image(whole, np.random.default_rng(1).integers(0, 255, (64, 64, 4), dtype=np.uint8))
        data = whole.read_bytes()[:300]
    (tmp_path / name).write_bytes(data)
    model = loading.load([c3de_model(tmp_path)], LoadOptions(textures=[(None, str(tmp_path / name))]))
    warning = [w for w in model.warnings if name in w]
    assert len(warning) == 1 and why in warning[0] and "base colour" in warning[0]
    assert all(mesh.material.image is None and mesh.material.texture == "" for mesh in model.meshes)


def test_too_wide_image_is_downscaled_with_a_warning(tmp_path):
    wide = np.zeros((2, textures.MAX_SIDE + 808, 4), np.uint8)
    wide[..., 0], wide[..., 3] = 200, 255
    path = save_image(tmp_path / "wide.png", wide)
    image, note = textures.read_image(path)
    # 9000 wide: halved (2×2 blocks averaged) to 4500 × 1, the first whole factor within 8192.
    assert image.shape == (1, (textures.MAX_SIDE + 808) // 2, 4) and "downscaled to 4500×1" in note
    assert np.all(image[..., 0] == 200)


def test_too_many_pixels_is_refused_before_decoding(tmp_path, monkeypatch):
    monkeypatch.setattr(textures, "MAX_PIXELS", 100)
    path = save_image(tmp_path / "big.png", np.zeros((20, 20, 4), np.uint8))
    with pytest.raises(textures.TextureError, match="too large"):
        textures.read_image(path)


def test_file_size_is_checked_before_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(textures, "MAX_FILE_BYTES", 10)
    with pytest.raises(textures.TextureError, match="more than 10"):
        textures.read_image(save_image(tmp_path / "p.png"))


# --- lookup ----------------------------------------------------------------------------------

def test_lookup_is_case_insensitive_and_tries_suffixes_in_order(tmp_path):
    for name in ("SKIN.PNG", "Skin.Tga", "skin.bmp"):
        save_image(tmp_path / name)
    assert textures.find_texture("skin", [tmp_path]).name == "Skin.Tga"
    assert textures.find_texture("skin.png", [tmp_path]).name == "SKIN.PNG"  # the name as given first
    assert textures.find_texture("SKIN.jpg", [tmp_path]).name == "Skin.Tga"  # then .tga, .dds, …
    assert textures.find_texture("other", [tmp_path]) is None


def test_lookup_searches_folders_in_order(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir(), second.mkdir()
    save_image(second / "skin.png")
    save_image(first / "skin.bmp")
    assert textures.find_texture("skin", [first, second]).parent == first
    assert textures.find_texture("sub\\skin.png", [tmp_path / "missing", second]) == second / "skin.png"
    (second / "sub").mkdir()
    save_image(second / "sub" / "skin.png")
    assert textures.find_texture("sub\\skin.png", [second]) == second / "sub" / "skin.png"


# --- textures the formats name -----------------------------------------------------------------

def c3de_model(folder):
    positions = [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    mesh = folder / "tri.c3d"
    mesh.write_bytes(write_mesh(positions, [0, 0, 0], [-1, -1, -1], [1, 1, 1],
                                uvs=[[0, 0], [1, 0], [0, 1]], layout="2009"))
    return mesh


def nwn_model(folder, texture="Body_Tex", render=True):
    body = WNode("body", 0x021, (0, 0, 0), (0, 0, 0, 1), vertices=[[0, 0, 0], [1, 0, 0], [0, 1, 0]],
                 faces=[[0, 1, 2]], uvs=[[0, 0], [1, 0], [0, 1]], texture=texture, render=render)
    hidden = WNode("part_g", 0x021, (0, 0, 0), (0, 0, 0, 1), vertices=[[0, 0, 1], [1, 0, 1], [0, 1, 1]],
                   faces=[[0, 1, 2]], texture=texture, render=False, keys=[(128, [0.0], [[0.25]])])
    root = WNode("c_tex", children=[body, hidden])
    path = folder / "c_tex.mdl"
    path.write_bytes(write_mdl("c_tex", root))
    return path


def test_nwn_texture0_found_beside_the_model_case_insensitively(tmp_path):
    save_image(tmp_path / "body_tex.tga")
    model = loading.load([nwn_model(tmp_path)])
    body, hidden = model.meshes
    assert body.material.texture == "Body_Tex"
    assert body.material.texture_path == str((tmp_path / "body_tex.tga").resolve())
    np.testing.assert_array_equal(body.material.image, PICTURE)
    assert body.visible and not hidden.visible
    assert hidden.material.alpha_mode == "BLEND" and hidden.material.base_color[3] == pytest.approx(0.25)
    assert body.material.alpha_mode == "OPAQUE"
    # OpenGL-style V in the file (0 = the image's bottom): flipped once to glTF's top-left origin.
    np.testing.assert_allclose(body.uvs, [[0, 1], [1, 1], [0, 0]])


def test_nwn_dds_rows_are_stored_bottom_first(tmp_path):
    (tmp_path / "body_tex.dds").write_bytes(dds(b"DXT1", dxt1_block()))
    body = loading.load([nwn_model(tmp_path)]).meshes[0]
    np.testing.assert_array_equal(body.material.image, expected_dxt(False)[::-1])


def test_missing_texture_warns_once_naming_where_it_looked(tmp_path):
    extra = tmp_path / "extra"
    extra.mkdir()
    model = loading.load([nwn_model(tmp_path)], LoadOptions(texture_dirs=[str(extra)]))
    warnings = [w for w in model.warnings if "Body_Tex" in w]
    assert len(warnings) == 1
    assert str(tmp_path) in warnings[0] and str(extra) in warnings[0]
    assert "body_tex.tga" in warnings[0].lower()
    assert "meshes body, part_g" in warnings[0]
    assert all(mesh.material.image is None and mesh.material.texture_path is None for mesh in model.meshes)


def test_texture_dirs_are_searched_after_the_model_folder(tmp_path):
    extra = tmp_path / "textures"
    extra.mkdir()
    save_image(extra / "body_tex.png")
    model = loading.load([nwn_model(tmp_path)], LoadOptions(texture_dirs=[str(extra)]))
    assert model.meshes[0].material.texture_path == str((extra / "body_tex.png").resolve())
    save_image(tmp_path / "BODY_TEX.bmp", np.full((1, 1, 4), 255, np.uint8))
    model = loading.load([nwn_model(tmp_path)], LoadOptions(texture_dirs=[str(extra)]))
    assert model.meshes[0].material.texture_path == str((tmp_path / "BODY_TEX.bmp").resolve())


def test_lgw_material_texture_is_found(tmp_path):
    vertices = np.array([[0, 0, 0, 0, 0, 0, 0, 1], [1, 0, 0, 1, 0, 0, 0, 1], [0, 1, 0, 0, 1, 0, 0, 1.0]])
    path = write.lgw_model(tmp_path / "m.lgw", [write.lgw_mesh("plate", [], vertices, [[0, 1, 2]])])
    save_image(tmp_path / "SKIN.TGA")
    mesh = loading.load([path]).meshes[0]
    assert mesh.material.texture == "skin.tga" and mesh.material.name == "skin"
    np.testing.assert_array_equal(mesh.material.image, PICTURE)


def test_assigned_texture_for_every_mesh_or_one_mesh(tmp_path):
    image = save_image(tmp_path / "paint.png")
    other = save_image(tmp_path / "other.bmp", np.full((2, 2, 4), 255, np.uint8))
    mesh_file = c3de_model(tmp_path)
    bones = tmp_path / "bones.c3d"
    bones.write_bytes(write_bones_2009(np.eye(4)[None, None]))
    model = loading.load([mesh_file, bones], LoadOptions(textures=[(None, str(image))]))
    material = model.meshes[0].material
    assert material.texture == str(image) and material.texture_path == str(image.resolve())
    assert material.base_color == (1.0, 1.0, 1.0, 1.0)
    np.testing.assert_array_equal(material.image, PICTURE)
    model = loading.load([nwn_model(tmp_path, texture="")],
                         LoadOptions(textures=[("PART_G", str(other)), ("nobody", str(image))]))
    assert model.meshes[0].material.image is None
    assert model.meshes[1].material.texture == str(other)
    assert any("no mesh named 'nobody'" in w and "body, part_g" in w for w in model.warnings)


# --- glTF -------------------------------------------------------------------------------------

def test_gltf_images_from_buffer_view_data_uri_and_file(tmp_path):
    png = tmp_path / "pic.png"
    save_image(png)
    png_bytes = png.read_bytes()
    uri = "data:image/png;base64," + base64.b64encode(png_bytes).decode()
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    uvs = np.array([[0, 0], [2, 0], [0, 1]], np.float32)
    arrays = [(positions, "VEC3", 5126), (uvs, "VEC2", 5126),
              (np.frombuffer(png_bytes, np.uint8), "SCALAR", 5121)]
    primitive = {"attributes": {"POSITION": 0, "TEXCOORD_0": 1}}
    transform = {"offset": [0.5, 0.0], "rotation": np.pi / 2, "scale": [2.0, 3.0]}
    document = {
        "scene": 0, "scenes": [{"nodes": [0, 1, 2]}],
        "nodes": [{"mesh": 0}, {"mesh": 1}, {"mesh": 2}],
        "meshes": [{"primitives": [{**primitive, "material": m}]} for m in range(3)],
        "materials": [
            {"name": "a", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0},
                                                   "baseColorFactor": [1, .5, .25, .8]},
             "alphaMode": "BLEND", "doubleSided": True},
            {"name": "b", "pbrMetallicRoughness": {"baseColorTexture": {
                "index": 1, "extensions": {"KHR_texture_transform": transform}}},
             "alphaMode": "MASK", "alphaCutoff": 0.3},
            {"name": "c", "pbrMetallicRoughness": {"baseColorTexture": {"index": 2}}}],
        "textures": [{"source": 0, "sampler": 0}, {"source": 1}, {"source": 2, "sampler": 1}],
        "samplers": [{"wrapS": 33071, "wrapT": 33648}, {}],
        "images": [{"bufferView": 2, "mimeType": "image/png"}, {"uri": uri}, {"uri": "PIC.png"}],
        "extensionsUsed": ["KHR_texture_transform"],
    }
    model = loading.load([write_gltf(tmp_path, document, arrays)])
    first, second, third = (mesh.material for mesh in model.meshes)
    for material in (first, second, third):
        np.testing.assert_array_equal(material.image, PICTURE)
    assert first.texture_path is None and third.texture_path == str(png.resolve())
    assert first.wrap == ("clamp", "mirror") and third.wrap == ("repeat", "repeat")
    assert (first.alpha_mode, first.double_sided, first.base_color) == ("BLEND", True, (1, .5, .25, .8))
    assert (second.alpha_mode, second.alpha_cutoff) == ("MASK", pytest.approx(0.3))
    # KHR_texture_transform: scale, then rotate (u' = cos·u + sin·v, v' = −sin·u + cos·v), then offset.
    u, v = 0.25, 0.5
    su, sv = 2.0 * u, 3.0 * v
    expected = (np.cos(np.pi / 2) * su + np.sin(np.pi / 2) * sv + 0.5,
                -np.sin(np.pi / 2) * su + np.cos(np.pi / 2) * sv)
    np.testing.assert_allclose((second.uv_transform @ [u, v, 1.0])[:2], expected, atol=1e-12)
    assert first.uv_transform is None


def test_gltf_bad_embedded_image_is_a_warning(tmp_path):
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    document = {"scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
                "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "material": 0}]}],
                "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
                "textures": [{"source": 0}], "images": [{"bufferView": 1, "mimeType": "image/png"}]}
    broken = np.frombuffer(b"\x89PNG\r\n\x1a\nbroken", np.uint8)
    arrays = [(positions, "VEC3", 5126), (broken, "SCALAR", 5121)]
    model = loading.load([write_gltf(tmp_path, document, arrays)])
    assert model.meshes[0].material.image is None
    assert any("images[0]" in w and "base colour" in w for w in model.warnings)


def test_a_fifo_given_as_an_image_is_refused_without_opening_it(tmp_path):
    """``--texture`` names any path: a FIFO would block the read for ever."""
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    with pytest.raises(textures.TextureError, match="FIFO"):
        textures.read_image(fifo)
