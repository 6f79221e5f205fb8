"""A small writer of NWN1 binary MDL files for tests, following the layout tables of
docs/formats/nwn-binary-mdl.md section 2 byte by byte (it shares no code with the reader).

Describe a tree of ``WNode`` (rest position/orientation, optional mesh and skin, extra keyed
controllers) and ``WAnimation`` trees; ``write_mdl`` returns the file's bytes. ``layout_of`` reports
where things were put so malformed-file tests can corrupt exact fields.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

NO_RAW = 0xFFFFFFFF
SUB_SIZES = ((0x002, 0x5C), (0x004, 0xD8), (0x010, 0x44), (0x020, 0x200), (0x040, 0x64), (0x080, 0x38),
             (0x100, 0x18), (0x200, 0x04))
POSITION, ORIENTATION = 8, 20


@dataclass
class WNode:
    """flags: 0x1 dummy, 0x21 trimesh, 0x61 skin, 0x121 dangly, 0x3 light, 0x5 emitter, 0x11 reference,
    0x221 AABB. render: the mesh's render flag. keys: extra controllers ``(type, times, values (K, cols))``,
    optionally with column flags OR'd into the column byte (0x10: bezier).
    skin_bones: (V, 4) node names per lane (None = unused lane) with skin_weights (V, 4); skin_table: entries
    of the bone-slot table (17 in 1.69 files; 64 makes the EE sub-header of 0xC0 bytes). colors: (V, 4)
    bytes R, G, B, A per vertex (the binary form's words; the ASCII form writes r g b over 255).
    dangly: (period, tightness, displacement, constraints (V,)) of a dangly node. emitter: an emitter's
    sub-header strings (update, render, blend, texture) by name; its numbers go in ``keys`` as
    controllers (88 birthrate, 184 spread, 196 xsize …), which the ASCII writer writes as lines.
    surfaces: each face's surface material (walkmesh nodes; default 1 in the binary form, 0 in the ASCII)."""

    name: str
    flags: int = 0x001
    position: tuple | None = None
    orientation: tuple | None = None
    children: list["WNode"] = field(default_factory=list)
    keys: list[tuple] = field(default_factory=list)
    vertices: np.ndarray | None = None
    faces: np.ndarray | None = None
    uvs: np.ndarray | None = None
    normals: np.ndarray | None = None
    texture: str = ""
    skin_bones: list | None = None
    skin_weights: np.ndarray | None = None
    skin_table: int = 17
    render: int = 1
    colors: np.ndarray | None = None
    dangly: tuple | None = None
    emitter: dict | None = None
    surfaces: list[int] | None = None


@dataclass
class WAnimation:
    name: str
    length: float
    root: WNode
    events: list[tuple[float, str]] = field(default_factory=list)


def _name(text: str, width: int, junk: bytes = b"JUNK") -> bytes:
    """A fixed-width string with junk after its NUL, as real files have."""
    raw = text.encode("latin-1") + b"\0" + junk
    return raw[:width].ljust(width, b"\0")


def _preorder(root: WNode) -> list[WNode]:
    order, stack = [], [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(reversed(node.children))
    return order


def _rotation(q) -> np.ndarray:
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def _quaternion(rotation: np.ndarray) -> np.ndarray:
    """(x, y, z, w) of a proper rotation matrix (trace method, enough for test rotations)."""
    w = np.sqrt(max(0.0, 1 + np.trace(rotation))) / 2
    x = np.copysign(np.sqrt(max(0.0, 1 + rotation[0, 0] - rotation[1, 1] - rotation[2, 2])) / 2,
                    rotation[2, 1] - rotation[1, 2])
    y = np.copysign(np.sqrt(max(0.0, 1 - rotation[0, 0] + rotation[1, 1] - rotation[2, 2])) / 2,
                    rotation[0, 2] - rotation[2, 0])
    z = np.copysign(np.sqrt(max(0.0, 1 - rotation[0, 0] - rotation[1, 1] + rotation[2, 2])) / 2,
                    rotation[1, 0] - rotation[0, 1])
    return np.array([x, y, z, w])


def rest_world(root: WNode) -> dict[str, np.ndarray]:
    """Each node's rest world matrix ``parent @ T(position) @ R(orientation)``, by name."""
    world = {}
    stack = [(root, np.eye(4))]
    while stack:
        node, parent = stack.pop()
        local = np.eye(4)
        if node.orientation is not None:
            local[:3, :3] = _rotation(node.orientation)
        if node.position is not None:
            local[:3, 3] = node.position
        world[node.name] = parent @ local
        stack.extend((child, world[node.name]) for child in node.children)
    return world


class _Builder:
    def __init__(self):
        self.model = bytearray()
        self.raw = bytearray()
        self.where: dict[str, int] = {}

    def alloc(self, size: int) -> int:
        offset = len(self.model)
        self.model += bytes(size + (-size) % 4)
        return offset

    def raw_put(self, data: bytes) -> int:
        offset = len(self.raw)
        self.raw += data
        return offset

    def put(self, fmt: str, offset: int, *values) -> None:
        struct.pack_into("<" + fmt, self.model, offset, *values)

    def array(self, at: int, pointer: int, count: int) -> None:
        self.put("III", at, pointer if count else 0, count, count)

    def data_array(self, at: int, fmt: str, rows: list) -> int:
        if not rows:
            self.array(at, 0, 0)
            return 0
        size = struct.calcsize("<" + fmt)
        pointer = self.alloc(size * len(rows))
        for number, row in enumerate(rows):
            self.put(fmt, pointer + size * number, *row)
        self.array(at, pointer, len(rows))
        return pointer

    def controllers(self, offset: int, node: WNode, rest: bool) -> None:
        keys = []
        if rest and node.position is not None:
            keys.append((POSITION, [0.0], [node.position]))
        if rest and node.orientation is not None:
            keys.append((ORIENTATION, [0.0], [node.orientation]))
        keys += node.keys
        data, records = [], []
        for kind, times, values, *flags in keys:
            values = np.asarray(values, float).reshape(len(times), -1)
            columns = values.shape[1] | (flags[0] if flags else 0)
            records.append((kind, len(times), len(data), len(data) + len(times), columns, 0))
            data += list(times) + list(values.ravel())
        self.where[f"{node.name}.keys" if rest else f"anim:{node.name}.keys"] = self.data_array(
            offset + 0x54, "ihHHbb", records)
        self.data_array(offset + 0x60, "f", [(v,) for v in data])

    def node(self, node: WNode, part: int, indices: dict[str, int], world: dict, rest: bool) -> int:
        size = 0x70 + sum(_sub_size(node, flag, s) for flag, s in SUB_SIZES if node.flags & flag)
        offset = self.alloc(size)
        self.where[node.name if rest else f"anim:{node.name}"] = offset
        self.put("6I", offset, *([0x40CB70] * 6))
        self.put("Ii", offset + 0x18, 0, part)
        self.model[offset + 0x20:offset + 0x40] = _name(node.name, 32)
        self.put("I", offset + 0x6C, node.flags)
        self.controllers(offset, node, rest)
        sub = offset + 0x70
        for flag, sub_size in SUB_SIZES:
            if not node.flags & flag:
                continue
            sub_size = _sub_size(node, flag, sub_size)
            if flag == 0x020:
                self.mesh(sub, node)
            elif flag == 0x040:
                self.skin(sub, node, indices, world)
            elif flag == 0x010:
                self.model[sub:sub + 64] = _name("refmodel", 64)
            elif flag == 0x004 and node.emitter:
                self.emitter(sub, node.emitter)
            elif flag == 0x100 and node.dangly:
                self.dangly(sub, node)
            sub += sub_size
        children = self.alloc(4 * len(node.children))
        self.array(offset + 0x48, children, len(node.children))
        self.where[f"{node.name}.children" if rest else f"anim:{node.name}.children"] = children
        for number, child in enumerate(node.children):
            self.put("I", children + 4 * number, self.node(child, part + 1 + number, indices, world, rest))
        return offset

    def mesh(self, at: int, node: WNode) -> None:
        vertices = np.asarray(node.vertices, np.float32)
        faces = np.asarray(node.faces, np.uint16)
        self.put("II", at, 0x40E350, 0x40D7E0)
        surfaces = [1] * len(faces) if node.surfaces is None else node.surfaces
        pointer = self.data_array(at + 0x08, "4fI3h3H",
                                  [(0, 0, 1, 0, surface, -1, -1, -1, *face)
                                   for face, surface in zip(faces.tolist(), surfaces)])
        self.where[f"{node.name}.faces"] = pointer
        self.put("3f3f", at + 0x3C, 0.8, 0.7, 0.6, 0.2, 0.2, 0.2)
        self.put("I", at + 0x6C, node.render)
        self.model[at + 0x78:at + 0xB8] = _name(node.texture, 64)
        self.put("I", at + 0x1AC, NO_RAW)
        self.put("B", at + 0x1B4, 3)
        self.where[f"{node.name}.vertices"] = vertex_pointer = self.raw_put(vertices.tobytes())
        uv_pointer = NO_RAW if node.uvs is None else self.raw_put(np.asarray(node.uvs, np.float32).tobytes())
        normal_pointer = (NO_RAW if node.normals is None
                          else self.raw_put(np.asarray(node.normals, np.float32).tobytes()))
        colour_pointer = (NO_RAW if node.colors is None
                          else self.raw_put(np.asarray(node.colors, np.uint8).tobytes()))
        index_list = self.raw_put(faces.tobytes())
        self.data_array(at + 0x194, "I", [(3 * len(faces),)])
        self.data_array(at + 0x1A0, "I", [(index_list,)])
        self.put("IHH4III", at + 0x1BC, vertex_pointer, len(vertices), 0 if node.uvs is None else 1,
                 uv_pointer, NO_RAW, NO_RAW, NO_RAW, normal_pointer, colour_pointer)
        self.put("6I", at + 0x1DC, *([NO_RAW] * 6))

    def emitter(self, at: int, settings: dict) -> None:
        """The emitter sub-header (docs 2.9): 24 bytes of numbers, then update, render, blend (32 bytes
        each), texture (64) and the chunk name (16)."""
        for name, offset, width in (("update", 0x18, 32), ("render", 0x38, 32), ("blend", 0x58, 32),
                                    ("texture", 0x78, 64)):
            self.model[at + offset:at + offset + width] = _name(settings.get(name, ""), width)

    def dangly(self, at: int, node: WNode) -> None:
        """The dangly sub-header: the constraints (f32 per vertex, model data), displacement,
        tightness, period."""
        period, tightness, displacement, constraints = node.dangly
        self.where[f"{node.name}.constraints"] = self.data_array(at, "f", [(c,) for c in constraints])
        self.put("fff", at + 0x0C, displacement, tightness, period)

    def skin(self, at: int, node: WNode, indices: dict[str, int], world: dict) -> None:
        referenced = []
        for row in node.skin_bones:
            for bone in row:
                if bone is not None and bone not in referenced:
                    referenced.append(bone)
        slots = np.array([[-1 if bone is None else referenced.index(bone) for bone in row]
                          for row in node.skin_bones], np.int16)
        self.where[f"{node.name}.weights"] = self.raw_put(np.asarray(node.skin_weights, np.float32).tobytes())
        self.where[f"{node.name}.slots"] = self.raw_put(slots.tobytes())
        self.put("II", at + 0x0C, self.where[f"{node.name}.weights"], self.where[f"{node.name}.slots"])
        count = len(indices)
        node_to_bone = [-1] * count
        for slot, bone in enumerate(referenced):
            node_to_bone[indices[bone]] = slot
        pointer = self.alloc(2 * count)
        struct.pack_into(f"<{count}h", self.model, pointer, *node_to_bone)
        self.put("II", at + 0x14, pointer, count)
        names = sorted(indices, key=indices.get)
        relative = [np.linalg.inv(world[name]) @ world[node.name] for name in names]
        quaternions = [_quaternion(m[:3, :3]) for m in relative]
        self.data_array(at + 0x1C, "4f", [(q[3], q[0], q[1], q[2]) for q in quaternions])
        self.data_array(at + 0x28, "3f", [tuple(m[:3, 3]) for m in relative])
        self.data_array(at + 0x34, "I", [(0xDEADBEEF,)] * count)
        table = node.skin_table
        parts = [indices[bone] for bone in referenced] + [197, -28054, -5352] * table
        struct.pack_into(f"<{table}h", self.model, at + 0x40, *parts[:table])


def _sub_size(node: WNode, flag: int, size: int) -> int:
    """A sub-header's size; the skin's ends with its bone-slot table at +0x40, padded to 4 bytes
    (17 entries: 0x64, 64 entries: the EE 0xC0)."""
    return (0x40 + 2 * node.skin_table + 3) // 4 * 4 if flag == 0x040 else size


def write_mdl(name: str, root: WNode, animations: list[WAnimation] = (), supermodel: str = "NULL",
              layout_of: dict | None = None, animation_scale: float = 1.0) -> bytes:
    """The bytes of a binary MDL holding ``root`` and ``animations``; ``layout_of`` (if given) receives
    model-data offsets by name (nodes, ``<node>.children``, ``<node>.faces``, ``animations`` …)."""
    builder = _Builder()
    header = builder.alloc(0xE8)
    order = _preorder(root)
    indices = {node.name: index for index, node in enumerate(order)}
    world = rest_world(root)
    builder.put("II", header, 0x40BBC0, 0x40BBD0)
    builder.model[header + 0x08:header + 0x48] = _name(name, 64)
    builder.put("I", header + 0x4C, len(order) + 1)
    builder.put("B3B", header + 0x6C, 2, 0x00, 0x80, 0x3F)
    builder.put("BBBB", header + 0x70, 0, 0, 4, 1)
    builder.put("I", header + 0x84, 0x09E17238)
    builder.put("3f3f2f", header + 0x88, -5, -5, -1, 5, 5, 10, 7, animation_scale)
    builder.model[header + 0xA8:header + 0xE8] = _name(supermodel, 64)
    builder.put("I", header + 0x48, builder.node(root, 0, indices, world, rest=True))
    anim_list = builder.alloc(4 * len(animations))
    builder.array(header + 0x78, anim_list, len(animations))
    builder.where["animations"] = anim_list
    for number, animation in enumerate(animations):
        offset = builder.alloc(0xC4)
        builder.where[f"animation {animation.name}"] = offset
        builder.put("I", anim_list + 4 * number, offset)
        builder.put("II", offset, 0x40B6C0, 0x44E700)
        builder.model[offset + 0x08:offset + 0x48] = _name(animation.name, 64)
        builder.put("I", offset + 0x4C, len(order) + 1)
        builder.put("B", offset + 0x6C, 5)
        builder.put("ff", offset + 0x70, animation.length, 0.25)
        builder.model[offset + 0x78:offset + 0xB8] = _name(root.name, 64)
        events = builder.alloc(0x24 * len(animation.events))
        for index, (time, event) in enumerate(animation.events):
            builder.put("f", events + 0x24 * index, time)
            builder.model[events + 0x24 * index + 4:events + 0x24 * index + 0x24] = _name(event, 32)
        builder.array(offset + 0xB8, events, len(animation.events))
        builder.put("I", offset + 0x48, builder.node(animation.root, 0, indices, world, rest=False))
    if layout_of is not None:
        layout_of.update(builder.where)
    header = struct.pack("<III", 0, len(builder.model), len(builder.raw))
    return header + bytes(builder.model) + bytes(builder.raw)
