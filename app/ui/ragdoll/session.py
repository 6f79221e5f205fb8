"""The Qt side of the ragdoll: the state's ``RagdollTool`` (app/state/ragdoll/tool.py), its document
and simulation, relayed as Qt signals for the window and the ragdoll panel, and the Edit menu's undo
and redo actions. Every decision is the state's."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction

from app.state.ragdoll.tool import RagdollTool


class RagdollSession(QObject):
    """What the ragdoll panel edits and the viewport shows.

    Signals: ``profile_changed`` (a new or edited profile, also after undo/redo), ``state_changed``
    (running, paused, settings, a handle drag begun or ended, another handle hovered),
    ``selection_changed`` (a part or a joint), ``part_selected`` (another part, not none: the window
    shows the Parts tab then, and keeps the tab the user is on when only the joint changed).
    """

    profile_changed = Signal()
    state_changed = Signal()
    selection_changed = Signal()
    part_selected = Signal()

    def __init__(self, tool: RagdollTool, parent=None):
        super().__init__(parent)
        self.tool = tool
        self.document = tool.document
        self.simulation = tool.simulation
        self.document.events.subscribe("profile", lambda _why="": self.profile_changed.emit())
        self._shown_part = self.document.selected_part
        self.document.events.subscribe("selection", self._selection_changed)
        for name in ("running", "settings"):
            self.simulation.events.subscribe(name, self.state_changed.emit)
        tool.events.subscribe("changed", self.state_changed.emit)

    @property
    def ragdoll(self):
        """The pybullet world (None before the first run)."""
        return self.simulation.ragdoll

    @property
    def editing(self) -> bool:
        return self.tool.editing

    @editing.setter
    def editing(self, on: bool) -> None:
        self.tool.editing = on

    @property
    def hovered(self):
        return self.tool.hovered

    @property
    def handle_drag(self):
        return self.tool.handle_drag

    @property
    def selected_part(self) -> int | None:
        return self.document.selected_part

    def close(self) -> None:
        self.simulation.close()

    def _selection_changed(self) -> None:
        self.selection_changed.emit()
        part = self.document.selected_part
        if part != self._shown_part:
            self._shown_part = part
            if part is not None:
                self.part_selected.emit()

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
