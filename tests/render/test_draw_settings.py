"""One display type: the state's display options hold a DrawSettings (each field and default declared
once), and one function makes what the renderer draws of it and the selection, which the window and
``boneyard render`` both call."""

from __future__ import annotations

from dataclasses import FrozenInstanceError

import pytest

from app.scene.draw_settings import DrawSettings, draw_settings
from app.state.display import DisplayOptions


def test_the_display_options_and_selection_become_draw_settings():
    display = DisplayOptions(DrawSettings(shaded=False, wireframe=True, bones=True, bone_names=True,
                                          normals=True, grid=False, bounds=True, skinning="dqs",
                                          textures=False, vertex_colors=False, show_hidden=True,
                                          background=(0.1, 0.2, 0.3, 1.0)), heatmap=True)
    settings = draw_settings(display.drawn, selected_bone=4, heatmap=display.heatmap)
    assert settings == DrawSettings(skinning="dqs", shaded=False, wireframe=True, bones=True, bone_names=True,
                                    normals=True, grid=False, bounds=True, heatmap_bone=4, selected_bone=4,
                                    background=(0.1, 0.2, 0.3, 1.0), textures=False, show_hidden=True,
                                    vertex_colors=False)


def test_the_heat_map_shows_the_selected_bone_only_when_it_is_on():
    assert draw_settings(DrawSettings(), selected_bone=2).heatmap_bone is None
    assert draw_settings(DrawSettings(), heatmap=True).heatmap_bone is None
    assert draw_settings(DrawSettings(), selected_bone=2, heatmap=True).heatmap_bone == 2


def test_a_transparent_picture_has_no_grid():
    assert draw_settings(DisplayOptions().drawn).grid
    settings = draw_settings(DisplayOptions().drawn, transparent=True)
    assert settings.transparent and not settings.grid
    assert DrawSettings(grid=False).for_picture(False).grid is False


def test_draw_settings_are_frozen_and_checked():
    with pytest.raises(FrozenInstanceError):
        DrawSettings().shaded = False
    with pytest.raises(ValueError, match="skinning"):
        DrawSettings(skinning="quats")


def test_the_display_options_read_and_set_the_drawn_fields_by_name():
    """The drawn options live in the held DrawSettings (its defaults are the display's); the View menu
    offers the skinning methods only, not the benchmarks' "none"."""
    display = DisplayOptions()
    assert display.drawn == DrawSettings() and display.skinning == "lbs" and display.grid
    display.set(wireframe=True, follow=False)
    assert display.drawn == DrawSettings(wireframe=True) and display.wireframe and not display.follow
    with pytest.raises(ValueError, match="skinning"):
        DisplayOptions(DrawSettings(skinning="none"))
    with pytest.raises(ValueError, match="skinning"):
        display.skinning = "none"
