"""End to end, per format: a textured quad written by the tests' writers, its image written by the
test, rendered by ``boneyard render --view front``. The front view looks at the side the format says
the model faces, and the format's UV convention puts the image upright: the picture's top-left
quadrant must appear at the top-left of the render. Expected corners come from each format's
documented conventions (docs/formats), not from the code under test."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from app.cli.main import main
from tests.export.test_gltf_roundtrip import validate, validator_available
from tests.writers import text_formats as write
from tests.writers.c3de_writer import write_bones_2009, write_mesh
from tests.writers.gltf_writer import write_gltf
from tests.writers.nwn_writer import WNode, write_mdl

#: The picture's quadrants: top-left red, top-right green, bottom-left blue, bottom-right yellow.
QUADRANTS = {"top_left": (255, 0, 0), "top_right": (0, 255, 0), "bottom_left": (0, 0, 255),
             "bottom_right": (255, 255, 0)}
SIZE = 96


def picture(path, flip_rows_on_disk: bool = False):
    image = np.zeros((16, 16, 4), np.uint8)
    image[..., 3] = 255
    image[:8, :8, :3], image[:8, 8:, :3] = QUADRANTS["top_left"], QUADRANTS["top_right"]
    image[8:, :8, :3], image[8:, 8:, :3] = QUADRANTS["bottom_left"], QUADRANTS["bottom_right"]
    Image.fromarray(image[::-1] if flip_rows_on_disk else image, "RGBA").save(path)
    return path


def two_triangles():
    """Corners 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right as seen from the front:
    counter-clockwise from there."""
    return np.array([[0, 2, 1], [1, 2, 3]])


def rendered_quadrants(tmp_path, *args) -> dict[str, np.ndarray]:
    out = tmp_path / "render.png"
    assert main(["render", *args, "--view", "front", "--transparent", "--size", f"{SIZE}x{SIZE}",
                 "-o", str(out)]) == 0
    pixels = np.asarray(Image.open(out).convert("RGBA")).astype(int)
    low, high = int(SIZE * 0.38), int(SIZE * 0.62)
    return {"top_left": pixels[low, low, :3], "top_right": pixels[low, high, :3],
            "bottom_left": pixels[high, low, :3], "bottom_right": pixels[high, high, :3]}


def assert_upright(found: dict[str, np.ndarray]):
    for corner, colour in QUADRANTS.items():
        lit = np.array(colour) > 0
        seen = found[corner]
        assert seen[lit].min() > 2 * max(seen[~lit].max(initial=0), 10), (corner, seen.tolist(), colour)


def test_nwn_quad_seen_from_its_front_with_opengl_uvs(tmp_path):
    # NWN faces +Y, Z up: from the front the screen's right is −X. UVs are OpenGL-style (v = 0 at
    # the picture's bottom), so the screen's top-left corner (x = +1, z = +1) has uv (0, 1).
    vertices = [[1, 0, 1], [-1, 0, 1], [1, 0, -1], [-1, 0, -1]]
    uvs = [[0, 1], [1, 1], [0, 0], [1, 0]]
    quad = WNode("quad", 0x021, (0, 0, 0), (0, 0, 0, 1), vertices=vertices, faces=two_triangles(), uvs=uvs,
                 texture="Quad_Tex")
    (tmp_path / "c_quad.mdl").write_bytes(write_mdl("c_quad", WNode("c_quad", children=[quad])))
    picture(tmp_path / "quad_tex.tga")
    assert_upright(rendered_quadrants(tmp_path, str(tmp_path / "c_quad.mdl")))


def test_nwn_dds_is_stored_bottom_row_first(tmp_path):
    vertices = [[1, 0, 1], [-1, 0, 1], [1, 0, -1], [-1, 0, -1]]
    quad = WNode("quad", 0x021, (0, 0, 0), (0, 0, 0, 1), vertices=vertices, faces=two_triangles(),
                 uvs=[[0, 1], [1, 1], [0, 0], [1, 0]], texture="quad_tex")
    (tmp_path / "c_quad.mdl").write_bytes(write_mdl("c_quad", WNode("c_quad", children=[quad])))
    # An uncompressed DDS (Pillow writes one), rows stored as NWN stores them: bottom row first.
    picture(tmp_path / "quad_tex.dds", flip_rows_on_disk=True)
    assert_upright(rendered_quadrants(tmp_path, str(tmp_path / "c_quad.mdl")))


def test_gltf_quad_seen_from_plus_z(tmp_path):
    # glTF: Y up, the model faces +Z, so the screen's right is +X; uv (0, 0) is the picture's top-left.
    positions = np.array([[-1, 1, 0], [1, 1, 0], [-1, -1, 0], [1, -1, 0]], np.float32)
    uvs = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], np.float32)
    indices = two_triangles().astype(np.uint16)
    picture(tmp_path / "quad.png")
    document = {"scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
                "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2,
                                            "material": 0}]}],
                "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
                "textures": [{"source": 0}], "images": [{"uri": "quad.png"}]}
    path = write_gltf(tmp_path, document, [(positions, "VEC3", 5126), (uvs, "VEC2", 5126),
                                           (indices, "SCALAR", 5123)])
    assert_upright(rendered_quadrants(tmp_path, str(path)))


def _gltf_quad_textured_through(tmp_path, extension: str, image_name: str, mime: str):
    positions = np.array([[-1, 1, 0], [1, 1, 0], [-1, -1, 0], [1, -1, 0]], np.float32)
    uvs = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], np.float32)
    document = {"scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
                "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2,
                                            "material": 0}]}],
                "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0},
                                                        "baseColorFactor": [0.5, 0.5, 0.5, 1]}}],
                "textures": [{"extensions": {extension: {"source": 0}}}],
                "images": [{"uri": image_name, "mimeType": mime}],
                "extensionsUsed": [extension], "extensionsRequired": [extension]}
    return write_gltf(tmp_path, document, [(positions, "VEC3", 5126), (uvs, "VEC2", 5126),
                                           (two_triangles().astype(np.uint16), "SCALAR", 5123)])


@pytest.mark.parametrize("extension, suffix, mime", [("EXT_texture_webp", "webp", "image/webp"),
                                                     ("EXT_texture_avif", "avif", "image/avif")])
def test_gltf_texture_named_only_through_an_image_extension(tmp_path, extension, suffix, mime):
    """A texture whose image only an extension names (no fallback ``source``) is drawn with it."""
    image = np.asarray(Image.open(picture(tmp_path / "quad.png")))
    Image.fromarray(image).save(tmp_path / f"quad.{suffix}", lossless=True, quality=100)
    path = _gltf_quad_textured_through(tmp_path, extension, f"quad.{suffix}", mime)
    assert_upright(rendered_quadrants(tmp_path, str(path)))


def test_gltf_texture_whose_image_is_missing_draws_the_base_colour_and_render_says_why(tmp_path, capsys):
    path = _gltf_quad_textured_through(tmp_path, "EXT_texture_webp", "quad.webp", "image/webp")
    found = rendered_quadrants(tmp_path, str(path))
    rendered = capsys.readouterr()
    assert rendered.err.count("warning: texture 'quad.webp'") == 1 and not rendered.out  # render says it
    assert main(["info", str(path)]) == 0
    listed = capsys.readouterr()
    assert listed.out.count("warning: texture 'quad.webp'") == 1 and not listed.err  # info lists it once
    grey = np.array([found[corner] for corner in QUADRANTS])
    assert np.ptp(grey) <= 20 and 40 < grey.mean() < 250, grey.tolist()  # one grey, lit: no picture


def test_gltf_requiring_basis_textures_is_refused_and_one_with_a_fallback_image_is_drawn(tmp_path, capsys):
    """Basis Universal (KTX2) images are not decoded: a file that requires them exits 3 naming the
    extension; one that only uses them draws the fallback ``source`` every client reads."""
    picture(tmp_path / "quad.png")
    path = _gltf_quad_textured_through(tmp_path, "KHR_texture_basisu", "quad.ktx2", "image/ktx2")
    assert main(["info", str(path)]) == 3
    assert "'KHR_texture_basisu'" in capsys.readouterr().err
    document = json.loads(path.read_text())
    document["extensionsRequired"] = []
    document["images"].append({"uri": "quad.png"})
    document["textures"][0]["source"] = 1
    path.write_text(json.dumps(document))
    assert_upright(rendered_quadrants(tmp_path, str(path)))


def _gltf_quad_with_material(tmp_path, material: dict, required: list[str]):
    positions = np.array([[-1, 1, 0], [1, 1, 0], [-1, -1, 0], [1, -1, 0]], np.float32)
    uvs = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], np.float32)
    document = {"scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
                "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2,
                                            "material": 0}]}],
                "materials": [material], "textures": [{"source": 0}], "images": [{"uri": "quad.png"}],
                "extensionsUsed": required, "extensionsRequired": required}
    return write_gltf(tmp_path, document, [(positions, "VEC3", 5126), (uvs, "VEC2", 5126),
                                           (two_triangles().astype(np.uint16), "SCALAR", 5123)])


def test_gltf_specular_glossiness_diffuse_texture_is_the_base_colour_texture(tmp_path):
    """KHR_materials_pbrSpecularGlossiness (older Sketchfab and three.js exports): a client that reads
    it draws its diffuse texture, not pbrMetallicRoughness's (here a flat grey the picture must not show)."""
    picture(tmp_path / "quad.png")
    material = {"pbrMetallicRoughness": {"baseColorFactor": [0.5, 0.5, 0.5, 1]},
                "extensions": {"KHR_materials_pbrSpecularGlossiness": {"diffuseTexture": {"index": 0},
                                                                       "glossinessFactor": 0.2}}}
    path = _gltf_quad_with_material(tmp_path, material, ["KHR_materials_pbrSpecularGlossiness"])
    assert_upright(rendered_quadrants(tmp_path, str(path)))


def test_gltf_specular_glossiness_diffuse_factor_is_the_base_colour(tmp_path):
    from app import loading

    picture(tmp_path / "quad.png")
    material = {"extensions": {"KHR_materials_pbrSpecularGlossiness": {"diffuseFactor": [0.2, 0.4, 0.6, 1]}}}
    model = loading.load([_gltf_quad_with_material(tmp_path, material, [])])
    assert model.meshes[0].material.base_color == pytest.approx((0.2, 0.4, 0.6, 1.0))
    assert not model.meshes[0].material.texture


def test_gltf_requiring_a_material_extension_the_view_cannot_draw_loads_with_a_warning(tmp_path, capsys):
    picture(tmp_path / "quad.png")
    material = {"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}},
                "extensions": {"KHR_materials_transmission": {"transmissionFactor": 1.0}}}
    path = _gltf_quad_with_material(tmp_path, material, ["KHR_materials_transmission"])
    assert_upright(rendered_quadrants(tmp_path, str(path)))
    assert main(["info", str(path)]) == 0
    assert ("warning: the file requires KHR_materials_transmission; its materials are drawn with their base "
            "colour and texture only") in capsys.readouterr().out


def test_c3de_quad_with_an_assigned_image(tmp_path):
    # C3DE with --up y faces +Z: the screen's right is +X. The writer stores v flipped, as the
    # Direct3D exporter does (docs/formats/c3de.md).
    corners = np.array([[-1, 1, 0], [1, 1, 0], [-1, -1, 0], [1, -1, 0]], float)
    corner_uvs = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], float)
    order = two_triangles().ravel()
    mesh = tmp_path / "quad.c3d"
    mesh.write_bytes(write_mesh(corners[order], np.zeros(6, int), np.full(6, -1), np.ones(6),
                                uvs=corner_uvs[order], layout="2009"))
    bones = tmp_path / "quadBones.c3d"
    bones.write_bytes(write_bones_2009(np.eye(4)[None, None]))
    image = picture(tmp_path / "paint.bmp")
    assert_upright(rendered_quadrants(tmp_path, str(mesh), str(bones), "--up", "y", "--texture", str(image)))


def test_lgw_quad_seen_from_minus_y(tmp_path):
    # LGW: Z up, facing −Y (a 3ds Max pipeline): the screen's right is +X; UVs as stored, top-left origin.
    vertices = np.array([[-1, 0, 1, 0, 0, 0, -1, 0], [1, 0, 1, 1, 0, 0, -1, 0],
                         [-1, 0, -1, 0, 1, 0, -1, 0], [1, 0, -1, 1, 1, 0, -1, 0]], float)
    path = write.lgw_model(tmp_path / "quad.lgw", [write.lgw_mesh("quad", [], vertices, two_triangles())])
    picture(tmp_path / "skin.tga")
    assert_upright(rendered_quadrants(tmp_path, str(path)))


@pytest.mark.parametrize("flag, drawn", [([], False), (["--show-hidden"], True)])
def test_hidden_nwn_mesh_is_drawn_only_when_asked(tmp_path, flag, drawn):
    vertices = [[1, 0, 1], [-1, 0, 1], [1, 0, -1], [-1, 0, -1]]
    quad = WNode("quad", 0x021, (0, 0, 0), (0, 0, 0, 1), vertices=vertices, faces=two_triangles(),
                 uvs=[[0, 1], [1, 1], [0, 0], [1, 0]], texture="quad_tex", render=False)
    small = WNode("dot", 0x021, (0, 0, 0), (0, 0, 0, 1), vertices=[[0.05, 0.2, -1], [-0.05, 0.2, -1],
                                                                     [0, 0.2, -0.95]], faces=[[0, 1, 2]])
    (tmp_path / "c_quad.mdl").write_bytes(write_mdl("c_quad", WNode("c_quad", children=[quad, small])))
    picture(tmp_path / "quad_tex.tga")
    out = tmp_path / "render.png"
    assert main(["render", str(tmp_path / "c_quad.mdl"), *flag, "--view", "front", "--transparent",
                 "--size", f"{SIZE}x{SIZE}", "-o", str(out)]) == 0
    alpha = np.asarray(Image.open(out).convert("RGBA"))[..., 3]
    assert (alpha[SIZE // 3, SIZE // 3] > 0) == drawn


def test_gltf_unlit_material_is_read_and_written_back(tmp_path):
    from app import loading
    from app.export.gltf import export_gltf

    picture(tmp_path / "quad.png")
    material = {"pbrMetallicRoughness": {"baseColorFactor": [0.2, 0.4, 0.6, 1]},
                "extensions": {"KHR_materials_unlit": {}}}
    model = loading.load([_gltf_quad_with_material(tmp_path, material, ["KHR_materials_unlit"])])
    assert model.meshes[0].material.unlit and not model.warnings
    export_gltf(model, tmp_path / "out.gltf")
    written = json.loads((tmp_path / "out.gltf").read_text())
    assert written["materials"][0]["extensions"] == {"KHR_materials_unlit": {}}
    assert "KHR_materials_unlit" in written["extensionsUsed"]
    assert loading.load([tmp_path / "out.gltf"]).meshes[0].material.unlit
    if validator_available():
        issues = validate(tmp_path / "out.gltf")[str(tmp_path / "out.gltf")]
        assert issues["numErrors"] == 0 and issues["numWarnings"] == 0, issues
