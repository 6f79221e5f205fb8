"""View › Walkmesh: a tile's walkmesh laid over it in the window, coloured by surface material, with
the legend painted in the view's top-left corner."""

from __future__ import annotations

import numpy as np
import pytest

from app.walkmeshes import MATERIAL_COLORS
from app.ui.view_overlay import LEGEND_MARGIN, LEGEND_SWATCH
from tests.formats.test_nwn_walkmesh import tile_tree
from tests.gui_helpers import image_array, needs_display
from tests.ui.test_app_window import open_and_wait
from tests.writers.nwn_ascii_writer import write_ascii_mdl

pytestmark = [pytest.mark.gui, needs_display]


def swatch(picture: np.ndarray, row: int, line: int) -> np.ndarray:
    """The RGB at the centre of legend row ``row``'s swatch (rows ``line`` pixels apart)."""
    top = LEGEND_MARGIN * 3 // 2 + row * line + 2
    x, y = 2 * LEGEND_MARGIN + LEGEND_SWATCH // 2, top + LEGEND_SWATCH // 2
    return picture[y, x, :3].astype(int)


def test_view_walkmesh_draws_the_tiles_walkmesh_and_its_legend(window, qtbot, tmp_path):
    path = tmp_path / "tcn01_a01_01.mdl"
    path.write_bytes(write_ascii_mdl("tcn01_a01_01", tile_tree([3] * 8)))  # all Grass
    open_and_wait(window, qtbot, [path])
    assert len(window.model.walkmeshes) == 1
    plain = image_array(window.viewport.grab())
    window.menus.display_actions["walkmesh"].trigger()
    try:
        assert window.state.display.walkmesh
        shown = image_array(window.viewport.grab())
        assert np.abs(shown.astype(int) - plain.astype(int)).sum(axis=2).astype(bool).mean() > 0.01
        line = window.viewport.fontMetrics().height() + 4
        grass = np.array([round(255 * c) for c in MATERIAL_COLORS[3]])
        assert np.abs(swatch(shown, 0, line) - grass).max() <= 3
    finally:
        window.menus.display_actions["walkmesh"].trigger()
    assert not window.state.display.walkmesh


def test_the_outliner_lists_the_walkmesh_and_the_inspector_its_faces_per_material(window, qtbot, tmp_path):
    from collections import Counter

    from app.ui.outliner import INFO, TYPE
    from tests.formats.test_nwn_walkmesh import GRID_MATERIALS

    path = tmp_path / "tcn01_a01_01.mdl"
    path.write_bytes(write_ascii_mdl("tcn01_a01_01", tile_tree()))
    open_and_wait(window, qtbot, [path])
    outliner = window.outliner
    (item,) = outliner.walkmesh_items
    group = outliner.groups[2]
    # Dirt, Grass, Stone, Water, Nonwalk ×2, Lava, Door: eight faces, counted here from the writer's list.
    counts = Counter(GRID_MATERIALS)
    names = {1: "Dirt", 3: "Grass", 4: "Stone", 6: "Water", 7: "Nonwalk", 15: "Lava", 18: "Door"}
    marks = {m: "" if m not in (7, 15) else " (not walkable)" for m in names}
    assert (group.text(0), group.text(INFO)) == ("Walkmeshes", f"{len(GRID_MATERIALS)} faces")
    assert (item.text(0), item.text(TYPE)) == ("walkmesh", "walkmesh")
    listed = ", ".join(f"{names[m]} {counts[m]}{marks[m]}" for m in sorted(counts))
    assert item.text(INFO) == f"aabb · 8 faces · {listed}"
    outliner.tree.setCurrentItem(item)
    inspector = outliner.inspector
    assert inspector.pages.currentWidget() is inspector.walkmesh_page
    labels = inspector.walkmesh_page.labels
    assert labels["size"].text() == "9 vertices · 8 faces"
    assert labels["source"].text() == path.name
    form = inspector.walkmesh_page.form
    rows = {form.itemAt(row, form.ItemRole.LabelRole).widget().text():
            form.itemAt(row, form.ItemRole.FieldRole).widget().text()
            for row in range(inspector.materials_start, form.rowCount())}
    assert rows == {names[m] + marks[m]: str(counts[m]) for m in sorted(counts)}
    assert window.state.selected_bone is None


def test_frame_all_takes_in_the_walkmesh_while_it_is_drawn(window, qtbot, tmp_path):
    """A 1 × 1 placeable whose walkmesh spans -1..2 on x and y: framed with View › Walkmesh on, every
    walkmesh corner lies inside the view; with it off, the view is closer and the corners fall out."""
    from app.render.camera import project
    from tests.render.test_framed_bounds import POOL_WALKMESH, pool

    open_and_wait(window, qtbot, [pool(tmp_path)])
    viewport = window.viewport
    size = (viewport.width(), viewport.height())
    viewport.set_view("top")
    _, inside = project(viewport.camera, POOL_WALKMESH, *size)
    assert not inside.all()
    window.menus.display_actions["walkmesh"].trigger()
    try:
        viewport.frame_all()
        _, inside = project(viewport.camera, POOL_WALKMESH, *size)
        assert inside.all()
    finally:
        window.menus.display_actions["walkmesh"].trigger()
