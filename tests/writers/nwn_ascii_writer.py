"""A small writer of NWN ASCII MDL text for tests, following docs/formats/nwn-ascii-mdl.md (it shares
no code with the reader). It takes the same ``WNode`` / ``WAnimation`` description as the binary
writer, so one description can be written in both forms.

Options exercise the grammar's variants: ``key_form`` 'counted' (``positionkey N``) or 'endlist'
(``positionkey`` … ``endlist``); ``bezier`` writes ``…bezierkey`` rows (value, in- and
out-tangent); ``split_uvs`` writes texture vertices indexed apart from the vertices (each corner
its own texture vertex), as exporters do.
"""

from __future__ import annotations

import math

import numpy as np

from tests.writers.nwn_writer import WAnimation, WNode

KINDS = {0x001: "dummy", 0x003: "light", 0x005: "emitter", 0x011: "reference", 0x021: "trimesh",
         0x061: "skin", 0x0A1: "animmesh", 0x121: "danglymesh", 0x221: "aabb"}
KEY_NAMES = {8: "position", 20: "orientation", 36: "scale"}
#: Emitter controllers written as setting lines (their first value).
EMITTER_KEYS = {88: "birthrate", 144: "lifeExp", 184: "spread", 192: "velocity", 196: "xsize", 200: "ysize",
                108: "colorStart", 96: "colorEnd"}


def _number(value: float) -> str:
    return repr(float(value))


def axis_angle(q) -> tuple[float, float, float, float]:
    """(x, y, z, angle in radians) of a quaternion (x, y, z, w); the identity is ``0 0 0 0``."""
    x, y, z, w = (float(v) for v in q)
    norm = math.sqrt(x * x + y * y + z * z + w * w)
    x, y, z, w = x / norm, y / norm, z / norm, w / norm
    s = math.sqrt(max(0.0, 1 - w * w))
    if s < 1e-12:
        return 0.0, 0.0, 0.0, 0.0
    return x / s, y / s, z / s, 2 * math.acos(max(-1.0, min(1.0, w)))


def _key_values(kind: int, value) -> list[float]:
    if kind == 20:
        return list(axis_angle(value))
    return [float(v) for v in np.atleast_1d(value)]


class _Text:
    def __init__(self, key_form: str, bezier: bool, split_uvs: bool):
        self.lines: list[str] = []
        self.key_form, self.bezier, self.split_uvs = key_form, bezier, split_uvs

    def add(self, line: str) -> None:
        self.lines.append(line)

    def keys(self, kind: int, times, values) -> None:
        name = KEY_NAMES[kind] + ("bezierkey" if self.bezier else "key")
        rows = []
        for time, value in zip(times, values):
            numbers = _key_values(kind, value)
            if self.bezier:
                numbers = numbers + [0.1] * len(numbers) + [-0.1] * len(numbers)
            rows.append("    " + " ".join(_number(n) for n in [time, *numbers]))
        if self.key_form == "counted":
            self.add(f"  {name} {len(rows)}")
            self.lines.extend(rows)
        else:
            self.add(f"  {name}")
            self.lines.extend(rows)
            self.add("  endlist")

    def node(self, node: WNode, parent: str, geometry: bool) -> None:
        kind = KINDS.get(node.flags, "dummy") if geometry else "dummy"
        self.add(f"node {kind} {node.name}")
        self.add(f"  parent {parent}")
        self.add("  #part-number 3")
        if node.position is not None:
            self.add("  position " + " ".join(_number(v) for v in node.position))
        if node.orientation is not None:
            self.add("  orientation " + " ".join(_number(v) for v in axis_angle(node.orientation)))
        for kind_number, times, values in node.keys:
            if kind_number in EMITTER_KEYS:
                numbers = " ".join(_number(v) for v in np.ravel(values[0]))
                self.add(f"  {EMITTER_KEYS[kind_number]} {numbers}")
            else:
                self.keys(kind_number, times, values)
        for setting, value in (node.emitter or {}).items():
            self.add(f"  {setting} {value}")
        if geometry and node.vertices is not None:
            self.mesh(node)
        self.add("endnode")
        for child in node.children:
            self.node(child, node.name, geometry)

    def mesh(self, node: WNode) -> None:
        self.add("  ambient 1 1 1")
        self.add("  diffuse 0.8 0.7 0.6")
        self.add(f"  render {node.render}")
        if node.texture:
            self.add(f"  bitmap {node.texture}")
        vertices = np.asarray(node.vertices, float)
        faces = np.asarray(node.faces, int).reshape(-1, 3)
        self.add(f"  verts {len(vertices)}")
        self.lines.extend("    " + " ".join(_number(v) for v in row) for row in vertices)
        uv_faces = faces
        if node.uvs is not None:
            uvs = np.asarray(node.uvs, float)
            if self.split_uvs:
                uv_faces = np.arange(faces.size).reshape(-1, 3)
                uvs = uvs[faces.ravel()]
            self.add(f"  tverts {len(uvs)}")
            self.lines.extend(f"    {_number(u)} {_number(v)} 0" for u, v in uvs)
        if node.colors is not None:
            self.add(f"  colors {len(vertices)}")
            self.lines.extend("    " + " ".join(_number(c / 255.0) for c in row[:3]) for row in node.colors)
        self.add(f"  faces {len(faces)}")
        surfaces = [0] * len(faces) if node.surfaces is None else node.surfaces
        self.lines.extend(f"    {a} {b} {c} 1 {ta} {tb} {tc} {surface}"
                          for (a, b, c), (ta, tb, tc), surface in zip(faces, uv_faces, surfaces))
        if node.flags == 0x121:
            unset = (None, None, None, [0] * len(vertices))
            period, tightness, displacement, constraints = node.dangly or unset
            for name, value in (("period", period), ("tightness", tightness), ("displacement", displacement)):
                if value is not None:
                    self.add(f"  {name} {_number(value)}")
            self.add(f"  constraints {len(constraints)}")
            self.lines.extend(f"    {_number(c)}" for c in constraints)
        if node.skin_bones is not None:
            self.add(f"  weights {len(vertices)}")
            for bones, weights in zip(node.skin_bones, node.skin_weights):
                pairs = [f"{bone} {_number(weight)}" for bone, weight in zip(bones, weights)
                         if bone is not None]
                self.add("    " + " ".join(pairs))


def write_ascii_mdl(name: str, root: WNode, animations: list[WAnimation] = (), supermodel: str = "NULL", *,
                    key_form: str = "counted", bezier: bool = False, split_uvs: bool = False,
                    classification: str = "character",
                    animation_scale: float = 1.0) -> bytes:
    """The text of an ASCII MDL holding ``root`` and ``animations``."""
    text = _Text(key_form, bezier, split_uvs)
    text.add("#MAXMODEL ASCII")
    text.add(f"# model: {name}")
    text.add(f"filedependancy {name}.max")
    text.add(f"newmodel {name}")
    text.add(f"setsupermodel {name} {supermodel}")
    text.add(f"classification {classification}")
    text.add(f"setanimationscale {_number(animation_scale)}")
    text.add(f"beginmodelgeom {name}")
    text.node(root, "NULL", geometry=True)
    text.add(f"endmodelgeom {name}")
    for animation in animations:
        text.add("")
        text.add(f"newanim {animation.name} {name}")
        text.add(f"  length {_number(animation.length)}")
        text.add("  transtime 0.25")
        text.add(f"  animroot {root.name}")
        for time, event in animation.events:
            text.add(f"  event {_number(time)} {event}")
        text.node(animation.root, "NULL", geometry=False)
        text.add(f"doneanim {animation.name} {name}")
    text.add(f"donemodel {name}")
    return ("\n".join(text.lines) + "\n").encode("latin-1")
