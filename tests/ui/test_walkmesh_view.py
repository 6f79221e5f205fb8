"""View › Walkmesh: a tile's walkmesh laid over it in the window, coloured by surface material, with
the legend painted in the view's top-left corner."""

from __future__ import annotations

import numpy as np
import pytest

from app.scene.walkmesh_overlay import MATERIAL_COLORS
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
