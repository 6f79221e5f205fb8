"""Before the model on screen is dropped (File › Close), the clips the user added to it — through
the bone map, Keep as Clip or a baked ragdoll run — which live only in the window until exported."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

from app.state.viewer import ViewerState

#: Clip names the question lists before "and N more".
LISTED_CLIPS = 5


def ask_to_drop_clips(parent: QWidget, state: ViewerState) -> bool:
    """When the user added clips, ask Discard / Cancel; False means stay (keep the model)."""
    names = state.user_work.unsaved_clips
    if not names:
        return True
    listed = ", ".join(repr(name) for name in names[:LISTED_CLIPS])
    if len(names) > LISTED_CLIPS:
        listed += f" and {len(names) - LISTED_CLIPS} more"
    answer = QMessageBox.warning(
        parent, "Unsaved clips",
        f"The clips added in this session ({listed}) are not in the model's files; File › Export glTF "
        "keeps them.\n\nClose the model and drop them?",
        QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
        QMessageBox.StandardButton.Cancel)
    return answer == QMessageBox.StandardButton.Discard
