"""Finding and decoding the images materials name.

A texture the file names is looked up beside the model, then in the folders ``LoadOptions.texture_dirs``
lists (``--texture-dir``, then the window's texture-folder setting), case-insensitively, as the name
is given and then with each of ``LOOKUP_SUFFIXES``. Images decode with Pillow into (H, W, 4) uint8
RGBA, row 0 at the top. Anything that goes wrong is a warning naming the texture: the mesh keeps its
base colour and the model still loads.
"""

from __future__ import annotations

import io
import struct
import warnings as python_warnings
from dataclasses import replace
from pathlib import Path, PurePosixPath

import numpy as np
from PIL import Image

from app.errors import InputError, regular_size
from app.model import Model

#: Suffixes tried, in order, for a name that does not find a file as given.
LOOKUP_SUFFIXES = (".tga", ".dds", ".png", ".jpg", ".bmp", ".plt")
#: Image files a texture can be assigned from (the window's file dialog, drops).
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".tga", ".dds", ".bmp")
#: Longest side kept; larger images are downscaled (with a warning) rather than refused.
MAX_SIDE = 8192
#: Largest image decoded, in pixels (640 MiB as RGBA; 12000×12000 fits); bigger ones are refused with a
#: warning. Below Pillow's own refusal (twice ``Image.MAX_IMAGE_PIXELS``), above its warning.
MAX_PIXELS = 160 * 1024 * 1024
#: Largest image file read.
MAX_FILE_BYTES = 256 * 1024 * 1024


class TextureError(Exception):
    """An image that cannot be used; the message says why."""


def bioware_dds_as_dds(data: bytes) -> bytes | None:
    """A standard DDS of the first mip level of a BioWare (NWN) DDS, or None when ``data`` is not one.

    BioWare's header is 20 bytes: width, height, channels (3: DXT1, 4: DXT5), the first level's
    size (u32 each) and an average alpha (f32); DXT blocks follow.
    """
    if len(data) < 20 or data[:4] == b"DDS ":
        return None
    width, height, channels, _ = struct.unpack_from("<4I", data)
    if channels not in (3, 4) or not (0 < width <= 32768 and 0 < height <= 32768):
        return None
    block = 8 if channels == 3 else 16
    size = max(1, (width + 3) // 4) * max(1, (height + 3) // 4) * block
    if len(data) < 20 + size:
        return None
    header = struct.pack("<4s7I44x2I4s20xI16x", b"DDS ", 124, 0x81007, height, width, size, 0, 0,
                         32, 0x4, b"DXT1" if channels == 3 else b"DXT5", 0x1000)
    return header + data[20:20 + size]


def decode(data: bytes) -> tuple[np.ndarray, str]:
    """(H, W, 4) uint8 RGBA of an encoded image, row 0 at the top, and a note ('' or why it was
    downscaled). Raises TextureError for data that is not a complete image Pillow can decode."""
    try:
        with python_warnings.catch_warnings():
            python_warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # MAX_PIXELS decides
            image = Image.open(io.BytesIO(bioware_dds_as_dds(data) or data))
        width, height = image.size
        if max(width, height) > MAX_SIDE and image.format == "JPEG":
            image.draft("RGB", (MAX_SIDE, MAX_SIDE))  # JPEG decodes at 1/2, 1/4 or 1/8 size
            width, height = image.size
        if width * height > MAX_PIXELS:
            raise TextureError(f"too large ({width}×{height} pixels, more than {MAX_PIXELS} "
                               "can be decoded)")
        image.load()
        factor = -(-max(width, height) // MAX_SIDE)
        if factor > 1:  # averaged over whole blocks of pixels: 0.15 s for 12000×12000, a resampling 3 s
            if image.mode not in ("RGB", "RGBA", "L", "LA"):
                image = image.convert("RGBA")
            image = image.reduce(factor)
        rgba = image.convert("RGBA")
    except TextureError:
        raise
    except Image.DecompressionBombError:
        raise TextureError(f"too large (more than {MAX_PIXELS} pixels can be decoded)") from None
    except Image.UnidentifiedImageError:
        raise TextureError("not an image Pillow recognises (PNG, JPEG, TGA, DDS, BMP)") from None
    except Exception as error:  # noqa: BLE001 - Pillow's decoders raise many kinds for bad data
        raise TextureError(f"cannot be decoded ({error})") from None
    note = ""
    if rgba.size != (width, height):
        note = (f"{width}×{height} is larger than {MAX_SIDE} on a side: downscaled to "
                f"{rgba.width}×{rgba.height}")
    return _read_only(np.asarray(rgba, dtype=np.uint8)), note


def _read_only(pixels: np.ndarray) -> np.ndarray:
    """A contiguous read-only copy (shared by every material that uses the image)."""
    pixels = np.ascontiguousarray(pixels).copy()
    pixels.flags.writeable = False
    return pixels


def read_image(path: Path) -> tuple[np.ndarray, str]:
    """``decode`` of a file, refusing what is not a regular file (a FIFO would block) and files over
    MAX_FILE_BYTES before reading them."""
    return decode(_file_bytes(path))


def candidate_names(name: str) -> list[str]:
    """File names tried for a texture name: as given, then its stem with each lookup suffix."""
    given = PurePosixPath(name.replace("\\", "/")).name
    stem = given[: -len(PurePosixPath(given).suffix)] if PurePosixPath(given).suffix.lower() in \
        LOOKUP_SUFFIXES else given
    names = [given] + [stem + suffix for suffix in LOOKUP_SUFFIXES]
    return list(dict.fromkeys(names))


def find_texture(name: str, folders: list[Path], listings: dict | None = None) -> Path | None:
    """The file a texture name refers to, searching ``folders`` in order, or None.

    In each folder the name's relative path (as the file gives it) is tried first; then every
    candidate name (``candidate_names``), matched case-insensitively, in suffix order. ``listings``
    keeps each folder's listing between calls (a texture folder may hold thousands of files).
    """
    relative = name.replace("\\", "/")
    wanted = [candidate.lower() for candidate in candidate_names(name)]
    listings = {} if listings is None else listings
    for folder in folders:
        if relative and _file_inside(folder, relative):
            return folder / relative
        if folder not in listings:
            listings[folder] = _listing(folder)
        files = listings[folder]
        for candidate in wanted:
            if candidate in files and _file_inside(folder, files[candidate].name):
                return files[candidate]
    return None


def _listing(folder: Path) -> dict[str, Path]:
    """``{lower-cased name: path}`` of the files in ``folder`` (empty when it cannot be listed)."""
    try:
        return {entry.name.lower(): entry for entry in folder.iterdir() if entry.is_file()}
    except OSError:
        return {}


def _file_inside(folder: Path, relative: str) -> bool:
    """Whether ``relative`` names a regular file inside ``folder`` (absolute paths, ``..`` out of the
    folder, links leading out of it and names the system refuses, too long for one, find nothing)."""
    if PurePosixPath(relative).is_absolute() or relative.startswith("/"):
        return False
    try:
        path = folder / relative
        return path.resolve().is_relative_to(folder.resolve()) and path.is_file()
    except (OSError, RuntimeError, ValueError):
        return False


def search_folders(model: Model, texture_dirs: list[str | Path]) -> list[Path]:
    """Beside the model's files (the first file's folder first), then ``texture_dirs`` in order."""
    folders = [Path(path).resolve().parent for path in model.files] + [Path(d) for d in texture_dirs]
    return list(dict.fromkeys(folders))


def resolve_textures(model: Model, texture_dirs: list[str | Path], dds_bottom_up: bool = False,
                     resources: list[Path] = (), plt_colours: dict[str, int] | None = None) -> None:
    """Find and decode each named texture not yet decoded; warnings go to ``model.warnings``.

    ``dds_bottom_up``: the format's DDS files store the image's bottom row first (NWN's do), so
    their rows are reversed to put the top first. ``resources``: folders and NWN archives searched
    after the folders, by resref (``archives.search``). A PLT texture is coloured with its palette
    images, found the same way, at the colour index ``plt_colours`` gives each layer (``nwn.plt``).
    """
    from app.formats.nwn.archives.search import ResourceSearch  # the archives' modules import formats

    lookup = _Lookup(search_folders(model, texture_dirs), ResourceSearch(list(resources)), {})
    wanted: dict[str, list] = {}
    for mesh in model.meshes:
        if mesh.material.texture and mesh.material.image is None:
            wanted.setdefault(mesh.material.texture, []).append(mesh)
    for name, meshes in wanted.items():
        users = _mesh_list(meshes)
        try:
            found = lookup.find(name)
        except InputError as error:
            model.warnings.append(f"texture {name!r} ({users}): --resources unreadable: {error}")
            found = None
        if found is None:
            places = ", ".join(str(folder) for folder in [*lookup.folders, *resources])
            model.warnings.append(f"texture {name!r} ({users}) not found: looked in {places} for "
                                  f"{', '.join(candidate_names(name))}; drawn in the base colour")
            continue
        where, kind, data = found
        source = None
        try:
            if kind == "plt":
                source, note = _plt_source(data, where, lookup)
                image = source.coloured(plt_colours or {})
            else:
                image, note = decode(data)
        except (TextureError, InputError) as error:
            model.warnings.append(f"texture {name!r} ({users}) ({where}): {error}; drawn in the base colour")
            image, note = None, ""
        if note:
            model.warnings.append(f"texture {name!r} ({users}) ({where}): {note}")
        if image is not None and dds_bottom_up and kind == "dds":
            image = _read_only(image[::-1])
        for mesh in meshes:
            mesh.material = replace(mesh.material, texture_path=where, image=image, plt=source)


class _Lookup:
    """Where a texture name is found: ``folders`` (files, any case), then ``search`` (resrefs)."""

    def __init__(self, folders: list[Path], search, listings: dict):
        self.folders, self.search, self.listings = folders, search, listings

    def find(self, name: str) -> tuple[str, str, bytes] | None:
        """(where, type without the dot, bytes) of the image ``name`` refers to, or None."""
        path = find_texture(name, self.folders, self.listings)
        if path is not None:
            return str(path.resolve()), path.suffix.lower().lstrip("."), _file_bytes(path)
        if not self.search.paths:
            return None
        stem = PurePosixPath(candidate_names(name)[-1]).stem  # the last candidate is the stem + a suffix
        found = self.search.find(stem, tuple(suffix[1:] for suffix in LOOKUP_SUFFIXES))
        return None if found is None else (found.where, found.type, found.data)


def _file_bytes(path: Path) -> bytes:
    """A texture file's bytes: regular files of at most MAX_FILE_BYTES (a TextureError otherwise)."""
    try:
        size = regular_size(path)
    except InputError as error:
        raise TextureError(error.message) from None
    if size > MAX_FILE_BYTES:
        raise TextureError(f"the file is {size} bytes, more than {MAX_FILE_BYTES} read for an image")
    try:
        return path.read_bytes()
    except OSError as error:
        raise TextureError(f"cannot be read ({error.strerror or error})") from None


def _plt_source(data: bytes, where: str, lookup: _Lookup):
    """A PLT with the palette images ``lookup`` finds for its layers (``nwn.plt.PltImage``), and a note
    naming those not found (their layers are drawn in neutral colours)."""
    from app.formats.nwn import plt

    values, layers = plt.read_plt(data, where)
    palettes, missing = {}, []
    for layer in plt.PltImage(values, layers, {}).used_layers:
        found = lookup.find(plt.PALETTES[layer])
        if found is None:
            missing.append(plt.PALETTES[layer])
            continue
        palettes[layer], _ = decode(found[2])
    note = ""
    if missing:
        note = (f"palette images {', '.join(dict.fromkeys(missing))} not found: those layers are drawn "
                "in neutral colours")
    return plt.PltImage(values, layers, palettes), note


def _mesh_list(meshes: list) -> str:
    names = [mesh.name for mesh in meshes]
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return f"mesh {shown}" if len(names) == 1 else f"meshes {shown}"


def assign_textures(model: Model, assignments: list[tuple[str | None, str]]) -> None:
    """Give meshes an image from a file: ``(None, path)`` every mesh, ``(name, path)`` the mesh
    called ``name`` (exact, then case-insensitive). The base colour's RGB becomes white so the image
    shows as it is. A missing or bad image or an unknown mesh is a warning."""
    for mesh_name, image_path in assignments:
        targets = _meshes_named(model, mesh_name)
        if not targets:
            names = ", ".join(mesh.name for mesh in model.meshes) or "none"
            model.warnings.append(f"--texture {mesh_name}={image_path}: no mesh named {mesh_name!r} "
                                  f"(meshes: {names})")
            continue
        path = Path(image_path)
        image, _ = _decoded_or_warning(model, f"{image_path!r}", path)
        if image is None:
            continue
        for mesh in targets:
            alpha = mesh.material.base_color[3]
            mesh.material = replace(mesh.material, texture=image_path, texture_path=str(path.resolve()),
                                    image=image, base_color=(1.0, 1.0, 1.0, alpha))


def _meshes_named(model: Model, name: str | None) -> list:
    if name is None:
        return list(model.meshes)
    exact = [mesh for mesh in model.meshes if mesh.name == name]
    return exact or [mesh for mesh in model.meshes if mesh.name.lower() == name.lower()]


def _decoded_or_warning(model: Model, texture: str, path: Path) -> tuple[np.ndarray | None, str]:
    """``read_image`` of ``path``, or None with a warning naming ``texture`` (already quoted)."""
    try:
        image, note = read_image(path)
    except TextureError as error:
        model.warnings.append(f"texture {texture} ({path}): {error}; drawn in the base colour")
        return None, str(error)
    if note:
        model.warnings.append(f"texture {texture} ({path}): {note}")
    return image, note


def decode_embedded(data: bytes, where: str, warnings: list[str]) -> np.ndarray | None:
    """The pixels of an image a file embeds, or None with a warning naming ``where``."""
    try:
        image, note = decode(data)
    except TextureError as error:
        warnings.append(f"{where}: the embedded image {error}; the mesh is drawn in its base colour")
        return None
    if note:
        warnings.append(f"{where}: the embedded image is {note}")
    return image
