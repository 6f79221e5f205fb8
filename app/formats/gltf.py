"""glTF 2.0 reader (``.glb`` and ``.gltf`` with embedded, data-URI or sidecar ``.bin`` buffers).

Interpretation (docs/formats/README.md conventions):

- Nodes become bones, in node order; parents come from the ``children`` lists. A bone's
  ``rest_local`` is its node's TRS or matrix, as it is. Its ``bind_world`` is the inverse of its
  inverse bind matrix in the first skin that lists it (where invertible), else its rest world matrix.
  The one kind of node left out is a node that only carries a skinned mesh: it has a mesh, no
  children, is no joint of any skin (nor a skin's ``skeleton`` root), no camera, no TRS animation
  channel targets it (morph "weights" channels may), and every primitive read from its mesh is
  skinned (``node.skin`` set and ``JOINTS_0`` present), so no vertex is bound to it rigidly. A skinned
  mesh ignores its node's transform, so such a node moves nothing. Every other node is kept, empty
  leaf nodes included (they mark helper points); the kept bones are renumbered in node order.
- Each primitive of mode TRIANGLES (or POINTS) is one Mesh. A skinned primitive keeps its vertices,
  normals and morph targets as they are, with ``Mesh.skin`` holding its skin's joints (as bone
  indices) and inverse bind matrices (identity when absent), so every pose is the spec's
  ``Σ w · W(joint) @ IBM(joint) @ p`` exactly, whatever the skin's bind pose and however many skins
  the file has. A mesh without a skin is bound rigidly (weight 1) to its node, its vertices placed in
  model space by the node's bind matrix. JOINTS_1/WEIGHTS_1 give up to 8 influences.
- Animations become keyed clips, one Track per (node, interpolation). CUBICSPLINE samplers are
  resampled to linear keys (``CUBIC_SUBSTEPS`` per key interval) by the spec's Hermite formula.
  An animation that drives morph weights becomes a 'vertex' clip sampled at every key time (and,
  for STEP samplers, one float32 step before each key); animated weights replace the rest weights
  (``node.weights``, else ``mesh.weights``).
- Uvs are kept as they are: glTF's origin is the image's top-left corner, the project's convention.
  A material gives the base colour factor, alpha mode and cutoff, double-sidedness, and its base-colour
  texture: the sampler's wrap modes, a KHR_texture_transform matrix, the TEXCOORD set it names, and
  the image — decoded here when embedded (GLB bufferView or data URI), else its URI, which the texture
  lookup finds beside the file (app/textures.py). Without a texture, ``extras.texture`` names one
  (Boneyard's exporter keeps there the names glTF cannot reference as images).

Every malformed input raises ``ReadError`` naming the file and the JSON path (and, inside a GLB, the
file byte offset); sizes are checked against the bytes present before any array is read.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import struct
import warnings
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import DracoPy
import numpy as np
from pygltflib import GLTF2

from app import maths
from app import pose as posing
from app.formats import gltf_schema
from app.formats.animation_sets import add_clips, bone_map, retarget
from app.formats.registry import (
    Format,
    LoadOptions,
    ReadError,
    SniffedFile,
    read_bytes,
    register,
    regular_size,
)
from app.model import (
    MAX_MAGNITUDE,
    Clip,
    Material,
    Mesh,
    MeshSkin,
    Model,
    Skeleton,
    Track,
    derive_tails,
    hierarchy_levels,
    unusable_frames,
)
from app.textures import decode_embedded

#: Linear keys made per key interval when resampling a CUBICSPLINE sampler.
CUBIC_SUBSTEPS = 8

GLB_MAGIC = b"glTF"
CHUNK_JSON = 0x4E4F534A
CHUNK_BIN = 0x004E4942

COMPONENT_DTYPES = {5120: "<i1", 5121: "<u1", 5122: "<i2", 5123: "<u2", 5125: "<u4", 5126: "<f4"}
#: Component types a vertex attribute may have: float only (core POSITION, NORMAL), float or unsigned
#: normalised (core TEXCOORD, WEIGHTS), and with KHR_mesh_quantization also signed or any of them.
FLOAT, UNSIGNED, SIGNED = (5126,), (5126, 5121, 5123), (5126, 5120, 5122)
ANY_COMPONENT = (5126, 5120, 5121, 5122, 5123)
DRACO = "KHR_draco_mesh_compression"
#: Most numbers an accessor without a bufferView (zeros, perhaps with sparse values) may hold: such
#: an accessor costs no bytes in the file, so its count alone must not size an allocation.
ZERO_FILL_LIMIT = 1 << 26
#: Negative weights down to this are Draco quantization noise, read as 0.
DRACO_WEIGHT_NOISE = 1e-2
#: Extensions whose data the reader takes in (or may ignore without changing what is shown).
SUPPORTED_EXTENSIONS = {"KHR_mesh_quantization", DRACO, "KHR_materials_emissive_strength",
                        "KHR_texture_transform"}
TYPE_WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}
JSON_KEYS = re.compile(rb'"(asset|accessors|bufferViews|buffers|nodes|meshes|scenes|skins|animations)"\s*:')
TRS_WIDTHS = {"translation": 3, "rotation": 4, "scale": 3}
#: Sampler wrap modes (GL enums) by the names Material uses.
WRAP_MODES = {10497: "repeat", 33071: "clamp", 33648: "mirror"}


@dataclass
class _Buffer:
    """One buffer's bytes; ``file_offset``: where they start in the file (GLB chunk), else None."""

    data: bytes
    file_offset: int | None


class _Reader:
    """Reads one glTF document into a Model; every check raises ReadError naming ``path``."""

    def __init__(self, path: Path, gltf: GLTF2, buffers: list[_Buffer], document: dict | None = None):
        self.path = path
        self.gltf = gltf
        self.buffers = buffers
        # The raw JSON, for the few fields pygltflib drops (``nodes[i].weights``).
        self.document = document or {}
        self.warnings: list[str] = []
        self.images: dict[int, tuple[str, np.ndarray | None]] = {}
        # KHR_mesh_quantization: integer positions, normals, uvs and morph deltas are allowed.
        self.quantized = "KHR_mesh_quantization" in (gltf.extensionsUsed or [])
        # Accessor index → data decoded from KHR_draco_mesh_compression, for the primitive being read.
        self.decoded: dict[int, np.ndarray] = {}

    def fail(self, message: str, offset: int | None = None) -> ReadError:
        return ReadError(self.path, message, offset=offset)

    # --- references and small values ---------------------------------------------------------

    def item(self, table: str, index, where: str):
        """``gltf.<table>[index]``, checking the index."""
        items = getattr(self.gltf, table) or []
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(items):
            raise self.fail(f"{where}: {table} index {index!r} outside 0..{len(items) - 1}")
        return items[index]

    def floats(self, values, width: int, default, where: str) -> np.ndarray:
        """(width,) finite floats from a JSON list, or ``default`` when absent."""
        if values is None:
            return np.asarray(default, dtype=np.float64)
        try:
            array = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise self.fail(f"{where}: expected {width} numbers, got {values!r}") from None
        if array.shape != (width,) or not np.all(np.abs(array) <= MAX_MAGNITUDE):
            raise self.fail(f"{where}: expected {width} finite numbers within ±{MAX_MAGNITUDE:g}, "
                            f"got {str(values)[:200]}")
        return array

    # --- accessors ---------------------------------------------------------------------------

    def accessor(self, index, where: str, types: tuple[str, ...], components: tuple[int, ...],
                 normalized: bool | None = None) -> np.ndarray:
        """(count, width) float64 (or integer) array of accessor ``index``, bounds checked first.

        Normalised integer accessors become floats in [0, 1] (or [−1, 1]); float data must be finite.
        ``normalized``: what an integer accessor's ``normalized`` flag must be (None: either). Sparse
        accessors get their substitutions (indices checked); Draco-decoded accessors their data.
        """
        where = f"{where} (accessors[{index}])"
        accessor = self.item("accessors", index, where)
        if accessor.type not in types or accessor.componentType not in components:
            hint = "" if self.quantized or set(components) != {5126} else \
                " (integer vertex data needs KHR_mesh_quantization)"
            raise self.fail(f"{where}: expected type {'/'.join(types)} with component types "
                            f"{components}, got {accessor.type} / {accessor.componentType}{hint}")
        integer = accessor.componentType != 5126
        if normalized is not None and integer and bool(accessor.normalized) != normalized:
            raise self.fail(f"{where}: component type {accessor.componentType} must "
                            f"{'' if normalized else 'not '}be normalized here")
        count = accessor.count
        if not isinstance(count, int) or count < 0:
            raise self.fail(f"{where}: count {count!r} is not a non-negative integer")
        dtype = np.dtype(COMPONENT_DTYPES[accessor.componentType])
        width = TYPE_WIDTHS[accessor.type]
        if index in self.decoded:
            values = self.decoded[index].astype(dtype).reshape(-1, width)
            if len(values) != count:
                raise self.fail(f"{where}: count {count}, but the Draco data holds {len(values)} elements")
        elif accessor.bufferView is None:
            if count * width > ZERO_FILL_LIMIT:
                raise self.fail(f"{where}: {count} elements without a bufferView (all zeros) is more than "
                                f"this reader fills ({ZERO_FILL_LIMIT // width})")
            values = np.zeros((count, width), dtype)
        else:
            values = self._view_values(accessor.bufferView, accessor.byteOffset, count, dtype, width, where)
        if accessor.sparse is not None:
            values = self._sparse(values.copy(), accessor, index, dtype, width)
        return self._convert(values, accessor, where)

    def _sparse(self, values: np.ndarray, accessor, index: int, dtype: np.dtype, width: int) -> np.ndarray:
        """``values`` with the sparse substitutions of accessor ``index`` applied."""
        sparse, where = accessor.sparse, f"accessors[{index}].sparse"
        count = sparse.count
        if not isinstance(count, int) or not 1 <= count <= len(values):
            raise self.fail(f"{where}.count: {count!r} is not between 1 and the accessor's count "
                            f"{len(values)}")
        if sparse.indices is None or sparse.values is None:
            raise self.fail(f"{where}: needs indices and values")
        component = sparse.indices.componentType
        if component not in (5121, 5123, 5125):
            raise self.fail(f"{where}.indices.componentType: {component!r}; expected 5121, 5123 or 5125")
        index_type = np.dtype(COMPONENT_DTYPES[component])
        indices = self._view_values(sparse.indices.bufferView, sparse.indices.byteOffset, count, index_type,
                                    1, f"{where}.indices", packed=True)[:, 0]
        outside = np.flatnonzero(indices >= len(values))
        if outside.size:
            raise self.fail(f"{where}.indices[{outside[0]}]: index {indices[outside[0]]} is outside "
                            f"0..{len(values) - 1}")
        unordered = np.flatnonzero(np.diff(indices.astype(np.int64)) <= 0)
        if unordered.size:
            raise self.fail(f"{where}.indices[{unordered[0] + 1}]: indices must strictly increase")
        values[indices] = self._view_values(sparse.values.bufferView, sparse.values.byteOffset, count, dtype,
                                            width, f"{where}.values", packed=True)
        return values

    def _view_values(self, view_index, byte_offset, count: int, dtype: np.dtype, width: int, where: str,
                     packed: bool = False) -> np.ndarray:
        """(count, width) elements of ``dtype`` from buffer view ``view_index`` at ``byte_offset``
        (its stride, unless ``packed``: sparse data is tightly packed), every bound checked."""
        view = self.item("bufferViews", view_index, f"{where}.bufferView")
        view_where = f"bufferViews[{view_index}]"
        buffer = self.buffers[self._buffer_index(view.buffer, view_where)]
        element = dtype.itemsize * width
        stride = element if packed else view.byteStride or element
        view_offset, view_length, offset = view.byteOffset or 0, view.byteLength, byte_offset or 0
        for name, value in (("byteOffset", view_offset), ("byteLength", view_length),
                            ("byteStride", stride), ("accessor byteOffset", offset)):
            if not isinstance(value, int) or value < 0:
                raise self.fail(f"{where}: {name} {value!r} is not a non-negative integer")
        if stride < element or stride % dtype.itemsize or offset % dtype.itemsize:
            raise self.fail(f"{where}: stride {stride} / offset {offset} do not fit {element}-byte elements")
        start = view_offset + offset
        file_offset = None if buffer.file_offset is None else buffer.file_offset + start
        if view_offset + view_length > len(buffer.data):
            raise self.fail(f"{view_where} spans bytes {view_offset}..{view_offset + view_length} of "
                            f"buffers[{view.buffer}], which holds {len(buffer.data)}", file_offset)
        needed = offset + (count - 1) * stride + element if count else 0
        if needed > view_length:
            raise self.fail(f"{where}: {count} elements of {element} bytes every {stride} need "
                            f"{needed} bytes of {view_where}, which holds {view_length}", file_offset)
        if count == 0:
            return np.zeros((0, width), dtype)
        return np.ndarray((count, width), dtype, buffer.data, start, (stride, dtype.itemsize))

    def draco(self, primitive, where: str) -> dict[int, np.ndarray]:
        """Accessor index → decoded data for a KHR_draco_mesh_compression primitive (else empty)."""
        extension = (primitive.extensions or {}).get(DRACO)
        if extension is None:
            return {}
        where = f"{where}.extensions.{DRACO}"
        if not isinstance(extension, dict) or not isinstance(extension.get("attributes"), dict):
            raise self.fail(f"{where}: expected an object with bufferView and attributes")
        data = self.view_bytes(extension.get("bufferView"), f"{where}.bufferView")
        try:
            decoded = DracoPy.decode(data)
        except (DracoPy.FileTypeException, ValueError, RuntimeError) as error:
            raise self.fail(f"{where}: the Draco data does not decode ({error})") from None
        attributes = _attributes(primitive.attributes)
        result = {}
        for name, unique_id in extension["attributes"].items():
            if attributes.get(name) is None:
                continue
            attribute = decoded.get_attribute_by_unique_id(unique_id)
            if attribute is None:
                raise self.fail(f"{where}.attributes.{name}: the Draco data has no attribute {unique_id!r}")
            result[attributes[name]] = np.asarray(attribute["data"])
        faces = getattr(decoded, "faces", None)
        if primitive.indices is not None and faces is not None:
            result[primitive.indices] = np.asarray(faces).ravel()
        return result

    def _convert(self, values: np.ndarray, accessor, where: str) -> np.ndarray:
        if values.dtype.kind == "f":
            with np.errstate(invalid="ignore"):  # signalling NaNs; refused just below
                result = values.astype(np.float64)
            bad = np.flatnonzero(~np.all(np.abs(result) <= MAX_MAGNITUDE, axis=1))
            if bad.size:
                raise self.fail(f"{where}: element {bad[0]} is not finite or beyond ±{MAX_MAGNITUDE:g} "
                                f"({result[bad[0]].tolist()})")
            return result
        if accessor.normalized:
            top = float(np.iinfo(values.dtype).max)
            return np.maximum(values.astype(np.float64) / top, -1.0)
        return values.astype(np.int64)

    def _buffer_index(self, index, where: str) -> int:
        if not isinstance(index, int) or not 0 <= index < len(self.buffers):
            raise self.fail(f"{where}: buffer index {index!r} outside 0..{len(self.buffers) - 1}")
        return index

    # --- nodes -------------------------------------------------------------------------------

    def skeleton_frames(self) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
        """Names (N,), parents (N,), rest local and rest world matrices (N, 4, 4), per node."""
        nodes = self.gltf.nodes or []
        parents = np.full(len(nodes), -1, np.int64)
        for index, node in enumerate(nodes):
            for position, child in enumerate(node.children or []):
                where = f"nodes[{index}].children[{position}]"
                self.item("nodes", child, where)
                if child == index:
                    raise self.fail(f"{where}: node {index} lists itself as a child")
                if parents[child] >= 0:
                    raise self.fail(f"{where}: node {child} is already a child of node {parents[child]}")
                parents[child] = index
        try:
            levels = hierarchy_levels(parents)
        except ValueError as error:
            raise self.fail(f"nodes: the children lists form a cycle ({error})") from None
        local = np.stack([self.node_matrix(i, node) for i, node in enumerate(nodes)]) if nodes \
            else np.zeros((0, 4, 4))
        world = local.copy()
        with np.errstate(over="ignore", invalid="ignore"):
            for level in levels[1:]:
                world[level] = world[parents[level]] @ local[level]
        huge = np.flatnonzero(~np.all(np.abs(world) <= MAX_MAGNITUDE, axis=(1, 2)))
        if huge.size:
            raise self.fail(f"nodes[{huge[0]}]: its rest world matrix is beyond ±{MAX_MAGNITUDE:g} (the "
                            "transforms down its parent chain multiply past any model's size)")
        names = [node.name or f"node{index}" for index, node in enumerate(nodes)]
        return names, parents, local, world

    def skins(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per skin: its joints (J,) as node indices and inverse bind matrices (J, 4, 4)."""
        result = []
        for skin_index, skin in enumerate(self.gltf.skins or []):
            where = f"skins[{skin_index}]"
            for position, joint in enumerate(skin.joints or []):
                self.item("nodes", joint, f"{where}.joints[{position}]")
            joints = np.array(skin.joints or [], dtype=np.int64)
            if not len(joints):
                raise self.fail(f"{where}: a skin needs at least one joint")
            unique, first = np.unique(joints, return_index=True)
            if len(unique) != len(joints):
                twice = int(np.setdiff1d(np.arange(len(joints)), first)[0])
                raise self.fail(f"{where}.joints[{twice}]: node {joints[twice]} is listed twice")
            if skin.inverseBindMatrices is None:
                inverse_binds = np.broadcast_to(np.eye(4), (len(joints), 4, 4)).copy()
            else:
                flat = self.accessor(skin.inverseBindMatrices, f"{where}.inverseBindMatrices",
                                     ("MAT4",), (5126,))
                if len(flat) < len(joints):
                    raise self.fail(f"{where}.inverseBindMatrices: {len(flat)} matrices for "
                                    f"{len(joints)} joints")
                inverse_binds = np.swapaxes(flat[: len(joints)].reshape(-1, 4, 4), 1, 2)
            result.append((joints, inverse_binds))
        return result

    def bone_nodes(self, parents: np.ndarray) -> np.ndarray:
        """(N,) bool: which nodes become bones (see the module docstring); ``parents`` per node."""
        nodes = self.gltf.nodes or []
        keep = np.ones(len(nodes), bool)
        has_children = np.zeros(len(nodes), bool)
        has_children[parents[parents >= 0]] = True
        needed = set()
        for skin_index, skin in enumerate(self.gltf.skins or []):
            for position, joint in enumerate(skin.joints or []):
                self.item("nodes", joint, f"skins[{skin_index}].joints[{position}]")
                needed.add(joint)
            if skin.skeleton is not None:
                self.item("nodes", skin.skeleton, f"skins[{skin_index}].skeleton")
                needed.add(skin.skeleton)
        for index, animation in enumerate(self.gltf.animations or []):
            for position, channel in enumerate(animation.channels or []):
                target = channel.target
                if target is None or target.node is None or target.path == "weights":
                    continue
                self.item("nodes", target.node, f"animations[{index}].channels[{position}].target.node")
                needed.add(target.node)
        for index, node in enumerate(nodes):
            if node.mesh is None or node.skin is None or node.camera is not None \
                    or has_children[index] or index in needed:
                continue
            source = self.item("meshes", node.mesh, f"nodes[{index}].mesh")
            rigid = False
            for primitive in source.primitives or []:
                mode = 4 if primitive.mode is None else primitive.mode
                if mode in (0, 4) and _attributes(primitive.attributes).get("JOINTS_0") is None:
                    rigid = True
            keep[index] = rigid
        return keep

    def node_matrix(self, index: int, node) -> np.ndarray:
        """(4, 4) rest local matrix of a node, from ``matrix`` (column-major) or T·R·S."""
        where = f"nodes[{index}]"
        if node.matrix is not None:
            return self.floats(node.matrix, 16, None, f"{where}.matrix").reshape(4, 4).T
        translation = self.floats(node.translation, 3, (0, 0, 0), f"{where}.translation")
        rotation = self.floats(node.rotation, 4, (0, 0, 0, 1), f"{where}.rotation")
        scale = self.floats(node.scale, 3, (1, 1, 1), f"{where}.scale")
        return maths.compose_trs(translation, maths.quat_normalize(rotation), scale)

    # --- meshes ------------------------------------------------------------------------------

    def meshes(self, bind: np.ndarray, node_bones: np.ndarray, skins: list[MeshSkin]
               ) -> tuple[list[Mesh], list[tuple[int, int, np.ndarray, np.ndarray]]]:
        """Every primitive of every node's mesh, in node order, joints as bone indices.

        ``bind``: (N, 4, 4) node bind matrices (rigid meshes are placed by them); ``node_bones``: (N,)
        each node's bone index (−1: not a bone); ``skins``: each glTF skin as a MeshSkin. Returns the
        meshes and, for morph targets, (node, mesh index, deltas (M, V, 3) in the mesh's space, rest
        weights (M,), already in the mesh's positions) per mesh with targets.
        """
        meshes, morphs = [], []
        for index, node in enumerate(self.gltf.nodes or []):
            if node.mesh is None:
                continue
            where = f"nodes[{index}].mesh"
            source = self.item("meshes", node.mesh, where)
            for position, primitive in enumerate(source.primitives or []):
                where = f"meshes[{node.mesh}].primitives[{position}]"
                mode = 4 if primitive.mode is None else primitive.mode
                if mode not in (0, 4):
                    self.warnings.append(f"{where}: mode {mode} skipped (only TRIANGLES and POINTS are read)")
                    continue
                name = source.name or f"mesh{node.mesh}"
                if len(source.primitives) > 1:
                    name = f"{name}.{position}"
                self.decoded = self.draco(primitive, where)
                mesh, morph = self.primitive(index, node, primitive, mode, name, where, bind, node_bones,
                                             skins)
                self.decoded = {}
                if morph is not None:
                    morphs.append((index, len(meshes), *morph))
                meshes.append(mesh)
        return meshes, morphs

    def primitive(self, node_index: int, node, primitive, mode: int, name: str, where: str,
                  bind: np.ndarray, node_bones: np.ndarray,
                  skins: list[MeshSkin]) -> tuple[Mesh, tuple | None]:
        """One Mesh, and for morph targets (deltas (M, V, 3) in the mesh's space, rest weights (M,)).

        A skinned primitive keeps its vertices as they are, with its skin; a rigid one is placed in
        model space by its node's bind matrix and weighted 1 on its node."""
        attributes = _attributes(primitive.attributes)
        if attributes.get("POSITION") is None:
            raise self.fail(f"{where}: no POSITION attribute")
        quantized = self.quantized
        positions = self.accessor(attributes["POSITION"], f"{where}.attributes.POSITION", ("VEC3",),
                                  ANY_COMPONENT if quantized else FLOAT).astype(np.float64)
        count = len(positions)
        normals = self.vertex_attribute(attributes.get("NORMAL"), "NORMAL", where, ("VEC3",),
                                        SIGNED if quantized else FLOAT, count, normalized=True)
        material, texcoord = self.material(primitive.material, where)
        uvs = self.vertex_attribute(attributes.get(f"TEXCOORD_{texcoord}"), f"TEXCOORD_{texcoord}", where,
                                    ("VEC2",), ANY_COMPONENT if quantized else UNSIGNED, count,
                                    normalized=None if quantized else True)
        triangles = self.triangles(primitive, count, where) if mode == 4 else None
        skin = None
        if node.skin is not None and attributes.get("JOINTS_0") is not None:
            skin = self.item_of(skins, node.skin, f"nodes[{node_index}].skin")
            joints, weights = self.skin_weights(node.skin, attributes, count, where, len(skin.joints))
            joints = np.where(weights != 0, skin.joints[joints], 0)
            placement = np.eye(4)
        else:
            joints = np.full((count, 1), node_bones[node_index])
            weights = np.ones((count, 1))
            placement = bind[node_index]
        deltas = self.morph_deltas(primitive, count, where)
        morph = None
        if deltas is not None:
            defaults = self.default_weights(node_index, node, len(deltas))
            positions = positions + np.einsum("m,mvi->vi", defaults, deltas)
            morph = (deltas @ placement[:3, :3].T, defaults)
        if skin is None:
            positions = positions @ placement[:3, :3].T + placement[:3, 3]
            if normals is not None:
                normals = _transform_normals(np.broadcast_to(placement, (count, 4, 4)), normals)
            if triangles is not None and np.linalg.det(placement[:3, :3]) < 0:
                triangles = triangles[:, ::-1]  # a mirroring node flips the winding (glTF 3.7.4)
        mesh = Mesh(name=name, positions=positions, joints=joints, weights=weights, normals=normals,
                    uvs=uvs, triangles=triangles, material=material, skin=skin)
        return mesh, morph

    def default_weights(self, node_index: int, node, targets: int) -> np.ndarray:
        """(targets,) the morph weights at rest: the node's ``weights``, else its mesh's, else 0."""
        raw_nodes = self.document.get("nodes")
        raw_node = raw_nodes[node_index] if isinstance(raw_nodes, list) and node_index < len(raw_nodes) \
            else {}
        mesh = self.item("meshes", node.mesh, f"nodes[{node_index}].mesh")
        for weights, where in ((raw_node.get("weights") if isinstance(raw_node, dict) else None,
                                f"nodes[{node_index}].weights"),
                               (mesh.weights, f"meshes[{node.mesh}].weights")):
            if weights is not None:
                if not isinstance(weights, list) or len(weights) != targets:
                    self.warnings.append(f"{where}: expected {targets} weights (one per morph target), "
                                         f"got {weights!r}; ignored")
                    continue
                return self.floats(weights, targets, None, where)
        return np.zeros(targets)

    def vertex_attribute(self, index, name: str, where: str, types, components, count: int,
                         normalized: bool | None = None):
        if index is None:
            return None
        values = self.accessor(index, f"{where}.attributes.{name}", types, components, normalized)
        if len(values) != count:
            raise self.fail(f"{where}.attributes.{name}: {len(values)} elements, POSITION has {count}")
        return values

    def triangles(self, primitive, count: int, where: str) -> np.ndarray:
        """(T, 3) vertex indices, checked against the vertex count."""
        if primitive.indices is None:
            indices = np.arange(count - count % 3)
            if count % 3:
                self.warnings.append(f"{where}: {count} vertices drawn as triangles is not a multiple of 3; "
                                     f"the last {count % 3} form no triangle")
        else:
            indices = self.accessor(primitive.indices, f"{where}.indices", ("SCALAR",),
                                    (5121, 5123, 5125))[:, 0]
        if len(indices) % 3:
            raise self.fail(f"{where}.indices: {len(indices)} indices is not a whole number of triangles")
        if indices.size and indices.max() >= count:
            bad = int(np.argmax(indices >= count))
            raise self.fail(f"{where}.indices: index {bad} is {indices[bad]}, outside 0..{count - 1}")
        return indices.reshape(-1, 3)

    def skin_weights(self, skin_index: int, attributes, count: int, where: str,
                     joint_count: int) -> tuple[np.ndarray, np.ndarray]:
        """Joints (V, K) as indices into the skin's joints and normalised weights (V, K)."""
        lanes_joints, lanes_weights = [], []
        for set_index in (0, 1):
            joints_index = attributes.get(f"JOINTS_{set_index}")
            weights_index = attributes.get(f"WEIGHTS_{set_index}")
            if joints_index is None or weights_index is None:
                continue
            lanes_joints.append(self.vertex_attribute(joints_index, f"JOINTS_{set_index}", where, ("VEC4",),
                                                      (5121, 5123), count))
            lanes_weights.append(self.vertex_attribute(weights_index, f"WEIGHTS_{set_index}", where,
                                                       ("VEC4",), UNSIGNED, count, normalized=True))
        joints = np.concatenate(lanes_joints, axis=1)
        weights = np.concatenate(lanes_weights, axis=1)
        if self.decoded:  # Draco's lossy quantization leaves weights a little below 0
            weights = np.where((weights < 0) & (weights > -DRACO_WEIGHT_NOISE), 0.0, weights)
        used = weights != 0
        if np.any(weights < 0) or np.any(used & (joints >= joint_count)):
            row = int(np.argmax(np.any((weights < 0) | (used & (joints >= joint_count)), axis=1)))
            raise self.fail(f"{where}: vertex {row} has joints {joints[row].tolist()} / weights "
                            f"{weights[row].tolist()}; expected joints below {joint_count} of "
                            f"skins[{skin_index}] and weights ≥ 0")
        joints = np.where(used, joints, 0)
        totals = weights.sum(axis=1, keepdims=True)
        if np.any(np.abs(totals - 1) > 1e-2):
            self.warnings.append(f"{where}: some vertex weights do not sum to 1; normalised")
        return joints, np.where(totals > 0, weights / np.where(totals > 0, totals, 1), 0)

    def morph_deltas(self, primitive, count: int, where: str) -> np.ndarray | None:
        """(M, V, 3) POSITION displacements of the primitive's morph targets, or None."""
        targets = primitive.targets or []
        if not targets:
            return None
        deltas = np.zeros((len(targets), count, 3))
        for index, target in enumerate(targets):
            accessor = _attributes(target).get("POSITION")
            if accessor is not None:
                deltas[index] = self.vertex_attribute(accessor, f"targets[{index}].POSITION", where,
                                                      ("VEC3",), SIGNED if self.quantized else FLOAT, count)
        return deltas

    def material(self, index, where: str) -> tuple[Material, int]:
        """The primitive's material and the TEXCOORD set its base-colour texture uses (0 without one)."""
        if index is None:
            return Material(), 0
        where = f"materials[{index}]"
        material = self.item("materials", index, f"{where}.material")
        pbr = material.pbrMetallicRoughness
        color = self.floats(pbr.baseColorFactor if pbr else None, 4, (1.0, 1.0, 1.0, 1.0),
                            f"{where}.pbrMetallicRoughness.baseColorFactor")
        mode = material.alphaMode or "OPAQUE"
        if mode not in ("OPAQUE", "MASK", "BLEND"):
            self.warnings.append(f"{where}.alphaMode {mode!r} is not OPAQUE, MASK or BLEND; drawn opaque")
            mode = "OPAQUE"
        cutoff = material.alphaCutoff if isinstance(material.alphaCutoff, (int, float)) else 0.5
        result = Material(name=material.name or f"material{index}", base_color=tuple(color.tolist()),
                          alpha_mode=mode, alpha_cutoff=float(cutoff),
                          double_sided=bool(material.doubleSided))
        info = pbr.baseColorTexture if pbr is not None else None
        if info is None:
            extras = material.extras if isinstance(material.extras, dict) else {}
            if isinstance(extras.get("texture"), str):  # Boneyard's exports keep names glTF cannot reference
                result.texture = extras["texture"]
            return result, 0
        return self.base_color_texture(result, info, f"{where}.pbrMetallicRoughness.baseColorTexture")

    def base_color_texture(self, material: Material, info, where: str) -> tuple[Material, int]:
        """``material`` with the texture ``info`` names: its image (decoded here when the file embeds
        it, else its URI for the texture lookup), wrap modes and KHR_texture_transform."""
        texture = self.item("textures", info.index, f"{where}.index")
        texcoord = info.texCoord if isinstance(info.texCoord, int) and info.texCoord >= 0 else 0
        transform = (info.extensions or {}).get("KHR_texture_transform")
        if isinstance(transform, dict):
            material.uv_transform = self.texture_transform(transform,
                                                           f"{where}.extensions.KHR_texture_transform")
            texcoord = transform.get("texCoord", texcoord) if isinstance(transform.get("texCoord"), int) \
                else texcoord
        if texture.sampler is not None:
            sampler = self.item("samplers", texture.sampler, f"textures[{info.index}].sampler")
            material.wrap = (WRAP_MODES.get(sampler.wrapS, "repeat"), WRAP_MODES.get(sampler.wrapT, "repeat"))
        if texture.source is None:
            self.warnings.append(f"textures[{info.index}] has no source image (a texture extension this "
                                 "reader does not decode); the mesh is drawn in its base colour")
            return material, texcoord
        source = texture.source
        image = self.item("images", source, f"textures[{info.index}].source")
        if source not in self.images:
            self.images[source] = self.image(image, source)
        name, image_data = self.images[source]
        material.texture, material.image = name, image_data
        return material, texcoord

    def image(self, image, index: int) -> tuple[str, np.ndarray | None]:
        """(texture name, decoded pixels or None): an external URI is left to the texture lookup."""
        where = f"images[{index}]"
        uri = image.uri if isinstance(image.uri, str) else None
        if uri is not None and not uri.startswith("data:"):
            return unquote(uri), None
        name = image.name or f"image{index}"
        if uri is not None:
            try:
                data = _decode_data_uri(self.path, uri, f"{where}")
            except ReadError as error:
                self.warnings.append(f"{error.message}; the mesh is drawn in its base colour")
                return name, None
        elif image.bufferView is not None:
            data = self.view_bytes(image.bufferView, f"{where}.bufferView")
        else:
            self.warnings.append(f"{where} has neither a uri nor a bufferView")
            return name, None
        return name, decode_embedded(data, where, self.warnings)

    def view_bytes(self, index, where: str) -> bytes:
        """The bytes of bufferView ``index``, bounds checked."""
        view = self.item("bufferViews", index, where)
        buffer = self.buffers[self._buffer_index(view.buffer, f"bufferViews[{index}]")]
        start, length = view.byteOffset or 0, view.byteLength
        if not isinstance(start, int) or not isinstance(length, int) or start < 0 or length < 0 \
                or start + length > len(buffer.data):
            raise self.fail(f"{where}: bufferViews[{index}] (bytes {start!r}..+{length!r}) lies outside "
                            f"buffers[{view.buffer}], which holds {len(buffer.data)}", buffer.file_offset)
        return buffer.data[start:start + length]

    def texture_transform(self, transform: dict, where: str) -> np.ndarray:
        """KHR_texture_transform's (3, 3) matrix: translation @ rotation @ scale (its spec's order)."""
        ox, oy = self.floats(transform.get("offset"), 2, (0.0, 0.0), f"{where}.offset")
        sx, sy = self.floats(transform.get("scale"), 2, (1.0, 1.0), f"{where}.scale")
        angle = float(self.floats([transform.get("rotation", 0.0)], 1, (0.0,), f"{where}.rotation")[0])
        cos, sin = np.cos(angle), np.sin(angle)
        translation = np.array([[1.0, 0.0, ox], [0.0, 1.0, oy], [0.0, 0.0, 1.0]])
        rotation = np.array([[cos, sin, 0.0], [-sin, cos, 0.0], [0.0, 0.0, 1.0]])
        matrix = translation @ rotation @ np.diag([sx, sy, 1.0])
        matrix.flags.writeable = False
        return matrix

    # --- animations --------------------------------------------------------------------------

    def clips(self, skeleton: Skeleton, meshes: list[Mesh], morphs, node_bones: np.ndarray) -> list[Clip]:
        """One clip per animation; ``morphs`` and morph weight keys are by node, tracks by bone."""
        clips = []
        for index, animation in enumerate(self.gltf.animations or []):
            name = animation.name or f"animation{index}"
            tracks, weight_keys = self.animation_channels(index, animation, node_bones)
            clip = Clip(name=name, kind="keyed", tracks=tracks)
            if weight_keys and morphs:
                clip = self.morph_clip(clip, weight_keys, skeleton, meshes, morphs)
            elif weight_keys:
                self.warnings.append(f"animations[{index}]: morph weights animated on a mesh without targets")
            clips.append(clip)
        return clips

    def animation_channels(self, index: int, animation, node_bones: np.ndarray) -> tuple[list[Track], dict]:
        """Tracks (one per node and interpolation, ``bone`` the node's bone index) and morph weight
        keys {node: (times, (K, M))}."""
        channels: dict[tuple[int, str], dict] = {}
        weight_keys = {}
        for position, channel in enumerate(animation.channels or []):
            where = f"animations[{index}].channels[{position}]"
            target = channel.target
            if target is None or target.node is None:
                continue
            self.item("nodes", target.node, f"{where}.target.node")
            sampler = self.item_of(animation.samplers, channel.sampler, f"{where}.sampler")
            where = f"animations[{index}].samplers[{channel.sampler}]"
            if target.path == "weights":
                weight_keys[target.node] = self.sampler_keys(sampler, where, None)
            elif target.path in TRS_WIDTHS:
                times, values, mode = self.sampler_keys(sampler, where, TRS_WIDTHS[target.path])
                channels.setdefault((target.node, mode), {})[target.path] = (times, values)
        tracks = [Track(bone=int(node_bones[node]), interpolation=mode, **paths)
                  for (node, mode), paths in channels.items()]
        return tracks, weight_keys

    def item_of(self, items, index, where: str):
        if not isinstance(index, int) or not 0 <= index < len(items or []):
            raise self.fail(f"{where}: index {index!r} outside 0..{len(items or []) - 1}")
        return items[index]

    def sampler_keys(self, sampler, where: str, width: int | None) -> tuple[np.ndarray, np.ndarray, str]:
        """Times (K,), values (K, width) and 'linear' or 'step' ('linear' after cubic resampling).

        ``width`` None (morph weights): the values per key are whatever the output holds per key.
        """
        times = self.accessor(sampler.input, f"{where}.input", ("SCALAR",), (5126,))[:, 0]
        types = ("SCALAR",) if width is None else ({3: "VEC3", 4: "VEC4"}[width],)
        values = self.accessor(sampler.output, f"{where}.output", types, (5126, 5120, 5121, 5122, 5123))
        if not len(times):
            raise self.fail(f"{where}.input: a sampler needs at least one key")
        if np.any(np.diff(times) < 0):
            raise self.fail(f"{where}.input: key times go backwards")
        mode = sampler.interpolation or "LINEAR"
        per_key = 3 if mode == "CUBICSPLINE" else 1
        if mode not in ("LINEAR", "STEP", "CUBICSPLINE"):
            raise self.fail(f"{where}.interpolation: unknown {mode!r}")
        if len(values) % (len(times) * per_key):
            raise self.fail(f"{where}.output: {len(values)} values do not fit {len(times)} keys ({mode})")
        values = values.reshape(len(times), per_key, -1)
        if mode == "CUBICSPLINE":
            times, values = _resample_cubic(times, values)
            return times, values, "linear"
        return times, values[:, 0], mode.lower()

    def morph_clip(self, clip: Clip, weight_keys: dict, skeleton: Skeleton, meshes: list[Mesh],
                   morphs) -> Clip:
        """A 'vertex' clip: morphed and skinned positions at every key time of the animation.

        Animated weights replace the rest weights already in the mesh's positions. A STEP sampler
        (weights, or a bone's STEP track) also gets a frame one float32 step before each of its keys
        holding the previous value, since a vertex clip blends linearly between its frames.
        """
        model = Model(name="", skeleton=skeleton, meshes=meshes, clips=[clip])
        steps = [keys[0][1:] for keys in weight_keys.values() if keys[2] == "step"]
        steps += [keys[0][1:] for track in clip.tracks if track.interpolation == "step"
                  for keys in (track.translation, track.rotation, track.scale) if keys is not None]
        holds = [np.nextafter(keys.astype(np.float32), np.float32(-np.inf)).astype(np.float64)
                 for keys in steps]
        times = np.unique(np.concatenate([clip.frame_times if clip.tracks else np.zeros(0)]
                                         + [keys[0] for keys in weight_keys.values()] + holds))
        frames, worlds = [], []
        for time in times:
            pose = posing.evaluate(model, clip if clip.tracks else None, float(time))
            positions = [mesh.positions.astype(np.float64) for mesh in meshes]
            for node, mesh_index, deltas, defaults in morphs:
                if node in weight_keys:
                    weights = _sample_weights(*weight_keys[node], float(time), len(deltas)) - defaults
                    positions[mesh_index] = positions[mesh_index] + np.einsum("m,mvi->vi", weights, deltas)
            posed = [posing.skin_mesh(_with_positions(mesh, p), posing.mesh_skinning(model, pose, mesh))
                     for mesh, p in zip(meshes, positions)]
            frames.append(np.concatenate(posed))
            worlds.append(pose.world)
        return Clip(name=clip.name, kind="vertex", times=times, world=np.stack(worlds),
                    positions=np.stack(frames))


def _attributes(attributes) -> dict:
    """Attribute name → accessor index, whether pygltflib decoded an ``Attributes`` or left a dict."""
    if isinstance(attributes, dict):
        return attributes
    return {name: value for name, value in vars(attributes).items() if value is not None}


def _with_positions(mesh: Mesh, positions: np.ndarray) -> Mesh:
    return Mesh(name=mesh.name, positions=positions, joints=mesh.joints, weights=mesh.weights, skin=mesh.skin)


def _sample_weights(times: np.ndarray, values: np.ndarray, mode: str, time: float, width: int) -> np.ndarray:
    """(width,) morph weights at ``time`` from (K,) times and (K, ≥width) values, 'linear' or 'step'
    (missing columns are 0)."""
    values = values.reshape(len(times), -1)[:, :width]
    if mode == "step":
        result = values[max(int(np.searchsorted(times, time, side="right")) - 1, 0)]
    else:
        result = np.array([np.interp(time, times, values[:, column]) for column in range(values.shape[1])])
    return np.pad(result.astype(np.float64), (0, width - len(result)))


def _resample_cubic(times: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense linear keys from cubic Hermite keys.

    times: (K,); values: (K, 3, w) in-tangent, value, out-tangent per key (glTF layout).
    Returns times (1 + (K−1)·CUBIC_SUBSTEPS,) and values (…, w).
    """
    if len(times) == 1:
        return times, values[:, 1]
    fractions = np.arange(CUBIC_SUBSTEPS) / CUBIC_SUBSTEPS
    spans = np.diff(times)[:, None]
    t = fractions[None, :]
    h00, h10 = 2 * t**3 - 3 * t**2 + 1, t**3 - 2 * t**2 + t
    h01, h11 = -2 * t**3 + 3 * t**2, t**3 - t**2
    start, end = values[:-1, 1][:, None], values[1:, 1][:, None]
    out_tangent, in_tangent = values[:-1, 2][:, None], values[1:, 0][:, None]
    dense = (h00[..., None] * start + (spans * h10)[..., None] * out_tangent
             + h01[..., None] * end + (spans * h11)[..., None] * in_tangent)
    dense_times = times[:-1, None] + spans * t
    return (np.append(dense_times.ravel(), times[-1]),
            np.concatenate([dense.reshape(-1, values.shape[2]), values[-1:, 1]]))


def _transform_normals(bind: np.ndarray, normals: np.ndarray) -> np.ndarray:
    """(V, 3) unit normals under per-vertex (V, 4, 4) matrices (inverse transpose of the 3×3 part)."""
    linear = bind[:, :3, :3]
    determinants = np.linalg.det(linear)
    safe = np.where(np.abs(determinants)[:, None, None] > 1e-20, linear, np.eye(3))
    inverse_transpose = np.swapaxes(np.linalg.inv(safe), 1, 2)
    unit, valid = maths.normalize(np.einsum("vij,vj->vi", inverse_transpose, normals))
    unit[~valid] = (0.0, 0.0, 1.0)
    return unit


def _unique_names(names: list[str], nodes: np.ndarray) -> list[str]:
    """Bone names made unique (a suffix ``#node index``) so bones can be found by name."""
    seen: dict[str, int] = {}
    for name in names:
        seen[name] = seen.get(name, 0) + 1
    return [name if seen[name] == 1 else f"{name}#{node}" for name, node in zip(names, nodes)]


# --- container --------------------------------------------------------------------------------

def _parse_glb(path: Path, data: bytes) -> tuple[dict, _Buffer | None]:
    """The JSON document and the BIN chunk of a GLB file, every length checked."""
    if len(data) < 20:
        raise ReadError(path, "a GLB file needs a 12-byte header and a chunk; "
                        f"the file has {len(data)} bytes", offset=len(data))
    _, version, length = struct.unpack_from("<4sII", data, 0)
    if version != 2:
        raise ReadError(path, f"GLB version {version}; expected 2", offset=4)
    if length > len(data):
        raise ReadError(path, f"the header says {length} bytes, the file has {len(data)} (truncated?)",
                        offset=8)
    chunks, offset = [], 12
    while offset < length:
        if offset + 8 > length:
            raise ReadError(path, "a chunk header runs past the end of the file", offset=offset)
        chunk_length, chunk_type = struct.unpack_from("<II", data, offset)
        if offset + 8 + chunk_length > length:
            raise ReadError(path, f"a chunk of {chunk_length} bytes runs past the end of the file "
                            f"({length} bytes)", offset=offset)
        chunks.append((chunk_type, offset + 8, data[offset + 8: offset + 8 + chunk_length]))
        offset += 8 + chunk_length
    if not chunks or chunks[0][0] != CHUNK_JSON:
        raise ReadError(path, "the first chunk is not JSON", offset=12)
    document = _parse_json(path, chunks[0][2], chunks[0][1])
    binary = next((_Buffer(body, start) for kind, start, body in chunks[1:] if kind == CHUNK_BIN), None)
    return document, binary


def _parse_json(path: Path, text: bytes, base: int) -> dict:
    try:
        document = json.loads(text.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        raise ReadError(path, "the JSON is not UTF-8", offset=base + error.start) from None
    except json.JSONDecodeError as error:
        raise ReadError(path, f"bad JSON: {error.msg}", offset=base + error.pos) from None
    except RecursionError:
        raise ReadError(path, "the JSON nests too deeply", offset=base) from None
    if not isinstance(document, dict) or not isinstance(document.get("asset"), dict):
        raise ReadError(path, "the JSON has no \"asset\" object: not a glTF document", offset=base)
    problem = gltf_schema.problem(document)
    if problem:
        raise ReadError(path, f"the JSON does not follow the glTF schema: {problem}", offset=base or None)
    return document


def _check_required_extensions(path: Path, document: dict) -> None:
    """ReadError naming the first required extension the reader does not implement."""
    required = document.get("extensionsRequired", [])
    if not isinstance(required, list):
        raise ReadError(path, "extensionsRequired: expected a list of extension names")
    for position, name in enumerate(required):
        if name not in SUPPORTED_EXTENSIONS:
            supported = ", ".join(sorted(SUPPORTED_EXTENSIONS))
            raise ReadError(path, f"extensionsRequired[{position}]: the file needs the extension {name!r}, "
                            f"which this reader does not implement (it reads {supported})")


def _to_gltf(path: Path, document: dict) -> GLTF2:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return GLTF2.from_dict(document)
    except Exception as error:  # pygltflib raises whatever its decoder meets on a malformed document
        raise ReadError(path, f"the JSON does not follow the glTF schema: {error}") from None


def _load_buffers(path: Path, gltf: GLTF2, binary: _Buffer | None) -> list[_Buffer]:
    """Every buffer's bytes: the GLB chunk, a data: URI or a file beside ``path``."""
    result = []
    for index, buffer in enumerate(gltf.buffers or []):
        where = f"buffers[{index}]"
        uri = buffer.uri
        if uri is None:
            if index != 0 or binary is None:
                raise ReadError(path, f"{where} has no uri and there is no GLB binary chunk")
            loaded = binary
        elif not isinstance(uri, str):
            raise ReadError(path, f"{where}.uri is not a string")
        elif uri.startswith("data:"):
            loaded = _Buffer(_decode_data_uri(path, uri, where), None)
        else:
            loaded = _Buffer(_read_sidecar(path, uri, where, buffer.byteLength), None)
        length = buffer.byteLength
        if not isinstance(length, int) or length < 0 or length > len(loaded.data):
            raise ReadError(path, f"{where}.byteLength is {length!r} but {len(loaded.data)} bytes "
                            "are present", offset=loaded.file_offset)
        result.append(_Buffer(loaded.data[:length], loaded.file_offset))
    return result


def _decode_data_uri(path: Path, uri: str, where: str) -> bytes:
    header, _, payload = uri.partition(",")
    if not header.endswith(";base64"):
        raise ReadError(path, f"{where}.uri: only base64 data URIs are supported")
    try:
        return base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise ReadError(path, f"{where}.uri: bad base64 data") from None


def sidecar_path(gltf_path: Path, uri: str) -> Path:
    """The file a glTF ``uri`` names: relative to the glTF's folder and inside its folder tree, a
    regular file. Raises ``ValueError`` saying why not (absolute paths, other URI schemes, ``..``
    out of the tree, links leading out of it, devices and FIFOs are refused)."""
    name = unquote(uri)
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", name) or name.startswith(("/", "\\")):
        raise ValueError(f"{uri[:80]!r} is not a path relative to the glTF file")
    folder = gltf_path.parent.resolve()
    target = (folder / name).resolve()
    if not target.is_relative_to(folder):
        raise ValueError(f"{uri[:80]!r} leads outside the glTF file's folder")
    try:
        regular_size(target)
    except ReadError as error:
        raise ValueError(f"{target.name}: {error.message}") from None
    return target


def _read_sidecar(path: Path, uri: str, where: str, length) -> bytes:
    """At most ``length`` bytes of the buffer file ``uri`` names (checked against its size first)."""
    try:
        target = sidecar_path(path, uri)
    except ValueError as error:
        raise ReadError(path, f"{where}.uri: {error}") from None
    size = regular_size(target)
    if isinstance(length, int) and 0 <= length <= size:
        size = length
    try:
        with open(target, "rb") as handle:
            return handle.read(size)
    except OSError as error:
        raise ReadError(path, f"{where}.uri: cannot read {target.name}: {error.strerror or error}") from None


# --- entry points -----------------------------------------------------------------------------

def sniff(head: bytes, path: Path) -> str | None:
    """'model' for a GLB (magic ``glTF``) or a JSON object with a glTF top-level key in its head
    (writers may put ``"asset"`` after kilobytes of accessors; the reader then requires it)."""
    if head[:4] == GLB_MAGIC:
        return "model"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"{") and JSON_KEYS.search(head):
        return "model"
    return None


def read(path: str | Path) -> Model:
    """Read one ``.glb`` or ``.gltf`` file into a Model (Y up, format 'gltf')."""
    path = Path(path)
    data = read_bytes(path)
    if data[:4] == GLB_MAGIC:
        document, binary = _parse_glb(path, data)
    else:
        document, binary = _parse_json(path, data, 0), None
    _check_required_extensions(path, document)
    gltf = _to_gltf(path, document)
    reader = _Reader(path, gltf, _load_buffers(path, gltf, binary), document)
    try:
        return _build(reader, path)
    except ValueError as error:  # a model check on what was read (shapes, bone indices)
        raise ReadError(path, str(error)) from None
    except (TypeError, AttributeError, KeyError, IndexError) as error:
        raise ReadError(path, f"unexpected structure: {error!r}") from None


def _build(reader: _Reader, path: Path) -> Model:
    node_names, node_parents, node_local, node_world = reader.skeleton_frames()
    keep = reader.bone_nodes(node_parents)
    bone_nodes = np.flatnonzero(keep)
    node_bones = np.full(len(keep), -1, np.int64)
    node_bones[bone_nodes] = np.arange(len(bone_nodes))
    # A dropped node has no children, so every kept node's parent is kept (or it is a root).
    kept_parents = node_parents[bone_nodes]
    parents = np.where(kept_parents >= 0, node_bones[np.maximum(kept_parents, 0)], -1)
    skins = reader.skins()
    node_bind = _bind_frames(node_world, skins)
    mesh_skins = [MeshSkin(joints=node_bones[joints], inverse_bind=inverse) for joints, inverse in skins]
    names = _unique_names([node_names[node] for node in bone_nodes], bone_nodes)
    meshes, morphs = reader.meshes(node_bind, node_bones, mesh_skins)
    bind = _usable_frames(reader, node_bind[bone_nodes], bone_nodes, names)
    heads, tails = derive_tails(bind, parents, meshes)
    skeleton = Skeleton(names=names, parents=parents, bind_world=bind, heads=heads, tails=tails,
                        derived_tails=np.ones(len(names), bool), rest_local=node_local[bone_nodes])
    clips = reader.clips(skeleton, meshes, morphs, node_bones)
    return Model(name=path.stem, skeleton=skeleton, meshes=meshes, clips=clips, format="gltf",
                 files=[str(path)], up_axis="Y", forward="+Z", warnings=reader.warnings)


def _bind_frames(world: np.ndarray, skins: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """(N, 4, 4) each node's bind frame: the inverse of its inverse bind matrix in the first skin that
    lists it (and has it invertible), else its rest world matrix."""
    bind = world.copy()
    for joints, inverse_binds in reversed(skins):
        determinants = np.linalg.det(inverse_binds[:, :3, :3])
        usable = (np.abs(determinants) > 1e-12) & np.all(inverse_binds[:, 3] == (0, 0, 0, 1), axis=1)
        bind[joints[usable]] = np.linalg.inv(inverse_binds[usable])
    return bind


def _usable_frames(reader: _Reader, world: np.ndarray, nodes: np.ndarray, names: list[str]) -> np.ndarray:
    """Bind frames a Skeleton accepts: a bone whose rest world matrix is singular (a zero scale on its
    node or an ancestor) keeps its position with an unscaled, unrotated bind frame, and a warning.
    Its rigid meshes still collapse at rest as the file says; nothing downstream inverts a singular
    matrix. Non-finite frames (scales overflowing down a chain) stay refused by the Skeleton."""
    bad = [index for index in unusable_frames(world) if np.all(np.abs(world[index]) <= MAX_MAGNITUDE)]
    if not bad:
        return world
    world = world.copy()
    world[bad, :3, :3] = np.eye(3)
    listed = ", ".join(f"nodes[{nodes[index]}] {names[index]!r}" for index in bad[:3])
    reader.warnings.append(f"{listed}{' and others' if len(bad) > 3 else ''}: the rest transform is singular "
                           "(zero scale); the bone's bind frame drops its rotation and scale")
    return world


def _load(files: list[SniffedFile], options: LoadOptions) -> Model:
    """One glTF model; further glTF files add the animations they hold for its nodes (by node name).
    The model is the first file with meshes (else the first); the others' meshes are not drawn."""
    models = [read(sniffed.path) for sniffed in files]
    model = next((m for m in models if m.meshes), models[0])
    for clip in model.clips:
        clip.source = Path(model.files[0]).name
    for other in models:
        if other is not model:
            add_clips(model.clips, _lent_clips(other, model), model.warnings)
    return model


def _lent_clips(lender: Model, model: Model) -> list[Clip]:
    """``lender``'s clips moved onto ``model``'s nodes by name; a file whose animations move none of
    the model's nodes is an error."""
    name = Path(lender.files[0]).name
    mapping = bone_map(lender.skeleton, model.skeleton)
    clips = []
    for clip in lender.clips:
        clip.source = name
        moved = retarget(clip, mapping, model.skeleton)
        if moved is None:
            model.warnings.append(f"{name}: clip {clip.name!r} animates no node of {model.name}; skipped")
        else:
            clips.append(moved)
    if not clips:
        nodes = ", ".join(lender.skeleton.names[:8]) or "none"
        raise ReadError(lender.files[0], f"holds no animation for the nodes of {Path(model.files[0]).name} "
                                         f"(its animated nodes: {nodes})")
    unmatched = int((mapping < 0).sum())
    if unmatched:
        model.warnings.append(f"{name}: {unmatched} node(s) are not in {model.name}; their keys are ignored")
    return clips


register(Format(name="gltf", description="glTF 2.0 (.glb / .gltf)", sniff=sniff, load=_load,
                extensions=(".glb", ".gltf"), unit="metre"))
