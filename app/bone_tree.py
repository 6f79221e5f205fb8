"""Ancestry questions about a bone hierarchy answered in time linear in its bones: a Skeleton's
(``Skeleton.tree``, worked out once) or any other, such as the one the ragdoll infers for loose bones.

One depth-first walk lays the bones out parents first, each bone's descendants right after it (its
subtree is one run of that order); from it, whether one bone is above another is two comparisons, and
"the nearest marked ancestor", "has a marked descendant" or "in the subtrees of these bones" is one
pass, however deep the hierarchy. Walking parent chains for every pair of bones instead grew with the
cube of a chain's length. The hierarchy by depth (``hierarchy_levels``, refusing cycles) and world
matrices composed level by level down it (``world_from_local``) are here too.
"""

from __future__ import annotations

import numpy as np


class BoneTree:
    """parents (B,) (−1 for roots, no cycles, as a Skeleton holds them); order (B,) the bones parents
    first, each subtree contiguous; position (B,) each bone's place in ``order``; size (B,) the bones
    of its subtree, itself included; depth (B,) its ancestors' count; root (B,) its topmost ancestor
    (itself for a root)."""

    def __init__(self, parents: np.ndarray):
        self.parents = np.asarray(parents, dtype=np.intp)
        count = len(self.parents)
        self.order = _depth_first(self.parents)
        self.position = np.empty(count, dtype=np.intp)
        self.position[self.order] = np.arange(count)
        self.depth = np.zeros(count, dtype=np.intp)
        self.root = np.arange(count, dtype=np.intp)
        for bone in self.order.tolist():
            parent = self.parents[bone]
            if parent >= 0:
                self.depth[bone] = self.depth[parent] + 1
                self.root[bone] = self.root[parent]
        self.size = np.ones(count, dtype=np.intp)
        for bone in self.order[::-1].tolist():
            if self.parents[bone] >= 0:
                self.size[self.parents[bone]] += self.size[bone]

    def is_above(self, ancestor: int, bone: int) -> bool:
        """Whether ``ancestor`` is a strict ancestor of ``bone``."""
        start = self.position[ancestor]
        return bool(start < self.position[bone] < start + self.size[ancestor])

    def ancestors(self, bone: int) -> list[int]:
        """The bone's ancestors, nearest first."""
        result = []
        bone = int(self.parents[bone])
        while bone >= 0:
            result.append(bone)
            bone = int(self.parents[bone])
        return result

    def descendants(self, bone: int) -> np.ndarray:
        """The bone's strict descendants, in index order."""
        start = self.position[bone]
        return np.sort(self.order[start + 1:start + self.size[bone]])

    def subtree_mask(self, roots) -> np.ndarray:
        """(B,) bool: the bones in the subtrees of ``roots`` (bone indices), the roots included."""
        roots = np.asarray(roots, dtype=np.intp).reshape(-1)
        cover = np.zeros(len(self.parents) + 1, dtype=np.intp)
        np.add.at(cover, self.position[roots], 1)
        np.add.at(cover, self.position[roots] + self.size[roots], -1)
        inside = np.zeros(len(self.parents), bool)
        inside[self.order] = np.cumsum(cover)[:-1] > 0
        return inside

    def unblocked_descendants(self, bone: int, blocking: np.ndarray) -> np.ndarray:
        """The bone's strict descendants that are not ``blocking`` (B,) bool and have no blocking bone
        between them and it, in index order: the bones that follow it when the blocking ones lead."""
        start, stop = self.position[bone] + 1, self.position[bone] + self.size[bone]
        inside = self.order[start:stop]
        blockers = inside[blocking[inside]]
        cover = np.zeros(stop - start + 1, dtype=np.intp)
        np.add.at(cover, self.position[blockers] - start, 1)
        np.add.at(cover, self.position[blockers] + self.size[blockers] - start, -1)
        return np.sort(inside[np.cumsum(cover)[:-1] == 0])

    def nearest_marked_ancestor(self, marked: np.ndarray) -> np.ndarray:
        """(B,) each bone's nearest strict ancestor where ``marked`` (B,) bool is set, −1 where none."""
        nearest = np.full(len(self.parents), -1, dtype=np.intp)
        for bone in self.order.tolist():
            parent = self.parents[bone]
            if parent >= 0:
                nearest[bone] = parent if marked[parent] else nearest[parent]
        return nearest

    def marked_below(self, marked: np.ndarray) -> np.ndarray:
        """(B,) whether some strict descendant of each bone is ``marked`` (B,) bool."""
        places = np.sort(self.position[np.flatnonzero(marked)])
        after = np.searchsorted(places, self.position, side="right")
        until = np.searchsorted(places, self.position + self.size, side="left")
        return until > after


def _depth_first(parents: np.ndarray) -> np.ndarray:
    """The bones in depth-first order from the roots, children in index order."""
    count = len(parents)
    parent_keys = np.where(parents >= 0, parents, count)
    by_parent = np.argsort(parent_keys, kind="stable")
    children_start = np.searchsorted(parent_keys[by_parent], np.arange(count + 1))
    order = np.empty(count, dtype=np.intp)
    stack = np.flatnonzero(parents < 0)[::-1].tolist()
    filled = 0
    while stack:
        bone = stack.pop()
        order[filled] = bone
        filled += 1
        stack.extend(by_parent[children_start[bone]:children_start[bone + 1]][::-1].tolist())
    if filled < count:
        raise ValueError(f"{count - filled} bone(s) are on a parent cycle")
    return order


def tree_order(parents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(B,) the bones as a hierarchy lists them (depth-first from the roots, children in index order)
    and (B,) each bone's depth (0 for a root). ValueError for a parent cycle."""
    parents = np.asarray(parents)
    return _depth_first(parents), _depths(parents)[0]


def world_from_local(local: np.ndarray, parents: np.ndarray, levels: list[np.ndarray]) -> np.ndarray:
    """(B, 4, 4) world matrices from local ones, level by level down the hierarchy (``levels`` as
    ``hierarchy_levels`` gives them); leading axes after the bone axis are kept."""
    world = local.copy()
    for level in levels[1:]:
        world[level] = world[parents[level]] @ local[level]
    return world


def hierarchy_levels(parents: np.ndarray) -> list[np.ndarray]:
    """Bone indices grouped by depth (roots first), for level-by-level composition.

    Parents may come after their children. Raises ``ValueError`` naming a bone on a cycle or a
    parent index out of range.
    """
    parents = np.asarray(parents)
    count = len(parents)
    bad = np.flatnonzero((parents < -1) | (parents >= count))
    if bad.size:
        raise ValueError(f"bone {bad[0]} has parent {parents[bad[0]]}, outside 0..{count - 1}")
    depth, above = _depths(parents)
    unplaced = np.flatnonzero(above >= 0)
    if unplaced.size:
        raise ValueError(f"bone {unplaced[0]} is on a parent cycle")
    order = np.argsort(depth, kind="stable")
    return np.split(order, np.cumsum(np.bincount(depth))[:-1]) if count else []


def _depths(parents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(B,) each bone's count of ancestors by pointer doubling (each pass jumps twice as far up, so a
    chain thousands deep takes a few dozen vectorised passes, not one per level), and (B,) where each
    walk stopped: −1 at the top, a bone for walks caught in a parent cycle."""
    above = parents.astype(np.intp)
    depth = (above >= 0).astype(np.intp)
    for _ in range(max(len(parents), 1).bit_length() + 1):
        walking = np.flatnonzero(above >= 0)
        if not walking.size:
            break
        depth[walking] += depth[above[walking]]
        above[walking] = above[above[walking]]
    return depth, above
