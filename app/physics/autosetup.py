"""A ragdoll profile for any skeleton.

- **Humanoid preset**, when bone names match a common rig (3ds Max Biped ``Bip01 L Thigh``, Mixamo
  ``mixamorig:LeftUpLeg``, NWN ``lthigh_g``/``torso_g``, Blender-style ``thigh.L``, the demo's
  ``thigh_l``): parts for the pelvis, spine, chest, head and the upper and lower limbs; hinged elbows
  and knees and cone-twists elsewhere, with limits in the spirit of Bullet's RagdollDemo.
- **Generic**, otherwise: every long bone (at least ``MIN_BONE_FRACTION`` of the model's size, and
  weighted in the skin when there is one) gets a part, and so does every bone where two or more
  chains of parts meet (a hub: a hip bone with a spine and two legs, its box spanning its children's
  heads), and each part joins its nearest ancestor's part with a cone-twist.

Every other bone follows the part of its nearest ancestor that has one (``relations``). Boxes lie
along the bone (``Part.rotation`` turns them when the bone's frame does not); across it they span the
vertices weighted mostly to the bone (5th to 95th percentile), along it the bone and those vertices;
without a skin they are a quarter of the bone's length thick. Joints sit at the child bone's head,
where an animation turns it, so taking over from a clip can be exact.

A flat skeleton (LGW, C3DE 2009: no parents, tails derived along an arbitrary axis) gets bone
directions from the principal axis of each bone's vertices, a hierarchy from the distances between
those axes' spans, and joints at the end of the child's box nearest the parent's. Masses come from
box volumes; ``meters_per_unit`` from the model's height when it is not plausibly metres.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np

from app import maths
from app.bone_names import bone_role, is_helper, words
from app.bone_tree import BoneTree
from app.model import Model
from app.physics.joint_kinds import KINDS
from app.physics.profile import Joint, Part, RagdollProfile
from app.physics.rig import bind_rig, rigid, rigid_inverse
from app.physics.symmetry import mirror_bones, reflection_between
from app.pose import rest_extent
from app.skin_weights import dominant_bones

#: Shortest bone (fraction of the model's bind-pose diagonal) that gets a part in the generic setup.
MIN_BONE_FRACTION = 0.07
#: Fewest vertices weighted mostly to a bone for it to get a part, in a model with a skin.
MIN_OWNED_VERTICES = 4
#: kg/m³ of the boxes: a body fills about four fifths of its boxes, at about the density of water.
#: Bulky boxes (horns, quivers, cloaks) are lighter: a body weighs at most ``body_mass`` of its size.
DENSITY = 800.0
HUMAN_MASS = 75.0
#: No part weighs less than 1/MASS_RATIO of a part it is jointed to, nor less than MIN_MASS_SHARE of
#: the total: a light part beside a heavy one (a spider's leg on its body) is flung about by shots and
#: contacts the heavy one shrugs off, and tears past its limits.
MASS_RATIO = 10.0
MIN_MASS_SHARE = 0.02
#: Sizes (model units) read as metres in a format that states metres; else the model is scaled to
#: HUMAN_HEIGHT metres.
METRE_HEIGHTS = (0.3, 5.0)
HUMAN_HEIGHT = 1.8
#: A box axis closer than this to the bone (degrees) is taken as is, without turning the box.
SNAP_DEGREES = 5.0
#: A part whose longest edge is at least this many times its next longest is limb-like: a capsule.
CAPSULE_RATIO = 2.0
#: A hinge axis this close (degrees) to an axis of the child bone's frame uses that axis exactly.
HINGE_SNAP_DEGREES = 20.0
PERCENTILES = (5.0, 95.0)
#: A flat skeleton's hierarchy comes from its bones' vertices on a grid of cells this fraction of
#: the model's size, at most CLOUD_POINTS cells in all.
CLOUD_CELL = 0.01
CLOUD_POINTS = 8000
#: A bone's cloud there holds the vertices giving it at least this share of their weight, so bones
#: blended into each other in the skin overlap.
TOUCH_WEIGHT = 0.2

#: Joint limits in degrees: hinge (low, high), cone-twist (swing1, swing2, twist).
LIMITS = {
    "spine": (30.0, 25.0, 30.0),
    "neck": (45.0, 40.0, 60.0),
    "shoulder": (80.0, 60.0, 45.0),
    "elbow": (-5.0, 135.0),
    "hip": (80.0, 40.0, 30.0),
    "knee": (-5.0, 135.0),
    "wrist": (60.0, 30.0, 20.0),
    "ankle": (40.0, 20.0, 10.0),
    "generic": (40.0, 40.0, 30.0),
}
#: Cone-twist limits (swing1, swing2, twist) the generic setup gives a part by what its bone's name
#: says it is (quadrupeds, tails, wings), first match; LIMITS["generic"] otherwise.
ROLE_LIMITS = (
    (re.compile(r"tail"), (30.0, 30.0, 10.0)),
    (re.compile(r"wing"), (60.0, 45.0, 20.0)),
    (re.compile(r"neck|head|skull"), LIMITS["neck"]),
    (re.compile(r"spine|chest|torso|pelvis|hip|back|waist"), LIMITS["spine"]),
    (re.compile(r"forearm|lowerarm|calf|shin|lowerleg|leg0*[2-9]|foot|paw|hand|hoof"), (60.0, 15.0, 10.0)),
    (re.compile(r"upperarm|thigh|upperleg|upleg|leg|arm|shoulder"), (70.0, 35.0, 20.0)),
)

LIMB_SLOTS = ("upperarm", "forearm", "thigh", "shin")
HUMANOID_PARTS = ("pelvis", "spine", "chest", "head", "upperarm_l", "forearm_l", "upperarm_r", "forearm_r",
                  "thigh_l", "shin_l", "thigh_r", "shin_r")
#: Hands and feet of the humanoid preset: (slot, the limb part it hangs from, joint, limits). Each gets
#: a part when its bone moves vertices (at least MIN_OWNED_VERTICES), fitted over its own vertices and
#: those of the bones below it without parts (fingers, toes), so hands and feet meet the ground.
EXTREMITIES = (("hand", "forearm", "wrist"), ("foot", "shin", "ankle"))
#: A generic setup's short bone still gets a part when it moves at least this share of the drawn
#: vertices and no bone below it has a part: hands, feet, heads and tail ends.
END_VERTEX_SHARE = 0.02


def auto_setup(model: Model) -> RagdollProfile:
    """A humanoid profile when the bone names allow one, else a generic profile.

    Raises ``ValueError`` when the model has no bones."""
    if not len(model.skeleton):
        raise ValueError(f"{model.name!r} has no bones to build a ragdoll on")
    shape = _Shape.of(model)
    slots = humanoid_slots(model, shape.parents)
    return _humanoid(model, shape, slots) if slots else _generic(model, shape)


def fit_part(model: Model, profile: RagdollProfile, bone: str, name: str | None = None) -> Part:
    """A new part on ``bone`` for ``profile``, fitted as the automatic setup fits its parts (box over
    the bone and its vertices), its mass DENSITY kg/m³ of box in the profile's unit."""
    part = _fit_part(model, _Shape.of(model), name or bone, model.skeleton.index(bone))
    mass = DENSITY * float(np.prod(part.size)) * profile.meters_per_unit ** 3
    return replace(part, mass=float(f"{mass:.4g}"))


def joint_between(model: Model, profile: RagdollProfile, part_a: str, part_b: str,
                  name: str | None = None) -> Joint:
    """A new cone-twist joint from ``part_a`` to ``part_b`` at part b's bone's head (a flat
    skeleton: the end of b's box nearest a), limits by the role b's bone's name suggests."""
    skeleton = model.skeleton
    shape = _Shape.of(model)
    parts = profile.parts
    a, b = profile.part_index(part_a), profile.part_index(part_b)
    bone = skeleton.index(parts[b].bone)
    across = rigid(skeleton.bind_world[bone])[:3, :3]
    main = across[:, np.argmin(np.abs(across.T @ shape.directions[bone]))]
    return _make_joint(model, shape, parts, _part_frames(model, parts), a, b, "cone_twist", main,
                       role_limits(parts[b].bone), name or f"{part_a}-{part_b}")


def meters_per_unit(model: Model) -> float:
    """1 when the model's format states metres and its size (the largest extent of its bind pose)
    is plausible in metres; else what makes that size HUMAN_HEIGHT metres. Formats without a unit
    (C3DE, BonesPro, LGW) are scaled: their numbers say nothing about size."""
    size = body_size(model)
    if size <= 0 or (model.unit == "metre" and METRE_HEIGHTS[0] <= size <= METRE_HEIGHTS[1]):
        return 1.0
    return float(f"{HUMAN_HEIGHT / size:.4g}")


def body_size(model: Model) -> float:
    """The largest extent of the model's bind pose, model units: of its vertices, or of its bones when
    it has none (helper nodes such as NWN's ``headconjure`` float well outside the body)."""
    points = model.bind_positions.astype(np.float64)
    if not len(points):
        points = np.concatenate([model.skeleton.heads, model.skeleton.tails])
    return float(np.ptp(points, axis=0).max())


def body_mass(size: float) -> float:
    """kg: HUMAN_MASS for a body HUMAN_HEIGHT metres in size, scaled with the cube of its size
    (metres)."""
    return HUMAN_MASS * (size / HUMAN_HEIGHT) ** 3


# --- the skeleton's shape ------------------------------------------------------------------------

@dataclass
class _Shape:
    """What the setup reads from a skeleton. parents: the skeleton's, or inferred when it is flat;
    directions (B, 3) unit vectors along each bone; spans (B, 2) the bone's reach along its
    direction from its head (bone and owned vertices), bone_spans the bone's alone; owned: bind
    positions of the vertices weighted mostly to each bone; tree: ancestry over ``parents``."""

    parents: np.ndarray
    flat: bool
    directions: np.ndarray
    spans: np.ndarray
    owned: dict[int, np.ndarray]
    bone_spans: np.ndarray
    tree: BoneTree

    @classmethod
    def of(cls, model: Model) -> _Shape:
        skeleton = model.skeleton
        owned = _owned_vertices(model)
        flat = len(skeleton) > 1 and bool(np.all(skeleton.parents < 0))
        parents = skeleton.parents.astype(np.intp)
        if flat:
            middle = (np.concatenate(list(owned.values())) if owned else skeleton.heads).mean(axis=0)
            touched = _weighted_vertices(model, TOUCH_WEIGHT)
            parents = inferred_parents(*_bone_clouds(skeleton.heads, touched, body_size(model)), middle)
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
                    bone_spans=bone_spans, tree=BoneTree(parents) if flat else skeleton.tree)
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


def _owned_vertices(model: Model) -> dict[int, np.ndarray]:
    """Bind positions of the drawn vertices that give one bone at least half their weight, by bone
    (a mesh the file does not render, as an NWN shadow mesh, moves no part)."""
    owners, positions = dominant_bones(model.meshes, drawn_only=True)
    owned = owners >= 0
    return _by_bone([positions[owned]], [owners[owned]])


def _weighted_vertices(model: Model, share: float) -> dict[int, np.ndarray]:
    """Bind positions of the vertices that give a bone at least ``share`` of their weight, by bone (a
    vertex blended between bones is in each of them)."""
    positions, owners = [], []
    for mesh in model.meshes:
        if not mesh.vertex_count or not mesh.weights.size:
            continue
        for lane in range(mesh.weights.shape[1]):
            enough = mesh.weights[:, lane] >= share
            positions.append(mesh.positions[enough].astype(np.float64))
            owners.append(mesh.joints[enough, lane])
    return _by_bone(positions, owners)


def _by_bone(positions: list[np.ndarray], owners: list[np.ndarray]) -> dict[int, np.ndarray]:
    """Positions grouped by their owning bone."""
    if not positions:
        return {}
    positions, owners = np.concatenate(positions), np.concatenate(owners)
    order = np.argsort(owners, kind="stable")
    bones, starts = np.unique(owners[order], return_index=True)
    return {int(b): group for b, group in zip(bones, np.split(positions[order], starts[1:]))}


def _bone_clouds(heads: np.ndarray, owned: dict[int, np.ndarray],
                 size: float) -> tuple[list[np.ndarray], float]:
    """Each bone's owned vertices as the centres of the cells of a grid they fall in, and the cell's
    edge: CLOUD_CELL of the model's size, coarser until there are at most CLOUD_POINTS cells in
    all, so a cloud keeps its outline at any mesh density. A bone owning too few vertices is the
    point at its head."""
    cell = CLOUD_CELL * size if size > 0 else 1.0
    while True:
        clouds = []
        for bone, head in enumerate(heads):
            points = owned.get(bone)
            if points is None or len(points) < MIN_OWNED_VERTICES:
                clouds.append(head[None])
            else:
                clouds.append((np.unique(np.floor(points / cell), axis=0) + 0.5) * cell)
        if sum(map(len, clouds)) <= CLOUD_POINTS:
            return clouds, cell
        cell *= 2.0


def cloud_gaps(clouds: list[np.ndarray]) -> np.ndarray:
    """(B, B) the shortest distance between any point of one cloud and any point of another."""
    points = np.concatenate(clouds)
    starts = np.cumsum([0] + [len(c) for c in clouds[:-1]])
    squares = np.einsum("ij,ij->i", points, points)
    gaps = np.empty((len(clouds), len(clouds)))
    for bone, cloud in enumerate(clouds):
        near = squares[starts[bone]:starts[bone] + len(cloud), None] + squares - 2.0 * cloud @ points.T
        gaps[bone] = np.minimum.reduceat(near.min(axis=0), starts)
    gaps = np.sqrt(np.maximum(np.minimum(gaps, gaps.T), 0.0))
    np.fill_diagonal(gaps, 0.0)
    return gaps


def inferred_parents(clouds: list[np.ndarray], cell: float, middle: np.ndarray) -> np.ndarray:
    """(B,) a tree over bones with no parents, grown by Prim's algorithm on the gaps between the
    bones' clouds (``cloud_gaps``) from the bone whose cloud's centre is nearest ``middle``:
    each step joins the bone nearest the tree, to the bulkiest bone of the tree (most cells) within
    one ``cell`` of that gap. Gaps between whole clouds, not between lines along them: a dog's hips,
    whose principal axis runs across the body, touch the body beside them and are not hung from a
    leg; among near ties a leg joins the body, not a neighbouring leg."""
    count = len(clouds)
    gaps = cloud_gaps(clouds)
    bulk = np.array([len(cloud) for cloud in clouds])
    centres = np.array([cloud.mean(axis=0) for cloud in clouds])
    parents = np.full(count, -1, dtype=np.intp)
    inside = np.zeros(count, bool)
    inside[int(np.argmin(np.linalg.norm(centres - middle, axis=1)))] = True
    for _ in range(count - 1):
        reach = np.where(inside, np.inf, gaps[inside].min(axis=0))
        bone = int(np.argmin(reach))
        near = np.flatnonzero(inside & (gaps[:, bone] <= reach[bone] + cell))
        parents[bone] = near[np.argmax(bulk[near])]
        inside[bone] = True
    return parents


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


# --- the humanoid's bones (what their names say: app.bone_names.bone_role) -------------------------

def humanoid_slots(model: Model, parents: np.ndarray | None = None) -> dict[str, int] | None:
    """Bone indices for the humanoid slots (``pelvis``, optional ``spine`` and ``chest``, ``head``,
    ``upperarm_l`` … ``shin_r``, and any ``hand``/``foot``/``neck`` found), or None when the names
    and the hierarchy (``parents``, default the skeleton's) do not make a humanoid."""
    skeleton = model.skeleton
    tree = skeleton.tree if parents is None else BoneTree(parents)
    above = tree.is_above
    found: dict[str, int] = {}
    spines = []
    for bone in map(int, np.argsort(tree.depth, kind="stable")):
        role, side = bone_role(skeleton.names[bone])
        if role == "spine":
            spines.append(bone)
        elif role is not None:
            found.setdefault(role if side is None else f"{role}_{side}", bone)
    required = ["pelvis", "head"] + [f"{slot}_{side}" for slot in LIMB_SLOTS for side in "lr"]
    if any(key not in found for key in required):
        return None
    pelvis, head = found["pelvis"], found["head"]
    # Spine bones above the head and not above the pelvis: below it (Biped, Mixamo) or beside it
    # under a common root (NWN's torso_g and pelvis_g under rootdummy).
    chain = [b for b in spines if above(b, head) and not above(b, pelvis)]
    if chain:
        found["chest"] = chain[-1]
        if len(chain) > 1:
            found["spine"] = chain[0]
    top = found.get("chest", pelvis)
    for side in "lr":
        upperarm, thigh = found[f"upperarm_{side}"], found[f"thigh_{side}"]
        if not (above(upperarm, found[f"forearm_{side}"]) and above(thigh, found[f"shin_{side}"])
                and above(top, upperarm) and above(pelvis, thigh)):
            return None
    share_an_ancestor = min(tree.depth[top], tree.depth[pelvis]) > 0 and tree.root[top] == tree.root[pelvis]
    joined = top == pelvis or above(pelvis, top) or share_an_ancestor
    return found if above(top, head) and joined else None


# --- profiles ------------------------------------------------------------------------------------

def _humanoid(model: Model, shape: _Shape, slots: dict[str, int]) -> RagdollProfile:
    """Parts on the slots' bones and RagdollDemo-like joints between them (see ``LIMITS``)."""
    skeleton = model.skeleton
    ends = [(f"{slot}_{side}", f"{limb}_{side}", f"{joint}_{side}", joint)
            for slot, limb, joint in EXTREMITIES for side in "lr"
            if len(shape.owned.get(slots.get(f"{slot}_{side}", -1), ())) >= MIN_OWNED_VERTICES]
    names = [name for name in HUMANOID_PARTS if name in slots] + [end[0] for end in ends]
    taken = {slots[name] for name in names}
    parts = _twin_parts(model, shape, [_fit_part(model, shape, name, slots[name],
                                                 owned=_with_loose_children(model, shape, slots[name], taken))
                                       for name in names])
    frames = _part_frames(model, parts)
    up = np.eye(3)[{"Y": 1, "Z": 2}[model.up_axis]]
    lateral = np.mean([skeleton.heads[slots[f"{s}_l"]] - skeleton.heads[slots[f"{s}_r"]]
                       for s in ("thigh", "upperarm")], axis=0)
    lateral, _ = maths.normalize(lateral - np.dot(lateral, up) * up)
    forward, _ = maths.normalize(np.cross(lateral, up))
    torso = [name for name in ("pelvis", "spine", "chest") if name in slots]
    # (joint name, part a, part b, limits, kind, the axis the main swing or the hinge turns about)
    plan = [(b, a, b, "spine", "cone_twist", lateral) for a, b in zip(torso, torso[1:])]
    plan.append(("neck", torso[-1], "head", "neck", "cone_twist", lateral))
    for side in "lr":
        arm = _across(shape.directions[slots[f"upperarm_{side}"]], forward, lateral)
        leg = _across(shape.directions[slots[f"thigh_{side}"]], -forward, lateral)
        plan += [(f"shoulder_{side}", torso[-1], f"upperarm_{side}", "shoulder", "cone_twist", arm),
                 (f"elbow_{side}", f"upperarm_{side}", f"forearm_{side}", "elbow", "hinge", arm),
                 (f"hip_{side}", "pelvis", f"thigh_{side}", "hip", "cone_twist", leg),
                 (f"knee_{side}", f"thigh_{side}", f"shin_{side}", "knee", "hinge", leg)]
    plan += [(joint, limb, end, limits, "cone_twist", lateral) for end, limb, joint, limits in ends]
    joints = [_make_joint(model, shape, parts, frames, names.index(a), names.index(b), kind, axis,
                          LIMITS[limits], name)
              for name, a, b, limits, kind, axis in plan]
    return _finish(model, shape, parts, joints)


def _end_bones(model: Model, shape: _Shape, chosen: np.ndarray) -> np.ndarray:
    """(B,) short bones with no ``chosen`` bone below them, not named as helpers (``is_helper``: fingers,
    toes, nubs), that move at least END_VERTEX_SHARE of the drawn vertices with the bones
    below them that have no part (a hand with its fingers)."""
    total = sum(len(points) for points in shape.owned.values())
    taken = {int(b) for b in np.flatnonzero(chosen)}
    held = shape.tree.marked_below(chosen)
    ends = np.zeros(len(model.skeleton), bool)
    for bone in shape.owned:
        if chosen[bone] or held[bone] or is_helper(model.skeleton.names[bone]):
            continue
        cloud = _with_loose_children(model, shape, bone, taken)
        ends[bone] = cloud is not None and len(cloud) >= max(MIN_OWNED_VERTICES, END_VERTEX_SHARE * total)
    return ends


def _with_loose_children(model: Model, shape: _Shape, bone: int, taken: set[int]) -> np.ndarray | None:
    """The vertices ``bone`` owns and those of the bones that would follow its part: below it with
    no part between (``taken``: the bones with parts), without a part and no part below them; or
    None when there are none."""
    marked = np.zeros(len(model.skeleton), bool)
    marked[list(taken)] = True
    below = shape.tree.unblocked_descendants(bone, marked)
    below = below[~shape.tree.marked_below(marked)[below]]
    clouds = [shape.owned[b] for b in [bone, *below.tolist()] if b in shape.owned]
    return np.concatenate(clouds) if clouds else None


def _generic(model: Model, shape: _Shape) -> RagdollProfile:
    """Parts on long bones, cone-twists to the nearest ancestor's part."""
    skeleton = model.skeleton
    skinned = bool(shape.owned)
    long = np.array([shape.length(b) >= MIN_BONE_FRACTION * rest_extent(model)
                     and (not skinned or len(shape.owned.get(b, ())) >= MIN_OWNED_VERTICES)
                     for b in range(len(skeleton))])
    ends = _end_bones(model, shape, long) if skinned else np.zeros(len(skeleton), bool)
    long |= ends
    hubs = {} if skinned else _hubs(shape.tree, long)
    bones = [int(b) for b in np.argsort(shape.tree.depth, kind="stable") if long[b] or b in hubs]
    if not bones:
        bones = [max(range(len(skeleton)), key=shape.length)]
    names = _unique_names([skeleton.names[b] for b in bones])
    taken = set(bones)
    parts = _twin_parts(model, shape, [_fit_part(model, shape, name, bone, hubs.get(bone),
                                                 _with_loose_children(model, shape, bone, taken) if ends[bone]
                                                 else None)
                                       for name, bone in zip(names, bones)])
    frames = _part_frames(model, parts)
    part_of = _part_of_bone(len(skeleton), bones)
    holders = shape.tree.nearest_marked_ancestor(part_of >= 0)
    joints = []
    for child, bone in enumerate(bones):
        parent = int(part_of[holders[bone]]) if holders[bone] >= 0 else None
        if parent is None and child:
            parent = _nearest_part(frames[:child], frames[child])
        if parent is None:
            continue
        across = rigid(skeleton.bind_world[bone])[:3, :3]
        main = across[:, np.argmin(np.abs(across.T @ shape.directions[bone]))]
        joints.append(_make_joint(model, shape, parts, frames, parent, child, "cone_twist", main,
                                  role_limits(skeleton.names[bone]), names[child]))
    return _finish(model, shape, parts, joints)


def role_limits(name: str) -> tuple[float, float, float]:
    """The cone-twist limits for a part on bone ``name`` in the generic setup (``ROLE_LIMITS``)."""
    key = "".join(words(name))
    return next((limits for pattern, limits in ROLE_LIMITS if pattern.search(key)), LIMITS["generic"])


def _nearest_part(frames: np.ndarray, frame: np.ndarray) -> int:
    """The index of the part frame in ``frames`` (P, 4, 4) nearest ``frame``: where a chain of parts
    whose common ancestor owns no vertices (NWN's rootdummy) joins the others."""
    return int(np.argmin(np.linalg.norm(frames[:, :3, 3] - frame[:3, 3], axis=1)))


def _part_of_bone(count: int, bones: list[int]) -> np.ndarray:
    """(count,) the index in ``bones`` of each bone that has a part (its first), −1 for the others."""
    part_of = np.full(count, -1, dtype=np.intp)
    for index, bone in reversed(list(enumerate(bones))):
        part_of[bone] = index
    return part_of


def _hubs(tree: BoneTree, long: np.ndarray) -> dict[int, np.ndarray]:
    """Bones without a part of their own below which two or more chains of long bones start, with
    the bones whose heads their box should span (themselves and their children)."""
    parents = tree.parents
    below = long | tree.marked_below(long)
    feeding = np.flatnonzero((parents >= 0) & below)
    chains = np.bincount(parents[feeding], minlength=len(parents))
    return {int(bone): np.append(np.flatnonzero(parents == bone), bone)
            for bone in np.flatnonzero(~long & (chains >= 2))}


def _unique_names(names: list[str]) -> list[str]:
    result, used = [], set()
    for name in names:
        candidate, number = name, 2
        while candidate in used:
            candidate, number = f"{name} ({number})", number + 1
        used.add(candidate)
        result.append(candidate)
    return result


def _finish(model: Model, shape: _Shape, parts: list[Part], joints: list[Joint]) -> RagdollProfile:
    """Relations for every bone without a part, masses from box volumes in metres, the unit scale."""
    skeleton = model.skeleton
    part_of = _part_of_bone(len(skeleton), [skeleton.index(part.bone) for part in parts])
    holders = shape.tree.nearest_marked_ancestor(part_of >= 0)
    relations = {}
    for bone in np.flatnonzero(part_of < 0).tolist():
        holder = part_of[holders[bone]] if holders[bone] >= 0 else 0
        relations[skeleton.names[bone]] = parts[holder].name
    scale = meters_per_unit(model)
    volumes = np.array([np.prod(p.size) for p in parts]) * scale ** 3
    density = min(DENSITY, body_mass(body_size(model) * scale) / volumes.sum())
    names = {p.name: index for index, p in enumerate(parts)}
    pairs = np.array([(names[j.part_a], names[j.part_b]) for j in joints], dtype=int)
    masses = balance_masses(density * volumes, pairs.reshape(-1, 2))
    sized = [replace(p, mass=float(f"{mass:.4g}")) for p, mass in zip(parts, masses)]
    return RagdollProfile(parts=sized, joints=joints, relations=relations, meters_per_unit=scale)


def balance_masses(masses: np.ndarray, pairs: np.ndarray, ratio: float = MASS_RATIO,
                   share: float = MIN_MASS_SHARE) -> np.ndarray:
    """(P,) masses with none under ``share`` of the total nor under 1/``ratio`` of a part it is
    jointed to (``pairs``: (J, 2) part indices), scaled back to the same total."""
    total = masses.sum()
    balanced = np.maximum(masses, share * total)
    for _ in range(len(masses)):
        floor = np.zeros_like(balanced)
        np.maximum.at(floor, pairs[:, 0], balanced[pairs[:, 1]] / ratio)
        np.maximum.at(floor, pairs[:, 1], balanced[pairs[:, 0]] / ratio)
        if (balanced >= floor).all():
            break
        balanced = np.maximum(balanced, floor)
    return balanced * (total / balanced.sum())


# --- boxes ---------------------------------------------------------------------------------------

def _fit_part(model: Model, shape: _Shape, name: str, bone: int, hub: np.ndarray | None = None,
              owned: np.ndarray | None = None) -> Part:
    """A box along the bone over its span, across it over its vertices' spread (``owned``, default
    the vertices the bone owns); a hub's box spans the heads of the bones in ``hub`` instead."""
    skeleton = model.skeleton
    owned = shape.owned.get(bone) if owned is None else owned
    span = shape.reach(skeleton.heads[bone], bone, owned)
    frame = rigid(skeleton.bind_world[bone])
    frame[:3, 3] += (skeleton.tails[bone] - skeleton.heads[bone]) / 2
    along = frame[:3, :3].T @ shape.directions[bone]
    axis = int(np.argmax(np.abs(along)))
    turn = np.eye(4)
    if abs(along[axis]) < np.cos(np.radians(SNAP_DEGREES)):
        turn = maths.quat_to_matrix(_shortest_arc(np.eye(3)[axis] * np.sign(along[axis]), along))
    box_frame = frame @ turn
    # In the box's frame the bone runs along ±axis from its head (the turn maps that axis onto it).
    head = maths.transform_points(rigid_inverse(box_frame), skeleton.heads[bone])
    low, high = np.zeros(3), np.zeros(3)
    low[axis], high[axis] = np.sort(head[axis] + np.sign(along[axis]) * span)
    across = [k for k in range(3) if k != axis]
    if owned is not None and len(owned) >= MIN_OWNED_VERTICES:
        local = maths.transform_points(rigid_inverse(box_frame), owned)
        low[across], high[across] = np.percentile(local[:, across], PERCENTILES, axis=0)
    elif hub is not None:
        local = maths.transform_points(rigid_inverse(box_frame), skeleton.heads[hub])
        low, high = np.minimum(low, local.min(axis=0)), np.maximum(high, local.max(axis=0))
        middle, thickness = (low + high) / 2, (high - low).max() / 4
        low, high = np.minimum(low, middle - thickness), np.maximum(high, middle + thickness)
    else:
        eighth = (span[1] - span[0]) / 8
        low[across], high[across] = head[across] - eighth, head[across] + eighth
    size = high - low
    size = np.maximum(size, max(0.15 * size.max(), 1e-3 * rest_extent(model)))
    centre = box_frame[:3, :3] @ ((low + high) / 2)
    quantum = _quantum(model)
    return Part(name=name, bone=skeleton.names[bone], size=_rounded(size, quantum),
                offset=_rounded(centre, quantum), rotation=_rounded(maths.quat_from_matrix(turn)),
                shape=shape_for(size))


def _twin_parts(model: Model, shape: _Shape, parts: list[Part]) -> list[Part]:
    """``parts`` with each left/right pair (bones that are twins, ``mirror_bones``) given one shape:
    the first twin's box is fitted over its own vertices and its twin's reflected onto its side,
    and the second twin's box is that box reflected (``_reflected_part``), so twins whose skins
    differ a little (a satyr's arms, one holding a bow) still get the same size and mass."""
    skeleton = model.skeleton
    twins = mirror_bones(model)
    placed = {skeleton.index(part.bone): index for index, part in enumerate(parts)}
    result = list(parts)
    for bone, index in placed.items():
        twin = int(twins[bone])
        if twin not in placed or twin < bone:
            continue
        mirror = reflection_between(skeleton.heads[bone], skeleton.heads[twin])
        own, other = shape.owned.get(bone), shape.owned.get(twin)
        clouds = [points for points in (own, None if other is None else maths.transform_points(mirror, other))
                  if points is not None]
        union = np.concatenate(clouds) if clouds else None
        result[index] = _fit_part(model, shape, parts[index].name, bone, owned=union)
        result[placed[twin]] = _reflected_part(model, result[index], twin, mirror, parts[placed[twin]].name)
    return result


def _reflected_part(model: Model, part: Part, bone: int, mirror: np.ndarray, name: str) -> Part:
    """``part``'s box reflected by ``mirror`` (4, 4), as a part on ``bone``: the same size, its centre
    and axes reflected (one axis turned back so they stay a rotation: of the four ways, the one
    nearest the bone's own frame, so mirrored bone frames give an unturned box)."""
    skeleton = model.skeleton
    source = bind_rig(model, RagdollProfile(parts=[part])).box_bind[0]
    frame = rigid(skeleton.bind_world[bone])
    frame[:3, 3] += (skeleton.tails[bone] - skeleton.heads[bone]) / 2
    axes = frame[:3, :3].T @ mirror[:3, :3] @ source[:3, :3]
    flips = [np.diag(signs) for signs in ((-1.0, 1, 1), (1, -1.0, 1), (1, 1, -1.0), (-1.0, -1, -1))]
    turn = np.eye(4)
    turn[:3, :3] = max((axes @ flip for flip in flips), key=np.trace)
    centre = maths.transform_points(mirror, source[:3, 3]) - frame[:3, 3]
    quantum = _quantum(model)
    return replace(part, name=name, bone=skeleton.names[bone], offset=_rounded(centre, quantum),
                   rotation=_rounded(maths.quat_from_matrix(turn)))


def shape_for(size) -> str:
    """"capsule" for a limb-like part (its longest edge at least ``CAPSULE_RATIO`` times the next),
    "box" otherwise."""
    middle, longest = np.sort(size)[1:]
    return "capsule" if longest >= CAPSULE_RATIO * middle else "box"


def _shortest_arc(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The quaternion turning unit vector ``start`` onto unit vector ``end`` the short way."""
    return maths.quat_normalize(np.append(np.cross(start, end), 1.0 + float(np.dot(start, end))))


def _quantum(model: Model) -> float:
    """The step lengths are rounded to: a millionth of the model's size, as a power of ten."""
    return 10.0 ** (np.floor(np.log10(rest_extent(model))) - 6)


def _rounded(values, quantum: float = 1e-7) -> tuple[float, ...]:
    """Values rounded to multiples of ``quantum`` (float32 noise out of the saved profile)."""
    rounded = np.round(np.asarray(values, dtype=np.float64) / quantum) * quantum
    return tuple(float(f"{v:.10g}") + 0.0 for v in rounded)


# --- joints --------------------------------------------------------------------------------------

def _part_frames(model: Model, parts: list[Part]) -> np.ndarray:
    return bind_rig(model, RagdollProfile(parts=parts)).part_bind


def _across(limb: np.ndarray, toward: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """The axis a limb along ``limb`` turns about to swing toward ``toward`` (fallback when parallel)."""
    axis, valid = maths.normalize(np.cross(limb, toward))
    return axis if valid else fallback


def _pivot(model: Model, shape: _Shape, parts: list[Part], frames: np.ndarray, a: int, b: int) -> np.ndarray:
    """Where parts a and b join: part b's bone's head; in a flat skeleton, whose heads need not be
    joints, the end of b's box nearest a's centre."""
    bone = model.skeleton.index(parts[b].bone)
    if not shape.flat:
        return model.skeleton.heads[bone]
    box = frames[b] @ maths.quat_to_matrix(np.array(parts[b].rotation))
    local = rigid_inverse(box)[:3, :3] @ shape.directions[bone]
    axis = int(np.argmax(np.abs(local)))
    ends = [box[:3, 3] + box[:3, axis] * side * parts[b].size[axis] / 2 for side in (-1.0, 1.0)]
    return min(ends, key=lambda end: np.linalg.norm(end - frames[a][:3, 3]))


def _make_joint(model: Model, shape: _Shape, parts: list[Part], frames: np.ndarray, a: int, b: int, kind: str,
                axis: np.ndarray, limits: tuple, name: str) -> Joint:
    """A joint between parts a and b (see ``_pivot``). Cone-twist: X (twist) along b's bone, Z
    (swing1) as close to ``axis`` as is square to it. Hinge: Z along ``axis``, snapped to an axis of
    b's bone frame when one is near, so a clip turning the bone about that axis is followed exactly."""
    skeleton = model.skeleton
    bone = skeleton.index(parts[b].bone)
    pivot = _pivot(model, shape, parts, frames, a, b)
    twist = shape.directions[bone]
    if kind == "hinge":
        z = _snap(axis, rigid(skeleton.bind_world[bone])[:3, :3])
        x = _square(twist, z)
    else:
        x = twist
        z = _square(axis, x)
    rotation = np.stack([x, np.cross(z, x), z], axis=1)
    angles = dict(zip(KINDS[kind].limit_names, limits))
    quantum = _quantum(model)
    return Joint(name=name, part_a=parts[a].name, part_b=parts[b].name,
                 offset_a=_rounded(maths.transform_points(rigid_inverse(frames[a]), pivot), quantum),
                 offset_b=_rounded(maths.transform_points(rigid_inverse(frames[b]), pivot), quantum),
                 rotation=_rounded(maths.quat_from_matrix(rotation)), kind=kind, **angles)


def _square(vector: np.ndarray, to: np.ndarray) -> np.ndarray:
    """``vector`` made square to unit ``to`` (any square unit vector when they are parallel)."""
    result, valid = maths.normalize(vector - np.dot(vector, to) * to)
    if valid:
        return result
    result, _ = maths.normalize(np.cross(to, [1.0, 0.0, 0.0] if abs(to[0]) < 0.9 else [0.0, 1.0, 0.0]))
    return result


def _snap(axis: np.ndarray, frame: np.ndarray) -> np.ndarray:
    """``axis``, or the nearest of ±the columns of ``frame`` (3, 3) when within HINGE_SNAP_DEGREES."""
    dots = frame.T @ axis
    best = int(np.argmax(np.abs(dots)))
    if abs(dots[best]) >= np.cos(np.radians(HINGE_SNAP_DEGREES)):
        return frame[:, best] * np.sign(dots[best])
    return axis
