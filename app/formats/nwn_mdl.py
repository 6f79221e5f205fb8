"""Neverwinter Nights 1 compiled (binary) MDL (seed 002; docs/formats/nwn-binary-mdl.md).

Layout: a 12-byte header, the model-data block (pointers relative to file offset 12, 0 = NULL) and
the raw-data block (pointers relative to its start, 0xFFFFFFFF = NULL). Every node of the model
geometry is a bone, in pre-order; ``L = T(position) @ Rot(orientation)`` from the rest controllers.
Trimesh, skin and dangly nodes become meshes, their vertices moved from node space to model space at
rest (``W_node(rest) @ p``) so that ``S = W(t) @ inv(W(rest))`` skins them. Animations are keyed clips
matched to bones by node name (case-insensitive).

Several ``.mdl`` files in one load call: the one with mesh nodes is the model (the first file when
none has meshes) and the others lend their animations by node name. A model naming a supermodel
gets the supermodel's animations when ``<supermodel>.mdl`` lies beside it (case-insensitive).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from app import maths
from app.formats import nwn_layout as layout
from app.formats.binreader import Block, finite_or_zero, fixed_string
from app.formats.registry import Format, LoadOptions, ReadError, SniffedFile, read_bytes, register
from app.model import Clip, Material, Mesh, Model, Skeleton, Track, derive_tails

#: Deepest node tree accepted (nwnrs uses the same bound).
MAX_TREE_DEPTH = 256
#: Most nodes in one geometry, whatever the header says.
MAX_NODES = 65536
#: Longest supermodel chain followed.
MAX_SUPERMODEL_CHAIN = 16
#: Relative tolerance of the inverse-bind cross-check.
BIND_TOLERANCE = 1e-3

POSITION, ORIENTATION, SCALE = 8, 20, 36
NO_RAW = 0xFFFFFFFF


# --- parsed structures --------------------------------------------------------------------------

@dataclass
class Node:
    """One node of a geometry. controllers: type → (times (K,), values (K, n)) float64."""

    name: str
    parent: int
    flags: int
    part: int
    offset: int
    controllers: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    extras: dict = field(default_factory=dict)
    geometry: dict | None = None


@dataclass
class Animation:
    name: str
    length: float
    nodes: list[Node]
    events: list[tuple[float, str]]


@dataclass
class Parsed:
    path: Path
    name: str
    supermodel: str
    nodes: list[Node]
    animations: list[Animation]
    warnings: list[str]

    @property
    def has_meshes(self) -> bool:
        return any(_drawn(node) for node in self.nodes)


def _drawn(node: Node) -> bool:
    """Trimesh, skin and dangly nodes with vertices draw; AABB and animmesh nodes do not."""
    return node.geometry is not None and not node.flags & layout.UNDRAWN_MESH_FLAGS


class _Reader:
    """Parses one file: header, model header, node trees, animations."""

    def __init__(self, path: Path, data: bytes):
        self.path = path
        self.warnings: list[str] = []
        whole = Block(data, path)
        if len(data) < 12:
            raise whole.error(0, f"expected a 12-byte header, the file has {len(data)} bytes")
        marker, model_size, raw_size = (int(v) for v in whole.array(0, "<u4", 3, "header"))
        if marker != 0:
            raise whole.error(0, f"expected 0 (the binary marker), found {marker}: not a binary MDL")
        if 12 + model_size + raw_size > len(data):
            raise whole.error(4, f"truncated: the header promises 12 + {model_size} + {raw_size} = "
                                 f"{12 + model_size + raw_size} bytes, the file has {len(data)}")
        self.model = Block(data, path, 12, model_size, "model data")
        self.raw = Block(data, path, 12 + model_size, raw_size, "raw data")
        self.node_cap = min(MAX_NODES, model_size // layout.NODE.itemsize + 1)
        self.mismatched_arrays = 0

    # pointers and arrays

    def pointer(self, value: int, size: int, what: str, at: int) -> int:
        """A model-data pointer to ``size`` bytes, checked (0 is NULL and not allowed here)."""
        value = int(value)
        if value == 0:
            raise self.model.error(at, f"{what}: NULL pointer")
        self.model.check(value, 1, size, what, at)
        return value

    def array(self, definition, dtype, what: str, at: int) -> np.ndarray:
        """Records of an array definition (ptr, used, allocated) in model data."""
        pointer, used, allocated = (int(v) for v in definition)
        if used != allocated:
            self.mismatched_arrays += 1
        if used == 0:
            return np.zeros(0, dtype)
        if pointer == 0:
            raise self.model.error(at, f"{what}: {used} entries at a NULL pointer")
        return self.model.array(pointer, dtype, used, what, at)

    def raw_array(self, pointer: int, dtype, count: int, what: str, at: int) -> np.ndarray | None:
        """``count`` records from raw data, None when the pointer is 0xFFFFFFFF."""
        if int(pointer) == NO_RAW:
            return None
        return self.raw.array(int(pointer), dtype, count, what, at)

    # trees

    def walk(self, root: int, at: int, what: str, full: bool) -> list[Node]:
        """The node tree from ``root`` in pre-order, iteratively; cycles, shared children and
        trees deeper than MAX_TREE_DEPTH are errors. ``full``: parse sub-headers (model geometry)."""
        nodes: list[Node] = []
        visited: set[int] = set()
        stack = [(self.pointer(root, layout.NODE.itemsize, f"{what} root node", at), -1, 0, at)]
        while stack:
            offset, parent, depth, named_at = stack.pop()
            if offset in visited:
                raise self.model.error(named_at, f"{what}: node at model offset {offset} is reached twice "
                                                 "(a child cycle or a shared child)")
            if depth > MAX_TREE_DEPTH:
                raise self.model.error(named_at, f"{what}: the node tree is deeper than {MAX_TREE_DEPTH}")
            if len(nodes) >= self.node_cap:
                raise self.model.error(named_at, f"{what}: more than {self.node_cap} nodes")
            visited.add(offset)
            node, children = self.node(offset, parent, full)
            index = len(nodes)
            nodes.append(node)
            child_at = int(self.model.record(offset, layout.NODE, "node")["children"][0])
            for number in range(len(children) - 1, -1, -1):
                pointer_at = child_at + 4 * number
                stack.append((self.pointer(children[number], layout.NODE.itemsize, f"{what} child node",
                                           pointer_at), index, depth + 1, pointer_at))
        return nodes

    def node(self, offset: int, parent: int, full: bool) -> tuple[Node, np.ndarray]:
        header = self.model.record(offset, layout.NODE, "node header")
        flags = int(header["flags"])
        name = fixed_string(header["name"])
        if flags & ~layout.KNOWN_FLAGS:
            raise self.model.error(offset + 0x6C, f"node {name!r}: unknown content flags 0x{flags:x} "
                                                  f"(expected bits within 0x{layout.KNOWN_FLAGS:x})")
        children = self.array(header["children"], "<u4", f"node {name!r} children", offset + 0x48)
        node = Node(name=name, parent=parent, flags=flags, part=int(header["part"]), offset=offset)
        node.controllers, opaque = self.controllers(header, name, offset)
        node.extras = {"node_type": layout.node_type(flags), "part_number": node.part,
                       "flags": f"0x{flags:x}"}
        if opaque:
            node.extras["other_controllers"] = opaque
        if full:
            self.sub_headers(node, offset)
        return node, children

    def controllers(self, header, name: str, offset: int) -> tuple[dict, list[int]]:
        keys = self.array(header["keys"], layout.CONTROLLER, f"node {name!r} controller keys", offset + 0x54)
        if not len(keys):
            return {}, []
        data = finite_or_zero(self.array(header["data"], "<f4", f"node {name!r} controller data", offset + 0x60),
                              f"node {name!r} controller data", self.warnings)
        key_at = int(header["keys"][0])
        result, opaque = {}, []
        for number, key in enumerate(keys):
            at = key_at + 12 * number
            kind, rows, first_time, first_value = (int(key[f]) for f in ("type", "rows", "time", "value"))
            columns = int(key["columns"])
            if columns == -1 or rows in (0, 0xFFFF):
                continue
            if columns < 0:
                raise self.model.error(at + 10, f"node {name!r}: controller column byte {columns}")
            width = columns & 0x0F
            if first_time + rows > len(data) or first_value + rows * width > len(data):
                raise self.model.error(at, f"node {name!r}: controller type {kind} wants {rows} times from "
                                           f"float {first_time} and {rows}×{width} values from float "
                                           f"{first_value}, the node has {len(data)} floats")
            needed = {POSITION: 3, ORIENTATION: 4, SCALE: 1}.get(kind)
            if needed is None:
                opaque.append(kind)
                continue
            if width < needed:
                self.warnings.append(f"node {name!r}: controller type {kind} has {width} columns "
                                     f"(expected {needed}); ignored")
                continue
            times = data[first_time:first_time + rows]
            values = data[first_value:first_value + rows * width].reshape(rows, width)[:, :needed]
            if kind == SCALE:
                values = np.repeat(values, 3, axis=1)
            if kind == ORIENTATION:
                values = maths.quat_normalize(values)
            order = np.argsort(times, kind="stable")
            result[kind] = (times[order], values[order])
        return result, opaque

    def sub_headers(self, node: Node, offset: int) -> None:
        """Parse each sub-header the flags announce, in the fixed order (docs 2.5)."""
        flags = node.flags
        if flags & (layout.SKIN_FLAG | layout.ANIMMESH_FLAG | layout.DANGLY_FLAG | layout.AABB_FLAG) \
                and not flags & layout.MESH_FLAG:
            raise self.model.error(offset + 0x6C, f"node {node.name!r}: flags 0x{flags:x} name a mesh "
                                                  "variant without the mesh flag 0x20")
        at = offset + layout.NODE.itemsize
        for flag, dtype in layout.SUB_HEADERS:
            if not flags & flag:
                continue
            record = self.model.record(at, dtype, f"node {node.name!r} {layout.FLAG_NAMES[flag]} sub-header")
            handler = getattr(self, f"_{layout.FLAG_NAMES[flag]}", None)
            if handler:
                handler(node, record, at)
            at += dtype.itemsize

    def _light(self, node: Node, record, at: int) -> None:
        for name, dtype in (("flare_sizes", "<f4"), ("flare_positions", "<f4"), ("flare_colour_shifts", "<f4,<f4,<f4"),
                            ("flare_textures", "<u4")):
            self.array(record[name], dtype, f"light {node.name!r} {name}", at)
        node.extras.update(flare_radius=float(record["flare_radius"]), priority=int(record["priority"]),
                           ambient_only=int(record["ambient_only"]), shadow=int(record["shadow"]))

    def _emitter(self, node: Node, record, at: int) -> None:
        node.extras.update({name: fixed_string(record[name])
                            for name in ("update", "render", "blend", "texture", "chunk_name")})

    def _reference(self, node: Node, record, at: int) -> None:
        node.extras.update(reference_model=fixed_string(record["model"]),
                           reattachable=int(record["reattachable"]))

    def _mesh(self, node: Node, record, at: int) -> None:
        count = int(record["vertex_count"])
        faces = self.array(record["faces"], layout.FACE, f"mesh {node.name!r} faces", at + 0x08)
        node.extras.update(vertices=count, faces=len(faces))
        if count == 0:
            return
        indices = faces["vertices"].astype(np.int64)
        bad = np.flatnonzero((indices >= count).any(axis=1))
        if bad.size:
            raise self.model.error(int(record["faces"][0]) + 32 * int(bad[0]) + 0x1A,
                                   f"mesh {node.name!r}: face {int(bad[0])} uses vertex "
                                   f"{int(indices[bad[0]].max())}, the mesh has {count}")
        if int(record["triangle_mode"]) != 3:
            self.warnings.append(f"mesh {node.name!r}: triangle mode {int(record['triangle_mode'])} "
                                 "(expected 3); faces read as a triangle list")
        if int(record["vertices"]) == NO_RAW:
            raise self.model.error(at + 0x1BC, f"mesh {node.name!r}: {count} vertices at a NULL raw pointer")
        positions = self.raw_array(record["vertices"], "<f4", 3 * count, f"mesh {node.name!r} vertices", at + 0x1BC)
        texture_count = int(record["texture_count"])
        uvs = None
        if texture_count >= 1:
            uvs = self.raw_array(record["uvs"][0], "<f4", 2 * count, f"mesh {node.name!r} uvs", at + 0x1C4)
        normals = self.raw_array(record["normals"], "<f4", 3 * count, f"mesh {node.name!r} normals", at + 0x1D4)
        self.raw_array(record["colours"], "<u4", count, f"mesh {node.name!r} colours", at + 0x1D8)
        node.geometry = {
            "positions": finite_or_zero(positions, f"mesh {node.name!r} vertices", self.warnings).reshape(count, 3),
            "normals": None if normals is None else finite_or_zero(normals, f"mesh {node.name!r} normals",
                                                                   self.warnings).reshape(count, 3),
            "uvs": None if uvs is None else finite_or_zero(uvs, f"mesh {node.name!r} uvs",
                                                           self.warnings).reshape(count, 2),
            "triangles": indices.astype(np.int32),
            "texture": fixed_string(record["texture0"]),
            "color": tuple(float(c) for c in finite_or_zero(record["diffuse"], "diffuse", self.warnings)),
        }

    def _skin(self, node: Node, record, at: int) -> None:
        if node.geometry is None:
            return
        count = len(node.geometry["positions"])
        weights = self.raw_array(record["weights"], "<f4", 4 * count, f"skin {node.name!r} weights", at + 0x0C)
        slots = self.raw_array(record["bone_refs"], "<i2", 4 * count, f"skin {node.name!r} bone slots", at + 0x10)
        if weights is None or slots is None:
            raise self.model.error(at + 0x0C, f"skin {node.name!r}: weights or bone slots at a NULL raw pointer")
        slots = slots.reshape(count, 4).astype(np.int64)
        bad = np.flatnonzero(((slots < -1) | (slots >= layout.SKIN_SLOTS)).ravel())
        if bad.size:
            raise self.raw.error(int(record["bone_refs"]) + 2 * int(bad[0]),
                                 f"skin {node.name!r}: bone slot {int(slots.ravel()[bad[0]])} "
                                 f"(expected -1 or 0..{layout.SKIN_SLOTS - 1})")
        map_count = int(record["node_to_bone_count"])
        node_to_bone = np.zeros(0, np.int16)
        if map_count:
            pointer = self.pointer(record["node_to_bone"], 2 * map_count, f"skin {node.name!r} node-to-bone map",
                                   at + 0x14)
            node_to_bone = self.model.array(pointer, "<i2", map_count, "node-to-bone map")
        inverse_rotations = self.array(record["q_bone_ref_inv"], "<f4,<f4,<f4,<f4",
                                       f"skin {node.name!r} QBoneRefInv", at + 0x1C)
        inverse_translations = self.array(record["t_bone_ref_inv"], "<f4,<f4,<f4",
                                          f"skin {node.name!r} TBoneRefInv", at + 0x28)
        self.array(record["constant_indices"], "<u4", f"skin {node.name!r} constant indices", at + 0x34)
        node.geometry.update(
            skin_weights=finite_or_zero(weights, f"skin {node.name!r} weights", self.warnings).reshape(count, 4),
            skin_slots=slots, bone_parts=record["bone_parts"].astype(np.int64), node_to_bone=node_to_bone,
            slots_at=self.raw.start + int(record["bone_refs"]),
            inverse_rotations=np.array(inverse_rotations.tolist(), np.float64).reshape(-1, 4),
            inverse_translations=np.array(inverse_translations.tolist(), np.float64).reshape(-1, 3))

    def _dangly(self, node: Node, record, at: int) -> None:
        constraints = self.array(record["constraints"], "<f4", f"dangly {node.name!r} constraints", at)
        node.extras.update(displacement=float(record["displacement"]), tightness=float(record["tightness"]),
                           period=float(record["period"]), constraints=len(constraints))

    def _aabb(self, node: Node, record, at: int) -> None:
        entries, visited = 0, set()
        stack = [(int(record["root"]), at, 0)]
        while stack:
            pointer, named_at, depth = stack.pop()
            if pointer == 0:
                continue
            if pointer in visited or depth > MAX_TREE_DEPTH:
                raise self.model.error(named_at, f"AABB {node.name!r}: entry at {pointer} reached twice "
                                                 f"or tree deeper than {MAX_TREE_DEPTH}")
            visited.add(pointer)
            entry = self.model.record(pointer, layout.AABB_ENTRY, f"AABB {node.name!r} entry", named_at)
            entries += 1
            stack.append((int(entry["left"]), pointer + 24, depth + 1))
            stack.append((int(entry["right"]), pointer + 28, depth + 1))
        node.extras["aabb_entries"] = entries

    # headers

    def read(self) -> Parsed:
        header = self.model.record(0, layout.MODEL_HEADER, "model header")
        kind = int(header["geometry_type"]) & 0x7F
        if kind != 2:
            raise self.model.error(0x6C, f"geometry type {kind} (expected 2, a model): not an NWN1 model "
                                         "(a KotOR model or damaged file?)")
        nodes = self.walk(int(header["root"]), 0x48, "model", full=True)
        animations = []
        pointers = self.array(header["animations"], "<u4", "animation list", 0x78)
        list_at = int(header["animations"][0])
        for number, pointer in enumerate(pointers):
            animations.append(self.animation(int(pointer), list_at + 4 * number))
        if self.mismatched_arrays:
            self.warnings.append(f"{self.mismatched_arrays} array(s) whose used and allocated counts differ")
        return Parsed(self.path, fixed_string(header["name"]), fixed_string(header["supermodel"]), nodes,
                      animations, self.warnings)

    def animation(self, pointer: int, at: int) -> Animation:
        offset = self.pointer(pointer, layout.ANIMATION_HEADER.itemsize, "animation header", at)
        header = self.model.record(offset, layout.ANIMATION_HEADER, "animation header")
        name = fixed_string(header["name"])
        if int(header["geometry_type"]) & 0x7F != 5:
            self.warnings.append(f"animation {name!r}: geometry type {int(header['geometry_type']) & 0x7F} "
                                 "(expected 5)")
        nodes = self.walk(int(header["root"]), offset + 0x48, f"animation {name!r}", full=False)
        events = self.array(header["events"], layout.EVENT, f"animation {name!r} events", offset + 0xB8)
        times = finite_or_zero(events["time"], f"animation {name!r} event times", self.warnings)
        length = float(finite_or_zero(header["length"], f"animation {name!r} length", self.warnings))
        return Animation(name, length, nodes, [(float(t), fixed_string(n)) for t, n in zip(times, events["name"])])


def parse(path: Path, data: bytes) -> Parsed:
    """One binary MDL's content, every pointer and count checked."""
    with np.errstate(all="ignore"):
        return _Reader(path, data).read()


# --- building the model -------------------------------------------------------------------------

def _rest_local(nodes: list[Node]) -> np.ndarray:
    """(N, 4, 4) ``T(position) @ Rot(orientation)`` from each node's first position/orientation row."""
    translations = np.zeros((len(nodes), 3))
    rotations = maths.quat_identity((len(nodes),))
    for index, node in enumerate(nodes):
        if POSITION in node.controllers:
            translations[index] = node.controllers[POSITION][1][0]
        if ORIENTATION in node.controllers:
            rotations[index] = node.controllers[ORIENTATION][1][0]
    return maths.translation(translations) @ maths.quat_to_matrix(rotations)


def _world(local: np.ndarray, parents: np.ndarray) -> np.ndarray:
    """World matrices; nodes are in pre-order, so every parent precedes its children."""
    world = local.copy()
    for index in np.flatnonzero(parents >= 0):
        world[index] = world[parents[index]] @ local[index]
    return world


def _skin_influences(parsed: Parsed, node: Node, world: np.ndarray, skin_index: int,
                     warnings: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(V, 4) joints (bone = pre-order node index) and weights of a skin node; tables cross-checked."""
    geometry = node.geometry
    slots, weights = geometry["skin_slots"], geometry["skin_weights"].copy()
    used = slots >= 0
    nodes_of_slots = np.where(used, geometry["bone_parts"][np.where(used, slots, 0)], -1)
    node_count = len(parsed.nodes)
    bad = np.flatnonzero((used & (nodes_of_slots >= node_count) & (weights > 0)).ravel())
    if bad.size:
        raise ReadError(parsed.path, f"skin {node.name!r}: bone slot {int(slots.ravel()[bad[0]])} names node "
                                     f"{int(nodes_of_slots.ravel()[bad[0]])}, the model has {node_count}",
                        offset=geometry["slots_at"] + 2 * int(bad[0]))
    orphan = used & (nodes_of_slots < 0) & (weights > 0)
    if orphan.any():
        warnings.append(f"skin {node.name!r}: {int(orphan.sum())} weighted lane(s) name no node; dropped")
    weights[~used | (nodes_of_slots < 0) | (weights < 0)] = 0.0
    totals = weights.sum(axis=1)
    if np.any(np.abs(totals[totals > 0] - 1.0) > 1e-3):
        warnings.append(f"skin {node.name!r}: weights that do not sum to 1 are renormalised")
    joints = np.where(weights > 0, nodes_of_slots, 0)
    weighted_bones = np.flatnonzero(np.bincount(joints[weights > 0], minlength=node_count))
    _check_inverse_bind(node, geometry, weighted_bones, world, skin_index, warnings)
    return joints.astype(np.int32), weights.astype(np.float32)


def _check_inverse_bind(node: Node, geometry: dict, bones: np.ndarray, world: np.ndarray, skin_index: int,
                        warnings: list[str]) -> None:
    """Warn when QBoneRefInv (w, x, y, z) / TBoneRefInv disagree with ``inv(W_bone) @ W_skin`` at rest."""
    rotations, translations = geometry["inverse_rotations"], geometry["inverse_translations"]
    listed = bones[(bones < len(rotations)) & (bones < len(translations))]
    if len(listed) < len(bones):
        warnings.append(f"skin {node.name!r}: the inverse-bind tables do not cover every bone")
    if not len(listed):
        return
    expected = maths.affine_inverse(world[listed]) @ world[skin_index]
    stored = rotations[listed][:, [1, 2, 3, 0]]
    stored = maths.quat_normalize(stored)
    agreement = np.abs(np.sum(stored * maths.quat_from_matrix(expected), axis=1))
    scale = max(1.0, float(np.abs(expected[:, :3, 3]).max()))
    apart = np.linalg.norm(translations[listed] - expected[:, :3, 3], axis=1)
    wrong = (agreement < 1 - BIND_TOLERANCE) | (apart > BIND_TOLERANCE * scale)
    if wrong.any():
        warnings.append(f"skin {node.name!r}: the stored inverse-bind tables disagree with the rest "
                        f"hierarchy for {int(wrong.sum())} bone(s); the hierarchy is used")


def _meshes(parsed: Parsed, world: np.ndarray, warnings: list[str]) -> list[Mesh]:
    meshes = []
    for index, node in enumerate(parsed.nodes):
        if not _drawn(node):
            continue
        geometry = node.geometry
        count = len(geometry["positions"])
        if "skin_slots" in geometry:
            joints, weights = _skin_influences(parsed, node, world, index, warnings)
        else:
            joints, weights = np.full((count, 1), index, np.int32), np.ones((count, 1), np.float32)
        normals = geometry["normals"]
        if normals is not None:
            normals = normals @ world[index, :3, :3].T.astype(np.float32)
        meshes.append(Mesh(name=node.name, positions=maths.transform_points(world[index], geometry["positions"]),
                           joints=joints, weights=weights, normals=normals, uvs=geometry["uvs"],
                           triangles=geometry["triangles"],
                           material=Material(texture=geometry["texture"], base_color=geometry["color"])))
    return meshes


def _clip(animation: Animation, bones: dict[str, int], warnings: list[str]) -> Clip:
    """A keyed clip; animation nodes are matched to bones by lower-cased name, unmatched ones skipped."""
    tracks, unmatched = {}, 0
    length = animation.length if animation.length > 0 else None
    for node in animation.nodes:
        bone = bones.get(node.name.lower())
        if bone is None:
            unmatched += 1
            continue
        if bone in tracks or not node.controllers:
            continue
        channels = {}
        for kind, channel in ((POSITION, "translation"), (ORIENTATION, "rotation"), (SCALE, "scale")):
            if kind in node.controllers:
                times, values = node.controllers[kind]
                channels[channel] = (np.clip(times, 0.0, length) if length else times, values)
        if channels:
            tracks[bone] = Track(bone=bone, **channels)
    if unmatched:
        warnings.append(f"animation {animation.name!r}: {unmatched} node(s) name no model node; ignored")
    return Clip(name=animation.name, kind="keyed", tracks=list(tracks.values()), events=animation.events)


def _find_beside(path: Path, name: str) -> Path | None:
    """``<name>.mdl`` in ``path``'s folder, compared case-insensitively."""
    wanted = f"{name}.mdl".lower()
    try:
        entries = os.listdir(path.parent)
    except OSError:
        return None
    return next((path.parent / entry for entry in sorted(entries) if entry.lower() == wanted), None)


def _supermodel_animations(parsed: Parsed, warnings: list[str]) -> list[Animation]:
    """Animations of the supermodel chain, nearest first, read from files beside the model."""
    animations: list[Animation] = []
    seen = {parsed.path.resolve()}
    current = parsed
    for _ in range(MAX_SUPERMODEL_CHAIN):
        name = current.supermodel.strip()
        if not name or name.lower() == "null":
            break
        found = _find_beside(current.path, name)
        if found is None:
            warnings.append(f"supermodel {name!r} not found beside {current.path.name}: its animations are missing")
            break
        if found.resolve() in seen:
            warnings.append(f"supermodel chain loops back to {found.name}")
            break
        seen.add(found.resolve())
        try:
            current = parse(found, found.read_bytes())
        except (ReadError, OSError) as error:
            warnings.append(f"supermodel {found.name} unreadable: {error}")
            break
        animations.extend(current.animations)
    return animations


def build(parsed: Parsed, lenders: list[Parsed]) -> Model:
    """The Model of ``parsed``, with the animations of ``lenders`` and of its supermodel chain."""
    warnings = list(parsed.warnings)
    nodes = parsed.nodes
    parents = np.array([node.parent for node in nodes], np.int32)
    world = _world(_rest_local(nodes), parents)
    if not np.isfinite(world).all():
        raise ReadError(parsed.path, "node transforms overflow (values too large)", offset=12)
    meshes = _meshes(parsed, world, warnings)
    names = [node.name for node in nodes]
    bones: dict[str, int] = {}
    for index, name in enumerate(names):
        bones.setdefault(name.lower(), index)
    if len(bones) < len(names):
        warnings.append(f"{len(names) - len(bones)} duplicate node name(s); animations drive the first")
    hidden = [f"{node.name} ({node.extras['node_type']})" for node in nodes
              if node.flags & layout.HIDDEN_FLAGS]
    if hidden:
        warnings.append("nodes not drawn: " + ", ".join(hidden))
    animations = list(parsed.animations)
    for lender in lenders:
        warnings.extend(lender.warnings)
        animations.extend(lender.animations)
    animations.extend(_supermodel_animations(parsed, warnings))
    clips, taken = [], set()
    for animation in animations:
        if animation.name.lower() in taken:
            continue
        taken.add(animation.name.lower())
        clips.append(_clip(animation, bones, warnings))
    heads, tails = derive_tails(world, parents, meshes)
    skeleton = Skeleton(names=names, parents=parents, bind_world=world, heads=heads, tails=tails,
                        derived_tails=np.ones(len(nodes), bool), extras=[node.extras for node in nodes])
    return Model(name=parsed.name or parsed.path.stem, skeleton=skeleton, meshes=meshes, clips=clips,
                 format="nwn_mdl", up_axis="Z", warnings=warnings)


# --- registry -----------------------------------------------------------------------------------

def sniff(head: bytes, path: Path) -> str | None:
    """'model' for a binary NWN1 MDL (marker 0, model geometry type 2, root inside the model data).

    Whether a file is the model or only lends animations is decided at load (it has no meshes).
    """
    if len(head) < 12 + layout.GEOMETRY.itemsize:
        return None
    marker, model_size = (int(v) for v in np.frombuffer(head, "<u4", count=2))
    root = int(np.frombuffer(head, "<u4", count=1, offset=12 + 0x48)[0])
    if marker != 0 or model_size < layout.MODEL_HEADER.itemsize or head[12 + 0x6C] & 0x7F != 2:
        return None
    return "model" if 0 < root < model_size else None


def load(files: list[SniffedFile], options: LoadOptions) -> Model:
    """The file with meshes is the model (the first when none has meshes); the others lend animations."""
    parsed = []
    for sniffed in files:
        path = Path(sniffed.path)
        data = read_bytes(path)
        parsed.append(parse(path, data))
    with_meshes = [p for p in parsed if p.has_meshes]
    if len(with_meshes) > 1:
        raise ReadError(with_meshes[1].path, "several NWN models in one load (only one may have meshes; "
                                             f"the others lend animations): {with_meshes[0].path.name}, "
                                             f"{with_meshes[1].path.name}")
    model = with_meshes[0] if with_meshes else parsed[0]
    with np.errstate(all="ignore"):
        try:
            return build(model, [p for p in parsed if p is not model])
        except ValueError as error:
            raise ReadError(model.path, str(error)) from None


register(Format(name="nwn_mdl", description="Neverwinter Nights binary MDL (.mdl)", sniff=sniff, load=load,
                extensions=(".mdl",), unit="metre"))
