"""The background loader: results on the UI thread, cancelled jobs dropped, and no harm when its
owner is deleted while a worker still runs."""

from __future__ import annotations

import threading

import pytest

from tests.gui_helpers import needs_display

pytestmark = [pytest.mark.gui, needs_display]


def test_delivers_the_result_of_the_latest_request_only(qtbot):
    from app.ui.loader import BackgroundLoader

    loader = BackgroundLoader()
    first_may_finish = threading.Event()
    got = []
    loader.loaded.connect(lambda model, request: got.append((model, request)))
    first = loader.start(lambda: first_may_finish.wait(5) and "first")
    second = loader.start(lambda: "second")
    qtbot.waitUntil(lambda: bool(got), timeout=5000)
    first_may_finish.set()
    qtbot.waitUntil(lambda: all(thread.name != f"load-{first}" for thread in threading.enumerate()),
                    timeout=5000)
    assert not loader.waiting  # the first's result is in, and nothing will deliver it
    assert got == [("second", second)] and first != second


def test_failures_and_cancels(qtbot):
    from app.ui.loader import BackgroundLoader

    loader = BackgroundLoader()
    errors, models = [], []
    loader.failed.connect(lambda error, request: errors.append(str(error)))
    loader.loaded.connect(lambda model, request: models.append(model))

    def broken():
        raise ValueError("no such bone")

    loader.start(broken)
    qtbot.waitUntil(lambda: bool(errors), timeout=5000)
    dropped = loader.start(lambda: "dropped")
    loader.cancel()
    qtbot.waitUntil(lambda: all(thread.name != f"load-{dropped}" for thread in threading.enumerate()),
                    timeout=5000)
    assert not loader.waiting
    assert errors == ["no such bone"] and models == []


def test_owner_deleted_while_a_worker_runs(qtbot):
    """The worker finishes after its loader is gone: nothing is raised in the thread, nothing delivered."""
    from PySide6.QtCore import QObject

    from app.ui.loader import BackgroundLoader

    owner = QObject()
    loader = BackgroundLoader(owner)
    may_finish, finished = threading.Event(), threading.Event()
    raised = []
    previous_hook = threading.excepthook
    threading.excepthook = lambda args: raised.append(args.exc_value)

    def job():
        may_finish.wait(5)
        finished.set()
        return "late"

    try:
        request = loader.start(job)
        owner.deleteLater()
        qtbot.waitUntil(lambda: not _alive(loader), timeout=5000)
        may_finish.set()
        assert finished.wait(5)
        # The worker's last step (its result into the queue) is done once its thread has ended.
        qtbot.waitUntil(lambda: all(thread.name != f"load-{request}" for thread in threading.enumerate()),
                        timeout=5000)
    finally:
        threading.excepthook = previous_hook
    assert raised == []


def _alive(qobject) -> bool:
    from shiboken6 import isValid

    return isValid(qobject)
