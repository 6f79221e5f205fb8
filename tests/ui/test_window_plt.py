"""NWN PLT layers and archives in the window under Xvfb: the Inspector's PLT colours redraw the part
at once (judged by the view's pixels), are remembered for the file, and File › Open Archive… lists an
archive's models (kind, size, search) and opens one as ARCHIVE:RESREF, kept in Open Recent."""

from __future__ import annotations

import numpy as np
import pytest

from tests.gui_helpers import needs_display, view_image
from tests.nwn_archive_bytes import erf_bytes
from tests.paths import CORPUS
from tests.plt_files import plt_bytes, write_plt_model
from tests.writers.nwn_ascii_writer import write_ascii_mdl
from tests.writers.nwn_writer import write_mdl
from tests.formats.test_nwn_resources import textured_tree
from tests.formats.test_nwn_sets import lender_tree

pytestmark = [pytest.mark.gui, needs_display]

LOAD_TIMEOUT_MS = 60_000


@pytest.fixture
def window(window):
    window.playback.set_playing(False)
    window.menus.display_actions["grid"].setChecked(False)
    return window


def open_and_wait(window, qtbot, paths):
    with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
        window.open_files(paths)
    window.viewport.set_view("front")
    window.viewport.frame_all()


def reddish(pixels: np.ndarray) -> np.ndarray:
    return pixels[:, 0].astype(int) > pixels[:, 2].astype(int) + 40


def bluish(pixels: np.ndarray) -> np.ndarray:
    return pixels[:, 2].astype(int) > pixels[:, 0].astype(int) + 40


def test_a_layer_index_redraws_its_part_and_only_it(window, qtbot, tmp_path):
    open_and_wait(window, qtbot, [write_plt_model(tmp_path)])
    box = window.plt_layers
    assert box.isVisible() and box.indices["skin"].isVisible() and not box.buttons["skin"].isVisible()
    assert not box.names["hair"].isEnabled()  # no pixel on the hair layer
    before = view_image(window, qtbot)
    box.indices["skin"].setValue(120)   # palette rows from 88 on are blue (tests/plt_files.py)
    after = view_image(window, qtbot)
    changed = np.abs(before[..., :3].astype(int) - after[..., :3].astype(int)).max(-1) > 30
    assert changed.sum() > 500
    # Most of the changed pixels are the skin half, red before and blue after; the rest lie where the
    # sampler blends the two halves (the middle, and the edges: the texture repeats).
    assert reddish(before[changed]).mean() > 0.95 and bluish(after[changed]).mean() > 0.85
    unchanged_red = ~changed & reddish(before.reshape(-1, 4)).reshape(changed.shape)
    assert unchanged_red.sum() > 500  # the cloth1 half stays as it was
    assert window.plt_colours.choice("skin").index == 120


def test_digits_typed_into_an_index_stay_there(window, qtbot, tmp_path):
    """Digits are also the view's keys (1, 3, 7, 9: views; 5: orthographic)."""
    from PySide6.QtCore import Qt

    open_and_wait(window, qtbot, [write_plt_model(tmp_path)])
    box = window.plt_layers.indices["skin"]
    box.setFocus()
    qtbot.waitUntil(box.hasFocus, timeout=5_000)
    box.selectAll()
    qtbot.keyClicks(box, "135")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert window.plt_colours.choice("skin").index == 135
    assert not window.menus.orthographic_action.isChecked()


def test_the_swatch_shows_the_palette_row(window, qtbot, tmp_path):
    from tests.gui_helpers import image_array
    from tests.plt_files import palette

    open_and_wait(window, qtbot, [write_plt_model(tmp_path)])
    box = window.plt_layers
    box.indices["cloth1"].setValue(130)
    swatch = image_array(box.swatches["cloth1"].pixmap())
    row = palette(2)[130]
    # Left end: value 0 of row 130 (blue 0), right end: value 255 (blue 255).
    assert abs(int(swatch[8, 0, 2]) - int(row[0, 2])) < 8 and abs(int(swatch[8, -1, 2]) - int(row[-1, 2])) < 8
    assert swatch[8, -1, 1] == 2  # green is the palette's seed


def test_choices_come_back_when_the_file_opens_again(window, qtbot, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = write_plt_model(tmp_path / "a"), write_plt_model(tmp_path / "b")
    open_and_wait(window, qtbot, [first])
    window.plt_layers.indices["skin"].setValue(150)
    open_and_wait(window, qtbot, [second])
    assert window.plt_layers.indices["skin"].value() == 0
    open_and_wait(window, qtbot, [first])
    assert window.plt_layers.indices["skin"].value() == 150
    image = window.model.meshes[0].material.image
    assert image[0, 0, 2] > image[0, 0, 0]  # row 150 is blue


def test_without_palettes_the_layer_has_a_colour_button(window, qtbot, tmp_path, monkeypatch):
    from PySide6.QtGui import QColor
    from PySide6.QtWidgets import QColorDialog

    open_and_wait(window, qtbot, [write_plt_model(tmp_path, palettes=False)])
    box = window.plt_layers
    assert box.buttons["skin"].isVisible() and not box.indices["skin"].isVisible()
    before = view_image(window, qtbot)
    monkeypatch.setattr(QColorDialog, "getColor", lambda *args: QColor(0, 255, 0))
    box.buttons["skin"].click()
    after = view_image(window, qtbot)
    changed = np.abs(before[..., :3].astype(int) - after[..., :3].astype(int)).max(-1) > 30
    assert changed.sum() > 500
    green = after[changed]
    assert (green[:, 1].astype(int) > green[:, 0].astype(int) + 40).mean() > 0.85


def test_a_model_without_plt_hides_the_box(window, qtbot):
    assert not window.plt_layers.isVisible()


def archive(tmp_path):
    """A HAK with an ASCII character, a binary tile, a PLT and a text file."""
    tile = bytearray(write_mdl("tile_a01", lender_tree()))
    tile[12 + 0x72] = 2  # the model header's classification byte (after the file header): a tile
    path = tmp_path / "parts.hak"
    path.write_bytes(erf_bytes([
        ("c_hero", "mdl", write_ascii_mdl("c_hero", textured_tree())),
        ("tile_a01", "mdl", bytes(tile)),
        ("skin01", "plt", plt_bytes()),
        ("readme", "2da", b"2DA V2.0\n")]))
    return path


def rows(dialog):
    """The rows the dialog's list shows, as text."""
    table = dialog.list.model()
    return [[table.index(row, column).data() for column in range(3)] for row in range(table.rowCount())]


def test_open_archive_lists_searches_and_opens_a_model(window, qtbot, tmp_path):
    from PySide6.QtCore import Qt

    path = archive(tmp_path)
    dialog = window.open_from_archive(path)
    qtbot.waitUntil(lambda: len(rows(dialog)) == 2, timeout=LOAD_TIMEOUT_MS)
    hero_size = len(write_ascii_mdl("c_hero", textured_tree()))
    assert rows(dialog)[0] == ["c_hero", "character, ASCII", f"{hero_size} B"]  # under 1 KB
    assert rows(dialog)[1][:2] == ["tile_a01", "tile, binary"]
    dialog.search.setText("TILE")
    assert [row[0] for row in rows(dialog)] == ["tile_a01"]
    dialog.search.setText("")
    dialog.list.sortByColumn(2, Qt.SortOrder.DescendingOrder)  # the binary tile is the larger
    assert [row[0] for row in rows(dialog)] == ["tile_a01", "c_hero"]
    dialog.search.setText("hero")
    assert [row[0] for row in rows(dialog)] == ["c_hero"]
    with qtbot.waitSignal(window.model_changed, timeout=LOAD_TIMEOUT_MS):
        dialog.buttons.button(dialog.buttons.StandardButton.Open).click()
    assert window.model.files == (f"{path.resolve()}:c_hero",)
    assert window.recent.entries()[0] == [f"{path.resolve()}:c_hero"]


def test_an_archive_without_models_and_a_broken_one_say_so(window, qtbot, tmp_path):
    dialog = window.open_from_archive(CORPUS / "rollnw" / "transforms.mod")
    qtbot.waitUntil(lambda: "no models" in dialog.status.text(), timeout=LOAD_TIMEOUT_MS)
    assert not dialog.buttons.button(dialog.buttons.StandardButton.Open).isEnabled()
    dialog.reject()
    broken = tmp_path / "broken.hak"
    broken.write_bytes(archive(tmp_path).read_bytes()[:200])
    dialog = window.open_from_archive(broken)
    qtbot.waitUntil(lambda: "Cannot list" in dialog.status.text(), timeout=LOAD_TIMEOUT_MS)
    assert "broken.hak" in dialog.status.text() and "byte" in dialog.status.text()
    dialog.reject()


def test_remembered_colours_survive_the_settings_file_and_ignore_what_is_malformed(tmp_path):
    import json

    from PySide6.QtCore import QSettings

    from app.state.plt_colours import LayerChoice
    from app.ui.plt_memory import KEY, RememberedPltColours

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    memory = RememberedPltColours(settings)
    memory.remember("a.mdl", {"skin": LayerChoice(12), "hair": LayerChoice(3, (255, 0, 16))})
    again = RememberedPltColours(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    assert again.get("a.mdl") == {"skin": LayerChoice(12), "hair": LayerChoice(3, (255, 0, 16))}
    assert again.get("b.mdl") == {}
    settings.setValue(KEY, json.dumps({"a.mdl": {"skin": {"index": 176}, "fur": {"index": 1},
                                                 "hair": {"index": 2, "colour": "#zz0000"},
                                                 "cloth1": {"index": 5, "colour": "#00ff00"},
                                                 "cloth2": "red"}}))
    assert memory.get("a.mdl") == {"cloth1": LayerChoice(5, (0, 255, 0))}
    settings.setValue(KEY, "{not json")
    assert memory.get("a.mdl") == {}
