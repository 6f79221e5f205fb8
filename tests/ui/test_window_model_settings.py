"""Window settings kept per user or per model file: texture folders (View › Add Texture Folder…),
searched after the command line's --texture-dir folders, remembered, forgotten on request; and the
up axis chosen in View › Up Axis, remembered for that file unless --up says otherwise."""

from __future__ import annotations

import pytest

from app import loading
from app.formats import LoadOptions
from tests.gui_helpers import needs_display
from tests.formats.test_textures import PICTURE, nwn_model, save_image

pytestmark = [pytest.mark.gui, needs_display]


@pytest.fixture
def new_window(qtbot, tmp_path):
    from app.ui.main_window import MainWindow

    def make(options=None):
        window = MainWindow(load_options=options)
        qtbot.addWidget(window)
        return window
    return make


def test_texture_folders_are_searched_remembered_and_forgotten(new_window, tmp_path):
    model_file = nwn_model(tmp_path)
    cli_folder, folder = tmp_path / "cli", tmp_path / "library"
    cli_folder.mkdir()
    folder.mkdir()
    image = save_image(folder / "BODY_TEX.png")
    window = new_window(LoadOptions(texture_dirs=[str(cli_folder)]))
    window.add_texture_folder(str(folder))
    assert window.load_options.texture_dirs == [str(cli_folder), str(folder)]
    body = loading.load([model_file], window.load_options).meshes[0]
    assert body.material.texture_path == str(image.resolve())
    assert (body.material.image == PICTURE).all()
    assert new_window().load_options.texture_dirs == [str(folder)]
    window.forget_texture_folders()
    assert window.load_options.texture_dirs == [str(cli_folder)]
    assert new_window().load_options.texture_dirs == []


def test_up_axis_chosen_in_the_window_is_remembered_per_file(new_window, tmp_path):
    model_file = nwn_model(tmp_path)
    window = new_window()
    window.state.set_model(loading.load([model_file]))
    assert window.model.up_axis == "Z" and window.menus.up_axis_actions["Z"].isChecked()
    window.menus.up_axis_actions["Y"].setChecked(True)
    assert (window.model.up_axis, window.model.up_source) == ("Y", "option")
    assert window.viewport.camera.up_axis == "Y"
    again = new_window()
    again.set_model(loading.load([model_file]))
    assert again.model.up_axis == "Y" and again.menus.up_axis_actions["Y"].isChecked()
    given = new_window(LoadOptions(up="Z"))
    given.set_model(loading.load([model_file], given.load_options))
    assert given.model.up_axis == "Z"  # --up wins over the remembered choice
