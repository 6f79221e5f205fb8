"""Danglymesh sway (View › Dangly Motion, ``render --dangly``): each vertex of a mesh with
``DanglyParams`` hangs on a damped spring from the place its animation puts it (its anchor), so it
lags behind when the node moves and swings back (docs/formats/nwn-dangly-emitters.md).

For a vertex at ``p`` with anchor ``a(t)``: ``p'' = −ω²(p − a) − 2ζω(p' − a')``, ω = 2π / period, ζ from
the tightness (``DanglyParams.damping_ratio``). Between two poses the anchor is taken to move in a
straight line at constant speed, so the offset ``d = p − a`` obeys the free damped oscillator
within a step and its rate jumps by the anchor's change of velocity where a step begins; each step is
solved exactly (closed form, vectorised over vertices), so the result depends only on the sequence of
poses and step lengths, not on how often the window draws. Then each offset is held within the
vertex's reach (displacement × constraint / 255; a vertex at 0 is pinned), its outward rate dropped.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from app.model import Clip, Mesh, Model
from app.pose import Pose, evaluate, mesh_skinning
from app.skin_weights import top_influences

#: The step ``swung_at`` takes from the clip's start to the instant asked for (30 frames/s).
STILL_STEP = 1.0 / 30.0


def damped_step(offsets: np.ndarray, rates: np.ndarray, omega: float, zeta: float,
                seconds: float) -> tuple[np.ndarray, np.ndarray]:
    """The free damped oscillator ``d'' = −ω²d − 2ζωd'`` (ζ < 1) carried ``seconds`` on from offsets
    and rates (V, 3): the closed-form solution."""
    decay = np.exp(-zeta * omega * seconds)
    damped = omega * np.sqrt(1.0 - zeta * zeta)
    cosine = np.cos(damped * seconds)
    sine_over_damped = seconds * np.sinc(damped * seconds / np.pi)  # sin(ω_d t) / ω_d, also as ω_d → 0
    moved = decay * (offsets * cosine + (rates + zeta * omega * offsets) * sine_over_damped)
    rates = decay * (rates * cosine - (omega * omega * offsets + zeta * omega * rates) * sine_over_damped)
    return moved, rates


def held_within(offsets: np.ndarray, rates: np.ndarray, reach: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Offsets (V, 3) no longer than ``reach`` (V,), the rates' outward part dropped where one was cut."""
    lengths = np.linalg.norm(offsets, axis=1)
    over = lengths > reach
    if not over.any():
        return offsets, rates
    directions = np.divide(offsets, lengths[:, None], out=np.zeros_like(offsets), where=lengths[:, None] > 0)
    offsets = np.where(over[:, None], directions * reach[:, None], offsets)
    outward = np.maximum(np.sum(rates * directions, axis=1), 0.0)
    rates = np.where(over[:, None], rates - outward[:, None] * directions, rates)
    return offsets, rates


class _Influences:
    """A mesh's influences as the GPU takes them (four, renormalised); ``bone`` when every vertex rides
    on that one bone alone (an NWN danglymesh: its own node), so one matrix skins them all."""

    def __init__(self, mesh: Mesh):
        self.joints, self.weights = top_influences(mesh.joints, mesh.weights, 4)
        lead = self.joints[:, 0]
        alone = (self.weights[:, 0] == 1.0) & (self.weights[:, 1:].sum(axis=1) == 0)
        self.bone = int(lead[0]) if len(lead) and alone.all() and (lead == lead[0]).all() else None

    def matrices(self, skin: np.ndarray) -> np.ndarray:
        """(4, 4) the one bone's skinning matrix, else (V, 4, 4) each vertex's blend (identity for a
        vertex with no weight)."""
        if self.bone is not None:
            return skin[self.bone]
        blended = np.einsum("vk,vkij->vij", self.weights.astype(np.float64), skin[self.joints])
        blended[self.weights.sum(axis=1) == 0] = np.eye(4)
        return blended


class DanglySwing:
    """The sway of every danglymesh of ``model``, stepped pose by pose (``step``) and started again
    from rest (``reset``: a seek, a new clip). ``swung(pose)`` is the pose with the swung meshes."""

    def __init__(self, model: Model):
        self.model = model
        self.meshes = [index for index, mesh in enumerate(model.meshes) if mesh.dangly is not None]
        self.influences = [_Influences(model.meshes[index]) for index in self.meshes]
        self.reset()

    @property
    def active(self) -> bool:
        return bool(self.meshes)

    def reset(self) -> None:
        """Every vertex at its anchor, at rest; the next step only records where the anchors are."""
        counts = [self.model.meshes[index].vertex_count for index in self.meshes]
        self.offsets = [np.zeros((count, 3)) for count in counts]
        self.rates = [np.zeros((count, 3)) for count in counts]
        self.velocities = [np.zeros((count, 3)) for count in counts]
        self.anchors: list[np.ndarray] | None = None

    def _anchors(self, pose: Pose) -> list[np.ndarray]:
        """(V, 3) each swung mesh's vertices where ``pose`` puts them, in model space."""
        found = []
        for index, influences in zip(self.meshes, self.influences):
            mesh = self.model.meshes[index]
            matrices = influences.matrices(mesh_skinning(self.model, pose, mesh))
            if matrices.ndim == 2:
                found.append(mesh.positions @ matrices[:3, :3].T + matrices[:3, 3])
            else:
                turned = np.einsum("vij,vj->vi", matrices[:, :3, :3], mesh.positions)
                found.append(turned + matrices[:, :3, 3])
        return found

    def step(self, pose: Pose, seconds: float) -> None:
        """The meshes carried ``seconds`` on to ``pose`` (the first step after a reset records the
        anchors only)."""
        anchors = self._anchors(pose)
        if self.anchors is None or seconds <= 0:
            self.anchors = anchors
            return
        for number, index in enumerate(self.meshes):
            params = self.model.meshes[index].dangly
            velocity = (anchors[number] - self.anchors[number]) / seconds
            rates = self.rates[number] - (velocity - self.velocities[number])
            offsets, rates = damped_step(self.offsets[number], rates, params.angular_frequency,
                                         params.damping_ratio, seconds)
            self.offsets[number], self.rates[number] = held_within(offsets, rates, params.reach)
            self.velocities[number] = velocity
        self.anchors = anchors

    def swung(self, pose: Pose) -> Pose:
        """``pose`` with each danglymesh's vertices moved by their offsets (carried into the mesh's
        bind space through each vertex's skinning, so the GPU skins them as usual)."""
        if not self.active:
            return pose
        moved = dict(pose.mesh_positions)
        for number, (index, influences) in enumerate(zip(self.meshes, self.influences)):
            mesh = self.model.meshes[index]
            undo = np.linalg.pinv(influences.matrices(mesh_skinning(self.model, pose, mesh))[..., :3, :3])
            offsets = self.offsets[number]
            bind_offsets = offsets @ undo.T if undo.ndim == 2 else np.einsum("vij,vj->vi", undo, offsets)
            moved[index] = (mesh.positions + bind_offsets).astype(np.float32)
        return replace(pose, mesh_positions=moved)


def swung_at(model: Model, clip: Clip | None, time: float, step: float = STILL_STEP) -> Pose:
    """The pose of ``clip`` at ``time`` with its danglymeshes swung as if it had played from the clip's
    start in steps of ``step`` seconds (``render --dangly`` for a still)."""
    pose = evaluate(model, clip, time)
    swing = DanglySwing(model)
    if clip is None or not swing.active:
        return pose
    times = np.append(np.arange(clip.start, time, step), time)
    previous = None
    for instant in times:
        swing.step(evaluate(model, clip, float(instant)), 0.0 if previous is None else instant - previous)
        previous = instant
    return swing.swung(pose)
