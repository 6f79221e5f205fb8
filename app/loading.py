"""Loading a model: the registry reads the files, then the posing work their reader left is done.

Readers convert their file's conventions and never pose (docs/architecture.md, "Layers"). What a
format means only once the model is posed — vertex clips baked from animated meshes (NWN animmesh
samples; glTF morph targets stay targets), glTF tails found at rest, the C3DE check that a bones file
fits its mesh — the reader describes in ``Model.pending`` (app/posing_steps.py), and this stage, above
both the readers and ``pose``, does it. The window, the command line and batch all load through
``load``, so each gets the same baked clips, tails and warnings.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from app import maths
from app.formats import registry
from app.formats.gltf.key_time_rules import check_key_times
from app.formats.registry import LoadOptions, ReadError
from app.bone_tails import derive_tails
from app.model import Mesh, Model, usable_frames
from app.posing_steps import BakeVertexClip, CheckFit, DeriveTailsAtRest
from app.pose import bake_vertex_clip, evaluate, mesh_skinning, posed_positions, rest_pose, skin_mesh


def load(paths: list[str | Path], options: LoadOptions | None = None) -> Model:
    """Read ``paths`` as one model (``formats.read_unposed``) and do what its reader left pending.
    Raises ``ReadError`` for anything that cannot be read."""
    return finish(registry.read_unposed(paths, options))


def other_skeleton_options(options: LoadOptions) -> LoadOptions:
    """The model's reader options for files of another skeleton whose clips it is to play: the up axis
    and the assigned images are the model's own, not those files'. The window's attach and the
    command line's ``--clips-from`` read with these."""
    return replace(options, up=None, textures=[])


def load_written(path: str | Path) -> Model:
    """A file this program just wrote, read back for a check: a glTF is first held to the Khronos
    validator's key-time rules (app/formats/gltf/key_time_rules.py; ReadError where it would be
    rejected)."""
    if Path(path).suffix.lower() in (".glb", ".gltf"):
        check_key_times(Path(path))
    return load([path])


def finish(model: Model) -> Model:
    """Do ``model.pending`` in order and empty it, then freeze the model: loaded, it does not change
    (``Model.freeze``). Numpy's overflow warnings are silenced as in the readers: a value past the
    model's bounds ends in a ReadError naming the file."""
    steps, model.pending = model.pending, []
    with np.errstate(all="ignore"):
        for step in steps:
            if isinstance(step, BakeVertexClip):
                _bake(model, step)
            elif isinstance(step, DeriveTailsAtRest):
                _derive_tails_at_rest(model, step)
            else:
                _check_fit(model, step)
    return model.freeze()


def _bake(model: Model, step: BakeVertexClip) -> None:
    """The baked 'vertex' clip takes the place (and the name, source, events, note and mesh opacity
    keys) of its keyed stand-in."""
    placeholder = step.clip
    index = next(index for index, clip in enumerate(model.clips) if clip is placeholder)
    try:
        baked = bake_vertex_clip(model, placeholder, step.times, step.offsets)
    except ValueError as error:  # the baked positions or matrices are past the model's bounds
        raise ReadError(step.path, str(error)) from None
    baked.source, baked.events, baked.note = placeholder.source, placeholder.events, placeholder.note
    baked.mesh_alpha = placeholder.mesh_alpha
    model.clips[index] = baked


def _derive_tails_at_rest(model: Model, step: DeriveTailsAtRest) -> None:
    """The skeleton with its tails derived where the model is drawn at rest, carried back to bind space.

    A skin's bind space may differ from the nodes' rest space by any transform (a Mixamo character
    binds in centimetres under a root scaled 0.01 and turned 90°): the vertices are skinned to rest,
    tails are found among them and the rest heads, and each tail is mapped by ``B_b @ inv(R_b)`` so
    that ``Pose.heads_tails`` puts it back where it was found."""
    skeleton = model.skeleton
    starts = np.cumsum([0] + [mesh.vertex_count for mesh in model.meshes])
    try:
        posed = posed_positions(model, rest_pose(model))
        rest_meshes = [Mesh(name=mesh.name, positions=posed[start:end], joints=mesh.joints,
                            weights=mesh.weights)
                       for mesh, start, end in zip(model.meshes, starts[:-1], starts[1:])]
        rest_world, _ = usable_frames(skeleton.rest_world)
        _, rest_tails = derive_tails(rest_world, skeleton.parents, rest_meshes)
        to_bind = skeleton.bind_world @ maths.affine_inverse(rest_world) if len(skeleton) \
            else np.zeros((0, 4, 4))
        model.skeleton = replace(skeleton, tails=maths.transform_points(to_bind, rest_tails),
                                 rest_local=None if skeleton.rest_is_bind else skeleton.rest_local)
    except ValueError as error:  # the rest pose puts vertices or tails past the model's bounds
        raise ReadError(step.path, str(error)) from None


def _edge_lengths(positions: np.ndarray, triangles: np.ndarray) -> np.ndarray:
    """(3T,) lengths of each triangle's edges 0→1, 1→2, 2→0 in turn. Each corner is gathered once
    (three gathers a triangle, not six: the gathers are most of the fit check's time)."""
    corners = positions[triangles]
    return np.linalg.norm((corners - corners[:, [1, 2, 0]]).reshape(-1, 3), axis=1)


def _posed_corners(model: Model, pose, mesh: Mesh, corners: np.ndarray, start: int) -> np.ndarray:
    """(C, 3) ``mesh``'s vertices ``corners`` posed as ``posed_positions`` poses them (C3DE meshes, the
    fit check's, have no morph targets); ``start``: the mesh's first vertex among the model's."""
    if pose.positions is not None:
        return pose.positions[start + corners].astype(np.float64)
    sample = Mesh(name=mesh.name, positions=mesh.positions[corners], joints=mesh.joints[corners],
                  weights=mesh.weights[corners])
    return skin_mesh(sample, mesh_skinning(model, pose, mesh))


#: The fit check measures the edges of at most this many triangles, drawn at random (a fixed seed: the
#: same file gets the same verdict; not every k-th, which a regular grid's pattern can alias): a share of
#: stretched edges is as clear from them as from a million (to about half a percentage point), and
#: skinning a sample keeps a large C3DE mesh's load at the speed of its reading. Meshes this small are
#: measured whole.
FIT_TRIANGLES = 1 << 14


def _check_fit(model: Model, step: CheckFit) -> None:
    """A warning when, posed at the first clip's first frame, more than ``step.edge_share`` of the
    meshes' triangle edges (``FIT_TRIANGLES`` of them at most) stretch or shrink by more than
    ``step.stretch`` times (bones of another character, whose count happens to match, tear the mesh
    into a tangle)."""
    first = model.clips[0]
    pose = evaluate(model, first, first.start)
    share_measured = min(FIT_TRIANGLES / max(sum(len(mesh.triangles) for mesh in model.meshes), 1), 1.0)
    choices = np.random.default_rng(0)
    rest, moved, start = [], [], 0
    for mesh in model.meshes:
        if len(mesh.triangles):
            sample = mesh.triangles
            if share_measured < 1.0:
                count = max(round(len(sample) * share_measured), 1)
                sample = sample[np.sort(choices.choice(len(sample), count, replace=False))]
            corners, triangles = np.unique(sample, return_inverse=True)
            triangles = triangles.reshape(-1, 3)
            rest.append(_edge_lengths(mesh.positions[corners], triangles))
            moved.append(_edge_lengths(_posed_corners(model, pose, mesh, corners, start), triangles))
        start += mesh.vertex_count
    if not rest:
        return
    rest, moved = np.concatenate(rest), np.concatenate(moved)
    kept = rest > 1e-9 * max(1.0, float(rest.max()))
    ratio = moved[kept] / rest[kept]
    share = float(np.mean((ratio > step.stretch) | (ratio < 1 / step.stretch))) if kept.any() else 0.0
    if share > step.edge_share:
        model.warnings.append(f"{', '.join(step.mesh_files)} does not fit {step.bones_file}: at its first "
                              f"frame {share:.0%} of the mesh's edges stretch or shrink more than "
                              f"{step.stretch:g} times (the bones of another character?)")
