"""Widgets whose text gives way when space is short: the middle of it is replaced by "…" (where file
names differ: their ends), and the whole text is the tooltip."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QComboBox, QLabel, QSizePolicy, QStyle, QStyleOptionComboBox, QStylePainter

#: The width, in characters, an elided label keeps however short space is.
MIN_CHARACTERS = 6


class ElidedLabel(QLabel):
    """A one-line label that asks for its whole text's width but shrinks below it first when space is
    short (labels beside it keep theirs), eliding the text in the middle; the full text is its tooltip."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._full_text = ""
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)

    def setText(self, text: str) -> None:
        self._full_text = text
        self.setToolTip(text)
        self._elide()

    def full_text(self) -> str:
        return self._full_text

    def sizeHint(self):
        hint = super().sizeHint()
        hint.setWidth(self.fontMetrics().horizontalAdvance(self._full_text) + 8)
        return hint

    def minimumSizeHint(self):
        hint = super().minimumSizeHint()
        hint.setWidth(self.fontMetrics().horizontalAdvance("M" * MIN_CHARACTERS))
        return hint

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(self._full_text, Qt.TextElideMode.ElideMiddle, self.width())
        super().setText(shown)


class ElidedComboBox(QComboBox):
    """A combo box that shows its current item elided in the middle when it does not fit (Qt cuts the
    end), and whose list elides in the middle too (it widens to the longest item first); the current
    item's whole text is its tooltip."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.view().setTextElideMode(Qt.TextElideMode.ElideMiddle)

    def current_tooltip(self) -> str:
        """The current item's whole text, and the item's own tooltip below it."""
        index = self.currentIndex()
        details = self.itemData(index, Qt.ItemDataRole.ToolTipRole) if index >= 0 else None
        return "\n".join(filter(None, (self.currentText(), details)))

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            self.setToolTip(self.current_tooltip())
        return super().event(event)

    def showPopup(self) -> None:
        """The list as wide as its longest item, up to the screen's width."""
        view = self.view()
        widest = view.sizeHintForColumn(0) + view.verticalScrollBar().sizeHint().width() + 8
        view.setMinimumWidth(min(widest, int(self.screen().availableGeometry().width() * 0.9)))
        super().showPopup()

    def shown_text(self) -> str:
        """The current item's text as the box shows it: elided in the middle to its field's width."""
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        return self._elided(option)

    def _elided(self, option: QStyleOptionComboBox) -> str:
        field = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                            QStyle.SubControl.SC_ComboBoxEditField, self)
        return self.fontMetrics().elidedText(option.currentText, Qt.TextElideMode.ElideMiddle, field.width())

    def paintEvent(self, event) -> None:
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        option.currentText = self._elided(option)
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)
