"""An FBX file's contents (contents.py, copied out of ufbx) made into a Model.

- Nodes become bones, in file order, except a node that only carries skinned meshes (a mesh
  attribute, no children, no skin cluster on it, no animation: Mixamo's ``Beta_Surface``) and leaf
  cameras and lights, which become Helpers. A bone's ``rest_local`` is its node's transform as ufbx
  resolves it; its ``bind_world`` is the bind frame its first skin cluster gives, else its rest world
  matrix. Tails are derived at rest, as for glTF (``DeriveTailsAtRest``).
- Every mesh instance becomes one Mesh per material it uses. Polygons are triangulated as fans (FBX
  polygons are convex in practice: quads and the odd n-gon); lines and points are left out. A vertex
  is a distinct (control point, normal, UV, colour) of the face corners, ordered by control point.
  A skinned mesh keeps its geometry and carries its skin (``Mesh.skin``: each cluster's
  geometry-to-bone matrix), so it is posed exactly as the file binds it; a vertex keeps its four
  strongest influences (with a warning). A mesh without a skin is placed in model space by its node's
  bind frame and moves rigidly with it. UVs are flipped to the top-left origin; vertex colours are
  read as sRGB. Blend shapes become the mesh's morph targets (``Mesh.morphs``: each channel's
  full-weight offsets, its default weight the channel's rest DeformPercent / 100, already applied to
  the stored positions).
- Each animation stack with keys becomes a keyed clip (its name, starting at 0): ufbx bakes each
  animated node's local translation, rotation and scale, keeping linear keys and sampling curves at
  the file's frame rate. A stack's blend shape weights become the clip's weight channels, one per
  mesh, linear over the union of its channels' key times (exact: ufbx's baked keys are linear).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app import maths
from app.formats.fbx.contents import CornerValues, FbxContents, MaterialData, MeshData, StackData
from app.formats.textures import decode_embedded
from app.bone_names import numbered_duplicates
from app.model import Clip, Helper, Material, Mesh, MeshSkin, Model, Skeleton, Track, usable_frames
from app.morph_targets import MorphTargets, WeightChannel
from app.posing_steps import DeriveTailsAtRest
from app.skin_weights import GPU_INFLUENCES, top_influences

#: Node attributes read as helpers when the node is a leaf nothing else needs.
HELPER_KINDS = ("camera", "light")


@dataclass
class MeshLayout:
    """How one mesh instance's faces become vertices, from its geometry alone (so it can be worked
    out while ufbx still bakes the animation): per material used, (its index, (V,) each vertex's
    first face corner, (T, 3) each triangle's vertices); and the line or point faces left out."""

    parts: list[tuple[int, np.ndarray, np.ndarray]]
    dropped_faces: int


def mesh_layouts(contents: FbxContents) -> list[MeshLayout]:
    """The layout of every mesh instance of ``contents`` (its stacks are not needed)."""
    return [_layout(data) for data in contents.meshes]


def build_model(path: Path, contents: FbxContents, layouts: list[MeshLayout] | None = None) -> Model:
    """The Model of ``contents``; ``layouts``: mesh_layouts(contents), when already worked out."""
    layouts = layouts if layouts is not None else mesh_layouts(contents)
    nodes = contents.nodes
    keep = _bone_nodes(contents)
    helper_nodes = [node for node in np.flatnonzero(~keep) if nodes.kinds[node] in HELPER_KINDS]
    bone_nodes = np.flatnonzero(keep)
    node_bones = np.full(len(keep), -1, np.int64)
    node_bones[bone_nodes] = np.arange(len(bone_nodes))
    kept_parents = nodes.parents[bone_nodes]
    parents = np.where(kept_parents >= 0, node_bones[np.maximum(kept_parents, 0)], -1)
    warnings = list(contents.warnings)
    node_bind = _bind_frames(contents)
    names = numbered_duplicates([nodes.names[node] for node in bone_nodes])
    bind, bad = usable_frames(node_bind[bone_nodes])
    if bad:
        warnings.append(f"{len(bad)} bone(s) ({names[bad[0]]!r}…) have a singular bind frame (zero scale); "
                        "their bind frames drop rotation and scale")
    meshes, mesh_sources = [], []
    for source, (data, layout) in enumerate(zip(contents.meshes, layouts)):
        built = _meshes(data, layout, node_bind, node_bones, warnings)
        mesh_sources.extend([source] * len(built))
        meshes.extend(built)
    skeleton = Skeleton(names=names, parents=parents, bind_world=bind, heads=bind[:, :3, 3],
                        tails=bind[:, :3, 3], derived_tails=np.ones(len(names), bool),
                        rest_local=nodes.local[bone_nodes],
                        extras=[{"fbx node type": nodes.kinds[node]} for node in bone_nodes])
    helpers = [Helper(name=nodes.names[node], parent=int(node_bones[nodes.parents[node]])
                      if nodes.parents[node] >= 0 else -1, offset=nodes.local[node]) for node in helper_nodes]
    clips, pending = [], [DeriveTailsAtRest(path=path)]
    for stack in contents.stacks:
        clip = _clip(stack, node_bones, contents.rate, _weight_channels(stack, contents, mesh_sources))
        if clip is None:
            warnings.append(f"animation stack {stack.name!r} moves nothing; left out")
            continue
        clips.append(clip)
    return Model(name=path.stem, skeleton=skeleton, meshes=meshes, clips=clips, helpers=helpers, format="fbx",
                 files=[str(path)], up_axis="Y", forward="+Z", warnings=warnings, pending=pending,
                 file_unit_m=contents.unit_m, file_axes=contents.axes)


def _bone_nodes(contents: FbxContents) -> np.ndarray:
    """(N,) bool: the nodes that become bones (module docstring)."""
    nodes = contents.nodes
    count = len(nodes.names)
    has_children = np.zeros(count, bool)
    has_children[nodes.parents[nodes.parents >= 0]] = True
    needed = np.zeros(count, bool)
    rigid_mesh = np.zeros(count, bool)
    for mesh in contents.meshes:
        if mesh.skin is not None:
            needed[mesh.skin.bones] = True
        else:
            rigid_mesh[mesh.node] = True
    for stack in contents.stacks:
        needed[list(stack.tracks)] = True
    kinds = np.array(nodes.kinds, dtype=object)
    skinned_only = (kinds == "mesh") & ~rigid_mesh
    leaf_helper = np.isin(kinds, HELPER_KINDS)
    return ~((skinned_only | leaf_helper) & ~has_children & ~needed)


def _bind_frames(contents: FbxContents) -> np.ndarray:
    """(N, 4, 4) each node's bind frame: the first skin cluster's that binds it (when invertible),
    else its rest world matrix."""
    bind = contents.nodes.world.copy()
    for mesh in reversed(contents.meshes):
        if mesh.skin is None:
            continue
        frames = mesh.skin.bind_world
        usable = maths.invertible(frames) & np.all(np.abs(frames) < 1e18, axis=(1, 2))
        bind[mesh.skin.bones[usable]] = frames[usable]
    return bind


def _triangles(faces: np.ndarray) -> np.ndarray:
    """(T, 3) corner indices: each face of 3 or more corners as a fan from its first corner."""
    polygons = faces[faces[:, 1] >= 3]
    fans = polygons[:, 1] - 2
    starts = np.repeat(polygons[:, 0], fans)
    steps = np.arange(fans.sum()) - np.repeat(np.cumsum(fans) - fans, fans)
    return np.stack([starts, starts + steps + 1, starts + steps + 2], axis=1)


def _face_of_triangles(faces: np.ndarray) -> np.ndarray:
    polygons = np.flatnonzero(faces[:, 1] >= 3)
    return np.repeat(polygons, faces[polygons, 1] - 2)


def _corner_vertices(data: MeshData, ranks: list[np.ndarray],
                     corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (control point, normal, UV, colour) among ``corners`` (``ranks``: _corner_ranks
    of each attribute present): (V,) the first corner of each vertex, ordered by control point, then
    by its attribute values' bytes, and (len(corners),) each corner's vertex. Only the corners at
    points whose corners disagree are sorted; a point's place among its values and the point number
    the vertices without a sort."""
    points = data.corners[corners].astype(np.int64)
    values = np.zeros(len(corners), np.int64)  # the corner's attribute ranks as one number
    for attribute, corner_ranks in zip(_attributes(data), ranks):
        width = len(attribute.values)
        if values.max(initial=0) >= np.iinfo(np.int64).max // max(width, 1):
            values = np.unique(values, return_inverse=True)[1].reshape(-1)  # renumbered, order kept
        values = values * width + corner_ranks[corners]
    split = np.zeros(int(points.max(initial=-1)) + 1, bool)
    split[points[values != 0]] = True  # a point whose corners all read 0 agree
    places = _places_at_points(points, values, np.flatnonzero(split[points]))
    width = int(places.max(initial=0)) + 1
    if len(split) * width > 8 * len(corners) + 1024:  # a point with very many values: sort them all
        _, first, vertex_of_corner = np.unique(points * width + places, return_index=True,
                                               return_inverse=True)
        return corners[first], vertex_of_corner.reshape(-1)
    keys = points * width + places
    present = np.zeros(len(split) * width, bool)
    present[keys] = True
    vertex_of_corner = (np.cumsum(present) - 1)[keys]
    first = np.full(int(present.sum()), len(corners))
    np.minimum.at(first, vertex_of_corner, np.arange(len(corners)))
    return corners[first], vertex_of_corner


def _places_at_points(points: np.ndarray, values: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """(C,) for the ``chosen`` corners, the place of their value among the distinct values met at
    their point (0 for the lowest), by one sort of those corners; 0 for the others."""
    places = np.zeros(len(points), np.int64)
    if len(chosen) == 0:
        return places
    order = chosen[np.lexsort((values[chosen], points[chosen]))]
    ordered_points, ordered_values = points[order], values[order]
    point_starts = np.ones(len(order), bool)
    point_starts[1:] = ordered_points[1:] != ordered_points[:-1]
    value_starts = point_starts.copy()
    value_starts[1:] |= ordered_values[1:] != ordered_values[:-1]
    distinct = np.cumsum(value_starts) - 1
    places[order] = distinct - distinct[point_starts][np.cumsum(point_starts) - 1]
    return places


def _attributes(data: MeshData) -> list[CornerValues]:
    """The mesh's per-corner attributes that are present: normals, UVs, colours."""
    return [attribute for attribute in (data.normals, data.uvs, data.colors) if attribute is not None]


def _corner_ranks(data: MeshData, attribute: CornerValues) -> np.ndarray:
    """(I,) for each face corner, a rank of its attribute value that orders the distinct values met
    at one control point as their bytes compare (values compared as bytes: files often index every
    corner's normal on its own). Only control points whose corners disagree need ranks (seams, hard
    edges); the others get 0, which orders them the same, so only those values are sorted."""
    rows = attribute.indices
    points = data.corners
    first_row = np.zeros(int(points.max(initial=-1)) + 1, np.int64)
    first_row[points[::-1]] = rows[::-1]  # the row of each point's first corner (any would do)
    firsts = first_row[points]
    agrees = np.ones(len(rows), bool)
    for column in _word_columns(attribute.values):
        agrees &= column[rows] == column[firsts]
    split = np.zeros(len(first_row), bool)
    split[points[~agrees]] = True
    at_split = split[points]
    ranks = np.zeros(len(rows), np.int64)
    if at_split.any():
        used = np.zeros(len(attribute.values), bool)
        used[rows[at_split]] = True
        row_ranks = np.zeros(len(attribute.values), np.int64)
        row_ranks[used] = _distinct_rows(attribute.values[used])
        ranks[at_split] = row_ranks[rows[at_split]]
    return ranks


def _distinct_rows(values: np.ndarray) -> np.ndarray:
    """(N,) each row's rank among the distinct rows of ``values`` (N, width) float64, rows compared
    as their bytes in memory order (as numpy compares void records, so the vertex order is the one
    a unique over byte records gives): each 8-byte word byte-swapped is an unsigned integer that
    compares as its bytes do, and one stable sort per column orders the rows."""
    if len(values) == 0:
        return np.zeros(0, np.int64)
    columns = [column.byteswap() for column in _word_columns(values)]
    order = np.lexsort(columns[::-1])
    starts = np.zeros(len(order), bool)
    starts[0] = True
    for column in columns:
        ordered = column[order]
        starts[1:] |= ordered[1:] != ordered[:-1]
    ranks = np.empty(len(order), np.int64)
    ranks[order] = np.cumsum(starts) - 1
    return ranks


def _word_columns(values: np.ndarray) -> np.ndarray:
    """(width, N) the 8-byte words of each column of ``values`` (N, width) float64 as unsigned
    integers, each column contiguous (gathers along one column are fast; along rows they are not)."""
    return np.ascontiguousarray(np.ascontiguousarray(values, dtype=np.float64).view(np.uint64).T)


def _layout(data: MeshData) -> MeshLayout:
    triangles = _triangles(data.faces)
    face_of = _face_of_triangles(data.faces)
    materials = np.clip(data.face_materials[face_of], 0, max(len(data.materials) - 1, 0))
    used = np.unique(materials) if len(triangles) else np.zeros(0, np.int64)
    ranks = [_corner_ranks(data, attribute) for attribute in _attributes(data)]
    parts = []
    for material_index in used:
        representative, vertex_of_corner = _corner_vertices(data, ranks,
                                                            triangles[materials == material_index].ravel())
        parts.append((int(material_index), representative, vertex_of_corner.reshape(-1, 3)))
    return MeshLayout(parts=parts, dropped_faces=int((data.faces[:, 1] < 3).sum()) if len(data.faces) else 0)


def _meshes(data: MeshData, layout: MeshLayout, node_bind: np.ndarray, node_bones: np.ndarray,
            warnings: list[str]) -> list[Mesh]:
    """The Meshes of one instance, one per material used, each with the instance's blend shapes as
    morph targets (offsets in the mesh's own space)."""
    if layout.dropped_faces:
        warnings.append(f"mesh {data.name!r}: {layout.dropped_faces} line or point face(s) left out")
    skin, point_joints, point_weights = _skin(data, node_bones, warnings)
    placement = node_bind[data.node] @ data.geometry_to_node
    rest_weights = np.array([channel.weight for channel in data.morphs])
    built = []
    for material_index, representative, mesh_triangles in layout.parts:
        points = data.corners[representative]
        positions = data.points[points]
        normals = data.normals.per_corner(representative) if data.normals is not None else None
        offsets = np.stack([channel.offsets[points] for channel in data.morphs]) if data.morphs else None
        if offsets is not None:
            positions = positions + np.einsum("m,mvi->vi", rest_weights, offsets)
        if skin is None:
            joints = np.full((len(points), 1), node_bones[data.node])
            weights = np.ones((len(points), 1))
            positions = positions @ placement[:3, :3].T + placement[:3, 3]
            normals = _placed_normals(placement, normals)
            offsets = offsets @ placement[:3, :3].T if offsets is not None else None
            if np.linalg.det(placement[:3, :3]) < 0:
                mesh_triangles = mesh_triangles[:, ::-1]
        else:
            joints, weights = point_joints[points], point_weights[points]
        name = data.name if len(layout.parts) == 1 else f"{data.name}.{material_index}"
        material = _material(data.materials[material_index], name, warnings) if data.materials else Material()
        built.append(Mesh(name=name, positions=positions, joints=joints, weights=weights, normals=normals,
                          uvs=_flipped(data.uvs.per_corner(representative)) if data.uvs is not None
                          else None,
                          triangles=mesh_triangles, material=material, visible=data.visible, skin=skin,
                          colors=_linear_colors(data.colors.per_corner(representative))
                          if data.colors is not None else None,
                          morphs=MorphTargets(positions=offsets, defaults=rest_weights,
                                              names=[channel.name for channel in data.morphs])
                          if offsets is not None else None))
    return built


def _flipped(uvs: np.ndarray) -> np.ndarray:
    """FBX's UV origin is the image's bottom-left corner; Boneyard's its top-left."""
    return np.stack([uvs[:, 0], 1.0 - uvs[:, 1]], axis=1)


def _linear_colors(colors: np.ndarray) -> np.ndarray:
    colors = np.clip(np.nan_to_num(colors), 0.0, 1.0)
    return np.concatenate([maths.srgb_to_linear_array(colors[:, :3]), colors[:, 3:]], axis=1)


def _placed_normals(placement: np.ndarray, normals: np.ndarray | None) -> np.ndarray | None:
    if normals is None:
        return None
    linear = placement[:3, :3]
    inverse_transpose = np.linalg.inv(linear).T if abs(np.linalg.det(linear)) > 1e-20 else np.eye(3)
    unit, valid = maths.normalize(normals @ inverse_transpose.T)
    unit[~valid] = (0.0, 0.0, 1.0)
    return unit


def _skin(data: MeshData, node_bones: np.ndarray,
          warnings: list[str]) -> tuple[MeshSkin | None, np.ndarray | None, np.ndarray | None]:
    """The mesh's MeshSkin (its clusters' bones, each once, and their geometry-to-bone matrices) and
    per control point (P, K) bone indices and weights, at most ``GPU_INFLUENCES`` each."""
    skin = data.skin
    if skin is None:
        return None, None, None
    bones, first = np.unique(node_bones[skin.bones], return_index=True)
    mesh_skin = MeshSkin(joints=bones, inverse_bind=skin.geometry_to_bone[first])
    point_count = len(data.points)
    inside = (skin.vertices >= 0) & (skin.vertices < point_count) & np.isfinite(skin.weights)
    vertices, owners, weights = skin.vertices[inside], skin.clusters[inside], skin.weights[inside]
    order = np.argsort(vertices, kind="stable")
    vertices, owners, weights = vertices[order], owners[order], weights[order]
    counts = np.bincount(vertices, minlength=point_count)
    lanes = max(int(counts.max()) if len(counts) else 0, 1)
    slot = np.arange(len(vertices)) - np.repeat(np.cumsum(counts) - counts, counts)
    joints = np.zeros((point_count, lanes), np.int64)
    dense = np.zeros((point_count, lanes))
    joints[vertices, slot] = node_bones[skin.bones[owners]]
    dense[vertices, slot] = weights
    if lanes > GPU_INFLUENCES:
        lost = int((counts > GPU_INFLUENCES).sum())
        warnings.append(f"mesh {data.name!r}: {lost} vertices have more than {GPU_INFLUENCES} influences; "
                        f"the strongest {GPU_INFLUENCES} are kept")
    joints, dense = top_influences(joints, dense)
    return mesh_skin, joints, dense


def _material(data: MaterialData, mesh_name: str, warnings: list[str]) -> Material:
    image = decode_embedded(data.image_bytes, f"mesh {mesh_name!r}", warnings) if data.image_bytes else None
    return Material(name=data.name, base_color=data.color, texture=data.texture, image=image,
                    alpha_mode="BLEND" if data.color[3] < 1.0 else "OPAQUE")


def _clip(stack: StackData, node_bones: np.ndarray, rate: float | None,
          weight_channels: list[WeightChannel]) -> Clip | None:
    tracks = [Track(bone=int(node_bones[node]), **channels) for node, channels in stack.tracks.items()
              if node_bones[node] >= 0]
    if not tracks and not weight_channels:
        return None
    return Clip(name=stack.name, kind="keyed", tracks=tracks, rate=rate, weight_channels=weight_channels)


def _weight_channels(stack: StackData, contents: FbxContents, mesh_sources: list[int]) -> list[WeightChannel]:
    """One channel per Mesh whose blend shapes ``stack`` keys (``mesh_sources``: each Mesh's MeshData
    index): linear keys at the union of its keyed channels' times, the others held at rest."""
    result = []
    for mesh_index, source in enumerate(mesh_sources):
        morphs = contents.meshes[source].morphs
        keyed = {channel: stack.morph_weights[source, channel] for channel in range(len(morphs))
                 if (source, channel) in stack.morph_weights}
        if not keyed:
            continue
        times = np.unique(np.concatenate([times for times, _ in keyed.values()]))
        values = np.tile([channel.weight for channel in morphs], (len(times), 1))
        for channel, (key_times, weights) in keyed.items():
            values[:, channel] = np.interp(times, key_times, weights)
        result.append(WeightChannel(mesh=mesh_index, times=times, values=values))
    return result
