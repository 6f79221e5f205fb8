"""The ragdoll panel's Collisions tab: the part pairs that never collide, with Disable Pair and
Enable Pair. A view of ``RagdollDocument``."""

from __future__ import annotations

from PySide6.QtWidgets import QListWidget, QWidget

from app.state.ragdoll.document import RagdollDocument
from app.ui.ragdoll.widgets import choose_two_parts, warn_on_error, with_buttons


class CollisionsTab(QWidget):
    def __init__(self, document: RagdollDocument, parent=None):
        super().__init__(parent)
        self.document = document
        self.pairs = QListWidget()
        self.pairs.setToolTip("Part pairs that never collide, besides jointed pairs and pairs touching "
                              "at the bind pose")
        with_buttons(self, self.pairs, ("Disable Pair…", self.disable_pair_dialog),
                     ("Enable Pair", self.enable_pair))
        document.events.subscribe("profile", self._fill)
        self._fill()

    def _fill(self, _why: str = "") -> None:
        profile = self.document.profile
        self.pairs.clear()
        if profile is not None:
            self.pairs.addItems([f"{a} – {b}" for a, b in profile.disabled_collisions])
        self.setEnabled(profile is not None)

    def disable_pair_dialog(self) -> bool:
        names = [part.name for part in self.document.profile.parts]
        first, second = choose_two_parts(self, names, "Disable collision", "Part:", "Never collides with:")
        return bool(second) and warn_on_error(self, "Disable collision",
                                              lambda: self.document.set_collision(first, second, False))

    def enable_pair(self) -> bool:
        row = self.pairs.currentRow()
        if row < 0:
            return False
        a, b = self.document.profile.disabled_collisions[row]
        return warn_on_error(self, "Enable collision", lambda: self.document.set_collision(a, b, True))
