"""Headless rendering: an EGL context, a multisampled framebuffer resolved to a single-sample one,
and RGBA readback for ``boneyard render`` and the tests.

A picture larger than one tile (``TILE_PIXELS``, and the driver's largest side) is drawn in tiles,
each the part of the whole picture's viewport that falls on the tile's framebuffer, and written to
its PNG a band of rows at a time, so memory holds one tile and one band, not the picture.
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

import moderngl
import numpy as np

from app.atomic_files import replacing
from app.model import Model
from app.pose import Pose, rest_pose
from app.render.camera import Camera, camera_for
from app.render.legend_image import with_legend
from app.render.renderer import Renderer
from app.render.shaders import load_program
from app.scene.draw_settings import DrawSettings
from app.scene.walkmesh_overlay import legend

#: Multisampling tried first; fewer samples are tried when the driver refuses.
DEFAULT_SAMPLES = 4
#: How edges are smoothed: "msaa" draws DEFAULT_SAMPLES samples a pixel and averages them; "fxaa"
#: draws one and smooths the edges its luma shows in one pass (shaders/fxaa.glsl: on a software
#: rasteriser about the cost of the 4× resolve, without the multisampled drawing; a little softer);
#: "none" leaves the edges as drawn.
ANTIALIASING = ("msaa", "fxaa", "none")
#: zlib's level for a tiled picture's PNG.
DEFAULT_PNG_LEVEL = 6
#: zlib's level for a PNG written for speed (``batch render``): with the run-length strategy the
#: higher levels gain little (docs/benchmarks.md).
FAST_PNG_LEVEL = 1
#: Most pixels drawn at once: a tile's multisampled colour and depth (4 samples) take 128 MiB.
TILE_PIXELS = 4096 * 1024
#: Bytes per pixel of a tile (multisampled colour and depth, the resolved colour, the readback and
#: its flipped copy) and of a band of the picture (the tile's rows across the whole width, filtered).
TILE_BYTES_PER_PIXEL = DEFAULT_SAMPLES * 8 + 4 + 8
BAND_BYTES_PER_PIXEL = 4 + 5


class NotEnoughMemory(Exception):
    """A picture whose drawing needs more memory than the process may have; the message says how much."""


class PictureTooLarge(ValueError):
    """A picture wider or taller than this OpenGL driver draws; the message gives the driver's limit."""


def create_context() -> moderngl.Context:
    """A standalone OpenGL 3.3+ context: EGL (no display needed), else the platform default."""
    try:
        return moderngl.create_standalone_context(require=330, backend="egl")
    except Exception:  # noqa: BLE001 - glcontext raises plain Exceptions for a missing backend
        return moderngl.create_standalone_context(require=330)


class ImageTargets:
    """A multisampled colour + depth framebuffer, the single-sample one it resolves into, and RGBA
    readback. Works in any moderngl context: the headless one here or the Qt viewport's.

    The multisampled colour is a texture that a shader resolves (``shaders/resolve.glsl``), not a
    renderbuffer blitted: the same picture, but Mesa compiles its blit shader afresh in every
    process (about 30 ms of a fresh ``boneyard render``) whereas it keeps ours in its shader cache.
    With ``antialias`` "fxaa" (one sample) the picture is a single-sample texture that the FXAA pass
    (``shaders/fxaa.glsl``) filters into the resolved framebuffer in the same way.
    """

    def __init__(self, ctx: moderngl.Context, size: tuple[int, int], samples: int, antialias: str = "msaa"):
        self.ctx = ctx
        self.size = size
        self.samples = samples
        self.objects = []
        if samples == 1 and antialias == "fxaa":
            self._filtered_picture(ctx, size)
        elif samples > 1:
            self.picture = ctx.texture(size, 4, samples=samples)
            depth = ctx.depth_renderbuffer(size, samples=samples)
            self.objects += [self.picture, depth]
            self.draw_target = ctx.framebuffer([self.picture], depth)
            self.objects.append(self.draw_target)
            program = load_program(ctx, "resolve.glsl", defines={"SAMPLES": samples})
            self.resolve_pass = ctx.vertex_array(program, [])
            self.objects += [program, self.resolve_pass]
        resolved = ctx.renderbuffer(size, 4)
        self.objects.append(resolved)
        if samples > 1 or antialias == "fxaa":
            self.resolved = ctx.framebuffer([resolved])
        else:
            depth = ctx.depth_renderbuffer(size)
            self.objects.append(depth)
            self.resolved = ctx.framebuffer([resolved], depth)
            self.draw_target = self.resolved
        self.objects.append(self.resolved)

    def _filtered_picture(self, ctx: moderngl.Context, size: tuple[int, int]) -> None:
        """The single-sample picture and depth drawn into, and the FXAA pass that filters the picture."""
        self.picture = ctx.texture(size, 4)
        self.picture.repeat_x = self.picture.repeat_y = False
        self.picture.filter = (moderngl.LINEAR, moderngl.LINEAR)
        depth = ctx.depth_renderbuffer(size)
        self.draw_target = ctx.framebuffer([self.picture], depth)
        program = load_program(ctx, "fxaa.glsl")
        program["last"].value = (size[0] - 1, size[1] - 1)
        program["pixel"].value = (1.0 / size[0], 1.0 / size[1])
        self.resolve_pass = ctx.vertex_array(program, [])
        self.objects += [self.picture, depth, self.draw_target, program, self.resolve_pass]

    @classmethod
    def create(cls, ctx: moderngl.Context, size: tuple[int, int], antialias: str = "msaa") -> ImageTargets:
        """Targets of ``size`` smoothed as ``antialias`` says (ANTIALIASING): for "msaa", with as many
        samples (up to DEFAULT_SAMPLES) as the driver allows."""
        check_sides(size, max_image_side(ctx))
        if antialias not in ANTIALIASING:
            raise ValueError(f"antialias {antialias!r}: expected one of {', '.join(ANTIALIASING)}")
        if antialias != "msaa":
            return cls(ctx, size, 1, antialias)
        samples = min(DEFAULT_SAMPLES, ctx.max_samples)
        while True:
            try:
                return cls(ctx, size, samples)
            except moderngl.Error:
                if samples <= 1:
                    raise
                samples //= 2

    def __enter__(self) -> ImageTargets:
        return self

    def __exit__(self, *exc_info) -> None:
        self.release()

    def render(self, renderer: Renderer, camera: Camera, options: DrawSettings) -> np.ndarray:
        """Draw with ``renderer`` and read back an (H, W, 4) uint8 RGBA image, top row first
        (straight alpha when ``options.transparent``)."""
        return self.capture(lambda framebuffer: renderer.draw(framebuffer, camera, options),
                            options.transparent)

    def capture(self, draw: Callable[[moderngl.Framebuffer], None], transparent: bool) -> np.ndarray:
        """Run ``draw`` on the (multisampled) target, then read back as ``render`` does; for callers
        that draw more than the renderer (e.g. gizmos over the model)."""
        draw(self.draw_target)
        data = self.resolve().read(components=4, alignment=1)
        image = np.frombuffer(data, np.uint8).reshape(self.size[1], self.size[0], 4)[::-1].copy()
        return unpremultiply(image) if transparent else image

    def resolve(self) -> moderngl.Framebuffer:
        """The single-sample framebuffer holding what was drawn (the multisampled one resolved); it is
        left bound."""
        if self.draw_target is not self.resolved:
            self.resolve_into(self.resolved)
        return self.resolved

    def resolve_into(self, framebuffer: moderngl.Framebuffer) -> None:
        """Put what was drawn into ``framebuffer`` of the same size, of any colour format (a window's):
        resolved there directly when multisampled, else copied. It is left bound."""
        if self.draw_target is self.resolved:
            self.ctx.copy_framebuffer(framebuffer, self.resolved)
            return
        framebuffer.use()
        self.ctx.disable(moderngl.BLEND | moderngl.DEPTH_TEST)
        self.picture.use(0)
        self.resolve_pass.render(moderngl.TRIANGLES, vertices=3)

    def release(self) -> None:
        for gl_object in reversed(self.objects):
            gl_object.release()
        self.objects = []


def check_sides(size: tuple[int, int], limit: int) -> None:
    """PictureTooLarge unless both sides of ``size`` are within 1..``limit`` (the driver's)."""
    if not (0 < size[0] <= limit and 0 < size[1] <= limit):
        raise PictureTooLarge(f"image size {size[0]}x{size[1]} outside 1..{limit} on this OpenGL driver")


def viewport_limit(ctx: moderngl.Context) -> int:
    """The largest width or height of a viewport on this driver: a tiled picture's bound, since each tile
    is drawn with the whole picture's viewport."""
    return min(ctx.info["GL_MAX_VIEWPORT_DIMS"])


def max_image_side(ctx: moderngl.Context) -> int:
    """The largest width or height this driver renders offscreen."""
    return min(ctx.info["GL_MAX_RENDERBUFFER_SIZE"], *ctx.info["GL_MAX_VIEWPORT_DIMS"])


class OffscreenRenderer:
    """Owns a headless context and a Renderer; use as a context manager.

    >>> with OffscreenRenderer() as offscreen:
    ...     image = offscreen.render_image(model, pose, size=(800, 600))
    """

    def __init__(self, ctx: moderngl.Context | None = None, antialias: str = "msaa"):
        self.owns_context = ctx is None
        self.ctx = ctx or create_context()
        self.renderer = Renderer(self.ctx)
        self.antialias = antialias
        self._targets: ImageTargets | None = None

    def __enter__(self) -> OffscreenRenderer:
        return self

    def __exit__(self, *exc_info) -> None:
        self.release()

    def _targets_for(self, size: tuple[int, int]) -> ImageTargets:
        """Framebuffers of ``size``, reused while the size stays."""
        if self._targets is not None and self._targets.size == size:
            return self._targets
        targets = ImageTargets.create(self.ctx, size, self.antialias)
        if self._targets is not None:
            self._targets.release()
        self._targets = targets
        return targets

    def draw_target(self, size: tuple[int, int]) -> moderngl.Framebuffer:
        """The (multisampled) framebuffer ``render_image`` draws into at ``size`` (benchmarks)."""
        return self._targets_for(size).draw_target

    def render_image(self, model: Model, pose: Pose | None = None, size: tuple[int, int] = (800, 600),
                     options: DrawSettings | None = None, view: str = "iso",
                     camera: Camera | None = None, ghosts: list | None = None) -> np.ndarray:
        """Render ``model`` in ``pose`` (default: bind) to an (H, W, 4) uint8 RGBA image, top row first.

        Without ``camera`` the posed bounds are framed from ``view``. With ``options.transparent``
        the background has alpha 0 and colours are un-premultiplied (straight alpha, as PNG wants).
        ``ghosts``: the onion skins of this picture (``Renderer.draw_ghosts``; None: the renderer's own).
        """
        options = options or DrawSettings()
        pose = pose if pose is not None else rest_pose(model)
        size = (int(size[0]), int(size[1]))
        self._show(model, pose)
        if camera is None:
            camera = self._framing(model, size, options, view)
        with drawn_ghosts(self.renderer, ghosts):
            return self._targets_for(size).render(self.renderer, camera, options)

    def _framing(self, model: Model, size: tuple[int, int], options: DrawSettings, view: str) -> Camera:
        """The camera from ``view`` that frames what ``options`` draw of the shown pose."""
        low, high = self.renderer.bounds(options)
        return camera_for(low, high, up_axis=model.up_axis, view=view, aspect=size[0] / size[1],
                          forward=model.forward)

    def _show(self, model: Model, pose: Pose) -> None:
        if self.renderer.model is not model:
            self.renderer.set_model(model, pose)
        else:
            self.renderer.set_pose(pose)

    def tile_size(self, size: tuple[int, int]) -> tuple[int, int]:
        """The tile a picture of ``size`` is drawn in: the whole picture when it fits TILE_PIXELS and
        the driver, else the widest band of rows that does."""
        limit = max_image_side(self.ctx)
        width = min(size[0], limit)
        return width, min(size[1], limit, max(1, TILE_PIXELS // width))

    def render_bands(self, model: Model, pose: Pose | None, size: tuple[int, int],
                     options: DrawSettings | None = None, view: str = "iso",
                     tile: tuple[int, int] | None = None) -> Iterator[np.ndarray]:
        """``render_image``'s picture as (rows, W, 4) bands, top first, drawn in tiles of ``tile``
        (default ``tile_size``). Each tile is drawn with the whole picture's viewport, shifted so that
        the tile's pixels fall on the tile's framebuffer: vertices land where they do in one pass
        (the shift is whole pixels) and primitives are clipped as there. Only the odd edge pixel
        may differ by a multisample, and a wireframe line a tile's edge cuts may move by a pixel."""
        options = options or DrawSettings()
        pose = pose if pose is not None else rest_pose(model)
        width, height = size = (int(size[0]), int(size[1]))
        tile_width, tile_height = tile or self.tile_size(size)
        if (tile_width, tile_height) == size:
            yield self.render_image(model, pose, size, options, view)
            return
        self.check_size(size)
        self._show(model, pose)
        camera = self._framing(model, size, options, view)
        targets = self._targets_for((tile_width, tile_height))
        target = targets.draw_target
        try:
            for top in range(0, height, tile_height):
                rows = min(tile_height, height - top)
                band = np.empty((rows, width, 4), np.uint8)
                for left in range(0, width, tile_width):
                    target.viewport = (-left, top + tile_height - height, width, height)
                    columns = min(tile_width, width - left)
                    image = targets.render(self.renderer, camera, options)
                    band[:, left:left + columns] = image[:rows, :columns]
                yield band
        finally:
            target.viewport = (0, 0, tile_width, tile_height)

    def memory_needed(self, size: tuple[int, int]) -> int:
        """Bytes drawing and writing a picture of ``size`` takes (its tile, and a band of its rows)."""
        tile_width, tile_height = self.tile_size(size)
        return tile_width * tile_height * TILE_BYTES_PER_PIXEL + size[0] * tile_height * BAND_BYTES_PER_PIXEL

    def check_size(self, size: tuple[int, int]) -> None:
        """Raise PictureTooLarge unless this driver draws a picture of ``size``: one of a single tile
        within its largest image side, a tiled one within its largest viewport."""
        single = self.tile_size(size) == tuple(size)
        check_sides(size, max_image_side(self.ctx) if single else viewport_limit(self.ctx))

    def check_fits(self, size: tuple[int, int], frames_held: int = 0) -> None:
        """Raise PictureTooLarge or NotEnoughMemory unless this driver draws a picture of ``size`` and
        the memory available holds its drawing and ``frames_held`` finished RGBA frames of that size
        (an encoder's look-ahead, a contact sheet)."""
        self.check_size(size)
        check_memory(size, self.memory_needed(size), frames_held)

    def save_png(self, model: Model, pose: Pose | None, size: tuple[int, int], path: str | Path,
                 options: DrawSettings | None = None, view: str = "iso", level: int | None = None) -> None:
        """Render a picture of ``size`` to the PNG ``path``, tiled when it is larger than a tile, its
        rows deflated at zlib ``level`` (default: Pillow's encoder, or 6 for a tiled picture).
        Raises PictureTooLarge or NotEnoughMemory before drawing (and before the file is opened)."""
        self.check_fits(size)
        bands = self.render_bands(model, pose, size, options, view)
        if options is not None and options.walkmesh and model.walkmeshes:
            bands = _legend_on_top(bands, legend(model.walkmeshes), int(size[1]))
        if self.tile_size(size) == tuple(size) and level is None:
            save_png(next(bands), path)
        else:
            write_png_bands(path, size, bands, DEFAULT_PNG_LEVEL if level is None else level)

    def release(self) -> None:
        """Free the framebuffers, the renderer and (if it made it) the context."""
        if self._targets is not None:
            self._targets.release()
            self._targets = None
        if self.renderer is not None:
            self.renderer.release()
            self.renderer = None
        if self.owns_context and self.ctx is not None:
            self.ctx.release()
        self.ctx = None


def _legend_on_top(bands: Iterator[np.ndarray], entries: list, height: int) -> Iterator[np.ndarray]:
    """The bands, the first with the walkmesh legend drawn over its top-left corner."""
    yield with_legend(next(bands), entries, height)
    yield from bands


def unpremultiply(image: np.ndarray) -> np.ndarray:
    """(H, W, 4) uint8 premultiplied RGBA → straight alpha; fully transparent pixels stay black."""
    alpha = image[..., 3:].astype(np.float32)
    rgb = image[..., :3].astype(np.float32) * 255.0 / np.maximum(alpha, 1.0)
    result = image.copy()
    result[..., :3] = np.where(alpha > 0, np.clip(np.rint(rgb), 0, 255), 0).astype(np.uint8)
    return result


@contextmanager
def drawn_ghosts(renderer: Renderer, ghosts: list | None) -> Iterator[None]:
    """``renderer`` draws ``ghosts`` (pose, offset pairs) inside the block and its own after (None:
    its own throughout)."""
    if ghosts is None:
        yield
        return
    own, renderer.ghosts = renderer.ghosts, ghosts
    try:
        yield
    finally:
        renderer.ghosts = own


def save_png(image: np.ndarray, path: str | Path) -> None:
    """Write an (H, W, 4) or (H, W, 3) uint8 image as the PNG ``path``, whole or not at all."""
    with replacing(path) as temporary:
        encode_png(image, temporary)


def encode_png(image: np.ndarray, path: str | Path) -> None:
    """Encode an (H, W, 4) or (H, W, 3) uint8 image into the PNG file ``path``.

    Deflated with zlib's run-length strategy: a rendered picture's rows after PNG filtering are mostly
    runs, and at 1280×720 it encodes in 40 % of the time of zlib's default strategy at level 6, for
    files about a sixth larger (docs/benchmarks.md)."""
    from PIL import Image

    Image.fromarray(np.ascontiguousarray(image)).save(Path(path), format="PNG", compress_type=zlib.Z_RLE)


def check_memory(size: tuple[int, int], drawing: int, frames_held: int = 0) -> None:
    """NotEnoughMemory unless the memory available holds ``drawing`` bytes (what drawing a picture of
    ``size`` takes) and ``frames_held`` finished RGBA frames of that size."""
    needed = drawing + frames_held * size[0] * size[1] * 4
    available = available_memory()
    if needed > available:
        raise NotEnoughMemory(f"a {size[0]}×{size[1]} picture needs about {needed >> 20} MiB of memory "
                              f"to draw; {available >> 20} MiB are available")


def available_memory() -> int:
    """Bytes this process may still allocate: the system's available memory, and what is left of the
    address-space limit (``ulimit -v``) when one is set."""
    available = _meminfo_kib("/proc/meminfo", "MemAvailable:")
    available = (available << 10) if available is not None else 1 << 62
    limit = _address_space_limit()
    if limit is not None:
        used = _meminfo_kib(f"/proc/{os.getpid()}/status", "VmSize:")
        available = min(available, limit - ((used or 0) << 10))
    return max(available, 0)


def _address_space_limit() -> int | None:
    """The ``ulimit -v`` in bytes, or None where none is set or the platform has none (Windows)."""
    try:
        import resource
    except ImportError:
        return None
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    return None if limit == resource.RLIM_INFINITY else limit


def _meminfo_kib(path: str, key: str) -> int | None:
    """The kB figure after ``key`` in a /proc file, or None where there is none."""
    try:
        with open(path) as handle:
            for line in handle:
                if line.startswith(key):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def write_png_bands(path: str | Path, size: tuple[int, int], bands, level: int = 6) -> None:
    """Write an RGBA PNG of ``size`` from (rows, W, 4) uint8 ``bands``, top first, as they come: each
    row Sub-filtered and deflated at zlib ``level`` with the run-length strategy, as ``save_png``
    does; whole or not at all. Filtering in numpy, one filter for every row, takes a fraction of the
    time of Pillow's encoder, which tries five filters on each row (docs/benchmarks.md)."""
    width, height = size
    written = 0
    compressor = zlib.compressobj(level, zlib.DEFLATED, 15, 8, zlib.Z_RLE)
    with replacing(path) as temporary, open(temporary, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n")
        _png_chunk(out, b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
        for band in bands:
            flat = band.reshape(len(band), width * 4)
            filtered = np.empty((len(band), width * 4 + 1), np.uint8)
            filtered[:, 0] = 1  # filter type Sub: each byte less the byte of the pixel to its left
            filtered[:, 1:5] = flat[:, :4]
            np.subtract(flat[:, 4:], flat[:, :-4], out=filtered[:, 5:])
            _png_chunk(out, b"IDAT", compressor.compress(filtered))
            written += len(band)
        _png_chunk(out, b"IDAT", compressor.flush())
        _png_chunk(out, b"IEND", b"")
        if written != height:
            raise ValueError(f"{written} rows drawn for a picture {height} rows high")


def _png_chunk(out, kind: bytes, data: bytes) -> None:
    if kind == b"IDAT" and not data:
        return
    out.write(struct.pack(">I", len(data)) + kind)
    out.write(data)
    out.write(struct.pack(">I", zlib.crc32(data, zlib.crc32(kind))))
