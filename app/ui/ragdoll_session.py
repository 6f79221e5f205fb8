"""The Qt side of the ragdoll state: a thin adapter that owns the Qt-free ``RagdollDocument`` and
``Simulation`` (app/state) and turns their events into Qt signals for the main window, the viewport's
ray tool (shoot, drag and pick while running; pick parts and drag handles while editing) and the Edit
menu's undo and redo actions. All logic is in the state.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction

from app.scene.gizmo_scene import GizmoScene
from app.resources import demo_paths
from app.state.handles import Handle, HandleDrag, handles, pick_handle
from app.state.ragdoll_document import RagdollDocument
from app.state.ragdoll_gizmos import ragdoll_gizmos
from app.state.simulation import Simulation
from app.ui.view_overlay import ViewMarks
from app.user_files import user_data_dir


class RagdollSession(QObject):
    """What the ragdoll panel edits and the viewport shows.

    Signals: ``profile_changed`` (a new or edited profile, also after undo/redo), ``state_changed``
    (running, paused, settings, a handle drag begun or ended), ``selection_changed``. ``editing``: the
    ragdoll panel shows (gizmos and handles drawn, clicks pick parts). The viewer state drives the
    simulation itself (``ViewerState``); this adapter is what the window's Qt pieces connect to.
    """

    profile_changed = Signal()
    state_changed = Signal()
    selection_changed = Signal()

    def __init__(self, parent=None, data_dir: str | Path | None = None):
        super().__init__(parent)
        data_dir = Path(data_dir) if data_dir is not None else user_data_dir()
        self.document = RagdollDocument(data_dir, builtin_files=tuple(demo_paths()))
        self.simulation = Simulation(self.document)
        self.editing = False
        #: The handle being dragged in the view (app.state.handles), if any, and the one under the pointer.
        self.handle_drag: HandleDrag | None = None
        self.hovered: Handle | None = None
        self.document.events.subscribe("profile", lambda _why="": self.profile_changed.emit())
        self.document.events.subscribe("selection", self._forget_hover)  # before the views redraw
        self.document.events.subscribe("selection", self.selection_changed.emit)
        for name in ("running", "settings"):
            self.simulation.events.subscribe(name, self.state_changed.emit)

    # --- what the window reads -------------------------------------------------------------------------

    @property
    def ragdoll(self):
        """The pybullet world (None before the first run)."""
        return self.simulation.ragdoll

    @property
    def selected_part(self) -> int | None:
        return self.document.selected_part

    def gizmo_scene(self) -> GizmoScene | None:
        active = self.handle_drag.handle if self.handle_drag is not None else self.hovered
        return ragdoll_gizmos(self.document, self.simulation, self.editing, active)

    def close(self) -> None:
        self.simulation.close()

    # --- the Edit menu -------------------------------------------------------------------------------

    def undo_action(self, parent) -> QAction:
        """An Undo action that follows the document's history."""
        return self._history_action(parent, "&Undo", self.document.undo, lambda d: (d.can_undo, d.undo_text))

    def redo_action(self, parent) -> QAction:
        return self._history_action(parent, "&Redo", self.document.redo, lambda d: (d.can_redo, d.redo_text))

    def _history_action(self, parent, label: str, slot, state) -> QAction:
        action = QAction(label, parent)
        action.triggered.connect(lambda _=False: slot())

        def show() -> None:
            enabled, text = state(self.document)
            action.setEnabled(enabled)
            action.setText(f"{label} {text}".strip())

        self.document.events.subscribe("history", show)
        show()
        return action

    # --- the viewport's ray tool ---------------------------------------------------------------------

    def click_ray(self, origin, direction) -> bool:
        return self.simulation.click_ray(origin, direction, pick=self.editing)

    def begin_drag_ray(self, origin, direction, forward, forced: bool = False) -> bool:
        """A press in the view: while editing, on a handle of the selection, start dragging it;
        while running, start pulling a part (``Simulation.begin_drag_ray``)."""
        if self.editing and not self.simulation.running:
            handle = pick_handle(handles(self.document, self.simulation), origin, direction)
            if handle is not None:
                self.handle_drag = HandleDrag(self.document, handle, origin, direction)
                self.state_changed.emit()
                return True
        return self.simulation.begin_drag_ray(origin, direction, forward, forced)

    def _forget_hover(self) -> None:
        self.hovered = None

    def hover_ray(self, origin, direction) -> None:
        """The pointer moved over the view with no button down: light up the handle under it."""
        shown = handles(self.document, self.simulation) if self.editing else []
        self._hover(pick_handle(shown, origin, direction) if shown else None)

    def hover_away(self) -> None:
        """The pointer left the view: no handle is under it."""
        self._hover(None)

    def _hover(self, handle: Handle | None) -> None:
        if _handle_key(handle) != _handle_key(self.hovered):
            self.hovered = handle
            self.state_changed.emit()

    def drag_ray(self, origin, direction) -> None:
        if self.handle_drag is not None:
            self.handle_drag.move(origin, direction)
        else:
            self.simulation.drag_ray(origin, direction)

    def end_drag(self) -> None:
        if self.handle_drag is not None:
            self.handle_drag.finish()
            self.handle_drag = None
            self.state_changed.emit()
        else:
            self.simulation.end_drag()

    def marks(self) -> ViewMarks:
        """The last shot's ray and the drag spring, for the view to draw (none while stopped)."""
        simulation = self.simulation
        if not simulation.running:
            return ViewMarks()
        return ViewMarks(shot=simulation.last_shot, spring=simulation.drag_spring())


def _handle_key(handle: Handle | None) -> tuple | None:
    return (handle.kind, handle.axis, handle.target) if handle is not None else None
