"""Ragdoll › Check Profile: ``ragdoll --check``'s report in a dialog (docs/ragdoll.md). Clicking a
problem selects the part it names (a joint's: its part b), as the Parts and Joints tables do."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QListWidget, QListWidgetItem, QVBoxLayout

from app.state.ragdoll.document import RagdollDocument

#: The name a problem line is about: ``part 'x'``, ``joint 'x'`` or ``bone 'x'``.
SUBJECT = re.compile(r"^(part|joint|bone) '([^']*)'")


def problem_part(document: RagdollDocument, line: str) -> int | None:
    """The index of the part a problem line is about (a joint's part b; a bone's part it follows is
    not it, so none), or None."""
    match = SUBJECT.match(line)
    profile = document.profile
    if match is None or profile is None:
        return None
    kind, name = match.groups()
    names = [part.name for part in profile.parts]
    if kind == "part" and name in names:
        return names.index(name)
    if kind == "joint":
        joint = next((j for j in profile.joints if j.name == name), None)
        return names.index(joint.part_b) if joint is not None else None
    return None


class CheckDialog(QDialog):
    """The report's verdict, each problem on a line (click: select its part), and the worst figures."""

    def __init__(self, report: dict, document: RagdollDocument, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Check Profile")
        self.document = document
        layout = QVBoxLayout(self)
        joints, parts = report["joints"], report["parts"]
        worst_turn = max((j["overshoot_deg"] for j in joints), default=0.0)
        worst_depth = max((p["penetration_cm"] for p in parts), default=0.0)
        summary = (f"{'Sound' if report['verdict'] == 'pass' else 'Not sound'}: worst overshoot "
                   f"{worst_turn:g}° (at most {report['thresholds']['overshoot_deg']:g}°), deepest part "
                   f"{worst_depth:g} cm (at most {report['thresholds']['penetration_cm']:g} cm).")
        self.summary = QLabel(summary, self)
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        self.problems = QListWidget(self)
        for line in report["problems"] or ["No problems."]:
            item = QListWidgetItem(line, self.problems)
            item.setData(Qt.ItemDataRole.UserRole, problem_part(document, line))
        self.problems.itemClicked.connect(self._select)
        layout.addWidget(self.problems)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(560, 320)

    def _select(self, item: QListWidgetItem) -> None:
        part = item.data(Qt.ItemDataRole.UserRole)
        if part is not None:
            self.document.select_part(part)
