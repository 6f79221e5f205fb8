"""What a glTF file's meshes mean: each primitive of mode TRIANGLES (or POINTS) is one Mesh.

A skinned primitive keeps its vertices, normals and morph targets as they are, with ``Mesh.skin``
holding its skin's joints (as bone indices) and inverse bind matrices (identity when absent), so
every pose is the spec's ``Σ w · W(joint) @ IBM(joint) @ p`` exactly, whatever the skin's bind pose
and however many skins the file has. Morph targets stay targets (``Mesh.morphs``: POSITION and NORMAL
deltas, the default weights already in the positions); animated weights are the clips' to key. A
mesh without a skin is bound rigidly (weight 1) to its node, its vertices placed in model space by
the node's bind matrix. Every JOINTS_n/WEIGHTS_n set is read; a vertex keeps its four strongest
influences (the GPU's), renormalised, with a warning counting the vertices that lost some. COLOR_0
gives the mesh's vertex colours. Draco-compressed primitives are decoded first
(``container.Document.draco``).
"""

from __future__ import annotations

import re

import numpy as np

from app import maths
from app.formats.gltf.container import attribute_accessors
from app.formats.gltf.materials import read_material
from app.formats.gltf.reading import Reading
from app.model import Mesh, MeshSkin
from app.morph_targets import MorphTargets
from app.skin_weights import GPU_INFLUENCES, top_influences

#: Component types a vertex attribute may have: float only (core POSITION, NORMAL), float or unsigned
#: normalised (core TEXCOORD, WEIGHTS), and with KHR_mesh_quantization also signed or any of them.
FLOAT, UNSIGNED, SIGNED = (5126,), (5126, 5121, 5123), (5126, 5120, 5122)
ANY_COMPONENT = (5126, 5120, 5121, 5122, 5123)
#: Negative weights down to this are Draco quantization noise, read as 0.
DRACO_WEIGHT_NOISE = 1e-2
#: The name of a JOINTS_n or WEIGHTS_n attribute, n its influence set.
INFLUENCE_SET = re.compile(r"(?:JOINTS|WEIGHTS)_(\d+)")


def read_meshes(reading: Reading, bind: np.ndarray, node_bones: np.ndarray, skins: list[MeshSkin],
                skipped: frozenset[int] = frozenset()
                ) -> tuple[list[Mesh], list[tuple[int, int, np.ndarray, np.ndarray]]]:
    """Every primitive of every node's mesh, in node order, joints as bone indices.

    ``bind``: (N, 4, 4) node bind matrices (rigid meshes are placed by them); ``node_bones``: (N,)
    each node's bone index (−1: not a bone); ``skins``: each glTF skin as a MeshSkin; ``skipped``: nodes
    whose meshes are read otherwise (walkmeshes). Returns the
    meshes and, per mesh with morph targets, (node, mesh index).
    """
    meshes, morphs = [], []
    for index, node in enumerate(reading.gltf.nodes or []):
        if node.mesh is None or index in skipped:
            continue
        where = f"nodes[{index}].mesh"
        source = reading.item("meshes", node.mesh, where)
        for position, primitive in enumerate(source.primitives or []):
            where = f"meshes[{node.mesh}].primitives[{position}]"
            mode = 4 if primitive.mode is None else primitive.mode
            if mode not in (0, 4):
                reading.warnings.append(f"{where}: mode {mode} skipped (only TRIANGLES and POINTS are read)")
                continue
            name = source.name or f"mesh{node.mesh}"
            if len(source.primitives) > 1:
                name = f"{name}.{position}"
            reading.decoded = reading.draco(primitive, where)
            mesh = read_primitive(reading, index, node, primitive, mode, name, where, bind, node_bones, skins)
            reading.decoded = {}
            if mesh.morphs is not None:
                morphs.append((index, len(meshes)))
            meshes.append(mesh)
    return meshes, morphs


def read_primitive(reading: Reading, node_index: int, node, primitive, mode: int, name: str, where: str,
                   bind: np.ndarray, node_bones: np.ndarray,
                   skins: list[MeshSkin]) -> Mesh:
    """One Mesh, with its morph targets (deltas in the mesh's space).

    A skinned primitive keeps its vertices as they are, with its skin; a rigid one is placed in
    model space by its node's bind matrix and weighted 1 on its node."""
    attributes = attribute_accessors(primitive.attributes)
    if attributes.get("POSITION") is None:
        raise reading.fail(f"{where}: no POSITION attribute")
    quantized = reading.quantized
    positions = reading.accessor(attributes["POSITION"], f"{where}.attributes.POSITION", ("VEC3",),
                                 ANY_COMPONENT if quantized else FLOAT).astype(np.float64)
    count = len(positions)
    normals = vertex_attribute(reading, attributes.get("NORMAL"), "NORMAL", where, ("VEC3",),
                               SIGNED if quantized else FLOAT, count, normalized=True)
    material, texcoord = read_material(reading, primitive.material, where)
    uvs = vertex_attribute(reading, attributes.get(f"TEXCOORD_{texcoord}"), f"TEXCOORD_{texcoord}", where,
                           ("VEC2",), ANY_COMPONENT if quantized else UNSIGNED, count,
                           normalized=None if quantized else True)
    colors = vertex_colors(reading, attributes.get("COLOR_0"), where, count)
    triangles = read_triangles(reading, primitive, count, where) if mode == 4 else None
    skin = None
    if node.skin is not None and attributes.get("JOINTS_0") is not None:
        skin = reading.item_of(skins, node.skin, f"nodes[{node_index}].skin")
        joints, weights = read_skin_weights(reading, node.skin, attributes, count, where, len(skin.joints))
        joints = np.where(weights != 0, skin.joints[joints], 0)
        placement = np.eye(4)
    else:
        joints = np.full((count, 1), node_bones[node_index])
        weights = np.ones((count, 1))
        placement = bind[node_index]
    deltas = morph_deltas(reading, primitive, count, where, "POSITION")
    morphs = None
    if deltas is not None:
        defaults = default_weights(reading, node_index, node, len(deltas))
        positions = positions + np.einsum("m,mvi->vi", defaults, deltas)
        normal_deltas = None if normals is None else morph_deltas(reading, primitive, count, where, "NORMAL")
        if normal_deltas is not None:
            normal_deltas = normal_deltas @ _normal_matrix(placement).T
        morphs = MorphTargets(positions=deltas @ placement[:3, :3].T, defaults=defaults,
                              normals=normal_deltas,
                              names=target_names(source_mesh(reading, node, node_index), len(deltas)))
    if skin is None:
        positions = positions @ placement[:3, :3].T + placement[:3, 3]
        if normals is not None:
            normals = _transform_normals(placement, normals)
        if triangles is not None and np.linalg.det(placement[:3, :3]) < 0:
            triangles = triangles[:, ::-1]  # a mirroring node flips the winding (glTF 3.7.4)
    return Mesh(name=name, positions=positions, joints=joints, weights=weights, normals=normals,
                uvs=uvs, triangles=triangles, material=material, skin=skin, colors=colors, morphs=morphs)


def source_mesh(reading: Reading, node, node_index: int):
    return reading.item("meshes", node.mesh, f"nodes[{node_index}].mesh")


def target_names(mesh, count: int) -> tuple[str, ...]:
    """The targets' names from ``mesh.extras.targetNames`` (a common convention), when it names each."""
    names = (mesh.extras or {}).get("targetNames") if isinstance(mesh.extras, dict) else None
    if isinstance(names, list) and len(names) == count and all(isinstance(n, str) for n in names):
        return tuple(names)
    return ()


def vertex_colors(reading: Reading, index, where: str, count: int) -> np.ndarray | None:
    """(V, 4) linear RGBA from COLOR_0 (VEC3 or VEC4; float, or normalised unsigned byte/short),
    alpha 1 for VEC3; float values outside 0..1 are clamped, with a warning."""
    colors = vertex_attribute(reading, index, "COLOR_0", where, ("VEC3", "VEC4"), UNSIGNED, count,
                              normalized=True)
    if colors is None:
        return None
    if np.any((colors < 0) | (colors > 1)):
        reading.warnings.append(f"{where}.attributes.COLOR_0: values outside 0..1 clamped")
        colors = np.clip(colors, 0.0, 1.0)
    if colors.shape[1] == 3:
        colors = np.concatenate([colors, np.ones((count, 1))], axis=1)
    return colors


def default_weights(reading: Reading, node_index: int, node, targets: int) -> np.ndarray:
    """(targets,) the morph weights at rest: the node's ``weights``, else its mesh's, else 0."""
    raw_nodes = reading.document.get("nodes")
    raw_node = raw_nodes[node_index] if isinstance(raw_nodes, list) and node_index < len(raw_nodes) \
        else {}
    mesh = reading.item("meshes", node.mesh, f"nodes[{node_index}].mesh")
    for weights, where in ((raw_node.get("weights") if isinstance(raw_node, dict) else None,
                            f"nodes[{node_index}].weights"),
                           (mesh.weights, f"meshes[{node.mesh}].weights")):
        if weights is not None:
            if not isinstance(weights, list) or len(weights) != targets:
                reading.warnings.append(f"{where}: expected {targets} weights (one per morph target), "
                                        f"got {weights!r}; ignored")
                continue
            return reading.floats(weights, targets, None, where)
    return np.zeros(targets)


def vertex_attribute(reading: Reading, index, name: str, where: str, types, components, count: int,
                     normalized: bool | None = None):
    if index is None:
        return None
    values = reading.accessor(index, f"{where}.attributes.{name}", types, components, normalized)
    if len(values) != count:
        raise reading.fail(f"{where}.attributes.{name}: {len(values)} elements, POSITION has {count}")
    return values


def read_triangles(reading: Reading, primitive, count: int, where: str) -> np.ndarray:
    """(T, 3) vertex indices, checked against the vertex count."""
    if primitive.indices is None:
        indices = np.arange(count - count % 3)
        if count % 3:
            reading.warnings.append(f"{where}: {count} vertices drawn as triangles is not a multiple of 3; "
                                    f"the last {count % 3} form no triangle")
    else:
        indices = reading.accessor(primitive.indices, f"{where}.indices", ("SCALAR",),
                                   (5121, 5123, 5125))[:, 0]
    if len(indices) % 3:
        raise reading.fail(f"{where}.indices: {len(indices)} indices is not a whole number of triangles")
    if indices.size and indices.max() >= count:
        bad = int(np.argmax(indices >= count))
        raise reading.fail(f"{where}.indices: index {bad} is {indices[bad]}, outside 0..{count - 1}")
    return indices.reshape(-1, 3)


def read_skin_weights(reading: Reading, skin_index: int, attributes, count: int, where: str,
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
            reading.warnings.append(f"{where}: {missing}_{set_index} is missing, so the influence set "
                                    f"{set_index} is ignored")
            continue
        lanes_joints.append(vertex_attribute(reading, joints_index, f"JOINTS_{set_index}", where, ("VEC4",),
                                             (5121, 5123), count))
        lanes_weights.append(vertex_attribute(reading, weights_index, f"WEIGHTS_{set_index}", where,
                                              ("VEC4",), UNSIGNED, count, normalized=True))
    if not lanes_joints:
        raise reading.fail(f"{where}: JOINTS_0 without a WEIGHTS_0 to go with it")
    joints = np.concatenate(lanes_joints, axis=1)
    weights = np.concatenate(lanes_weights, axis=1)
    if reading.decoded:  # Draco's lossy quantization leaves weights a little below 0
        weights = np.where((weights < 0) & (weights > -DRACO_WEIGHT_NOISE), 0.0, weights)
    used = weights != 0
    if np.any(weights < 0) or np.any(used & (joints >= joint_count)):
        row = int(np.argmax(np.any((weights < 0) | (used & (joints >= joint_count)), axis=1)))
        raise reading.fail(f"{where}: vertex {row} has joints {joints[row].tolist()} / weights "
                           f"{weights[row].tolist()}; expected joints below {joint_count} of "
                           f"skins[{skin_index}] and weights ≥ 0")
    joints = np.where(used, joints, 0)
    totals = weights.sum(axis=1, keepdims=True)
    if np.any(np.abs(totals - 1) > 1e-2):
        reading.warnings.append(f"{where}: some vertex weights do not sum to 1; normalised")
    crowded = int(np.count_nonzero(used.sum(axis=1) > GPU_INFLUENCES))
    if crowded:
        reading.warnings.append(f"{where}: {crowded} vertices have more than {GPU_INFLUENCES} influences "
                                f"({len(lanes_joints)} sets); each keeps its {GPU_INFLUENCES} strongest, "
                                f"renormalised")
    return top_influences(joints, weights, GPU_INFLUENCES)


def morph_deltas(reading: Reading, primitive, count: int, where: str, attribute: str) -> np.ndarray | None:
    """(M, V, 3) ``attribute`` (POSITION or NORMAL) displacements of the primitive's morph targets, or
    None when it has no targets (or, for NORMAL, no target displaces normals)."""
    targets = primitive.targets or []
    accessors = [attribute_accessors(target).get(attribute) for target in targets]
    if not targets or (attribute != "POSITION" and all(accessor is None for accessor in accessors)):
        return None
    deltas = np.zeros((len(targets), count, 3))
    for index, accessor in enumerate(accessors):
        if accessor is not None:
            deltas[index] = vertex_attribute(reading, accessor, f"targets[{index}].{attribute}", where,
                                             ("VEC3",), SIGNED if reading.quantized else FLOAT, count)
    return deltas


def _normal_matrix(placement: np.ndarray) -> np.ndarray:
    """(3, 3) the inverse transpose of ``placement``'s 3×3 part (identity when it is singular)."""
    linear = placement[:3, :3]
    return np.linalg.inv(linear).T if abs(np.linalg.det(linear)) > 1e-20 else np.eye(3)


def _transform_normals(placement: np.ndarray, normals: np.ndarray) -> np.ndarray:
    """(V, 3) unit normals under one (4, 4) matrix (the inverse transpose of its 3×3 part; a singular
    one leaves them as they are)."""
    unit, valid = maths.normalize(normals @ _normal_matrix(placement).T)
    unit[~valid] = (0.0, 0.0, 1.0)
    return unit
