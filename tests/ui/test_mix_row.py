"""The timeline's mix row (Playback › Mix Clips, the Mix button): a second clip mixed live with the
chosen one through the row's own widgets, kept as a clip, and a mix that cannot be made explained in
the row. A lone timeline dock attached to a ViewerState on the two-bone chain."""

import numpy as np
import pytest

from app.model import Clip, Track
from app.pose import evaluate
from tests.gui_helpers import needs_display
from tests.helpers import chain_model

pytestmark = needs_display


def turn(name, degrees):
    half = np.radians(np.array(degrees, float)) / 2
    quats = np.stack([np.zeros_like(half), np.zeros_like(half), np.sin(half), np.cos(half)], axis=1)
    return Clip(name, "keyed", tracks=[Track(1, rotation=(np.array([0.0, 1.0]), quats))])


@pytest.fixture
def dock(qtbot):
    """A timeline dock showing a state whose model has clips a (bone1 turns 0 → 60°) and b (bone1
    holds 90°)."""
    from app.state.viewer import ViewerState
    from app.ui.timeline import TimelineDock

    state = ViewerState()
    timeline = TimelineDock()
    qtbot.addWidget(timeline)
    timeline.attach(state)
    state.set_model(chain_model([turn("a", [0, 60]), turn("b", [90, 90])]))
    state.playback.set_playing(False)
    timeline.resize(800, 140)
    timeline.show()
    qtbot.waitExposed(timeline)
    timeline.state = state
    return timeline


def test_the_row_shows_while_mixing_is_on(dock, qtbot):
    row = dock.mix_row
    assert not row.isVisible() and dock.mix_action.isEnabled() and not dock.mix_action.isChecked()
    dock.mix_action.trigger()
    assert row.isVisible() and dock.mix_action.isChecked()
    assert (row.second.currentText(), row.mode.currentText(), row.amount.value()) == ("b", "Cross-fade", 0.3)
    assert dock.state.playback.clip.name == "a>b" and dock.end_label.text() == "/ 1.700 s"
    assert dock.clips.currentIndex() == 0  # the clip list still shows the chosen clip
    dock.mix_action.trigger()
    assert not row.isVisible() and dock.state.playback.clip.name == "a"


def test_mixing_needs_two_clips(dock):
    dock.state.set_model(chain_model([turn("a", [0, 60])]))
    assert not dock.mix_action.isEnabled()


def test_blend_under_the_selected_bone_is_kept_and_played(dock, qtbot):
    state, row = dock.state, dock.mix_row
    dock.mix_action.trigger()
    state.select_bone(1)
    assert [row.mask.itemText(i) for i in range(row.mask.count())] == ["Whole body", "Under bone1"]
    row.mode.setCurrentIndex(row.mode.findText("Blend"))
    assert state.playback.clip.name == "a*b" and row.amount.prefix() == "weight "
    row.amount.setValue(1.0)
    qtbot.waitUntil(lambda: state.mix.weight == 1.0)
    row.mask.setCurrentIndex(1)
    assert state.mix.mask_bone == 1
    # live: bone1 takes B's 90° at weight 1 in the pose on screen
    state.playback.set_time(0.5)
    assert np.allclose(state.current_pose().world[1, :3, 0], [0, 1, 0], atol=1e-9)
    row.keep.click()
    assert [clip.name for clip in state.model.clips] == ["a", "b", "a*b"]
    assert state.playback.clip.name == "a*b" and not row.isVisible()
    world = evaluate(state.model, state.playback.clip, 0.5).world
    assert np.allclose(world[1, :3, 0], [0, 1, 0], atol=1e-9)


def test_a_fade_longer_than_a_clip_is_explained_in_the_row(dock, qtbot):
    state, row = dock.state, dock.mix_row
    dock.mix_action.trigger()
    assert row.mask.count() == 1 and row.mask.currentText() == "Whole body"  # no bone selected
    row.amount.setValue(5.0)
    qtbot.waitUntil(lambda: state.mix.fade == 5.0)
    assert "cross-fade of 5 s longer than clip 'a'" in row.problem.full_text()
    assert not row.keep.isEnabled() and state.playback.clip.name == "a"
    assert len(state.model.clips) == 2
    row.amount.setValue(0.5)
    qtbot.waitUntil(lambda: state.mix.fade == 0.5)
    assert row.problem.full_text() == "" and row.keep.isEnabled() and state.playback.clip.name == "a>b"


def test_a_mode_chosen_while_an_amount_waits_gets_its_own_amount(dock, qtbot):
    """The amount waits a moment before it is sent; a mode chosen meanwhile sends it first, so the
    blend's weight is not set to the fade's seconds."""
    state, row = dock.state, dock.mix_row
    dock.mix_action.trigger()
    row.amount.setValue(0.8)
    row.mode.setCurrentIndex(row.mode.findText("Blend"))
    assert (state.mix.fade, state.mix.weight, row.amount.value()) == (0.8, 0.5, 0.5)
    row.mode.setCurrentIndex(row.mode.findText("Add"))
    assert row.amount.isVisible() and row.amount.prefix() == "weight " and row.amount.value() == 1.0
    assert state.playback.clip.name == "a+b"


def test_add_mode_has_a_weight(dock, qtbot):
    """Add with weight 0.5 of b (bone1 turns 0 → 90°) on a (0 → 60°): at 1 s, 60° + 45°."""
    state, row = dock.state, dock.mix_row
    state.set_model(chain_model([turn("a", [0, 60]), turn("b", [0, 90])]))
    dock.mix_action.trigger()
    row.mode.setCurrentIndex(row.mode.findText("Add"))
    row.amount.setValue(0.5)
    qtbot.waitUntil(lambda: state.mix.add_weight == 0.5)
    state.playback.set_time(1.0)  # a at 60°, plus half of b's 90° change: 105°
    angle = np.radians(105)
    assert np.allclose(state.current_pose().world[1, :3, 0], [np.cos(angle), np.sin(angle), 0], atol=1e-9)
