"""Keys typed into the ragdoll panel edit the panel.

The window's single-key shortcuts (Left and Right step the timeline, Space plays, Home, End, L, R)
are window-wide, so without this a digit or an arrow typed into a table cell or a number box stepped
the timeline instead. Qt asks the focused widget first with a ShortcutOverride event; accepting it
for a key with no Ctrl, Alt or Meta sends the key to the widget. Enter or Escape on a table that is
not editing hands the keys back: the table lets go of the focus, and the window's shortcuts apply.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import (QAbstractItemView, QAbstractSpinBox, QApplication, QComboBox, QLineEdit,
                               QWidget)

#: Modifiers that make a key a command, left to the shortcuts.
COMMAND_MODIFIERS = (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
                     | Qt.KeyboardModifier.MetaModifier)
HAND_BACK_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Escape)
TYPING_WIDGETS = (QLineEdit, QAbstractSpinBox, QComboBox, QAbstractItemView)


class TypedKeys(QObject):
    """An application event filter that keeps keys typed inside ``panel`` in the panel (see the
    module). It lives and dies with the panel."""

    def __init__(self, panel: QWidget):
        super().__init__(panel)
        self.panel = panel
        QApplication.instance().installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            return False
        if not isinstance(watched, TYPING_WIDGETS) or not self.panel.isAncestorOf(watched):
            return False
        if event.modifiers() & COMMAND_MODIFIERS:
            return False
        if kind == QEvent.Type.ShortcutOverride:
            event.accept()
            return True
        if isinstance(watched, QAbstractItemView) and event.key() in HAND_BACK_KEYS:
            # While a cell is edited, the editor has already taken the key (its delegate commits in a
            # queued call); passed on up, it took the focus from the editor first, so the editor was
            # committed and closed twice and Qt warned about commitData.
            if watched.state() != QAbstractItemView.State.EditingState:
                watched.clearFocus()
            return True
        return False
