"""A ragdoll profile for any skeleton.

- **Humanoid preset**, when bone names match a common rig (3ds Max Biped ``Bip01 L Thigh``, Mixamo
  ``mixamorig:LeftUpLeg``, NWN ``lthigh_g``/``torso_g``, Blender-style ``thigh.L``, the demo's
  ``thigh_l``): parts for the pelvis, spine, chest, head and the upper and lower limbs; hinged elbows
  and knees and cone-twists elsewhere, with limits in the spirit of Bullet's RagdollDemo.
- **Generic**, otherwise: every long bone (at least ``MIN_BONE_FRACTION`` of the model's size, and
  weighted in the skin when there is one) gets a part, and so does every bone where two or more
  chains of parts meet (a hub: a hip bone with a spine and two legs, its box spanning its children's
  heads), and each part joins its nearest ancestor's part with a cone-twist.

Bones that carry props and accessories (``body_shape.prop_bones``: a sword, a cape, hair) get no part
and no part is fitted over their vertices. Every other bone follows the part of its nearest ancestor
that has one (``relations``). Boxes lie
along the bone (``Part.rotation`` turns them when the bone's frame does not); across it they span the
vertices weighted mostly to the bone (5th to 95th percentile), along it the bone and those vertices;
without a skin they are a quarter of the bone's length thick. Joints sit at the child bone's head,
where an animation turns it, so taking over from a clip can be exact.

A flat skeleton (LGW, C3DE 2009: no parents, tails derived along an arbitrary axis) gets bone
directions from the principal axis of each bone's vertices, the hierarchy ``app.loose_skeleton``
infers for it (the one retargeting carries clips through: one tree per model), and joints at the end
of the child's box nearest the parent's. Masses come from box volumes; ``meters_per_unit`` from the
model's height when it is not plausibly metres. All of it is measured on the model as drawn
(``drawn_model``: a 0.01-scaled armature's skin in metres), and joint limits hold the model's rest
pose and clips (``clip_limits``).

What the setup reads from the skeleton is ``body_shape``'s; how it fits boxes and joints to bones,
``part_fitting``'s; what bone names say, ``app.bone_names``'.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from app import maths
from app.bone_names import body_kind, bone_role, is_helper
from app.bone_tree import BoneTree
from app.model import Model
from app.physics.body_shape import MIN_OWNED_VERTICES, BodyShape, body_size
from app.physics.clip_limits import fit_to_clips
from app.physics.drawn_model import as_drawn
from app.physics.part_fitting import fit_box, make_joint, part_frames, swing_axis, twin_parts
from app.physics.profile import Joint, Part, RagdollProfile
from app.physics.rig import rigid
from app.pose import rest_extent

#: Shortest bone (fraction of the model's bind-pose diagonal) that gets a part in the generic setup.
MIN_BONE_FRACTION = 0.07
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
#: says it is (``bone_names.body_kind``: quadrupeds, tails, wings); LIMITS["generic"] otherwise.
KIND_LIMITS = {
    "tail": (30.0, 30.0, 10.0),
    "wing": (60.0, 45.0, 20.0),
    "neck": LIMITS["neck"],
    "spine": LIMITS["spine"],
    "lower_limb": (60.0, 15.0, 10.0),
    "upper_limb": (70.0, 35.0, 20.0),
}

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
    model = as_drawn(model)
    if not len(model.skeleton):
        raise ValueError(f"{model.name!r} has no bones to build a ragdoll on")
    shape = BodyShape.of(model)
    slots = humanoid_slots(model, shape.parents)
    return _humanoid(model, shape, slots) if slots else _generic(model, shape)


def fit_part(model: Model, profile: RagdollProfile, bone: str, name: str | None = None) -> Part:
    """A new part on ``bone`` for ``profile``, fitted as the automatic setup fits its parts (box over
    the bone and its vertices), its mass DENSITY kg/m³ of box in the profile's unit."""
    model = as_drawn(model)
    part = fit_box(model, BodyShape.of(model), name or bone, model.skeleton.index(bone))
    mass = DENSITY * float(np.prod(part.size)) * profile.meters_per_unit ** 3
    return replace(part, mass=float(f"{mass:.4g}"))


def joint_between(model: Model, profile: RagdollProfile, part_a: str, part_b: str,
                  name: str | None = None) -> Joint:
    """A new cone-twist joint from ``part_a`` to ``part_b`` at part b's bone's head (a flat
    skeleton: the end of b's box nearest a), limits by the role b's bone's name suggests."""
    model = as_drawn(model)
    skeleton = model.skeleton
    shape = BodyShape.of(model)
    parts = profile.parts
    a, b = profile.part_index(part_a), profile.part_index(part_b)
    bone = skeleton.index(parts[b].bone)
    across = rigid(skeleton.bind_world[bone])[:3, :3]
    main = across[:, np.argmin(np.abs(across.T @ shape.directions[bone]))]
    return make_joint(model, shape, parts, part_frames(model, parts), a, b, "cone_twist", main,
                      role_limits(parts[b].bone), name or f"{part_a}-{part_b}")


def meters_per_unit(model: Model) -> float:
    """1 when the model's format states metres and its size (the largest extent of its bind pose)
    is plausible in metres; else what makes that size HUMAN_HEIGHT metres. Formats without a unit
    (C3DE, BonesPro, LGW) are scaled: their numbers say nothing about size."""
    size = body_size(as_drawn(model))
    if size <= 0 or (model.unit == "metre" and METRE_HEIGHTS[0] <= size <= METRE_HEIGHTS[1]):
        return 1.0
    return float(f"{HUMAN_HEIGHT / size:.4g}")


def body_mass(size: float) -> float:
    """kg: HUMAN_MASS for a body HUMAN_HEIGHT metres in size, scaled with the cube of its size
    (metres)."""
    return HUMAN_MASS * (size / HUMAN_HEIGHT) ** 3


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

def _humanoid(model: Model, shape: BodyShape, slots: dict[str, int]) -> RagdollProfile:
    """Parts on the slots' bones and RagdollDemo-like joints between them (see ``LIMITS``)."""
    skeleton = model.skeleton
    ends = [(f"{slot}_{side}", f"{limb}_{side}", f"{joint}_{side}", joint)
            for slot, limb, joint in EXTREMITIES for side in "lr"
            if len(shape.owned.get(slots.get(f"{slot}_{side}", -1), ())) >= MIN_OWNED_VERTICES]
    names = [name for name in HUMANOID_PARTS if name in slots] + [end[0] for end in ends]
    taken = {slots[name] for name in names}
    torso = [name for name in ("pelvis", "spine", "chest") if name in slots]
    clouds = {name: _with_loose_children(model, shape, slots[name], taken) for name in names}
    for lower, upper in zip(torso, torso[1:]):
        clouds[lower] = _with_chain_between(shape, clouds[lower], slots[lower], slots[upper])
    parts = twin_parts(model, shape, [fit_box(model, shape, name, slots[name], owned=clouds[name])
                                      for name in names])
    frames = part_frames(model, parts)
    up = np.eye(3)[{"Y": 1, "Z": 2}[model.up_axis]]
    lateral = np.mean([skeleton.heads[slots[f"{s}_l"]] - skeleton.heads[slots[f"{s}_r"]]
                       for s in ("thigh", "upperarm")], axis=0)
    lateral, _ = maths.normalize(lateral - np.dot(lateral, up) * up)
    forward, _ = maths.normalize(np.cross(lateral, up))
    # (joint name, part a, part b, limits, kind, the axis the main swing or the hinge turns about)
    plan = [(b, a, b, "spine", "cone_twist", lateral) for a, b in zip(torso, torso[1:])]
    plan.append(("neck", torso[-1], "head", "neck", "cone_twist", lateral))
    for side in "lr":
        arm = swing_axis(shape.directions[slots[f"upperarm_{side}"]], forward, lateral)
        leg = swing_axis(shape.directions[slots[f"thigh_{side}"]], -forward, lateral)
        plan += [(f"shoulder_{side}", torso[-1], f"upperarm_{side}", "shoulder", "cone_twist", arm),
                 (f"elbow_{side}", f"upperarm_{side}", f"forearm_{side}", "elbow", "hinge", arm),
                 (f"hip_{side}", "pelvis", f"thigh_{side}", "hip", "cone_twist", leg),
                 (f"knee_{side}", f"thigh_{side}", f"shin_{side}", "knee", "hinge", leg)]
    plan += [(joint, limb, end, limits, "cone_twist", lateral) for end, limb, joint, limits in ends]
    joints = [make_joint(model, shape, parts, frames, names.index(a), names.index(b), kind, axis,
                         LIMITS[limits], name)
              for name, a, b, limits, kind, axis in plan]
    return _finish(model, shape, parts, joints)


def _end_bones(model: Model, shape: BodyShape, chosen: np.ndarray) -> np.ndarray:
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


def _with_loose_children(model: Model, shape: BodyShape, bone: int, taken: set[int]) -> np.ndarray | None:
    """The vertices ``bone`` owns and those of the bones that would follow its part: below it with
    no part between (``taken``: the bones with parts), without a part and no part below them; or
    None when there are none."""
    marked = np.zeros(len(model.skeleton), bool)
    marked[list(taken)] = True
    below = shape.tree.unblocked_descendants(bone, marked)
    below = below[~shape.tree.marked_below(marked)[below]]
    clouds = [shape.owned[b] for b in [bone, *below.tolist()] if b in shape.owned]
    return np.concatenate(clouds) if clouds else None


def _with_chain_between(shape: BodyShape, cloud: np.ndarray | None, lower: int,
                        upper: int) -> np.ndarray | None:
    """``cloud`` with the vertices of the bones strictly between torso bones ``lower`` and ``upper``
    (the middle of three spine bones: RiggedFigure's torso_joint_3, Mixamo's Spine1). They follow
    the lower part, so its box covers them; before, their vertices lay outside every box."""
    between = shape.tree.ancestors(upper)
    between = between[:between.index(lower)] if lower in between else []
    extra = [shape.owned[bone] for bone in between if bone in shape.owned]
    if not extra:
        return cloud
    return np.concatenate(([cloud] if cloud is not None else []) + extra)


def _generic(model: Model, shape: BodyShape) -> RagdollProfile:
    """Parts on long bones, cone-twists to the nearest ancestor's part."""
    skeleton = model.skeleton
    skinned = bool(shape.owned)
    long = np.array([shape.length(b) >= MIN_BONE_FRACTION * rest_extent(model) and not shape.props[b]
                     and (not skinned or len(shape.owned.get(b, ())) >= MIN_OWNED_VERTICES)
                     for b in range(len(skeleton))])
    ends = _end_bones(model, shape, long) if skinned else np.zeros(len(skeleton), bool)
    long |= ends
    if skinned:
        long |= _skinned_hubs(shape, long)
    hubs = {} if skinned else {bone: heads for bone, heads in _hubs(shape.tree, long).items()
                                if not shape.props[bone]}
    bones = [int(b) for b in np.argsort(shape.tree.depth, kind="stable") if long[b] or b in hubs]
    if not bones:
        bones = [max(range(len(skeleton)), key=shape.length)]
    names = _unique_names([skeleton.names[b] for b in bones])
    taken = set(bones)
    parts = twin_parts(model, shape, [fit_box(model, shape, name, bone, hubs.get(bone),
                                              _with_loose_children(model, shape, bone, taken) if ends[bone]
                                              else None)
                                      for name, bone in zip(names, bones)])
    frames = part_frames(model, parts)
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
        joints.append(make_joint(model, shape, parts, frames, parent, child, "cone_twist", main,
                                 role_limits(skeleton.names[bone]), names[child]))
    return _finish(model, shape, parts, joints)


def _skinned_hubs(shape: BodyShape, long: np.ndarray) -> np.ndarray:
    """(B,) short bones where two or more chains of parts start (a chest under the arms and the neck)
    that move at least END_VERTEX_SHARE of the drawn vertices: they get a part fitted over their
    vertices, which otherwise lay outside every box (RiggedFigure's torso_joint_3)."""
    total = sum(len(points) for points in shape.owned.values())
    hubs = np.zeros(len(long), bool)
    for bone in _hubs(shape.tree, long):
        moved = len(shape.owned.get(bone, ()))
        hubs[bone] = moved >= max(MIN_OWNED_VERTICES, END_VERTEX_SHARE * total) and not shape.props[bone]
    return hubs


def role_limits(name: str) -> tuple[float, float, float]:
    """The cone-twist limits for a part on bone ``name`` in the generic setup (``KIND_LIMITS``)."""
    return KIND_LIMITS.get(body_kind(name), LIMITS["generic"])


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


def _finish(model: Model, shape: BodyShape, parts: list[Part], joints: list[Joint]) -> RagdollProfile:
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
    profile = RagdollProfile(parts=sized, joints=joints, relations=relations, meters_per_unit=scale)
    twists = {joint.name: shape.directions[skeleton.index(parts[names[joint.part_b]].bone)]
              for joint in joints}
    return fit_to_clips(model, profile, twists)


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
