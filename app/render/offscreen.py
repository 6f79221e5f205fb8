"""Headless rendering: an EGL context, a multisampled framebuffer resolved to a single-sample one,
and RGBA readback for ``boneyard render`` and the tests."""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Callable

import moderngl
import numpy as np

from app.model import Model
from app.pose import Pose, rest_pose
from app.render.camera import Camera, camera_for
from app.render.renderer import DisplayOptions, Renderer
from app.render.shaders import load_program

#: Multisampling tried first; fewer samples are tried when the driver refuses.
DEFAULT_SAMPLES = 4


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
    """

    def __init__(self, ctx: moderngl.Context, size: tuple[int, int], samples: int):
        self.ctx = ctx
        self.size = size
        self.samples = samples
        self.objects = []
        if samples > 1:
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
        if samples > 1:
            self.resolved = ctx.framebuffer([resolved])
        else:
            depth = ctx.depth_renderbuffer(size)
            self.objects.append(depth)
            self.resolved = ctx.framebuffer([resolved], depth)
            self.draw_target = self.resolved
        self.objects.append(self.resolved)

    @classmethod
    def create(cls, ctx: moderngl.Context, size: tuple[int, int]) -> ImageTargets:
        """Targets of ``size`` with as many samples (up to DEFAULT_SAMPLES) as the driver allows."""
        limit = max_image_side(ctx)
        if not (0 < size[0] <= limit and 0 < size[1] <= limit):
            raise ValueError(f"image size {size[0]}x{size[1]} outside 1..{limit} on this OpenGL driver")
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

    def render(self, renderer: Renderer, camera: Camera, options: DisplayOptions) -> np.ndarray:
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


def max_image_side(ctx: moderngl.Context) -> int:
    """The largest width or height this driver renders offscreen."""
    return min(ctx.info["GL_MAX_RENDERBUFFER_SIZE"], *ctx.info["GL_MAX_VIEWPORT_DIMS"])


class OffscreenRenderer:
    """Owns a headless context and a Renderer; use as a context manager.

    >>> with OffscreenRenderer() as offscreen:
    ...     image = offscreen.render_image(model, pose, size=(800, 600))
    """

    def __init__(self, ctx: moderngl.Context | None = None):
        self.owns_context = ctx is None
        self.ctx = ctx or create_context()
        self.renderer = Renderer(self.ctx)
        self._targets: ImageTargets | None = None

    def __enter__(self) -> OffscreenRenderer:
        return self

    def __exit__(self, *exc_info) -> None:
        self.release()

    def _targets_for(self, size: tuple[int, int]) -> ImageTargets:
        """Framebuffers of ``size``, reused while the size stays."""
        if self._targets is not None and self._targets.size == size:
            return self._targets
        targets = ImageTargets.create(self.ctx, size)
        if self._targets is not None:
            self._targets.release()
        self._targets = targets
        return targets

    def draw_target(self, size: tuple[int, int]) -> moderngl.Framebuffer:
        """The (multisampled) framebuffer ``render_image`` draws into at ``size`` (benchmarks)."""
        return self._targets_for(size).draw_target

    def render_image(self, model: Model, pose: Pose | None = None, size: tuple[int, int] = (800, 600),
                     options: DisplayOptions | None = None, view: str = "iso",
                     camera: Camera | None = None) -> np.ndarray:
        """Render ``model`` in ``pose`` (default: bind) to an (H, W, 4) uint8 RGBA image, top row first.

        Without ``camera`` the posed bounds are framed from ``view``. With ``options.transparent``
        the background has alpha 0 and colours are un-premultiplied (straight alpha, as PNG wants).
        """
        options = options or DisplayOptions()
        pose = pose if pose is not None else rest_pose(model)
        size = (int(size[0]), int(size[1]))
        if self.renderer.model is not model:
            self.renderer.set_model(model, pose)
        else:
            self.renderer.set_pose(pose)
        if camera is None:
            camera = camera_for(*self.renderer.bounds(options.bones), up_axis=model.up_axis, view=view,
                                aspect=size[0] / size[1], forward=model.forward)
        return self._targets_for(size).render(self.renderer, camera, options)

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


def unpremultiply(image: np.ndarray) -> np.ndarray:
    """(H, W, 4) uint8 premultiplied RGBA → straight alpha; fully transparent pixels stay black."""
    alpha = image[..., 3:].astype(np.float32)
    rgb = image[..., :3].astype(np.float32) * 255.0 / np.maximum(alpha, 1.0)
    result = image.copy()
    result[..., :3] = np.where(alpha > 0, np.clip(np.rint(rgb), 0, 255), 0).astype(np.uint8)
    return result


def save_png(image: np.ndarray, path: str | Path) -> None:
    """Write an (H, W, 4) or (H, W, 3) uint8 image as PNG.

    Deflated with zlib's run-length strategy: a rendered picture's rows after PNG filtering are mostly
    runs, and at 1280×720 it encodes in 40 % of the time of zlib's default strategy at level 6, for
    files about a sixth larger (docs/benchmarks.md)."""
    from PIL import Image

    Image.fromarray(np.ascontiguousarray(image)).save(Path(path), format="PNG", compress_type=zlib.Z_RLE)
