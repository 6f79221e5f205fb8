"""BonesPro export files (3ds Max plug-in): a structure file and any number of animation files.

docs/formats/bonespro.md has the layout. Matrices in the files are 3ds Max row-vector ``4 × 3``
blocks; they are transposed to column form here, once. The structure file's vertex section is
parsed with one numpy call and walked vectorised (textscan.record_starts).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from app.formats import obj_faces
from app.formats.bonespro.animation import Animation, build_clips, read_animation, row_to_column
from app.formats.registry import Format, LoadOptions, ReadError, SniffedFile, register
from app.formats.textscan import (RecordLayout, TextScanner, affine_invertible, first_unrooted, head_lines,
                                  head_tokens, is_integer, is_number, record_starts)
from app.bone_tails import derive_tails
from app.bone_tree import hierarchy_levels
from app.model import Mesh, Model, Skeleton

#: x y z Nbv, then Nbv × (b W).
VERTEX_LAYOUT = RecordLayout(head=4, count_at=3, item=2)
#: Values per bone after its name and parent: box (3), bone matrix (12), node matrix (12).
BONE_VALUES = 27
#: A vertex whose weights sum this far from 1 is normalised with a warning.
WEIGHT_SUM_TOLERANCE = 1e-3


@dataclass
class Structure:
    """A parsed structure file. names (B,); parents (B,) −1 for none; bind (B, 4, 4) column form;
    extras (B,) dicts; mesh: the vertices (positions (V, 3), joints and weights (V, K))."""

    names: list[str]
    parents: np.ndarray
    bind: np.ndarray
    extras: list[dict]
    mesh: Mesh
    warnings: list[str] = field(default_factory=list)


def sniff(head: bytes, path: Path) -> str | None:
    """'structure' (Nb Nv <name>…) or 'animation' (Nb Nv Nf then a mode word), else None."""
    tokens = head_tokens(head, 8)
    if len(tokens) < 3 or not (is_integer(tokens[0]) and is_integer(tokens[1])):
        return None
    lines = head_lines(head, 1)
    if tokens[2].startswith(b"<") or (lines and lines[0] == b"0" and len(tokens) >= 6
                                      and all(is_number(t) for t in tokens[2:])):
        return "structure"
    mode_words = tokens[3].strip(b'"').lower().split() if len(tokens) >= 4 else []
    if is_integer(tokens[2]) and mode_words and mode_words[0] in (b"bones", b"mesh"):
        return "animation"
    return None


def read_structure(path: Path, faces: tuple[Path, int, np.ndarray] | None = None) -> Structure:
    """Parse one structure file; every problem is a ReadError with its line.

    ``faces``: (OBJ path, its vertex count, its (T, 3) triangles) to attach; a vertex count that
    differs from Nv is a ReadError on the OBJ.
    """
    with TextScanner(path) as scanner:
        bone_count = scanner.integer("the bone count Nb", 0)
        count_line = scanner.peek_line()
        vertex_count = scanner.integer("the vertex count Nv", 0)
        if faces is not None and faces[1] != vertex_count:
            raise ReadError(faces[0], f"the OBJ has {faces[1]} vertices but the BonesPro structure has "
                                      f"{vertex_count}: its faces cannot be attached")
        scanner.require(bone_count * (BONE_VALUES + 2) + vertex_count * VERTEX_LAYOUT.head,
                        f"{bone_count} bones and {vertex_count} vertices", count_line)
        names, parents, parent_lines, bind, extras = _read_bones(scanner, bone_count)
        mesh, warnings = _read_mesh(scanner, vertex_count, bone_count, faces[2] if faces else None)
    return Structure(names, parents, bind, extras, mesh, warnings)


def _read_bones(scanner: TextScanner, count: int):
    """Per bone: <name>, parent (index or *), box, bone matrix, node matrix."""
    names, parents, parent_lines, extras = [], np.full(count, -1), [], []
    bind = np.zeros((count, 4, 4))
    for bone in range(count):
        names.append(scanner.name(f"bone {bone}'s <name>").text)
        parent_token = scanner.peek()
        parent_lines.append(scanner.peek_line())
        if parent_token is not None and parent_token.text == "*":
            scanner.next("a parent")
        else:
            parents[bone] = scanner.integer(f"bone {bone}'s parent (an index or *)", 0, count - 1)
        matrix_line = scanner.peek_line()
        values = scanner.floats(BONE_VALUES, f"bone {bone}'s box and matrices")
        bind[bone] = row_to_column(values[3:15])
        _check_invertible(scanner, bind[bone], bone, matrix_line)
        extras.append({"box": values[:3].tolist(), "node_matrix": row_to_column(values[15:27]).tolist()})
    try:
        hierarchy_levels(parents)
    except ValueError:
        bone = first_unrooted(parents)
        raise scanner.error(f"bone {bone} is on a parent cycle (parent {parents[bone]})",
                            parent_lines[bone]) from None
    return names, parents, parent_lines, bind, extras


def _check_invertible(scanner: TextScanner, matrix: np.ndarray, bone: int, line: int) -> None:
    if not affine_invertible(matrix):
        raise scanner.error(f"bone {bone}'s bone matrix is singular (its 3×3 part has no inverse)", line)


def _read_mesh(scanner: TextScanner, vertex_count: int, bone_count: int,
               triangles: np.ndarray | None) -> tuple[Mesh, list[str]]:
    """The vertex section → a Mesh (positions (V, 3), joints and weights (V, K), K = the most
    influences of any vertex). The Mesh is built here, from views into the parsed numbers where
    possible, so the (n,) float32 parse buffer is freed as soon as this returns."""
    name = scanner.path.stem
    values, start, start_line = scanner.rest_floats("the vertex section")

    def fail(index: int, message: str):
        raise ReadError(scanner.path, message, line=scanner.token_line(start, start_line, index))

    warnings = []
    if vertex_count == 0:
        return Mesh(name, np.zeros((0, 3)), np.zeros((0, 1)), np.zeros((0, 1)), triangles=triangles), warnings
    starts, counts = record_starts(values, vertex_count, VERTEX_LAYOUT, bone_count, fail)
    used = int(starts[-1] + VERTEX_LAYOUT.head + VERTEX_LAYOUT.item * counts[-1])
    if used < len(values):
        warnings.append(f"{scanner.path.name}: line {scanner.token_line(start, start_line, used)}: "
                        f"{len(values) - used} values after the last vertex were ignored")
    lanes = max(int(counts.max()), 1)
    stride = VERTEX_LAYOUT.head + VERTEX_LAYOUT.item * lanes
    if np.all(counts == lanes) and used == vertex_count * stride:
        records = values[:used].reshape(vertex_count, stride)
        positions, bones, weights = records[:, :3], records[:, 4::2], records[:, 5::2]
        mask = None
    else:
        positions, bones, weights, mask = _gather_vertices(values, starts, counts, lanes)
    _check_bone_indices(bones, mask, bone_count, starts, fail)
    weights, weight_warnings = _normalised_weights(np.array(weights, np.float32), counts, scanner.path.name)
    joints = np.where(weights > 0, bones, 0)
    mesh = Mesh(name, positions=positions, joints=joints, weights=weights, triangles=triangles)
    return mesh, warnings + weight_warnings


def _gather_vertices(values: np.ndarray, starts: np.ndarray, counts: np.ndarray, lanes: int):
    """Records of differing counts → positions (V, 3), bones and weights (V, K) (0 in unused
    lanes) and the (V, K) mask of used lanes. Offsets are int32 when the data allows (memory)."""
    index_type = np.int32 if len(values) < np.iinfo(np.int32).max else np.int64
    starts = starts.astype(index_type)
    positions = values[starts[:, None] + np.arange(3, dtype=index_type)]
    mask = np.arange(lanes) < counts[:, None]
    offsets = starts[:, None] + (VERTEX_LAYOUT.head + 2 * np.arange(lanes, dtype=index_type))
    np.minimum(offsets, len(values) - 2, out=offsets)
    bones = values[offsets]
    bones[~mask] = 0
    offsets += 1
    weights = values[offsets]
    weights[~mask] = 0
    return positions, bones, weights, mask


def _check_bone_indices(bones: np.ndarray, mask: np.ndarray | None, bone_count: int,
                        starts: np.ndarray, fail) -> None:
    """Every used (V, K) bone index must be a whole number in 0..Nb−1."""
    bad = (bones < 0) | (bones >= bone_count) | (bones != np.floor(bones))
    if mask is not None:
        bad &= mask
    if bad.any():
        vertex, lane = np.unravel_index(int(np.argmax(bad)), bad.shape)
        fail(int(starts[vertex]) + VERTEX_LAYOUT.head + 2 * int(lane),
             f"vertex {vertex}: bone index {bones[vertex, lane]:g} is outside 0..{bone_count - 1}")


def _normalised_weights(weights: np.ndarray, counts: np.ndarray, file_name: str):
    """(V, K) float32 weights, normalised in place to sum 1 (0 for rigid vertices); the warnings."""
    warnings = []
    if (weights < 0).any():
        warnings.append(f"{file_name}: {int((weights < 0).any(axis=1).sum())} vertices have negative "
                        "weights; those were set to 0")
        np.maximum(weights, 0, out=weights)
    totals = weights.sum(axis=1, dtype=np.float64)
    lost = (totals == 0) & (counts > 0)
    if lost.any():
        warnings.append(f"{file_name}: {int(lost.sum())} vertices list bones with zero total weight; "
                        "they stay at their bind positions")
    off = (totals > 0) & (np.abs(totals - 1) > WEIGHT_SUM_TOLERANCE)
    if off.any():
        warnings.append(f"{file_name}: the weights of {int(off.sum())} vertices did not sum to 1 "
                        "and were normalised")
    if (totals != 1).any():
        weights /= np.where(totals > 0, totals, 1).astype(np.float32)[:, None]
    return weights, warnings


def build_skeleton(structure: Structure, meshes: list[Mesh]) -> Skeleton:
    """Bind frames from the bone matrices; heads at their translations, tails derived."""
    heads, tails = derive_tails(structure.bind, structure.parents, meshes)
    return Skeleton(names=structure.names, parents=structure.parents, bind_world=structure.bind,
                    heads=heads, tails=tails, derived_tails=np.ones(len(structure.names), bool),
                    extras=structure.extras)


def load(files: list[SniffedFile], options: LoadOptions) -> Model:
    """One structure file, any animation files (one clip each), and optionally an OBJ with faces."""
    structures = [f for f in files if f.format == "bonespro" and f.role == "structure"]
    animations = [f for f in files if f.format == "bonespro" and f.role == "animation"]
    faces = [f for f in files if f.format == obj_faces.FORMAT_NAME]
    if not structures:
        raise ReadError(files[0].path, "a BonesPro animation file needs its structure file (the export "
                                       "with the bone names and vertices): open both together")
    if len(structures) > 1:
        raise ReadError(structures[1].path, f"only one BonesPro structure file can be opened at a time "
                                            f"(also given: {structures[0].path.name})")
    if len(faces) > 1:
        raise ReadError(faces[1].path, "only one OBJ file with faces can be attached")
    path = structures[0].path
    structure = read_structure(path, (faces[0].path, *obj_faces.read_faces(faces[0].path)) if faces else None)
    mesh = structure.mesh
    skeleton = build_skeleton(structure, [mesh])
    parsed: list[Animation] = [read_animation(f.path, len(skeleton), mesh.vertex_count) for f in animations]
    clips, clip_warnings = build_clips(parsed, skeleton, mesh, options.fps)
    return Model(name=path.stem, skeleton=skeleton, meshes=[mesh], clips=clips, format="bonespro",
                 up_axis="Z", forward="-Y", warnings=structure.warnings + clip_warnings)


register(Format(
    name="bonespro",
    description="BonesPro export (structure / animation .txt)",
    sniff=sniff,
    load=load,
    accepts=(obj_faces.FORMAT_NAME,),
    extensions=(".txt",),
    frames_without_times=True,
))

__all__ = ["Structure", "build_skeleton", "load", "read_structure", "row_to_column", "sniff"]
