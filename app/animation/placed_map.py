"""A bone map suggested from where the bones rest, for skeletons whose names say nothing (C3DE's
numbered loose bones) and whose inferred hierarchies differ, so that index pairing does not apply.

Each skeleton's inferred rest joints, tails and skin centres are seen in its own (lateral, up,
forward) axes (so the facing and up turn between the two is taken out), standing on its lowest point,
centred across and along (the middle of its extent), and divided by its height. Two bones may pair
where these three points lie, on average, within ``PAIR_DISTANCE`` of each other, both move some
skin, and both skins lie on the same side (left, right, or the middle). Pairs are taken closest
first, each bone once, so that each is the nearest of its two bones among those left. A pair is left
out where it breaks the hierarchies: with both inferred trees rooted at the closest pair (an inferred
root is only a tree's centre: characterMale's chest, the ninja's pelvis), each paired bone's nearest
paired ancestor must go to an ancestor of its partner (stricter than ``retarget.check_map``, which
only refuses cycles). Then, down the paired bones, the unpaired children of a pair go to its
partner's closest first where the two have as many: limbs that rest apart (an A-pose against arms
down) keep their hands and fingers.
"""

from __future__ import annotations

import numpy as np

from app.bone_tree import BoneTree
from app.model import Mesh, Model, Skeleton
from app.orientation import facing

#: Two bones pair only where their joints, tails and skin centres lie on average at most this share
#: of the height apart.
PAIR_DISTANCE = 0.1
#: A bone whose skin centre lies within this share of the height of the middle plane is on neither
#: side.
MIDDLE_SHARE = 0.02


def placed_map(source: Model, source_rig: Skeleton, target: Model, target_rig: Skeleton) -> dict[str, str]:
    """Source bone → target bone by where they rest (the module's docstring); ``*_rig``: the models'
    skeletons with their inferred hierarchies."""
    costs = placement_costs(source, source_rig, target, target_rig)
    order = np.argsort(costs, axis=None, kind="stable")
    candidates = np.stack(np.unravel_index(order[costs.flat[order] <= PAIR_DISTANCE], costs.shape), axis=1)
    if not len(candidates):
        return {}
    first, partner = (int(bone) for bone in candidates[0])
    hierarchies = _Hierarchies(rooted_at(source_rig.parents, first), rooted_at(target_rig.parents, partner))
    pairs: dict[int, int] = {}
    for bone, other in candidates:
        hierarchies.add_if_consistent(pairs, int(bone), int(other))
    while _pair_children(pairs, costs, hierarchies):
        pass
    return {source_rig.names[bone]: target_rig.names[other] for bone, other in pairs.items()}


def _pair_children(pairs: dict[int, int], costs: np.ndarray, hierarchies: _Hierarchies) -> bool:
    """Under each pair with as many unpaired children on both sides, pair those children closest first
    (``costs``: (S, T), infinite where they may not pair); whether any pair was added."""
    added = False
    for bone, other in list(pairs.items()):
        children = [child for child in hierarchies.children(bone, source=True) if child not in pairs]
        taken = set(pairs.values())
        partners = [child for child in hierarchies.children(other, source=False) if child not in taken]
        if not children or len(children) != len(partners):
            continue
        among = costs[np.ix_(children, partners)]
        for flat in np.argsort(among, axis=None, kind="stable"):
            child, partner = np.unravel_index(flat, among.shape)
            if np.isfinite(among[child, partner]):
                added |= hierarchies.add_if_consistent(pairs, children[child], partners[partner])
    return added


def placement_costs(source: Model, source_rig: Skeleton, target: Model, target_rig: Skeleton) -> np.ndarray:
    """(S, T) how far apart each source bone rests from each target bone in the common frame (the
    mean distance of their joints, tails and skin centres, in shares of height); infinite where they
    may not pair (other sides, or a bone without skin)."""
    source_places, target_places = (
        common_frame(np.stack([rig.heads, rig.tails, skin_centres(model, rig)]), model)
        for model, rig in ((source, source_rig), (target, target_rig)))
    costs = np.linalg.norm(source_places[:, :, None] - target_places[:, None], axis=3).mean(axis=0)
    costs[side(source_places[2])[:, None] != side(target_places[2])[None]] = np.inf
    costs[_skin_weights(source, len(source_rig)) <= 0] = np.inf
    costs[:, _skin_weights(target, len(target_rig)) <= 0] = np.inf
    return costs


def common_frame(points: np.ndarray, model: Model) -> np.ndarray:
    """(…, 3) points in ``model``'s axes as (lateral: its left, up, forward) in shares of their height,
    standing on their lowest point, centred across and along."""
    up = np.zeros(3)
    up["XYZ".index(model.up_axis)] = 1.0
    direction = facing(model.up_axis, model.forward)
    forward = np.eye(3)["XYZ".index(direction[1])] * (1.0 if direction[0] == "+" else -1.0)
    seen = points @ np.stack([np.cross(up, forward), up, forward], axis=1)
    flat = seen.reshape(-1, 3)
    low, high = flat.min(axis=0), flat.max(axis=0)
    origin = np.array([(low[0] + high[0]) / 2, low[1], (low[2] + high[2]) / 2])
    height = high[1] - low[1]
    return (seen - origin) / (height if height > 0 else 1.0)


def side(centres: np.ndarray) -> np.ndarray:
    """(B,) 1 (left), -1 (right) or 0 (the middle) for each bone's skin centre (B, 3) in the common
    frame (a branching bone's tail, along one of its children, may lie off its side)."""
    return np.where(np.abs(centres[:, 0]) <= MIDDLE_SHARE, 0, np.sign(centres[:, 0]))


def skin_centres(model: Model, rig: Skeleton) -> np.ndarray:
    """(B, 3) the weighted middle of the vertices each bone moves (meshes bound at the skeleton's bind
    frames); a bone without skin: its inferred joint."""
    totals, weights = np.zeros((len(rig), 3)), _skin_weights(model, len(rig))
    for mesh in _bound_meshes(model):
        vertex, column = np.nonzero(mesh.weights > 0)
        np.add.at(totals, mesh.joints[vertex, column],
                  mesh.weights[vertex, column, None] * mesh.positions[vertex])
    centres = rig.heads.copy()
    has_skin = weights > 0
    centres[has_skin] = totals[has_skin] / weights[has_skin, None]
    return centres


def _skin_weights(model: Model, count: int) -> np.ndarray:
    """(B,) each bone's weights summed over the vertices of the meshes bound at the bind frames: a
    bone without skin rests where its inferred hierarchy put it (the root's joint), which says nothing
    of the part."""
    totals = np.zeros(count)
    for mesh in _bound_meshes(model):
        positive = mesh.weights > 0
        totals += np.bincount(mesh.joints[positive], mesh.weights[positive], minlength=count)
    return totals


def _bound_meshes(model: Model) -> list[Mesh]:
    return [mesh for mesh in model.meshes if mesh.skin is None]


class _Hierarchies:
    """The two hierarchies (the target's ancestry as a ``BoneTree``), to keep a growing map consistent
    with both."""

    def __init__(self, source_parents: np.ndarray, target_parents: np.ndarray):
        self.source_parents, self.target_parents = source_parents, target_parents
        self.target_tree = BoneTree(target_parents)

    def children(self, bone: int, source: bool) -> list[int]:
        parents = self.source_parents if source else self.target_parents
        return [int(child) for child in np.flatnonzero(parents == bone)]

    def add_if_consistent(self, pairs: dict[int, int], bone: int, other: int) -> bool:
        """Add ``bone → other`` to ``pairs`` where neither bone is paired yet and every paired bone's
        nearest paired ancestor then goes to an ancestor of its partner; whether it was added."""
        if bone in pairs or other in pairs.values():
            return False
        trial = {**pairs, bone: other}
        for paired, partner in trial.items():
            above = self._nearest_paired_ancestor(paired, trial)
            if above is not None and not self.target_tree.is_above(trial[above], partner):
                return False
        pairs[bone] = other
        return True

    def _nearest_paired_ancestor(self, bone: int, pairs: dict[int, int]) -> int | None:
        bone = self.source_parents[bone]
        while bone >= 0 and bone not in pairs:
            bone = self.source_parents[bone]
        return int(bone) if bone >= 0 else None


def rooted_at(parents: np.ndarray, root: int) -> np.ndarray:
    """(B,) the same tree (each bone joined to the same neighbours) with ``root`` as its root; bones of
    other trees keep their parents."""
    rerooted = parents.copy()
    bone, above = root, -1
    while bone >= 0:
        rerooted[bone], bone, above = above, parents[bone], bone
    return rerooted
