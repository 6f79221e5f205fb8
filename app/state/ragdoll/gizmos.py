"""What the view draws over the model for the ragdoll, from the document and the simulation: while
editing, the parts, joint frames and limit arcs (the selection highlighted) and the selection's drag
handles; while running with several copies, the other copies' parts."""

from __future__ import annotations

import numpy as np

from app.scene.gizmo_scene import (ACTIVE_HANDLE_COLOR, AXIS_COLORS, GizmoScene, handle_scene, joined_scenes,
                                    ragdoll_scene)
from app.state.ragdoll.handles import Handle, handles
from app.state.ragdoll.document import RagdollDocument
from app.state.ragdoll.simulation import Simulation
from app.pose import rest_extent

#: How each kind of handle is drawn (app.scene.gizmo_scene.handle_scene).
HANDLE_SHAPES = {"move": "arrow", "size": "knob", "rotate": "ring", "pivot": "arrow"}


def ragdoll_gizmos(document: RagdollDocument, simulation: Simulation, editing: bool,
                   active: Handle | None = None) -> GizmoScene | None:
    """The ragdoll's gizmo scene (None when there is nothing to draw); ``active``: the handle being
    dragged, drawn highlighted."""
    rig = document.rig
    if rig is None or not (editing or (simulation.running and simulation.copies > 1)):
        return None
    frames = simulation.part_frames()
    boxes = frames @ rig.box_rotations
    scene = ragdoll_scene(
        boxes[0] if editing else None, rig.half_extents, extent=rest_extent(document.model),
        joint_world=rig.joint_world(frames[0]), hinge=rig.hinge, joint_limits=rig.joint_limits,
        selected_part=document.selected_part, selected_joint=document.selected_joint,
        copy_box_world=boxes[1:].reshape(-1, 4, 4) if len(boxes) > 1 else None, show_joints=editing,
        capsules=rig.capsules)
    shown = handles(document, simulation) if editing else []
    if not shown:
        return scene
    return joined_scenes(scene, handles_scene(shown, active))


def handles_scene(shown: list[Handle], active: Handle | None = None) -> GizmoScene:
    """The handles, coloured by axis (X red, Y green, Z blue), the one being dragged highlighted."""
    def color(handle: Handle):
        dragged = active is not None and (handle.kind, handle.axis) == (active.kind, active.axis)
        return ACTIVE_HANDLE_COLOR if dragged else AXIS_COLORS[handle.axis]

    return handle_scene([HANDLE_SHAPES[h.kind] for h in shown], np.array([h.origin for h in shown]),
                        np.array([h.direction for h in shown]), np.array([h.length for h in shown]),
                        np.array([color(h) for h in shown]))
