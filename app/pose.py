"""Poses: bone world matrices at one instant, and the CPU reference skinning.

A Pose is what every source of motion produces (clip playback here, the ragdoll elsewhere) and
what the renderer, the exporters and ``boneyard pose`` consume.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from app import maths
from app.derived import derived
from app.bone_tree import world_from_local
from app.model import Clip, Mesh, MeshSkin, Model, Skeleton
from app.morph_targets import rest_weights, sampled_weights, weight_slices
from app.skin_weights import top_influences

SkinningMethod = Literal["lbs", "dqs"]


@dataclass(eq=False)
class Pose:
    """world: (B, 4, 4) bone world matrices ``W_b``; skin: (B, 4, 4) ``W_b @ inv(B_b)`` (the
    skeleton's bind; a mesh with its own skin uses ``mesh_skinning``); positions: (N, 3) vertex
    positions that replace skinning (vertex-animated clips) or None; helpers: (H, 4, 4) helper
    world matrices; morph_weights: (T,) every morph target's weight, meshes and targets in model order
    (``morph_targets.rest_weights``), or None for the meshes' defaults; mesh_alpha: mesh index →
    opacity in 0..1 for the meshes the clip keys it for (others keep their material's); mesh_positions:
    mesh index → (V, 3) positions in the mesh's bind space that replace its own before skinning (a
    danglymesh's sway, app/animation/dangly_swing.py). Column vectors throughout."""

    world: np.ndarray
    skin: np.ndarray
    positions: np.ndarray | None
    helpers: np.ndarray
    morph_weights: np.ndarray | None = None
    mesh_alpha: dict[int, float] = field(default_factory=dict)
    mesh_positions: dict[int, np.ndarray] = field(default_factory=dict)

    def heads_tails(self, skeleton: Skeleton) -> tuple[np.ndarray, np.ndarray]:
        """Posed joint positions and bone ends, (B, 3) each."""
        return (maths.transform_points(self.skin, skeleton.heads),
                maths.transform_points(self.skin, skeleton.tails))


def rest_pose(model: Model) -> Pose:
    """The pose with no clip: every bone at rest (for legacy formats, the bind pose)."""
    return pose_from_world(model, model.skeleton.rest_world.copy())


def pose_from_world(model: Model, world: np.ndarray, positions: np.ndarray | None = None,
                    morph_weights: np.ndarray | None = None) -> Pose:
    """A Pose from bone world matrices (B, 4, 4): skinning and helper matrices follow."""
    skin = world @ model.skeleton.bind_inverse if len(world) else np.zeros((0, 4, 4))
    helpers = np.array([world[h.parent] @ h.offset if h.parent >= 0 else h.offset
                        for h in model.helpers]).reshape(-1, 4, 4)
    return Pose(world=world, skin=skin, positions=positions, helpers=helpers, morph_weights=morph_weights)


def pose_morph_weights(model: Model, pose: Pose) -> np.ndarray:
    """(T,) the pose's weight of every morph target (the meshes' defaults where it gives none)."""
    return rest_weights(model.meshes) if pose.morph_weights is None else pose.morph_weights


def frame_time(clip: Clip, frame: int) -> float:
    """The time in seconds of the clip's ``frame``-th stored frame or key (0-based)."""
    if not 0 <= frame < clip.frame_count:
        raise IndexError(f"frame {frame} outside 0..{clip.frame_count - 1} of clip {clip.name!r}")
    return float(clip.frame_times[frame])


def evaluate(model: Model, clip: Clip | None, time: float) -> Pose:
    """The model's pose at ``time`` seconds of ``clip`` (the rest pose when ``clip`` is None).

    Before the first key or frame the first is held, after the last the last.
    """
    if clip is None:
        return rest_pose(model)
    pose = _clip_pose(model, clip, time)
    pose.mesh_alpha = {mesh: float(np.interp(time, *keys)) for mesh, keys in clip.mesh_alpha.items()}
    return pose


def _clip_pose(model: Model, clip: Clip, time: float) -> Pose:
    """The bones, morph weights (and vertex positions) of ``clip`` at ``time``."""
    weights = sampled_weights(model.meshes, clip.weight_channels, time) if clip.weight_channels else None
    if clip.kind == "keyed":
        local = _sample_keyed(model.skeleton, clip, time)
        return pose_from_world(model, compose_world(model.skeleton, local), morph_weights=weights)
    frame, fraction = _bracket(clip.times, time)
    world = (model.skeleton.rest_world.copy() if clip.world is None
             else _blend_world_frames(model.skeleton, clip.world, frame, fraction))
    positions = None
    if clip.kind == "vertex":
        positions = _lerp_frames(clip.positions, frame, fraction).astype(np.float32)
    return pose_from_world(model, world, positions, weights)


def compose_world(skeleton: Skeleton, local: np.ndarray) -> np.ndarray:
    """(B, 4, 4) world matrices from local ones, level by level down the hierarchy."""
    return world_from_local(local, skeleton.parents, skeleton.levels)


def _bracket(times: np.ndarray, time: float) -> tuple[int, float]:
    """The frame at or before ``time`` and the fraction of the way to the next one."""
    if time <= times[0]:
        return 0, 0.0
    if time >= times[-1]:
        return len(times) - 1, 0.0
    frame = int(np.searchsorted(times, time, side="right")) - 1
    return frame, float((time - times[frame]) / (times[frame + 1] - times[frame]))


def _blend_world_frames(skeleton: Skeleton, world: np.ndarray, frame: int, fraction: float) -> np.ndarray:
    """Bone world matrices between two stored frames: each bone's parent-relative translation and
    scale are blended linearly and its rotation by slerp (as glTF plays the exported clip), so limbs
    keep their length mid-frame. Exact at stored frames (fraction 0). A parent collapsed to zero
    scale has no relative frame; then the matrices are blended componentwise."""
    if fraction == 0.0:
        return world[frame].astype(np.float64)
    pair = world[frame:frame + 2].astype(np.float64)
    parents = skeleton.parents
    has_parent = parents >= 0
    local = pair.copy()
    try:
        local[:, has_parent] = maths.affine_inverse(pair[:, parents[has_parent]]) @ pair[:, has_parent]
    except ValueError:
        return _lerp_frames(world, frame, fraction)
    translations, rotations, scales, _ = maths.decompose_trs(local)
    rotation = maths.slerp(rotations[0], rotations[1], np.full(len(parents), fraction))
    blended = maths.compose_trs(_lerp(translations, fraction), rotation, _lerp(scales, fraction))
    return compose_world(skeleton, blended)


def _lerp(pair: np.ndarray, fraction: float) -> np.ndarray:
    return (1.0 - fraction) * pair[0] + fraction * pair[1]


def _lerp_frames(frames: np.ndarray, frame: int, fraction: float) -> np.ndarray:
    """Componentwise blend of stored frames; exact at stored frames (fraction 0)."""
    if fraction == 0.0:
        return frames[frame].astype(np.float64)
    return (1.0 - fraction) * frames[frame].astype(np.float64) + fraction * frames[frame + 1]


# --- keyed clips --------------------------------------------------------------------------------

#: Key times × instants up to which ``_PackedChannel.keys_up_to`` compares all with all (cheaper
#: than sorting for the many tiny clips of an NWN set; a long clip's keys are searched instead).
COMPARED_AT_ONCE = 1 << 16


@dataclass
class _PackedChannel:
    """One channel (translation, rotation or scale) of every track that has it, padded to a
    common key count so a whole clip samples with array operations.

    bones: (n,); times: (n, K) padded by repeating the last time; values: (n, K, w);
    counts: (n,) real key counts; step: (n,) bool; curved: (n,) bool, the tracks with Bezier
    handles, whose in and out control values are ``handles_in`` / ``handles_out`` (m, K, w), m the
    curved tracks, in their order.
    """

    bones: np.ndarray
    times: np.ndarray
    values: np.ndarray
    counts: np.ndarray
    step: np.ndarray
    curved: np.ndarray
    handles_in: np.ndarray
    handles_out: np.ndarray

    def sample(self, time: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per track: the values at and after ``time`` and the blend fraction between them."""
        rows = np.arange(len(self.bones))
        before = np.clip((self.times <= time).sum(axis=1) - 1, 0, self.counts - 1)
        after = np.minimum(before + 1, self.counts - 1)
        start, end = self.times[rows, before], self.times[rows, after]
        span = np.where(end > start, end - start, 1.0)
        fraction = np.where((end > start) & ~self.step, np.clip((time - start) / span, 0.0, 1.0), 0.0)
        return self.values[rows, before], self.values[rows, after], fraction, self.bones

    def sample_many(self, times: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``sample`` at each of ``times`` (F,): values (F, n, w) at and after, fractions (F, n)."""
        rows = np.arange(len(self.bones))
        at = np.asarray(times, dtype=np.float64)
        before = np.clip(self.keys_up_to(at) - 1, 0, self.counts - 1)
        after = np.minimum(before + 1, self.counts - 1)
        start, end = self.times[rows, before], self.times[rows, after]
        span = np.where(end > start, end - start, 1.0)
        fraction = np.where((end > start) & ~self.step, np.clip((at[:, None] - start) / span, 0.0, 1.0), 0.0)
        return self.values[rows, before], self.values[rows, after], fraction, self.bones

    def keys_up_to(self, times: np.ndarray) -> np.ndarray:
        """(F, n) how many of each track's (padded) key times are at or before each of ``times``.
        Few keys and instants are compared all with all; more take one sorted search over every
        track at once, the times replaced by their ranks among all the times involved (the first
        place of each value in them all sorted: exact integers that order as the times do, equal
        times alike) and each track's ranks lifted above the previous one's."""
        if self.times.size * len(times) <= COMPARED_AT_ONCE:
            return (self.times[None] <= times[:, None, None]).sum(axis=2)
        grid = np.sort(np.concatenate([self.times.ravel(), times]))
        stride = len(grid) + 1
        rows, keys = np.arange(self.times.shape[0]), self.times.shape[1]
        lifted = (np.searchsorted(grid, self.times) + stride * rows[:, None]).ravel()
        query = np.searchsorted(grid, times)[:, None] + stride * rows[None, :]
        return np.searchsorted(lifted, query, side="right") - keys * rows[None, :]

    def bezier(self, time: float) -> tuple[np.ndarray, np.ndarray]:
        """The curved tracks' values at ``time`` (m, w), component-wise cubic Bezier, and their
        rows in the channel (m,)."""
        first, second, fraction, _ = self.sample(time)
        rows = np.flatnonzero(self.curved)
        before = np.clip((self.times[rows] <= time).sum(axis=1) - 1, 0, self.counts[rows] - 1)
        after = np.minimum(before + 1, self.counts[rows] - 1)
        order = np.arange(len(rows))
        u = fraction[rows, None]
        points = (first[rows], self.handles_out[order, before], self.handles_in[order, after], second[rows])
        bernstein = ((1 - u) ** 3, 3 * (1 - u) ** 2 * u, 3 * (1 - u) * u ** 2, u ** 3)
        return sum(weight * point for weight, point in zip(bernstein, points)), rows


@derived
def _pack(clip: Clip) -> tuple[dict[str, _PackedChannel], np.ndarray]:
    """The clip's keys packed per channel, and the bones any channel animates (ascending), made once
    per clip."""
    packed = {}
    for channel, width in (("translation", 3), ("rotation", 4), ("scale", 3)):
        tracks = [t for t in clip.tracks if getattr(t, channel) is not None]
        if not tracks:
            continue
        counts = np.array([len(getattr(t, channel)[0]) for t in tracks])
        longest = counts.max()
        times = np.empty((len(tracks), longest))
        values = np.empty((len(tracks), longest, width))
        for row, track in enumerate(tracks):
            key_times, key_values = getattr(track, channel)
            times[row, : len(key_times)] = key_times
            times[row, len(key_times):] = key_times[-1]
            values[row, : len(key_times)] = key_values
            values[row, len(key_times):] = key_values[-1]
        curved = [row for row, track in enumerate(tracks) if channel in track.handles]
        handles = np.empty((2, len(curved), longest, width))
        for slot, row in enumerate(curved):
            for side in range(2):
                handles[side, slot, : counts[row]] = tracks[row].handles[channel][side]
                handles[side, slot, counts[row]:] = tracks[row].handles[channel][side][-1]
        packed[channel] = _PackedChannel(
            bones=np.array([t.bone for t in tracks]), times=times, values=values, counts=counts,
            step=np.array([t.interpolation == "step" for t in tracks]),
            curved=np.isin(np.arange(len(tracks)), curved), handles_in=handles[0], handles_out=handles[1])
    bones = [channel.bones for channel in packed.values()]
    animated = maths.sorted_unique(np.concatenate(bones)) if bones else np.zeros(0, int)
    return packed, animated


def animated_bones(clip: Clip) -> np.ndarray:
    """The bones a keyed clip's tracks animate, ascending."""
    return _pack(clip)[1]


@derived
def rest_local_trs(skeleton: Skeleton) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rest-local matrices as translations (B, 3), quaternions (B, 4) and scales (B, 3): what a
    bone's unkeyed channels keep."""
    translations, rotations, scales, _ = maths.decompose_trs(skeleton.rest_local)
    return translations, rotations, scales


def _sample_keyed(skeleton: Skeleton, clip: Clip, time: float) -> np.ndarray:
    """(B, 4, 4) local matrices at ``time``: keyed channels over the rest-local TRS.

    Bones with no track keep their rest-local matrix exactly (shear included).
    """
    packed, animated = _pack(clip)
    translations, rotations, scales = (a.copy() for a in rest_local_trs(skeleton))
    for channel, target in (("translation", translations), ("scale", scales), ("rotation", rotations)):
        if channel not in packed:
            continue
        keys = packed[channel]
        first, second, fraction, bones = keys.sample(time)
        if channel == "rotation":
            target[bones] = maths.slerp(first, second, fraction)
        else:
            target[bones] = first + fraction[:, None] * (second - first)
        if keys.curved.any():
            curve, rows = keys.bezier(time)
            target[bones[rows]] = maths.quat_normalize(curve) if channel == "rotation" else curve
    local = skeleton.rest_local.copy()
    if len(animated):
        local[animated] = maths.compose_trs(translations[animated], rotations[animated], scales[animated])
    return local


def keyed_local_frames(skeleton: Skeleton, clip: Clip, times: np.ndarray,
                       bones: np.ndarray | None = None) -> np.ndarray:
    """(B, F, 4, 4) local matrices at each of ``times``: ``_sample_keyed`` for many instants in one
    pass (a clip with Bezier tracks is sampled instant by instant). ``bones`` (S,) ascending: only
    theirs, (S, F, 4, 4), so memory grows with the bones asked for, not with every node."""
    bones = np.arange(len(skeleton)) if bones is None else np.asarray(bones, dtype=np.intp)
    packed, animated = _pack(clip)
    if any(keys.curved.any() for keys in packed.values()):
        return np.stack([_sample_keyed(skeleton, clip, float(time))[bones] for time in times], axis=1)
    frames = len(times)
    row_of = np.full(len(skeleton), -1, dtype=np.intp)
    row_of[bones] = np.arange(len(bones))
    trs = [np.repeat(rest[bones][None], frames, axis=0) for rest in rest_local_trs(skeleton)]
    for channel, target in (("translation", trs[0]), ("rotation", trs[1]), ("scale", trs[2])):
        if channel not in packed:
            continue
        first, second, fraction, tracks = packed[channel].sample_many(times)
        kept = row_of[tracks] >= 0
        first, second, fraction = first[:, kept], second[:, kept], fraction[:, kept]
        rows = row_of[tracks[kept]]
        if channel == "rotation":
            target[:, rows] = maths.slerp(first, second, fraction)
        else:
            target[:, rows] = first + fraction[..., None] * (second - first)
    local = np.repeat(skeleton.rest_local[bones][:, None], frames, axis=1)
    rows = row_of[animated][row_of[animated] >= 0]
    if len(rows):
        local[rows] = np.swapaxes(maths.compose_trs(*(part[:, rows] for part in trs)), 0, 1)
    return local


def frame_worlds(model: Model, clip: Clip) -> np.ndarray:
    """(F, B, 4, 4) bone world matrices at each of the clip's stored frames or keys."""
    if clip.world is not None:
        return clip.world
    if clip.kind != "keyed":
        return np.repeat(model.skeleton.rest_world[None], len(clip.frame_times), axis=0)
    local = keyed_local_frames(model.skeleton, clip, clip.frame_times)
    return np.swapaxes(compose_world(model.skeleton, local), 0, 1)


# --- skinning -----------------------------------------------------------------------------------

def skin_mesh(mesh: Mesh, skin: np.ndarray, method: SkinningMethod = "lbs",
              influences: int | None = None, morph_weights: np.ndarray | None = None) -> np.ndarray:
    """(V, 3) posed positions of one mesh under skinning matrices ``skin`` (B, 4, 4).

    Weights are normalised per vertex; vertices with no weight stay at their bind position.
    ``influences`` limits each vertex to its largest influences, as the GPU does. ``morph_weights``
    (M,): the mesh's targets are applied at these weights before skinning (None: its defaults).
    """
    joints, weights = top_influences(mesh.joints, mesh.weights, influences or mesh.joints.shape[1])
    positions = mesh.positions.astype(np.float64)
    if mesh.morphs is not None and morph_weights is not None:
        positions = mesh.morphs.moved(positions, morph_weights)
    if mesh.vertex_count == 0 or len(skin) == 0:  # no bones: every vertex is rigid
        return positions
    rigid = weights.sum(axis=1) == 0
    if method == "dqs":
        posed = _dual_quaternion_skin(positions, joints, weights, skin)
    else:
        blended = np.einsum("vk,vkij->vij", weights.astype(np.float64), skin[joints][..., :3, :])
        posed = np.einsum("vij,vj->vi", blended[..., :3], positions) + blended[..., 3]
    posed[rigid] = positions[rigid]
    return posed


def _dual_quaternion_skin(positions: np.ndarray, joints: np.ndarray, weights: np.ndarray,
                          skin: np.ndarray) -> np.ndarray:
    """Dual-quaternion blend (Kavan et al.): antipodal quaternions aligned with the first lane."""
    dual_quaternions = maths.dual_quaternions_from_matrices(skin)[joints]  # (V, K, 2, 4)
    signs = np.sign(np.sum(dual_quaternions[:, :, 0] * dual_quaternions[:, :1, 0], axis=-1))
    signs[signs == 0] = 1.0
    blended = np.einsum("vk,vkij->vij", weights * signs, dual_quaternions)
    norms = np.linalg.norm(blended[:, 0], axis=-1)
    norms[norms == 0] = 1.0
    blended /= norms[:, None, None]
    return maths.transform_points(maths.dual_quaternions_to_matrices(blended), positions)


def mesh_skinning(model: Model, pose: Pose, mesh: Mesh) -> np.ndarray:
    """(B, 4, 4) the skinning matrices of ``mesh``: ``W_b @ IBM_b`` with its own skin's inverse bind
    matrices, else ``pose.skin``."""
    if mesh.skin is None:
        return pose.skin
    return pose.world @ _bone_inverse_binds(mesh.skin, model.skeleton)


@derived
def _bone_inverse_binds(skin: MeshSkin, skeleton: Skeleton) -> np.ndarray:
    """(B, 4, 4) ``skin.bone_inverse_binds(skeleton)``, cached on the skin per skeleton."""
    return skin.bone_inverse_binds(skeleton)


def skinning_palette(model: Model, pose: Pose) -> np.ndarray:
    """((1 + S)·B, 4, 4) skinning matrices for the skeleton's bind, then for each of ``model.skins``:
    one table for the GPU, which a mesh indexes from ``palette_offset``."""
    return np.concatenate([pose.skin] + [pose.world @ _bone_inverse_binds(skin, model.skeleton)
                                         for skin in model.skins])


def palette_offset(model: Model, mesh: Mesh) -> int:
    """Where ``mesh``'s skinning matrices start in ``skinning_palette``."""
    if mesh.skin is None:
        return 0
    return (1 + next(i for i, skin in enumerate(model.skins) if skin is mesh.skin)) * len(model.skeleton)


def posed_positions(model: Model, pose: Pose, method: SkinningMethod = "lbs",
                    influences: int | None = None) -> np.ndarray:
    """(N, 3) every mesh's posed vertices, meshes in model order, vertices in file order."""
    if pose.positions is not None:
        return pose.positions.astype(np.float64)
    if not model.meshes:
        return np.zeros((0, 3))
    parts = weight_slices(model.meshes)
    weights = pose.morph_weights
    meshes = [replace(mesh, positions=pose.mesh_positions[index]) if index in pose.mesh_positions else mesh
              for index, mesh in enumerate(model.meshes)]
    return np.concatenate([skin_mesh(mesh, mesh_skinning(model, pose, original), method, influences,
                                     None if weights is None or part is None else weights[part])
                           for mesh, original, part in zip(meshes, model.meshes, parts)])


@derived
def rest_extent(model: Model) -> float:
    """The diagonal of the rest pose's bounds of vertices and joints (1 when empty), measured where
    they are drawn: a glTF skin may bind in units or axes its nodes scale and turn. The model's size,
    the scale of every tolerance and handle."""
    low, high = posed_bounds(model, rest_pose(model), skeleton=True)
    size = float(np.linalg.norm(high - low))
    return size if size > 0 else 1.0


def posed_bounds(model: Model, pose: Pose, skeleton: bool = False,
                 show_hidden: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Min and max corners (3,) of what is drawn: the posed vertices of the visible meshes (every mesh
    with ``show_hidden``, or when none is visible), with the bones' heads and tails when ``skeleton``
    is shown or there is no vertex, and the helpers only when there is neither. Cameras, lights and
    far-off empty nodes thus never shrink the model in the picture."""
    positions = posed_positions(model, pose)
    visible = np.concatenate([np.full(mesh.vertex_count, mesh.visible or show_hidden)
                              for mesh in model.meshes]) if model.meshes else np.zeros(0, bool)
    points = [positions[visible] if visible.any() else positions]
    if skeleton or not len(points[0]):
        points += list(pose.heads_tails(model.skeleton))
    if not any(len(p) for p in points):
        points.append(pose.helpers[:, :3, 3])
    points = np.concatenate([p for p in points if len(p)] or [np.zeros((1, 3))])
    return points.min(axis=0), points.max(axis=0)


#: A model whose lowest point rests above the plane through its origin by at most this share of its
#: height stands lifted above that floor (NWN models rest a few percent above the floor their clips
#: walk on); one further up is not standing on it.
LIFTED_SHARE = 0.25


def floor_height(low: np.ndarray, high: np.ndarray, up: np.ndarray) -> float:
    """The floor's height along ``up`` under what spans ``low``..``high``: the plane through the origin
    when the lowest point is just above it (``LIFTED_SHARE``), else the lowest point."""
    bottom, top = float(low @ up), float(high @ up)
    return 0.0 if 0.0 < bottom <= LIFTED_SHARE * (top - bottom) else bottom


def bake_vertex_clip(model: Model, clip: Clip, times: np.ndarray, offsets: list[np.ndarray | None]) -> Clip:
    """``clip`` as a 'vertex' clip: at each of ``times`` (F,), every mesh's bind positions plus its
    ``offsets`` (F, V, 3) at that frame (None: none; morph targets, say), skinned by the clip's pose
    then. The bones' world matrices are kept per frame too."""
    frames, worlds = [], []
    for frame, time in enumerate(times):
        pose = evaluate(model, clip if clip.tracks else None, float(time))
        posed = []
        for mesh, moved_by in zip(model.meshes, offsets):
            moved = mesh if moved_by is None else Mesh(
                name=mesh.name, positions=mesh.positions + moved_by[frame], joints=mesh.joints,
                weights=mesh.weights, skin=mesh.skin)
            posed.append(skin_mesh(moved, mesh_skinning(model, pose, mesh)))
        frames.append(np.concatenate(posed))
        worlds.append(pose.world)
    return Clip(name=clip.name, kind="vertex", times=np.asarray(times, dtype=np.float64),
                world=np.stack(worlds), positions=np.stack(frames))
