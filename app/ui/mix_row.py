"""The timeline's second row, shown while mixing is on: "with [clip B] [Cross-fade|Blend|Add] [fade
or weight] [whole body | under a bone] [Keep as Clip]". A view of ``ViewerState.mix``: each change
goes to ``set_mix``, which bakes the mix again and plays it; the row shows the settings back, and
why a mix cannot be made. The amount field waits a moment before it asks (``AMOUNT_WAIT_MS``): a
long clip takes a noticeable time to bake, and arrows or the wheel change the field many times a
second."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt, QTimer
from PySide6.QtWidgets import (QComboBox, QDoubleSpinBox, QHBoxLayout, QLabel, QMessageBox, QToolButton,
                               QWidget)

from app.state.live_mix import MODES, MixSettings
from app.state.viewer import ViewerState
from app.ui.elided_text import ElidedComboBox, ElidedLabel

#: How the mode box names each mode, and what it says of it.
MODE_LABELS = {"crossfade": ("Cross-fade", "The chosen clip, then this one, faded over the time given"),
               "blend": ("Blend", "Both clips at once, this one by the weight given (0..1)"),
               "add": ("Add", "This clip's change from its first frame on top of the chosen clip, by the "
                              "weight given (0..1)")}
#: The MixSettings field the amount field sets in each mode.
AMOUNT_FIELDS = {"crossfade": "fade", "blend": "weight", "add": "add_weight"}
#: Milliseconds the amount field waits after a change before the mix is baked again (two 60 s clips
#: of 3600 keys bake in about half a second).
AMOUNT_WAIT_MS = 150
#: Characters of the second clip's name its box shows at least.
CLIP_NAME_CHARACTERS = 10
PROBLEM_STYLE = "color: #d04040"


class MixRow(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.state: ViewerState | None = None
        self.second = ElidedComboBox(self)
        self.second.setMinimumContentsLength(CLIP_NAME_CHARACTERS)
        self.second.setToolTip("The clip that joins the chosen one")
        self.mode = QComboBox(self)
        for mode in MODES:
            label, tip = MODE_LABELS[mode]
            self.mode.addItem(label, mode)
            self.mode.setItemData(self.mode.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        self.amount = QDoubleSpinBox(self)
        self.amount.setKeyboardTracking(False)
        self.amount.setDecimals(3)
        self.amount.setSingleStep(0.05)
        self.mask = QComboBox(self)
        self.mask.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.mask.setToolTip("Where the second clip plays: the whole body, or only the subtree of the "
                             "bone selected in the Outliner")
        self.keep = QToolButton(self)
        self.keep.setText("Keep as Clip")
        self.keep.setToolTip("Add the mix to the model's clips (it exports with them) and end mixing")
        self.problem = ElidedLabel(self)
        self.problem.setStyleSheet(PROBLEM_STYLE)
        self._amount_wait = QTimer(self)
        self._amount_wait.setSingleShot(True)
        self._amount_wait.setInterval(AMOUNT_WAIT_MS)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("with", self))
        for widget in (self.second, self.mode, self.amount, self.mask, self.keep):
            layout.addWidget(widget)
        layout.addWidget(self.problem, 1)
        self.second.currentIndexChanged.connect(lambda index: self._set(second=index))
        self.mode.currentIndexChanged.connect(lambda index: self._set(mode=MODES[index]))
        self.amount.valueChanged.connect(lambda _value: self._amount_wait.start())
        self._amount_wait.timeout.connect(self.apply_amount)
        self.mask.currentIndexChanged.connect(lambda index: self._set(mask_bone=self.mask.itemData(index)))
        self.keep.clicked.connect(self.keep_mix)
        self.hide()

    def attach(self, state: ViewerState) -> None:
        """Show ``state``'s mix while there is one; the mask box offers the bone selected."""
        self.state = state
        state.events.subscribe("mix", self.show_mix)
        state.events.subscribe("selection", lambda _bone: self.show_mix(state.mix))

    def _set(self, **changes) -> None:
        """Send ``changes`` to the state, after an amount still waiting to be sent."""
        if self._amount_wait.isActive():
            self.apply_amount()
        if self.state is not None and self.state.mix is not None:
            self.state.set_mix(**changes)

    def apply_amount(self) -> None:
        """The amount field's value as the fade's seconds or the blend's weight (``AMOUNT_WAIT_MS``
        after the last change)."""
        self._amount_wait.stop()
        mix = self.state.mix if self.state is not None else None
        if mix is not None:
            self._set(**{AMOUNT_FIELDS[mix.mode]: self.amount.value()})

    def keep_mix(self) -> None:
        try:
            self.state.keep_mix()
        except ValueError as error:
            QMessageBox.warning(self, "Keep as Clip", str(error))

    def show_mix(self, mix: MixSettings | None) -> None:
        self.setVisible(mix is not None)
        if mix is None:
            self._amount_wait.stop()
            return
        model = self.state.model
        with QSignalBlocker(self.second), QSignalBlocker(self.mode), QSignalBlocker(self.amount), \
                QSignalBlocker(self.mask):
            self.second.clear()
            self.second.addItems([clip.name for clip in model.clips])
            self.second.setCurrentIndex(mix.second)
            self.mode.setCurrentIndex(MODES.index(mix.mode))
            self._show_amount(mix)
            self._show_mask(mix)
        self.problem.setText(self.state.mix_problem)
        self.keep.setEnabled(not self.state.mix_problem)

    def _show_amount(self, mix: MixSettings) -> None:
        if self._amount_wait.isActive():
            return  # the user is changing it: the value shown is the one to come
        if mix.mode == "crossfade":
            self.amount.setRange(0.0, 1e4)
            self.amount.setPrefix("fade ")
            self.amount.setSuffix(" s")
            self.amount.setToolTip("How long the fade lasts (seconds), at most the shorter clip")
        else:
            self.amount.setRange(0.0, 1.0)
            self.amount.setPrefix("weight ")
            self.amount.setSuffix("")
            self.amount.setToolTip("The second clip's share: 0 is the chosen clip alone, 1 this one"
                                   if mix.mode == "blend" else
                                   "How much of this clip's change is added: 0 none, 1 all of it")
        self.amount.setValue(mix.amount)

    def _show_mask(self, mix: MixSettings) -> None:
        """'Whole body', the bone the mix is under, and the bone selected in the Outliner."""
        names = self.state.model.skeleton.names
        self.mask.clear()
        self.mask.addItem("Whole body", None)
        for bone in dict.fromkeys([mix.mask_bone, self.state.selected_bone]):
            if bone is not None:
                self.mask.addItem(f"Under {names[bone]}", bone)
        self.mask.setCurrentIndex(self.mask.findData(mix.mask_bone) if mix.mask_bone is not None else 0)
