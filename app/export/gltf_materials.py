"""Materials, textures, samplers and images for the glTF writer.

Every image a material uses is embedded in the buffer (a bufferView with its mimeType): a PNG or JPEG
file as its bytes are, anything else (TGA, DDS, BMP, an image the source embedded) encoded as PNG
from the decoded pixels. Images, samplers and textures are shared between materials that use the same
ones. A texture whose image was not found keeps its name in the material's ``extras.texture``, and is
referenced by URI only when a PNG or JPEG file sits at that relative path beside the output.
"""

from __future__ import annotations

import io
import math
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pygltflib as gl
from PIL import Image

from app.model import Material, Mesh

#: Image files glTF 2.0 core accepts, by their first bytes.
MIME_TYPES = {b"\x89PNG\r\n\x1a\n": "image/png", b"\xff\xd8\xff": "image/jpeg"}
#: Image files glTF 2.0 core accepts, by suffix (for images referenced by URI).
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
#: Material wrap modes as glTF sampler enums.
WRAP_ENUMS = {"repeat": 10497, "clamp": 33071, "mirror": 33648}


def texture_transform(matrix: np.ndarray) -> dict:
    """KHR_texture_transform's offset, rotation and scale of a (3, 3) ``translation @ rotation @
    scale`` matrix (the reader's form)."""
    scale_u = math.hypot(matrix[0, 0], matrix[1, 0])
    scale_v = math.hypot(matrix[0, 1], matrix[1, 1])
    rotation = math.atan2(-matrix[1, 0], matrix[0, 0])
    return {"offset": [float(matrix[0, 2]), float(matrix[1, 2])], "rotation": rotation,
            "scale": [scale_u, scale_v]}


class MaterialWriter:
    """Adds one glTF material per mesh to ``gltf``; image bytes go to ``blob`` (its ``add_view``)."""

    def __init__(self, gltf: gl.GLTF2, blob, folder: Path, warnings: list[str]):
        self.gltf, self.blob, self.folder, self.warnings = gltf, blob, folder, warnings
        self.images: dict[int, int] = {}
        self.samplers: dict[tuple[str, str], int] = {}
        self.textures: dict[tuple[int, int], int] = {}

    def add(self, mesh: Mesh) -> int:
        source = mesh.material
        pbr = gl.PbrMetallicRoughness(baseColorFactor=[float(c) for c in source.base_color],
                                      metallicFactor=0.0, roughnessFactor=1.0)
        material = gl.Material(name=source.name or mesh.name, pbrMetallicRoughness=pbr,
                               alphaMode=source.alpha_mode, doubleSided=source.double_sided)
        if source.alpha_mode == "MASK":
            material.alphaCutoff = float(source.alpha_cutoff)
        if source.unlit:
            material.extensions = {"KHR_materials_unlit": {}}
            self.uses("KHR_materials_unlit")
        if source.texture:
            material.extras = {"texture": source.texture}
        texture = self.texture(source) if mesh.uvs is not None else None
        if texture is not None:
            pbr.baseColorTexture = gl.TextureInfo(index=texture)
            if source.uv_transform is not None:
                transform = texture_transform(source.uv_transform)
                pbr.baseColorTexture.extensions = {"KHR_texture_transform": transform}
                self.uses("KHR_texture_transform")
        if any(source.emissive):
            self.add_emission(material, source, mesh.uvs is not None)
        self.gltf.materials.append(material)
        return len(self.gltf.materials) - 1

    def add_emission(self, material: gl.Material, source: Material, has_uvs: bool) -> None:
        """emissiveFactor (scaled into 0..1, the rest as KHR_materials_emissive_strength) and the
        emissive image, embedded as PNG."""
        strength = max(source.emissive)
        if strength > 1.0:
            material.emissiveFactor = [c / strength for c in source.emissive]
            material.extensions = {**(material.extensions or {}),
                                   "KHR_materials_emissive_strength": {"emissiveStrength": strength}}
            self.uses("KHR_materials_emissive_strength")
        else:
            material.emissiveFactor = list(source.emissive)
        if source.emissive_image is None or not has_uvs:
            return
        key = id(source.emissive_image)
        if key not in self.images:
            name = Path(source.emissive_texture.replace("\\", "/")).name or None
            self.gltf.images.append(gl.Image(bufferView=self.blob.add_view(_png(source.emissive_image)),
                                             mimeType="image/png", name=name))
            self.images[key] = len(self.gltf.images) - 1
        sampler = self.sampler(source.wrap)
        if (self.images[key], sampler) not in self.textures:
            self.gltf.textures.append(gl.Texture(source=self.images[key], sampler=sampler))
            self.textures[(self.images[key], sampler)] = len(self.gltf.textures) - 1
        material.emissiveTexture = gl.TextureInfo(index=self.textures[(self.images[key], sampler)])
        if source.uv_transform is not None:  # the view samples the emission where the base colour is
            transform = texture_transform(source.uv_transform)
            material.emissiveTexture.extensions = {"KHR_texture_transform": transform}
            self.uses("KHR_texture_transform")

    def texture(self, source: Material) -> int | None:
        """The texture index for the material's image (embedded, or referenced beside the output)."""
        if source.image is not None:
            image = self.embedded_image(source)
        else:
            image = self.referenced_image(source.texture) if source.texture else None
        if image is None:
            return None
        sampler = self.sampler(source.wrap)
        key = (image, sampler)
        if key not in self.textures:
            self.gltf.textures.append(gl.Texture(source=image, sampler=sampler))
            self.textures[key] = len(self.gltf.textures) - 1
        return self.textures[key]

    def embedded_image(self, source: Material) -> int:
        key = id(source.image)
        if key not in self.images:
            data, mime = _file_bytes(source.texture_path)
            if data is None:
                data, mime = _png(source.image), "image/png"
            view = self.blob.add_view(data)
            name = Path(source.texture.replace("\\", "/")).name or None
            self.gltf.images.append(gl.Image(bufferView=view, mimeType=mime, name=name))
            self.images[key] = len(self.gltf.images) - 1
        return self.images[key]

    def referenced_image(self, texture: str) -> int | None:
        """A PNG or JPEG the texture names by a relative path that exists beside the output (a
        missing file would be a validator IO_ERROR), else None with a warning for other formats."""
        uri = texture.replace("\\", "/")
        if Path(uri).suffix.lower() not in IMAGE_SUFFIXES:
            message = (f"texture {texture!r} was not found and is not a PNG or JPEG name glTF could "
                       "reference; its name is kept in the material's extras")
            if message not in self.warnings:
                self.warnings.append(message)
            return None
        if Path(uri).is_absolute() or ":" in uri or not (self.folder / uri).is_file():
            return None
        self.gltf.images.append(gl.Image(uri=quote(uri), name=Path(uri).name))
        return len(self.gltf.images) - 1

    def sampler(self, wrap: tuple[str, str]) -> int:
        if wrap not in self.samplers:
            self.gltf.samplers.append(gl.Sampler(wrapS=WRAP_ENUMS[wrap[0]], wrapT=WRAP_ENUMS[wrap[1]]))
            self.samplers[wrap] = len(self.gltf.samplers) - 1
        return self.samplers[wrap]

    def uses(self, extension: str) -> None:
        used = self.gltf.extensionsUsed or []
        if extension not in used:
            self.gltf.extensionsUsed = used + [extension]


def _file_bytes(path: str | None) -> tuple[bytes | None, str]:
    """The bytes and mimeType of a PNG or JPEG file (recognised by content), else (None, '')."""
    if not path:
        return None, ""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None, ""
    mime = next((mime for magic, mime in MIME_TYPES.items() if data.startswith(magic)), "")
    return (data, mime) if mime else (None, "")


def _png(pixels: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(pixels), "RGBA").save(out, format="PNG")
    return out.getvalue()
