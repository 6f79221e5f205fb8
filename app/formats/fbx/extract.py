"""The ufbx-facing half of the FBX reader: open a file with ufbx, copy what Boneyard uses into numpy
(``FbxContents``) and free the scene.

The ufbx 0.0.5 bindings need care (docs/formats/fbx.md, "Safety"). Measured here: a wrapper object
(a node, a list, a material map) freed while its scene is still read leaves something stale behind,
and a later lookup crashes (``scene.nodes[i].name`` in a loop, or iterating a list without keeping
its items, segfaults within a few hundred steps; keeping every item alive does not). Freeing the
wrappers afterwards, the scene before or after them, crashes on some files too, as does the
interpreter's exit tearing a scene down. So every ufbx object the reader touches, the scene first,
goes into the caller's ``keep`` list and is never freed by the reader: the caller is a reader process
that ends with ``os._exit`` (app/formats/fbx/reader_process.py). Everything is copied into numpy once, and the
functions here return only numpy arrays and plain Python values. Lists with the buffer protocol
(Vec2/Vec3/Vec4/Real lists) are copied with one ``np.array``; integer lists and baked keys with one
memory copy each (raw_lists.py), else item by item.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import ufbx

from app.formats.fbx import raw_lists
from app.formats.fbx.contents import (
    CornerValues,
    FbxContents,
    MaterialData,
    MeshData,
    MorphChannel,
    NodeTable,
    SkinData,
    StackData,
)

#: Deepest node hierarchy read (ufbx refuses deeper ones with an error, rather than recursing).
NODE_DEPTH_LIMIT = 2048
#: Frame rate curves are sampled at when the file states none.
DEFAULT_RATE = 30.0
#: FBX's axis numbers (UpAxis, FrontAxis, CoordAxis) as letters.
AXIS_LETTERS = "XYZ"

LOAD_OPTIONS = dict(
    target_axes=ufbx.axes_right_handed_y_up,
    target_unit_meters=1.0,
    space_conversion=ufbx.SpaceConversion.MODIFY_GEOMETRY,
    inherit_mode_handling=ufbx.InheritModeHandling.COMPENSATE,
    load_external_files=False,
    ignore_missing_external_files=True,
    node_depth_limit=NODE_DEPTH_LIMIT,
    skip_skin_vertices=True,  # the skin is read from its clusters, not ufbx's per-vertex tables
    skip_mesh_parts=True,  # faces are split by material from face_material
)


class ExtractError(Exception):
    """ufbx refused the file, or it holds something the reader cannot copy; the message says what."""


class _Held:
    """Every ufbx object the reader has touched, kept alive in ``objects`` (module doc)."""

    def __init__(self, objects: list):
        self.objects = objects

    def __call__(self, item):
        self.objects.append(item)
        return item

    def each(self, items) -> list:
        """The items of a ufbx list, the list and each item held."""
        self.objects.append(items)
        found = list(items)
        self.objects.extend(found)
        return found


def read_contents(path: Path, keep: list, meshes_read=None) -> FbxContents:
    """The file's contents in numpy; ExtractError when ufbx cannot read it. Every ufbx object made on
    the way, the scene first, is appended to ``keep``, which must outlive them all (module doc).
    ``meshes_read``, when given, is called with the contents before the animation stacks are baked
    (their ``stacks`` still empty), so that they can be used meanwhile."""
    try:
        scene = ufbx.load_memory(path.read_bytes(), filename=str(path), **LOAD_OPTIONS)
    except ufbx.UfbxError as error:
        raise ExtractError(str(error) or type(error).__name__) from None
    keep.append(scene)
    try:
        return _contents(scene, _Held(keep), meshes_read)
    except (ufbx.UfbxError, ufbx.UseAfterFreeError, ufbx.BufferReferenceError, ValueError) as error:
        raise ExtractError(str(error) or type(error).__name__) from None


def _contents(scene, held: _Held, meshes_read) -> FbxContents:
    settings = held(scene.settings)
    props = held(settings.props)
    rate = float(settings.frames_per_second) or None
    warnings = _unread_content(scene, held)
    nodes, typed_to_index = _nodes(scene, held)
    meshes = _meshes(scene, held, typed_to_index, warnings)
    contents = FbxContents(nodes=nodes, meshes=meshes, stacks=[], unit_m=float(settings.unit_meters),
                           axes=_axes_words(props), rate=rate, warnings=warnings)
    if meshes_read is not None:
        meshes_read(contents)
    contents.stacks = _stacks(scene, held, typed_to_index, meshes, rate or DEFAULT_RATE)
    return contents


def _axes_words(props) -> str:
    """The file's axis system as its GlobalSettings state it, in words ('Y up, -Z front': the front
    named as Blender's importer names it, the opposite of FrontAxisSign); '' when not stated."""
    up, front = props.find_int("UpAxis", -1), props.find_int("FrontAxis", -1)
    if not (0 <= up <= 2 and 0 <= front <= 2):
        return ""
    up_sign = "" if props.find_int("UpAxisSign", 1) >= 0 else "-"
    front_sign = "-" if props.find_int("FrontAxisSign", 1) >= 0 else "+"
    return f"{up_sign}{AXIS_LETTERS[up]} up, {front_sign}{AXIS_LETTERS[front]} front"


def _unread_content(scene, held: _Held) -> list[str]:
    """Warnings for what the file holds that Boneyard does not show."""
    found = []
    for what, items in (("NURBS curve(s)", held(scene.nurbs_curves)),
                        ("NURBS surface(s)", held(scene.nurbs_surfaces)),
                        ("constraint(s)", held(scene.constraints)),
                        ("line curve(s)", held(scene.line_curves))):
        if len(items):
            found.append(f"{len(items)} {what} not read")
    return found


def _matrix(matrix) -> np.ndarray:
    """(4, 4) for column vectors from a ufbx Matrix (four column Vec3s)."""
    return _matrices([matrix])[0]


def _matrices(matrices: list) -> np.ndarray:
    """(N, 4, 4) for column vectors from N ufbx Matrices, converted at once."""
    result = np.zeros((len(matrices), 4, 4))
    if matrices:
        result[:, :3, :] = np.array(matrices, dtype=np.float64).transpose(0, 2, 1)
    result[:, 3, 3] = 1.0
    return result


def _uints(held: _Held, values) -> np.ndarray:
    """(N,) int64 from a ufbx Uint32List: one memory copy where raw_lists can, else item by item."""
    held(values)
    copied = raw_lists.uints(values, held.objects)
    return copied if copied is not None else np.fromiter(values, np.int64, len(values))


def _floats(held: _Held, values, width: int) -> np.ndarray:
    """(N, width) float64 from a ufbx list with the buffer protocol."""
    return np.array(held(values), dtype=np.float64).reshape(-1, width)


def _nodes(scene, held: _Held) -> tuple[NodeTable, dict[int, int]]:
    """The nodes below the root, and each one's index by ufbx typed id."""
    kept = [node for node in held.each(scene.nodes) if not node.is_root]
    typed_to_index = {node.typed_id: index for index, node in enumerate(kept)}
    parents = np.full(len(kept), -1, np.int64)
    for index, node in enumerate(kept):
        parent = held(node.parent)
        if parent is not None and not parent.is_root:
            parents[index] = typed_to_index[parent.typed_id]
    local = _matrices([node.node_to_parent for node in kept])
    world = _matrices([node.node_to_world for node in kept])
    kinds = [node.attrib_type.name.lower() for node in kept]
    names = [node.name for node in kept]
    return NodeTable(names=names, parents=parents, local=local, world=world, kinds=kinds), typed_to_index


def _meshes(scene, held: _Held, typed_to_index: dict[int, int], warnings: list[str]) -> list[MeshData]:
    result = []
    for mesh in held.each(scene.meshes):
        for node in held.each(mesh.instances):
            if node.typed_id in typed_to_index:
                result.append(_mesh(mesh, node, held, typed_to_index, warnings))
    return result


def _mesh(mesh, node, held: _Held, typed_to_index: dict[int, int], warnings: list[str]) -> MeshData:
    name = node.name or mesh.name or f"mesh{mesh.typed_id}"
    faces = np.array(held(mesh.faces), dtype=np.int64).reshape(-1, 2)
    corners = _uints(held, mesh.vertex_indices)
    points = _floats(held, mesh.vertices, 3)
    materials = [_material(material, held) for material in held.each(mesh.materials)]
    face_materials = _uints(held, mesh.face_material) if len(materials) > 1 \
        else np.zeros(len(faces), np.int64)
    skins = held.each(mesh.skin_deformers)
    if len(skins) > 1:
        warnings.append(f"mesh {name!r}: {len(skins)} skin deformers; only the first is read")
    skin = _skin(skins[0], held, typed_to_index) if skins else None
    return MeshData(name=name, node=typed_to_index[node.typed_id], points=points,
                    geometry_to_node=_matrix(node.geometry_to_node), corners=corners, faces=faces,
                    normals=_corner_values(held(mesh.vertex_normal), held, 3),
                    uvs=_corner_values(held(mesh.vertex_uv), held, 2),
                    colors=_corner_values(held(mesh.vertex_color), held, 4), face_materials=face_materials,
                    materials=materials, skin=skin, morphs=_morphs(mesh, held, len(points)),
                    visible=bool(node.visible))


def _corner_values(attribute, held: _Held, width: int) -> CornerValues | None:
    """The attribute's values and per-corner indices, or None when the mesh has none."""
    if not attribute.exists:
        return None
    values = _floats(held, attribute.values, width)
    indices = _uints(held, attribute.indices)
    if len(values) == 0 or (len(indices) and indices.max() >= len(values)):
        return None
    return CornerValues(values=values, indices=indices)


def _material(material, held: _Held) -> MaterialData:
    """The diffuse colour times its factor, and the opacity the FBX SDK gives: 1 − TransparencyFactor
    × the mean of TransparentColor (Mixamo writes a factor of 1 with a black colour: opaque)."""
    maps = held(material.fbx)
    diffuse, factor = held(maps.diffuse_color), held(maps.diffuse_factor)
    clear, clear_factor = held(maps.transparency_color), held(maps.transparency_factor)
    color = np.array(diffuse.value_vec4 if diffuse.has_value else (0.8, 0.8, 0.8, 1.0), dtype=np.float64)
    if factor.has_value:
        color[:3] *= factor.value_vec4[0]
    if clear.has_value and clear_factor.has_value:
        color[3] = 1.0 - clear_factor.value_vec4[0] * float(np.mean(clear.value_vec4[:3]))
    else:
        color[3] = 1.0
    color = np.clip(np.nan_to_num(color, nan=1.0), 0.0, 1.0)
    texture = held(diffuse.texture)
    name, image = "", b""
    if texture is not None:
        name = (texture.relative_filename or texture.filename).replace("\\", "/")
        image = bytes(texture.content)
    return MaterialData(name=material.name, color=tuple(float(c) for c in color), texture=name,
                        image_bytes=image)


def _skin(skin, held: _Held, typed_to_index: dict[int, int]) -> SkinData:
    bones, to_bone, bind, vertices, owners, weights = [], [], [], [], [], []
    for cluster in held.each(skin.clusters):
        bone = held(cluster.bone_node)
        if bone is None or bone.typed_id not in typed_to_index:
            continue
        bones.append(typed_to_index[bone.typed_id])
        to_bone.append(cluster.geometry_to_bone)
        bind.append(cluster.bind_to_world)
        cluster_vertices = _uints(held, cluster.vertices)
        cluster_weights = _floats(held, cluster.weights, 1)[:, 0]
        count = min(len(cluster_vertices), len(cluster_weights))
        vertices.append(cluster_vertices[:count])
        weights.append(cluster_weights[:count])
        owners.append(np.full(count, len(bones) - 1, np.int64))
    return SkinData(bones=np.array(bones, np.int64), geometry_to_bone=_matrices(to_bone),
                    bind_world=_matrices(bind),
                    vertices=np.concatenate(vertices) if vertices else np.zeros(0, np.int64),
                    clusters=np.concatenate(owners) if owners else np.zeros(0, np.int64),
                    weights=np.concatenate(weights) if weights else np.zeros(0))


def _morphs(mesh, held: _Held, point_count: int) -> list[MorphChannel]:
    """Every blend channel's full-weight shape as dense offsets per control point."""
    result = []
    for deformer in held.each(mesh.blend_deformers):
        for channel in held.each(deformer.channels):
            shape = held(channel.target_shape)
            offsets = np.zeros((point_count, 3))
            if shape is not None:
                where = _uints(held, shape.offset_vertices)
                moved = _floats(held, shape.position_offsets, 3)
                count = min(len(where), len(moved))
                inside = where[:count] < point_count
                offsets[where[:count][inside]] = moved[:count][inside]
            result.append(MorphChannel(name=channel.name, weight=float(channel.weight), offsets=offsets))
    return result


def _stacks(scene, held: _Held, typed_to_index: dict[int, int], meshes: list[MeshData],
            rate: float) -> list[StackData]:
    channel_owners = _blend_channel_owners(scene, held, typed_to_index, meshes)
    result = []
    for stack in held.each(scene.anim_stacks):
        baked = held(ufbx.bake_anim(scene, held(stack.anim), resample_rate=rate, trim_start_time=True))
        result.append(StackData(name=stack.name, duration=max(float(baked.playback_duration), 0.0),
                                tracks=_baked_tracks(baked, held, typed_to_index),
                                morph_weights=_baked_weights(baked, held, channel_owners)))
    return result


def _baked_tracks(baked, held: _Held, typed_to_index: dict[int, int]) -> dict[int, dict]:
    tracks = {}
    for baked_node in held.each(baked.nodes):
        node = typed_to_index.get(baked_node.typed_id)
        if node is None:
            continue
        channels = {}
        for channel, keys, width, constant in (
                ("translation", baked_node.translation_keys, 3, baked_node.constant_translation),
                ("rotation", baked_node.rotation_keys, 4, baked_node.constant_rotation),
                ("scale", baked_node.scale_keys, 3, baked_node.constant_scale)):
            if len(keys) and not constant:
                channels[channel] = _keys(held, keys, width)
        if channels:
            tracks[node] = channels
    return tracks


def _keys(held: _Held, keys, width: int) -> tuple[np.ndarray, np.ndarray]:
    """(K,) times and (K, width) values of a baked key list: one memory copy where raw_lists can,
    else key by key."""
    held(keys)
    copied = raw_lists.baked_keys(keys, width, held.objects)
    if copied is not None:
        return copied
    rows = np.array([(key.time, *key.value) for key in held.each(keys)], dtype=np.float64)
    rows = rows.reshape(-1, 1 + width)
    return rows[:, 0], rows[:, 1:]


def _blend_channel_owners(scene, held: _Held, typed_to_index: dict[int, int],
                          meshes: list[MeshData]) -> dict[int, list[tuple[int, int]]]:
    """Each blend channel's element id → the (mesh index, channel index) pairs it drives."""
    owners: dict[int, list[tuple[int, int]]] = {}
    mesh_at_node = {mesh.node: index for index, mesh in enumerate(meshes)}
    for mesh in held.each(scene.meshes):
        indices = [mesh_at_node[typed_to_index[node.typed_id]] for node in held.each(mesh.instances)
                   if typed_to_index.get(node.typed_id) in mesh_at_node]
        position = 0
        for deformer in held.each(mesh.blend_deformers):
            for channel in held.each(deformer.channels):
                owners.setdefault(channel.element_id, []).extend((index, position) for index in indices)
                position += 1
    return owners


def _baked_weights(baked, held: _Held, channel_owners: dict[int, list[tuple[int, int]]]) -> dict:
    weights = {}
    for element in held.each(baked.elements):
        owners = channel_owners.get(element.element_id)
        if not owners:
            continue
        for prop in held.each(element.props):
            if prop.name != "DeformPercent" or prop.constant_value:
                continue
            times, values = _keys(held, prop.keys, 3)
            for owner in owners:
                weights[owner] = (times, values[:, 0] / 100.0)
    return weights
