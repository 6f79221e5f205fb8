"""The Ragdoll dock: the Simulation box, the Profile box, and the Parts, Joints and Collisions tabs
(each its own module, each a view of the Qt-free ``RagdollDocument`` or ``Simulation``: widgets call
the state, state events refresh the widgets with their signals blocked, and no widget keeps state of
its own). The actions (``ragdoll_actions``) are shared with the window's Ragdoll menu, so their
shortcuts are listed in Help › Shortcuts.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (QApplication, QDockWidget, QFrame, QMainWindow, QScrollArea, QSizePolicy,
                               QTabWidget, QVBoxLayout, QWidget)

from app.ui.ragdoll.collisions_tab import CollisionsTab
from app.ui.ragdoll.dock_width import DockFit
from app.ui.ragdoll.joints_tab import JointsTab
from app.ui.ragdoll.parts_tab import PartsTab
from app.ui.ragdoll.profile_box import ProfileBox, ask_to_save_profile
from app.ui.ragdoll.session import RagdollSession
from app.ui.ragdoll.simulation_box import SimulationBox
from app.ui.ragdoll.typed_keys import TypedKeys


class WheelToScrollBar(QObject):
    """An event filter that hands wheel turns to ``scroll_bar``: the panel scrolls on over its tab
    bar instead of switching tabs as the bar passes under the pointer."""

    def __init__(self, scroll_bar):
        super().__init__(scroll_bar)
        self.scroll_bar = scroll_bar

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Wheel:
            QApplication.sendEvent(self.scroll_bar, event)
            return True
        return False


class RagdollPanel(QDockWidget):
    """The Ragdoll dock (object name ``ragdoll``). ``go_requested(bool)``: the user asked to start
    (True) or stop the ragdoll; the window knows the clip and time to take over from.
    ``bake_requested``: the user asked to turn the run so far into a clip."""

    go_requested = Signal(bool)
    bake_requested = Signal()

    def __init__(self, session: RagdollSession, parent=None):
        super().__init__("Ragdoll", parent)
        self.setObjectName("ragdoll")
        self.session = session
        document = session.document
        body = QWidget(self)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        self.simulation_box = SimulationBox(session.simulation, body)
        self.simulation_box.go_requested.connect(self.go_requested)
        self.simulation_box.bake_requested.connect(self.bake_requested)
        self.profile_box = ProfileBox(document, body)
        layout.addWidget(self.simulation_box)
        layout.addWidget(self.profile_box)
        attempt = self.profile_box.attempt
        self.parts_tab = PartsTab(document, attempt)
        self.joints_tab = JointsTab(document, attempt)
        self.collisions_tab = CollisionsTab(document)
        self.tabs = QTabWidget(body)
        self.tabs.addTab(self.parts_tab, "Parts")
        self.tabs.addTab(self.joints_tab, "Joints")
        self.tabs.addTab(self.collisions_tab, "Collisions")
        # The tabs take the room left rather than asking for their tables' full height, but never less
        # than four rows, their buttons and the joint editor's fields: below that the panel scrolls.
        self.tabs.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Ignored)
        pages = max(self.tabs.widget(i).minimumSizeHint().height() for i in range(self.tabs.count()))
        self.tabs.setMinimumHeight(pages + self.tabs.tabBar().sizeHint().height() + 8)
        layout.addWidget(self.tabs, stretch=1)
        # Scrolled, so the panel never sets a minimum size on the window (it shares the left area).
        scroll = QScrollArea(self)
        scroll.setWidget(body)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(body.minimumSizeHint().width() + scroll.verticalScrollBar().sizeHint().width())
        self.setWidget(scroll)
        self._wheel_guard = WheelToScrollBar(scroll.verticalScrollBar())
        self.tabs.tabBar().installEventFilter(self._wheel_guard)
        self._typed_keys = TypedKeys(self)
        if isinstance(parent, QMainWindow):
            self._fit = DockFit(parent, self, [self.parts_tab.table, self.joints_tab.table])
            document.events.subscribe("profile", lambda *_: self._fit.refit())

    @property
    def go_action(self) -> QAction:
        return self.simulation_box.go_action

    def ragdoll_actions(self) -> list[QAction | None]:
        """The actions in menu order (None: a separator), for the window's Ragdoll menu."""
        return self.simulation_box.actions_in_order() + [None] + self.profile_box.actions_in_order()

    def save(self) -> bool:
        return self.profile_box.save()

    def warn_unused_profile(self) -> None:
        self.profile_box.warn_unused_profile()


def ask_to_save(parent: QWidget, panel: RagdollPanel) -> bool:
    """When the profile has unsaved edits, ask Save / Discard / Cancel; False means stay (cancelled,
    or the save failed)."""
    return ask_to_save_profile(parent, panel.profile_box)
