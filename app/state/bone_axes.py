"""View › Bone Axes: each bone's local axes in the pose shown, as gizmo lines, sized to the model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.pose import rest_extent
from app.scene.gizmo_scene import GizmoScene, bone_axes_scene

if TYPE_CHECKING:
    from app.state.viewer import ViewerState

#: Each axis's length as a share of the model's size (``pose.rest_extent``).
AXIS_SHARE = 0.04


def shown_axes(state: ViewerState) -> GizmoScene | None:
    """The axes of every bone in ``state``'s pose on screen; None while View › Bone Axes is off."""
    if not state.display.bone_axes or state.model is None or state.playback is None:
        return None
    return bone_axes_scene(state.current_pose().world, AXIS_SHARE * rest_extent(state.model))
