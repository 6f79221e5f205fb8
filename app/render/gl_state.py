"""What every drawing family of the renderer shares: the two depth layers and the blending they use.

Depth is split in two layers: meshes, the grid and the scene's overlays in the back half, the skeleton
and the gizmos in the front half, so bones show through the skin yet still hide each other.
"""

from __future__ import annotations

import moderngl

#: (scale, offset) applied to clip-space z for each depth layer.
SCENE_LAYER = (0.5, 0.5)
OVERLAY_LAYER = (0.5, -0.5)


def enable_blending(ctx: moderngl.Context) -> None:
    """Premultiplied-alpha blending, which also accumulates coverage into alpha."""
    ctx.enable(moderngl.BLEND)
    ctx.blend_func = (moderngl.ONE, moderngl.ONE_MINUS_SRC_ALPHA, moderngl.ONE, moderngl.ONE_MINUS_SRC_ALPHA)
