"""The window's read runner: a slow read shows its "Opening" dialog soon (not after Qt's default 4 s),
and the dialog goes when the read ends."""

from __future__ import annotations

import threading
import time

import pytest

from tests.gui_helpers import needs_display

pytestmark = [pytest.mark.gui, needs_display]


def test_a_slow_read_shows_its_progress_dialog_after_the_delay(qtbot, monkeypatch):
    from PySide6.QtWidgets import QMainWindow, QProgressDialog

    from app import loading
    from app.formats import LoadOptions
    from app.state.load_requests import LoadRequest
    from app.ui import load_runner

    may_finish = threading.Event()
    monkeypatch.setattr(loading, "load", lambda paths, options: may_finish.wait(10) and "model")
    window = QMainWindow()
    qtbot.addWidget(window)
    window.show()
    runner = load_runner.LoadRunner(window)
    read = []
    runner.model_read.connect(lambda model, request: read.append(model))
    started = time.monotonic()
    runner.start(LoadRequest(paths=("slow.glb",), options=LoadOptions(), keep_state=False))

    def dialogs():
        return [d for d in window.findChildren(QProgressDialog) if d.isVisible()]

    qtbot.waitUntil(lambda: bool(dialogs()), timeout=3000)
    assert time.monotonic() - started < 3.0
    assert dialogs()[0].windowTitle() == "Opening" and "slow.glb" in dialogs()[0].labelText()
    may_finish.set()
    qtbot.waitUntil(lambda: read == ["model"], timeout=5000)
    assert not dialogs()
