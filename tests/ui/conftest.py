"""The window fixtures of the window tests: one demo window per module, handed to each test put back
as it started (tests/gui_helpers.py, ``SharedWindow``). A module that needs more (paused playback, a
panel raised) overrides ``window`` with a fixture of the same name that takes this one."""

from __future__ import annotations

import pytest

from tests.gui_helpers import SharedWindow


@pytest.fixture(scope="module")
def shared_window():
    """One window for the module (SharedWindow puts it back before each test)."""
    shared = SharedWindow()
    yield shared
    shared.close()


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch, shared_window):
    """The module's window, active, its timer stopped: time passes only when a test calls
    ``state.tick``. A warning is answered Discard, so a profile a failed test left edited cannot block
    the run with a real question, and the ragdoll profile is saved in the test's folder, never beside
    the built-in demo."""
    from PySide6.QtWidgets import QApplication, QMessageBox

    monkeypatch.setattr(QMessageBox, "warning", lambda *args: QMessageBox.StandardButton.Discard)
    win = shared_window.get(qtbot)
    win.timer.stop()
    win.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win, timeout=5_000)
    win.ragdoll.document.path = tmp_path / "demo.glb.ragdoll.json"
    return win
