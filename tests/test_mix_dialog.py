"""Playback › Mix Clips…: the dialog adds the mix the user sets up to the model and plays it."""

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
def state():
    from app.state.viewer import ViewerState

    viewer = ViewerState()
    viewer.set_model(chain_model([turn("a", [0, 60]), turn("b", [90, 90])]))
    return viewer


def test_blend_under_the_selected_bone_is_added_and_played(qtbot, state):
    from app.ui.mix_dialog import MixDialog

    state.select_bone(1)
    dialog = MixDialog(state)
    qtbot.addWidget(dialog)
    assert (dialog.first.currentText(), dialog.second.currentText()) == ("a", "b")
    dialog.mode.setCurrentIndex(1)
    dialog.amount.setValue(1.0)
    assert dialog.masked.isEnabled() and "'bone1'" in dialog.masked.text()
    dialog.masked.setChecked(True)
    dialog.accept()
    assert [clip.name for clip in state.model.clips] == ["a", "b", "a*b"]
    assert state.playback.clip.name == "a*b"
    # bone1 under the mask takes B's 90° at weight 1.
    world = evaluate(state.model, state.playback.clip, 0.5).world
    assert np.allclose(world[1, :3, 0], [0, 1, 0], atol=1e-9)


def test_a_fade_longer_than_a_clip_is_explained_and_the_dialog_stays(qtbot, state, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from app.ui.mix_dialog import MixDialog

    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: shown.append(text))
    dialog = MixDialog(state)
    qtbot.addWidget(dialog)
    assert not dialog.masked.isEnabled()
    dialog.amount.setValue(5.0)
    dialog.accept()
    assert shown and "cross-fade of 5 s longer than clip 'a'" in shown[0]
    assert len(state.model.clips) == 2
