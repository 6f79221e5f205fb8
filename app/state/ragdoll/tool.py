"""The ragdoll in the view: what a press, drag, release or hover does (a handle of the selection or
the simulation?), the editing mode, the handle under the pointer and the one dragged, and the gizmo
scene and marks the view draws. Plain Python: the viewport hands it rays, the window repaints on its
``changed`` event."""

from __future__ import annotations

from app.events import Events
from app.scene.gizmo_scene import GizmoScene
from app.scene.view_marks import ViewMarks
from app.state.ragdoll.handles import Handle, HandleDrag, handles, pick_handle
from app.state.ragdoll.document import RagdollDocument
from app.state.ragdoll.gizmos import ragdoll_gizmos
from app.state.ragdoll.simulation import Simulation


class RagdollTool:
    """The view's ray tool for the ragdoll ``document`` and its ``simulation``.

    ``editing``: the ragdoll panel shows (gizmos and handles drawn, clicks pick parts). While editing
    and stopped, a press on a handle of the selection drags it (``handle_drag``); otherwise presses,
    drags and clicks go to the simulation (shoot, pull, pick). Events: ``changed()`` when a handle
    drag begins or ends or another handle comes under the pointer (``hovered``).
    """

    def __init__(self, document: RagdollDocument, simulation: Simulation):
        self.document = document
        self.simulation = simulation
        self.editing = False
        self.handle_drag: HandleDrag | None = None
        self.hovered: Handle | None = None
        self.events = Events("changed")
        document.events.subscribe("selection", self._forget_hover)  # before the views redraw

    def gizmo_scene(self) -> GizmoScene | None:
        """The ragdoll's gizmos, the dragged (else hovered) handle lit."""
        active = self.handle_drag.handle if self.handle_drag is not None else self.hovered
        return ragdoll_gizmos(self.document, self.simulation, self.editing, active)

    def marks(self) -> ViewMarks:
        """The last shot's ray and the drag spring, for the view to draw (none while stopped)."""
        simulation = self.simulation
        if not simulation.running:
            return ViewMarks()
        return ViewMarks(shot=simulation.last_shot, spring=simulation.drag_spring())

    # --- rays from the view --------------------------------------------------------------------------

    def click_ray(self, origin, direction) -> bool:
        return self.simulation.click_ray(origin, direction, pick=self.editing)

    def begin_drag_ray(self, origin, direction, forward, forced: bool = False) -> bool:
        """A press in the view: while editing, on a handle of the selection, start dragging it;
        while running, start pulling a part (``Simulation.begin_drag_ray``)."""
        if self.editing and not self.simulation.running:
            handle = pick_handle(handles(self.document, self.simulation), origin, direction)
            if handle is not None:
                self.handle_drag = HandleDrag(self.document, handle, origin, direction)
                self.events.emit("changed")
                return True
        return self.simulation.begin_drag_ray(origin, direction, forward, forced)

    def hover_ray(self, origin, direction) -> None:
        """The pointer moved over the view with no button down: light up the handle under it."""
        shown = handles(self.document, self.simulation) if self.editing else []
        self._hover(pick_handle(shown, origin, direction) if shown else None)

    def hover_away(self) -> None:
        """The pointer left the view: no handle is under it."""
        self._hover(None)

    def drag_ray(self, origin, direction) -> None:
        if self.handle_drag is not None:
            self.handle_drag.move(origin, direction)
        else:
            self.simulation.drag_ray(origin, direction)

    def end_drag(self) -> None:
        if self.handle_drag is not None:
            self.handle_drag.finish()
            self.handle_drag = None
            self.events.emit("changed")
        else:
            self.simulation.end_drag()

    def _forget_hover(self) -> None:
        self.hovered = None

    def _hover(self, handle: Handle | None) -> None:
        if _handle_key(handle) != _handle_key(self.hovered):
            self.hovered = handle
            self.events.emit("changed")


def _handle_key(handle: Handle | None) -> tuple | None:
    return (handle.kind, handle.axis, handle.target) if handle is not None else None
