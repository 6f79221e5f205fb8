"""The ragdoll panel's window: the module's shared window (tests/ui/conftest.py), paused in the walk
with the ragdoll panel raised and editing."""

from __future__ import annotations

import pytest


@pytest.fixture
def window(qtbot, window):
    """Paused at 0.35 s of the walk, the ragdoll panel raised and editing; the tests drive the
    simulation with tick(dt)."""
    window.playback.set_playing(False)
    window.playback.set_time(0.35)
    window.ragdoll_panel.raise_()
    qtbot.waitUntil(lambda: window.ragdoll.editing, timeout=5_000)
    return window
