"""Materials on the GPU: base-colour textures (sRGB, mipmapped, shared by the meshes that use the same
image, downscaled to the driver's limit) and the per-mesh facts drawing needs (whether back faces may
be culled, where the mesh is when blended meshes are sorted)."""

from __future__ import annotations

import moderngl
import numpy as np

from app.model import Material, Mesh

#: OpenGL's GL_SRGB8_ALPHA8: the sampler decodes sRGB to linear, and mipmaps average linear values.
GL_SRGB8_ALPHA8 = 0x8C43
#: The shader's alpha_mode codes.
ALPHA_CODES = {"OPAQUE": 0, "MASK": 1, "BLEND": 2}
#: Fraction of a mesh's faces whose winding must agree with its stored normals before its back faces
#: are culled: legacy files often mix windings, and culling those would cut holes.
WINDING_AGREEMENT = 0.99


def fitted_size(width: int, height: int, limit: int) -> tuple[int, int]:
    """(width, height) shrunk, aspect kept, so that neither side exceeds ``limit``."""
    if max(height, width) <= limit:
        return width, height
    scale = limit / max(height, width)
    return max(1, min(limit, round(width * scale))), max(1, min(limit, round(height * scale)))


def fit_to_limit(image: np.ndarray, limit: int) -> np.ndarray:
    """``image`` (H, W, 4) uint8, shrunk (aspect kept) so that neither side exceeds ``limit``."""
    height, width = image.shape[:2]
    if max(height, width) <= limit:
        return image
    from PIL import Image

    size = fitted_size(width, height, limit)
    return np.asarray(Image.fromarray(np.ascontiguousarray(image), "RGBA").resize(size, Image.Resampling.BOX))


class TextureCache:
    """One GL texture per distinct image array (meshes sharing an image share the texture).

    ``warnings`` collects what was wrong with an image (too large for the driver); the owner reports
    and clears them. With ``keep_released`` (a batch worker), the textures of images no longer drawn
    are kept, up to a budget, and given again to an image with the same pixels: a library's models
    often share their image files, and each load decodes its own copy, which would otherwise be
    uploaded and mipmapped again.
    """

    def __init__(self, ctx: moderngl.Context):
        self.ctx = ctx
        self.limit = int(ctx.info["GL_MAX_TEXTURE_SIZE"])
        self.entries: dict[int, tuple[np.ndarray, moderngl.Texture]] = {}
        self.warnings: list[str] = []
        self.released: list[tuple[np.ndarray, moderngl.Texture]] = []  # the oldest first
        self.released_budget = 0

    def keep_released(self, budget: int) -> None:
        """Keep the textures of images no longer drawn while their images take at most ``budget``
        bytes together (0: release them at once)."""
        self.released_budget = budget
        self._trim_released()

    def texture(self, material: Material) -> moderngl.Texture:
        """The texture for ``material.image``, uploaded on first use, its wrap set as the material asks."""
        return self.image_texture(material.image, material.texture or material.name, material.wrap)

    def emissive_texture(self, material: Material) -> moderngl.Texture:
        """The texture for ``material.emissive_image``, as ``texture`` gives the base colour's."""
        return self.image_texture(material.emissive_image, material.emissive_texture or material.name,
                                  material.wrap)

    def image_texture(self, image: np.ndarray, name: str, wrap: tuple[str, str]) -> moderngl.Texture:
        """The texture for ``image`` (named ``name`` in warnings), uploaded on first use, wrapped so."""
        entry = self.entries.get(id(image))
        if entry is None or entry[0] is not image:
            entry = (image, self._kept_texture(image, name) or self._upload(image, name))
            self.entries[id(image)] = entry
        texture = entry[1]
        texture.repeat_x = wrap[0] == "repeat"
        texture.repeat_y = wrap[1] == "repeat"
        return texture

    def _kept_texture(self, image: np.ndarray, name: str) -> moderngl.Texture | None:
        """A released texture of an image with ``image``'s pixels, taken back; None when none is kept."""
        for index, (kept, texture) in enumerate(self.released):
            if kept.shape == image.shape and kept.dtype == image.dtype and np.array_equal(kept, image):
                del self.released[index]
                self._warn_if_shrunk(image, name)
                return texture
        return None

    def _upload(self, image: np.ndarray, name: str) -> moderngl.Texture:
        fitted = fit_to_limit(image, self.limit)
        self._warn_if_shrunk(image, name)
        height, width = fitted.shape[:2]
        texture = self.ctx.texture((width, height), 4, np.ascontiguousarray(fitted).tobytes(),
                                   internal_format=GL_SRGB8_ALPHA8)
        texture.build_mipmaps()
        # Trilinear, without anisotropic filtering: Mesa's software rasteriser speckles atlas
        # textures with it (stray texels from neighbouring islands).
        texture.filter = (moderngl.LINEAR_MIPMAP_LINEAR, moderngl.LINEAR)
        return texture

    def _warn_if_shrunk(self, image: np.ndarray, name: str) -> None:
        """The warning for an image larger than the driver draws, which is drawn shrunk."""
        height, width = image.shape[:2]
        if max(height, width) > self.limit:
            size = fitted_size(width, height, self.limit)
            self.warnings.append(
                f"texture {name!r}: {width}x{height} is larger than this OpenGL driver's limit of "
                f"{self.limit}; drawn at {size[0]}x{size[1]}")

    def keep_only(self, images: list[np.ndarray]) -> None:
        """Release the textures of images no longer in ``images`` (or keep them, ``keep_released``)."""
        wanted = {id(image) for image in images}
        for key in [key for key in self.entries if key not in wanted]:
            self.released.append(self.entries.pop(key))
        self._trim_released()

    def _trim_released(self) -> None:
        """Release the oldest kept textures until their images fit the budget."""
        while self.released and sum(image.nbytes for image, _ in self.released) > self.released_budget:
            self.released.pop(0)[1].release()

    def release(self) -> None:
        self.keep_released(0)
        self.keep_only([])


def culls_back_faces(mesh: Mesh) -> bool:
    """True when ``mesh`` is single-sided and its winding agrees with its stored normals (so that the
    faces culled as back faces really face away)."""
    if mesh.material.double_sided or mesh.normals is None or not mesh.triangle_count:
        return False
    corners = mesh.positions[mesh.triangles].astype(np.float64)
    faces = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    normals = mesh.normals[mesh.triangles].sum(axis=1, dtype=np.float64)
    agreement = np.einsum("ij,ij->i", faces, normals)
    decided = agreement != 0.0
    return bool(decided.any()) and float(np.mean(agreement[decided] > 0.0)) >= WINDING_AGREEMENT


def anchor(mesh: Mesh) -> tuple[np.ndarray, int]:
    """Where a mesh is, for sorting blended meshes: its bind centre (3,) and the bone carrying most
    of its weight (−1: none), whose skinning matrix moves the centre in a pose."""
    centre = mesh.positions.mean(axis=0, dtype=np.float64) if mesh.vertex_count else np.zeros(3)
    used = mesh.weights > 0
    if not used.any():
        return centre, -1
    totals = np.bincount(mesh.joints[used], weights=mesh.weights[used])
    return centre, int(np.argmax(totals))
