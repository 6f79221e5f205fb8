"""The walkmeshes as drawn (View › Walkmesh, ``render --walkmesh``): translucent triangles coloured by
surface material, their edges, and the legend naming each colour. Colours are display (sRGB) values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from app.derived import derived
from app.model import Model
from app.walkmeshes import SURFACE_MATERIALS, Walkmesh, material_name, walkable

#: A display colour per surface material id (surfacemat.2da's rows): earthy for ground, blue for
#: water, red and magenta for what creatures cannot cross.
MATERIAL_COLORS = (
    (0.55, 0.55, 0.55),  # NotDefined
    (0.62, 0.45, 0.25),  # Dirt
    (0.35, 0.35, 0.40),  # Obscuring
    (0.30, 0.70, 0.25),  # Grass
    (0.70, 0.70, 0.65),  # Stone
    (0.75, 0.55, 0.30),  # Wood
    (0.25, 0.55, 0.90),  # Water
    (0.90, 0.20, 0.20),  # Nonwalk
    (0.85, 0.85, 1.00),  # Transparent
    (0.70, 0.25, 0.45),  # Carpet
    (0.55, 0.65, 0.75),  # Metal
    (0.45, 0.70, 0.85),  # Puddles
    (0.35, 0.45, 0.25),  # Swamp
    (0.45, 0.32, 0.20),  # Mud
    (0.80, 0.60, 0.15),  # Leaves
    (1.00, 0.40, 0.05),  # Lava
    (0.10, 0.10, 0.10),  # BottomlessPit
    (0.10, 0.25, 0.70),  # DeepWater
    (0.95, 0.85, 0.25),  # Door
    (0.95, 0.95, 0.98),  # Snow
    (0.90, 0.80, 0.55),  # Sand
    (0.85, 0.80, 0.70),  # BareBones
    (0.60, 0.60, 0.55),  # StoneBridge
)
#: The colour of a material id surfacemat.2da lacks.
UNKNOWN_COLOR = (1.0, 0.0, 1.0)
#: Opacity of the walkmesh's faces and of its edges.
FACE_ALPHA = 0.55
EDGE_ALPHA = 0.35
assert len(MATERIAL_COLORS) == len(SURFACE_MATERIALS)


def material_color(material: int) -> tuple[float, float, float]:
    return MATERIAL_COLORS[material] if 0 <= material < len(MATERIAL_COLORS) else UNKNOWN_COLOR


@dataclass(frozen=True)
class LegendEntry:
    material: int
    name: str
    color: tuple[float, float, float]
    walkable: bool
    faces: int

    @property
    def label(self) -> str:
        return f"{self.name}{'' if self.walkable else ' (not walkable)'}: {self.faces}"


def legend(walkmeshes: Sequence[Walkmesh]) -> list[LegendEntry]:
    """One entry per surface material the walkmeshes use, by id, with its faces over all of them."""
    totals: dict[int, int] = {}
    for walkmesh in walkmeshes:
        for material, count in walkmesh.faces_per_material().items():
            totals[material] = totals.get(material, 0) + count
    return [LegendEntry(material, material_name(material), material_color(material), walkable(material),
                        count) for material, count in sorted(totals.items())]


@derived
def model_legend(model: Model) -> list[LegendEntry]:
    """``legend`` of the model's walkmeshes, worked out once per model (the window paints it each frame)."""
    return legend(model.walkmeshes)


def face_colors(materials: np.ndarray, alpha: float) -> np.ndarray:
    """(F, 4) the display colour of each face's material, with ``alpha``."""
    table = np.array([*MATERIAL_COLORS, UNKNOWN_COLOR], np.float32)
    index = np.where((materials >= 0) & (materials < len(MATERIAL_COLORS)), materials, len(MATERIAL_COLORS))
    return np.column_stack([table[index], np.full(len(materials), alpha, np.float32)])


def walkmesh_triangles(walkmeshes: Sequence[Walkmesh]) -> tuple[np.ndarray, np.ndarray]:
    """(3F, 3) the corners of every face, unindexed, and (3F, 4) their colours (the face's)."""
    if not walkmeshes:
        return np.zeros((0, 3), np.float32), np.zeros((0, 4), np.float32)
    corners = np.concatenate([w.vertices[w.faces].reshape(-1, 3) for w in walkmeshes])
    colors = np.concatenate([np.repeat(face_colors(w.materials, FACE_ALPHA), 3, axis=0) for w in walkmeshes])
    return corners.astype(np.float32), colors


def walkmesh_edges(walkmeshes: Sequence[Walkmesh]) -> tuple[np.ndarray, np.ndarray]:
    """(6F, 3) the ends of every face's three edges, and (6F, 4) their colour (a darkened face colour)."""
    if not walkmeshes:
        return np.zeros((0, 3), np.float32), np.zeros((0, 4), np.float32)
    ends = np.concatenate([w.vertices[w.faces[:, [0, 1, 1, 2, 2, 0]]].reshape(-1, 3) for w in walkmeshes])
    colors = np.concatenate([np.repeat(face_colors(w.materials, EDGE_ALPHA), 6, axis=0) for w in walkmeshes])
    colors[:, :3] *= 0.5
    return ends.astype(np.float32), colors
