"""A hierarchy and a rest pose for a skeleton of loose bones, inferred so that clips can be carried to
and from it (app.animation.retarget) and the automatic ragdoll has a tree to build on
(app.physics.autosetup): one tree per model, whichever asks. C3DE's files store every bone as a root
whose bind frame is the identity: nothing says which bone hangs from which, or where their joints are.

- Joints: for two bones, the point their skinning matrices move alike over every frame of the
  model's clips, the least-squares solution of ``S_a(f) x = S_b(f) x``. Along directions the clips do
  not pin down (a knee that only bends leaves its axis free, a joint that never turns leaves all
  three) the point is where the two skins meet: the middle of their vertices nearest each other.
- Neighbours: a pair of bones costs the gap between their skins (0 where vertices are weighted to
  both) plus how far apart the two matrices carry that point (root mean square over the frames);
  the bones are joined by the tree of least total cost, found among each bone's nearest bones.
- Root: the tree's centre (the bone fewest joints from the farthest bone; of two, the one with more
  skin). A bone with no skin hangs from the root.
- Rest pose: each bone's bind frame keeps its rotation and moves to its joint with its parent (the
  root to its head, a bone with no skin to the root's); clips are re-expressed on these frames, so
  every clip skins the meshes exactly as before.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from app.bone_tails import derive_tails
from app.model import Clip, Model, Skeleton
from app.pose import frame_worlds, rest_extent

#: A direction of a joint is pinned by the clips where the two bones turn apart at least this much
#: about it (radians, root mean square over the frames); the meeting of the skins gives the rest.
MIN_TURN = 0.02
#: Where two skins meet: the vertices of each within this share of the model's size (beyond the gap
#: between the skins) of the other's.
CONTACT_SHARE = 0.02
#: At most this many vertices of each bone (evenly spread through the file's order) are compared.
SAMPLED_VERTICES = 160
#: Each bone is tried against this many bones whose skins' bounding boxes lie nearest its own.
NEAREST_BONES = 8


def is_loose(skeleton: Skeleton) -> bool:
    """Several bones, every one a root, at rest in its bind frame (C3DE)."""
    return len(skeleton) > 1 and bool((skeleton.parents < 0).all()) and skeleton.rest_is_bind


def with_inferred_hierarchy(model: Model) -> Model:
    """``model`` on a skeleton with an inferred hierarchy and rest pose when its bones are loose
    (its skeletal clips re-expressed on the new bind frames, so they skin the meshes as before);
    else ``model`` itself."""
    if not is_loose(model.skeleton):
        return model
    skeleton = inferred_skeleton(model)
    reframe = reframing(model.skeleton, skeleton)
    clips = [Clip(clip.name, "matrices", times=clip.frame_times, world=frame_worlds(model, clip) @ reframe,
                  events=clip.events, source=clip.source) if clip.skeletal else clip
             for clip in model.clips]
    return dataclasses.replace(model, skeleton=skeleton, clips=clips)


def reframing(old: Skeleton, new: Skeleton) -> np.ndarray:
    """(B, 4, 4) ``inv(B_old) @ B_new``: a world matrix on ``old``'s bind frames times this is the
    world matrix on ``new``'s that skins alike."""
    return old.bind_inverse @ new.bind_world


def inferred_skeleton(model: Model) -> Skeleton:
    """The model's bones, names and bind rotations kept, joined into a tree with bind frames at
    their joints (see the module's docstring)."""
    skeleton = model.skeleton
    count = len(skeleton)
    samples, skin = _skin_samples(model)
    skinning = _skinning_frames(model)
    pairs, costs, pivots = _joint_candidates(samples, skinning, rest_extent(model))
    parents = _tree(count, pairs, costs, skin)
    joints = {(int(a), int(b)): pivot for (a, b), pivot in zip(pairs, pivots)}
    root = int(np.flatnonzero(parents < 0)[0])
    heads = np.repeat(skeleton.heads[root][None], count, axis=0)
    for bone in np.flatnonzero(parents >= 0):
        pair = (min(bone, parents[bone]), max(bone, parents[bone]))
        if pair in joints:
            heads[bone] = joints[pair]
    bind = skeleton.bind_world.copy()
    bind[:, :3, 3] = heads
    heads, tails = derive_tails(bind, parents, model.meshes, heads=heads)
    return Skeleton(names=list(skeleton.names), parents=parents, bind_world=bind, heads=heads, tails=tails,
                    derived_tails=np.ones(count, bool), extras=skeleton.extras)


def _skin_samples(model: Model) -> tuple[list[np.ndarray], np.ndarray]:
    """Per bone, (n, 3) bind-space positions of up to SAMPLED_VERTICES of the vertices it moves
    (meshes bound at the skeleton's bind frames), and (B,) how many vertices it moves."""
    count = len(model.skeleton)
    positions, bones = [], []
    for mesh in model.meshes:
        if mesh.skin is not None:
            continue
        vertex, column = np.nonzero(mesh.weights > 0)
        positions.append(mesh.positions[vertex].astype(np.float64))
        bones.append(mesh.joints[vertex, column])
    if not positions:
        return [np.zeros((0, 3))] * count, np.zeros(count)
    positions, bones = np.concatenate(positions), np.concatenate(bones)
    order = np.argsort(bones, kind="stable")
    starts = np.searchsorted(bones[order], np.arange(count + 1))
    samples = []
    for bone in range(count):
        own = order[starts[bone]:starts[bone + 1]]
        picked = np.unique(np.linspace(0, len(own) - 1, min(len(own), SAMPLED_VERTICES)).astype(int))
        samples.append(positions[own[picked]] if len(own) else np.zeros((0, 3)))
    return samples, np.diff(starts).astype(np.float64)


def _skinning_frames(model: Model) -> np.ndarray:
    """(F, B, 4, 4) the skinning matrices ``W @ inv(B)`` at every stored frame of every skeletal clip."""
    frames = [frame_worlds(model, clip) for clip in model.clips if clip.skeletal]
    if not frames:
        return np.zeros((0, len(model.skeleton), 4, 4))
    return np.concatenate(frames) @ model.skeleton.bind_inverse


def _joint_candidates(samples: list[np.ndarray], skinning: np.ndarray,
                      size: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs of bones that may be joined ((P, 2), lower index first), what each costs (P,) and
    its joint (P, 3): each skinned bone with the NEAREST_BONES bones whose skins' boxes lie nearest."""
    skinned = np.array([len(points) > 0 for points in samples])
    if skinned.sum() < 2:
        return np.zeros((0, 2), int), np.zeros(0), np.zeros((0, 3))
    lows = np.array([points.min(axis=0) if len(points) else np.full(3, np.inf) for points in samples])
    highs = np.array([points.max(axis=0) if len(points) else np.full(3, -np.inf) for points in samples])
    apart = np.maximum(lows[:, None] - highs[None], lows[None] - highs[:, None])
    box_gaps = np.linalg.norm(np.maximum(0.0, apart), axis=2)
    box_gaps[~skinned] = np.inf
    box_gaps[:, ~skinned] = np.inf
    np.fill_diagonal(box_gaps, np.inf)
    nearest = np.argsort(box_gaps, axis=1, kind="stable")[:, :NEAREST_BONES]
    candidates = {(min(a, int(b)), max(a, int(b))) for a in np.flatnonzero(skinned)
                  for b in nearest[a] if np.isfinite(box_gaps[a, b])}
    pairs = np.array(sorted(candidates), dtype=int).reshape(-1, 2)
    costs, pivots = np.zeros(len(pairs)), np.zeros((len(pairs), 3))
    for index, (a, b) in enumerate(pairs):
        gap, meeting = _where_skins_meet(samples[a], samples[b], CONTACT_SHARE * size)
        pivots[index], strays = _common_point(skinning[:, a], skinning[:, b], meeting)
        costs[index] = gap + strays
    return pairs, costs, pivots


def _where_skins_meet(first: np.ndarray, second: np.ndarray, band: float) -> tuple[float, np.ndarray]:
    """The gap between two sets of points and (3,) the middle of the points of each within
    ``band`` beyond that gap of the other set."""
    distances = np.linalg.norm(first[:, None] - second[None], axis=2)
    gap = float(distances.min())
    near = np.concatenate([first[distances.min(axis=1) <= gap + band],
                           second[distances.min(axis=0) <= gap + band]])
    return gap, near.mean(axis=0)


def _common_point(first: np.ndarray, second: np.ndarray, guess: np.ndarray) -> tuple[np.ndarray, float]:
    """(3,) the point that the (F, 4, 4) matrices ``first`` and ``second`` move alike, least squares,
    ``guess`` along the directions the frames leave free, and how far apart they carry it (root mean
    square over the frames)."""
    frames = len(first)
    if not frames:
        return guess, 0.0
    turns = (first[:, :3, :3] - second[:, :3, :3]).reshape(-1, 3)
    shifts = (second[:, :3, 3] - first[:, :3, 3]).reshape(-1)
    left, singular, right = np.linalg.svd(turns, full_matrices=False)
    pinned = singular > MIN_TURN * np.sqrt(frames)
    rest = shifts - turns @ guess
    point = guess + right[pinned].T @ ((left[:, pinned].T @ rest) / singular[pinned])
    apart = (turns @ point - shifts).reshape(frames, 3)
    return point, float(np.sqrt((apart ** 2).sum(axis=1).mean()))


def _tree(count: int, pairs: np.ndarray, costs: np.ndarray, skin: np.ndarray) -> np.ndarray:
    """(B,) parents: the least-cost tree through the pairs (Kruskal), rooted at its centre; bones
    outside the tree with the most skin (``skin``: vertices per bone) hang from that root."""
    group = np.arange(count)

    def find(bone: int) -> int:
        while group[bone] != bone:
            group[bone] = group[group[bone]]
            bone = group[bone]
        return bone

    neighbours: list[list[int]] = [[] for _ in range(count)]
    for index in np.argsort(costs, kind="stable"):
        a, b = (int(bone) for bone in pairs[index])
        if find(a) != find(b):
            group[find(a)] = find(b)
            neighbours[a].append(b)
            neighbours[b].append(a)
    roots = np.array([find(bone) for bone in range(count)])
    weights = np.bincount(roots, weights=skin + 1e-9, minlength=count)
    largest = np.flatnonzero(roots == int(np.argmax(weights)))
    root = _centre(int(largest[0]), neighbours, skin)
    parents = np.full(count, root, np.int32)
    parents[root] = -1
    order = [root]
    for bone in order:
        for child in neighbours[bone]:
            if child != parents[bone]:
                parents[child] = bone
                order.append(child)
    return parents


def _centre(start: int, neighbours: list[list[int]], skin: np.ndarray) -> int:
    """The centre of the tree holding ``start``: the middle of its longest path (of two, the bone
    with more skin)."""
    far, _ = _farthest(start, neighbours)
    end, path = _farthest(far, neighbours)
    middle = {path[(len(path) - 1) // 2], path[len(path) // 2]}
    return max(sorted(middle), key=lambda bone: skin[bone])


def _farthest(start: int, neighbours: list[list[int]]) -> tuple[int, list[int]]:
    """The bone farthest from ``start`` in joints, and the path from ``start`` to it."""
    came_from = {start: -1}
    order = [start]
    for bone in order:
        for other in neighbours[bone]:
            if other not in came_from:
                came_from[other] = bone
                order.append(other)
    path = [order[-1]]
    while came_from[path[-1]] >= 0:
        path.append(came_from[path[-1]])
    return order[-1], path[::-1]
