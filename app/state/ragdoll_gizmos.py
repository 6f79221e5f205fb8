"""What the view draws over the model for the ragdoll, from the document and the simulation: while
editing, the parts, joint frames and limit arcs (the selection highlighted); while running with
several copies, the other copies' parts."""

from __future__ import annotations

from app.render.gizmos import GizmoScene, ragdoll_scene
from app.state.ragdoll_document import RagdollDocument
from app.state.simulation import Simulation


def ragdoll_gizmos(document: RagdollDocument, simulation: Simulation, editing: bool) -> GizmoScene | None:
    """The ragdoll's gizmo scene (None when there is nothing to draw)."""
    rig = document.rig
    if rig is None or not (editing or (simulation.running and simulation.copies > 1)):
        return None
    frames = simulation.part_frames()
    boxes = frames @ rig.box_rotations
    return ragdoll_scene(
        boxes[0] if editing else None, rig.half_extents, extent=document.model.extent(),
        joint_world=rig.joint_world(frames[0]), hinge=rig.hinge, joint_limits=rig.joint_limits,
        selected_part=document.selected_part, selected_joint=document.selected_joint,
        copy_box_world=boxes[1:].reshape(-1, 4, 4) if len(boxes) > 1 else None, show_joints=editing,
        capsules=rig.capsules)
