"""A profile bound to a model: bone and part indices, and the article's frames at the bind pose.

Column vectors throughout (docs/ragdoll.md):

- part frame   ``P = T((tail − head)/2 + offset) @ rigid(B_bone)``            (SetPart)
- own bone     ``boneToPart = inv(P) @ B_bone``
- relation     ``boneToPart = inv(P_followed) @ B_bone``                      (SetBoneRelation)
- joint frame  ``J = T(midpoint(P_a @ offset_a, P_b @ offset_b)) @ R(rotation)``
- every frame  ``W_bone(t) = P_part(t) @ boneToPart``

``rigid`` keeps a matrix's translation and the nearest rotation to its 3×3 block, so a scaled bone
still gives a rigid body; the scale stays in ``boneToPart``. A bone with neither a part nor a
relation follows what its parent follows (a root: the first part).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from app import maths
from app.model import Model
from app.physics.drawn_model import as_drawn
from app.physics.joint_kinds import KINDS
from app.physics.profile import ProfileError, RagdollProfile, first_problem


def rigid(matrices: np.ndarray) -> np.ndarray:
    """(..., 4, 4) with the 3×3 block replaced by its nearest rotation; translation kept."""
    matrices = np.asarray(matrices, dtype=np.float64)
    result = np.broadcast_to(np.eye(4), matrices.shape).copy()
    result[..., :3, :3] = maths.rotation_part(matrices)
    result[..., :3, 3] = matrices[..., :3, 3]
    return result


def rigid_inverse(matrices: np.ndarray) -> np.ndarray:
    """Inverse of rigid (..., 4, 4) matrices."""
    result = np.broadcast_to(np.eye(4), np.shape(matrices)).copy()
    rotations_t = np.swapaxes(matrices[..., :3, :3], -1, -2)
    result[..., :3, :3] = rotations_t
    result[..., :3, 3] = -np.einsum("...ij,...j->...i", rotations_t, matrices[..., :3, 3])
    return result


@dataclass(eq=False)
class Rig:
    """A profile's parts and joints as arrays over a model's bones (model units, radians).

    part_bones (P,); part_bind (P, 4, 4) part frames at bind; box_rotations (P, 4, 4) each box's
    frame in its part frame; half_extents (P, 3); masses (P,) kg; bone_parts (B,) the part each
    bone follows; bone_to_part (B, 4, 4); joint_parts (J, 2) parts a and b; joint_bind (J, 4, 4);
    hinge (J,) bool; joint_limits (J, 3): hinge (low, high, 0), cone-twist (swing1, swing2, twist);
    capsules (P,) bool: the part is the capsule inside its box (``capsule_dimensions``).
    """

    model: Model
    profile: RagdollProfile
    part_bones: np.ndarray
    part_bind: np.ndarray
    box_rotations: np.ndarray
    half_extents: np.ndarray
    masses: np.ndarray
    bone_parts: np.ndarray
    bone_to_part: np.ndarray
    joint_parts: np.ndarray
    joint_bind: np.ndarray
    hinge: np.ndarray
    joint_limits: np.ndarray
    capsules: np.ndarray
    #: Each joint's kind (app.physics.joint_kinds): its limit fields and multibody axes.
    joint_kinds: tuple = ()

    @property
    def part_names(self) -> list[str]:
        return [part.name for part in self.profile.parts]

    @property
    def box_bind(self) -> np.ndarray:
        """(P, 4, 4) each box's frame at bind (its centre and orientation)."""
        return self.part_bind @ self.box_rotations

    def bone_world(self, part_world: np.ndarray, bone_to_part: np.ndarray | None = None) -> np.ndarray:
        """(..., B, 4, 4) bone world matrices from (..., P, 4, 4) part frames."""
        offsets = self.bone_to_part if bone_to_part is None else bone_to_part
        return part_world[..., self.bone_parts, :, :] @ offsets

    def parts_at(self, world: np.ndarray) -> np.ndarray:
        """(P, 4, 4) where each part is when its bone has world matrix ``world[bone]`` (B, 4, 4)."""
        bones = self.part_bones
        return rigid(world[bones] @ self.model.skeleton.bind_inverse[bones] @ self.part_bind)

    def joint_world(self, part_world: np.ndarray) -> np.ndarray:
        """(..., J, 2, 4, 4) each joint's frame as carried by part a and by part b (equal at bind)."""
        carried = []
        for side in (0, 1):
            parts = self.joint_parts[:, side]
            to_joint = rigid_inverse(self.part_bind[parts]) @ self.joint_bind
            carried.append(part_world[..., parts, :, :] @ to_joint)
        return np.stack(carried, axis=-3)

    def relation_offsets(self, part_world: np.ndarray, world: np.ndarray) -> np.ndarray:
        """(B, 4, 4) bone-to-part offsets that keep every relation bone where ``world`` has it while
        its part is at ``part_world`` (SetBoneRelation at the current pose); own bones keep theirs."""
        offsets = rigid_inverse(part_world[self.bone_parts]) @ world
        own = np.zeros(len(self.bone_parts), bool)
        own[self.part_bones] = True
        offsets[own] = self.bone_to_part[own]
        return offsets


def bind_rig(model: Model, profile: RagdollProfile) -> Rig:
    """Resolve names to indices and compute the bind-time frames on the model as drawn
    (``drawn_model.as_drawn``: the rig's model); ProfileError for an inconsistent profile or unknown
    bones."""
    problem = first_problem(profile)
    if problem:
        raise ProfileError(profile.path, *problem)
    model = as_drawn(model)
    skeleton = model.skeleton
    parts = profile.parts
    part_bones = np.array([_bone(model, profile, part.bone, f"parts[{i}].bone")
                           for i, part in enumerate(parts)], dtype=np.intp)
    bind = skeleton.bind_world
    halves = (skeleton.tails[part_bones] - skeleton.heads[part_bones]) / 2
    offsets = np.array([part.offset for part in parts], dtype=np.float64)
    part_bind = rigid(bind[part_bones])
    part_bind[:, :3, 3] += halves + offsets
    box_rotations = maths.quat_to_matrix(maths.quat_normalize(np.array([p.rotation for p in parts], float)))

    bone_parts = _follow(model, profile, part_bones)
    bone_to_part = rigid_inverse(part_bind[bone_parts]) @ bind

    names = [part.name for part in parts]
    joints = profile.joints
    joint_parts = np.array([(names.index(j.part_a), names.index(j.part_b)) for j in joints], dtype=np.intp)
    joint_parts = joint_parts.reshape(-1, 2)
    attach_a = np.array([j.offset_a for j in joints], dtype=np.float64).reshape(-1, 3)
    attach_b = np.array([j.offset_b for j in joints], dtype=np.float64).reshape(-1, 3)
    midpoints = 0.5 * (maths.transform_points(part_bind[joint_parts[:, 0]], attach_a)
                       + maths.transform_points(part_bind[joint_parts[:, 1]], attach_b))
    joint_bind = maths.quat_to_matrix(maths.quat_normalize(
        np.array([j.rotation for j in joints], dtype=np.float64).reshape(-1, 4)))
    joint_bind[:, :3, 3] = midpoints
    kinds = tuple(KINDS[j.kind] for j in joints)
    hinge = np.array([len(kind.axes) == 1 for kind in kinds], dtype=bool)
    limits = np.radians([(kind.values(j) + (0.0,) * 3)[:3] for kind, j in zip(kinds, joints)]).reshape(-1, 3)
    return Rig(model=model, profile=profile, part_bones=part_bones, part_bind=part_bind,
               box_rotations=box_rotations, half_extents=np.array([p.size for p in parts], float) / 2,
               masses=np.array([p.mass for p in parts], float), bone_parts=bone_parts,
               bone_to_part=bone_to_part, joint_parts=joint_parts, joint_bind=joint_bind, hinge=hinge,
               joint_limits=limits, capsules=np.array([p.shape == "capsule" for p in parts], dtype=bool),
               joint_kinds=kinds)


def _bone(model: Model, profile: RagdollProfile, name: str, where: str) -> int:
    try:
        return model.skeleton.index(name)
    except KeyError:
        raise ProfileError(profile.path, where,
                           f"the name of a bone of {model.name!r}, got {name!r}") from None


def _follow(model: Model, profile: RagdollProfile, part_bones: np.ndarray) -> np.ndarray:
    """(B,) the part each bone follows: its own, its relation's, else its parent's (a root: part 0)."""
    skeleton = model.skeleton
    names = [part.name for part in profile.parts]
    follows = np.full(len(skeleton), -1, dtype=np.intp)
    for bone, part in profile.relations.items():
        follows[_bone(model, profile, bone, f"relations[{json.dumps(bone)}]")] = names.index(part)
    follows[part_bones] = np.arange(len(part_bones))
    follows[(follows < 0) & (skeleton.parents < 0)] = 0
    for level in skeleton.levels[1:]:
        inherit = level[follows[level] < 0]
        follows[inherit] = follows[skeleton.parents[inherit]]
    return follows
