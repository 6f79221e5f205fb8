"""The PLT layer colours of the model on screen (app/state/plt_colours.py), without Qt: images coloured
again in place from the palettes the tests wrote, choices remembered per model file and put back."""

from __future__ import annotations

import numpy as np
import pytest

from app import loading
from app.formats.nwn import plt
from app.formats.registry import LoadOptions
from app.state.plt_colours import LayerChoice, PltColours
from app.state.viewer import ViewerState
from tests.plt_files import CLOTH1, LEFT_VALUE, RIGHT_VALUE, WIDTH, expected_image, palette, write_plt_model


class DictMemory:
    def __init__(self):
        self.stored: dict[str, dict[str, LayerChoice]] = {}

    def get(self, file):
        return dict(self.stored.get(file, {}))

    def remember(self, file, choices):
        self.stored[file] = dict(choices)


def shown(path, memory=None, options=None):
    state = ViewerState(options)
    colours = PltColours(state, memory)
    state.set_model(loading.load([path], options or LoadOptions()), load_options=options)
    return state, colours


def test_a_layer_index_colours_the_image_again_in_place(tmp_path):
    state, colours = shown(write_plt_model(tmp_path))
    mesh_events = []
    state.events.subscribe("meshes", mesh_events.append)
    assert colours.active and colours.used("skin") and colours.used("cloth1") and not colours.used("hair")
    assert np.array_equal(state.model.meshes[0].material.image, expected_image(0, 0))
    colours.set_index("skin", 120)
    assert np.array_equal(state.model.meshes[0].material.image, expected_image(120, 0))
    colours.set_index("cloth1", 37)
    assert np.array_equal(state.model.meshes[0].material.image, expected_image(120, 37))
    assert mesh_events == [[0], [0]]
    assert not state.model.meshes[0].material.image.flags.writeable


def test_the_palette_row_is_the_swatch(tmp_path):
    _, colours = shown(write_plt_model(tmp_path))
    assert np.array_equal(colours.palette("skin"), palette(1))
    assert np.array_equal(colours.palette("cloth2"), palette(2))  # cloth1 and cloth2 share pal_cloth01
    assert colours.palette("hair") is None


def test_without_palettes_a_picked_colour_is_shaded_by_value(tmp_path):
    state, colours = shown(write_plt_model(tmp_path, palettes=False))
    assert colours.palette("skin") is None and colours.colour("skin") == plt.NEUTRAL["skin"]
    colours.set_colour("skin", (255, 0, 100))
    image = state.model.meshes[0].material.image
    assert image[0, 0].tolist() == [200, 0, round(100 * LEFT_VALUE / 255), 255]
    cloth = np.round(np.array(plt.NEUTRAL["cloth1"]) * RIGHT_VALUE / 255).astype(int)
    assert image[1, WIDTH - 1].tolist() == [*cloth, 255]


def test_choices_are_remembered_per_file_and_put_back_on_reopen(tmp_path):
    memory = DictMemory()
    path = write_plt_model(tmp_path)
    state, colours = shown(path, memory)
    colours.set_index("skin", 150)
    colours.set_colour("hair", (1, 2, 3))
    assert memory.stored == {str(path): {"skin": LayerChoice(150), "hair": LayerChoice(0, (1, 2, 3))}}
    again, reopened = shown(path, memory)
    assert reopened.choice("skin") == LayerChoice(150)
    assert np.array_equal(again.model.meshes[0].material.image, expected_image(150, 0))


def test_a_reload_keeps_the_choices_and_another_model_starts_from_its_own(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = write_plt_model(tmp_path / "a"), write_plt_model(tmp_path / "b")
    state, colours = shown(first)
    colours.set_index(plt.LAYERS[CLOTH1], 100)
    state.set_model(loading.load([first]), keep_state=True)
    assert np.array_equal(state.model.meshes[0].material.image, expected_image(0, 100))
    state.set_model(loading.load([second]))
    assert colours.choice("cloth1") == LayerChoice()
    assert np.array_equal(state.model.meshes[0].material.image, expected_image(0, 0))


def test_the_command_lines_plt_choices_are_the_start(tmp_path):
    options = LoadOptions(plt_colours={"skin": 99})
    state, colours = shown(write_plt_model(tmp_path), options=options)
    assert colours.choice("skin") == LayerChoice(99)
    assert np.array_equal(state.model.meshes[0].material.image, expected_image(99, 0))


def test_bad_choices_are_refused_with_the_value(tmp_path):
    _, colours = shown(write_plt_model(tmp_path))
    with pytest.raises(ValueError, match="176"):
        colours.set_index("skin", 176)
    with pytest.raises(ValueError, match="fur"):
        colours.set_index("fur", 1)
    with pytest.raises(ValueError, match="256"):
        colours.set_colour("skin", (256, 0, 0))


def test_a_model_without_plt_is_not_active():
    state = ViewerState()
    colours = PltColours(state)
    state.close_model()
    assert not colours.active
    colours.set_index("skin", 3)  # nothing to colour: no error
