"""Neverwinter Nights ASCII MDL (docs/formats/nwn-ascii-mdl.md): the text form modders edit.

A line-based reader: each line starts with a keyword; counted lists (``verts N``, ``faces N``,
``weights N``, ``positionkey N``…) take the next N lines, and key lists without a count run to
``endlist``. It fills the same ``nodes.Parsed`` as the binary reader, so both build the same
Model for the same content. Faces index vertices and texture vertices separately; vertices are split
where one vertex has several texture vertices, as the compiler does. Every error names the line.
"""

from __future__ import annotations

import re
from itertools import islice
from pathlib import Path

import numpy as np

from app.formats.nwn import supermodels
from app.formats.nwn.ascii_lines import LineReader, has_content, parse_number
from app.formats.nwn.emitter_settings import setting_name
from app.formats.nwn.nodes import ALPHA, ORIENTATION, POSITION, SCALE, Animation, Node, Parsed
from app.formats.registry import UTF8_BOM, Format, ReadError, register

#: Node kinds whose vertices and faces make a mesh (drawn or not).
MESH_KINDS = {"trimesh", "skin", "dangly", "animmesh", "aabb"}
#: Spellings of node kinds that differ from the shared names.
KIND_NAMES = {"danglymesh": "dangly"}
#: Numbers per key row after the time, by controller; bezier rows hold value, in- and out-tangent.
KEY_WIDTHS = {POSITION: 3, ORIENTATION: 4, SCALE: 1, ALPHA: 1}
KEYWORDS = {"position": POSITION, "orientation": ORIENTATION, "scale": SCALE, "alpha": ALPHA}
#: Per-kind values shown in the inspector, keyword → extras key (the binary reader's names).
EXTRAS = {"displacement": "displacement", "tightness": "tightness", "period": "period",
          "refmodel": "reference_model", "reattachable": "reattachable", "update": "update",
          "render": "render", "blend": "blend", "texture": "texture", "chunkname": "chunk_name",
          "flareradius": "flare_radius", "lightpriority": "priority", "ambientonly": "ambient_only",
          "shadow": "shadow"}
#: The sniffer's test: a ``newmodel`` line near the top of a text file.
_NEWMODEL = re.compile(rb"^[ \t]*newmodel[ \t]+\S", re.IGNORECASE | re.MULTILINE)
#: Keywords that cannot appear inside a node: a node before them was not closed.
SECTION_KEYWORDS = {"node", "newanim", "doneanim", "beginmodelgeom", "endmodelgeom", "donemodel", "newmodel",
                    "beginwalkmeshgeom", "endwalkmeshgeom"}
#: Most lanes a skin weight row may name.
MAX_WEIGHT_LANES = 16


def _axis_angle_quaternions(rows: np.ndarray) -> np.ndarray:
    """(K, 4) ``x y z angle`` rows → (K, 4) quaternions (x, y, z, w); a zero axis is the identity."""
    axis, angle = rows[:, :3], rows[:, 3]
    length = np.linalg.norm(axis, axis=1)
    unit = np.divide(axis, length[:, None], out=np.zeros_like(axis), where=length[:, None] > 1e-12)
    half = np.where(length > 1e-12, angle, 0.0) / 2
    return np.column_stack([unit * np.sin(half)[:, None], np.cos(half)])


class _NodeText:
    """What the lines of one ``node … endnode`` block said, before the model's nodes are known."""

    def __init__(self, kind: str, name: str, line: int):
        self.kind, self.name, self.line = kind, name, line
        self.parent = ""
        self.parent_line = line
        self.controllers: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.lists: dict[str, tuple[np.ndarray, int]] = {}
        self.weights: tuple[list[list[str]], np.ndarray, int] | None = None
        self.values: dict[str, str] = {}
        self.settings: dict[str, str] = {}
        self.tangents: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.handles: dict[int, tuple[np.ndarray, np.ndarray]] = {}


class _Parser(LineReader):
    def __init__(self, path: Path, text: str, walkmesh: bool = False):
        super().__init__(path, text)
        self.warnings: list[str] = []
        self.walkmesh = walkmesh

    def keys(self, tokens: list[str], line: int, kind: int,
             bezier: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | None:
        """A key list as written: times (K,), values (K, n) and, for bezier keys, the in- and
        out-tangents (2, K, n), rotations still axis-angle (see ``_convert_controllers``); None when
        empty (real files hold empty ``positionkey … endlist``)."""
        width = KEY_WIDTHS[kind]
        columns = 1 + width * (3 if bezier else 1)
        counted = len(tokens) > 1
        count = self.count(tokens, line) if counted else self.rows_to_endlist(line)
        rows = self.rows(line, count, columns, f"{tokens[0]} (time and {columns - 1} values per row)",
                         bounded=not counted)
        if not counted:
            self.at += 1  # the endlist
        elif self.at < len(self.lines) and self.lines[self.at].strip().lower() == "endlist":
            self.at += 1
        if not len(rows):
            return None
        tangents = rows[:, 1 + width:].reshape(len(rows), 2, width).swapaxes(0, 1) if bezier else None
        return rows[:, 0], rows[:, 1:1 + width], tangents

    # blocks

    def node(self, tokens: list[str], line: int) -> _NodeText:
        if len(tokens) < 3:
            raise self.error(line, "node: expected 'node <type> <name>'")
        kind = tokens[1].lower()
        text = _NodeText(KIND_NAMES.get(kind, kind), tokens[2], line)
        while True:
            found = self.next_tokens()
            if found is None:
                raise self.error(line, f"node {text.name!r}: expected 'endnode' before the end of the file")
            tokens, at = found
            keyword = tokens[0].lower()
            if keyword == "endnode":
                return text
            if keyword in SECTION_KEYWORDS:
                raise self.error(at, f"node {text.name!r} (line {line + 1}): "
                                     f"expected 'endnode' before {tokens[0]!r}")
            self.node_line(text, keyword, tokens, at)

    def node_line(self, text: _NodeText, keyword: str, tokens: list[str], at: int) -> None:
        if keyword == "parent":
            text.parent, text.parent_line = (tokens[1] if len(tokens) > 1 else "NULL"), at
        elif keyword in KEYWORDS:
            kind = KEYWORDS[keyword]
            values = self.inline(tokens, at, KEY_WIDTHS[kind])
            text.controllers[kind] = (np.zeros(1), values[None])
        elif keyword.endswith("key") and keyword[:-3].removesuffix("bezier") in KEYWORDS:
            kind = KEYWORDS[keyword[:-3].removesuffix("bezier")]
            keys = self.keys(tokens, at, kind, keyword.endswith("bezierkey"))
            if keys is not None:
                text.controllers[kind] = keys[:2]
                text.tangents.pop(kind, None)
                if keys[2] is not None:
                    text.tangents[kind] = keys[2]
        elif keyword in ("verts", "tverts", "normals", "constraints", "faces"):
            width = {"verts": 3, "tverts": 2, "normals": 3, "constraints": 1, "faces": 3}[keyword]
            count = self.count(tokens, at)
            if keyword == "faces":
                rows = (line for line in islice(self.lines, at + 1, None) if has_content(line))
                columns = len(next(rows, "").split()) if count else 0
                if columns >= 8:
                    text.lists[keyword] = (self.face_rows(at, count), at)
                    return
                width = 7 if columns == 7 else 3
            text.lists[keyword] = (self.rows(at, count, width, f"{keyword} {count}"), at)
        elif keyword == "weights":
            text.weights = self.weight_rows(at, self.count(tokens, at))
        elif keyword in ("animverts", "animtverts"):
            count = self.count(tokens, at)
            width = 3 if keyword == "animverts" else 2
            text.lists[keyword] = (self.rows(at, count, width, f"{keyword} {count}"), at)
        elif keyword == "colors":
            count = self.count(tokens, at)
            text.lists[keyword] = (self.rows(at, count, 3, f"colors {count}"), at)
        elif keyword == "tangents":
            self.at = min(len(self.lines), at + 1 + self.count(tokens, at))
        elif keyword in ("bitmap", "texture0", "render", "diffuse", "sampleperiod") or keyword in EXTRAS:
            text.values[keyword] = " ".join(tokens[1:])
        if text.kind == "emitter" and _emitter_setting(keyword):
            text.settings[setting_name(tokens[0])] = " ".join(tokens[1:])

    def face_rows(self, at: int, count: int) -> np.ndarray:
        """Face rows with their eighth number, the surface material; where a row lacks it, the rows
        without materials (a warning)."""
        try:
            return self.rows(at, count, 8, f"faces {count}")
        except ReadError:
            self.warnings.append(f"{self.path.name} line {at + 1}: faces {count}: a row has no surface "
                                 "material (its eighth number); the materials are not read")
            return self.rows(at, count, 7, f"faces {count}")

    def inline(self, tokens: list[str], at: int, width: int) -> np.ndarray:
        """The ``width`` numbers after a keyword on its own line."""
        if len(tokens) < 1 + width:
            raise self.error(at, f"{tokens[0]}: expected {width} numbers after it, found {len(tokens) - 1}")
        try:
            values = np.array([parse_number(token) for token in tokens[1:1 + width]])
        except ValueError:
            found = " ".join(tokens[1:])
            raise self.error(at, f"{tokens[0]}: expected {width} numbers, found {found!r}") from None
        if not np.isfinite(values).all():
            self.nonfinite += 1
            values = np.where(np.isfinite(values), values, 0.0)
        return values

    def weight_rows(self, at: int, count: int) -> tuple[list[list[str]], np.ndarray, int]:
        """Skin weight rows ``bone weight bone weight …``: bone names (V, K) and weights (V, K)."""
        if at + 1 + count > len(self.lines):
            raise self.error(at, f"weights {count}: expected {count} rows, the file ends after "
                                 f"{len(self.lines) - at - 1}")
        numbers = self.content_lines(at, count, f"weights {count}")
        parts = [self.lines[number].split() for number in numbers]
        lanes = max((len(part) // 2 for part in parts), default=0)
        bad = next((row for row, part in enumerate(parts)
                    if not part or len(part) % 2 or len(part) // 2 > MAX_WEIGHT_LANES), None)
        if bad is not None:
            found = " ".join(parts[bad]) or "an empty line"
            raise self.error(numbers[bad], f"weights {count}: row {bad + 1} should hold 1 to "
                                           f"{MAX_WEIGHT_LANES} 'bone weight' pairs, found {found!r}")
        names = [part[0::2] + [""] * (lanes - len(part) // 2) for part in parts]
        flat = [part[1::2] + ["0"] * (lanes - len(part) // 2) for part in parts]
        try:
            weights = np.array(flat, np.float64).reshape(count, lanes)
        except ValueError:
            row = next(row for row, values in enumerate(flat) if not all(map(_plain_number, values)))
            raise self.error(numbers[row], f"weights {count}: row {row + 1}: "
                                           "expected 'bone weight' pairs, found "
                                           f"{' '.join(parts[row])!r}") from None
        return names, weights, at

    def animation(self, tokens: list[str], line: int) -> tuple[Animation, list[_NodeText]]:
        if len(tokens) < 2:
            raise self.error(line, "newanim: expected 'newanim <name> <model>'")
        animation = Animation(tokens[1], 0.0, [], [])
        texts = []
        while True:
            found = self.next_tokens()
            if found is None:
                raise self.error(line, f"animation {animation.name!r}: "
                                       "expected 'doneanim' before the end of the file")
            tokens, at = found
            keyword = tokens[0].lower()
            if keyword == "doneanim":
                return animation, texts
            if keyword == "node":
                texts.append(self.node(tokens, at))
            elif keyword == "length":
                animation.length = float(self.inline(tokens, at, 1)[0])
            elif keyword == "transtime":
                animation.transition = float(self.inline(tokens, at, 1)[0])
            elif keyword == "animroot":
                animation.root = tokens[1] if len(tokens) > 1 else ""
            elif keyword == "event":
                if len(tokens) < 3:
                    raise self.error(at, "event: expected 'event <time> <name>'")
                animation.events.append((float(self.inline(tokens[:2], at, 1)[0]), tokens[2]))

    def parse(self) -> Parsed:
        name = supermodel = classification = ""
        scale = 1.0
        geometry: list[_NodeText] = []
        animations: list[tuple[Animation, list[_NodeText]]] = []
        while (found := self.next_tokens()) is not None:
            tokens, at = found
            keyword = tokens[0].lower()
            if keyword == "newmodel" and len(tokens) > 1:
                name = tokens[1]
            elif keyword == "beginwalkmeshgeom" and len(tokens) > 1 and self.walkmesh:
                name = name or tokens[1]
            elif keyword == "setsupermodel":
                supermodel = tokens[2] if len(tokens) > 2 else ""
            elif keyword == "classification" and len(tokens) > 1:
                classification = tokens[1].lower()
            elif keyword == "setanimationscale":
                scale = float(self.inline(tokens, at, 1)[0])
            elif keyword == "node":
                geometry.append(self.node(tokens, at))
            elif keyword == "newanim":
                animations.append(self.animation(tokens, at))
            elif keyword == "donemodel":
                break
        if not name:
            expected = "'beginwalkmeshgeom <name>'" if self.walkmesh else "'newmodel <name>'"
            raise ReadError(self.path, f"expected a {expected} line: not an NWN ASCII "
                                       f"{'walkmesh' if self.walkmesh else 'model'}", line=1)
        if not geometry:
            raise ReadError(self.path, f"model {name!r}: expected at least one 'node' line",
                            line=len(self.lines))
        nodes = self.tree(geometry, "walkmesh" if self.walkmesh else "model", name)
        lookup = {}
        for index, node in enumerate(nodes):
            lookup.setdefault(node.name.lower(), index)
        by_name = {text.name.lower(): text for text in reversed(geometry)}
        for node in nodes:
            if node.kind in MESH_KINDS:
                self.mesh(node, by_name[node.name.lower()], lookup)
        parsed_animations = []
        for animation, texts in animations:
            _convert_controllers(texts)
            animation.nodes = [Node(name=text.name, parent=-1, kind=text.kind, controllers=text.controllers,
                                    geometry=self.vertex_samples(text), handles=text.handles)
                               for text in texts]
            parsed_animations.append(animation)
        if self.nonfinite:
            self.warnings.append(f"{self.nonfinite} non-finite number(s) (NaN/Inf) read as 0")
        return Parsed(self.path, name, supermodel, nodes, parsed_animations, self.warnings,
                      classification=classification, animation_scale=scale, format="nwn_ascii")

    def tree(self, texts: list[_NodeText], what: str, model_name: str) -> list[Node]:
        """The model's nodes in pre-order (children in file order) with parent indices; a parent that
        names no node, or a parent cycle, is an error naming the line (in a walkmesh file, a parent
        naming the walkmesh itself, as NWmax writes, is no parent). (Animation nodes are matched
        to the model's by name, so their parents are not needed.)"""
        first: dict[str, int] = {}
        for index, text in enumerate(texts):
            first.setdefault(text.name.lower(), index)
        children: list[list[int]] = [[] for _ in texts]
        roots = []
        for index, text in enumerate(texts):
            parent = text.parent.lower()
            names_walkmesh = self.walkmesh and parent == model_name.lower() and parent not in first
            if parent in ("", "null") or names_walkmesh:
                roots.append(index)
            elif parent not in first:
                raise self.error(text.parent_line, f"{what}: node {text.name!r} has parent {text.parent!r}, "
                                                   "which is no node of it")
            else:
                children[first[parent]].append(index)
        order: list[tuple[int, int]] = []
        stack = [(root, -1) for root in reversed(roots)]
        while stack:
            index, parent = stack.pop()
            order.append((index, parent))
            position = len(order) - 1
            stack.extend((child, position) for child in reversed(children[index]))
        if len(order) < len(texts):
            placed = {index for index, _ in order}
            stray = next(text for index, text in enumerate(texts) if index not in placed)
            raise self.error(stray.parent_line, f"{what}: node {stray.name!r} is on a parent cycle")
        _convert_controllers(texts)
        nodes = []
        for index, parent in order:
            text = texts[index]
            extras = {EXTRAS[key]: value for key, value in text.values.items()
                      if key in EXTRAS and text.kind not in MESH_KINDS}
            nodes.append(Node(name=text.name, parent=parent, kind=text.kind, controllers=text.controllers,
                              extras=extras, settings=text.settings))
        return nodes

    def vertex_colours(self, text: _NodeText, name: str, count: int, source: np.ndarray) -> np.ndarray | None:
        """(V, 4) display colours in 0..1 of the split vertices from a ``colors`` list (r g b per vertex);
        None without one. A list of another length than ``verts``, or values outside 0..1, are a
        warning and the mesh is drawn without them."""
        colours = text.lists.get("colors")
        if colours is None or not len(colours[0]):
            return None
        rows, line = colours
        if len(rows) != count:
            self.warnings.append(f"{self.path.name} line {line + 1}: node {name!r}: colors lists {len(rows)} "
                                 f"colours for {count} vertices; drawn without them")
            return None
        if not np.all((rows >= 0.0) & (rows <= 1.0)):
            self.warnings.append(f"{self.path.name} line {line + 1}: node {name!r}: a colour is outside "
                                 "0..1; drawn without them")
            return None
        return np.column_stack([rows[source], np.ones(len(source))])

    def mesh(self, node: Node, text: _NodeText, lookup: dict[str, int]) -> None:
        """Vertices, split where one vertex has several texture vertices, with faces and skin."""
        verts = text.lists.get("verts")
        faces = text.lists.get("faces")
        node.extras.update({EXTRAS[key]: value for key, value in text.values.items()
                            if key in ("displacement", "tightness", "period")})
        if verts is None or not len(verts[0]):
            return
        positions, verts_line = verts
        count = len(positions)
        rows, faces_line = faces if faces is not None else (np.zeros((0, 3)), verts_line)
        corners = rows[:, :3].astype(np.int64)
        self._check_indices(corners, count, faces_line, "vertex", "verts", rows[:, :3])
        tverts = text.lists.get("tverts")
        if tverts is not None and len(tverts[0]) and rows.shape[1] >= 7:
            uv_corners = rows[:, 4:7].astype(np.int64)
            self._check_indices(uv_corners, len(tverts[0]), faces_line, "texture vertex", "tverts",
                                rows[:, 4:7])
            keys = np.concatenate([corners.ravel() * len(tverts[0]) + uv_corners.ravel(),
                                   np.setdiff1d(np.arange(count), corners) * len(tverts[0])])
            unique, inverse = np.unique(keys, return_inverse=True)
            source, uv_source = unique // len(tverts[0]), unique % len(tverts[0])
            triangles = inverse[:corners.size].reshape(-1, 3)
            uvs = tverts[0][uv_source]
        else:
            source, triangles, uvs = np.arange(count), corners, None
        normals = text.lists.get("normals")
        node.geometry = {
            "source_vertices": source,
            "positions": positions[source],
            "normals": normals[0][source] if normals is not None and len(normals[0]) == count else None,
            "uvs": uvs,
            "triangles": triangles.astype(np.int32),
            "texture": self.texture(text),
            "color": tuple(float(v) for v in self.floats(text, "diffuse", (0.8, 0.8, 0.8))),
            "render": self.floats(text, "render", (1.0,))[0] != 0,
            "colors": self.vertex_colours(text, node.name, count, source),
            "surfaces": self.surfaces(rows, faces_line, node.name),
        }
        node.extras.update(vertices=len(source), faces=len(triangles))
        if text.kind == "dangly" and "constraints" in text.lists:
            node.geometry["constraints"] = text.lists["constraints"][0][:, 0]
        if text.kind == "skin":
            node.geometry.update(self.skin(text, count, lookup, source))

    def surfaces(self, rows: np.ndarray, line: int, name: str) -> np.ndarray | None:
        """(F,) each face's surface material (the eighth number of a face row), None when the rows
        have no such column; a material that is not a whole number is a warning and read as 0."""
        if rows.shape[1] < 8:
            return None
        materials = rows[:, 7]
        odd = np.flatnonzero((materials != np.floor(materials)) | (np.abs(materials) > 2 ** 31 - 1))
        if odd.size:
            self.warnings.append(f"{self.path.name} line {line + 2 + int(odd[0])}: node {name!r}: surface "
                                 f"material {materials[odd[0]]:g} is not a whole number; read as 0")
            materials = np.where(np.isin(np.arange(len(materials)), odd), 0, materials)
        return materials.astype(np.int32)

    def _check_indices(self, indices: np.ndarray, count: int, line: int, what: str, listed: str,
                       raw: np.ndarray) -> None:
        bad = np.flatnonzero(((indices < 0) | (indices >= count) | (raw != np.floor(raw))).any(axis=1))
        if bad.size:
            row = int(bad[0])
            raise self.error(line + 1 + row, f"face {row}: {what} index {raw[row].tolist()} "
                                             f"outside 0..{count - 1} "
                                             f"(the node lists {count} {listed})")

    def skin(self, text: _NodeText, count: int, lookup: dict[str, int], source: np.ndarray) -> dict:
        if text.weights is None:
            raise self.error(text.line, f"skin {text.name!r}: expected a 'weights' list")
        names, weights, at = text.weights
        if len(names) != count:
            raise self.error(at, f"skin {text.name!r}: {len(names)} weight rows for {count} vertices")
        joints = np.array([[lookup.get(bone.lower(), -1) if bone else -1 for bone in row] for row in names],
                          np.int64).reshape(weights.shape)
        return {"skin_joints": joints[source], "skin_weights": weights[source]}

    def vertex_samples(self, text: _NodeText) -> dict | None:
        """An animation's animmesh node: its ``animverts`` rows (node space, the verts list's order,
        one sample after another), ``animtverts`` rows, ``sampleperiod`` and the lines they were on;
        None for other nodes and animmesh nodes without animated vertices."""
        if text.kind != "animmesh" or "animverts" not in text.lists or not len(text.lists["animverts"][0]):
            return None
        rows, line = text.lists["animverts"]
        uvs = text.lists.get("animtverts", (np.zeros((0, 2)), line))[0]
        return {"anim_vertices": rows, "anim_uvs": uvs, "anim_line": line + 1,
                "sample_period": self.floats(text, "sampleperiod", (0.0,))[0]}

    @staticmethod
    def texture(text: _NodeText) -> str:
        """``texture0`` when it names one, else ``bitmap`` (``NULL`` means none)."""
        for key in ("texture0", "bitmap"):
            value = text.values.get(key, "").strip()
            if value and value.lower() != "null":
                return value
        return ""

    def floats(self, text: _NodeText, key: str, default: tuple) -> tuple:
        value = text.values.get(key)
        if value is None:
            return default
        try:
            numbers = tuple(parse_number(token) for token in value.split()[:len(default)])
        except ValueError:
            return default
        return numbers if len(numbers) == len(default) and all(np.isfinite(numbers)) else default



def _convert_controllers(texts: list[_NodeText]) -> None:
    """Every node's controllers as the shared form wants them, converted in one batch per kind (a
    creature has thousands of short key lists): rotations to quaternions, scale to three columns,
    keys sorted by time."""
    for kind in (POSITION, ORIENTATION, SCALE):
        owners = [text for text in texts if kind in text.controllers]
        if not owners:
            continue
        for text in owners:
            if kind in text.tangents:
                text.handles[kind] = _handles(kind, *text.controllers[kind], text.tangents[kind])
        times = np.concatenate([text.controllers[kind][0] for text in owners])
        values = np.concatenate([text.controllers[kind][1] for text in owners])
        if kind == ORIENTATION:
            values = _axis_angle_quaternions(values)
        elif kind == SCALE:
            values = np.repeat(values, 3, axis=1)
        ends = np.cumsum([len(text.controllers[kind][0]) for text in owners])
        backwards = np.diff(times) < 0
        backwards[ends[:-1] - 1] = False  # a new list may start earlier than the last one ended
        unsorted = set(np.searchsorted(ends, np.flatnonzero(backwards), side="right").tolist())
        for number, (text, start, end) in enumerate(zip(owners, np.concatenate([[0], ends[:-1]]), ends)):
            keys = (times[start:end], values[start:end])
            if number in unsorted:
                order = np.argsort(keys[0], kind="stable")
                keys = (keys[0][order], keys[1][order])
                if kind in text.handles:
                    text.handles[kind] = tuple(side[order] for side in text.handles[kind])
            if kind == ORIENTATION and kind in text.handles:
                keys = (keys[0], _one_hemisphere(keys[1]))
                text.handles[kind] = tuple(_one_hemisphere(side, keys[1]) for side in text.handles[kind])
            text.controllers[kind] = keys


def _handles(kind: int, times: np.ndarray, values: np.ndarray,
             tangents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The in and out control values of bezier keys as written (value + tangent, in the file's
    form), converted as the values are: rotations from axis-angle to quaternions, scale to three
    columns."""
    handles = values + tangents
    if kind == ORIENTATION:
        return tuple(_axis_angle_quaternions(side) for side in handles)
    if kind == SCALE:
        return tuple(np.repeat(side, 3, axis=1) for side in handles)
    return handles[0], handles[1]


def _one_hemisphere(quaternions: np.ndarray, keys: np.ndarray | None = None) -> np.ndarray:
    """(K, 4) quaternions with signs flipped so each lies in the hemisphere of the one before it
    (``keys`` None) or of its key (component-wise curves need one hemisphere)."""
    if keys is not None:
        return np.where(np.sum(quaternions * keys, axis=1, keepdims=True) < 0, -quaternions, quaternions)
    flips = np.sum(quaternions[1:] * quaternions[:-1], axis=1) < 0
    signs = np.concatenate([[1.0], np.cumprod(np.where(flips, -1.0, 1.0))])
    return quaternions * signs[:, None]


def _emitter_setting(keyword: str) -> bool:
    """Whether an emitter node's line sets one of its settings (not its transform, a key list or a
    key row)."""
    return (keyword not in ("parent", "endlist", *KEYWORDS) and not keyword.endswith("key")
            and not _plain_number(keyword))


def _plain_number(token: str) -> bool:
    """Whether ``float`` reads ``token`` (weights take no MSVC NaN spellings)."""
    try:
        float(token)
    except ValueError:
        return False
    return True


def parse(path: Path, data: bytes, walkmesh: bool = False) -> Parsed:
    """One ASCII MDL's content; every count, index and key row checked. ``walkmesh``: the file is a
    walkmesh (``beginwalkmeshgeom NAME`` … ``endwalkmeshgeom``, docs/formats/walkmesh.md)."""
    data = data.removeprefix(UTF8_BOM)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    with np.errstate(all="ignore"):
        return _Parser(path, text, walkmesh).parse()


# --- registry -----------------------------------------------------------------------------------

def sniff(head: bytes, path: Path) -> str | None:
    """'model' for a text file with a ``newmodel <name>`` line in its head."""
    if b"\0" in head:
        return None
    return "model" if _NEWMODEL.search(head) else None


register(Format(name="nwn_ascii", description="Neverwinter Nights ASCII MDL (.mdl)", sniff=sniff,
                load=supermodels.load, accepts=("nwn_mdl",), extensions=(".mdl",), unit="metre",
                dds_bottom_up=True))
