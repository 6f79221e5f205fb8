"""LGW text models (UFO: Aftermath): meshes skinned to a flat skeleton, and helpers.

docs/formats/lgw.md: PIVOTs are 16 floats, the rows of a column-vector matrix; a bone's PIVOT is its
bind matrix; the skeleton is the union of the meshes' SKIN bone lists by name, all roots. A
NORMAL-linked mesh is rigid on its parent (weight 1), which joins the skeleton if it is not a skin
bone, with the PIVOT of the link. Helpers follow their parent as ``W_parent @ offset``. A bone's bind is
the first PIVOT listed for it; a mesh or helper whose LINKINFO lists it with another PIVOT is bound to
that one (a ``MeshSkin``, a helper offset from it). The game came out of 3ds Max, so the model is Z-up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from app import maths
from app.formats.registry import Format, LoadOptions, ReadError, SniffedFile, register
from app.formats.textscan import TextScanner, affine_invertible, head_tokens, shown
from app.bone_tails import derive_tails
from app.model import Helper, Material, Mesh, MeshSkin, Model, Skeleton

#: Floats per static vertex: position, uv, normal.
VERTEX_VALUES = 8
#: A skinned vertex's weights summing this far from 1 are normalised with a warning.
WEIGHT_SUM_TOLERANCE = 1e-3
#: Most bones one skinned vertex may name.
MAX_INFLUENCES = 4


@dataclass
class Link:
    """A LINKINFO block: 'skin' with (name, pivot (4, 4), line) bones, or 'normal' with one parent."""

    kind: str
    bones: list[tuple[str, np.ndarray, int]] = field(default_factory=list)


@dataclass
class RawMesh:
    name: str
    line: int
    link: Link | None = None
    material: int | None = None
    color: tuple[float, float, float] | None = None
    vertices: np.ndarray | None = None
    influences: list[list[tuple[float, str, int]]] | None = None
    triangles: list[np.ndarray] = field(default_factory=list)


@dataclass
class RawMaterial:
    name: str
    color: tuple[float, float, float] | None = None
    texture: str = ""


class _Reader:
    """One pass over the token stream; block methods consume from their keyword to their END."""

    def __init__(self, scanner: TextScanner):
        self.scanner = scanner
        self.warnings: list[str] = []
        self.materials: dict[int, RawMaterial] = {}
        self.meshes: list[RawMesh] = []
        self.helpers: list[tuple[str, Link | None, np.ndarray, int]] = []

    def warn(self, line: int, message: str) -> None:
        self.warnings.append(f"{self.scanner.path.name}: line {line}: {message}")

    def pivot(self) -> np.ndarray:
        """PIVOT and 16 floats → (4, 4), rows as written."""
        return self.pivot_values(self.scanner.keyword("PIVOT").line)

    def pivot_values(self, line: int) -> np.ndarray:
        """The 16 floats after a PIVOT on ``line``; refused unless affine and invertible."""
        matrix = self.scanner.floats(16, "a PIVOT's 16 floats").reshape(4, 4)
        if not np.allclose(matrix[3], (0, 0, 0, 1), atol=1e-4):
            raise self.scanner.error(f"a PIVOT's last row must be 0 0 0 1, found {matrix[3].tolist()}", line)
        matrix[3] = (0, 0, 0, 1)
        if not affine_invertible(matrix):
            raise self.scanner.error("the PIVOT matrix is singular (its 3×3 part has no inverse)", line)
        return matrix

    def skip_unknown(self, token, known: set[str]) -> None:
        """Skip an unknown key and its values (up to the next known keyword or END_OF_…), with a
        warning; an unknown block's own ``END_OF_<key>`` and the name or index after it go with it."""
        self.warn(token.line, f"unknown key {shown(token.text)} skipped")
        while True:
            following = self.scanner.peek()
            if following is None or (following.kind == "word" and (following.text in known
                                                                   or following.text.startswith("END_OF_"))):
                break
            self.scanner.next("a value")
        if following is not None and following.text == f"END_OF_{token.text}":
            self.scanner.next(following.text)
            self.skip_closing_label()

    def skip_closing_label(self) -> None:
        """The optional name or index after an unknown block's END_OF_ (``END_OF_LIGHT "sun"``)."""
        following = self.scanner.peek()
        if following is not None and (following.kind == "string" or following.text.lstrip("+-").isdigit()):
            self.scanner.next("a name")

    def model(self) -> str:
        self.scanner.keyword("MODEL")
        name = self.scanner.string("the model's name").text
        known = {"EXPORT_VERSION", "SOURCE_FILE", "MATERIAL_LIST", "MESH", "HELPER", "END_OF_MODEL"}
        while True:
            token = self.scanner.next("END_OF_MODEL")
            if token.text == "END_OF_MODEL" and token.kind == "word":
                break
            if token.text == "EXPORT_VERSION":
                self.scanner.integer("the export version")
            elif token.text == "SOURCE_FILE":
                self.scanner.string("the source file")
            elif token.text == "MATERIAL_LIST":
                self.material_list()
            elif token.text == "MESH":
                self.mesh(token.line)
            elif token.text == "HELPER":
                self.helper()
            elif token.kind == "word" and token.text.isupper() and not token.text.startswith("END_OF_"):
                self.skip_unknown(token, known)
            else:
                raise self.scanner.error(f"expected a MODEL key (MESH, HELPER, …), found {shown(token.text)}",
                                         token.line)
        if not self.scanner.at_end():
            self.warn(self.scanner.peek_line(), "text after END_OF_MODEL ignored")
        return name

    def material_list(self) -> None:
        while True:
            token = self.scanner.word("MATERIAL or END_OF_MATERIAL_LIST")
            if token.text == "END_OF_MATERIAL_LIST":
                return
            if token.text != "MATERIAL":
                raise self.scanner.error("expected MATERIAL or END_OF_MATERIAL_LIST, found "
                                         f"{shown(token.text)}",
                                         token.line)
            index = self.scanner.integer("the material index", 0)
            self.materials[index] = self.material(self.scanner.string("the material name").text)

    def material(self, name: str) -> RawMaterial:
        """Keys up to END_OF_MATERIAL; DIFFUSE_COLOR and the first TEXTURE's file name are kept."""
        material = RawMaterial(name)
        depth = 0
        while True:
            token = self.scanner.next("END_OF_MATERIAL")
            if token.kind == "word" and token.text == "END_OF_MATERIAL" and depth == 0:
                return material
            if token.kind == "word" and token.text == "DIFFUSE_COLOR" and depth == 0:
                material.color = tuple(self.scanner.floats(3, "DIFFUSE_COLOR r g b").tolist())
            elif token.kind == "word" and token.text == "TEXTURE":
                depth += 1
            elif token.kind == "word" and token.text == "END_OF_TEXTURE":
                depth = max(depth - 1, 0)
            elif token.kind == "string" and depth and not material.texture:
                material.texture = token.text

    def linkinfo(self) -> Link:
        self.scanner.keyword("LINK_TYPE")
        kind = self.scanner.word("SKIN or NORMAL")
        if kind.text == "SKIN":
            link = Link("skin")
            line = self.scanner.keyword("BONES").line
            count = self.scanner.integer("the BONES count", 0)
            self.scanner.require(count * 20, f"{count} bones", line)
            for _ in range(count):
                line = self.scanner.keyword("BONE").line
                name = self.scanner.string("the bone name").text
                link.bones.append((name, self.pivot(), line))
                self.scanner.keyword("END_OF_BONE")
            self.scanner.keyword("END_OF_BONES")
        elif kind.text == "NORMAL":
            line = self.scanner.keyword("PARENT").line
            name = self.scanner.string("the parent's name").text
            link = Link("normal", [(name, self.pivot(), line)])
            self.scanner.keyword("END_OF_PARENT")
        else:
            raise self.scanner.error(f"expected LINK_TYPE SKIN or NORMAL, found {shown(kind.text)}",
                                     kind.line)
        self.scanner.keyword("END_OF_LINKINFO")
        return link

    def mesh(self, line: int) -> None:
        mesh = RawMesh(self.scanner.string("the mesh name").text, line)
        known = {"LINKINFO", "MATERIAL_REF", "DEFAULT_COLOR", "VERTS", "WVERTS", "PRIMITIVE_GEOMETRY_GROUPS",
                 "GROUP"}
        while True:
            token = self.scanner.word("END_OF_MESH")
            if token.text == "END_OF_MESH":
                break
            if token.text == "LINKINFO":
                mesh.link = self.linkinfo()
            elif token.text == "MATERIAL_REF":
                mesh.material = self.scanner.integer("the material index (or -1 for none)", -1)
            elif token.text == "DEFAULT_COLOR":
                mesh.color = tuple(self.scanner.floats(3, "DEFAULT_COLOR r g b").tolist())
            elif token.text == "VERTS":
                self.verts(mesh)
            elif token.text == "WVERTS":
                self.wverts(mesh, token.line)
            elif token.text == "PRIMITIVE_GEOMETRY_GROUPS":
                self.scanner.integer("the group count", 0)
            elif token.text == "GROUP":
                mesh.triangles.append(self.group(mesh))
            else:
                self.skip_unknown(token, known)
        following = self.scanner.peek()
        if following is not None and following.kind == "string":
            closing = self.scanner.next("a name")
            if closing.text != mesh.name:
                self.warn(closing.line, f"END_OF_MESH {shown(closing.text)} closes MESH {mesh.name!r}")
        if mesh.vertices is None:
            raise self.scanner.error(f"mesh {mesh.name!r} has no VERTS or WVERTS", mesh.line)
        self.meshes.append(mesh)

    def verts(self, mesh: RawMesh) -> None:
        line = self.scanner.peek_line()
        count = self.scanner.integer("the vertex count", 0)
        self.scanner.require(count * VERTEX_VALUES, f"{count} vertices", line)
        mesh.vertices = self.scanner.floats(count * VERTEX_VALUES, "vertices").reshape(count, VERTEX_VALUES)

    def wverts(self, mesh: RawMesh, line: int) -> None:
        """Skinned vertices: 8 floats, k, then k × (weight "bone"); names resolve in the mesh's SKIN list."""
        if mesh.link is None or mesh.link.kind != "skin":
            raise self.scanner.error("WVERTS needs a LINKINFO with LINK_TYPE SKIN before it", line)
        count = self.scanner.integer("the vertex count", 0)
        self.scanner.require(count * (VERTEX_VALUES + 3), f"{count} skinned vertices", line)
        vertices = np.empty((count, VERTEX_VALUES))
        influences = []
        for vertex in range(count):
            vertices[vertex] = self.scanner.floats(VERTEX_VALUES, f"vertex {vertex}")
            bones = self.scanner.integer(f"vertex {vertex}'s bone count", 0, MAX_INFLUENCES)
            influences.append([(self.scanner.number("a weight"), *self._bone_name()) for _ in range(bones)])
        mesh.vertices, mesh.influences = vertices, influences

    def _bone_name(self) -> tuple[str, int]:
        token = self.scanner.string("a bone name")
        return token.text, token.line

    def group(self, mesh: RawMesh) -> np.ndarray:
        """GROUP i TYPE_LIST COUNT c, c indices, END_OF_GROUP i → (c / 3, 3) triangles."""
        index = self.scanner.integer("the group index", 0)
        kind = self.scanner.word("the group type")
        if kind.text != "TYPE_LIST":
            raise self.scanner.error(f"group type {shown(kind.text)} is not supported (only TYPE_LIST, a "
                                     "triangle list)", kind.line)
        line = self.scanner.keyword("COUNT").line
        count = self.scanner.integer("the index count", 0)
        if count % 3:
            raise self.scanner.error(f"COUNT {count} is not a multiple of 3 (TYPE_LIST holds triangles)",
                                     line)
        start, start_line = self.scanner.position, self.scanner.line
        indices = self.scanner.floats(count, "triangle indices")
        vertices = len(mesh.vertices) if mesh.vertices is not None else 0
        bad = np.flatnonzero((indices < 0) | (indices >= vertices) | (indices != np.floor(indices)))
        if bad.size:
            raise ReadError(self.scanner.path, f"index {indices[bad[0]]:g} is outside 0..{vertices - 1} "
                                               f"(mesh {mesh.name!r} has {vertices} vertices)",
                            line=self.scanner.token_line(start, start_line, int(bad[0])))
        self.scanner.keyword("END_OF_GROUP")
        following = self.scanner.peek()
        if following is not None and following.kind == "word" and following.text.lstrip("+-").isdigit():
            closing = self.scanner.integer("the group index")
            if closing != index:
                self.warn(following.line, f"END_OF_GROUP {closing} closes GROUP {index}")
        return indices.astype(np.int32).reshape(-1, 3)

    def helper(self) -> None:
        line = self.scanner.peek_line()
        name = self.scanner.string("the helper name").text
        link, pivot = None, None
        while True:
            token = self.scanner.word("END_OF_HELPER")
            if token.text == "END_OF_HELPER":
                break
            if token.text == "TYPE":
                self.scanner.word("the helper type")
            elif token.text == "LINKINFO":
                link = self.linkinfo()
            elif token.text == "PIVOT":
                pivot = self.pivot_values(token.line)
            else:
                self.skip_unknown(token, {"TYPE", "LINKINFO", "PIVOT"})
        following = self.scanner.peek()
        if following is not None and following.kind == "string":
            closing = self.scanner.next("a name")
            if closing.text != name:
                self.warn(closing.line, f"END_OF_HELPER {shown(closing.text)} closes HELPER {name!r}")
        if pivot is None:
            raise self.scanner.error(f"helper {name!r} has no PIVOT", line)
        self.helpers.append((name, link, pivot, line))


class _Skeleton:
    """Bones gathered by name, in order of first appearance: names, bind matrices, index by name."""

    def __init__(self, reader: _Reader):
        self.reader = reader
        self.names: list[str] = []
        self.binds: list[np.ndarray] = []
        self.index: dict[str, int] = {}

    def add(self, name: str, pivot: np.ndarray, line: int) -> int:
        if name not in self.index:
            self.index[name] = len(self.names)
            self.names.append(name)
            self.binds.append(pivot)
        elif not np.allclose(self.binds[self.index[name]], pivot, atol=1e-4):
            self.reader.warn(line, f"bone {name!r} has a different PIVOT here than where it first "
                                   "appeared; the skeleton keeps the first, what is linked here follows "
                                   "the bone from this one")
        return self.index[name]


def _assemble(reader: _Reader, model_name: str, path: Path) -> Model:
    bones = _Skeleton(reader)
    for mesh in reader.meshes:
        if mesh.link is not None and mesh.link.kind == "skin":
            for name, pivot, line in mesh.link.bones:
                bones.add(name, pivot, line)
    meshes = [_build_mesh(reader, mesh, bones) for mesh in reader.meshes]
    helpers = [_build_helper(reader, bones, *helper) for helper in reader.helpers]
    count = len(bones.names)
    bind = np.array(bones.binds).reshape(count, 4, 4)
    parents = np.full(count, -1)
    heads, tails = derive_tails(bind, parents, meshes)
    skeleton = Skeleton(names=bones.names, parents=parents, bind_world=bind, heads=heads, tails=tails,
                        derived_tails=np.ones(count, bool))
    return Model(name=model_name or path.stem, skeleton=skeleton, meshes=meshes, helpers=helpers,
                 format="lgw", up_axis="Z", forward="-Y", warnings=reader.warnings)


def _build_mesh(reader: _Reader, raw: RawMesh, bones: _Skeleton) -> Mesh:
    count = len(raw.vertices)
    if raw.influences is not None:
        joints, weights = _skin_weights(reader, raw, bones)
    elif raw.link is not None and raw.link.kind == "normal":
        name, pivot, line = raw.link.bones[0]
        if name not in bones.index:
            reader.warn(line, f"mesh {raw.name!r} is attached to {name!r}, which no SKIN list names; "
                              "it was added as a bone with the link's PIVOT")
        joints = np.full((count, 1), bones.add(name, pivot, line))
        weights = np.ones((count, 1))
    else:
        joints, weights = np.zeros((count, 1)), np.zeros((count, 1))
    material = reader.materials.get(raw.material) if raw.material is not None else None
    color = raw.color or (material.color if material and material.color else None) or (0.8, 0.8, 0.8)
    triangles = np.concatenate(raw.triangles) if raw.triangles else None
    return Mesh(name=raw.name, positions=raw.vertices[:, :3], uvs=raw.vertices[:, 3:5],
                normals=raw.vertices[:, 5:8], joints=joints, weights=weights, triangles=triangles,
                material=Material(name=material.name if material else "",
                                  texture=material.texture if material else "",
                                  base_color=maths.srgb_to_linear(color)),
                skin=_own_binds(raw.link, bones))


def _own_binds(link: Link | None, bones: _Skeleton) -> MeshSkin | None:
    """The mesh's own inverse bind matrices for the bones its LINKINFO lists with another PIVOT than
    the skeleton's bind (its vertices were exported with the bone there); None if there are none."""
    own: dict[int, np.ndarray] = {}
    for name, pivot, _ in link.bones if link is not None else []:
        bone = bones.index[name]
        if bone not in own and not np.allclose(bones.binds[bone], pivot, atol=1e-4):
            own[bone] = maths.affine_inverse(pivot)
    if not own:
        return None
    return MeshSkin(joints=np.array(list(own)), inverse_bind=np.array(list(own.values())))


def _skin_weights(reader: _Reader, raw: RawMesh, bones: _Skeleton) -> tuple[np.ndarray, np.ndarray]:
    """(V, K) global bone indices and normalised weights from the per-vertex (weight, name) lists."""
    local_names = {name for name, _, _ in raw.link.bones}
    lanes = max((len(influence) for influence in raw.influences), default=1) or 1
    joints = np.zeros((len(raw.influences), lanes), np.int32)
    weights = np.zeros((len(raw.influences), lanes))
    for vertex, influence in enumerate(raw.influences):
        for lane, (weight, name, line) in enumerate(influence):
            if name not in local_names:
                raise ReadError(reader.scanner.path, f"vertex {vertex} of mesh {raw.name!r} names bone "
                                                     f"{name!r}, which its LINKINFO does not list", line=line)
            joints[vertex, lane], weights[vertex, lane] = bones.index[name], weight
    if (weights < 0).any() or (weights > 1).any():
        reader.warn(raw.line, f"mesh {raw.name!r}: weights outside 0..1 were clipped")
        weights = np.clip(weights, 0, 1)
    totals = weights.sum(axis=1)
    off = (totals > 0) & (np.abs(totals - 1) > WEIGHT_SUM_TOLERANCE)
    if off.any():
        reader.warn(raw.line, f"mesh {raw.name!r}: the weights of {int(off.sum())} vertices did not sum "
                              "to 1 and were normalised")
    weights = weights / np.where(totals > 0, totals, 1)[:, None]
    return joints, weights


def _build_helper(reader: _Reader, bones: _Skeleton, name: str, link: Link | None, pivot: np.ndarray,
                  line: int) -> Helper:
    if link is None or link.kind != "normal":
        return Helper(name=name, parent=-1, offset=pivot)
    parent_name, parent_pivot, parent_line = link.bones[0]
    if parent_name not in bones.index:
        reader.warn(parent_line, f"helper {name!r} follows {parent_name!r}, which is not a bone of the "
                                 "model; it was added as a bone with the link's PIVOT")
    parent = bones.add(parent_name, parent_pivot, parent_line)
    offset = maths.affine_inverse(parent_pivot) @ pivot
    return Helper(name=name, parent=parent, offset=offset)


def sniff(head: bytes, path: Path) -> str | None:
    tokens = head_tokens(head, 2)
    return "model" if tokens and tokens[0] == b"MODEL" else None


def load(files: list[SniffedFile], options: LoadOptions) -> Model:
    if len(files) > 1:
        raise ReadError(files[1].path, "an LGW model is one file; open one at a time")
    path = files[0].path
    with TextScanner(path) as scanner:
        reader = _Reader(scanner)
        name = reader.model()
        return _assemble(reader, name, path)


register(Format(
    name="lgw",
    description="LGW model (UFO: Aftermath text)",
    sniff=sniff,
    load=load,
    extensions=(".lgw", ".txt"),
))
