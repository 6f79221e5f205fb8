"""What a glTF file's materials mean: a Material per primitive, and its base-colour texture.

UVs are kept as they are: glTF's origin is the image's top-left corner, the project's convention. A
material gives the base colour factor, alpha mode and cutoff, double-sidedness, and its base-colour
texture: the sampler's wrap modes, a KHR_texture_transform matrix, the TEXCOORD set it names, and the
image — decoded here when embedded (GLB bufferView or data URI), else its URI, which the texture
lookup finds beside the file (app/formats/textures.py). Without a texture, ``extras.texture`` names
one (Boneyard's exporter keeps there the names glTF cannot reference as images). Emission is
emissiveFactor times KHR_materials_emissive_strength, with the emissiveTexture's image (decoded here,
an external one from beside the file).
"""

from __future__ import annotations

from types import SimpleNamespace
from urllib.parse import unquote

import numpy as np

from app.formats.gltf.container import IMAGE_EXTENSIONS, SPECULAR_GLOSSINESS, decode_data_uri
from app.formats.gltf.reading import Reading
from app.formats.registry import ReadError
from app.formats.textures import TextureError, decode_embedded, find_texture
from app.formats.textures import read_image as texture_image
from app.model import Material

EMISSIVE_STRENGTH = "KHR_materials_emissive_strength"
#: Sampler wrap modes (GL enums) by the names Material uses.
WRAP_MODES = {10497: "repeat", 33071: "clamp", 33648: "mirror"}


def read_material(reading: Reading, index, where: str) -> tuple[Material, int]:
    """The primitive's material and the TEXCOORD set its base-colour texture uses (0 without one)."""
    if index is None:
        return Material(), 0
    where = f"materials[{index}]"
    material = reading.item("materials", index, f"{where}.material")
    pbr, color_at, texture_at = base_color_source(reading, material, where)
    color = reading.floats(pbr.baseColorFactor if pbr else None, 4, (1.0, 1.0, 1.0, 1.0), color_at)
    mode = material.alphaMode or "OPAQUE"
    if mode not in ("OPAQUE", "MASK", "BLEND"):
        reading.warnings.append(f"{where}.alphaMode {mode!r} is not OPAQUE, MASK or BLEND; drawn opaque")
        mode = "OPAQUE"
    cutoff = material.alphaCutoff if isinstance(material.alphaCutoff, (int, float)) else 0.5
    extensions = material.extensions if isinstance(material.extensions, dict) else {}
    result = Material(name=material.name or f"material{index}", base_color=tuple(color.tolist()),
                      alpha_mode=mode, alpha_cutoff=float(cutoff),
                      double_sided=bool(material.doubleSided), unlit="KHR_materials_unlit" in extensions)
    read_emission(reading, material, result, where)
    info = pbr.baseColorTexture if pbr is not None else None
    if info is None:
        extras = material.extras if isinstance(material.extras, dict) else {}
        if isinstance(extras.get("texture"), str):  # Boneyard's exports keep names glTF cannot reference
            result.texture = extras["texture"]
        return result, 0
    return base_color_texture(reading, result, info, texture_at)


def read_emission(reading: Reading, material, result: Material, where: str) -> None:
    """``result``'s emission: emissiveFactor times KHR_materials_emissive_strength, and the
    emissiveTexture's image (sampled at the base colour's UVs)."""
    factor = reading.floats(material.emissiveFactor, 3, (0.0, 0.0, 0.0), f"{where}.emissiveFactor")
    extension = (material.extensions or {}).get(EMISSIVE_STRENGTH) \
        if isinstance(material.extensions, dict) else None
    strength = extension.get("emissiveStrength", 1.0) if isinstance(extension, dict) else 1.0
    strength = float(reading.floats([strength], 1, (1.0,),
                                    f"{where}.extensions.{EMISSIVE_STRENGTH}.emissiveStrength")[0])
    if np.any(factor < 0) or strength < 0:
        raise reading.fail(f"{where}: emissiveFactor {factor.tolist()} and emissiveStrength {strength} "
                           "must not be negative")
    result.emissive = tuple((factor * strength).tolist())
    info = material.emissiveTexture
    if info is None or not any(result.emissive):
        return
    texture = reading.item("textures", info.index, f"{where}.emissiveTexture.index")
    source, where_source = texture.source, f"textures[{info.index}].source"
    if source is None:
        source, where_source = extension_source(reading, texture, info.index)
    if source is None:
        return
    image = reading.item("images", source, where_source)
    if source not in reading.images:
        reading.images[source] = read_image(reading, image, source)
    name, pixels = reading.images[source]
    result.emissive_texture = name
    result.emissive_image = pixels if pixels is not None else _image_beside(reading, name)


def _image_beside(reading: Reading, name: str) -> np.ndarray | None:
    """An external image a material names, decoded from beside the file (None with a warning)."""
    path = find_texture(name, [reading.path.resolve().parent])
    if path is None:
        reading.warnings.append(f"emissive texture {name!r} not found beside {reading.path.name}; "
                                "the emission is drawn without it")
        return None
    try:
        return texture_image(path)[0]
    except TextureError as error:
        reading.warnings.append(f"emissive texture {name!r} ({path}): {error}; drawn without it")
        return None


def base_color_source(reading: Reading, material, where: str):
    """(what holds baseColorFactor and baseColorTexture, and the JSON paths of the two): the
    material's pbrMetallicRoughness, or its KHR_materials_pbrSpecularGlossiness diffuse colour and
    texture, which a client that reads that extension draws instead."""
    extension = (material.extensions or {}).get(SPECULAR_GLOSSINESS) \
        if isinstance(material.extensions, dict) else None
    if not isinstance(extension, dict):
        at = f"{where}.pbrMetallicRoughness"
        return material.pbrMetallicRoughness, f"{at}.baseColorFactor", f"{at}.baseColorTexture"
    at = f"{where}.extensions.{SPECULAR_GLOSSINESS}"
    texture = extension.get("diffuseTexture")
    if isinstance(texture, dict) and texture.get("index") is not None:
        texture = SimpleNamespace(index=texture["index"], texCoord=texture.get("texCoord"),
                                  extensions=texture.get("extensions"))
    else:
        texture = None
    diffuse = SimpleNamespace(baseColorFactor=extension.get("diffuseFactor"), baseColorTexture=texture)
    return diffuse, f"{at}.diffuseFactor", f"{at}.diffuseTexture"


def base_color_texture(reading: Reading, material: Material, info, where: str) -> tuple[Material, int]:
    """``material`` with the texture ``info`` names: its image (decoded here when the file embeds
    it, else its URI for the texture lookup), wrap modes and KHR_texture_transform."""
    texture = reading.item("textures", info.index, f"{where}.index")
    texcoord = info.texCoord if isinstance(info.texCoord, int) and info.texCoord >= 0 else 0
    transform = (info.extensions or {}).get("KHR_texture_transform")
    if isinstance(transform, dict):
        material.uv_transform = texture_transform(reading, transform,
                                                  f"{where}.extensions.KHR_texture_transform")
        texcoord = transform.get("texCoord", texcoord) if isinstance(transform.get("texCoord"), int) \
            else texcoord
    if texture.sampler is not None:
        sampler = reading.item("samplers", texture.sampler, f"textures[{info.index}].sampler")
        material.wrap = (WRAP_MODES.get(sampler.wrapS, "repeat"), WRAP_MODES.get(sampler.wrapT, "repeat"))
    source, where_source = texture.source, f"textures[{info.index}].source"
    if source is None:
        source, where_source = extension_source(reading, texture, info.index)
    if source is None:
        reading.warnings.append(f"textures[{info.index}] has no source image (a texture extension this "
                                "reader does not decode); the mesh is drawn in its base colour")
        return material, texcoord
    image = reading.item("images", source, where_source)
    if source not in reading.images:
        reading.images[source] = read_image(reading, image, source)
    name, image_data = reading.images[source]
    material.texture, material.image = name, image_data
    return material, texcoord


def extension_source(reading: Reading, texture, index: int) -> tuple[int | None, str]:
    """(image index, its JSON path) a texture names only through an image extension (WebP, AVIF,
    DDS), the first such; (None, "") when it names none."""
    extensions = texture.extensions if isinstance(texture.extensions, dict) else {}
    for name in IMAGE_EXTENSIONS:
        entry = extensions.get(name)
        if isinstance(entry, dict) and entry.get("source") is not None:
            return entry["source"], f"textures[{index}].extensions.{name}.source"
    return None, ""


def read_image(reading: Reading, image, index: int) -> tuple[str, np.ndarray | None]:
    """(texture name, decoded pixels or None): an external URI is left to the texture lookup."""
    where = f"images[{index}]"
    uri = image.uri if isinstance(image.uri, str) else None
    if uri is not None and not uri.startswith("data:"):
        return unquote(uri), None
    name = image.name or f"image{index}"
    if uri is not None:
        try:
            data = decode_data_uri(reading.path, uri, f"{where}")
        except ReadError as error:
            reading.warnings.append(f"{error.message}; the mesh is drawn in its base colour")
            return name, None
    elif image.bufferView is not None:
        data = reading.view_bytes(image.bufferView, f"{where}.bufferView")
    else:
        reading.warnings.append(f"{where} has neither a uri nor a bufferView")
        return name, None
    return name, decode_embedded(data, where, reading.warnings)


def texture_transform(reading: Reading, transform: dict, where: str) -> np.ndarray:
    """KHR_texture_transform's (3, 3) matrix: translation @ rotation @ scale (its spec's order)."""
    ox, oy = reading.floats(transform.get("offset"), 2, (0.0, 0.0), f"{where}.offset")
    sx, sy = reading.floats(transform.get("scale"), 2, (1.0, 1.0), f"{where}.scale")
    angle = float(reading.floats([transform.get("rotation", 0.0)], 1, (0.0,), f"{where}.rotation")[0])
    cos, sin = np.cos(angle), np.sin(angle)
    translation = np.array([[1.0, 0.0, ox], [0.0, 1.0, oy], [0.0, 0.0, 1.0]])
    rotation = np.array([[cos, sin, 0.0], [-sin, cos, 0.0], [0.0, 0.0, 1.0]])
    matrix = translation @ rotation @ np.diag([sx, sy, 1.0])
    matrix.flags.writeable = False
    return matrix
