"""Walkmeshes: the triangles a game walks on, each face with a surface material (Neverwinter Nights
tiles' AABB nodes, placeables' ``.pwk``, doors' ``.dwk``, tiles' ``.wok``; docs/formats/walkmesh.md).

A walkmesh is data beside the model's meshes, never drawn as one: the window and ``render --walkmesh``
lay it over the model, coloured by material. Vertices are in model space at rest, like a Mesh's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: surfacemat.2da's rows as the game ships them: (label, walkable). A face's material is a row index;
#: the Walk column says whether creatures may stand on it (docs/formats/walkmesh.md gives the evidence).
SURFACE_MATERIALS = (
    ("NotDefined", False), ("Dirt", True), ("Obscuring", False), ("Grass", True), ("Stone", True),
    ("Wood", True), ("Water", True), ("Nonwalk", False), ("Transparent", False), ("Carpet", True),
    ("Metal", True), ("Puddles", True), ("Swamp", True), ("Mud", True), ("Leaves", True),
    ("Lava", False), ("BottomlessPit", True), ("DeepWater", False), ("Door", True), ("Snow", True),
    ("Sand", True), ("BareBones", True), ("StoneBridge", True),
)

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
assert len(MATERIAL_COLORS) == len(SURFACE_MATERIALS)


def material_name(material: int) -> str:
    """surfacemat.2da's label of ``material``, or ``material N`` for a row the table lacks."""
    known = 0 <= material < len(SURFACE_MATERIALS)
    return SURFACE_MATERIALS[material][0] if known else f"material {material}"


def material_color(material: int) -> tuple[float, float, float]:
    """The display colour of ``material`` (View › Walkmesh, the legend, the glTF export)."""
    return MATERIAL_COLORS[material] if 0 <= material < len(MATERIAL_COLORS) else UNKNOWN_COLOR


def material_colors(materials: np.ndarray) -> np.ndarray:
    """(F, 3) float32 the display colour of each of ``materials`` (F,)."""
    table = np.array([*MATERIAL_COLORS, UNKNOWN_COLOR], np.float32)
    known = (materials >= 0) & (materials < len(MATERIAL_COLORS))
    return table[np.where(known, materials, len(MATERIAL_COLORS))]


def walkable(material: int) -> bool:
    """Whether creatures walk on ``material`` (a row the table lacks is taken as not walkable)."""
    return 0 <= material < len(SURFACE_MATERIALS) and SURFACE_MATERIALS[material][1]


@dataclass(frozen=True)
class Walkmesh:
    """One walkmesh. ``name``: its node's name; ``source``: the file it was read from (a path, or
    ``ARCHIVE:RESREF.TYPE``); ``kind``: 'aabb' (a node of the model itself), 'wok', 'pwk' or 'dwk'.
    ``vertices`` (V, 3) float32 in model space at rest, ``faces`` (F, 3) int32 vertex indices,
    ``materials`` (F,) int32 surface material ids (surfacemat.2da rows). Arrays are read-only."""

    name: str
    source: str
    kind: str
    vertices: np.ndarray
    faces: np.ndarray
    materials: np.ndarray

    def __post_init__(self):
        vertices = np.asarray(self.vertices, np.float32).reshape(-1, 3)
        faces = np.asarray(self.faces, np.int32).reshape(-1, 3)
        materials = np.asarray(self.materials, np.int32).reshape(-1)
        if len(materials) != len(faces):
            raise ValueError(f"walkmesh {self.name!r}: {len(materials)} materials for {len(faces)} faces")
        if faces.size and (faces.min() < 0 or faces.max() >= len(vertices)):
            raise ValueError(f"walkmesh {self.name!r}: a face uses a vertex outside 0..{len(vertices) - 1}")
        for array in (vertices, faces, materials):
            array.flags.writeable = False
        object.__setattr__(self, "vertices", vertices)
        object.__setattr__(self, "faces", faces)
        object.__setattr__(self, "materials", materials)

    def faces_per_material(self) -> dict[int, int]:
        """Material id → how many faces have it, ids in increasing order."""
        ids, counts = np.unique(self.materials, return_counts=True)
        return {int(material): int(count) for material, count in zip(ids, counts)}
