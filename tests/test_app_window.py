"""The desktop window under Xvfb: it draws the demo, plays it, and keeps a model when a load fails."""

import os
import subprocess
import sys

import numpy as np
import pytest

pytestmark = [pytest.mark.gui, pytest.mark.skipif(
    not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")),
    reason="needs a display (make test runs the suite under xvfb-run)")]

BACKGROUND_TOLERANCE = 12


def image_array(qimage):
    from PySide6.QtGui import QImage

    qimage = qimage.convertToFormat(QImage.Format.Format_RGBA8888)
    data = np.frombuffer(qimage.constBits(), np.uint8, qimage.sizeInBytes())
    return data.reshape(qimage.height(), qimage.bytesPerLine() // 4, 4)[:, : qimage.width()].copy()


def foreground(image):
    """Pixels that differ from the background colour sampled in the top-left corner."""
    background = image[2, 2, :3].astype(int)
    return np.abs(image[..., :3].astype(int) - background).max(axis=-1) > BACKGROUND_TOLERANCE


@pytest.fixture
def window(qtbot, tmp_path):
    from PySide6.QtCore import QSettings

    from app import formats
    from app.resources import demo_paths
    from app.ui.main_window import MainWindow

    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp_path))
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1000, 700)
    with qtbot.waitSignal(win.viewport.first_frame_drawn, timeout=30_000):
        win.show()
        win.set_model(formats.load(demo_paths()))
    yield win
    win.close()


def test_window_draws_the_demo_in_frame(window):
    image = image_array(window.viewport.grabFramebuffer())
    mask = foreground(image)
    rows, cols = np.nonzero(mask)
    height, width = mask.shape
    assert mask.mean() > 0.03, "the character should cover a good part of the view"
    # Framed: the character's pixels are around the centre and do not touch the borders.
    assert 0.3 * width < cols.mean() < 0.7 * width and 0.2 * height < rows.mean() < 0.8 * height
    assert not mask[:, 0].all() and not mask[0, :].all()


def test_playback_moves_the_character(window, qtbot):
    playback = window.playback
    playback.set_playing(False)
    playback.set_time(0.0)
    qtbot.wait(100)
    first = image_array(window.viewport.grabFramebuffer())
    playback.set_time(0.25)
    qtbot.wait(100)
    second = image_array(window.viewport.grabFramebuffer())
    changed = np.abs(first.astype(int) - second.astype(int)).max(axis=-1) > 30
    assert changed.mean() > 0.003, "scrubbing to another time should move the limbs"
    assert window.timeline.slider.value() == 250


def test_skeleton_overlay_adds_pixels(window, qtbot):
    window.playback.set_playing(False)
    before = image_array(window.viewport.grabFramebuffer())
    window.viewport.options.bones = True
    window.viewport.update()
    qtbot.wait(100)
    after = image_array(window.viewport.grabFramebuffer())
    assert (np.abs(before.astype(int) - after.astype(int)).max(axis=-1) > 30).sum() > 50


def test_failed_load_keeps_the_model(window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    shown = []
    monkeypatch.setattr(QMessageBox, "critical", lambda *args: shown.append(args[2]))
    bad = tmp_path / "broken.glb"
    bad.write_bytes(b"glTF" + b"\x00" * 20)
    model = window.model
    assert window.open_files([bad]) is False
    assert window.model is model and "broken.glb" in shown[0]


def test_screenshot_option_saves_the_window(tmp_path):
    from PIL import Image

    out = tmp_path / "window.png"
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path))
    result = subprocess.run([sys.executable, "-m", "app", "--screenshot", str(out), "--size", "900x640"],
                            capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    image = np.asarray(Image.open(out).convert("RGBA"))
    assert image.shape[:2] == (640, 900)
    assert foreground(image[40:-120, 20:-20]).mean() > 0.02
