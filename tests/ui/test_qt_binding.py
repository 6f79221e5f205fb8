"""Guards against a Qt binding that corrupts the interpreter: PySide6 6.12.0 on Python 3.11 drops a
reference to None on every call of a method returning void, and the app aborts after a minute of
playback (``Fatal Python error: none_dealloc``). pyproject.toml excludes that release."""

import sys

import pytest

from tests.gui_helpers import needs_display

pytestmark = [pytest.mark.gui, needs_display]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="None is immortal from Python 3.12 on")
def test_void_qt_calls_keep_none_alive(qtbot):
    from PySide6.QtWidgets import QLabel

    label = QLabel()
    qtbot.addWidget(label)
    before = sys.getrefcount(None)
    for _ in range(2000):
        label.setText("x")
    assert sys.getrefcount(None) - before > -50
