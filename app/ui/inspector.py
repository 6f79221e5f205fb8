"""The inspector under the outliner's tree: the clip on screen with its root's travel and speed, and
everything known about the selected bone or helper — bind and current world matrices, head and tail,
skin influence, and the data only its file format has — or walkmesh (its faces per surface material)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QFontMetrics
from PySide6.QtWidgets import QFormLayout, QLabel, QScrollArea, QStackedWidget, QVBoxLayout, QWidget

from app import formats
from app.animation.root_motion import root_travel
from app.model import Clip, Model
from app.pose import Pose
from app.scene.walkmesh_overlay import legend

#: Narrowest matrix cell ('-0.0000'), so that matrices of small numbers line up with each other.
MATRIX_CELL_WIDTH = 7
#: Children listed by name before the list is cut short.
LISTED_CHILDREN = 4
#: Extras keys with a nicer label than their spelled-out name.
EXTRA_LABELS = {"box": "Box size", "mirror": "Mirror bone"}
#: What each kind of walkmesh is (app/walkmeshes.py), as the Inspector names it.
WALKMESH_KINDS = {"aabb": "the model's AABB node (a tile's walkmesh)", "wok": "a tile's .wok file",
                  "pwk": "a placeable's .pwk file", "dwk": "a door's .dwk file"}
#: Symbols of the length units formats state (Model.unit); other models' lengths are their own units.
UNIT_SYMBOLS = {"metre": "m"}


# --- text -----------------------------------------------------------------------------------------

def number_text(value: float) -> str:
    """4 decimals, never '-0.0000'."""
    return f"{round(float(value), 4) + 0.0:.4f}"


def vector_text(values) -> str:
    return ", ".join(number_text(v) for v in values)


def matrix_text(matrix) -> str:
    """Rows of a matrix (column vectors: the translation is the last column), 4 decimals, aligned."""
    matrix = np.asarray(matrix, float)
    cells = [number_text(v) for v in matrix.ravel()]
    width = max([MATRIX_CELL_WIDTH, *map(len, cells)])
    columns = matrix.shape[1]
    return "\n".join("  ".join(cell.rjust(width) for cell in cells[row:row + columns])
                     for row in range(0, len(cells), columns))


def travel_text(model: Model, clip: Clip) -> str:
    """The clip's root travel over the ground and its mean speed (``info``'s root_travel and
    root_speed), in the model's units: '26.6 m in 1.17 s · 22.9 m/s'."""
    travel, speed, seconds = (figure(value) for value in (*root_travel(model, clip), clip.duration))
    symbol = UNIT_SYMBOLS.get(model.unit)
    if symbol:
        return f"{travel} {symbol} in {seconds} s · {speed} {symbol}/s"
    return f"{travel} model units in {seconds} s · {speed} per second"


def figure(value: float) -> str:
    """Three significant digits, never in exponent form (a sway of 0.0000468 m/s reads as such)."""
    return np.format_float_positional(value, precision=3, unique=False, fractional=False, trim="-")


def bone_text(bone: int, names: list[str]) -> str:
    """'spine (#1)', or the bare index when there is no such bone."""
    return f"{names[bone]} (#{bone})" if 0 <= bone < len(names) else f"#{bone} (no such bone)"


def extra_label(key: str) -> str:
    """'node_type' → 'Node type'; short keys such as 'H' stay as they are."""
    if key in EXTRA_LABELS:
        return EXTRA_LABELS[key]
    text = key.replace("_", " ")
    return text[:1].upper() + text[1:]


def extra_text(key: str, value, names: list[str]) -> str:
    """One format-specific value for display: the mirror bone by name, the box as a size, tables of
    numbers as matrices, other numbers with 4 decimals, anything else as it reads."""
    if key == "mirror" and isinstance(value, (int, np.integer)):
        return bone_text(int(value), names)
    if not isinstance(value, (list, tuple, np.ndarray)):
        return scalar_text(value)
    array = np.asarray(value)
    if array.ndim == 2 and np.issubdtype(array.dtype, np.number):
        return matrix_text(array)
    return (" × " if key == "box" else ", ").join(scalar_text(v) for v in array.ravel()) or "—"


def scalar_text(value) -> str:
    """Floats with 4 decimals; integers, flags and strings as they are."""
    return number_text(value) if isinstance(value, (float, np.floating)) else str(value)


def influence_counts(model: Model) -> np.ndarray:
    """(M, B) per mesh, how many of its vertices each bone influences (a nonzero weight)."""
    bones = len(model.skeleton)
    counts = np.zeros((len(model.meshes), bones), np.int64)
    for row, mesh in enumerate(model.meshes):
        vertices, lanes = np.nonzero(mesh.weights)
        # A bone listed twice on one vertex still counts that vertex once.
        pairs = np.unique(vertices.astype(np.int64) * bones + mesh.joints[vertices, lanes])
        counts[row] = np.bincount(pairs % bones, minlength=bones)
    return counts


# --- widgets --------------------------------------------------------------------------------------

def _value_label(parent: QWidget, monospace: bool = False) -> QLabel:
    label = QLabel(parent)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if monospace:
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        label.setFont(font)
        # Wide enough for a matrix row of tens, so the dock opens wide enough to read one.
        label.setMinimumWidth(QFontMetrics(font).horizontalAdvance(matrix_text(np.full((1, 4), -10.0))))
    else:
        label.setWordWrap(True)
    return label


class _Page(QWidget):
    """A form of named value labels."""

    def __init__(self, fields: list[tuple[str, str, bool]]):
        super().__init__()
        self.form = QFormLayout(self)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        # Room below the last row, so a matrix's bottom row never sits on the scroll area's edge.
        margins = self.form.contentsMargins()
        self.form.setContentsMargins(margins.left(), margins.top(), margins.right(), margins.bottom() + 12)
        self.labels: dict[str, QLabel] = {}
        for key, title, monospace in fields:
            self.labels[key] = _value_label(self, monospace)
            self.form.addRow(title, self.labels[key])


class Inspector(QWidget):
    """Shows the clip on screen (``show_clip``) and one bone (``show_bone``) or helper
    (``show_helper``) of the bound model; ``set_pose`` keeps its current world matrix up to date."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.model: Model | None = None
        self.pose: Pose | None = None
        self.shown: tuple[str, int] | None = None
        #: The model and clip the clip rows show (None: not shown yet).
        self.clip_shown: tuple[Model, Clip | None] | None = None
        self.clip_page = _Page([("clip", "Clip", False), ("travel", "Root travel", False)])
        self.clip_page.labels["travel"].setToolTip(
            "How far the clip's root goes over the ground (its path through the stored frames) and its "
            "mean speed, as info --json's root_travel and root_speed")
        self.influences = np.zeros((0, 0), np.int64)
        self.pages = QStackedWidget()
        self.empty = QLabel("Select a bone or helper in the tree.")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setEnabled(False)
        self.bone_page = _Page([("name", "Bone", False), ("index", "Index", False),
                                ("parent", "Parent", False), ("children", "Children", False),
                                ("head", "Head", False), ("tail", "Tail", False), ("skin", "Skin", False),
                                ("bind", "Bind world", True), ("rest", "Rest world", True),
                                ("current", "Current world", True)])
        self.extras_title = QLabel()
        self.extras_title.setWordWrap(True)
        self.extras_title.setContentsMargins(0, 8, 0, 0)
        self.extras_title.setStyleSheet("font-weight: bold")
        self.bone_page.form.addRow(self.extras_title)
        self.extras_start = self.bone_page.form.rowCount()
        self.helper_page = _Page([("name", "Helper", False), ("parent", "Follows", False),
                                  ("offset", "Offset", True), ("current", "Current world", True)])
        self.settings_title = QLabel("Emitter settings")
        self.settings_title.setContentsMargins(0, 8, 0, 0)
        self.settings_title.setStyleSheet("font-weight: bold")
        self.helper_page.form.addRow(self.settings_title)
        self.settings_start = self.helper_page.form.rowCount()
        self.walkmesh_page = _Page([("name", "Walkmesh", False), ("kind", "Kind", False),
                                    ("source", "From", False), ("size", "Size", False)])
        self.materials_title = QLabel("Faces per surface material")
        self.materials_title.setContentsMargins(0, 8, 0, 0)
        self.materials_title.setStyleSheet("font-weight: bold")
        self.walkmesh_page.form.addRow(self.materials_title)
        self.materials_start = self.walkmesh_page.form.rowCount()
        for page in (self.empty, self.bone_page, self.helper_page, self.walkmesh_page):
            self.pages.addWidget(page)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.pages)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.clip_page)
        layout.addWidget(scroll)

    def bind(self, model: Model) -> None:
        """Inspect ``model``; shows nothing until a bone or helper is chosen."""
        self.model = model
        self.pose = None
        self.show_clip(None)
        self.influences = influence_counts(model)
        known = formats.formats.get(model.format)
        self.extras_title.setText(f"From the {known.description}" if known else "From the file")
        self.show_bone(None)

    def show_bone(self, bone: int | None) -> None:
        """Show ``bone`` (None: nothing)."""
        if bone is None or self.model is None:
            self.shown = None
            self.pages.setCurrentWidget(self.empty)
            return
        skeleton = self.model.skeleton
        labels = self.bone_page.labels
        labels["name"].setText(skeleton.names[bone])
        labels["index"].setText(str(bone))
        parent = int(skeleton.parents[bone])
        labels["parent"].setText(bone_text(parent, skeleton.names) if parent >= 0 else "— (root)")
        labels["children"].setText(self._children_text(bone))
        labels["head"].setText(vector_text(skeleton.heads[bone]))
        labels["tail"].setText(vector_text(skeleton.tails[bone])
                               + ("   (derived)" if skeleton.derived_tails[bone] else "   (from the file)"))
        labels["skin"].setText(self._skin_text(bone))
        labels["bind"].setText(matrix_text(skeleton.bind_world[bone]))
        rest = "= bind world" if skeleton.rest_is_bind else matrix_text(skeleton.rest_world[bone])
        labels["rest"].setText(rest)
        self._fill_extras(skeleton.extras[bone])
        self.shown = ("bone", bone)
        self.pages.setCurrentWidget(self.bone_page)
        self._show_current()

    def show_clip(self, clip: Clip | None) -> None:
        """Show ``clip`` (None: the bind pose) and its root's travel; measured once per clip (this
        runs every frame during playback)."""
        shown = self.clip_shown
        if shown is not None and shown[0] is self.model and shown[1] is clip:
            return
        self.clip_shown = (self.model, clip)
        labels = self.clip_page.labels
        labels["clip"].setText(clip.name if clip is not None else "(bind pose)")
        labels["travel"].setText(travel_text(self.model, clip) if clip is not None else "—")

    def show_helper(self, index: int) -> None:
        """Show the model's ``index``-th helper."""
        helper = self.model.helpers[index]
        labels = self.helper_page.labels
        labels["name"].setText(helper.name)
        labels["parent"].setText(bone_text(helper.parent, self.model.skeleton.names)
                                 if helper.parent >= 0 else "the model (no bone)")
        labels["offset"].setText(matrix_text(helper.offset))
        settings = helper.emitter.settings if helper.emitter is not None else {}
        self._fill_rows(self.helper_page, self.settings_start, settings)
        self.settings_title.setVisible(bool(settings))
        self.shown = ("helper", index)
        self.pages.setCurrentWidget(self.helper_page)
        self._show_current()

    def show_walkmesh(self, index: int) -> None:
        """Show the model's ``index``-th walkmesh: where it comes from and its faces per material
        (as the legend of View › Walkmesh counts them)."""
        walkmesh = self.model.walkmeshes[index]
        labels = self.walkmesh_page.labels
        labels["name"].setText(walkmesh.name)
        labels["kind"].setText(WALKMESH_KINDS.get(walkmesh.kind, walkmesh.kind))
        labels["source"].setText(walkmesh.source)
        labels["size"].setText(f"{len(walkmesh.vertices)} vertices · {len(walkmesh.faces)} faces")
        materials = {entry.name + ("" if entry.walkable else " (not walkable)"): str(entry.faces)
                     for entry in legend([walkmesh])}
        self._fill_rows(self.walkmesh_page, self.materials_start, materials)
        self.materials_title.setVisible(bool(materials))
        self.shown = None  # nothing on the page follows the pose
        self.pages.setCurrentWidget(self.walkmesh_page)

    def set_pose(self, pose: Pose) -> None:
        """Keep ``pose``; refresh only the current-matrix text, and only when someone can see it
        (this runs every frame during playback)."""
        self.pose = pose
        if self.shown is not None and not self.visibleRegion().isEmpty():
            self._show_current()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._show_current()

    def resizeEvent(self, event) -> None:
        """Also catches the splitter reopening a collapsed inspector."""
        super().resizeEvent(event)
        self._show_current()

    def _show_current(self) -> None:
        if self.shown is None:
            return
        kind, index = self.shown
        page = self.bone_page if kind == "bone" else self.helper_page
        if self.pose is None:
            page.labels["current"].setText("(no pose yet)")
            return
        matrices = self.pose.world if kind == "bone" else self.pose.helpers
        page.labels["current"].setText(matrix_text(matrices[index]))

    def _children_text(self, bone: int) -> str:
        names = self.model.skeleton.names
        children = np.flatnonzero(self.model.skeleton.parents == bone)
        listed = ", ".join(names[child] for child in children[:LISTED_CHILDREN])
        more = "…" if len(children) > LISTED_CHILDREN else ""
        return f"{len(children)}" + (f"  ({listed}{more})" if len(children) else "")

    def _skin_text(self, bone: int) -> str:
        per_mesh = self.influences[:, bone]
        total = self.model.vertex_count
        text = f"{per_mesh.sum()} of {total} vertices"
        if np.count_nonzero(per_mesh) > 1:
            meshes = zip(self.model.meshes, per_mesh)
            text += "  (" + ", ".join(f"{mesh.name} {count}" for mesh, count in meshes if count) + ")"
        return text if len(self.model.meshes) else "no meshes"

    def _fill_extras(self, extras: dict) -> None:
        """The format's own data as rows below the title, replacing the previous bone's."""
        self._fill_rows(self.bone_page, self.extras_start, extras)
        self.extras_title.setVisible(bool(extras))

    def _fill_rows(self, page: _Page, start: int, values: dict) -> None:
        """``values`` as labelled rows of ``page`` from row ``start`` on, replacing the rows there."""
        form = page.form
        while form.rowCount() > start:
            form.removeRow(start)
        for key, value in values.items():
            text = extra_text(key, value, self.model.skeleton.names)
            label = _value_label(page, monospace="\n" in text)
            label.setText(text)
            form.addRow(extra_label(key), label)
