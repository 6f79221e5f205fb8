"""What the renderer draws, as one frozen value: each field and its default declared once, here. The
window's display options (``app.state.display.DisplayOptions``) hold one, ``boneyard render`` makes
one from its arguments, and both draw what ``draw_settings`` makes of it with the selection."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

#: The skinning methods a user chooses between (the View menu, ``render --skinning``).
SKINNING_METHODS = ("lbs", "dqs")
#: Skinning modes: a method, or "none", which draws the bind pose (the static baseline in benchmarks).
SKINNING_MODES = ("none", *SKINNING_METHODS)


@dataclass(frozen=True)
class DrawSettings:
    """What to draw and how. Colours are display (sRGB) values in 0..1. ``textures`` off draws every
    mesh in its base colour; ``show_hidden`` also draws the meshes the file marks as not rendered;
    ``vertex_colors`` multiplies the base colour by the meshes' vertex colours, where they have them;
    ``bounds`` outlines the box that frames what is drawn; ``emitters`` draws each particle
    emitter's cone and birth plane as lines (app/scene/emitter_shapes.py); ``walkmesh`` lays the
    model's walkmeshes over it, coloured by surface material; ``bone_names`` labels the bones (the
    window's overlay); ``heatmap_bone`` colours that bone's weights; ``transparent``: a picture with a
    clear background, for compositing."""

    skinning: Literal["none", "lbs", "dqs"] = "lbs"
    shaded: bool = True
    wireframe: bool = False
    bones: bool = False
    bone_names: bool = False
    normals: bool = False
    grid: bool = True
    bounds: bool = False
    walkmesh: bool = False
    heatmap_bone: int | None = None
    selected_bone: int | None = None
    background: tuple[float, float, float, float] = (0.22, 0.23, 0.25, 1.0)
    transparent: bool = False
    point_size: float = 1.0
    textures: bool = True
    show_hidden: bool = False
    vertex_colors: bool = True
    emitters: bool = False

    def __post_init__(self):
        if self.skinning not in SKINNING_MODES:
            raise ValueError(f"skinning must be 'lbs', 'dqs' or 'none', got {self.skinning!r}")

    def for_picture(self, transparent: bool) -> DrawSettings:
        """These settings for a saved picture: a transparent one is for compositing, so the floor
        grid, which would only get in the way, is left out."""
        return replace(self, transparent=transparent, grid=self.grid and not transparent)


def draw_settings(drawn: DrawSettings, selected_bone: int | None = None, heatmap: bool = False,
                  transparent: bool = False) -> DrawSettings:
    """What the renderer draws for ``drawn`` with ``selected_bone`` selected (``heatmap``: colour that
    bone's weights); ``transparent``: for a picture with a clear background. The window and
    ``boneyard render`` both draw what this says."""
    selected = replace(drawn, selected_bone=selected_bone, heatmap_bone=selected_bone if heatmap else None)
    return selected.for_picture(transparent)
