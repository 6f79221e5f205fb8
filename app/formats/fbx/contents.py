"""What an FBX file holds, copied out of ufbx into plain numpy arrays (app/formats/fbx/extract.py
fills it; app/formats/fbx/build.py makes the Model from it). No ufbx object lives here, so a scene
can be freed as soon as this is filled, and the whole can be pickled from the reader process.

Every length is in metres and every matrix is 4×4 for column vectors, Y up, +Z front: ufbx has
applied the file's unit scale and axis system (docs/formats/fbx.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class NodeTable:
    """The scene's nodes, ufbx's root node left out, in the file's order.

    names: (N,) str; parents: (N,) int, −1 under the root; local: (N, 4, 4) each node's rest
    transform relative to its parent (pre/post rotation, pivots, rotation order, inherit type
    resolved); world: (N, 4, 4) at rest; kinds: (N,) the node's attribute ('mesh', 'bone',
    'empty', 'camera', 'light', … or 'none')."""

    names: list[str]
    parents: np.ndarray
    local: np.ndarray
    world: np.ndarray
    kinds: list[str]


@dataclass
class MaterialData:
    """A material's diffuse colour (linear RGBA) and texture: the file name it gives and, when the
    file embeds the image, its bytes."""

    name: str
    color: tuple[float, float, float, float]
    texture: str = ""
    image_bytes: bytes = b""


@dataclass
class CornerValues:
    """A per-corner attribute as the file indexes it: values (N, width) and each face corner's
    row (I,) (distinct rows tell vertices apart without comparing floats)."""

    values: np.ndarray
    indices: np.ndarray

    def per_corner(self, corners: np.ndarray) -> np.ndarray:
        """(len(corners), width) the values at the given corners."""
        return self.values[self.indices[corners]]


@dataclass
class SkinData:
    """One skin deformer. bones: (C,) node index per cluster; geometry_to_bone: (C, 4, 4) each
    cluster's inverse bind matrix for this mesh's geometry; bind_world: (C, 4, 4) each bone's world
    frame when the skin was bound; vertices, clusters, weights: (W,) one entry per influence
    (control point, cluster, weight)."""

    bones: np.ndarray
    geometry_to_bone: np.ndarray
    bind_world: np.ndarray
    vertices: np.ndarray
    clusters: np.ndarray
    weights: np.ndarray


@dataclass
class MorphChannel:
    """A blend shape channel: its name, weight at rest (0..1) and full-weight offsets (P, 3) per
    control point (in-between shapes are not read)."""

    name: str
    weight: float
    offsets: np.ndarray


@dataclass
class MeshData:
    """One mesh instance (a mesh used by several nodes is listed once per node).

    node: the instancing node's index; points: (P, 3) control points in geometry space;
    geometry_to_node: (4, 4); corners: (I,) the control point of each face corner; faces: (F, 2)
    each face's first corner and corner count; normals (3 wide), uvs (2), colors (4): per corner, or
    None; face_materials: (F,) index into ``materials``."""

    name: str
    node: int
    points: np.ndarray
    geometry_to_node: np.ndarray
    corners: np.ndarray
    faces: np.ndarray
    normals: CornerValues | None
    uvs: CornerValues | None
    colors: CornerValues | None
    face_materials: np.ndarray
    materials: list[MaterialData]
    skin: SkinData | None
    morphs: list[MorphChannel] = field(default_factory=list)
    visible: bool = True


@dataclass
class StackData:
    """One animation stack. tracks: node index → (times, values) per channel of 'translation' (K, 3),
    'rotation' (K, 4) quaternions (x, y, z, w) and 'scale' (K, 3), the times in seconds from the
    stack's start; morph_weights: (mesh index, channel index) → (times, (K,) weights 0..1)."""

    name: str
    duration: float
    tracks: dict[int, dict[str, tuple[np.ndarray, np.ndarray]]]
    morph_weights: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)


@dataclass
class FbxContents:
    """Everything read from one file. unit_m: the file's own unit in metres; axes: the file's axis
    system in words ('Y up, -Z front'); rate: frames per second the file states (None: not stated)."""

    nodes: NodeTable
    meshes: list[MeshData]
    stacks: list[StackData]
    unit_m: float
    axes: str
    rate: float | None
    warnings: list[str] = field(default_factory=list)
