"""The ragdoll panel's Profile box: the profile's file and state (unsaved, could not be used), save,
save as, load, auto setup, symmetric editing, the total mass, and the last edit's error. A view of
``RagdollDocument``; the file dialogs and questions are here, the rules (where profiles live, what
saving may replace) in the document."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import (QCheckBox, QFileDialog, QGroupBox, QHBoxLayout, QLabel, QMessageBox,
                               QPushButton, QVBoxLayout, QWidget)

from app.physics.profile import ProfileError
from app.physics.profile_location import SUFFIX
from app.state.ragdoll.document import RagdollDocument
from app.ui.ragdoll.widgets import make_action, set_value, spin

PROFILE_FILTER = f"Ragdoll profiles (*{SUFFIX});;JSON files (*.json);;All files (*)"


class ProfileBox(QGroupBox):
    def __init__(self, document: RagdollDocument, parent=None):
        super().__init__("Profile", parent)
        self.document = document
        self.problem_box: QMessageBox | None = None
        self.save_action = make_action(self, "Sa&ve Ragdoll Profile", "Ctrl+S", self.save)
        self.save_as_action = make_action(self, "Save Ragdoll Profile &As…", None, self.save_as)
        self.load_action = make_action(self, "&Load Ragdoll Profile…", None, self.load_dialog)
        self.auto_action = make_action(self, "Auto S&etup", None, self.auto_setup,
                                       tip="Replace the profile by a new automatic one (undoable)")
        self._build()
        events = document.events
        events.subscribe("profile", self._show_profile)
        events.subscribe("history", self._show_file)
        events.subscribe("file", self._show_file)
        self._show_profile()

    def actions_in_order(self):
        return [self.save_action, self.save_as_action, self.load_action, self.auto_action]

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        self.file_label = QLabel(self)
        self.file_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.file_label.setWordWrap(True)
        layout.addWidget(self.file_label)
        self.message_label = QLabel(self)
        self.message_label.setWordWrap(True)
        layout.addWidget(self.message_label)
        row = QHBoxLayout()
        self.save_button = QPushButton("Save", self)
        self.save_button.clicked.connect(self.save)
        self.save_as_button = QPushButton("Save As…", self)
        self.save_as_button.clicked.connect(self.save_as)
        self.load_button = QPushButton("Load…", self)
        self.load_button.clicked.connect(self.load_dialog)
        self.auto_button = QPushButton("Auto Setup", self)
        self.auto_button.clicked.connect(self.auto_setup)
        for button in (self.save_button, self.save_as_button, self.load_button, self.auto_button):
            row.addWidget(button)
        layout.addLayout(row)
        row = QHBoxLayout()
        self.symmetric_box = QCheckBox("Symmetric editing", self)
        self.symmetric_box.setToolTip("Edits to a left or right part or joint also change its twin")
        self.symmetric_box.toggled.connect(self.document.set_symmetric)
        row.addWidget(self.symmetric_box)
        row.addStretch(1)
        self.total_mass_box = spin(self, 0.01, 1e6, 1.0, 2, " kg",
                                   "Total mass, shared out in the parts' ratios")
        self.total_mass_box.setPrefix("total ")
        self.total_mass_box.valueChanged.connect(lambda total: self.attempt(
            lambda: self.document.set_total_mass(total)))
        row.addWidget(self.total_mass_box)
        layout.addLayout(row)
        self.error_label = QLabel(self)
        self.error_label.setStyleSheet("color: #e06060")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        layout.addWidget(self.error_label)

    # --- showing -------------------------------------------------------------------------------------

    def _show_profile(self, _why: str = "") -> None:
        document = self.document
        enabled = document.profile is not None
        for widget in (self.save_button, self.save_as_button, self.total_mass_box, self.symmetric_box):
            widget.setEnabled(enabled)
        self.auto_button.setEnabled(document.model is not None and len(document.model.skeleton) > 0)
        self.load_button.setEnabled(document.model is not None)
        for action in (self.save_action, self.save_as_action):
            action.setEnabled(enabled)
        if enabled:
            set_value(self.total_mass_box, document.profile.total_mass)
        self._show_file()

    def _show_file(self) -> None:
        document = self.document
        if document.path is None:
            text = "not saved (the model has no file)"
        elif document.load_error is not None:
            text = f"{document.path} could not be used; saving asks before replacing it"
        else:
            text = str(document.path) + ("" if document.path.is_file() else " (not saved yet)")
        self.file_label.setText(("● " if document.dirty else "") + text)
        self.file_label.setToolTip(str(document.path or ""))
        self.message_label.setText(document.message)
        self.message_label.setVisible(bool(document.message))
        with QSignalBlocker(self.symmetric_box):
            self.symmetric_box.setChecked(document.symmetric)

    # --- editing -------------------------------------------------------------------------------------

    def report(self, error: Exception | None) -> None:
        """Show the last edit's error (None: it worked)."""
        if error is None:
            self.error_label.hide()
        else:
            self.error_label.setText(str(error))
            self.error_label.show()

    def attempt(self, edit, refresh=None) -> bool:
        """Run an edit of the document, showing its ``ValueError``; then ``refresh`` puts the
        editing widget back to the unchanged profile."""
        try:
            edit()
        except ValueError as error:
            self.report(error)
            (refresh or self._show_profile)()
            return False
        self.report(None)
        return True

    def auto_setup(self) -> bool:
        return self.attempt(self.document.auto_setup)

    # --- files ---------------------------------------------------------------------------------------

    def save(self) -> bool:
        """Save where the profile lives (beside the model); Save As when there is no such place."""
        if self.document.path is None:
            return self.save_as()
        return self._save_to(None)

    def save_as(self) -> bool:
        start = str(self.document.path) if self.document.path is not None else ""
        path, _ = QFileDialog.getSaveFileName(self, "Save ragdoll profile", start, PROFILE_FILTER)
        if not path:
            return False
        if not path.endswith(".json"):
            path += SUFFIX
        return self._save_to(path, replace=True)

    def _save_to(self, path, replace: bool = False) -> bool:
        """Save; when that would overwrite a file the profile did not come from, ask first (Save As
        has asked already: ``replace``)."""
        document = self.document
        existing = None if replace else document.replaces(path)
        if existing is not None:
            answer = QMessageBox.question(
                self, "Replace ragdoll profile",
                f"{existing} already exists and is not the profile being edited"
                + (f" (it could not be used: {document.load_error})" if document.load_error else "")
                + ".\n\nReplace it?",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
                QMessageBox.StandardButton.Cancel)
            if answer != QMessageBox.StandardButton.Yes:
                return False
        try:
            document.save(path, replace=True)
        except (OSError, ProfileError, ValueError) as error:
            QMessageBox.warning(self, "Save ragdoll profile", f"Could not save the profile: {error}")
            return False
        return True

    def load_dialog(self) -> bool:
        if not ask_to_save_profile(self, self):
            return False
        start = str(self.document.path.parent) if self.document.path is not None else ""
        path, _ = QFileDialog.getOpenFileName(self, "Load ragdoll profile", start, PROFILE_FILTER)
        if not path:
            return False
        try:
            self.document.load(Path(path))
        except ProfileError as error:
            QMessageBox.warning(self, "Load ragdoll profile", str(error))
            return False
        return True

    def warn_unused_profile(self) -> None:
        """When the model's saved profile could not be used, say so in a dialog (not blocking: the
        window goes on with a new automatic setup) naming the file, the JSON path and the problem."""
        error = self.document.load_error
        if error is None:
            return
        where = f" at {error.where}" if error.where else ""
        self.problem_box = QMessageBox(
            QMessageBox.Icon.Warning, "Ragdoll profile not used",
            f"The ragdoll profile {error.path} could not be used{where}:\n{error.message}\n\n"
            "The file is left as it is. The ragdoll starts from a new automatic setup, not saved; "
            "saving it asks before replacing the file.", QMessageBox.StandardButton.Ok, self)
        self.problem_box.open()


def ask_to_save_profile(parent: QWidget, box: ProfileBox) -> bool:
    """When the profile has unsaved edits, ask Save / Discard / Cancel; False means stay (cancelled,
    or the save failed)."""
    if not box.document.dirty:
        return True
    answer = QMessageBox.warning(
        parent, "Unsaved ragdoll profile",
        f"The ragdoll profile has unsaved edits ({box.document.undo_text or 'edits'}).\n\n"
        "Save them before going on?",
        QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
        | QMessageBox.StandardButton.Cancel,
        QMessageBox.StandardButton.Save)
    if answer == QMessageBox.StandardButton.Save:
        return box.save()
    return answer == QMessageBox.StandardButton.Discard
