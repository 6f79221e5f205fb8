"""The ragdoll dock: simulation controls (go, pause, step, reset, shoot or drag, gravity, ground,
copies, budget, with the real-time factor), the profile's file (save, save as, load, auto setup,
symmetric editing), the parts table and the joint editor.

A view of ``RagdollSession`` (docs/style.md): widget changes call the session, session signals
refresh the widgets with their signals blocked, and the dock keeps no state of its own. The actions
(``ragdoll_actions``) are shared with the window's Ragdoll menu, so their shortcuts are listed in
Help › Shortcuts.
"""

from __future__ import annotations

import math
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QSignalBlocker, Qt, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QApplication, QCheckBox, QComboBox, QDockWidget,
                               QDoubleSpinBox, QFileDialog, QFormLayout, QFrame, QGridLayout, QGroupBox,
                               QHBoxLayout, QHeaderView, QInputDialog, QLabel, QListWidget, QMessageBox,
                               QPushButton, QScrollArea, QSizePolicy, QSpinBox, QSplitter,
                               QStyledItemDelegate, QTableWidget, QTableWidgetItem, QTabWidget, QToolButton,
                               QVBoxLayout, QWidget)

from app.physics.profile import SHAPES, ProfileError
from app.physics.profile_location import SUFFIX
from app.physics.ragdoll import TIME_STEP
from app.ui.ragdoll_session import REALTIME_SHARE, RagdollSession, euler_to_quaternion, quaternion_to_euler

#: Parts table columns.
PART_COLUMNS = ("Part", "Bone", "Shape", "Size X", "Size Y", "Size Z", "Offset X", "Offset Y", "Offset Z",
                "Mass kg")
NAME, BONE, SHAPE, SIZE_X, SIZE_Y, SIZE_Z, OFFSET_X, OFFSET_Y, OFFSET_Z, MASS = range(len(PART_COLUMNS))
JOINT_COLUMNS = ("Joint", "Type", "Part A", "Part B")
KIND_LABELS = {"hinge": "Hinge", "cone_twist": "Cone-twist"}
LIMIT_FIELDS = {"hinge": ("low", "high"), "cone_twist": ("swing1", "swing2", "twist")}
LIMIT_LABELS = {"low": "Low °", "high": "High °", "swing1": "Swing 1 (Z) °", "swing2": "Swing 2 (Y) °",
                "twist": "Twist (X) °"}
#: Item data role holding a cell's number.
VALUE_ROLE = Qt.ItemDataRole.UserRole
#: Offsets and sizes may reach this many times the model's size.
OFFSET_REACH = 10.0
PROFILE_FILTER = f"Ragdoll profiles (*{SUFFIX});;JSON files (*.json);;All files (*)"
#: Below this share of real time the panel says the run is in slow motion and why.
SLOW_MOTION = 0.95


def _number(value: float) -> str:
    return f"{value:.4g}"


def length_step(extent: float) -> tuple[float, int]:
    """(single step, decimals) for length spin boxes on a model of size ``extent``: about a
    hundredth of it, rounded to 1, 2 or 5 × 10^k, with decimals to show three digits of the step."""
    raw = max(extent, 1e-9) / 100.0
    power = 10.0 ** math.floor(math.log10(raw))
    step = power * min((1.0, 2.0, 5.0), key=lambda s: abs(math.log(raw / (power * s))))
    return step, max(0, 2 - int(math.floor(math.log10(step)))) + 1


def _spin(parent, low: float, high: float, step: float, decimals: int, suffix: str = "",
          tip: str = "") -> QDoubleSpinBox:
    box = QDoubleSpinBox(parent)
    box.setRange(low, high)
    box.setDecimals(decimals)
    box.setSingleStep(step)
    box.setKeyboardTracking(False)
    box.setAlignment(Qt.AlignmentFlag.AlignRight)
    if suffix:
        box.setSuffix(suffix)
    if tip:
        box.setToolTip(tip)
    return box


def _set_value(box, value) -> None:
    """Show ``value`` without echoing it back to the session."""
    with QSignalBlocker(box):
        box.setValue(value)


class _PartDelegate(QStyledItemDelegate):
    """Editors for the parts table: a bone list for the bone, a shape list, spin boxes for the numbers; a
    finished edit goes to the session, not into the item (the table is refilled from the profile)."""

    def __init__(self, panel: RagdollPanel):
        super().__init__(panel)
        self.panel = panel

    def createEditor(self, parent, option, index):
        session = self.panel.session
        if index.column() == BONE:
            combo = QComboBox(parent)
            combo.addItems(list(session.model.skeleton.names))
            return combo
        if index.column() == SHAPE:
            combo = QComboBox(parent)
            combo.addItems(list(SHAPES))
            return combo
        if index.column() == MASS:
            return _spin(parent, 0.001, 1e6, 0.1, 3)
        step, decimals = length_step(session.model.extent())
        reach = OFFSET_REACH * session.model.extent()
        low = 10.0 ** -decimals if index.column() <= SIZE_Z else -reach
        return _spin(parent, low, reach, step, decimals)

    def setEditorData(self, editor, index) -> None:
        value = index.data(VALUE_ROLE)
        if isinstance(editor, QComboBox):
            editor.setCurrentText(str(value))
        else:
            editor.setValue(float(value))

    def setModelData(self, editor, model, index) -> None:
        value = editor.currentText() if isinstance(editor, QComboBox) else editor.value()
        self.panel.edit_part_cell(index.row(), index.column(), value)


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
        self.problem_box: QMessageBox | None = None
        self._make_actions()
        body = QWidget(self)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self._simulation_box(body))
        layout.addWidget(self._profile_box(body))
        self.tabs = QTabWidget(body)
        self.tabs.addTab(self._parts_tab(), "Parts")
        self.tabs.addTab(self._joints_tab(), "Joints")
        self.tabs.addTab(self._collisions_tab(), "Collisions")
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
        session.profile_changed.connect(self._show_profile)
        session.state_changed.connect(self._show_state)
        session.selection_changed.connect(self._show_selection)
        self._show_profile()
        self._show_state()

    # --- actions -----------------------------------------------------------------------------------

    def _action(self, text: str, shortcut: str | list | None, slot, checkable: bool = False,
                tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut:
            keys = shortcut if isinstance(shortcut, list) else [shortcut]
            action.setShortcuts([QKeySequence(key) for key in keys])
            tip = f"{tip or text} ({action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)})"
        action.setToolTip(tip or text)
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.setCheckable(checkable)
        (action.toggled if checkable else action.triggered).connect(slot)
        self.addAction(action)
        return action

    def _make_actions(self) -> None:
        session = self.session
        self.go_action = QAction("&Go Ragdoll", self)
        self.go_action.setCheckable(True)
        self.go_action.setShortcut(QKeySequence("Ctrl+G"))
        self.go_action.setToolTip("Go ragdoll from the current frame, or back to the clip (Ctrl+G)")
        self.go_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.go_action.triggered.connect(lambda _=False: self.go_requested.emit(self.go_action.isChecked()))
        self.addAction(self.go_action)
        self.pause_action = self._action("&Pause Ragdoll", "P", session.set_paused, checkable=True)
        self.step_action = self._action("&Step Ragdoll", ".", session.step_frame,
                                        tip="One frame (1/60 s) of simulation")
        self.reset_action = self._action("&Reset Ragdoll", "Ctrl+Shift+G", session.reset,
                                         tip="Back to the pose it took over from")
        self.bake_action = self._action("&Bake Run to Clip", "Ctrl+B", lambda: self.bake_requested.emit(),
                                        tip="The run so far becomes a clip in the timeline (exportable)")
        self.shoot_action = self._action("S&hoot Tool", "X",
                                         lambda on: on and session.set_setting("tool", "shoot"),
                                         checkable=True,
                                         tip="Click the ragdoll to shoot it along the view ray")
        self.drag_action = self._action("&Drag Tool", "C",
                                        lambda on: on and session.set_setting("tool", "drag"),
                                        checkable=True, tip="Drag a part on a spring (Ctrl + drag works with "
                                                            "either tool)")
        tools = QActionGroup(self)
        tools.addAction(self.shoot_action)
        tools.addAction(self.drag_action)
        self.gravity_action = self._action("G&ravity", None, lambda on: session.set_setting("gravity", on),
                                           True)
        self.ground_action = self._action("Gro&und Plane", None, lambda on: session.set_setting("ground", on),
                                          True)
        self.save_action = self._action("Sa&ve Ragdoll Profile", "Ctrl+S", self.save)
        self.save_as_action = self._action("Save Ragdoll Profile &As…", None, self.save_as)
        self.load_action = self._action("&Load Ragdoll Profile…", None, self.load_dialog)
        self.auto_action = self._action("A&uto Setup", None, self._auto_setup,
                                        tip="Replace the profile by a new automatic one (undoable)")

    def ragdoll_actions(self) -> list[QAction | None]:
        """The actions in menu order (None: a separator), for the window's Ragdoll menu."""
        return [self.go_action, self.pause_action, self.step_action, self.reset_action, self.bake_action,
                None,
                self.shoot_action, self.drag_action, self.gravity_action, self.ground_action, None,
                self.save_action, self.save_as_action, self.load_action, self.auto_action]

    # --- building ----------------------------------------------------------------------------------

    def _tool_button(self, parent, action: QAction) -> QToolButton:
        button = QToolButton(parent)
        button.setDefaultAction(action)
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        return button

    def _simulation_box(self, body: QWidget) -> QGroupBox:
        box = QGroupBox("Simulation", body)
        grid = QGridLayout(box)
        grid.setContentsMargins(6, 4, 6, 4)
        buttons = QHBoxLayout()
        for action in (self.go_action, self.pause_action, self.step_action, self.reset_action):
            buttons.addWidget(self._tool_button(box, action))
        buttons.addStretch(1)
        grid.addLayout(buttons, 0, 0, 1, 4)
        tools = QHBoxLayout()
        for action in (self.shoot_action, self.drag_action):
            tools.addWidget(self._tool_button(box, action))
        self.impulse_box = _spin(box, 0.1, 9999.0, 5.0, 1, " N·s", "Shot impulse")
        self.impulse_box.valueChanged.connect(lambda v: self.session.set_setting("impulse", v))
        self.drag_box = _spin(box, 1.0, 999999.0, 100.0, 0, " N",
                              "Drag spring strength (most force it may use)")
        self.drag_box.valueChanged.connect(lambda v: self.session.set_setting("drag_strength", v))
        tools.addStretch(1)
        grid.addLayout(tools, 1, 0, 1, 4)
        strengths = QHBoxLayout()
        strengths.addWidget(QLabel("Shot", box))
        strengths.addWidget(self.impulse_box, stretch=1)
        strengths.addWidget(QLabel("Drag", box))
        strengths.addWidget(self.drag_box, stretch=1)
        grid.addLayout(strengths, 2, 0, 1, 4)
        self.gravity_box = QCheckBox("Gravity", box)
        self.gravity_box.toggled.connect(self.gravity_action.setChecked)
        self.ground_box = QCheckBox("Ground", box)
        self.ground_box.toggled.connect(self.ground_action.setChecked)
        self.copies_box = QSpinBox(box)
        self.copies_box.setRange(1, 200)
        self.copies_box.setPrefix("copies ")
        self.copies_box.setToolTip("How many ragdolls to simulate side by side")
        self.copies_box.setKeyboardTracking(False)
        self.copies_box.valueChanged.connect(lambda v: self.session.set_setting("copies", v))
        self.budget_box = _spin(box, 1.0, 500.0, 1.0, 0, " ms",
                                "Most time spent stepping per frame (stepping takes what real time needs "
                                "up to this)")
        self.budget_box.setPrefix("at most ")
        self.budget_box.valueChanged.connect(lambda v: self.session.set_setting("budget", v / 1000.0))
        settings = (self.gravity_box, self.ground_box, self.copies_box, self.budget_box)
        for column, widget in enumerate(settings):
            grid.addWidget(widget, 3, column)
        self.stats_label = QLabel(box)
        self.stats_label.setWordWrap(True)
        # Its changing text must not resize the dock.
        self.stats_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.stats_label.setMinimumHeight(3 * self.stats_label.fontMetrics().lineSpacing())
        grid.addWidget(self.stats_label, 4, 0, 1, 4)
        return box

    def _profile_box(self, body: QWidget) -> QGroupBox:
        box = QGroupBox("Profile", body)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(6, 4, 6, 4)
        self.file_label = QLabel(box)
        self.file_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.file_label.setWordWrap(True)
        layout.addWidget(self.file_label)
        row = QHBoxLayout()
        self.save_button = QPushButton("Save", box)
        self.save_button.clicked.connect(self.save)
        self.save_as_button = QPushButton("Save As…", box)
        self.save_as_button.clicked.connect(self.save_as)
        self.load_button = QPushButton("Load…", box)
        self.load_button.clicked.connect(self.load_dialog)
        self.auto_button = QPushButton("Auto Setup", box)
        self.auto_button.clicked.connect(self._auto_setup)
        for button in (self.save_button, self.save_as_button, self.load_button, self.auto_button):
            row.addWidget(button)
        layout.addLayout(row)
        row = QHBoxLayout()
        self.symmetric_box = QCheckBox("Symmetric editing", box)
        self.symmetric_box.setToolTip("Edits to a left or right part or joint also change its twin")
        self.symmetric_box.toggled.connect(lambda on: self.session.set_setting("symmetric", on))
        row.addWidget(self.symmetric_box)
        row.addStretch(1)
        self.total_mass_box = _spin(box, 0.01, 1e6, 1.0, 2, " kg",
                                    "Total mass, shared out in the parts' ratios")
        self.total_mass_box.setPrefix("total ")
        self.total_mass_box.valueChanged.connect(self._total_mass_changed)
        row.addWidget(self.total_mass_box)
        layout.addLayout(row)
        self.error_label = QLabel(box)
        self.error_label.setStyleSheet("color: #e06060")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        layout.addWidget(self.error_label)
        return box

    def _parts_tab(self) -> QWidget:
        self.parts_table = table = QTableWidget(0, len(PART_COLUMNS))
        table.setHorizontalHeaderLabels(PART_COLUMNS)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                              | QAbstractItemView.EditTrigger.EditKeyPressed
                              | QAbstractItemView.EditTrigger.AnyKeyPressed)
        table.setItemDelegate(_PartDelegate(self))
        table.verticalHeader().hide()
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        table.itemSelectionChanged.connect(self._part_row_selected)
        return self._with_buttons(table, ("Add Part…", self.add_part_dialog),
                                  ("Remove Part", self.remove_part))

    def _with_buttons(self, widget: QWidget, *buttons) -> QWidget:
        """``widget`` above a row of (label, slot) push buttons."""
        holder = QWidget()
        layout = QVBoxLayout(holder)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(widget, stretch=1)
        row = QHBoxLayout()
        for label, slot in buttons:
            button = QPushButton(label, holder)
            button.clicked.connect(lambda _=False, f=slot: f())
            row.addWidget(button)
        layout.addLayout(row)
        return holder

    def _collisions_tab(self) -> QWidget:
        self.collisions_list = QListWidget()
        self.collisions_list.setToolTip("Part pairs that never collide, besides jointed pairs and pairs "
                                        "touching at the bind pose")
        return self._with_buttons(self.collisions_list, ("Disable Pair…", self.disable_pair_dialog),
                                  ("Enable Pair", self.enable_pair))

    def _joints_tab(self) -> QWidget:
        splitter = QSplitter(Qt.Orientation.Vertical)
        self.joints_table = table = QTableWidget(0, len(JOINT_COLUMNS))
        table.setHorizontalHeaderLabels(JOINT_COLUMNS)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.verticalHeader().hide()
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        table.itemSelectionChanged.connect(self._joint_row_selected)
        splitter.addWidget(self._with_buttons(table, ("Add Joint…", self.add_joint_dialog),
                                              ("Remove Joint", self.remove_joint)))
        self.joint_form = form_widget = QWidget()
        form = self.joint_form_layout = QFormLayout(form_widget)
        form.setContentsMargins(4, 4, 4, 4)
        self.part_a_box, self.part_b_box = QComboBox(form_widget), QComboBox(form_widget)
        self.part_a_box.activated.connect(lambda _: self._edit_joint(part_a=self.part_a_box.currentText()))
        self.part_b_box.activated.connect(lambda _: self._edit_joint(part_b=self.part_b_box.currentText()))
        form.addRow("Part A", self.part_a_box)
        form.addRow("Part B", self.part_b_box)
        self.offset_a_boxes = self._vector_row(form, "Offset A", "offset_a")
        self.offset_b_boxes = self._vector_row(form, "Offset B", "offset_b")
        self.euler_boxes = self._vector_row(form, "Orientation °", "rotation", angles=True)
        self.kind_box = QComboBox(form_widget)
        for kind, label in KIND_LABELS.items():
            self.kind_box.addItem(label, kind)
        self.kind_box.activated.connect(lambda _: self._edit_joint(kind=self.kind_box.currentData()))
        form.addRow("Type", self.kind_box)
        self.limit_boxes = {}
        for name, label in LIMIT_LABELS.items():
            low = -180.0 if name in ("low", "high") else 0.0
            box = _spin(form_widget, low, 180.0, 1.0, 1)
            box.valueChanged.connect(lambda value, n=name: self._edit_joint(**{n: value}))
            self.limit_boxes[name] = box
            form.addRow(label, box)
        splitter.addWidget(form_widget)
        return splitter

    def _vector_row(self, form: QFormLayout, label: str, field: str,
                    angles: bool = False) -> list[QDoubleSpinBox]:
        row = QHBoxLayout()
        boxes = []
        for axis in "XYZ":
            box = _spin(self.joint_form, -1e3, 1e3, 1.0, 4, tip=f"{label} {axis}") if not angles else \
                _spin(self.joint_form, -360.0, 360.0, 5.0, 1,
                      tip=f"{axis} angle (static axes, X applied first)")
            box.valueChanged.connect(lambda _value, f=field: self._joint_vector_changed(f))
            row.addWidget(box)
            boxes.append(box)
        form.addRow(label, row)
        return boxes

    # --- showing -----------------------------------------------------------------------------------

    def _show_profile(self) -> None:
        session = self.session
        profile = session.profile
        enabled = profile is not None
        for widget in (self.tabs, self.save_button, self.save_as_button, self.total_mass_box,
                       self.symmetric_box):
            widget.setEnabled(enabled)
        self.auto_button.setEnabled(session.model is not None and len(session.model.skeleton) > 0)
        self.load_button.setEnabled(session.model is not None)
        for action in (self.go_action, self.save_action, self.save_as_action):
            action.setEnabled(enabled)
        self._fill_parts()
        self.collisions_list.clear()
        if profile is not None:
            self.collisions_list.addItems([f"{a} – {b}" for a, b in profile.disabled_collisions])
        self._fill_joints()
        if session.model is not None:
            step, decimals = length_step(session.model.extent())
            reach = OFFSET_REACH * session.model.extent()
            for box in self.offset_a_boxes + self.offset_b_boxes:
                box.setDecimals(decimals)
                box.setSingleStep(step)
                box.setRange(-reach, reach)
        if enabled:
            _set_value(self.total_mass_box, profile.total_mass)
        self._show_selection()
        self._show_file()

    def _fill_parts(self) -> None:
        table = self.parts_table
        parts = self.session.profile.parts if self.session.profile is not None else []
        with QSignalBlocker(table):
            table.setRowCount(len(parts))
            for row, part in enumerate(parts):
                values = [part.name, part.bone, part.shape, *part.size, *part.offset, part.mass]
                for column, value in enumerate(values):
                    item = table.item(row, column)
                    if item is None:
                        item = QTableWidgetItem()
                        flags = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
                        if column != NAME:
                            flags |= Qt.ItemFlag.ItemIsEditable
                        item.setFlags(flags)
                        if column >= SIZE_X:
                            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                        table.setItem(row, column, item)
                    item.setData(VALUE_ROLE, value)
                    item.setText(value if isinstance(value, str) else _number(value))

    def _fill_joints(self) -> None:
        table = self.joints_table
        profile = self.session.profile
        joints = profile.joints if profile is not None else []
        with QSignalBlocker(table):
            table.setRowCount(len(joints))
            for row, joint in enumerate(joints):
                cells = (joint.name, KIND_LABELS[joint.kind], joint.part_a, joint.part_b)
                for column, value in enumerate(cells):
                    item = table.item(row, column)
                    if item is None:
                        item = QTableWidgetItem()
                        table.setItem(row, column, item)
                    item.setText(value)
        names = [part.name for part in profile.parts] if profile is not None else []
        for box in (self.part_a_box, self.part_b_box):
            with QSignalBlocker(box):
                if [box.itemText(i) for i in range(box.count())] != names:
                    box.clear()
                    box.addItems(names)

    def _show_selection(self) -> None:
        session = self.session
        with QSignalBlocker(self.parts_table):
            if session.selected_part is None:
                self.parts_table.clearSelection()
            else:
                self.parts_table.selectRow(session.selected_part)
                self.parts_table.scrollToItem(self.parts_table.item(session.selected_part, NAME))
        with QSignalBlocker(self.joints_table):
            if session.selected_joint is None:
                self.joints_table.clearSelection()
            else:
                self.joints_table.selectRow(session.selected_joint)
        self._show_joint()

    def _show_joint(self) -> None:
        session = self.session
        index = session.selected_joint
        self.joint_form.setEnabled(index is not None)
        if index is None or session.profile is None:
            return
        joint = session.profile.joints[index]
        for box, name in ((self.part_a_box, joint.part_a), (self.part_b_box, joint.part_b)):
            with QSignalBlocker(box):
                box.setCurrentText(name)
        for boxes, values in ((self.offset_a_boxes, joint.offset_a), (self.offset_b_boxes, joint.offset_b),
                              (self.euler_boxes, quaternion_to_euler(joint.rotation))):
            for box, value in zip(boxes, values):
                _set_value(box, value)
        with QSignalBlocker(self.kind_box):
            self.kind_box.setCurrentIndex(self.kind_box.findData(joint.kind))
        for name, box in self.limit_boxes.items():
            _set_value(box, getattr(joint, name))
            self.joint_form_layout.setRowVisible(box, name in LIMIT_FIELDS[joint.kind])

    def _show_file(self) -> None:
        session = self.session
        if session.path is None:
            text = "not saved (the model has no file)"
        elif session.load_error is not None:
            text = f"{session.path} could not be used; saving asks before replacing it"
        else:
            text = str(session.path) + ("" if session.path.is_file() else " (not saved yet)")
        self.file_label.setText(("● " if session.dirty else "") + text)
        self.file_label.setToolTip(str(session.path or ""))

    def _show_state(self) -> None:
        session = self.session
        running = session.running
        with QSignalBlocker(self.go_action):
            self.go_action.setChecked(running)
        self.go_action.setText("Stop Ragdoll" if running else "&Go Ragdoll")
        with QSignalBlocker(self.pause_action):
            self.pause_action.setChecked(session.paused)
        for action in (self.pause_action, self.step_action, self.reset_action, self.bake_action):
            action.setEnabled(running)
        for action, on in ((self.shoot_action, session.tool == "shoot"),
                           (self.drag_action, session.tool == "drag")):
            with QSignalBlocker(action):
                action.setChecked(on)
        for action, box, on in ((self.gravity_action, self.gravity_box, session.gravity),
                                (self.ground_action, self.ground_box, session.ground)):
            with QSignalBlocker(action), QSignalBlocker(box):
                action.setChecked(on)
                box.setChecked(on)
        with QSignalBlocker(self.symmetric_box):
            self.symmetric_box.setChecked(session.symmetric)
        _set_value(self.impulse_box, session.impulse)
        _set_value(self.copies_box, session.copies)
        _set_value(self.budget_box, session.budget * 1000.0)
        strength = session.current_drag_strength
        if strength is not None:
            _set_value(self.drag_box, strength)
        self.stats_label.setText(self.stats_text())
        self._show_file()

    def stats_text(self) -> str:
        """The real-time factor and budget line (plus the session's last message)."""
        session = self.session
        lines = []
        if session.running:
            ragdoll = session.ragdoll
            if session.paused:
                state = "paused"
            elif session.realtime is None:
                state = "measuring…"
            else:
                state = f"{session.realtime:.0%} of real time"
            capacity = ragdoll.realtime_factor
            cost = f"{ragdoll.step_seconds * 1e3:.2f} ms/step" if ragdoll.step_seconds else "–"
            frames = f" · {session.steps_per_frame:.1f} steps/frame" if session.realtime is not None else ""
            lines.append(f"Running · {state}{frames}")
            budget = f"at most {session.budget * 1e3:.0f} ms/frame"
            lines.append(f"{cost}, could run ×{capacity:.1f} real time · {budget}"
                         if math.isfinite(capacity) else budget)
            if session.realtime is not None and not session.paused and session.realtime < SLOW_MOTION:
                lines.append("Slow motion: this machine cannot step the ragdoll in real time"
                             if capacity < 1 / REALTIME_SHARE else
                             "Slow motion: stepping is held to the per-frame limit; raise it to keep "
                             "real time")
        else:
            lines.append(f"Stopped · {1 / TIME_STEP:.0f} Hz steps · "
                         f"at most {session.budget * 1e3:.0f} ms/frame")
        if session.message:
            lines.append(session.message)
        return "\n".join(lines)

    # --- editing -----------------------------------------------------------------------------------

    def _report(self, error: Exception | None) -> None:
        if error is None:
            self.error_label.hide()
        else:
            self.error_label.setText(str(error))
            self.error_label.show()

    def _try(self, edit) -> bool:
        try:
            edit()
        except ValueError as error:
            self._report(error)
            self._show_profile()
            return False
        self._report(None)
        return True

    def edit_part_cell(self, row: int, column: int, value) -> bool:
        """Apply an edit of the parts table's cell (what the cell editors call)."""
        part = self.session.profile.parts[row]
        if column == BONE:
            changes = {"bone": str(value)}
        elif column == SHAPE:
            changes = {"shape": str(value)}
        elif SIZE_X <= column <= SIZE_Z:
            size = list(part.size)
            size[column - SIZE_X] = float(value)
            changes = {"size": tuple(size)}
        elif OFFSET_X <= column <= OFFSET_Z:
            offset = list(part.offset)
            offset[column - OFFSET_X] = float(value)
            changes = {"offset": tuple(offset)}
        elif column == MASS:
            changes = {"mass": float(value)}
        else:
            return False
        return self._try(lambda: self.session.edit_part(part.name, **changes))

    def _edit_joint(self, **changes) -> None:
        session = self.session
        if session.selected_joint is None:
            return
        name = session.profile.joints[session.selected_joint].name
        self._try(lambda: session.edit_joint(name, **changes))

    def _joint_vector_changed(self, field: str) -> None:
        if field == "rotation":
            self._edit_joint(rotation=euler_to_quaternion([box.value() for box in self.euler_boxes]))
        else:
            boxes = self.offset_a_boxes if field == "offset_a" else self.offset_b_boxes
            self._edit_joint(**{field: tuple(box.value() for box in boxes)})

    def _total_mass_changed(self, total: float) -> None:
        self._try(lambda: self.session.set_total_mass(total))

    def _auto_setup(self) -> None:
        self._try(self.session.auto_setup)

    def _part_row_selected(self) -> None:
        rows = {index.row() for index in self.parts_table.selectedIndexes()}
        self.session.select_part(min(rows) if rows else None)

    def _joint_row_selected(self) -> None:
        rows = {index.row() for index in self.joints_table.selectedIndexes()}
        self.session.select_joint(min(rows) if rows else None)

    # --- files -------------------------------------------------------------------------------------

    def save(self) -> bool:
        """Save where the profile lives (beside the model); Save As when there is no such place."""
        if self.session.path is None:
            return self.save_as()
        return self._save_to(None)

    def save_as(self) -> bool:
        start = str(self.session.path) if self.session.path is not None else ""
        path, _ = QFileDialog.getSaveFileName(self, "Save ragdoll profile", start, PROFILE_FILTER)
        if not path:
            return False
        if not path.endswith(".json"):
            path += SUFFIX
        return self._save_to(path, replace=True)

    def _save_to(self, path, replace: bool = False) -> bool:
        """Save; when that would overwrite a file the profile did not come from, ask first (Save As
        has asked already: ``replace``)."""
        existing = None if replace else self.session.replaces(path)
        if existing is not None:
            answer = QMessageBox.question(
                self, "Replace ragdoll profile",
                f"{existing} already exists and is not the profile being edited"
                + (f" (it could not be used: {self.session.load_error})" if self.session.load_error else "")
                + ".\n\nReplace it?",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
                QMessageBox.StandardButton.Cancel)
            if answer != QMessageBox.StandardButton.Yes:
                return False
        try:
            self.session.save(path, replace=True)
        except (OSError, ProfileError, ValueError) as error:
            QMessageBox.warning(self, "Save ragdoll profile", f"Could not save the profile: {error}")
            return False
        return True

    # --- adding and removing -----------------------------------------------------------------------

    def _attempt(self, title: str, edit) -> bool:
        try:
            edit()
        except (ValueError, KeyError) as error:
            QMessageBox.warning(self, title, str(error))
            return False
        return True

    def _choose(self, title: str, label: str, items: list[str]) -> str | None:
        if not items:
            return None
        item, ok = QInputDialog.getItem(self, title, label, items, 0, False)
        return item if ok else None

    def add_part_dialog(self) -> bool:
        session = self.session
        taken = {part.bone for part in session.profile.parts}
        bone = self._choose("Add part", "Bone:", [b for b in session.model.skeleton.names if b not in taken])
        return bone is not None and self._attempt("Add part", lambda: session.add_part(bone))

    def remove_part(self) -> bool:
        index = self.session.selected_part
        if index is None:
            return False
        name = self.session.profile.parts[index].name
        return self._attempt("Remove part", lambda: self.session.remove_part(name))

    def add_joint_dialog(self) -> bool:
        first, second = self._choose_two_parts("Add joint", "Part A (the parent):", "Part B (the child):")
        return bool(second) and self._attempt("Add joint", lambda: self.session.add_joint(first, second))

    def _choose_two_parts(self, title: str, first_label: str,
                          second_label: str) -> tuple[str | None, str | None]:
        """Two different parts picked one after the other (None where the user cancelled)."""
        names = [part.name for part in self.session.profile.parts]
        first = self._choose(title, first_label, names)
        second = self._choose(title, second_label, [n for n in names if n != first]) if first else None
        return first, second

    def remove_joint(self) -> bool:
        index = self.session.selected_joint
        if index is None:
            return False
        name = self.session.profile.joints[index].name
        return self._attempt("Remove joint", lambda: self.session.remove_joint(name))

    def disable_pair_dialog(self) -> bool:
        first, second = self._choose_two_parts("Disable collision", "Part:", "Never collides with:")
        return bool(second) and self._attempt("Disable collision",
                                              lambda: self.session.set_collision(first, second, False))

    def enable_pair(self) -> bool:
        row = self.collisions_list.currentRow()
        if row < 0:
            return False
        a, b = self.session.profile.disabled_collisions[row]
        return self._attempt("Enable collision", lambda: self.session.set_collision(a, b, True))

    def warn_unused_profile(self) -> None:
        """When the model's saved profile could not be used, say so in a dialog (not blocking: the
        window goes on with a new automatic setup) naming the file, the JSON path and the problem."""
        error = self.session.load_error
        if error is None:
            return
        where = f" at {error.where}" if error.where else ""
        self.problem_box = QMessageBox(
            QMessageBox.Icon.Warning, "Ragdoll profile not used",
            f"The ragdoll profile {error.path} could not be used{where}:\n{error.message}\n\n"
            "The file is left as it is. The ragdoll starts from a new automatic setup, not saved; "
            "saving it asks before replacing the file.", QMessageBox.StandardButton.Ok, self)
        self.problem_box.open()

    def load_dialog(self) -> bool:
        if not ask_to_save(self, self):
            return False
        start = str(self.session.path.parent) if self.session.path is not None else ""
        path, _ = QFileDialog.getOpenFileName(self, "Load ragdoll profile", start, PROFILE_FILTER)
        if not path:
            return False
        try:
            self.session.load(Path(path))
        except ProfileError as error:
            QMessageBox.warning(self, "Load ragdoll profile", str(error))
            return False
        return True


def ask_to_save(parent: QWidget, panel: RagdollPanel) -> bool:
    """When the profile has unsaved edits, ask Save / Discard / Cancel; False means stay (cancelled,
    or the save failed)."""
    if not panel.session.dirty:
        return True
    answer = QMessageBox.warning(
        parent, "Unsaved ragdoll profile",
        f"The ragdoll profile has unsaved edits ({panel.session.undo_stack.undoText() or 'edits'}).\n\n"
        "Save them before going on?",
        QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
        | QMessageBox.StandardButton.Cancel,
        QMessageBox.StandardButton.Save)
    if answer == QMessageBox.StandardButton.Save:
        return panel.save()
    return answer == QMessageBox.StandardButton.Discard
