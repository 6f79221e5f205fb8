"""The framebuffers the renderer reads back from rather than shows: the mesh-id picture that says which
mesh is under a pixel, and the one-pixel target transform feedback needs."""

from __future__ import annotations

import moderngl


class PickTarget:
    """A single-sample colour + depth framebuffer, kept while the size stays; owns its renderbuffers."""

    def __init__(self, ctx: moderngl.Context):
        self.ctx = ctx
        self._objects: dict[str, moderngl.Framebuffer | moderngl.Renderbuffer] = {}

    def framebuffer(self, size: tuple[int, int]) -> moderngl.Framebuffer:
        framebuffer = self._objects.get("framebuffer")
        if framebuffer is not None and framebuffer.size == tuple(size):
            return framebuffer
        self.release()
        color = self.ctx.renderbuffer(tuple(size), 4)
        depth = self.ctx.depth_renderbuffer(tuple(size))
        self._objects = {"color": color, "depth": depth, "framebuffer": self.ctx.framebuffer([color], depth)}
        return self._objects["framebuffer"]

    def release(self) -> None:
        for name in ("framebuffer", "color", "depth"):
            if name in self._objects:
                self._objects.pop(name).release()


class CaptureTarget:
    """A 1×1 framebuffer, made when first used: drawing needs a complete framebuffer even with
    rasterisation off, and a headless context has none of its own."""

    def __init__(self, ctx: moderngl.Context):
        self.ctx = ctx
        self._framebuffer: moderngl.Framebuffer | None = None

    def use(self) -> None:
        if self._framebuffer is None:
            self._framebuffer = self.ctx.framebuffer([self.ctx.renderbuffer((1, 1))])
        self._framebuffer.use()

    def release(self) -> None:
        if self._framebuffer is not None:
            for attachment in self._framebuffer.color_attachments:
                attachment.release()
            self._framebuffer.release()
            self._framebuffer = None
