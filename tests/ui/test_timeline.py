"""The timeline dock under Xvfb: transport buttons and shortcuts, the scrub bar, the time and frame
fields and the fps box, in the real main window with the demo (walk: 1 s, 13 keys; idle: 3 s, 7 keys)
or in a lone dock bound to a small hand-built model. The window's timer is stopped: time passes only
when a test calls ``state.tick(dt)``."""

import numpy as np
import pytest

from tests.gui_helpers import image_array, needs_display

pytestmark = [pytest.mark.gui, needs_display]

WALK_KEY_TIMES = np.arange(13) / 12


@pytest.fixture
def paused(window):
    """The demo window's playback, paused at 0 s of the walk."""
    window.playback.set_playing(False)
    window.playback.set_time(0.0)
    return window.playback


@pytest.fixture
def lone_dock(qtbot):
    """A dock on its own, bound to a two-bone model with one keyed 2 s clip that has events."""
    from app.model import Clip, Track
    from app.state.playback import Playback
    from app.ui.timeline import TimelineDock
    from tests.helpers import chain_model

    clip = Clip("attack", "keyed", tracks=[Track(0, rotation=([0.0, 1.0, 2.0], [[0, 0, 0, 1]] * 3))],
                events=[(0.5, "swing"), (1.5, "hit")])
    dock = TimelineDock()
    qtbot.addWidget(dock)
    dock.bind(Playback(chain_model(clips=[clip])))
    dock.playback.set_playing(False)
    dock.resize(800, 110)
    dock.show()
    qtbot.waitExposed(dock)
    return dock


def press(qtbot, window, key, shift=False):
    """A key press as the viewport (which has keyboard focus and its own key handler) receives it."""
    from PySide6.QtCore import Qt

    modifier = Qt.KeyboardModifier.ShiftModifier if shift else Qt.KeyboardModifier.NoModifier
    qtbot.keyClick(window.viewport, key, modifier)


def button_for(dock, action):
    from PySide6.QtWidgets import QToolButton

    return next(button for button in dock.findChildren(QToolButton) if button.defaultAction() is action)


def scrub_point(bar, time):
    from PySide6.QtCore import QPoint

    return QPoint(round(bar.x_of(time)), bar.height() - 8)


def test_space_on_the_viewport_toggles_playing(window, paused, qtbot):
    from PySide6.QtCore import Qt

    press(qtbot, window, Qt.Key.Key_Space)
    assert paused.playing and window.timeline.play_action.isChecked()
    window.state.tick(0.2)
    assert paused.time == pytest.approx(0.2)
    press(qtbot, window, Qt.Key.Key_Space)
    assert not paused.playing and not window.timeline.play_action.isChecked()


def test_play_button_plays_and_pauses(window, paused, qtbot):
    from PySide6.QtCore import Qt

    play = button_for(window.timeline, window.timeline.play_action)
    qtbot.mouseClick(play, Qt.MouseButton.LeftButton)
    assert paused.playing
    qtbot.mouseClick(play, Qt.MouseButton.LeftButton)
    assert not paused.playing


def test_arrow_keys_step_frames_and_keys(window, paused, qtbot):
    from PySide6.QtCore import Qt

    press(qtbot, window, Qt.Key.Key_Right)
    assert paused.time == pytest.approx(WALK_KEY_TIMES[1])
    press(qtbot, window, Qt.Key.Key_Right, shift=True)
    assert paused.time == pytest.approx(WALK_KEY_TIMES[2])
    press(qtbot, window, Qt.Key.Key_Left)
    assert paused.time == pytest.approx(WALK_KEY_TIMES[1])
    press(qtbot, window, Qt.Key.Key_Left, shift=True)
    assert paused.time == 0.0
    assert window.timeline.frame_box.value() == 0


def test_stepping_pauses_playback(window, qtbot):
    from PySide6.QtCore import Qt

    window.playback.set_playing(True)
    press(qtbot, window, Qt.Key.Key_Right)
    assert not window.playback.playing


def test_home_and_end_jump_to_the_clip_ends(window, paused, qtbot):
    from PySide6.QtCore import Qt

    press(qtbot, window, Qt.Key.Key_End)
    assert paused.time == 1.0 and window.timeline.frame_box.value() == 12
    press(qtbot, window, Qt.Key.Key_Home)
    assert paused.time == 0.0


def test_reverse_plays_backwards(window, paused, qtbot):
    from PySide6.QtCore import Qt

    paused.set_time(0.5)
    qtbot.mouseClick(button_for(window.timeline, window.timeline.reverse_action), Qt.MouseButton.LeftButton)
    assert paused.reverse
    paused.set_playing(True)
    window.state.tick(0.2)
    assert paused.time == pytest.approx(0.3)


def test_speed_box_slows_playback(window, paused):
    window.timeline.speed.setCurrentIndex(window.timeline.speed.findText("0.25×"))
    assert paused.speed == 0.25
    paused.set_playing(True)
    window.state.tick(0.4)
    assert paused.time == pytest.approx(0.1)


def test_without_loop_playback_stops_at_the_end(window, paused, qtbot):
    from PySide6.QtCore import Qt

    qtbot.mouseClick(button_for(window.timeline, window.timeline.loop_action), Qt.MouseButton.LeftButton)
    assert not paused.loop
    paused.set_time(0.8)
    paused.set_playing(True)
    window.state.tick(0.1)
    assert paused.playing and window.timeline.time_box.value() == pytest.approx(0.9)
    window.state.tick(0.15)
    assert not paused.playing and paused.time == 1.0 and not window.timeline.play_action.isChecked()


def test_scrub_bar_press_and_drag_set_the_time(window, paused, qtbot):
    from PySide6.QtCore import Qt

    bar = window.timeline.scrub_bar
    pixel = 1.0 / (bar.width() - 16)  # one pixel of the 1 s clip
    qtbot.mousePress(bar, Qt.MouseButton.LeftButton, pos=scrub_point(bar, 0.25))
    assert paused.time == pytest.approx(0.25, abs=pixel) and paused.scrubbing
    qtbot.mouseMove(bar, scrub_point(bar, 0.75))
    assert paused.time == pytest.approx(0.75, abs=pixel)
    qtbot.mouseRelease(bar, Qt.MouseButton.LeftButton, pos=scrub_point(bar, 0.75))
    assert not paused.scrubbing and not paused.playing
    assert window.timeline.time_box.value() == pytest.approx(paused.time, abs=5e-4)


def test_dragging_while_playing_holds_the_playhead_then_resumes(window, qtbot):
    from PySide6.QtCore import Qt

    playback, bar = window.playback, window.timeline.scrub_bar
    qtbot.mousePress(bar, Qt.MouseButton.LeftButton, pos=scrub_point(bar, 0.5))
    held = playback.time
    window.state.tick(0.1)
    assert playback.time == held and playback.playing
    qtbot.mouseRelease(bar, Qt.MouseButton.LeftButton, pos=scrub_point(bar, 0.5))
    window.state.tick(0.1)
    assert playback.time == pytest.approx(held + 0.1)


def test_scrubbing_uploads_poses_not_meshes(window, paused, qtbot, monkeypatch):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QWidget

    from app.render.gpu_mesh import GpuMesh

    renderer, bar = window.viewport.renderer, window.timeline.scrub_bar
    calls = {"set_model": 0, "set_pose": 0, "upload_positions": 0}

    def counting(name, function):
        def counted(*args):
            calls[name] += 1
            return function(*args)
        return counted

    monkeypatch.setattr(renderer, "set_model", counting("set_model", renderer.set_model))
    monkeypatch.setattr(renderer, "set_pose", counting("set_pose", renderer.set_pose))
    monkeypatch.setattr(GpuMesh, "upload_positions", counting("upload_positions", GpuMesh.upload_positions))
    widgets = len(window.timeline.findChildren(QWidget))
    qtbot.mousePress(bar, Qt.MouseButton.LeftButton, pos=scrub_point(bar, 0.0))
    for time in np.linspace(0.0, 1.0, 10):
        qtbot.mouseMove(bar, scrub_point(bar, time))
        qtbot.wait(20)
    qtbot.mouseRelease(bar, Qt.MouseButton.LeftButton, pos=scrub_point(bar, 1.0))
    assert calls["set_pose"] > 3 and calls["set_model"] == 0 and calls["upload_positions"] == 0
    assert len(window.timeline.findChildren(QWidget)) == widgets


def test_typing_a_time_moves_the_playhead(window, paused, qtbot):
    from PySide6.QtCore import Qt

    box = window.timeline.time_box
    box.selectAll()
    qtbot.keyClicks(box, "0.5")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert paused.time == pytest.approx(0.5)
    assert window.timeline.scrub_bar.time == pytest.approx(0.5) and window.timeline.frame_box.value() == 6
    paused.step_frame(+1)
    assert box.value() == pytest.approx(0.583), "once entered, the box follows the playhead again"


def test_typing_while_playing_is_not_overwritten(window, qtbot):
    from PySide6.QtCore import Qt

    window.playback.set_time(0.0)
    box = window.timeline.time_box
    box.selectAll()
    qtbot.keyClicks(box, "0.5")
    for _ in range(5):
        window.state.tick(0.02)
    assert box.text().startswith("0.5") and window.playback.playing
    assert window.playback.time == pytest.approx(0.1), "the playhead moved on meanwhile"
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert window.playback.time == pytest.approx(0.5)


def test_setting_the_frame_moves_to_its_time(window, paused):
    window.timeline.frame_box.setValue(3)
    assert paused.time == pytest.approx(0.25)


def test_switching_clips(window, paused):
    dock = window.timeline
    dock.clips.setCurrentIndex(1)
    assert paused.clip.name == "idle" and paused.time == 0.0
    assert dock.time_box.maximum() == 3.0 and dock.frame_box.maximum() == 6
    assert len(dock.scrub_bar.tick_positions()) == 7


def test_the_walk_has_a_tick_per_key(window):
    bar = window.timeline.scrub_bar
    ticks = bar.tick_positions()
    assert len(ticks) == 13
    np.testing.assert_allclose(ticks, [bar.x_of(t) for t in WALK_KEY_TIMES], atol=0.5)


def test_ticks_never_outnumber_pixels(lone_dock):
    from app.model import Clip

    bar = lone_dock.scrub_bar
    frames = 20_000
    bar.set_clip(Clip("dense", "matrices", times=np.arange(frames) / 1000, world=np.zeros((frames, 2, 4, 4))))
    assert len(bar.tick_positions()) <= bar.width()


def test_event_marks_are_painted_at_their_times(lone_dock):
    from app.ui.scrub_bar import EVENT_COLOR

    bar = lone_dock.scrub_bar
    assert [name for _, name in bar.event_marks()] == ["swing", "hit"]
    image = image_array(bar.grab()).astype(int)
    colour = np.array([EVENT_COLOR.red(), EVENT_COLOR.green(), EVENT_COLOR.blue()])
    columns = np.flatnonzero((np.abs(image[..., :3] - colour).max(axis=-1) < 30).any(axis=0))
    for time in (0.5, 1.5):
        near = columns[np.abs(columns - bar.x_of(time)) < 8]
        assert len(near) >= 5 and abs(near.mean() - bar.x_of(time)) < 1.5
    assert len(columns) == len(columns[np.minimum(*(np.abs(columns - bar.x_of(t)) for t in (0.5, 1.5))) < 8])


def test_event_tooltip_names_the_event(lone_dock, qtbot):
    from PySide6.QtCore import QEvent, QPoint
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    bar = lone_dock.scrub_bar
    point = QPoint(round(bar.x_of(1.5)), 20)
    QApplication.sendEvent(bar, QHelpEvent(QEvent.Type.ToolTip, point, bar.mapToGlobal(point)))
    assert "hit" in QToolTip.text()


def test_fps_box_emits_only_user_changes(lone_dock, qtbot):
    with qtbot.assertNotEmitted(lone_dock.fps_changed):
        lone_dock.set_fps(12.0)
    assert lone_dock.fps_box.value() == 12.0
    with qtbot.waitSignal(lone_dock.fps_changed) as signal:
        lone_dock.fps_box.setValue(25.0)
    assert signal.args == [25.0]


def test_playback_actions_carry_window_shortcuts(lone_dock):
    from PySide6.QtCore import Qt

    actions = lone_dock.playback_actions()
    shortcuts = {action.shortcut().toString() for action in actions}
    assert {"Space", "Left", "Right", "Shift+Left", "Shift+Right", "Home", "End"} <= shortcuts
    assert all(action.shortcutContext() == Qt.ShortcutContext.WindowShortcut for action in actions)
    assert all(action in lone_dock.actions() for action in actions)


def test_the_mix_row_changes_the_picture_live_and_the_window_still_fits_900_pixels(window, paused, qtbot):
    """Mix Clips opens the second row under the transport; the window keeps the width the 900 px
    screenshot needs; a change in the row is on screen at once (the walk's pose at 0.5 s against
    the idle's)."""
    from app.ui.ragdoll.dock_width import MIN_VIEW_SHARE
    from tests.gui_helpers import view_image

    window.resize(900, 640)
    window.timeline.mix_action.trigger()
    row = window.timeline.mix_row
    qtbot.waitUntil(row.isVisible)
    assert window.minimumSizeHint().width() <= 900
    qtbot.waitUntil(lambda: window.width() == 900)
    # the docks narrowed once the window's resize arrives: the view keeps its share of the width
    qtbot.waitUntil(lambda: window.viewport.width() >= window.width() * MIN_VIEW_SHARE)
    paused.set_time(0.5)  # the cross-fade into the idle starts at 0.7 s: the walk alone
    walk = view_image(window, qtbot)
    row.mode.setCurrentIndex(row.mode.findText("Blend"))
    row.amount.setValue(1.0)
    qtbot.waitUntil(lambda: window.state.mix.weight == 1.0)
    idle = view_image(window, qtbot)
    assert (np.abs(idle[..., :3].astype(int) - walk[..., :3]).max(axis=-1) > 30).sum() > 500
    assert window.playback.clip.name == "walk*idle" and window.playback.time == 0.5


def test_the_fps_box_shows_the_clip_s_own_rate_read_only(window, paused):
    """The demo (glTF) times its frames: walk steps 1/12 s, idle 1/2 s; the box shows each clip's rate
    and cannot be edited (it sets the rate only of formats that store frames without times)."""
    box = window.timeline.fps_box
    window.timeline.clips.setCurrentIndex(0)
    assert box.text() == "12.00 fps" and not box.isEnabled()
    window.timeline.clips.setCurrentIndex(1)
    assert box.text() == "2.00 fps"


def test_the_fps_box_is_editable_where_the_format_counts_frames(qtbot):
    from app import formats
    from app.state.viewer import ViewerState
    from app.ui.timeline import TimelineDock
    from tests.helpers import chain_model

    state = ViewerState(formats.LoadOptions(fps=8.0))
    model = chain_model()
    model.format = "c3de"  # stores frames without times: the box sets their rate
    dock = TimelineDock()
    qtbot.addWidget(dock)
    dock.attach(state)
    state.set_model(model)
    assert dock.fps_box.isEnabled() and dock.fps_box.text() == "8.00 fps"
    model = chain_model()
    model.format = "gltf"
    state.set_model(model)  # no clip, timed frames: nothing to show
    assert not dock.fps_box.isEnabled() and dock.fps_box.text() == "no rate"
