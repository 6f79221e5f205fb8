"""One display type: the renderer's DrawSettings are made from the state's display options and the
selection by one function, which the window and ``boneyard render`` both call."""

from __future__ import annotations

from dataclasses import FrozenInstanceError

import pytest

from app.scene.draw_settings import DrawSettings
from app.state.display import DisplayOptions, draw_settings


def test_the_display_options_and_selection_become_draw_settings():
    display = DisplayOptions(shaded=False, wireframe=True, bones=True, bone_names=True, heatmap=True,
                             normals=True, grid=False, bounds=True, skinning="dqs", textures=False,
                             vertex_colors=False, show_hidden=True, background=(0.1, 0.2, 0.3, 1.0))
    settings = draw_settings(display, selected_bone=4)
    assert settings == DrawSettings(skinning="dqs", shaded=False, wireframe=True, bones=True, bone_names=True,
                                    normals=True, grid=False, bounds=True, heatmap_bone=4, selected_bone=4,
                                    background=(0.1, 0.2, 0.3, 1.0), textures=False, show_hidden=True,
                                    vertex_colors=False)


def test_the_heat_map_shows_the_selected_bone_only_when_it_is_on():
    assert draw_settings(DisplayOptions(), selected_bone=2).heatmap_bone is None
    assert draw_settings(DisplayOptions(heatmap=True)).heatmap_bone is None
    assert draw_settings(DisplayOptions(heatmap=True), selected_bone=2).heatmap_bone == 2


def test_a_transparent_picture_has_no_grid():
    assert draw_settings(DisplayOptions()).grid
    settings = draw_settings(DisplayOptions(), transparent=True)
    assert settings.transparent and not settings.grid
    assert DrawSettings(grid=False).for_picture(False).grid is False


def test_draw_settings_are_frozen_and_checked():
    with pytest.raises(FrozenInstanceError):
        DrawSettings().shaded = False
    with pytest.raises(ValueError, match="skinning"):
        DrawSettings(skinning="quats")
