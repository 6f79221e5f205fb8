"""The ragdoll panel's Joints tab: the joints table with Add Joint and Remove Joint, and the selected
joint's editor (parts, offsets, orientation as Euler angles, type, limits). A view of
``RagdollDocument``."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QDoubleSpinBox, QFormLayout, QFrame, QHBoxLayout,
                               QScrollArea, QSplitter, QTableWidgetItem, QWidget)

from app.physics.joint_kinds import KINDS
from app.physics.symmetry import euler_to_quaternion, quaternion_to_euler
from app.state.ragdoll.document import RagdollDocument
from app.ui.ragdoll.widgets import (OFFSET_REACH, choose_two_parts, length_step, row_table, rows_height,
                                    set_value, show_selected_row, spin, warn_on_error, with_buttons)
from app.pose import rest_extent

JOINT_COLUMNS = ("Joint", "Type", "Part A", "Part B")
KIND_LABELS = {kind.name: kind.label for kind in KINDS.values()}
LIMIT_FIELDS = {kind.name: kind.limit_names for kind in KINDS.values()}


class JointsTab(QSplitter):
    """``attempt(edit, refresh)`` runs an edit and shows its error (the profile box's)."""

    def __init__(self, document: RagdollDocument, attempt, parent=None):
        super().__init__(Qt.Orientation.Vertical, parent)
        self.document = document
        self.attempt = attempt
        self.table = table = row_table(JOINT_COLUMNS, QAbstractItemView.EditTrigger.NoEditTriggers,
                                       self._row_selected)
        holder = QWidget()
        buttons = with_buttons(holder, table, ("Add Joint…", self.add_joint_dialog),
                               ("Remove Joint", self.remove_joint))
        table.setMinimumHeight(rows_height(table))
        holder.setMinimumHeight(rows_height(table) + buttons[0].sizeHint().height())
        self.addWidget(holder)
        # The whole form stays in view: the panel, not the form, scrolls when the window is small.
        form = QScrollArea()
        form.setWidget(self._form())
        form.setWidgetResizable(True)
        form.setFrameShape(QFrame.Shape.NoFrame)
        form.setMinimumHeight(self.form.sizeHint().height())
        self.addWidget(form)
        self.setChildrenCollapsible(False)
        document.events.subscribe("profile", self._fill)
        document.events.subscribe("selection", self._show_selection)
        self._fill()

    def _form(self) -> QWidget:
        self.form = form_widget = QWidget()
        form = self.form_layout = QFormLayout(form_widget)
        form.setContentsMargins(4, 4, 4, 4)
        self.part_a_box, self.part_b_box = QComboBox(form_widget), QComboBox(form_widget)
        self.part_a_box.activated.connect(lambda _: self._edit(part_a=self.part_a_box.currentText()))
        self.part_b_box.activated.connect(lambda _: self._edit(part_b=self.part_b_box.currentText()))
        form.addRow("Part A", self.part_a_box)
        form.addRow("Part B", self.part_b_box)
        self.offset_a_boxes = self._vector_row("Offset A", "offset_a")
        self.offset_b_boxes = self._vector_row("Offset B", "offset_b")
        self.euler_boxes = self._vector_row("Orientation °", "rotation", angles=True)
        self.kind_box = QComboBox(form_widget)
        for kind, label in KIND_LABELS.items():
            self.kind_box.addItem(label, kind)
        self.kind_box.activated.connect(lambda _: self._edit(kind=self.kind_box.currentData()))
        form.addRow("Type", self.kind_box)
        self.limit_boxes = {}
        for limit in (limit for kind in KINDS.values() for limit in kind.limits):
            box = spin(form_widget, limit.low, 180.0, 1.0, 1)  # beyond its range: the profile's message
            box.valueChanged.connect(lambda value, n=limit.name: self._edit(**{n: value}))
            self.limit_boxes[limit.name] = box
            form.addRow(limit.label, box)
        return form_widget

    def _vector_row(self, label: str, field: str, angles: bool = False) -> list[QDoubleSpinBox]:
        row = QHBoxLayout()
        boxes = []
        for axis in "XYZ":
            box = _angle_box(self.form, axis) if angles else spin(self.form, -1e3, 1e3, 1.0, 4,
                                                                   tip=f"{label} {axis}")
            box.valueChanged.connect(lambda _value, f=field: self._vector_changed(f))
            row.addWidget(box)
            boxes.append(box)
        self.form_layout.addRow(label, row)
        return boxes

    # --- showing -------------------------------------------------------------------------------------

    def _fill(self, _why: str = "") -> None:
        document = self.document
        profile = document.profile
        joints = profile.joints if profile is not None else []
        table = self.table
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
        if document.model is not None:
            step, decimals = length_step(rest_extent(document.model))
            reach = OFFSET_REACH * rest_extent(document.model)
            for box in self.offset_a_boxes + self.offset_b_boxes:
                box.setDecimals(decimals)
                box.setSingleStep(step)
                box.setRange(-reach, reach)
        self.setEnabled(profile is not None)
        self._show_selection()

    def _show_selection(self) -> None:
        show_selected_row(self.table, self.document.selected_joint)
        self._show_joint()

    def _show_joint(self) -> None:
        document = self.document
        index = document.selected_joint
        self.form.setEnabled(index is not None)
        if index is None or document.profile is None:
            self._clear_joint()
            return
        joint = document.profile.joints[index]
        for box, name in ((self.part_a_box, joint.part_a), (self.part_b_box, joint.part_b)):
            with QSignalBlocker(box):
                box.setCurrentText(name)
        for boxes, values in ((self.offset_a_boxes, joint.offset_a), (self.offset_b_boxes, joint.offset_b),
                              (self.euler_boxes, quaternion_to_euler(joint.rotation))):
            for box, value in zip(boxes, values):
                set_value(box, value)
        with QSignalBlocker(self.kind_box):
            self.kind_box.setCurrentIndex(self.kind_box.findData(joint.kind))
        for name, box in self.limit_boxes.items():
            set_value(box, getattr(joint, name))
            self.form_layout.setRowVisible(box, name in LIMIT_FIELDS[joint.kind])

    def _clear_joint(self) -> None:
        """No joint selected: the disabled editor shows nothing rather than the last joint's values
        (another model's, after a load)."""
        for box in (self.part_a_box, self.part_b_box, self.kind_box):
            with QSignalBlocker(box):
                box.setCurrentIndex(-1)
        vectors = self.offset_a_boxes + self.offset_b_boxes + self.euler_boxes
        for box in [*vectors, *self.limit_boxes.values()]:
            set_value(box, 0.0)

    # --- editing -------------------------------------------------------------------------------------

    def _row_selected(self) -> None:
        rows = {index.row() for index in self.table.selectedIndexes()}
        self.document.select_joint(min(rows) if rows else None)

    def _edit(self, **changes) -> None:
        document = self.document
        if document.selected_joint is None:
            return
        name = document.profile.joints[document.selected_joint].name
        self.attempt(lambda: document.edit_joint(name, **changes), self._fill)

    def _vector_changed(self, field: str) -> None:
        if field == "rotation":
            self._edit(rotation=euler_to_quaternion([box.value() for box in self.euler_boxes]))
        else:
            boxes = self.offset_a_boxes if field == "offset_a" else self.offset_b_boxes
            self._edit(**{field: tuple(box.value() for box in boxes)})

    def add_joint_dialog(self) -> bool:
        names = [part.name for part in self.document.profile.parts]
        first, second = choose_two_parts(self, names, "Add joint", "Part A (the parent):",
                                         "Part B (the child):")
        return bool(second) and warn_on_error(self, "Add joint",
                                              lambda: self.document.add_joint(first, second))

    def remove_joint(self) -> bool:
        index = self.document.selected_joint
        if index is None:
            return False
        name = self.document.profile.joints[index].name
        return warn_on_error(self, "Remove joint", lambda: self.document.remove_joint(name))


def _angle_box(parent, axis: str) -> QDoubleSpinBox:
    return spin(parent, -360.0, 360.0, 5.0, 1, tip=f"{axis} angle (static axes, X applied first)")
