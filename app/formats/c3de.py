"""C3DE skinned mesh and bones files (seed 003; docs/formats/c3de.md).

Both files end in ``.c3d``; which is which, and which layout (2009 or 2010), is told by size
arithmetic alone. Roles: "mesh" (vertex records) and "bones" (matrices).

- A mesh with its bones file: the usual case. The engine keeps one animation per bones file, so a
  character comes with many (``SwimmerBones.c3d``, ``SwimmerIdle.c3d``…): every bones file adds its
  clips, named after the file, and all must share the first one's skeleton.
- Mesh files alone: a skeleton of ``max bone index + 1`` bones with identity bind frames, no clips,
  and a warning that the bones file is missing.
- A bones file alone: a skeleton-only model with its clips.

Pose matrices in the file are *skinning* matrices ``S_b(f)``; a clip stores ``W_b(f) = S_b(f) @ B_b``
so that ``pose.skin = W @ inv(B) = S`` exactly. 2010 bind frames are the offset matrices (transposed
to column form); 2009 files carry none, so ``B_b`` is the identity and heads/tails are derived from
the vertices weighted to each bone.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app import maths
from app.formats.animation_sets import add_clips
from app.formats.binreader import Block, finite_or_zero
from app.formats.registry import Format, LoadOptions, ReadError, SniffedFile, read_bytes, register
from app.maths import FLOAT32_SINGULAR
from app.bone_tails import derive_tails
from app.bone_tree import hierarchy_levels
from app.model import Clip, Mesh, Model, Skeleton
from app.orientation import apply_guess
from app.posing_steps import CheckFit

#: Frames per second when the user sets none: the engine played 33 ms per frame.
DEFAULT_FPS = 30.0
#: The facing the files give no sign of, by up axis: the Y-up characters face +Z, the Z-up ninja +X
#: (docs/formats/c3de.md: the engine's own models differ, e.g. the Y-up dog faces +X).
FORWARD = {"Y": "+Z", "Z": "+X"}
#: Rest frames of two bones files agree within this fraction of their largest entry.
SAME_BIND_TOLERANCE = 1e-4
#: Most bones inferred from vertex bone indices when no bones file is given.
MAX_INFERRED_BONES = 1024
#: A mesh does not fit a bones file when more than this share of its triangle edges change length
#: by more than FIT_STRETCH times at the file's first frame (the engine's own pairs: at most 1.5 %;
#: characterMale with ninjaBones or dogBones, both of the same bone count: 21 % and 8 %). Posing is
#: the load stage's (app/loading.py): the reader leaves it a CheckFit.
FIT_EDGE_SHARE, FIT_STRETCH = 0.05, 2.0

VERTEX = np.dtype([("position", "<f4", 3), ("normal", "<f4", 3), ("uv", "<f4", 2),
                   ("weight0", "<f4"), ("bone0", "<i4"), ("bone1", "<i4")])
MATRIX_BYTES = 64
HEAD_TAIL_BYTES = 24


# --- layout detection ---------------------------------------------------------------------------

@dataclass(frozen=True)
class MeshLayout:
    """header: bytes before the index list; vertices, indices: counts (indices None: implicit)."""

    name: str
    header: int
    vertices: int
    indices: int | None


@dataclass(frozen=True)
class BonesLayout:
    """frames F, bones B; clip_frames: frames per clip (2009 trailer), parents: P entries (2010)."""

    name: str
    frames: int
    bones: int
    clip_frames: tuple[int, ...] | None = None
    parent_count: int | None = None


def _ints(data: bytes | memoryview, count: int) -> list[int]:
    available = min(count, len(data) // 4)
    return [int(v) for v in np.frombuffer(data, "<i4", count=available)]


def mesh_layout(data: bytes | memoryview, size: int) -> MeshLayout | None:
    """The mesh layout whose size arithmetic fits a file of ``size`` bytes, else None."""
    first = _ints(data, 3)
    if len(first) >= 2 and first[0] > 0:
        nv, ni = first[0], first[1]
        if size == 8 + VERTEX.itemsize * nv:
            return MeshLayout("2009", 8, nv, None)
        if ni >= 0 and size == 8 + 4 * ni + VERTEX.itemsize * nv:
            return MeshLayout("2009 with index list", 8, nv, ni)
    if len(first) >= 3 and first[0] == 0 and first[1] >= 0:
        nv, ni = first[1], first[2]
        if size == 12 + VERTEX.itemsize * nv:
            return MeshLayout("2010", 12, nv, None)
        if ni >= 0 and size == 12 + 4 * ni + VERTEX.itemsize * nv:
            return MeshLayout("2010 with index list", 12, nv, ni)
    return None


def bones_layout(data: bytes | memoryview, size: int) -> BonesLayout | None:
    """The bones layout whose size arithmetic fits a file of ``size`` bytes, else None.

    ``data`` must hold the whole file when a 2009 trailer is to be recognised.
    """
    first = _ints(data, 2)
    if len(first) < 2 or first[0] <= 0 or first[1] <= 0:
        return None
    frames, bones = first
    poses_end = 8 + MATRIX_BYTES * frames * bones
    if size == poses_end:
        return BonesLayout("2009", frames, bones)
    clips = (size - poses_end - 4) // 4
    if size >= poses_end + 4 and (size - poses_end - 4) % 4 == 0 and clips <= frames and len(data) >= size:
        trailer = np.frombuffer(data, "<i4", count=1 + clips, offset=poses_end)
        if trailer[0] == clips and np.all(trailer[1:] >= 0):
            return BonesLayout("2009 with clip list", frames, bones, clip_frames=tuple(trailer[1:].tolist()))
    rest = size - (8 + (MATRIX_BYTES + HEAD_TAIL_BYTES) * bones + MATRIX_BYTES * frames * bones + 8)
    if rest >= 0 and rest % 4 == 0:
        return BonesLayout("2010", frames, bones, parent_count=rest // 4)
    return None


def _file_size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def sniff(head: bytes, path: Path) -> str | None:
    """'mesh' or 'bones' when the file's size fits a C3DE layout, else None."""
    size = _file_size(path)
    if size is None or size < 8:
        return None
    if mesh_layout(head, size):
        return "mesh"
    if bones_layout(head, size):
        return "bones"
    if size > len(head) and _trailer_count_fits(path, head, size):
        try:  # a 2009 clip trailer sits at the end: its layout check reads the whole file
            if bones_layout(path.read_bytes(), size):
                return "bones"
        except OSError:
            return None
    return None


def _trailer_count_fits(path: Path, head: bytes, size: int) -> bool:
    """Whether the int after a 2009 file's poses counts the ints that follow it (read alone, so a
    file that is no such file is never read whole while sniffing)."""
    first = _ints(head, 2)
    if len(first) < 2 or first[0] <= 0 or first[1] <= 0:
        return False
    poses_end = 8 + MATRIX_BYTES * first[0] * first[1]
    if size < poses_end + 4:
        return False
    try:
        with open(path, "rb") as handle:
            handle.seek(poses_end)
            count = _ints(handle.read(4), 1)
    except OSError:
        return False
    return count == [(size - poses_end - 4) // 4]


def _expected_sizes(data: bytes | memoryview, size: int) -> str:
    first = _ints(data, 3) + [0, 0, 0]
    a, b, c = first[:3]
    return (f"the file has {size} bytes; a mesh needs 8 + 44·{a} = {8 + 44 * a} (2009) or "
            f"12 + 44·{b} = {12 + 44 * b} (2010), optionally plus 4 bytes per index; a bones file needs "
            f"8 + 64·{a}·{b} = {8 + 64 * a * b} (2009, plus an optional clip list) or at least "
            f"{16 + 88 * b + 64 * a * b} (2010)")


# --- mesh files ---------------------------------------------------------------------------------

@dataclass
class MeshFile:
    mesh: Mesh
    max_bone: int
    layout: str


def read_mesh(path: Path, data: bytes, warnings: list[str]) -> MeshFile:
    """One mesh file → a Mesh (bone indices unchecked: the bones file decides how many there are)."""
    layout = mesh_layout(data, len(data))
    if layout is None:
        raise ReadError(path, "no C3DE mesh layout fits: " + _expected_sizes(data, len(data)), offset=0)
    block = Block(data, path)
    vertex_start = layout.header + 4 * (layout.indices or 0)
    records = block.array(vertex_start, VERTEX, layout.vertices, "vertex records")
    count = layout.vertices
    name = path.stem
    positions = finite_or_zero(records["position"], f"{name}: positions", warnings)
    normals = finite_or_zero(records["normal"], f"{name}: normals", warnings)
    uvs = finite_or_zero(records["uv"], f"{name}: uvs", warnings)
    uvs[:, 1] = 1.0 - uvs[:, 1]  # stored flipped for Direct3D
    joints, weights = _influences(records, name, warnings)
    if layout.indices is None:
        usable = count - count % 3
        if usable != count:
            warnings.append(f"{name}: {count} vertices is not a multiple of 3; the last "
                            f"{count - usable} form no triangle")
        triangles = np.arange(usable, dtype=np.int32).reshape(-1, 3)
    else:
        indices = block.array(layout.header, "<i4", layout.indices, "index list")
        bad = np.flatnonzero((indices < 0) | (indices >= count))
        if bad.size:
            raise block.error(layout.header + 4 * int(bad[0]),
                              f"index {int(indices[bad[0]])} outside the {count} vertices")
        usable = len(indices) - len(indices) % 3
        if usable != len(indices):
            warnings.append(f"{name}: {len(indices)} indices is not a multiple of 3; the last "
                            f"{len(indices) - usable} are ignored")
        triangles = indices[:usable].reshape(-1, 3)
    max_bone = int(joints.max(initial=-1, where=weights > 0))
    try:
        mesh = Mesh(name=name, positions=positions, joints=joints, weights=weights, normals=normals,
                    uvs=uvs, triangles=triangles)
    except ValueError as error:  # the mesh's own checks (positions beyond ±1e18)
        raise ReadError(path, str(error), offset=layout.header) from None
    return MeshFile(mesh, max_bone, layout.name)


def _influences(records: np.ndarray, name: str, warnings: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(V, 2) joints and weights: ``w0`` on bone0, ``1 − w0`` on bone1; one bone when bone1 < 0;
    rigid (all-zero weights) when bone0 < 0."""
    bone0 = records["bone0"].astype(np.int32)
    bone1 = records["bone1"].astype(np.int32)
    weight0 = finite_or_zero(records["weight0"], f"{name}: weights", warnings)
    rigid = bone0 < 0
    single = ~rigid & (bone1 < 0)
    pair = ~rigid & ~single
    outside = pair & ((weight0 < 0) | (weight0 > 1))
    if outside.any():
        warnings.append(f"{name}: {int(outside.sum())} weight(s) outside 0..1 clamped")
    weight0 = np.clip(weight0, 0.0, 1.0)
    weights = np.zeros((len(records), 2), np.float32)
    weights[pair, 0] = weight0[pair]
    weights[pair, 1] = 1.0 - weight0[pair]
    weights[single, 0] = 1.0
    joints = np.stack([np.where(rigid, 0, bone0), np.where(pair, bone1, 0)], axis=1)
    return joints, weights


# --- bones files --------------------------------------------------------------------------------

@dataclass
class BonesFile:
    """bind: (B, 4, 4) or None (2009); heads, tails: (B, 3) or None; skinning: (F, B, 4, 4);
    parents: (B,) or None; clip_frames: frames per clip."""

    layout: str
    bind: np.ndarray | None
    heads: np.ndarray | None
    tails: np.ndarray | None
    skinning: np.ndarray
    parents: np.ndarray | None
    clip_frames: tuple[int, ...]


def _matrices(block: Block, offset: int, count: int, what: str, warnings: list[str]) -> np.ndarray:
    """(count, 4, 4) column-form matrices from Blender row-vector matrices written row by row.

    Matrices with NaN/Inf entries become the identity (with a warning).
    """
    raw = block.array(offset, "<f4", 16 * count, what).reshape(count, 4, 4)
    matrices = raw.transpose(0, 2, 1).astype(np.float64)
    bad = ~np.isfinite(matrices).all(axis=(1, 2))
    if bad.any():
        warnings.append(f"{block.path.name}: {int(bad.sum())} {what} with NaN/Inf replaced by the identity")
        matrices[bad] = np.eye(4)
    return matrices


def read_bones(path: Path, data: bytes, warnings: list[str]) -> BonesFile:
    layout = bones_layout(data, len(data))
    if layout is None:
        raise ReadError(path, "no C3DE bones layout fits: " + _expected_sizes(data, len(data)), offset=0)
    block = Block(data, path)
    frames, bones = layout.frames, layout.bones
    clip_frames = (frames,) if frames else ()
    if layout.parent_count is None:
        skinning = _matrices(block, 8, frames * bones, "pose matrices", warnings).reshape(frames, bones, 4, 4)
        if layout.clip_frames is not None:
            if sum(layout.clip_frames) == frames and all(layout.clip_frames):
                clip_frames = layout.clip_frames
            else:
                warnings.append(f"{path.name}: the clip list {list(layout.clip_frames)} does not add up to "
                                f"{frames} frames; read as one clip")
        return BonesFile(layout.name, None, None, None, skinning, None, clip_frames)
    bind = _matrices(block, 8, bones, "offset matrices", warnings)
    singular = ~maths.invertible(bind, FLOAT32_SINGULAR)
    if singular.any():
        warnings.append(f"{path.name}: {int(singular.sum())} singular offset matrices "
                        "replaced by the identity")
        bind[singular] = np.eye(4)
    head_tails = finite_or_zero(block.array(8 + MATRIX_BYTES * bones, "<f4", 6 * bones, "heads and tails"),
                                f"{path.name}: heads/tails", warnings).reshape(bones, 6)
    poses_at = 8 + (MATRIX_BYTES + HEAD_TAIL_BYTES) * bones
    skinning = _matrices(block, poses_at, frames * bones, "pose matrices", warnings)
    skinning = skinning.reshape(frames, bones, 4, 4)
    parents = None
    if layout.parent_count == bones:  # checked before reading: the count is whatever bytes remain
        parents_at = poses_at + MATRIX_BYTES * frames * bones + 8
        parents = block.array(parents_at, "<i4", bones, "parent list").astype(np.int32)
    else:
        warnings.append(f"{path.name}: the parent list has {layout.parent_count} entries for {bones} "
                        "bones (armature order cannot be mapped to vertex-group order); bones left "
                        "unparented")
    return BonesFile(layout.name, bind, head_tails[:, :3], head_tails[:, 3:], skinning, parents, clip_frames)


def _checked_parents(parents: np.ndarray | None, count: int, name: str, warnings: list[str]) -> np.ndarray:
    """Usable parents, or all roots (with a warning) when the list is out of range or cyclic."""
    if parents is None:
        return np.full(count, -1, np.int32)
    try:
        hierarchy_levels(parents)
    except ValueError as error:
        warnings.append(f"{name}: parent list unusable ({error}); bones left unparented")
        return np.full(count, -1, np.int32)
    warnings.append(f"{name}: the hierarchy comes from the armature's parent list, whose order may "
                    "differ from the vertex-group order: unconfirmed")
    return parents


# --- model --------------------------------------------------------------------------------------

def _heads_from_vertices(meshes: list[Mesh], count: int) -> np.ndarray:
    """(B, 3) the weighted centroid of the vertices each bone moves (origin for bones with none)."""
    sums = np.zeros((count, 3))
    totals = np.zeros(count)
    for mesh in meshes:
        weights = mesh.weights.astype(np.float64).ravel()
        joints = mesh.joints.ravel()
        points = np.repeat(mesh.positions.astype(np.float64), mesh.joints.shape[1], axis=0)
        used = weights > 0
        totals += np.bincount(joints[used], weights[used], minlength=count)[:count]
        for axis in range(3):
            sums[:, axis] += np.bincount(joints[used], weights[used] * points[used, axis],
                                         minlength=count)[:count]
    return np.where(totals[:, None] > 0, sums / np.where(totals > 0, totals, 1)[:, None], 0.0)


def _build(meshes: list[MeshFile], sets: list[tuple[Path, BonesFile]], names: list[Path],
           options: LoadOptions, warnings: list[str]) -> Model:
    """The skeleton from the first bones file, a clip per clip of every bones file."""
    bones = sets[0][1] if sets else None
    max_bone = max((m.max_bone for m in meshes), default=-1)
    if bones is None:
        count = max_bone + 1
        if count > MAX_INFERRED_BONES:
            raise ReadError(names[0], f"a vertex uses bone {max_bone}; without a bones file at most "
                                      f"{MAX_INFERRED_BONES} bones are inferred", offset=0)
        warnings.append("no bones file: the skeleton has identity bind frames inferred from the largest "
                        f"bone index ({count} bones) and there are no clips")
    else:
        count = bones.skinning.shape[1] if bones.bind is None else len(bones.bind)
        if max_bone >= count:
            raise ReadError(names[0], f"a vertex uses bone {max_bone} but the bones file has {count} bones",
                            offset=0)
    mesh_list = [m.mesh for m in meshes]
    parents = _checked_parents(None if bones is None else bones.parents, count, names[-1].name, warnings)
    if bones is not None and bones.bind is not None:
        bind = bones.bind
        heads, tails = bones.heads, bones.tails
        derived = np.zeros(count, bool)
        tolerance = 1e-3 * max(1.0, np.abs(bind[:, :3, 3]).max())
        if np.any(np.linalg.norm(heads - bind[:, :3, 3], axis=1) > tolerance):
            warnings.append("heads/tails were stored at a posed frame (they differ from the offset matrices' "
                            "translations); shown as stored")
    else:
        bind = np.broadcast_to(np.eye(4), (count, 4, 4)).copy()
        heads, tails = derive_tails(bind, parents, mesh_list, heads=_heads_from_vertices(mesh_list, count))
        derived = np.ones(count, bool)
        if count:
            warnings.append("no rest frames in the file: bind frames are the identity, heads are the "
                            "centroids of each bone's weighted vertices and tails are derived")
    clips: list[Clip] = []
    fps = options.fps if options.fps and options.fps > 0 else DEFAULT_FPS
    for path, animation in sets:
        add_clips(clips, _clips(path, animation, bind, fps), warnings)
    skeleton = Skeleton(names=[f"bone {b}" for b in range(count)], parents=parents, bind_world=bind,
                        heads=heads, tails=tails, derived_tails=derived)
    model = Model(name=names[0].stem, skeleton=skeleton, meshes=mesh_list, clips=clips, format="c3de",
                  up_axis="Z", warnings=warnings)
    apply_guess(model)  # the files do not say which axis is up: both kinds exist
    model.forward = FORWARD[options.up or model.up_axis]
    return model


def _clips(path: Path, bones: BonesFile, bind: np.ndarray, fps: float) -> list[Clip]:
    """The clips of one bones file, named after it (``Stem 1``, ``Stem 2``… when it holds several)."""
    clips = []
    world = bones.skinning @ bind
    start = 0
    for number, frames in enumerate(bones.clip_frames):
        name = path.stem if len(bones.clip_frames) == 1 else f"{path.stem} {number + 1}"
        clips.append(Clip(name=name, kind="matrices", times=np.arange(frames) / fps,
                          world=world[start:start + frames], source=path.name))
        start += frames
    return clips


def _check_same_skeleton(path: Path, bones: BonesFile, first_path: Path, first: BonesFile) -> None:
    """A bones file of a set must have the first one's bones, hierarchy and rest frames; the error
    names the first bone that differs."""
    count, first_count = bones.skinning.shape[1], first.skinning.shape[1]
    if count != first_count:
        raise ReadError(path, f"its skeleton differs from {first_path.name}: "
                              f"bone {min(count, first_count)} is in "
                              f"only one of them ({count} bones here, {first_count} there)", offset=4)
    if bones.parents is not None and first.parents is not None:
        differ = np.flatnonzero(bones.parents != first.parents)
        if differ.size:
            bone = int(differ[0])
            raise ReadError(path, f"its skeleton differs from {first_path.name}: bone {bone} has parent "
                                  f"{int(bones.parents[bone])} here, {int(first.parents[bone])} there")
    if bones.bind is not None and first.bind is not None:
        scale = max(1.0, float(np.abs(first.bind).max()))
        apart = np.abs(bones.bind - first.bind).max(axis=(1, 2))
        differ = np.flatnonzero(apart > SAME_BIND_TOLERANCE * scale)
        if differ.size:
            bone = int(differ[0])
            raise ReadError(path, f"its skeleton differs from {first_path.name}: bone {bone}'s rest frame is "
                                  "another", offset=8 + MATRIX_BYTES * bone)


def load(files: list[SniffedFile], options: LoadOptions) -> Model:
    """Any number of mesh and bones files → one Model: the first bones file gives the skeleton, every
    bones file its clips (one per file, named after it); their skeletons must agree."""
    warnings: list[str] = []
    meshes: list[MeshFile] = []
    sets: list[tuple[Path, BonesFile]] = []
    with np.errstate(all="ignore"):
        for sniffed in files:
            path = Path(sniffed.path)
            data = read_bytes(path)
            if sniffed.role not in ("mesh", "bones") and not (mesh_layout(data, len(data))
                                                            or bones_layout(data, len(data))):
                raise ReadError(path, "no C3DE mesh or bones layout fits: "
                                + _expected_sizes(data, len(data)), offset=0)
            if sniffed.role == "bones" or (sniffed.role != "mesh" and mesh_layout(data, len(data)) is None):
                bones = read_bones(path, data, warnings)
                if sets:
                    _check_same_skeleton(path, bones, *sets[0])
                sets.append((path, bones))
            else:
                meshes.append(read_mesh(path, data, warnings))
        names = [Path(f.path) for f in files]
        if not meshes and not sets:
            raise ReadError(names[0], "no C3DE mesh or bones file given")
        try:
            model = _build(meshes, sets, names, options, warnings)
        except ValueError as error:
            raise ReadError(names[0], str(error)) from None
        mesh_names = [Path(f.path).name for f in files if Path(f.path).stem in {m.name for m in model.meshes}]
        if sets and model.meshes and model.clips:
            model.pending.append(CheckFit(mesh_files=mesh_names, bones_file=sets[0][0].name,
                                          stretch=FIT_STRETCH, edge_share=FIT_EDGE_SHARE))
        return model


register(Format(name="c3de", description="C3DE skinned mesh / bones (.c3d)", sniff=sniff, load=load,
                extensions=(".c3d",), frames_without_times=True))
