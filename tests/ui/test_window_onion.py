"""View › Onion Skin: the walk ghosted a few frames before (blue) and after (orange) the instant
shown, judged by the view's pixels; the ghosts' instants worked out here from the clip's rate.
View › Bone Axes: each bone's local axes drawn from its joint."""

import numpy as np
import pytest

from tests.gui_helpers import needs_display, view_image

pytestmark = [pytest.mark.gui, needs_display]


def test_onion_offsets_alternate_sides_nearest_first():
    from app.state.onion import onion_offsets

    assert onion_offsets(2, 0.25) == [-0.25, 0.25, -0.5, 0.5]
    with pytest.raises(ValueError, match="count ≥ 0 and a step > 0"):
        onion_offsets(1, 0.0)


def test_ghosts_lie_on_the_clip_one_frame_of_its_rate_apart(demo):
    from app.state.onion import onion_poses

    walk = demo.clips[0]  # 13 keys over 1 s: 12 frames per second
    ghosts = onion_poses(demo, walk, 0.05, count=2)
    assert [round(offset * 12, 6) for _, offset in ghosts] == [1.0, 2.0]  # before 0 s: none
    assert onion_poses(demo, None, 0.5) == []


def test_the_view_shows_tinted_ghosts_before_and_after(window, qtbot):
    window.playback.set_playing(False)
    window.playback.set_clip(0)
    window.playback.set_time(0.5)
    plain = view_image(window, qtbot)
    window.menus.display_actions["onion"].trigger()
    assert window.state.display.onion and len(window.viewport.ghosts) == 4
    ghosted = view_image(window, qtbot)
    window.menus.display_actions["onion"].trigger()
    assert window.viewport.ghosts == []
    changed = np.abs(plain[..., :3].astype(int) - ghosted[..., :3]).max(axis=-1) > 20
    assert changed.sum() > 300
    red, blue = ghosted[..., 0].astype(int), ghosted[..., 2].astype(int)
    assert ((blue - red > 25) & changed).sum() > 50  # the blue ghosts of the frames before
    assert ((red - blue > 25) & changed).sum() > 50  # the orange ones after


def test_bone_axes_draw_each_bones_local_axes(window, qtbot):
    """View › Bone Axes: three lines per bone from its joint along its world matrix's columns (red X,
    green Y, blue Z), seen as new red, green and blue pixels in the view."""
    from app.pose import rest_extent
    from app.state.bone_axes import AXIS_SHARE

    window.playback.set_playing(False)
    window.playback.set_time(0.5)
    plain = view_image(window, qtbot)
    window.menus.display_actions["axes"].trigger()
    scene = window.viewport.gizmo_scene
    world = window.state.current_pose().world
    bones = len(window.model.skeleton)
    assert scene.line_count == 3 * bones
    length = AXIS_SHARE * rest_extent(window.model)
    np.testing.assert_allclose(scene.lines[0], world[0, :3, 3], atol=1e-5)  # bone 0's X from its joint
    np.testing.assert_allclose(scene.lines[1], world[0, :3, 3] + length * world[0, :3, 0] /
                               np.linalg.norm(world[0, :3, 0]), atol=1e-4)
    drawn = view_image(window, qtbot)
    window.menus.display_actions["axes"].trigger()
    assert window.viewport.gizmo_scene is None or window.viewport.gizmo_scene.line_count == 0
    changed = np.abs(plain[..., :3].astype(int) - drawn[..., :3]).max(axis=-1) > 40
    red, green, blue = (drawn[..., channel].astype(int) for channel in range(3))
    for strong, others in ((red, (green, blue)), (green, (red, blue)), (blue, (red, green))):
        assert (changed & (strong - np.maximum(*others) > 60)).sum() > 10
