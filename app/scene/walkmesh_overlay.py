"""The walkmeshes as drawn (View › Walkmesh, ``render --walkmesh``): translucent triangles coloured by
surface material, their edges, and the legend naming each colour. Colours are display (sRGB) values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from app.derived import derived
from app.model import Model
from app.walkmeshes import (Walkmesh, material_color, material_colors, material_name, walkable)

#: Opacity of the walkmesh's faces and of its edges.
FACE_ALPHA = 0.55
EDGE_ALPHA = 0.35


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
    return np.column_stack([material_colors(materials), np.full(len(materials), alpha, np.float32)])


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
