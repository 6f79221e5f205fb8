"""Neverwinter Nights 1 compiled (binary) MDL (seed 002; docs/formats/nwn-binary-mdl.md).

Layout: a 12-byte header, the model-data block (pointers relative to file offset 12, 0 = NULL) and
the raw-data block (pointers relative to its start, 0xFFFFFFFF = NULL). This module reads the bytes
into ``nodes.Parsed``; building the Model (``nodes``) and loading several models as one (lenders,
supermodels: ``supermodels``) are shared with the ASCII reader.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app import maths
from app.formats.binreader import Block, finite_or_zero, fixed_string
from app.formats.nwn import binary_layout as layout
from app.formats.nwn import supermodels
from app.formats.nwn.nodes import ALPHA, ORIENTATION, POSITION, SCALE, Animation, Node, Parsed
from app.formats.registry import Format, register

#: Deepest node tree accepted (nwnrs uses the same bound).
MAX_TREE_DEPTH = 256
#: Most nodes in one geometry, whatever the header says.
MAX_NODES = 65536

NO_RAW = 0xFFFFFFFF
#: The model header's classification byte (docs 2.2), as the ASCII form spells it.
CLASSIFICATIONS = {1: "effect", 2: "tile", 4: "character", 8: "door"}
#: Node kinds by the sub-headers their flags announce, most specific first.
_KINDS = ((layout.AABB_FLAG, "aabb"), (layout.ANIMMESH_FLAG, "animmesh"), (layout.DANGLY_FLAG, "dangly"),
          (layout.SKIN_FLAG, "skin"), (layout.MESH_FLAG, "trimesh"), (layout.REFERENCE_FLAG, "reference"),
          (layout.EMITTER_FLAG, "emitter"), (layout.LIGHT_FLAG, "light"))


def node_kind(flags: int) -> str:
    """The shared node kind of binary content flags (docs 2.5)."""
    return next((kind for flag, kind in _KINDS if flags & flag), "dummy")


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
        node = Node(name=name, parent=parent, kind=node_kind(flags))
        node.controllers, opaque, node.handles = self.controllers(header, name, offset)
        node.extras = {"part_number": int(header["part"]), "flags": f"0x{flags:x}"}
        if opaque:
            node.extras["other_controllers"] = opaque
        if full:
            self.sub_headers(node, flags, offset)
        return node, children

    def controllers(self, header, name: str, offset: int) -> tuple[dict, list[int], dict]:
        """Controller type → (times, values), the opaque types, and bezier controllers' (in, out)
        control values (position and scale: value + tangent, the row's second and third thirds)."""
        keys = self.array(header["keys"], layout.CONTROLLER, f"node {name!r} controller keys", offset + 0x54)
        if not len(keys):
            return {}, [], {}
        what = f"node {name!r} controller data"
        data = finite_or_zero(self.array(header["data"], "<f4", what, offset + 0x60), what, self.warnings)
        key_at = int(header["keys"][0])
        result, opaque, handles = {}, [], {}
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
            needed = {POSITION: 3, ORIENTATION: 4, SCALE: 1, ALPHA: 1}.get(kind)
            if needed is None:
                opaque.append(kind)
                continue
            if width < needed:
                self.warnings.append(f"node {name!r}: controller type {kind} has {width} columns "
                                     f"(expected {needed}); ignored")
                continue
            times = data[first_time:first_time + rows]
            row_values = data[first_value:first_value + rows * width].reshape(rows, width)
            values = row_values[:, :needed]
            order = np.argsort(times, kind="stable")
            if columns & 0x10 and width >= 3 * needed and kind in (POSITION, SCALE):
                sides = [values + row_values[:, needed * side:needed * (side + 1)] for side in (1, 2)]
                handles[kind] = tuple((np.repeat(side, 3, axis=1) if kind == SCALE else side)[order]
                                      for side in sides)
            elif columns & 0x10 and kind == ORIENTATION:
                self.warnings.append(f"node {name!r}: orientation bezier tangents of the compiled form "
                                     "are not played (their form is undocumented); keys are slerped")
            if kind == SCALE:
                values = np.repeat(values, 3, axis=1)
            if kind == ORIENTATION:
                values = maths.quat_normalize(values)
            result[kind] = (times[order], values[order])
        return result, opaque, handles

    def sub_headers(self, node: Node, flags: int, offset: int) -> None:
        """Parse each sub-header the flags announce, in the fixed order (docs 2.5)."""
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
        for name, dtype in (("flare_sizes", "<f4"), ("flare_positions", "<f4"),
                            ("flare_colour_shifts", "<f4,<f4,<f4"), ("flare_textures", "<u4")):
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
        positions = self.raw_array(record["vertices"], "<f4", 3 * count, f"mesh {node.name!r} vertices",
                                   at + 0x1BC)
        texture_count = int(record["texture_count"])
        uvs = None
        if texture_count >= 1:
            uvs = self.raw_array(record["uvs"][0], "<f4", 2 * count, f"mesh {node.name!r} uvs", at + 0x1C4)
        normals = self.raw_array(record["normals"], "<f4", 3 * count, f"mesh {node.name!r} normals",
                                 at + 0x1D4)
        colours = self.raw_array(record["colours"], "<u4", count, f"mesh {node.name!r} colours", at + 0x1D8)
        node.geometry = {
            "positions": finite_or_zero(positions, f"mesh {node.name!r} vertices",
                                        self.warnings).reshape(count, 3),
            "normals": None if normals is None else finite_or_zero(normals, f"mesh {node.name!r} normals",
                                                                   self.warnings).reshape(count, 3),
            "uvs": None if uvs is None else finite_or_zero(uvs, f"mesh {node.name!r} uvs",
                                                           self.warnings).reshape(count, 2),
            "triangles": indices.astype(np.int32),
            "texture": fixed_string(record["texture0"]),
            "color": tuple(float(c) for c in finite_or_zero(record["diffuse"], "diffuse", self.warnings)),
            "render": bool(record["render"]),
            "colors": None if colours is None else vertex_colours(colours, node, self.warnings),
        }

    def _skin(self, node: Node, record, at: int) -> None:
        if node.geometry is None:
            return
        count = len(node.geometry["positions"])
        weights = self.raw_array(record["weights"], "<f4", 4 * count, f"skin {node.name!r} weights",
                                 at + 0x0C)
        slots = self.raw_array(record["bone_refs"], "<i2", 4 * count, f"skin {node.name!r} bone slots",
                               at + 0x10)
        if weights is None or slots is None:
            raise self.model.error(at + 0x0C,
                                   f"skin {node.name!r}: weights or bone slots at a NULL raw pointer")
        slots = slots.reshape(count, 4).astype(np.int64)
        bad = np.flatnonzero(((slots < -1) | (slots >= layout.EE_SKIN_SLOTS)).ravel())
        if bad.size:
            raise self.raw.error(int(record["bone_refs"]) + 2 * int(bad[0]),
                                 f"skin {node.name!r}: bone slot {int(slots.ravel()[bad[0]])} "
                                 f"(expected -1 or 0..{layout.EE_SKIN_SLOTS - 1})")
        bone_parts = record["bone_parts"]
        if slots.size and slots.max() >= layout.SKIN_SLOTS:
            bone_parts = self.model.array(at + 0x40, "<i2", layout.EE_SKIN_SLOTS,
                                          f"skin {node.name!r} EE bone-slot table")
            self.warnings.append(f"skin {node.name!r}: bone slots past {layout.SKIN_SLOTS - 1} are read from "
                                 f"the EE layout's {layout.EE_SKIN_SLOTS}-slot table (no EE-compiled sample "
                                 "has confirmed it)")
        map_count = int(record["node_to_bone_count"])
        node_to_bone = np.zeros(0, np.int16)
        if map_count:
            pointer = self.pointer(record["node_to_bone"], 2 * map_count,
                                   f"skin {node.name!r} node-to-bone map", at + 0x14)
            node_to_bone = self.model.array(pointer, "<i2", map_count, "node-to-bone map")
        inverse_rotations = self.array(record["q_bone_ref_inv"], "<f4,<f4,<f4,<f4",
                                       f"skin {node.name!r} QBoneRefInv", at + 0x1C)
        inverse_translations = self.array(record["t_bone_ref_inv"], "<f4,<f4,<f4",
                                          f"skin {node.name!r} TBoneRefInv", at + 0x28)
        self.array(record["constant_indices"], "<u4", f"skin {node.name!r} constant indices", at + 0x34)
        node.geometry.update(
            skin_weights=finite_or_zero(weights, f"skin {node.name!r} weights",
                                        self.warnings).reshape(count, 4),
            skin_slots=slots, bone_parts=bone_parts.astype(np.int64), node_to_bone=node_to_bone,
            slots_at=int(record["bone_refs"]),
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
        for node in nodes:
            if node.geometry is not None and "skin_slots" in node.geometry:
                self.resolve_skin(node, len(nodes))
        animations = []
        pointers = self.array(header["animations"], "<u4", "animation list", 0x78)
        list_at = int(header["animations"][0])
        for number, pointer in enumerate(pointers):
            animations.append(self.animation(int(pointer), list_at + 4 * number))
        if self.mismatched_arrays:
            self.warnings.append(f"{self.mismatched_arrays} array(s) whose used and allocated counts differ")
        return Parsed(self.path, fixed_string(header["name"]), fixed_string(header["supermodel"]), nodes,
                      animations, self.warnings,
                      classification=CLASSIFICATIONS.get(int(header["classification"]), ""),
                      animation_scale=float(finite_or_zero(header["animation_scale"], "animation scale",
                                                           self.warnings)))

    def resolve_skin(self, node: Node, node_count: int) -> None:
        """Skin lanes name bone slots; the slot table names nodes (pre-order indices). Replace the
        slots by node indices, checked against the tree."""
        geometry = node.geometry
        slots = geometry.pop("skin_slots")
        used = slots >= 0
        nodes_of_slots = np.where(used, geometry.pop("bone_parts")[np.where(used, slots, 0)], -1)
        bad = np.flatnonzero((used & (nodes_of_slots >= node_count) & (geometry["skin_weights"] > 0)).ravel())
        if bad.size:
            raise self.raw.error(geometry["slots_at"] + 2 * int(bad[0]),
                                 f"skin {node.name!r}: bone slot {int(slots.ravel()[bad[0]])} names node "
                                 f"{int(nodes_of_slots.ravel()[bad[0]])}, the model has {node_count}")
        geometry["skin_joints"] = np.where(nodes_of_slots < node_count, nodes_of_slots, -1)

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
        transition = float(finite_or_zero(header["transition"], f"animation {name!r} transition",
                                          self.warnings))
        event_list = [(float(t), fixed_string(n)) for t, n in zip(times, events["name"])]
        return Animation(name, length, nodes, event_list, root=fixed_string(header["animation_root"]),
                         transition=transition)


def parse(path: Path, data: bytes) -> Parsed:
    """One binary MDL's content, every pointer and count checked."""
    with np.errstate(all="ignore"):
        return _Reader(path, data).read()


# --- registry -----------------------------------------------------------------------------------

def sniff(head: bytes, path: Path) -> str | None:
    """'model' for a binary NWN1 MDL (marker 0, model geometry type 2, root inside the model data).

    Whether a file is the model or only lends animations is decided at load (supermodels.choose_model).
    """
    if len(head) < 12 + layout.GEOMETRY.itemsize:
        return None
    marker, model_size = (int(v) for v in np.frombuffer(head, "<u4", count=2))
    root = int(np.frombuffer(head, "<u4", count=1, offset=12 + 0x48)[0])
    if marker != 0 or model_size < layout.MODEL_HEADER.itemsize or head[12 + 0x6C] & 0x7F != 2:
        return None
    return "model" if 0 < root < model_size else None


register(Format(name="nwn_mdl", description="Neverwinter Nights binary MDL (.mdl)", sniff=sniff,
                load=supermodels.load, accepts=("nwn_ascii",), extensions=(".mdl",), unit="metre",
                dds_bottom_up=True, magic=b"\0\0\0\0"))


def vertex_colours(packed: np.ndarray, node: Node, warnings: list[str]) -> np.ndarray | None:
    """(V, 4) display colours in 0..1 from a mesh's vertex colour words: bytes R, G, B, A in file order,
    as NWN Explorer's compiler writes them (alpha 255) and its decompiler reads them back. None when
    every vertex is white, or (with a warning) where the words cannot be such colours: a mesh kind the
    compilers write no colours for (only trimesh and AABB nodes get them), or an alpha byte other than
    255 (docs/formats/nwn-binary-mdl.md, "Vertex colours")."""
    if np.all(packed == 0xFFFFFFFF):
        return None
    rgba = packed.astype("<u4").view(np.uint8).reshape(-1, 4)
    if node.kind not in ("trimesh", "aabb"):
        reason = f"a {node.kind} mesh, for which the compilers write no colours"
    elif np.any(rgba[:, 3] != 255):
        reason = f"{int(np.count_nonzero(rgba[:, 3] != 255))} of {len(rgba)} alpha bytes are not 255"
    else:
        return rgba / 255.0
    warnings.append(f"mesh {node.name!r}: vertex colours not read ({reason}); drawn without them")
    return None
