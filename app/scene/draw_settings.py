"""What the renderer draws, as one frozen value: made from the state's display options and the
selection (``app.state.display.draw_settings``) by the window and by ``boneyard render`` alike."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

#: Skinning modes: "none" draws the bind pose (and serves as the static baseline in benchmarks).
SKINNING_MODES = ("none", "lbs", "dqs")


@dataclass(frozen=True)
class DrawSettings:
    """What to draw and how. Colours are display (sRGB) values in 0..1. ``textures`` off draws every
    mesh in its base colour; ``show_hidden`` also draws the meshes the file marks as not rendered;
    ``vertex_colors`` multiplies the base colour by the meshes' vertex colours, where they have them;
    ``bounds`` outlines the box that frames what is drawn; ``bone_names`` labels the bones (the
    window's overlay); ``heatmap_bone`` colours that bone's weights; ``transparent``: a picture with
    a clear background, for compositing."""

    skinning: Literal["none", "lbs", "dqs"] = "lbs"
    shaded: bool = True
    wireframe: bool = False
    bones: bool = False
    bone_names: bool = False
    normals: bool = False
    grid: bool = True
    bounds: bool = False
    heatmap_bone: int | None = None
    selected_bone: int | None = None
    background: tuple[float, float, float, float] = (0.22, 0.23, 0.25, 1.0)
    transparent: bool = False
    point_size: float = 1.0
    textures: bool = True
    show_hidden: bool = False
    vertex_colors: bool = True

    def __post_init__(self):
        if self.skinning not in SKINNING_MODES:
            raise ValueError(f"skinning must be 'lbs', 'dqs' or 'none', got {self.skinning!r}")

    def for_picture(self, transparent: bool) -> DrawSettings:
        """These settings for a saved picture: a transparent one is for compositing, so the floor
        grid, which would only get in the way, is left out."""
        return replace(self, transparent=transparent, grid=self.grid and not transparent)
