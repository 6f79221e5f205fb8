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
  model space by the node's bind matrix. Every JOINTS_n/WEIGHTS_n set is read; a vertex keeps its
  four strongest influences (the GPU's), renormalised, with a warning counting the vertices that lost
  some. COLOR_0 gives the mesh's vertex colours.
- Camera and light nodes (KHR_lights_punctual) with no mesh, no children, no joint and no TRS channel
  become Helpers under their parent bone: listed, never drawn or framed.
- Tails are derived at rest, where the model is drawn, and carried to bind space (a skin may bind in
  other units or axes than its nodes, as Mixamo rigs exported from Blender do): that needs the model
  posed, so the reader leaves it to the load stage (``DeriveTailsAtRest``, app/loading.py).
- Animations become keyed clips, one Track per (node, interpolation). CUBICSPLINE samplers are
  resampled to linear keys (``CUBIC_SUBSTEPS`` per key interval) by the spec's Hermite formula.
  An animation that drives morph weights becomes a 'vertex' clip sampled at every key time (and,
  for STEP samplers, one float32 step before each key); animated weights replace the rest weights
  (``node.weights``, else ``mesh.weights``). The reader gives the morph offsets per frame; the load
  stage skins them (``BakeVertexClip``).
- Uvs are kept as they are: glTF's origin is the image's top-left corner, the project's convention.
  A material gives the base colour factor, alpha mode and cutoff, double-sidedness, and its base-colour
  texture: the sampler's wrap modes, a KHR_texture_transform matrix, the TEXCOORD set it names, and
  the image — decoded here when embedded (GLB bufferView or data URI), else its URI, which the texture
  lookup finds beside the file (app/formats/textures.py). Without a texture, ``extras.texture`` names one
  (Boneyard's exporter keeps there the names glTF cannot reference as images).

Every malformed input raises ``ReadError`` naming the file and the JSON path (and, inside a GLB, the
file byte offset); sizes are checked against the bytes present before any array is read.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import unquote

from typing import TYPE_CHECKING

import numpy as np

from app import maths
from app.maths import FLOAT32_SINGULAR
from app.formats.gltf_container import (
    APPEARANCE_EXTENSIONS,
    GLB_MAGIC,
    IMAGE_EXTENSIONS,
    SPECULAR_GLOSSINESS,
    Buffer,
    Document,
    attribute_accessors,
    decode_data_uri,
    load_document,
    read_container,
)
from app.formats.animation_sets import add_clips, bone_map, retarget
from app.formats.registry import (
    Format,
    LoadOptions,
    ReadError,
    SniffedFile,
    register,
)
from app.bone_tree import hierarchy_levels, world_from_local
from app.model import (
    MAX_MAGNITUDE,
    Clip,
    Helper,
    Material,
    Mesh,
    MeshSkin,
    Model,
    Skeleton,
    Track,
    usable_frames,
)
from app.posing_steps import BakeVertexClip, DeriveTailsAtRest
from app.skin_weights import GPU_INFLUENCES, top_influences
from app.formats.textures import decode_embedded

if TYPE_CHECKING:
    from pygltflib import GLTF2

#: Linear keys made per key interval when resampling a CUBICSPLINE sampler.
CUBIC_SUBSTEPS = 8

#: Component types a vertex attribute may have: float only (core POSITION, NORMAL), float or unsigned
#: normalised (core TEXCOORD, WEIGHTS), and with KHR_mesh_quantization also signed or any of them.
FLOAT, UNSIGNED, SIGNED = (5126,), (5126, 5121, 5123), (5126, 5120, 5122)
ANY_COMPONENT = (5126, 5120, 5121, 5122, 5123)
#: Negative weights down to this are Draco quantization noise, read as 0.
DRACO_WEIGHT_NOISE = 1e-2
JSON_KEYS = re.compile(rb'"(asset|accessors|bufferViews|buffers|nodes|meshes|scenes|skins|animations)"\s*:')
TRS_WIDTHS = {"translation": 3, "rotation": 4, "scale": 3}
INFLUENCE_SET = re.compile(r"(?:JOINTS|WEIGHTS)_(\d+)")
#: Sampler wrap modes (GL enums) by the names Material uses.
WRAP_MODES = {10497: "repeat", 33071: "clamp", 33648: "mirror"}


class _Reader(Document):
    """Reads one glTF document into a Model."""

    def __init__(self, path: Path, gltf: GLTF2, buffers: list[Buffer], document: dict | None = None):
        super().__init__(path, gltf, buffers, document)
        self.warnings: list[str] = self._unshown_lights() + self._approximated_materials()
        self.pending: list[BakeVertexClip] = []
        self.images: dict[int, tuple[str, np.ndarray | None]] = {}

    def _unshown_lights(self) -> list[str]:
        """A warning for the file's KHR_lights_punctual lights: the view lights every model itself."""
        lights = ((self.document.get("extensions") or {}).get("KHR_lights_punctual") or {}).get("lights")
        if not isinstance(lights, list) or not lights:
            return []
        return [f"{len(lights)} light(s) (KHR_lights_punctual) not used: Boneyard lights the scene itself"]

    def _approximated_materials(self) -> list[str]:
        """A warning for each material extension the file requires that the view draws without."""
        required = self.document.get("extensionsRequired") or []
        return [f"the file requires {name}; its materials are drawn with their base colour and texture only"
                for name in APPEARANCE_EXTENSIONS if name in required]

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
        local = self.node_matrices(nodes)
        with np.errstate(over="ignore", invalid="ignore"):
            world = world_from_local(local, parents, levels)
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
            if self.is_helper(index, node, has_children, needed):
                keep[index] = False
                continue
            if node.mesh is None or node.skin is None or node.camera is not None \
                    or has_children[index] or index in needed:
                continue
            source = self.item("meshes", node.mesh, f"nodes[{index}].mesh")
            rigid = False
            for primitive in source.primitives or []:
                mode = 4 if primitive.mode is None else primitive.mode
                if mode in (0, 4) and attribute_accessors(primitive.attributes).get("JOINTS_0") is None:
                    rigid = True
            keep[index] = rigid
        return keep

    def is_helper(self, index: int, node, has_children: np.ndarray, needed: set) -> bool:
        """Whether node ``index`` is a camera, a light (KHR_lights_punctual) or a node Boneyard exported
        as a helper (``extras.helper``), and nothing else: no mesh, no children, no joint and not
        animated. It becomes a Helper, listed but not drawn."""
        raw_nodes = self.document.get("nodes")
        raw = raw_nodes[index] if isinstance(raw_nodes, list) and index < len(raw_nodes) else {}
        raw = raw if isinstance(raw, dict) else {}
        extensions, extras = raw.get("extensions"), raw.get("extras")
        light = isinstance(extensions, dict) and "KHR_lights_punctual" in extensions
        exported = isinstance(extras, dict) and extras.get("helper") is True
        return (node.camera is not None or light or exported) and node.mesh is None \
            and not has_children[index] and index not in needed

    def node_matrices(self, nodes: list) -> np.ndarray:
        """(N, 4, 4) rest local matrices of the nodes, from ``matrix`` (column-major) or T·R·S, composed
        for all nodes at once (a file of 200,000 nodes costs one numpy pass, not 200,000)."""
        translations, scales = np.zeros((len(nodes), 3)), np.ones((len(nodes), 3))
        rotations = np.tile([0.0, 0.0, 0.0, 1.0], (len(nodes), 1))
        given = {}
        for index, node in enumerate(nodes):
            where = f"nodes[{index}]"
            if node.matrix is not None:
                given[index] = self.floats(node.matrix, 16, None, f"{where}.matrix").reshape(4, 4).T
                continue
            if node.translation is not None:
                translations[index] = self.floats(node.translation, 3, None, f"{where}.translation")
            if node.rotation is not None:
                rotations[index] = self.floats(node.rotation, 4, None, f"{where}.rotation")
            if node.scale is not None:
                scales[index] = self.floats(node.scale, 3, None, f"{where}.scale")
        local = maths.compose_trs(translations, maths.quat_normalize(rotations), scales)
        for index, matrix in given.items():
            local[index] = matrix
        return local

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
        attributes = attribute_accessors(primitive.attributes)
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
        colors = self.vertex_colors(attributes.get("COLOR_0"), where, count)
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
                normals = _transform_normals(placement, normals)
            if triangles is not None and np.linalg.det(placement[:3, :3]) < 0:
                triangles = triangles[:, ::-1]  # a mirroring node flips the winding (glTF 3.7.4)
        mesh = Mesh(name=name, positions=positions, joints=joints, weights=weights, normals=normals,
                    uvs=uvs, triangles=triangles, material=material, skin=skin, colors=colors)
        return mesh, morph

    def vertex_colors(self, index, where: str, count: int) -> np.ndarray | None:
        """(V, 4) linear RGBA from COLOR_0 (VEC3 or VEC4; float, or normalised unsigned byte/short),
        alpha 1 for VEC3; float values outside 0..1 are clamped, with a warning."""
        colors = self.vertex_attribute(index, "COLOR_0", where, ("VEC3", "VEC4"), UNSIGNED, count,
                                       normalized=True)
        if colors is None:
            return None
        if np.any((colors < 0) | (colors > 1)):
            self.warnings.append(f"{where}.attributes.COLOR_0: values outside 0..1 clamped")
            colors = np.clip(colors, 0.0, 1.0)
        if colors.shape[1] == 3:
            colors = np.concatenate([colors, np.ones((count, 1))], axis=1)
        return colors

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
        """Joints (V, K) as indices into the skin's joints and normalised weights (V, K), from every
        JOINTS_n/WEIGHTS_n pair, K at most ``GPU_INFLUENCES``: a vertex with more keeps its strongest
        influences, renormalised (one warning counts the vertices)."""
        sets = {int(match.group(1)) for match in map(INFLUENCE_SET.fullmatch, attributes) if match}
        lanes_joints, lanes_weights = [], []
        for set_index in sorted(sets):
            joints_index = attributes.get(f"JOINTS_{set_index}")
            weights_index = attributes.get(f"WEIGHTS_{set_index}")
            if joints_index is None or weights_index is None:
                missing = "WEIGHTS" if weights_index is None else "JOINTS"
                self.warnings.append(f"{where}: {missing}_{set_index} is missing, so the influence set "
                                     f"{set_index} is ignored")
                continue
            lanes_joints.append(self.vertex_attribute(joints_index, f"JOINTS_{set_index}", where, ("VEC4",),
                                                      (5121, 5123), count))
            lanes_weights.append(self.vertex_attribute(weights_index, f"WEIGHTS_{set_index}", where,
                                                       ("VEC4",), UNSIGNED, count, normalized=True))
        if not lanes_joints:
            raise self.fail(f"{where}: JOINTS_0 without a WEIGHTS_0 to go with it")
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
        crowded = int(np.count_nonzero(used.sum(axis=1) > GPU_INFLUENCES))
        if crowded:
            self.warnings.append(f"{where}: {crowded} vertices have more than {GPU_INFLUENCES} influences "
                                 f"({len(lanes_joints)} sets); each keeps its {GPU_INFLUENCES} strongest, "
                                 f"renormalised")
        return top_influences(joints, weights, GPU_INFLUENCES)

    def morph_deltas(self, primitive, count: int, where: str) -> np.ndarray | None:
        """(M, V, 3) POSITION displacements of the primitive's morph targets, or None."""
        targets = primitive.targets or []
        if not targets:
            return None
        deltas = np.zeros((len(targets), count, 3))
        for index, target in enumerate(targets):
            accessor = attribute_accessors(target).get("POSITION")
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
        pbr, color_at, texture_at = self.base_color_source(material, where)
        color = self.floats(pbr.baseColorFactor if pbr else None, 4, (1.0, 1.0, 1.0, 1.0), color_at)
        mode = material.alphaMode or "OPAQUE"
        if mode not in ("OPAQUE", "MASK", "BLEND"):
            self.warnings.append(f"{where}.alphaMode {mode!r} is not OPAQUE, MASK or BLEND; drawn opaque")
            mode = "OPAQUE"
        cutoff = material.alphaCutoff if isinstance(material.alphaCutoff, (int, float)) else 0.5
        extensions = material.extensions if isinstance(material.extensions, dict) else {}
        result = Material(name=material.name or f"material{index}", base_color=tuple(color.tolist()),
                          alpha_mode=mode, alpha_cutoff=float(cutoff),
                          double_sided=bool(material.doubleSided), unlit="KHR_materials_unlit" in extensions)
        info = pbr.baseColorTexture if pbr is not None else None
        if info is None:
            extras = material.extras if isinstance(material.extras, dict) else {}
            if isinstance(extras.get("texture"), str):  # Boneyard's exports keep names glTF cannot reference
                result.texture = extras["texture"]
            return result, 0
        return self.base_color_texture(result, info, texture_at)

    def base_color_source(self, material, where: str):
        """(what holds baseColorFactor and baseColorTexture, and the JSON paths of the two): the
        material's pbrMetallicRoughness, or its KHR_materials_pbrSpecularGlossiness diffuse colour and
        texture, which a client that reads that extension draws instead."""
        extension = (material.extensions or {}).get(SPECULAR_GLOSSINESS) \
            if isinstance(material.extensions, dict) else None
        if not isinstance(extension, dict):
            at = f"{where}.pbrMetallicRoughness"
            return material.pbrMetallicRoughness, f"{at}.baseColorFactor", f"{at}.baseColorTexture"
        at = f"{where}.extensions.{SPECULAR_GLOSSINESS}"
        texture = extension.get("diffuseTexture")
        if isinstance(texture, dict) and texture.get("index") is not None:
            texture = SimpleNamespace(index=texture["index"], texCoord=texture.get("texCoord"),
                                      extensions=texture.get("extensions"))
        else:
            texture = None
        diffuse = SimpleNamespace(baseColorFactor=extension.get("diffuseFactor"), baseColorTexture=texture)
        return diffuse, f"{at}.diffuseFactor", f"{at}.diffuseTexture"

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
        source, where_source = texture.source, f"textures[{info.index}].source"
        if source is None:
            source, where_source = self.extension_source(texture, info.index)
        if source is None:
            self.warnings.append(f"textures[{info.index}] has no source image (a texture extension this "
                                 "reader does not decode); the mesh is drawn in its base colour")
            return material, texcoord
        image = self.item("images", source, where_source)
        if source not in self.images:
            self.images[source] = self.image(image, source)
        name, image_data = self.images[source]
        material.texture, material.image = name, image_data
        return material, texcoord

    def extension_source(self, texture, index: int) -> tuple[int | None, str]:
        """(image index, its JSON path) a texture names only through an image extension (WebP, AVIF,
        DDS), the first such; (None, "") when it names none."""
        extensions = texture.extensions if isinstance(texture.extensions, dict) else {}
        for name in IMAGE_EXTENSIONS:
            entry = extensions.get(name)
            if isinstance(entry, dict) and entry.get("source") is not None:
                return entry["source"], f"textures[{index}].extensions.{name}.source"
        return None, ""

    def image(self, image, index: int) -> tuple[str, np.ndarray | None]:
        """(texture name, decoded pixels or None): an external URI is left to the texture lookup."""
        where = f"images[{index}]"
        uri = image.uri if isinstance(image.uri, str) else None
        if uri is not None and not uri.startswith("data:"):
            return unquote(uri), None
        name = image.name or f"image{index}"
        if uri is not None:
            try:
                data = decode_data_uri(self.path, uri, f"{where}")
            except ReadError as error:
                self.warnings.append(f"{error.message}; the mesh is drawn in its base colour")
                return name, None
        elif image.bufferView is not None:
            data = self.view_bytes(image.bufferView, f"{where}.bufferView")
        else:
            self.warnings.append(f"{where} has neither a uri nor a bufferView")
            return name, None
        return name, decode_embedded(data, where, self.warnings)

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

    def clips(self, meshes: list[Mesh], morphs, node_bones: np.ndarray) -> list[Clip]:
        """One clip per animation; ``morphs`` and morph weight keys are by node, tracks by bone. An
        animation of morph weights is left in ``pending`` to be baked into a 'vertex' clip."""
        clips = []
        for index, animation in enumerate(self.gltf.animations or []):
            name = animation.name or f"animation{index}"
            tracks, weight_keys = self.animation_channels(index, animation, node_bones)
            clip = Clip(name=name, kind="keyed", tracks=tracks)
            if weight_keys and morphs:
                self.pending.append(self.morph_bake(clip, weight_keys, meshes, morphs))
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

    def morph_bake(self, clip: Clip, weight_keys: dict, meshes: list[Mesh], morphs) -> BakeVertexClip:
        """What the load stage needs to play ``clip`` as a 'vertex' clip with a frame at every key time
        of the animation: each morphed mesh's offsets per frame, the animated weights' change from the
        rest weights already in its positions (the load stage adds them and skins). A STEP sampler
        (weights, or a bone's STEP track) also gets a frame one float32 step before each of its keys
        holding the previous value, since a vertex clip blends linearly between its frames.
        """
        steps = [keys[0][1:] for keys in weight_keys.values() if keys[2] == "step"]
        steps += [keys[0][1:] for track in clip.tracks if track.interpolation == "step"
                  for keys in (track.translation, track.rotation, track.scale) if keys is not None]
        holds = [np.nextafter(keys.astype(np.float32), np.float32(-np.inf)).astype(np.float64)
                 for keys in steps]
        times = np.unique(np.concatenate([clip.frame_times if clip.tracks else np.zeros(0)]
                                         + [keys[0] for keys in weight_keys.values()] + holds))
        offsets: list[np.ndarray | None] = [None] * len(meshes)
        for node, mesh_index, deltas, defaults in morphs:
            if node in weight_keys:
                moved = np.empty((len(times), *deltas.shape[1:]), np.result_type(deltas, np.float64))
                for frame, time in enumerate(times):
                    weights = _sample_weights(*weight_keys[node], float(time), len(deltas)) - defaults
                    moved[frame] = np.einsum("m,mvi->vi", weights, deltas)
                offsets[mesh_index] = moved
        return BakeVertexClip(clip=clip, times=times, offsets=offsets, path=self.path)


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


def _transform_normals(placement: np.ndarray, normals: np.ndarray) -> np.ndarray:
    """(V, 3) unit normals under one (4, 4) matrix (the inverse transpose of its 3×3 part; a singular
    one leaves them as they are)."""
    linear = placement[:3, :3]
    inverse_transpose = np.linalg.inv(linear).T if abs(np.linalg.det(linear)) > 1e-20 else np.eye(3)
    unit, valid = maths.normalize(normals @ inverse_transpose.T)
    unit[~valid] = (0.0, 0.0, 1.0)
    return unit


def _unique_names(names: list[str], nodes: np.ndarray) -> list[str]:
    """Bone names made unique (a suffix ``#node index``) so bones can be found by name."""
    seen: dict[str, int] = {}
    for name in names:
        seen[name] = seen.get(name, 0) + 1
    return [name if seen[name] == 1 else f"{name}#{node}" for name, node in zip(names, nodes)]


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
    reader = _Reader(path, *load_document(path, read_container(path)))
    try:
        return _build(reader, path)
    except ValueError as error:  # a model check on what was read (shapes, bone indices)
        raise ReadError(path, str(error)) from None
    except (TypeError, AttributeError, KeyError, IndexError) as error:
        raise ReadError(path, f"unexpected structure: {error!r}") from None


def _build(reader: _Reader, path: Path) -> Model:
    node_names, node_parents, node_local, node_world = reader.skeleton_frames()
    keep = reader.bone_nodes(node_parents)
    # The nodes left out that carry no mesh are cameras and lights: helpers.
    helper_nodes = [node for node in np.flatnonzero(~keep) if reader.gltf.nodes[node].mesh is None]
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
    # Tails are found at rest by the load stage (DeriveTailsAtRest); until then they are the heads.
    skeleton = Skeleton(names=names, parents=parents, bind_world=bind, heads=bind[:, :3, 3],
                        tails=bind[:, :3, 3], derived_tails=np.ones(len(names), bool),
                        rest_local=node_local[bone_nodes])
    helpers = [Helper(name=node_names[node], parent=int(node_bones[node_parents[node]])
                      if node_parents[node] >= 0 else -1, offset=node_local[node]) for node in helper_nodes]
    clips = reader.clips(meshes, morphs, node_bones)
    return Model(name=path.stem, skeleton=skeleton, meshes=meshes, clips=clips, helpers=helpers,
                 format="gltf", files=[str(path)], up_axis="Y", forward="+Z", warnings=reader.warnings,
                 pending=[DeriveTailsAtRest(path=path), *reader.pending])


def _bind_frames(world: np.ndarray, skins: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """(N, 4, 4) each node's bind frame: the inverse of its inverse bind matrix in the first skin that
    lists it (and has it invertible), else its rest world matrix."""
    bind = world.copy()
    for joints, inverse_binds in reversed(skins):
        affine = np.all(inverse_binds[:, 3] == (0, 0, 0, 1), axis=1)
        usable = maths.invertible(inverse_binds, FLOAT32_SINGULAR) & affine
        bind[joints[usable]] = np.linalg.inv(inverse_binds[usable])
    return bind


def _usable_frames(reader: _Reader, world: np.ndarray, nodes: np.ndarray, names: list[str]) -> np.ndarray:
    """Bind frames a Skeleton accepts (``model.usable_frames``): a bone whose rest world matrix is
    singular (a zero scale on its node or an ancestor) keeps its position with an unscaled, unrotated
    bind frame, and a warning. Its rigid meshes still collapse at rest as the file says; nothing
    downstream inverts a singular matrix. Non-finite frames (scales overflowing down a chain) stay
    refused by the Skeleton."""
    world, bad = usable_frames(world)
    if bad:
        listed = ", ".join(f"nodes[{nodes[index]}] {names[index]!r}" for index in bad[:3])
        reader.warnings.append(f"{listed}{' and others' if len(bad) > 3 else ''}: the rest transform is "
                               "singular (zero scale); the bone's bind frame drops its rotation and scale")
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
    vertex_clips = {id(step.clip) for step in lender.pending if isinstance(step, BakeVertexClip)}
    clips = []
    for clip in lender.clips:
        clip.source = name
        moved = None if id(clip) in vertex_clips else retarget(clip, mapping, model.skeleton)
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
