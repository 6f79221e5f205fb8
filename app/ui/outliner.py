"""The outliner dock: the skeleton as a tree (bones nested by parent, helpers under the bone they
follow), the meshes (each with a visibility check box and a context menu) and the walkmeshes (each
with its faces per surface material), with a name filter, and
below it the inspector for the selected row. Attached to a ViewerState it shows the state's model,
selected bone, meshes and pose, and sends it the bone the user selects and the meshes shown or hidden;
which mesh should get a texture it reports to the window, which asks for the image."""

from __future__ import annotations

from pathlib import PurePath

import numpy as np
from PySide6.QtCore import QEvent, QSignalBlocker, Qt, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (QAbstractItemView, QDockWidget, QHBoxLayout, QHeaderView, QLineEdit, QMenu,
                               QSplitter, QStyle, QToolButton, QTreeWidget, QTreeWidgetItem, QVBoxLayout,
                               QWidget)

from app.model import Helper, Mesh, Model
from app.pose import Pose
from app.scene.walkmesh_overlay import legend
from app.state.viewer import ViewerState
from app.ui.inspector import Inspector
from app.walkmeshes import Walkmesh

#: Tree depth opened when a model is bound: a whole humanoid, while huge rigs stay browsable.
OPEN_DEPTH = 6

NAME, TYPE, INFO = range(3)
#: The Name column is never narrower than this (pixels), however narrow the dock.
MIN_NAME_WIDTH = 80
#: Item data role holding ``(kind, index)``, kind one of 'bone', 'helper', 'mesh', 'walkmesh'.
ROW_ROLE = Qt.ItemDataRole.UserRole


def _plural(count: int, noun: str, nouns: str | None = None) -> str:
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def helper_info(helper: Helper) -> str:
    """The Info column of a helper's row: what an emitter emits by ('emitter · Fountain')."""
    if helper.emitter is None:
        return ""
    update = helper.emitter.settings.get("update", "")
    return f"emitter · {update}" if update else "emitter"


def mesh_info(mesh: Mesh) -> str:
    """'10506 vertices · 20944 triangles · skin · skin.tga' (points instead of triangles for face-less
    meshes; the texture's file name, marked 'missing' when no image was found for it)."""
    faces = "points" if mesh.triangles is None else _plural(mesh.triangle_count, "triangle")
    parts = [_plural(mesh.vertex_count, "vertex", "vertices"), faces]
    material = mesh.material
    if material.name:
        parts.append(material.name)
    if material.texture:
        name = PurePath(material.texture.replace("\\", "/")).name
        parts.append(name if material.image is not None else f"{name} (missing)")
    return " · ".join(parts)


def walkmesh_info(walkmesh: Walkmesh) -> str:
    """'pwk · 8 faces · Dirt 1, Nonwalk 2 (not walkable)': its kind, faces and faces per material."""
    materials = ", ".join(f"{entry.name} {entry.faces}{'' if entry.walkable else ' (not walkable)'}"
                          for entry in legend([walkmesh]))
    return " · ".join([walkmesh.kind, _plural(len(walkmesh.faces), "face"), materials])


def _row(name: str, kind: str, info: str, key: tuple[str, int] | None) -> QTreeWidgetItem:
    item = QTreeWidgetItem([name, kind, info])
    item.setToolTip(NAME, name)
    item.setToolTip(INFO, info)
    if key is None:
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)
        font = item.font(NAME)
        font.setBold(True)
        item.setFont(NAME, font)
    else:
        item.setData(NAME, ROW_ROLE, key)
    return item


class OutlinerDock(QDockWidget):
    """The tree over the inspector, which always shows the selected row, however it was selected.

    bone_selected(int | None): the user selected a bone, or something else (None: a helper, a mesh,
    nothing). Not emitted by ``bind`` or ``select_bone``. mesh_visibility_changed(index, shown): the
    user ticked or cleared a mesh's check box. texture_requested(index): "Assign Texture…" was
    chosen on a mesh.
    """

    bone_selected = Signal(object)
    mesh_visibility_changed = Signal(int, bool)
    texture_requested = Signal(int)

    def __init__(self, parent=None):
        super().__init__("Outliner", parent)
        self.setObjectName("outliner")
        self.model: Model | None = None
        self.bone_items: list[QTreeWidgetItem] = []
        self.helper_items: list[QTreeWidgetItem] = []
        self.mesh_items: list[QTreeWidgetItem] = []
        self.walkmesh_items: list[QTreeWidgetItem] = []
        self.groups: list[QTreeWidgetItem] = []
        browser = QWidget()
        layout = QVBoxLayout(browser)
        layout.setContentsMargins(4, 4, 4, 0)
        layout.addLayout(self._tool_row(browser))
        self.tree = self._make_tree(browser)
        self.tree.viewport().installEventFilter(self)
        layout.addWidget(self.tree)
        self.inspector = Inspector()
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(browser)
        splitter.addWidget(self.inspector)
        self.setWidget(splitter)
        self.tree.itemSelectionChanged.connect(self._selection_changed)
        self.tree.itemChanged.connect(self._item_changed)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        self.filter.textChanged.connect(self._apply_filter)

    def _tool_row(self, body: QWidget) -> QHBoxLayout:
        row = QHBoxLayout()
        self.filter = QLineEdit(body)
        self.filter.setPlaceholderText("Filter by name")
        self.filter.setClearButtonEnabled(True)
        row.addWidget(self.filter, stretch=1)
        for text, tip, slot in (("+", "Expand all", lambda: self.tree.expandAll()),
                                ("−", "Collapse all", lambda: self.tree.expandToDepth(0))):
            button = QToolButton(body)
            button.setText(text)
            button.setToolTip(tip)
            button.clicked.connect(slot)
            row.addWidget(button)
        return row

    @staticmethod
    def _make_tree(body: QWidget) -> QTreeWidget:
        tree = QTreeWidget(body)
        tree.setHeaderLabels(["Name", "Type", "Info"])
        tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        tree.setUniformRowHeights(True)  # lets Qt lay out thousands of rows without measuring each
        tree.setAlternatingRowColors(True)
        # Type as wide as its text; Name and Info shared out by ``fit_columns``.
        tree.header().setStretchLastSection(False)
        tree.header().setSectionResizeMode(TYPE, QHeaderView.ResizeMode.ResizeToContents)
        tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        return tree

    def attach(self, state: ViewerState) -> None:
        """Be a view of ``state``: repaint on its events, send it the user's choices."""
        events = state.events
        events.subscribe("model", lambda _keep_state: self.bind(state.model))
        events.subscribe("selection", self.select_bone)
        events.subscribe("meshes", self.refresh_meshes)
        events.subscribe("pose", lambda: self._show_playback(state))
        self.bone_selected.connect(state.select_bone)
        self.mesh_visibility_changed.connect(state.set_mesh_visible)

    # --- building ---------------------------------------------------------------------------------

    def bind(self, model: Model) -> None:
        """Show ``model``; the selection and the filter are cleared (no signal)."""
        self.model = model
        self.bone_items = [_row(name, "bone", f"#{bone}", ("bone", bone))
                           for bone, name in enumerate(model.skeleton.names)]
        self.helper_items = [_row(helper.name, "helper", helper_info(helper), ("helper", index))
                             for index, helper in enumerate(model.helpers)]
        self.mesh_items = [_row(mesh.name or f"mesh {index}", "mesh", mesh_info(mesh), ("mesh", index))
                           for index, mesh in enumerate(model.meshes)]
        for item, mesh in zip(self.mesh_items, model.meshes):
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(NAME, Qt.CheckState.Checked if mesh.visible else Qt.CheckState.Unchecked)
            item.setToolTip(NAME, f"{item.text(NAME)}\nTick to draw the mesh; right-click to assign a "
                                  "texture")
        counts = _plural(len(model.skeleton), "bone")
        if model.helpers:
            counts += f" · {_plural(len(model.helpers), 'helper')}"
        skeleton_group = _row("Skeleton", "", counts, None)
        skeleton_group.addChildren(self._nest_skeleton())
        mesh_group = _row("Meshes", "", _plural(len(model.meshes), "mesh", "meshes"), None)
        mesh_group.addChildren(self.mesh_items)
        self.groups = [skeleton_group, mesh_group]
        self.walkmesh_items = [_row(walkmesh.name, "walkmesh", walkmesh_info(walkmesh), ("walkmesh", index))
                               for index, walkmesh in enumerate(model.walkmeshes)]
        if self.walkmesh_items:
            faces = sum(len(walkmesh.faces) for walkmesh in model.walkmeshes)
            walkmesh_group = _row("Walkmeshes", "", _plural(faces, "face"), None)
            walkmesh_group.addChildren(self.walkmesh_items)
            self.groups.append(walkmesh_group)
        self.inspector.bind(model)
        with QSignalBlocker(self.tree), QSignalBlocker(self.filter):
            self.filter.clear()
            # Collapsed and detached rather than clear(): clearing the expanded rows of a deep chain
            # in place takes time quadratic in its depth (seconds for 10 000 bones).
            self.tree.collapseAll()
            self.tree.invisibleRootItem().takeChildren()
            self.tree.addTopLevelItems(self.groups)
            self.tree.expandToDepth(OPEN_DEPTH)
        self.fit_columns()

    def fit_columns(self) -> None:
        """Name as wide as its longest shown text while Info keeps room for the groups' counts ("83
        bones" whole); Info takes the rest of the view. A mesh's long line (vertices, triangles,
        material, texture) is what gets elided, whole in its tooltip, rather than the bone names."""
        tree = self.tree
        room = tree.viewport().width() - tree.columnWidth(TYPE)
        counts = max((self._text_width(group, INFO) for group in self.groups), default=0)
        name = max(MIN_NAME_WIDTH, min(tree.sizeHintForColumn(NAME), room - counts))
        tree.setColumnWidth(NAME, name)
        tree.setColumnWidth(INFO, max(counts, room - name))

    def _text_width(self, item: QTreeWidgetItem, column: int) -> int:
        """The width ``item``'s text in ``column`` needs, with the view's cell margins."""
        margins = 2 * self.tree.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) + 8
        return QFontMetrics(item.font(column)).horizontalAdvance(item.text(column)) + margins

    def eventFilter(self, watched, event) -> bool:
        """The tree's view resized: the columns fitted again."""
        if watched is self.tree.viewport() and event.type() == QEvent.Type.Resize:
            self.fit_columns()
        return super().eventFilter(watched, event)

    def _nest_skeleton(self) -> list[QTreeWidgetItem]:
        """Attach each bone and helper item to its parent bone's item, in one pass (parents may come
        after their children); returns the top-level items (roots, then model-level helpers)."""
        parents = self.model.skeleton.parents.tolist()
        followed = [helper.parent for helper in self.model.helpers]
        children: dict[int, list[QTreeWidgetItem]] = {}
        for parent, item in zip(parents + followed, self.bone_items + self.helper_items):
            children.setdefault(parent, []).append(item)
        for parent, items in children.items():
            if parent >= 0:
                self.bone_items[parent].addChildren(items)
        return children.get(-1, [])

    def refresh_meshes(self, indices: list[int]) -> None:
        """Show the current visibility and texture of meshes ``indices`` (after the state changed them)."""
        with QSignalBlocker(self.tree):
            for index in indices:
                mesh, item = self.model.meshes[index], self.mesh_items[index]
                item.setText(INFO, mesh_info(mesh))
                item.setToolTip(INFO, mesh_info(mesh))
                item.setCheckState(NAME, Qt.CheckState.Checked if mesh.visible else Qt.CheckState.Unchecked)

    def _item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        key = item.data(NAME, ROW_ROLE)
        if column == NAME and key is not None and key[0] == "mesh":
            self.mesh_visibility_changed.emit(key[1], item.checkState(NAME) == Qt.CheckState.Checked)

    def _context_menu(self, position) -> None:
        item = self.tree.itemAt(position)
        key = item.data(NAME, ROW_ROLE) if item is not None else None
        if key is None or key[0] != "mesh":
            return
        menu = QMenu(self.tree)
        menu.addAction("Assign &Texture…", lambda: self.texture_requested.emit(key[1]))
        menu.exec(self.tree.viewport().mapToGlobal(position))

    # --- selection --------------------------------------------------------------------------------

    def selected(self) -> tuple[str, int] | None:
        """``(kind, index)`` of the selected row, or None."""
        items = self.tree.selectedItems()
        return items[0].data(NAME, ROW_ROLE) if items else None

    def select_bone(self, bone: int | None) -> None:
        """Select and inspect ``bone`` (None: clear a bone's selection; a helper, mesh or walkmesh row
        chosen stays, with its page) without emitting ``bone_selected``."""
        if bone is not None and not 0 <= bone < len(self.bone_items):
            raise ValueError(f"bone {bone} outside 0..{len(self.bone_items) - 1}")
        chosen = self.selected()
        if bone is None and chosen is not None and chosen[0] != "bone":
            return  # a helper, mesh or walkmesh row is chosen (the state was told: no bone): it stays
        with QSignalBlocker(self.tree):
            if bone is None:
                self.tree.clearSelection()
            else:
                self.tree.setCurrentItem(self.bone_items[bone])
                self.tree.scrollToItem(self.bone_items[bone])
        self.inspector.show_bone(bone)

    def _show_playback(self, state: ViewerState) -> None:
        self.inspector.show_clip(state.playback.clip if state.playback is not None else None)
        self.set_pose(state.current_pose())

    def set_pose(self, pose: Pose) -> None:
        """The pose now shown (every frame during playback), for the inspector's current matrix."""
        self.inspector.set_pose(pose)

    def _selection_changed(self) -> None:
        selected = self.selected()
        bone = selected[1] if selected and selected[0] == "bone" else None
        if selected and selected[0] == "helper":
            self.inspector.show_helper(selected[1])
        elif selected and selected[0] == "walkmesh":
            self.inspector.show_walkmesh(selected[1])
        else:
            self.inspector.show_bone(bone)
        self.bone_selected.emit(bone)

    # --- filtering --------------------------------------------------------------------------------

    def _apply_filter(self, text: str) -> None:
        """Show rows whose name contains ``text`` (any case), with their ancestors."""
        if self.model is None:
            return
        needle = text.strip().lower()
        bones = self._visible_bones(needle)
        helpers = [needle in helper.name.lower() for helper in self.model.helpers]
        meshes = [needle in item.text(NAME).lower() for item in self.mesh_items]
        walkmeshes = [needle in item.text(NAME).lower() for item in self.walkmesh_items]
        self.tree.setUpdatesEnabled(False)
        rows = zip(self.bone_items + self.helper_items + self.mesh_items + self.walkmesh_items,
                   bones + helpers + meshes + walkmeshes)
        for item, visible in rows:
            item.setHidden(not visible)
        self.groups[0].setHidden(not (any(bones) or any(helpers)))
        self.groups[1].setHidden(not any(meshes))
        if self.walkmesh_items:
            self.groups[2].setHidden(not any(walkmeshes))
        if needle:
            self.tree.expandAll()
        self.tree.setUpdatesEnabled(True)

    def _visible_bones(self, needle: str) -> list[bool]:
        """Per bone: its name matches, or a bone or helper below it does."""
        skeleton = self.model.skeleton
        visible = np.array([needle in name.lower() for name in skeleton.names], bool)
        followed = [helper.parent for helper in self.model.helpers if needle in helper.name.lower()]
        visible[[parent for parent in followed if parent >= 0]] = True
        for level in reversed(skeleton.levels[1:]):  # deepest first, so marks climb to the roots
            shown = level[visible[level]]
            visible[skeleton.parents[shown]] = True
        return visible.tolist()
