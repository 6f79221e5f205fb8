"""How far a clip carries the model over the ground: a walk that travels (root motion) against one
that stays in place. The view follows a travelling clip so that it stays in sight."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from app.animation.clip_batches import FrameBatch, frame_batches, movable_bones, sampled_together
from app.bone_tree import hierarchy_levels, world_from_local
from app.model import Clip, Model
from app.orientation import facing
from app.pose import animated_bones, frame_worlds, keyed_local_frames, Pose, pose_from_world, rest_extent

#: A clip has root motion when its motion root strays over the ground from where it starts by more
#: than this share of the model's size (a walk in place sways by a few per cent).
ROOT_MOTION_SHARE = 0.25
_UP_INDEX = {"Y": 1, "Z": 2}


def pose_centre(pose: Pose) -> np.ndarray:
    """(3,) the centre of what a pose moves: its vertices for a vertex-animated pose, else the mean
    of its bones' origins (the origin for a pose with neither)."""
    if pose.positions is not None and len(pose.positions):
        return pose.positions.mean(axis=0, dtype=np.float64)
    if len(pose.world):
        return pose.world[:, :3, 3].mean(axis=0)
    return np.zeros(3)


def over_ground(offset: np.ndarray, up_axis: str) -> np.ndarray:
    """``offset`` without its part along the up axis."""
    flat = np.array(offset, dtype=np.float64)
    flat[..., _UP_INDEX[up_axis]] = 0.0
    return flat


def motion_root(model: Model, worlds: np.ndarray, bones: np.ndarray | None = None) -> int:
    """The bone whose path is the clip's root motion: the shallowest bone whose place changes over
    the frames (a glTF armature node above the hips stays put), else the first root (-1: no bones).
    ``worlds`` (F, S, 4, 4) are those of ``bones`` (S,), default every bone; the others stay put."""
    if not len(model.skeleton):
        return -1
    moving = np.zeros(len(model.skeleton), bool)
    moving[slice(None) if bones is None else bones] = \
        np.ptp(worlds[:, :, :3, 3], axis=0).max(axis=1, initial=0.0) > 1e-9 * max(rest_extent(model), 1e-9)
    for level in model.skeleton.levels:
        moved = level[moving[level]]
        if len(moved):
            return int(moved.min())
    return int(model.skeleton.levels[0].min())


def root_path(model: Model, clip: Clip) -> np.ndarray:
    """(F, 3) the root's place over the ground (the up component removed) at each stored frame."""
    root, root_worlds = root_frames(model, clip)
    if root < 0:
        return np.zeros((len(clip.frame_times), 3))
    return over_ground(root_worlds[:, :3, 3], model.up_axis)


def root_frames(model: Model, clip: Clip) -> tuple[int, np.ndarray | None]:
    """The clip's motion root and its world matrices (F, 4, 4) at the stored frames (None: no
    bones). A keyed clip is evaluated on the bones that can move and those above them only
    (``movable_bones``): a file's thousands of nodes no clip reaches cost nothing per frame."""
    if clip.world is not None or clip.kind != "keyed":
        worlds = frame_worlds(model, clip)
        root = motion_root(model, worlds)
        return root, worlds[:, root] if root >= 0 else None
    skeleton = model.skeleton
    bones = movable_bones(skeleton, animated_bones(clip))
    if len(bones) == len(skeleton):  # every bone: the skeleton's own (cached) hierarchy
        worlds = frame_worlds(model, clip)
        root = motion_root(model, worlds)
        return root, worlds[:, root] if root >= 0 else None
    local = keyed_local_frames(skeleton, clip, clip.frame_times, bones)
    row_of = np.full(len(skeleton), -1, dtype=np.intp)
    row_of[bones] = np.arange(len(bones))
    parents = np.where(skeleton.parents[bones] >= 0, row_of[skeleton.parents[bones]], -1)
    worlds = np.swapaxes(world_from_local(local, parents, hierarchy_levels(parents)), 0, 1)
    root = motion_root(model, worlds, bones)
    if root < 0:
        return root, None
    if row_of[root] < 0:
        return root, np.repeat(skeleton.rest_world[root][None], len(clip.frame_times), axis=0)
    return root, worlds[:, row_of[root]]


def has_root_motion(model: Model, clip: Clip) -> bool:
    """The clip carries the model away (``ROOT_MOTION_SHARE``): the view follows it while it plays."""
    path = root_path(model, clip)
    return float(np.linalg.norm(path - path[0], axis=1).max()) > ROOT_MOTION_SHARE * rest_extent(model)


def root_travel(model: Model, clip: Clip) -> tuple[float, float]:
    """The distance the root covers over the ground (the length of its path through the stored
    frames) and its mean speed over the clip's timeline (0 for a clip of one instant)."""
    path = root_path(model, clip)
    travel = float(np.linalg.norm(np.diff(path, axis=0), axis=1).sum())
    return travel, travel / clip.duration if clip.duration > 0 else 0.0


def root_travels(model: Model, clips: list[Clip]) -> list[tuple[float, float]]:
    """``root_travel`` of each of ``clips``, the same figures; keyed clips are worked out together
    (``clip_batches``), so thousands of small clips cost what their frames cost."""
    together = [index for index, clip in enumerate(clips) if sampled_together(clip)]
    travels = dict.fromkeys(range(len(clips)))
    if len(model.skeleton) and together:
        for batch in frame_batches(model.skeleton, [clips[index] for index in together]):
            for position, path in zip(batch.clips, _batch_root_paths(model, batch)):
                clip = clips[together[position]]
                travel = float(np.linalg.norm(np.diff(path, axis=0), axis=1).sum())
                travels[together[position]] = travel, travel / clip.duration if clip.duration > 0 else 0.0
    return [travels[index] or root_travel(model, clip) for index, clip in enumerate(clips)]


def _batch_root_paths(model: Model, batch: FrameBatch) -> list[np.ndarray]:
    """Each batched clip's ``root_path``: its motion root (``motion_root``: the shallowest bone that
    moves over the clip's frames, the lowest index first) found for every clip at once."""
    skeleton = model.skeleton
    places = batch.worlds[:, :, :3, 3]
    spread = (np.maximum.reduceat(places, batch.starts[:-1], axis=0)
              - np.minimum.reduceat(places, batch.starts[:-1], axis=0)).max(axis=2)
    moving = spread > 1e-9 * max(rest_extent(model), 1e-9)
    depth = np.zeros(len(skeleton), dtype=np.intp)
    for level_depth, level in enumerate(skeleton.levels):
        depth[level] = level_depth
    order = depth[batch.bones] * len(skeleton) + batch.bones
    first_moving = np.where(moving, order, np.iinfo(np.intp).max).argmin(axis=1)
    resting_root = int(skeleton.levels[0].min())
    paths = []
    for clip, row in enumerate(first_moving):
        frames = slice(batch.starts[clip], batch.starts[clip + 1])
        if moving[clip, row]:
            places_of_root = places[frames, row]
        elif resting_root in batch.bones:
            places_of_root = places[frames, np.searchsorted(batch.bones, resting_root)]
        else:
            rest_place = skeleton.rest_world[resting_root, :3, 3]
            places_of_root = np.repeat(rest_place[None], frames.stop - frames.start, axis=0)
        paths.append(over_ground(places_of_root, model.up_axis))
    return paths


def travel_taken_off(model: Model, worlds: np.ndarray, root: int,
                     start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``worlds`` (..., B, 4, 4) with the travel of bone ``root`` over the ground from ``start``
    taken off every bone but those above it (which stay put: ``motion_root`` is the shallowest bone
    that moves), heights and turns kept, and that travel (..., 3): what View › In Place,
    ``in_place`` and ``--in-place`` all do."""
    drift = over_ground(worlds[..., root, :3, 3] - start, model.up_axis)
    placed = np.array(worlds, dtype=np.float64)
    moved = np.ones(len(model.skeleton), bool)
    moved[model.skeleton.ancestors(root)] = False
    placed[..., :3, 3] -= drift[..., None, :] * moved[:, None]
    return placed, drift


def in_place(model: Model, worlds: np.ndarray) -> np.ndarray:
    """(F, B, 4, 4) ``worlds`` with the root's travel over the ground since the first frame taken
    off every bone (its height and turns kept): a travelling clip previewed on the spot."""
    root = motion_root(model, worlds)
    if root < 0:
        return worlds
    return travel_taken_off(model, worlds, root, worlds[0, root, :3, 3])[0]


def in_place_clip(model: Model, clip: Clip) -> Clip:
    """``clip`` as View › In Place shows it, for export: its bone matrices at its stored frames
    (``frame_times``) with the motion root's travel over the ground since the first frame taken off,
    as a 'matrices' clip of the same name, its morph weight channels and alpha keys kept. A clip whose
    root does not travel over the ground (vertex clips among them) comes back as it is, keys and all."""
    if not clip.skeletal:
        return clip
    worlds = frame_worlds(model, clip)
    root = motion_root(model, worlds)
    if root < 0:
        return clip
    placed, drift = travel_taken_off(model, worlds, root, worlds[0, root, :3, 3])
    if not drift.any():
        return clip
    return Clip(clip.name, "matrices", times=clip.frame_times, world=placed, events=list(clip.events),
                note=clip.note, source=clip.source, rate=clip.rate,
                weight_channels=list(clip.weight_channels), mesh_alpha=dict(clip.mesh_alpha))


def in_place_model(model: Model) -> Model:
    """``model`` with every clip in place (``in_place_clip``)."""
    return replace(model, clips=[in_place_clip(model, clip) for clip in model.clips])


def start_of_travel(model: Model, clip: Clip) -> tuple[int, np.ndarray]:
    """The clip's motion root and where it starts (its place at the clip's first stored frame)."""
    root, root_worlds = root_frames(model, clip)
    return root, root_worlds[0, :3, 3] if root >= 0 else np.zeros(3)


def pose_in_place(model: Model, pose: Pose, root: int, start: np.ndarray) -> Pose:
    """``pose`` with the root's travel over the ground from ``start`` taken off every bone (and off
    a vertex-animated pose's vertices): the in-place preview of a clip that travels."""
    if root < 0:
        return pose
    world, drift = travel_taken_off(model, pose.world, root, start)
    positions = None if pose.positions is None else (pose.positions - drift).astype(np.float32)
    return pose_from_world(model, world, positions)


#: The root path's colour (display sRGB, straight alpha) and a facing tick's length (share of the
#: model's size).
PATH_COLOR = (1.0, 0.78, 0.25, 0.95)
TICK_SHARE = 0.08


def root_path_lines(model: Model, clip: Clip) -> tuple[np.ndarray, np.ndarray]:
    """The root's path on the ground as (K, 2, 3) segments through the stored frames, and (S, 2, 3)
    ticks, one per whole second from the clip's start, each from the root's place along the way it
    faces then (the model's front turned as the root has turned from rest)."""
    worlds = frame_worlds(model, clip)
    root = motion_root(model, worlds)
    if root < 0:
        return np.zeros((0, 2, 3)), np.zeros((0, 2, 3))
    path = over_ground(worlds[:, root, :3, 3], model.up_axis)
    segments = np.stack([path[:-1], path[1:]], axis=1)
    times = clip.frame_times
    seconds = np.arange(np.ceil(times[0]), times[-1] + 1e-9)
    places = np.stack([np.interp(seconds, times, path[:, axis]) for axis in range(3)], axis=1)
    frames = np.clip(np.searchsorted(times, seconds), 0, len(times) - 1)
    sign, axis = facing(model.up_axis, model.forward)
    front = np.zeros(3)
    front["XYZ".index(axis)] = 1.0 if sign == "+" else -1.0
    turns = worlds[frames, root, :3, :3] @ np.linalg.pinv(model.skeleton.rest_world[root, :3, :3])
    directions = over_ground(turns @ front, model.up_axis)
    lengths = np.linalg.norm(directions, axis=1, keepdims=True)
    directions = np.divide(directions, lengths, out=np.zeros_like(directions), where=lengths > 0)
    ticks = np.stack([places, places + TICK_SHARE * rest_extent(model) * directions], axis=1)
    return segments, ticks
