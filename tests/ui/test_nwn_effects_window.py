"""NWN effects in the window: an emitter helper's settings in the Inspector, View › Emitters drawing
its shape in the view, View › Dangly Motion swinging a danglymesh while the clip plays."""

from __future__ import annotations

import numpy as np
import pytest

from app import loading
from tests.gui_helpers import changed_colour_pixels, needs_display, view_image
from tests.writers.nwn_ascii_writer import write_ascii_mdl
from tests.writers.nwn_writer import WAnimation, WNode

pytestmark = [pytest.mark.gui, needs_display]

GRID = np.stack(np.meshgrid(np.linspace(0, 1, 5), np.linspace(0, -1, 5)), -1).reshape(-1, 2)


def flagpole(tmp_path):
    """A pole sliding along X with a flag pinned at its edge and an emitter on top."""
    vertices = np.column_stack([GRID[:, 0], np.zeros(len(GRID)), GRID[:, 1]])
    faces = [[r * 5 + c, r * 5 + c + 1, r * 5 + c + 6] for r in range(4) for c in range(4)]
    faces += [[r * 5 + c, r * 5 + c + 6, r * 5 + c + 5] for r in range(4) for c in range(4)]
    flag = WNode("flag", 0x121, (0, 0, 0), None, vertices=vertices, faces=faces,
                 dangly=(0.8, 0.3, 0.6, (GRID[:, 0] * 255).round().tolist()))
    fire = WNode("fire", 0x005, (0, 0, -1.5), None, emitter={"update": "Fountain", "blend": "Lighten"},
                 keys=[(184, [0.0], [[0.8]]), (196, [0.0], [[60.0]]), (200, [0.0], [[60.0]]),
                       (192, [0.0], [[1.0]]), (144, [0.0], [[1.0]])])
    pole = WNode("pole", position=(0, 0, 2), children=[flag, fire])
    slide = WNode("pole", keys=[(8, [0, 0.5, 0.8, 3.0], [[0, 0, 2], [0, 0, 2], [-1.5, 0, 2], [-1.5, 0, 2]])])
    text = write_ascii_mdl("flagpole", WNode("flagpole", children=[pole]),
                           [WAnimation("slide", 3.0, WNode("flagpole", children=[slide]))])
    path = tmp_path / "flagpole.mdl"
    path.write_bytes(text)
    return loading.load([path])


def test_emitter_settings_shape_and_dangly_motion(window, qtbot, tmp_path):
    from PySide6.QtWidgets import QFormLayout

    state = window.state
    state.set_model(flagpole(tmp_path))
    qtbot.waitUntil(lambda: window.viewport.renderer.model is window.model, timeout=10_000)
    state.playback.set_playing(False)
    state.playback.set_time(0.5)

    outliner = window.outliner
    assert outliner.helper_items[0].text(2) == "emitter · Fountain"
    outliner.tree.setCurrentItem(outliner.helper_items[0])
    inspector = outliner.inspector
    form = inspector.helper_page.form
    rows = {form.itemAt(row, QFormLayout.ItemRole.LabelRole).widget().text():
            form.itemAt(row, QFormLayout.ItemRole.FieldRole).widget().text()
            for row in range(inspector.settings_start, form.rowCount())}
    assert rows["Update"] == "Fountain" and rows["Blend"] == "Lighten"
    assert rows["Spread"] == "0.8" and rows["Xsize"] == "60.0"
    assert not inspector.settings_title.isHidden()
    assert inspector.pages.currentWidget() is inspector.helper_page  # not cleared by "no bone selected"

    plain = view_image(window, qtbot)
    window.menus.display_actions["emitters"].trigger()
    assert state.display.emitters
    shown = view_image(window, qtbot)
    assert changed_colour_pixels(plain, shown) > 50
    orange = (shown[..., 0].astype(int) > 180) & (shown[..., 2].astype(int) < 110)
    assert orange.sum() > 50
    window.menus.display_actions["emitters"].trigger()

    still = view_image(window, qtbot)
    window.menus.display_actions["dangly"].trigger()
    assert state.display.dangly_motion
    state.playback.set_playing(True)
    for _ in range(10):   # 0.5 → 1.0 s: the pole slides and stops; the flag swings behind it
        state.tick(0.05)
    state.playback.set_playing(False)
    swung = view_image(window, qtbot)
    assert window.viewport.renderer.pose.mesh_positions
    state.set_display(dangly_motion=False)
    unswung = view_image(window, qtbot)
    assert changed_colour_pixels(swung, unswung) > 200
    assert changed_colour_pixels(still, unswung) > 0
