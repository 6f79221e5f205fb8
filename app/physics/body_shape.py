"""What the automatic ragdoll setup reads from a model's skeleton and skin: the hierarchy (the
skeleton's, or for a flat one the tree ``app.loose_skeleton`` infers), each bone's direction and reach
along it, the vertices each bone owns, and the body's size."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app import maths
from app.bone_names import body_kind, bone_role, is_prop
from app.bone_tree import BoneTree
from app.loose_skeleton import inferred_skeleton
from app.model import Model
from app.skin_weights import dominant_bones

#: Fewest vertices weighted mostly to a bone for it to get a part, in a model with a skin.
MIN_OWNED_VERTICES = 4
#: A vertex with at least this share of its weight on one bone moves rigidly with it.
RIGID_WEIGHT = 0.999
#: The share of a bone's vertices its reach and its box leave out at either end.
PERCENTILES = (5.0, 95.0)


@dataclass
class BodyShape:
    """What the automatic setup reads from a skeleton. parents: the skeleton's, or inferred when it
    is flat; directions (B, 3) unit vectors along each bone; spans (B, 2) the bone's reach along its
    direction from its head (bone and owned vertices), bone_spans the bone's alone; owned: bind
    positions of the vertices weighted mostly to each bone; tree: ancestry over ``parents``."""

    parents: np.ndarray
    flat: bool
    directions: np.ndarray
    spans: np.ndarray
    owned: dict[int, np.ndarray]
    bone_spans: np.ndarray
    tree: BoneTree
    props: np.ndarray

    @classmethod
    def of(cls, model: Model) -> BodyShape:
        skeleton = model.skeleton
        flat = len(skeleton) > 1 and bool(np.all(skeleton.parents < 0))
        parents = skeleton.parents.astype(np.intp)
        if flat:
            parents = inferred_skeleton(model).parents.astype(np.intp)
        tree = BoneTree(parents) if flat else skeleton.tree
        props = prop_bones(model, tree)
        owned = {bone: points for bone, points in _owned_vertices(model).items() if not props[bone]}
        directions = np.array([_direction(model, bone, owned.get(bone), parents, flat)
                               for bone in range(len(skeleton))])
        offsets = skeleton.tails - skeleton.heads
        lengths = np.zeros(len(skeleton)) if flat else np.einsum("bi,bi->b", offsets, directions)
        # A tail the file does not give is a guess: toward a child, or a default length past an end
        # bone. Toward a child that moves vertices it is where the next part begins; otherwise (an
        # end bone, or children that are helpers: attachment points, emitters) the bone's own
        # vertices alone say how far it reaches. The NWN satyr's head box rose 0.23 m above its
        # horns toward a helper node.
        moving = np.array([len(owned.get(b, ())) >= MIN_OWNED_VERTICES for b in range(len(skeleton))])
        fed = np.zeros(len(skeleton), bool)
        np.logical_or.at(fed, parents[parents >= 0], moving[parents >= 0])
        lengths = np.where(skeleton.derived_tails & moving & ~fed, 0.0, lengths)
        bone_spans = np.stack([np.minimum(lengths, 0.0), np.maximum(lengths, 0.0)], axis=-1)
        shape = cls(parents=parents, flat=flat, directions=directions, spans=bone_spans.copy(), owned=owned,
                    bone_spans=bone_spans, tree=tree, props=props)
        for bone, points in owned.items():
            shape.spans[bone] = shape.reach(skeleton.heads[bone], bone, points)
        return shape

    def reach(self, head: np.ndarray, bone: int, points: np.ndarray | None) -> np.ndarray:
        """(2,) the bone's reach along its direction from its ``head``: the bone, and the 5th–95th
        percentiles of ``points`` when there are enough of them."""
        span = self.bone_spans[bone].copy()
        if points is not None and len(points) >= MIN_OWNED_VERTICES:
            low, high = np.percentile((points - head) @ self.directions[bone], PERCENTILES)
            span = np.array([min(span[0], low), max(span[1], high)])
        return span

    def length(self, bone: int) -> float:
        return float(self.spans[bone, 1] - self.spans[bone, 0])


def prop_bones(model: Model, tree: BoneTree | None = None) -> np.ndarray:
    """(B,) the bones that carry a prop or an accessory and the bones below them (``tree``, default
    the skeleton's): never a body part, they follow the part above them as if welded to it. A prop's
    bone is one whose name says so (``bone_names.is_prop``; an axe's bone given a part fell 68 cm
    into the ground), or one that carries a rigid mesh of its own off the skin (``rigid_prop_bones``)."""
    tree = model.skeleton.tree if tree is None else tree
    named = [bone for bone, name in enumerate(model.skeleton.names) if is_prop(name)]
    named += rigid_prop_bones(model, tree)
    return tree.subtree_mask(named) if named else np.zeros(len(model.skeleton), bool)


def rigid_prop_bones(model: Model, tree: BoneTree) -> list[int]:
    """Bones that carry a separate rigid mesh (every vertex of it wholly on that bone) at the end of
    a branch hanging from a skin: the nearest bone above moves vertices of a drawn mesh weighted to
    several bones, no bone below moves any, the bone moves nothing of the skin, and its name says
    nothing of a body part (``bone_names``: a head, a foot, a wing). A sword, a shield or a lamp in a
    skinned hand, whatever its bone is called. Rigid pieces that make the body itself (an NWN
    creature's limbs; RobotExpressive's torso and legs, rigid beside its skinned hands; a chain of
    rigid pieces under a skinned hip) are not."""
    names = model.skeleton.names
    rigid_on: set[int] = set()
    moving = np.zeros(len(names), bool)
    skin = np.zeros(len(names), bool)
    for mesh in model.meshes:
        if not mesh.visible or not mesh.vertex_count or not mesh.weights.size:
            continue
        bones = np.unique(mesh.joints[mesh.weights > 0])
        moving[bones] = True
        whole = mesh.weights.max(axis=1) >= RIGID_WEIGHT * mesh.weights.sum(axis=1)
        if len(bones) == 1 and whole.all():
            rigid_on.add(int(bones[0]))
        else:
            skin[bones] = True
    holders = tree.nearest_marked_ancestor(moving)
    moving_below = tree.marked_below(moving)
    return sorted(bone for bone in rigid_on
                  if not skin[bone] and not moving_below[bone] and holders[bone] >= 0 and skin[holders[bone]]
                  and bone_role(names[bone])[0] is None and body_kind(names[bone]) is None)


def _owned_vertices(model: Model) -> dict[int, np.ndarray]:
    """Bind positions of the drawn vertices that give one bone at least half their weight, by bone
    (a mesh the file does not render, as an NWN shadow mesh, moves no part)."""
    owners, positions = dominant_bones(model.meshes, drawn_only=True)
    owned = owners >= 0
    return _by_bone([positions[owned]], [owners[owned]])


def _by_bone(positions: list[np.ndarray], owners: list[np.ndarray]) -> dict[int, np.ndarray]:
    """Positions grouped by their owning bone."""
    if not positions:
        return {}
    positions, owners = np.concatenate(positions), np.concatenate(owners)
    order = np.argsort(owners, kind="stable")
    bones, starts = np.unique(owners[order], return_index=True)
    return {int(b): group for b, group in zip(bones, np.split(positions[order], starts[1:]))}


def _direction(model: Model, bone: int, owned: np.ndarray | None, parents: np.ndarray,
               flat: bool) -> np.ndarray:
    """A unit vector along the bone: head to tail; in a flat skeleton the principal axis of its
    vertices (pointing away from its parent's head), else toward its only child."""
    skeleton = model.skeleton
    head = skeleton.heads[bone]
    if flat and owned is not None and len(owned) >= MIN_OWNED_VERTICES:
        axis = np.linalg.svd(owned - owned.mean(axis=0), full_matrices=False)[2][0]
        away = owned.mean(axis=0) - (skeleton.heads[parents[bone]] if parents[bone] >= 0 else head)
        return axis if np.dot(axis, away) >= 0 else -axis
    children = np.flatnonzero(parents == bone)
    target = skeleton.heads[children[0]] if flat and len(children) == 1 else skeleton.tails[bone]
    direction, valid = maths.normalize(target - head)
    if valid:
        return direction
    fallback, _ = maths.normalize(skeleton.bind_world[bone, :3, 1])
    return fallback


def body_size(model: Model) -> float:
    """The largest extent of the model's bind pose, model units: of its vertices, or of its bones when
    it has none (helper nodes such as NWN's ``headconjure`` float well outside the body)."""
    points = model.bind_positions.astype(np.float64)
    if not len(points):
        points = np.concatenate([model.skeleton.heads, model.skeleton.tails])
    return float(np.ptp(points, axis=0).max())
