"""Clips of one skeleton played on another: a bone map from source to target (suggested from names,
or given), and each clip carried across relative to both skeletons' rest poses.

A mapped target bone turns, in the world, as its source bone turns from its own rest (so limbs that
rest alike move alike whatever their bones' local axes); every target bone keeps its own rest length,
and unmapped bones keep their rest pose under their parents. The root's travel is scaled by the ratio
of the two skeletons' hip heights. A skeleton of loose bones (C3DE's) is carried through the hierarchy
and rest pose inferred for it (app.loose_skeleton); its numbered bones pair by index when both
skeletons' inferred hierarchies agree, else by where they rest (app.animation.placed_map).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from app import maths
from app.mesh_keys import carried_mesh_keys, same_meshes
from app.animation.placed_map import placed_map
from app.animation.root_motion import motion_root
from app.bone_names import exact_key, name_key
from app.loose_skeleton import inferred_skeleton, is_loose, reframing, with_inferred_hierarchy
from app.model import Clip, Model, Skeleton
from app.orientation import facing
from app.pose import floor_height, frame_worlds, posed_bounds, rest_pose

#: The mapped target bones resting within this share of the skeleton's height above its lowest mapped
#: joint are its feet, kept on the ground where the source's are.
FOOT_SHARE = 0.1
#: Each up axis as a vector.
UP_VECTORS = {"Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}


def suggest_map(source: Skeleton, target: Skeleton) -> dict[str, str]:
    """Source bone → target bone: identical names (any case, ``exact_key``) first, even those
    ``name_key`` finds nothing in (NWN's ``rootdummy``), then the names that agree by ``name_key``
    (first come, one source per target); when some names agree, the roots are paired if their names
    do not, then by the hierarchy: a paired bone's one unpaired child goes to its partner's one
    unpaired child."""
    mapping: dict[str, str] = {}
    taken: set[str] = set()
    for key in (exact_key, name_key):
        targets: dict[str, str] = {}
        for name in target.names:
            if name not in taken:
                targets.setdefault(key(name), name)
        targets.pop("", None)
        for name in source.names:
            found = targets.get(key(name))
            if name not in mapping and found is not None and found not in taken:
                mapping[name] = found
                taken.add(found)
    if not mapping:
        return mapping
    source_root, target_root = _first_root(source), _first_root(target)
    if source_root not in mapping and target_root not in taken:
        mapping[source_root] = target_root
    for parent in list(mapping):
        left = _unpaired_children(source, parent, set(mapping))
        right = _unpaired_children(target, mapping[parent], set(mapping.values()))
        if len(left) == 1 and len(right) == 1:
            mapping[left[0]] = right[0]
    return mapping


def suggested_map(source: Model, target: Model) -> dict[str, str]:
    """``suggest_map`` of the two skeletons; when no names agree and both are of loose numbered bones
    (C3DE), bone by bone in file order where their inferred hierarchies are the same, else by where
    the bones rest (``placed_map.placed_map``: it may pair few bones, or none)."""
    mapping = suggest_map(source.skeleton, target.skeleton)
    if mapping or not numbered_loose(source.skeleton) or not numbered_loose(target.skeleton):
        return mapping
    source_rig, target_rig = inferred_skeleton(source), inferred_skeleton(target)
    if len(source_rig) == len(target_rig) and np.array_equal(source_rig.parents, target_rig.parents):
        return dict(zip(source.skeleton.names, target.skeleton.names))
    return placed_map(source, source_rig, target, target_rig)


def numbered_loose(skeleton: Skeleton) -> bool:
    """Loose bones (every one a root) whose names only number them, as C3DE's."""
    return is_loose(skeleton) and not any(name_key(name) for name in skeleton.names)


def hierarchy_difference(source: Model, target: Model) -> str:
    """What tells the hierarchies inferred for two skeletons apart ('' when they agree bone for bone):
    their bone counts, else the first bone whose parent differs."""
    if len(source.skeleton) != len(target.skeleton):
        return f"{len(source.skeleton)} bones there, {len(target.skeleton)} here"
    theirs, ours = (inferred_skeleton(model).parents for model in (source, target))
    differ = np.flatnonzero(theirs != ours)
    if not differ.size:
        return ""
    bone = int(differ[0])

    def parent(parents: np.ndarray) -> str:
        return "is the root" if parents[bone] < 0 else f"hangs from {target.skeleton.names[parents[bone]]!r}"
    return f"{target.skeleton.names[bone]!r} {parent(theirs)} there and {parent(ours)} here"


def _unpaired_children(skeleton: Skeleton, name: str, paired: set[str]) -> list[str]:
    children = np.flatnonzero(skeleton.parents == skeleton.names.index(name))
    return [skeleton.names[child] for child in children if skeleton.names[child] not in paired]


def _first_root(skeleton: Skeleton) -> str:
    return skeleton.names[int(np.flatnonzero(skeleton.parents < 0)[0])]


def check_map(mapping: dict[str, str], source: Skeleton, target: Skeleton) -> np.ndarray:
    """(T,) the source bone each target bone follows (-1: none). ValueError naming the bone for a
    bone that neither skeleton has, two source bones on one target bone, or a map that turns the
    hierarchy over (a bone mapped above the bone its source parent is mapped to: a cycle). Rigs that
    differ otherwise (NWN's torso beside the pelvis, not under it) are fine."""
    follows = np.full(len(target.names), -1)
    for source_name, target_name in mapping.items():
        if source_name not in source.names:
            raise ValueError(f"the map names source bone {source_name!r}, which the source skeleton lacks")
        if target_name not in target.names:
            raise ValueError(f"the map names target bone {target_name!r}, which the target skeleton lacks")
        bone = target.names.index(target_name)
        if follows[bone] >= 0:
            raise ValueError(f"target bone {target_name!r} has two source bones: "
                             f"{source.names[follows[bone]]!r} and {source_name!r}")
        follows[bone] = source.names.index(source_name)
    if not (follows >= 0).any():
        raise ValueError("the map pairs no bones")
    mapped_by_source = {int(s): t for t, s in enumerate(follows) if s >= 0}
    nearest = source.tree.nearest_marked_ancestor(np.isin(np.arange(len(source)), list(mapped_by_source)))
    for source_bone, target_bone in mapped_by_source.items():
        parent = int(nearest[source_bone])
        if parent >= 0 and target.tree.is_above(target_bone, mapped_by_source[parent]):
            raise ValueError(f"the map puts {source.names[source_bone]!r} on {target.names[target_bone]!r}, "
                             f"above {target.names[mapped_by_source[parent]]!r} where its parent "
                             f"{source.names[parent]!r} goes (a cycle through the hierarchy)")
    return follows


def facing_turn(source: Model, target: Model) -> np.ndarray:
    """(3, 3) the rotation taking the source's up axis and facing onto the target's (identity when
    alike): a Z-up character facing +X and a Y-up one facing +Z walk the same way."""
    frames = []
    for model in (source, target):
        up = np.asarray(UP_VECTORS[model.up_axis], dtype=np.float64)
        direction = facing(model.up_axis, model.forward)
        forward = np.eye(3)["XYZ".index(direction[1])] * (1.0 if direction[0] == "+" else -1.0)
        frames.append(np.stack([np.cross(up, forward), up, forward], axis=1))
    return frames[1] @ frames[0].T


def hip_height(model: Model, bone: int) -> float:
    """How far ``bone`` rests above the skeleton's lowest joint, along the model's up axis."""
    up = np.asarray(UP_VECTORS[model.up_axis], dtype=np.float64)
    heights = model.skeleton.rest_world[:, :3, 3] @ up
    return float(heights[bone] - heights.min())


def retarget_clip(source: Model, clip: Clip, target: Model, follows: np.ndarray) -> Clip:
    """``clip`` of ``source`` as a clip of world matrices on ``target`` (``follows`` from
    ``check_map``), at the clip's own stored frames. What it keys on meshes (morph weights, alpha)
    follows it to the target's meshes of the same names and morph targets (``mesh_keys``)."""
    if not clip.skeletal:
        raise ValueError(f"clip {clip.name!r} moves vertices, not bones; it cannot change skeletons")
    return _carried(source, clip, target, _Rigs.of(source, target), follows)


def retarget_clips(source: Model, target: Model, follows: np.ndarray) -> list[Clip]:
    """Every skeletal clip of ``source`` carried onto ``target`` (``retarget_clip``), what the clips
    share (each skeleton's inferred hierarchy where its bones are loose, how far each stands above its
    floor) worked out once."""
    rigs = _Rigs.of(source, target)
    return [_carried(source, clip, target, rigs, follows) for clip in source.clips if clip.skeletal]


class _Rigs(NamedTuple):
    """The two models as clips are carried between them: on their inferred hierarchies where their
    bones are loose (else the models themselves), how far each rest pose stands above its floor, and
    which of their meshes are the same (``mesh_keys.same_meshes``)."""

    source: Model
    target: Model
    source_standing: float
    target_standing: float
    mesh_pairs: dict[int, int]

    @classmethod
    def of(cls, source: Model, target: Model) -> _Rigs:
        source_rig, target_rig = with_inferred_hierarchy(source), with_inferred_hierarchy(target)
        return cls(source_rig, target_rig, standing_height(source_rig), standing_height(target_rig),
                   same_meshes(source, target))


def _carried(source: Model, clip: Clip, target: Model, rigs: _Rigs, follows: np.ndarray) -> Clip:
    """``clip`` carried from ``source`` to ``target`` through their rigs (``_Rigs``)."""
    source_rig, target_rig = rigs.source, rigs.target
    worlds = frame_worlds(source, clip)
    if source_rig is not source:
        worlds = worlds @ reframing(source.skeleton, source_rig.skeleton)
    turn = facing_turn(source, target)
    source_rest = source_rig.skeleton.rest_world
    # each source bone's turn from rest, in the world, seen in the target's axes
    change = (maths.rotation_part(worlds[..., :3, :3])
              @ np.swapaxes(maths.rotation_part(source_rest[:, :3, :3]), -1, -2))
    change = turn @ change @ turn.T
    mover = motion_root(source_rig, worlds)
    target_world = _posed_target(target_rig, follows, change)
    scale = _travel_scale(source_rig, target_rig, follows, mover)
    _carry_travel(source_rig, target_rig, follows, worlds, mover, turn, scale, target_world)
    _keep_ground(rigs, follows, worlds, scale, target_world)
    if target_rig is not target:
        target_world = target_world @ reframing(target_rig.skeleton, target.skeleton)
    return Clip(clip.name, "matrices", times=clip.frame_times, world=target_world, events=clip.events,
                source=clip.source, **carried_mesh_keys(source, target, clip, rigs.mesh_pairs))


def _posed_target(target: Model, follows: np.ndarray, change: np.ndarray) -> np.ndarray:
    """(F, T, 4, 4): level by level, each target bone placed at its rest offset under its posed
    parent, turned as its source bone turns (unmapped bones: rest under their parents)."""
    skeleton = target.skeleton
    rest_local, rest_world = skeleton.rest_local, skeleton.rest_world
    frames = change.shape[0]
    world = np.zeros((frames, len(skeleton.names), 4, 4))
    for level in skeleton.levels:
        parents = skeleton.parents[level]
        placed = np.where((parents >= 0)[:, None, None],
                          world[:, np.maximum(parents, 0)] @ rest_local[level], rest_local[level])
        mapped = follows[level] >= 0
        turned = change[:, follows[level][mapped]] @ rest_world[level[mapped], :3, :3]
        placed[:, mapped, :3, :3] = turned
        world[:, level] = placed
    return world


def _carry_travel(source: Model, target: Model, follows: np.ndarray, worlds: np.ndarray, mover: int,
                  turn: np.ndarray, scale: float, target_world: np.ndarray) -> None:
    """Move each mapped target root, and the target bone that follows the source's motion root, by
    its source bone's travel from rest (everything under it along), scaled by the ratio of the two
    skeletons' hip heights. Loose bones left without an inferred hierarchy (a skeleton of roots whose
    rest is not its bind pose) are placed bone by bone this way."""
    roots = np.flatnonzero((target.skeleton.parents < 0) & (follows >= 0))
    followers = np.flatnonzero(follows == mover) if mover >= 0 else np.zeros(0, int)
    for bone in [*roots, *followers[:1]]:
        source_bone = follows[bone]
        travel = (worlds[:, source_bone, :3, 3] - source.skeleton.rest_world[source_bone, :3, 3]) @ turn.T
        wanted = target.skeleton.rest_world[bone, :3, 3] + scale * travel
        shift = wanted - target_world[:, bone, :3, 3]
        target_world[..., :3, 3] += shift[:, None, :] * target.skeleton.subtree_mask([bone])[None, :, None]


def _keep_ground(rigs: _Rigs, follows: np.ndarray, worlds: np.ndarray, scale: float,
                 target_world: np.ndarray) -> None:
    """Lift or lower the whole target, frame by frame, so that of its feet (the mapped bones resting
    lowest: ``FOOT_SHARE``) the one whose source bone is lowest over its rest height stands as far
    over its own rest height, times ``scale``: a foot the source plants stays on the target's ground
    whatever the legs' proportions. Heights count from each model's floor (``standing_height``)."""
    source, target = rigs.source, rigs.target
    up_source, up_target = (np.asarray(UP_VECTORS[model.up_axis], dtype=np.float64)
                            for model in (source, target))
    rest_heights = target.skeleton.rest_world[:, :3, 3] @ up_target
    mapped = np.flatnonzero(follows >= 0)
    lowest = rest_heights[mapped].min()
    feet = mapped[rest_heights[mapped] <= lowest + FOOT_SHARE * np.ptp(rest_heights)]
    source_rest = source.skeleton.rest_world[follows[feet], :3, 3] @ up_source - rigs.source_standing
    source_clearance = worlds[:, follows[feet]][..., :3, 3] @ up_source - source_rest
    target_clearance = (target_world[:, feet][..., :3, 3] @ up_target
                        - (rest_heights[feet] - rigs.target_standing))
    planted = np.argmin(source_clearance, axis=1)
    frames = np.arange(len(planted))
    lift = scale * source_clearance[frames, planted] - target_clearance[frames, planted]
    target_world[..., :3, 3] += lift[:, None, None] * up_target


def standing_height(model: Model) -> float:
    """How far the model's rest pose stands above its floor (``floor_height``): an NWN model rests lifted
    above the floor its clips walk on (Aribeth's soles 0.13 above it, her walk's on it), and the feet a
    clip plants are on that floor, not at their rest height. A skeleton alone stands on its rest pose:
    its lowest joint, an ankle, is above the floor by more than the sole's lift."""
    if not any(mesh.vertex_count for mesh in model.meshes):
        return 0.0
    up = np.asarray(UP_VECTORS[model.up_axis], dtype=np.float64)
    low, high = posed_bounds(model, rest_pose(model))
    return float(low @ up) - floor_height(low, high, up)


def _travel_scale(source: Model, target: Model, follows: np.ndarray, mover: int) -> float:
    """The target's hip height over the source's: the heights of the source's motion root and the
    bone that follows it, else of the two skeletons' rest joints."""
    followers = np.flatnonzero(follows == mover) if mover >= 0 else []
    if len(followers) and hip_height(source, mover) > 0:
        return hip_height(target, int(followers[0])) / hip_height(source, mover)
    spans = [float(np.ptp(model.skeleton.rest_world[:, :3, 3] @ np.asarray(UP_VECTORS[model.up_axis])))
             for model in (source, target)]
    return spans[1] / spans[0] if spans[0] > 0 else 1.0
