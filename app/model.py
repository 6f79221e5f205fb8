"""The in-memory model every reader produces and everything downstream consumes.

Conventions (docs/formats/README.md): column vectors, quaternions ``(x, y, z, w)``, the file's own
units and axes, vertices in file order. Arrays are checked in ``__post_init__`` so that a reader
bug fails at load time with both shapes quoted, and frozen (read-only) once checked.

A model does not change after load. A reader builds it (appending to its lists as it reads);
``loading.finish`` does the posing steps the reader left and then ``Model.freeze``s it: its lists
become tuples and setting a field raises. Whatever changes a loaded model (attached or baked clips, a
kept mix, clips carried through a bone map) makes a new one with ``dataclasses.replace``, so values
derived from a model, its skeleton or a clip are cached on them for good (``app/derived.py``). The user's
choices for the model on screen are the one exception, set in place by ``ViewerState`` alone: the up
axis (``CHOSEN_FIELDS``) and each mesh's ``visible`` and ``material`` (assigned images).

Why one module of over 600 lines: these are the data classes every layer reads (skeleton, material,
mesh, track, clip, helper, model), each with the checks that make its arrays trustworthy; kept
together, the whole contract between readers and the rest is read in one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Literal

import numpy as np

from app import maths
from app.bone_tree import BoneTree, hierarchy_levels, world_from_local
from app.morph_targets import MorphTargets, WeightChannel

if TYPE_CHECKING:
    from app.posing_steps import PendingStep

#: The Model fields a reader fills as lists, tuples once the model is loaded (``Model.freeze``).
SEQUENCE_FIELDS = ("meshes", "clips", "helpers", "files", "warnings", "supermodels", "pending")
#: The fields of a loaded Model that may still be set: the up axis the user chose (View › Up Axis).
CHOSEN_FIELDS = ("up_axis", "up_source")

#: Largest coordinate or matrix entry a model may hold: no model is that large, and products of
#: three such numbers (determinants, skinning) stay finite in float64 and float32 storage.
MAX_MAGNITUDE = 1e18


def _frozen(array, dtype, shape: tuple, what: str) -> np.ndarray:
    """``array`` as a read-only contiguous array of ``dtype``, its shape checked against ``shape``.

    ``shape`` holds ints for fixed sizes and ``None`` for free ones.
    """
    result = np.ascontiguousarray(array, dtype=dtype)
    if result.ndim != len(shape) or any(
        expected is not None and actual != expected for actual, expected in zip(result.shape, shape)
    ):
        wanted = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
        raise ValueError(f"{what}: expected shape {wanted}, got {result.shape}")
    if result is array:
        result = result.copy()
    result.flags.writeable = False
    return result


def _check_bounded(array: np.ndarray, what: str) -> None:
    """A ValueError unless every entry of ``array`` is finite and within ``MAX_MAGNITUDE``."""
    if not np.all(np.abs(array) <= MAX_MAGNITUDE):
        raise ValueError(f"{what}: a value is not finite or beyond ±{MAX_MAGNITUDE:g}")


def unusable_frames(matrices: np.ndarray) -> np.ndarray:
    """Indices of the (N, 4, 4) affine ``matrices`` that cannot serve as a bone frame: an entry not
    finite or beyond ``MAX_MAGNITUDE``, or a 3×3 part ``maths.affine_inverse`` refuses."""
    matrices = np.asarray(matrices, dtype=np.float64).reshape(-1, 4, 4)
    finite = np.all(np.abs(matrices) <= MAX_MAGNITUDE, axis=(1, 2))
    invertible = np.zeros(len(matrices), bool)
    invertible[finite] = maths.invertible(matrices[finite])
    return np.flatnonzero(~invertible)


def usable_frames(matrices: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """(N, 4, 4) bone frames a Skeleton accepts, and the indices of those replaced: a frame whose 3×3
    part is singular (a zero scale) but whose entries are bounded keeps its position with an unscaled,
    unrotated frame. Frames not finite or beyond ``MAX_MAGNITUDE`` stay, for the Skeleton to refuse."""
    bad = [index for index in unusable_frames(matrices) if np.all(np.abs(matrices[index]) <= MAX_MAGNITUDE)]
    if not bad:
        return matrices, bad
    matrices = matrices.copy()
    matrices[bad, :3, :3] = np.eye(3)
    return matrices, bad


@dataclass(eq=False)
class Skeleton:
    """Bones with their bind frames and their rest transforms.

    names: (B,) str; parents: (B,) int, −1 for roots; bind_world: (B, 4, 4) bind matrices ``B_b``,
    the frames the skin was made against (a mesh with its own ``Mesh.skin`` overrides them for its
    vertices); heads, tails: (B, 3) joint and bone-end positions in bind space; derived_tails: (B,)
    bool, True where the tail was derived rather than read; extras: per-bone format data for the
    inspector (a dict per bone, may be empty); rest_local: (B, 4, 4) what each bone holds relative
    to its parent when no clip moves it (keyed clips' absent channels fall back to it). Left out,
    the rest pose is the bind pose (``bind_local``), as in every legacy format.
    """

    names: list[str]
    parents: np.ndarray
    bind_world: np.ndarray
    heads: np.ndarray
    tails: np.ndarray
    derived_tails: np.ndarray
    extras: list[dict] = field(default_factory=list)
    rest_local: np.ndarray | None = None

    def __post_init__(self):
        count = len(self.names)
        self.names = [str(name) for name in self.names]
        self.parents = _frozen(self.parents, np.int32, (count,), "skeleton parents")
        self.bind_world = _frozen(self.bind_world, np.float64, (count, 4, 4), "skeleton bind_world")
        self.heads = _frozen(self.heads, np.float64, (count, 3), "skeleton heads")
        self.tails = _frozen(self.tails, np.float64, (count, 3), "skeleton tails")
        self.derived_tails = _frozen(self.derived_tails, bool, (count,), "skeleton derived_tails")
        if not self.extras:
            self.extras = [{} for _ in range(count)]
        if len(self.extras) != count:
            raise ValueError(f"skeleton extras: expected {count} entries, got {len(self.extras)}")
        self.levels  # validates the hierarchy now rather than at first use
        bad = unusable_frames(self.bind_world)
        if bad.size:
            raise ValueError(f"bone {self.names[bad[0]]!r}: its bind matrix is singular, not finite or "
                             f"beyond ±{MAX_MAGNITUDE:g} ({bad.size} bone(s) in all)")
        self.rest_is_bind = self.rest_local is None
        self.rest_local = self.bind_local if self.rest_is_bind else \
            _frozen(self.rest_local, np.float64, (count, 4, 4), "skeleton rest_local")

    def __len__(self) -> int:
        return len(self.names)

    @cached_property
    def levels(self) -> list[np.ndarray]:
        return hierarchy_levels(self.parents)

    @cached_property
    def tree(self) -> BoneTree:
        """The hierarchy's ancestry (``bone_tree.BoneTree``): who is above whom, subtrees."""
        return BoneTree(self.parents)

    def ancestors(self, bone: int) -> list[int]:
        """The bone's ancestors, nearest first."""
        return self.tree.ancestors(bone)

    def subtree_mask(self, roots) -> np.ndarray:
        """(B,) bool: the bones in the subtrees of ``roots`` (bone indices), the roots included."""
        return self.tree.subtree_mask(roots)

    @cached_property
    def bind_inverse(self) -> np.ndarray:
        """(B, 4, 4) ``inv(B_b)``."""
        inverse = maths.affine_inverse(self.bind_world) if len(self) else np.zeros((0, 4, 4))
        inverse.flags.writeable = False
        return inverse

    @cached_property
    def bind_local(self) -> np.ndarray:
        """(B, 4, 4) each bone's bind frame relative to its parent's (roots: relative to the model)."""
        local = self.bind_world.copy()
        children = np.flatnonzero(self.parents >= 0)
        local[children] = self.bind_inverse[self.parents[children]] @ self.bind_world[children]
        local.flags.writeable = False
        return local

    @cached_property
    def rest_world(self) -> np.ndarray:
        """(B, 4, 4) each bone's world matrix at rest: ``bind_world`` itself when rest is bind."""
        if self.rest_is_bind:
            return self.bind_world
        world = world_from_local(self.rest_local, self.parents, self.levels)
        world.flags.writeable = False
        return world

    def index(self, name: str) -> int:
        """The index of the bone called ``name`` (exact match, then case-insensitive)."""
        if name in self.names:
            return self.names.index(name)
        lowered = [n.lower() for n in self.names]
        if name.lower() in lowered:
            return lowered.index(name.lower())
        raise KeyError(name)


@dataclass(eq=False)
class Material:
    """How a mesh is drawn: base colour, an optional base-colour image, alpha mode, sidedness.

    base_color: linear RGBA factor (the default is a display grey of 0.8); texture: the image name the
    file gives, or an assigned image's path; texture_path: the file found for it (None when missing or
    embedded); image: decoded (H, W, 4) uint8 RGBA, row 0 = the top of the image, read-only; wrap: (s, t)
    each 'repeat', 'clamp' or 'mirror'; uv_transform: a (3, 3) KHR_texture_transform matrix applied to
    UVs; unlit: drawn in its colour as it is, without the view's lighting (KHR_materials_unlit);
    emissive: linear RGB light the surface gives off, added after lighting (glTF's emissiveFactor times
    KHR_materials_emissive_strength, so it may pass 1); emissive_image: (H, W, 4) uint8 sRGB RGBA that
    multiplies it at the mesh's UVs (read-only), emissive_texture its name; plt: the NWN PLT the image
    was coloured from (formats.nwn.plt.PltImage, None for other images), so the window can colour it again.
    """

    name: str = ""
    base_color: tuple[float, float, float, float] = (*maths.srgb_to_linear((0.8, 0.8, 0.8)), 1.0)
    texture: str = ""
    texture_path: str | None = None
    image: np.ndarray | None = None
    wrap: tuple[str, str] = ("repeat", "repeat")
    alpha_mode: Literal["OPAQUE", "MASK", "BLEND"] = "OPAQUE"
    alpha_cutoff: float = 0.5
    double_sided: bool = False
    uv_transform: np.ndarray | None = None
    unlit: bool = False
    emissive: tuple[float, float, float] = (0.0, 0.0, 0.0)
    emissive_image: np.ndarray | None = None
    emissive_texture: str = ""
    plt: object | None = None

    def __post_init__(self):
        emissive = tuple(float(c) for c in self.emissive)
        if len(emissive) != 3 or not all(0.0 <= c < float("inf") for c in emissive):
            raise ValueError(f"material {self.name!r} emissive: expected 3 finite values ≥ 0, got {emissive}")
        self.emissive = emissive
        if self.emissive_image is not None and not _shared_image(self.emissive_image):
            self.emissive_image = _frozen(self.emissive_image, np.uint8, (None, None, 4),
                                          f"material {self.name!r} emissive_image")
        color = tuple(float(c) for c in self.base_color)
        if len(color) == 3:
            color = (*color, 1.0)
        if len(color) != 4:
            raise ValueError(f"material {self.name!r} base_color: expected 3 or 4 values, got {len(color)}")
        self.base_color = color
        image = self.image
        if image is not None and not _shared_image(image):  # a checked, read-only image is shared, not copied
            self.image = _frozen(image, np.uint8, (None, None, 4), f"material {self.name!r} image")
        if self.uv_transform is not None:
            self.uv_transform = _frozen(self.uv_transform, np.float64, (3, 3),
                                        f"material {self.name!r} uv_transform")
        if self.alpha_mode not in ("OPAQUE", "MASK", "BLEND"):
            raise ValueError(f"material {self.name!r}: unknown alpha mode {self.alpha_mode!r}")
        for wrap in self.wrap:
            if wrap not in ("repeat", "clamp", "mirror"):
                raise ValueError(f"material {self.name!r}: unknown wrap mode {wrap!r}")


def _shared_image(image) -> bool:
    """Whether ``image`` is already a checked image: read-only (H, W, 4) uint8, shared, not copied."""
    return isinstance(image, np.ndarray) and image.dtype == np.uint8 and image.ndim == 3 \
        and image.shape[2] == 4 and not image.flags.writeable


@dataclass(eq=False)
class MeshSkin:
    """A mesh's own binding (a glTF skin): its bones and the inverse bind matrix of each.

    joints: (J,) bone indices, each at most once; inverse_bind: (J, 4, 4). A vertex weighted on
    bone ``joints[j]`` is skinned by ``W(t) @ inverse_bind[j]``; bones it does not list fall back
    to ``Skeleton.bind_inverse``. Several meshes may share one MeshSkin.
    """

    joints: np.ndarray
    inverse_bind: np.ndarray

    def __post_init__(self):
        self.joints = _frozen(self.joints, np.int32, (None,), "skin joints")
        self.inverse_bind = _frozen(self.inverse_bind, np.float64, (len(self.joints), 4, 4),
                                    "skin inverse_bind")
        if len(maths.sorted_unique(self.joints)) != len(self.joints):
            raise ValueError("skin joints: a bone is listed twice")

    def bone_inverse_binds(self, skeleton: Skeleton) -> np.ndarray:
        """(B, 4, 4) per bone: this skin's inverse bind matrix, else the skeleton's."""
        inverse = skeleton.bind_inverse.copy()
        inverse[self.joints] = self.inverse_bind
        return inverse


@dataclass(eq=False)
class Mesh:
    """One mesh, vertices in file order, positions at bind time.

    positions: (V, 3); normals: (V, 3) or None; uvs: (V, 2) or None; triangles: (T, 3) int or None
    (None: the format has no faces, draw points); joints, weights: (V, K) bone indices and weights,
    K ≥ 1. A vertex whose weights sum to 0 is rigid: it stays at its bind position. A mesh rigidly
    attached to one bone has weight 1 on that bone for every vertex. UVs follow glTF: (0, 0) is the
    image's top-left corner. ``visible`` is False for meshes the file marks as not rendered. skin:
    the mesh's own binding, or None to bind at ``Skeleton.bind_world`` (positions then in model space
    at bind time). colors: (V, 4) linear RGBA per vertex in 0..1, multiplied with the material's base
    colour (glTF's COLOR_0), or None. morphs: the mesh's morph targets (app/morph_targets.py), or None.
    hidden_reason: why the file hides the mesh, when it says more than "not rendered" (an NWN mesh at
    alpha 0: "alpha 0"), for info's mesh list.
    """

    name: str
    positions: np.ndarray
    joints: np.ndarray
    weights: np.ndarray
    normals: np.ndarray | None = None
    uvs: np.ndarray | None = None
    triangles: np.ndarray | None = None
    material: Material = field(default_factory=Material)
    visible: bool = True
    skin: MeshSkin | None = None
    colors: np.ndarray | None = None
    morphs: MorphTargets | None = None
    hidden_reason: str = ""

    def __post_init__(self):
        count = len(np.asarray(self.positions))
        if self.morphs is not None and self.morphs.positions.shape[1] != count:
            raise ValueError(f"mesh {self.name!r}: its morph targets have {self.morphs.positions.shape[1]} "
                             f"vertices, the mesh {count}")
        with np.errstate(over="ignore", invalid="ignore"):
            self.positions = _frozen(self.positions, np.float32, (count, 3), f"mesh {self.name!r} positions")
        _check_bounded(self.positions, f"mesh {self.name!r} positions")
        self.joints = _frozen(self.joints, np.int32, (count, None), f"mesh {self.name!r} joints")
        with np.errstate(over="ignore", invalid="ignore"):
            self.weights = _frozen(self.weights, np.float32, self.joints.shape, f"mesh {self.name!r} weights")
        _check_bounded(self.weights, f"mesh {self.name!r} weights")
        if self.normals is not None:
            self.normals = _frozen(self.normals, np.float32, (count, 3), f"mesh {self.name!r} normals")
        if self.uvs is not None:
            self.uvs = _frozen(self.uvs, np.float32, (count, 2), f"mesh {self.name!r} uvs")
        if self.colors is not None:
            self.colors = _frozen(self.colors, np.float32, (count, 4), f"mesh {self.name!r} colors")
            if not np.all((self.colors >= 0) & (self.colors <= 1)):
                raise ValueError(f"mesh {self.name!r} colors: a value is outside 0..1 or not finite")
        if self.triangles is not None:
            self.triangles = _frozen(self.triangles, np.int32, (None, 3), f"mesh {self.name!r} triangles")
            if self.triangles.size and (self.triangles.min() < 0 or self.triangles.max() >= count):
                raise ValueError(f"mesh {self.name!r}: a triangle index lies outside 0..{count - 1}")

    @property
    def vertex_count(self) -> int:
        return len(self.positions)

    @property
    def triangle_count(self) -> int:
        return 0 if self.triangles is None else len(self.triangles)

    @cached_property
    def smooth_normals(self) -> np.ndarray:
        """(V, 3) the stored normals, else area-weighted vertex normals from the triangles."""
        if self.normals is not None:
            return self.normals
        triangles = self.triangles if self.triangles is not None else np.zeros((0, 3), np.int32)
        result = maths.vertex_normals(self.positions, triangles).astype(np.float32)
        result.flags.writeable = False
        return result


@dataclass(eq=False)
class Track:
    """Keyed local channels of one bone; an absent channel keeps the rest-local value.

    Each channel is ``(times (K,), values (K, n))``: translation n=3, rotation n=4 quaternions
    (slerp), scale n=3. ``interpolation`` is 'linear' (slerp for rotations) or 'step'.
    ``handles``: channels played as cubic Bezier curves instead, channel → ``(in (K, n), out (K, n))``
    control values: key k to k+1 runs through ``values[k]``, ``out[k]``, ``in[k+1]``, ``values[k+1]``
    with the parameter linear in time (rotations component-wise, then normalised, as glTF's
    CUBICSPLINE plays quaternions).
    """

    bone: int
    translation: tuple[np.ndarray, np.ndarray] | None = None
    rotation: tuple[np.ndarray, np.ndarray] | None = None
    scale: tuple[np.ndarray, np.ndarray] | None = None
    interpolation: Literal["linear", "step"] = "linear"
    handles: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    def __post_init__(self):
        for channel, width in (("translation", 3), ("rotation", 4), ("scale", 3)):
            keys = getattr(self, channel)
            if keys is None:
                continue
            times = _frozen(keys[0], np.float64, (None,), f"bone {self.bone} {channel} times")
            values = _frozen(keys[1], np.float64, (len(times), width), f"bone {self.bone} {channel} values")
            _check_bounded(times, f"bone {self.bone} {channel} times")
            _check_bounded(values, f"bone {self.bone} {channel} values")
            if len(times) == 0:
                raise ValueError(f"bone {self.bone} {channel}: a channel needs at least one key")
            if np.any(np.diff(times) < 0):
                raise ValueError(f"bone {self.bone} {channel}: key times go backwards")
            if channel == "rotation":
                values = maths.quat_normalize(values)
                values.flags.writeable = False
            setattr(self, channel, (times, values))
        for channel, pair in list(self.handles.items()):
            if getattr(self, channel, None) is None or len(pair) != 2:
                raise ValueError(f"bone {self.bone}: Bezier handles for {channel!r}, which has no keys")
            shape = getattr(self, channel)[1].shape
            pair = tuple(_frozen(h, np.float64, shape, f"bone {self.bone} {channel} handles") for h in pair)
            for handle in pair:
                _check_bounded(handle, f"bone {self.bone} {channel} handles")
            self.handles[channel] = pair


@dataclass(eq=False)
class Clip:
    """One animation. Exactly one of three payloads is set, by ``kind``:

    - 'keyed': ``tracks`` — local TRS keys per bone, each channel with its own key times.
    - 'matrices': ``times`` (F,) and ``world`` (F, B, 4, 4) bone world matrices per frame.
    - 'vertex': ``times`` (F,) and ``positions`` (F, N, 3) every mesh's vertices per frame
      (meshes in model order); ``world`` may also be given for the bones, else they stay at rest.

    A keyed or matrices clip may also key morph weights: ``weight_channels``, per mesh (by index).
    Times are seconds. ``events`` are ``(time, name)`` pairs shown on the timeline.
    ``note`` explains a clip that cannot play (e.g. it needs a partner file).
    ``source`` is the name of the file the clip came from. ``rate``: the frames per second the file
    states for it (FBX, BVH), else None. ``mesh_alpha``: mesh index → (times (K,), opacities (K,) in
    0..1), keys played linearly in place of the mesh's own opacity (NWN alpha keys).
    """

    name: str
    kind: Literal["keyed", "matrices", "vertex"]
    tracks: list[Track] = field(default_factory=list)
    times: np.ndarray | None = None
    world: np.ndarray | None = None
    positions: np.ndarray | None = None
    events: list[tuple[float, str]] = field(default_factory=list)
    note: str = ""
    source: str = ""
    rate: float | None = None
    weight_channels: list[WeightChannel] = field(default_factory=list)
    mesh_alpha: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    def __post_init__(self):
        self.mesh_alpha = {int(mesh): _opacity_keys(keys, f"clip {self.name!r} mesh {mesh} alpha")
                           for mesh, keys in self.mesh_alpha.items()}
        if self.kind not in ("keyed", "matrices", "vertex"):
            raise ValueError(f"clip {self.name!r}: unknown kind {self.kind!r}")
        if self.kind != "keyed":
            self.times = _frozen(self.times, np.float64, (None,), f"clip {self.name!r} times")
            _check_bounded(self.times, f"clip {self.name!r} times")
            if len(self.times) == 0:
                raise ValueError(f"clip {self.name!r}: a clip needs at least one frame")
            if np.any(np.diff(self.times) <= 0):
                raise ValueError(f"clip {self.name!r}: frame times must increase")
            frames = len(self.times)
            if self.world is not None:
                self.world = _frozen(self.world, np.float64, (frames, None, 4, 4),
                                     f"clip {self.name!r} world")
                _check_bounded(self.world, f"clip {self.name!r} world matrices")
            if self.kind == "matrices" and self.world is None:
                raise ValueError(f"clip {self.name!r}: a matrices clip needs world matrices")
            if self.kind == "vertex":
                with np.errstate(over="ignore", invalid="ignore"):
                    self.positions = _frozen(self.positions, np.float32, (frames, None, 3),
                                             f"clip {self.name!r} positions")
                _check_bounded(self.positions, f"clip {self.name!r} positions")
        self.events = sorted((float(t), str(n)) for t, n in self.events)

    @property
    def skeletal(self) -> bool:
        """Whether the clip moves bones: not a vertex clip, nor a keyed one that only moves weights."""
        if self.kind == "keyed":
            return bool(self.tracks) or not self.weight_channels
        return self.kind != "vertex"

    @property
    def motion(self) -> Literal["skeletal", "morph", "vertex"]:
        """What the clip moves, as ``info`` says it: bones, only morph weights, or the vertices."""
        return "vertex" if self.kind == "vertex" else "skeletal" if self.skeletal else "morph"

    @cached_property
    def frame_times(self) -> np.ndarray:
        """(F,) the times of the stored frames, or of every distinct key for keyed clips (opacity
        keys included)."""
        if self.kind != "keyed":
            return self.times
        times = [keys[0] for track in self.tracks
                 for keys in (track.translation, track.rotation, track.scale) if keys is not None]
        times += [channel.times for channel in self.weight_channels]
        times += [keys[0] for keys in self.mesh_alpha.values()]
        return maths.sorted_unique(np.concatenate(times)) if times else np.zeros(1)

    @property
    def frame_count(self) -> int:
        return len(self.frame_times)

    @property
    def start(self) -> float:
        """Where the clip's timeline begins: 0, or its first key when that is earlier."""
        return min(0.0, float(self.frame_times[0]))

    @property
    def duration(self) -> float:
        """The timeline's length: from ``start`` to the last key (a clip keyed from 1/24 s to 2.5 s
        lasts 2.5 s), so every stored key lies on it at its own time."""
        return float(self.frame_times[-1]) - self.start


def _opacity_keys(keys: tuple, what: str) -> tuple[np.ndarray, np.ndarray]:
    """(times (K,), opacities (K,)): at least one key, times increasing, opacities in 0..1."""
    times = _frozen(keys[0], np.float64, (None,), f"{what} times")
    values = _frozen(keys[1], np.float64, (len(times),), f"{what} values")
    _check_bounded(times, f"{what} times")
    if not len(times) or np.any(np.diff(times) <= 0):
        raise ValueError(f"{what}: expected at least one key, times increasing")
    if not np.all((values >= 0) & (values <= 1)):
        raise ValueError(f"{what}: opacities must lie in 0..1")
    return times, values


@dataclass(eq=False)
class Helper:
    """A point that follows a bone: posed as ``W_parent(t) @ offset``. ``parent`` −1 is the model."""

    name: str
    parent: int
    offset: np.ndarray

    def __post_init__(self):
        self.offset = _frozen(self.offset, np.float64, (4, 4), f"helper {self.name!r} offset")


@dataclass(eq=False)
class Model:
    """Everything read from one set of files. ``unit``: the length unit the format states ('metre'),
    else 'unknown' (lengths are as the authoring tool wrote them). ``file_unit_m`` and ``file_axes``:
    the unit (in metres) and axis system ('Y up, -Z front') a file states when the reader converted
    from them (FBX), else None and ''. ``supermodels``: the supermodel
    chain followed, each link's name with the file found for it (None: not found, the chain stops
    there). ``pending``: posing work the reader left for the load stage (app/posing_steps.py: clips to
    bake, tails to derive at rest, a fit check); ``loading.load`` does it, so a loaded model's is
    empty. Loaded (``freeze``), the model does not change (the module's docstring)."""

    name: str
    skeleton: Skeleton
    meshes: Sequence[Mesh] = field(default_factory=list)
    clips: Sequence[Clip] = field(default_factory=list)
    helpers: Sequence[Helper] = field(default_factory=list)
    format: str = ""
    files: Sequence[str] = field(default_factory=list)
    up_axis: Literal["Y", "Z"] = "Z"
    up_source: Literal["file", "guessed", "option"] = "file"
    forward: str = ""
    unit: str = "unknown"
    file_unit_m: float | None = None
    file_axes: str = ""
    warnings: Sequence[str] = field(default_factory=list)
    supermodels: Sequence[tuple[str, str | None]] = field(default_factory=list)
    pending: Sequence[PendingStep] = field(default_factory=list)

    def __post_init__(self):
        bones = len(self.skeleton)
        for mesh in self.meshes:
            used = mesh.weights != 0
            if np.any(used & ((mesh.joints < 0) | (mesh.joints >= bones))):
                raise ValueError(f"mesh {mesh.name!r} refers to a bone outside 0..{bones - 1}")
            if mesh.skin is not None and np.any((mesh.skin.joints < 0) | (mesh.skin.joints >= bones)):
                raise ValueError(f"mesh {mesh.name!r}: its skin lists a bone outside 0..{bones - 1}")
        for clip in self.clips:
            if clip.world is not None and clip.world.shape[1] != bones:
                raise ValueError(f"clip {clip.name!r} has {clip.world.shape[1]} bones, the model {bones}")
            if clip.kind == "vertex" and clip.positions.shape[1] != self.vertex_count:
                raise ValueError(f"clip {clip.name!r} has {clip.positions.shape[1]} vertices, "
                                 f"the model {self.vertex_count}")
            for channel in clip.weight_channels:
                morphs = self.meshes[channel.mesh].morphs if 0 <= channel.mesh < len(self.meshes) else None
                if morphs is None or morphs.count != channel.width:
                    raise ValueError(f"clip {clip.name!r} keys {channel.width} morph weights of mesh "
                                     f"{channel.mesh}, which has {0 if morphs is None else morphs.count}")
            for track in clip.tracks:
                if not 0 <= track.bone < bones:
                    raise ValueError(f"clip {clip.name!r} animates bone {track.bone}, outside 0..{bones - 1}")
        for helper in self.helpers:
            if not -1 <= helper.parent < bones:
                raise ValueError(f"helper {helper.name!r} follows bone {helper.parent}, "
                                 f"outside -1..{bones - 1}")

    def __setattr__(self, name: str, value) -> None:
        if self.__dict__.get("loaded") and name not in CHOSEN_FIELDS:
            raise AttributeError(f"model {self.name!r} is loaded and does not change: make a new one "
                                 f"(dataclasses.replace) to change its {name}")
        super().__setattr__(name, value)

    def freeze(self) -> Model:
        """Mark the model loaded: its lists become tuples, and no field but ``CHOSEN_FIELDS`` can be
        set from now on (a model made from it by ``dataclasses.replace`` starts unfrozen). Returns it."""
        for name in SEQUENCE_FIELDS:
            setattr(self, name, tuple(getattr(self, name)))
        self.__dict__["loaded"] = True
        return self

    @property
    def vertex_count(self) -> int:
        return sum(mesh.vertex_count for mesh in self.meshes)

    @property
    def triangle_count(self) -> int | None:
        """Total triangles, or None when no mesh has faces (point-only formats)."""
        if self.meshes and all(mesh.triangles is None for mesh in self.meshes):
            return None
        return sum(mesh.triangle_count for mesh in self.meshes)

    @cached_property
    def skins(self) -> list[MeshSkin]:
        """The meshes' own skins, each once, in the order the meshes first use them."""
        found: dict[int, MeshSkin] = {}
        for mesh in self.meshes:
            if mesh.skin is not None:
                found.setdefault(id(mesh.skin), mesh.skin)
        return list(found.values())

    @cached_property
    def bind_positions(self) -> np.ndarray:
        """(N, 3) every mesh's bind positions, meshes in model order."""
        if not self.meshes:
            return np.zeros((0, 3), np.float32)
        return np.concatenate([mesh.positions for mesh in self.meshes])

    def clip_index(self, selector: str | int | None) -> int:
        """The clip a user means by name or 0-based index (default: the first). A name matches
        exactly, else case-insensitively when exactly one clip matches that way."""
        if selector is None or selector == "":
            if not self.clips:
                raise KeyError("the model has no clips")
            return 0
        names = [clip.name for clip in self.clips]
        if isinstance(selector, str) and selector in names:
            return names.index(selector)
        if isinstance(selector, str):
            folded = [index for index, name in enumerate(names) if name.casefold() == selector.casefold()]
            if len(folded) == 1:
                return folded[0]
            if folded:
                matches = ", ".join(names[index] for index in folded)
                raise KeyError(f"clip name {selector!r} matches {matches} when case is ignored; "
                               "give one exactly")
        try:
            index = int(selector)
        except (TypeError, ValueError):
            raise KeyError(f"no clip named {selector!r}; clips: {', '.join(names) or 'none'}") from None
        if not 0 <= index < len(self.clips):
            raise KeyError(f"clip index {index} outside 0..{len(self.clips) - 1}")
        return index
