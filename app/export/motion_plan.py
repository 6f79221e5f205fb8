"""How each clip's bone motion goes into glTF's translate-rotate-scale nodes, exactly.

A glTF node's local transform is T·R·S. A bone whose world matrix is a rigid motion times a fixed
scale or shear ``C_b`` is no T·R·S under its parent, but becomes one once ``C_b`` moves into the skin:
the node's world matrix is ``N_b(t) = W_b(t) @ inv(C_b)`` and the inverse bind matrix ``C_b @ IBM_b``,
so every skinning matrix ``N_b @ C_b @ IBM_b = W_b @ IBM_b`` is unchanged. The plan picks ``C_b``
bone by bone, roots first (identity where nothing needs it), and says per clip how it is written:
its keys as they are (a keyed clip none of whose tracked bones, nor their parents, has a factor),
T·R·S sampled at its stored frames, or — where a bone's motion still has no T·R·S form — baked into
morph targets.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from app import maths
from app.model import Clip, Model
from app.pose import evaluate

#: Largest T·R·S residual, relative to the matrix's size, that still counts as T·R·S.
TRS_TOLERANCE = 1e-6


@dataclass
class MotionPlan:
    """factors: (B, 4, 4) ``C_b`` (linear, identity for most bones); rest_local: (B, 4, 4) the
    nodes' local matrices at rest; sampled: clip index → (F, B, 4, 4) node local matrices at its
    stored frames (a clip not listed here nor in ``baked`` keeps its keys); baked: clip index → the
    bones whose motion in that clip has no T·R·S form (the clip becomes morph targets)."""

    factors: np.ndarray
    rest_local: np.ndarray
    sampled: dict[int, np.ndarray] = field(default_factory=dict)
    baked: dict[int, list[str]] = field(default_factory=dict)


def plan_motion(model: Model, clips: list[Clip], rest_world: np.ndarray,
                fills_rest: bool = False) -> MotionPlan:
    """The plan for writing ``clips`` with the nodes at rest in ``rest_world`` (B, 4, 4).

    ``fills_rest``: keyed clips will carry every bone's rest value where they have no key (the
    nodes rest elsewhere), so they keep their keys only when no bone at all has a factor."""
    skeleton = model.skeleton
    count = len(skeleton)
    worlds = [_clip_worlds(model, clip) for clip in clips]  # per clip (F, B, 4, 4) or None
    moving = _moving_bones(clips, count)
    factors = np.broadcast_to(np.eye(4), (count, 4, 4)).copy()
    rest_node = rest_world.copy()
    clip_nodes = [None if world is None else world.copy() for world in worlds]
    failures: dict[int, list[int]] = {}
    for level in skeleton.levels:
        for bone in level:
            parent = skeleton.parents[bone]
            rest_in_parent = _relative(rest_node[None], parent, rest_world[bone][None])[0]
            in_parent = [None if world is None else _relative(nodes, parent, world[:, bone])
                         for world, nodes in zip(worlds, clip_nodes)]
            if moving[bone]:
                factor, failed = _choose_factor(rest_in_parent, in_parent)
                factors[bone] = factor
                for clip_index in failed:
                    failures.setdefault(clip_index, []).append(bone)
            inverse = np.linalg.inv(factors[bone])
            rest_node[bone] = rest_world[bone] @ inverse
            for world, nodes in zip(worlds, clip_nodes):
                if world is not None:
                    nodes[:, bone] = world[:, bone] @ inverse
    rest_local = _locals(skeleton.parents, rest_node[None])[0]
    plain = np.all(factors == np.eye(4), axis=(1, 2))
    plan = MotionPlan(factors=factors, rest_local=rest_local)
    for index, (clip, nodes) in enumerate(zip(clips, clip_nodes)):
        if nodes is None:
            continue
        if index in failures:
            plan.baked[index] = [skeleton.names[bone] for bone in failures[index]]
        elif clip.kind == "matrices" or not _keys_fit(clip, skeleton.parents, plain, fills_rest):
            plan.sampled[index] = _locals(skeleton.parents, nodes)
    return plan


def _keys_fit(clip: Clip, parents: np.ndarray, plain: np.ndarray, fills_rest: bool) -> bool:
    """Whether a keyed clip's own keys hold its motion: its tracked bones and their parents have no
    factor (every bone, when rest values fill the gaps). ``plain``: (B,) bool, no factor."""
    if fills_rest:
        return bool(plain.all())
    tracked = np.array([track.bone for track in clip.tracks], dtype=np.intp)
    above = parents[tracked]
    return bool(plain[tracked].all() and plain[above[above >= 0]].all())


def _clip_worlds(model: Model, clip: Clip) -> np.ndarray | None:
    """(F, B, 4, 4) bone world matrices at the clip's stored frames; None for vertex clips."""
    if clip.kind == "matrices":
        return clip.world.astype(np.float64)
    if clip.kind == "keyed":
        return np.stack([evaluate(model, clip, float(time)).world for time in clip.frame_times])
    return None


def _moving_bones(clips: list[Clip], count: int) -> np.ndarray:
    """(B,) bool: bones some skeletal clip moves (their nodes must be T·R·S)."""
    moving = np.zeros(count, bool)
    for clip in clips:
        if clip.kind == "matrices":
            moving[:] = True
        elif clip.kind == "keyed":
            moving[[track.bone for track in clip.tracks]] = True
    return moving


def _relative(nodes: np.ndarray, parent: int, world: np.ndarray) -> np.ndarray:
    """(F, 4, 4) ``inv(N_parent) @ world`` per frame (``world`` itself for a root)."""
    if parent < 0:
        return world
    return _safe_inverse(nodes[:, parent]) @ world


def _safe_inverse(matrices: np.ndarray) -> np.ndarray:
    try:
        return maths.affine_inverse(matrices)
    except ValueError:  # a collapsed parent: no exact relative frame (its clips fail the T·R·S test)
        return np.linalg.pinv(matrices)


def _choose_factor(rest: np.ndarray, clips: list[np.ndarray | None]) -> tuple[np.ndarray, list[int]]:
    """The factor for one bone: identity, else the fixed stretch of its rest or of a clip's first
    frame, whichever leaves the most clips T·R·S (ties: the one that keeps the rest T·R·S).

    ``rest``: (4, 4) and ``clips``: per clip (F, 4, 4) or None, relative to the parent's node.
    Returns the factor and the clips it leaves non-T·R·S.
    """
    candidates = [np.eye(4), _stretch(rest)] + [_stretch(frames[0]) for frames in clips if frames is not None]
    best = None
    for factor in candidates:
        inverse = np.linalg.inv(factor)
        failed = [index for index, frames in enumerate(clips)
                  if frames is not None and _residual(frames @ inverse) > TRS_TOLERANCE]
        rest_residual = _residual((rest @ inverse)[None])
        score = (len(failed), rest_residual > TRS_TOLERANCE)
        if best is None or score < best[0]:
            best = (score, factor, failed)
        if score == (0, False):
            break
    return best[1], best[2]


def _stretch(matrix: np.ndarray) -> np.ndarray:
    """(4, 4) the symmetric factor ``P`` of the polar decomposition ``A = Q·P`` of ``matrix``'s 3×3
    part (negated for a mirroring matrix, so that ``Q`` is a rotation); identity if singular."""
    linear = matrix[:3, :3]
    _, sigma, vt = np.linalg.svd(linear)
    if sigma.min() <= 1e-12 * max(sigma.max(), 1e-300):
        return np.eye(4)
    stretch = np.eye(4)
    stretch[:3, :3] = (vt.T * sigma) @ vt * np.sign(np.linalg.det(linear))
    return stretch


def _residual(matrices: np.ndarray) -> float:
    """Largest T·R·S residual of (F, 4, 4) matrices, relative to their size."""
    residual = maths.decompose_trs(matrices)[3]
    size = np.maximum(np.abs(matrices).max(axis=(-2, -1)), 1.0)
    return float((residual / size).max())


def _locals(parents: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """(F, B, 4, 4) parent-relative matrices from node world matrices (F, B, 4, 4)."""
    local = nodes.copy()
    children = np.flatnonzero(parents >= 0)
    local[:, children] = _safe_inverse(nodes[:, parents[children]]) @ nodes[:, children]
    return local

