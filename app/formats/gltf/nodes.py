"""What a glTF file's nodes mean: the bones, the skins and the helpers.

Nodes become bones, in node order; parents come from the ``children`` lists. A bone's ``rest_local``
is its node's TRS or matrix, as it is. Its ``bind_world`` is the inverse of its inverse bind matrix
in the first skin that lists it (where invertible), else its rest world matrix. The one kind of node
left out is a node that only carries a skinned mesh: it has a mesh, no children, is no joint of any
skin (nor a skin's ``skeleton`` root), no camera, no TRS animation channel targets it (morph
"weights" channels may), and every primitive read from its mesh is skinned (``node.skin`` set and
``JOINTS_0`` present), so no vertex is bound to it rigidly. A skinned mesh ignores its node's
transform, so such a node moves nothing. Every other node is kept, empty leaf nodes included (they
mark helper points); the kept bones are renumbered in node order.

Camera and light nodes (KHR_lights_punctual) with no mesh, no children, no joint and no TRS channel
become Helpers under their parent bone: listed, never drawn or framed.
"""

from __future__ import annotations

import numpy as np

from app import maths
from app.formats.gltf.container import attribute_accessors
from app.formats.gltf.reading import Reading
from app.maths import FLOAT32_SINGULAR
from app.bone_tree import hierarchy_levels, world_from_local
from app.model import MAX_MAGNITUDE, usable_frames


def node_frames(reading: Reading) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Names (N,), parents (N,), rest local and rest world matrices (N, 4, 4), per node."""
    nodes = reading.gltf.nodes or []
    parents = np.full(len(nodes), -1, np.int64)
    for index, node in enumerate(nodes):
        for position, child in enumerate(node.children or []):
            where = f"nodes[{index}].children[{position}]"
            reading.item("nodes", child, where)
            if child == index:
                raise reading.fail(f"{where}: node {index} lists itself as a child")
            if parents[child] >= 0:
                raise reading.fail(f"{where}: node {child} is already a child of node {parents[child]}")
            parents[child] = index
    try:
        levels = hierarchy_levels(parents)
    except ValueError as error:
        raise reading.fail(f"nodes: the children lists form a cycle ({error})") from None
    local = node_matrices(reading, nodes)
    with np.errstate(over="ignore", invalid="ignore"):
        world = world_from_local(local, parents, levels)
    huge = np.flatnonzero(~np.all(np.abs(world) <= MAX_MAGNITUDE, axis=(1, 2)))
    if huge.size:
        raise reading.fail(f"nodes[{huge[0]}]: its rest world matrix is beyond ±{MAX_MAGNITUDE:g} (the "
                           "transforms down its parent chain multiply past any model's size)")
    names = [node.name or f"node{index}" for index, node in enumerate(nodes)]
    return names, parents, local, world


def read_skins(reading: Reading) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per skin: its joints (J,) as node indices and inverse bind matrices (J, 4, 4)."""
    result = []
    for skin_index, skin in enumerate(reading.gltf.skins or []):
        where = f"skins[{skin_index}]"
        for position, joint in enumerate(skin.joints or []):
            reading.item("nodes", joint, f"{where}.joints[{position}]")
        joints = np.array(skin.joints or [], dtype=np.int64)
        if not len(joints):
            raise reading.fail(f"{where}: a skin needs at least one joint")
        unique, first = np.unique(joints, return_index=True)
        if len(unique) != len(joints):
            twice = int(np.setdiff1d(np.arange(len(joints)), first)[0])
            raise reading.fail(f"{where}.joints[{twice}]: node {joints[twice]} is listed twice")
        if skin.inverseBindMatrices is None:
            inverse_binds = np.broadcast_to(np.eye(4), (len(joints), 4, 4)).copy()
        else:
            flat = reading.accessor(skin.inverseBindMatrices, f"{where}.inverseBindMatrices",
                                    ("MAT4",), (5126,))
            if len(flat) < len(joints):
                raise reading.fail(f"{where}.inverseBindMatrices: {len(flat)} matrices for "
                                   f"{len(joints)} joints")
            inverse_binds = np.swapaxes(flat[: len(joints)].reshape(-1, 4, 4), 1, 2)
        result.append((joints, inverse_binds))
    return result


def kept_nodes(reading: Reading, parents: np.ndarray, walkmeshes: frozenset[int] = frozenset()) -> np.ndarray:
    """(N,) bool: which nodes become bones (see the module docstring); ``parents`` per node;
    ``walkmeshes``: the nodes marked as Boneyard's walkmeshes, left out unless a bone must be there."""
    nodes = reading.gltf.nodes or []
    keep = np.ones(len(nodes), bool)
    has_children = np.zeros(len(nodes), bool)
    has_children[parents[parents >= 0]] = True
    needed = set()
    for skin_index, skin in enumerate(reading.gltf.skins or []):
        for position, joint in enumerate(skin.joints or []):
            reading.item("nodes", joint, f"skins[{skin_index}].joints[{position}]")
            needed.add(joint)
        if skin.skeleton is not None:
            reading.item("nodes", skin.skeleton, f"skins[{skin_index}].skeleton")
            needed.add(skin.skeleton)
    for index, animation in enumerate(reading.gltf.animations or []):
        for position, channel in enumerate(animation.channels or []):
            target = channel.target
            if target is None or target.node is None or target.path == "weights":
                continue
            reading.item("nodes", target.node, f"animations[{index}].channels[{position}].target.node")
            needed.add(target.node)
    for index, node in enumerate(nodes):
        if is_helper(reading, index, node, has_children, needed) or (
                index in walkmeshes and not has_children[index] and index not in needed):
            keep[index] = False
            continue
        if node.mesh is None or node.skin is None or node.camera is not None \
                or has_children[index] or index in needed:
            continue
        source = reading.item("meshes", node.mesh, f"nodes[{index}].mesh")
        rigid = False
        for primitive in source.primitives or []:
            mode = 4 if primitive.mode is None else primitive.mode
            if mode in (0, 4) and attribute_accessors(primitive.attributes).get("JOINTS_0") is None:
                rigid = True
        keep[index] = rigid
    return keep


def is_helper(reading: Reading, index: int, node, has_children: np.ndarray, needed: set) -> bool:
    """Whether node ``index`` is a camera, a light (KHR_lights_punctual) or a node Boneyard exported
    as a helper (``extras.helper``), and nothing else: no mesh, no children, no joint and not
    animated. It becomes a Helper, listed but not drawn."""
    raw_nodes = reading.document.get("nodes")
    raw = raw_nodes[index] if isinstance(raw_nodes, list) and index < len(raw_nodes) else {}
    raw = raw if isinstance(raw, dict) else {}
    extensions, extras = raw.get("extensions"), raw.get("extras")
    light = isinstance(extensions, dict) and "KHR_lights_punctual" in extensions
    exported = isinstance(extras, dict) and extras.get("helper") is True
    return (node.camera is not None or light or exported) and node.mesh is None \
        and not has_children[index] and index not in needed


def node_matrices(reading: Reading, nodes: list) -> np.ndarray:
    """(N, 4, 4) rest local matrices of the nodes, from ``matrix`` (column-major) or T·R·S, composed
    for all nodes at once (a file of 200,000 nodes costs one numpy pass, not 200,000)."""
    translations, scales = np.zeros((len(nodes), 3)), np.ones((len(nodes), 3))
    rotations = np.tile([0.0, 0.0, 0.0, 1.0], (len(nodes), 1))
    given = {}
    for index, node in enumerate(nodes):
        where = f"nodes[{index}]"
        if node.matrix is not None:
            given[index] = reading.floats(node.matrix, 16, None, f"{where}.matrix").reshape(4, 4).T
            continue
        if node.translation is not None:
            translations[index] = reading.floats(node.translation, 3, None, f"{where}.translation")
        if node.rotation is not None:
            rotations[index] = reading.floats(node.rotation, 4, None, f"{where}.rotation")
        if node.scale is not None:
            scales[index] = reading.floats(node.scale, 3, None, f"{where}.scale")
    local = maths.compose_trs(translations, maths.quat_normalize(rotations), scales)
    for index, matrix in given.items():
        local[index] = matrix
    return local


def bind_frames(world: np.ndarray, skins: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """(N, 4, 4) each node's bind frame: the inverse of its inverse bind matrix in the first skin that
    lists it (and has it invertible), else its rest world matrix."""
    bind = world.copy()
    for joints, inverse_binds in reversed(skins):
        affine = np.all(inverse_binds[:, 3] == (0, 0, 0, 1), axis=1)
        usable = maths.invertible(inverse_binds, FLOAT32_SINGULAR) & affine
        bind[joints[usable]] = np.linalg.inv(inverse_binds[usable])
    return bind


def usable_bind_frames(reading: Reading, world: np.ndarray, nodes: np.ndarray,
                       names: list[str]) -> np.ndarray:
    """Bind frames a Skeleton accepts (``model.usable_frames``): a bone whose rest world matrix is
    singular (a zero scale on its node or an ancestor) keeps its position with an unscaled, unrotated
    bind frame, and a warning. Its rigid meshes still collapse at rest as the file says; nothing
    downstream inverts a singular matrix. Non-finite frames (scales overflowing down a chain) stay
    refused by the Skeleton."""
    world, bad = usable_frames(world)
    if bad:
        listed = ", ".join(f"nodes[{nodes[index]}] {names[index]!r}" for index in bad[:3])
        reading.warnings.append(f"{listed}{' and others' if len(bad) > 3 else ''}: the rest transform is "
                                "singular (zero scale); the bone's bind frame drops its rotation and scale")
    return world


def unique_names(names: list[str], nodes: np.ndarray) -> list[str]:
    """Bone names made unique (a suffix ``#node index``) so bones can be found by name."""
    seen: dict[str, int] = {}
    for name in names:
        seen[name] = seen.get(name, 0) + 1
    return [name if seen[name] == 1 else f"{name}#{node}" for name, node in zip(names, nodes)]
