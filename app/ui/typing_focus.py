"""Where the keyboard goes in the main window: single-key shortcuts reach the view unless a text field
(a line edit, a number field, a table's cell editor) is being typed in."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSignalBlocker, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QAbstractSpinBox, QApplication, QLineEdit, QWidget

#: Keys that end typing in a text field and give the keys back to the view.
FIELD_END_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Escape)


class TypingFocus(QObject):
    """The keyboard-focus rules of ``window``, whose ``view`` takes the keys when nothing is typed.

    Focus the user did not move (a dialog closing, a dock hiding with the focus in it, the window
    coming back) goes to the view, unless it returns to the field the user was typing in. Enter or
    Escape in a text field ends the typing; ``undo`` and ``redo`` stay the window's in number fields.
    Watches the application's focus until ``close``.
    """

    def __init__(self, window: QWidget, view: QWidget, undo: QAction, redo: QAction):
        super().__init__(window)
        self.window, self.view = window, view
        self.undo, self.redo = undo, redo
        self._typing_in: QWidget | None = None
        QApplication.instance().focusChanged.connect(self._focus_changed)

    def close(self) -> None:
        QApplication.instance().focusChanged.disconnect(self._focus_changed)

    def _focus_changed(self, old, new) -> None:
        if new is None or new.window() is not self.window:
            return
        if _types_text(new):
            new.installEventFilter(self)  # see eventFilter (installing twice keeps one filter)
        chosen = QApplication.mouseButtons() != Qt.MouseButton.NoButton or (
            old is not None and old.window() is self.window and old.isVisible())
        if chosen:
            self._typing_in = new if _types_text(new) else None
        elif new is not self.view and new is not self._typing_in:
            self.view.setFocus(Qt.FocusReason.OtherFocusReason)

    def eventFilter(self, watched, event) -> bool:
        """Installed on text fields as they take the focus. Enter or Escape ends the typing: the field
        takes the key (Enter sets the value, Escape drops what was typed in a number field), then the
        keys go back to the view. Undo and redo stay the window's while a number field has focus (its
        own line-edit undo would take the keys)."""
        if event.type() == QEvent.Type.KeyPress and event.key() in FIELD_END_KEYS and _types_text(watched):
            if _in_spin_box(watched):
                _end_typing_in_number_field(watched, keep=event.key() != Qt.Key.Key_Escape)
            cell_editor = _cell_editor(watched)
            if cell_editor is None:
                QTimer.singleShot(0, self._keys_to_view)
            else:
                # A table commits and closes its cell editor in a queued call: taking the focus before
                # that closed the editor early, and the queued commit made Qt warn (commitData).
                cell_editor.destroyed.connect(self._keys_to_view)
        elif event.type() == QEvent.Type.ShortcutOverride and _in_spin_box(watched):
            keys = QKeySequence(event.keyCombination())
            if keys in self.undo.shortcuts() + self.redo.shortcuts():
                return True
        return super().eventFilter(watched, event)

    def _keys_to_view(self) -> None:
        self._typing_in = None
        self.view.setFocus(Qt.FocusReason.ShortcutFocusReason)


def _types_text(widget) -> bool:
    """True for a widget that takes typed text: a line edit or a spin box (or its line edit)."""
    return isinstance(widget, QLineEdit) or _in_spin_box(widget)


def _cell_editor(widget) -> QWidget | None:
    """The item view's cell editor ``widget`` is or is inside, or None."""
    while widget is not None:
        holder = widget.parentWidget()
        if holder is not None and isinstance(holder.parentWidget(), QAbstractItemView) \
                and holder is holder.parentWidget().viewport():
            return widget
        widget = holder
    return None


def _in_spin_box(widget) -> bool:
    return isinstance(widget, QAbstractSpinBox) or isinstance(widget.parentWidget(), QAbstractSpinBox)


def _end_typing_in_number_field(widget, keep: bool) -> None:
    """Set what was typed into a number field as its value (``keep``), or show its value again in its
    place. Done before the field loses the focus: a table's cell editor is read when it loses the focus,
    before it would take the typed value itself."""
    box = widget if isinstance(widget, QAbstractSpinBox) else widget.parentWidget()
    if keep:
        box.interpretText()
        return
    with QSignalBlocker(box):
        box.setValue(box.value())
