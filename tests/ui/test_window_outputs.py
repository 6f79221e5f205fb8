"""The window treats the user's files as the command line does: its exports never go over the files
of the model on screen, and its screenshots are written whole."""

from __future__ import annotations

import hashlib
import os
import shutil

import numpy as np
import pytest
from PIL import Image

from tests.gui_helpers import needs_display, show_demo_window

pytestmark = [pytest.mark.gui, needs_display]


def test_an_export_over_the_model_on_screen_is_refused(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    from app import loading
    from app.resources import demo_paths

    model = tmp_path / "hero.glb"
    shutil.copy(demo_paths()[0], model)
    before = hashlib.sha256(model.read_bytes()).hexdigest()
    window = show_demo_window(qtbot)
    window.state.set_model(loading.load([model]))
    warnings = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args, **kwargs: (str(model), ""))
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: warnings.append(text))
    window.exports.export_dialog()
    window.exports.export_pose_dialog()
    assert len(warnings) == 2 and all("is a file of the model on screen" in text for text in warnings)
    assert hashlib.sha256(model.read_bytes()).hexdigest() == before


def test_a_screenshot_replaces_the_previous_one_whole(qtbot, tmp_path):
    window = show_demo_window(qtbot)
    path = tmp_path / "shot.png"
    path.write_bytes(b"an earlier picture")
    assert window.exports.save_screenshot(path, 200, 150)
    picture = np.asarray(Image.open(path).convert("RGB")).astype(int)
    assert picture.shape == (150, 200, 3) and picture.std() > 5  # the model, not a blank image
    assert sorted(os.listdir(tmp_path)) == ["shot.png"]


def test_a_screenshot_that_cannot_be_written_keeps_the_previous_file(qtbot, tmp_path, monkeypatch):
    from PySide6.QtGui import QImage
    from PySide6.QtWidgets import QMessageBox

    window = show_demo_window(qtbot)
    path = tmp_path / "shot.png"
    path.write_bytes(b"an earlier picture")
    warnings = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: warnings.append(text))
    monkeypatch.setattr(QImage, "save", lambda self, name, kind=None: False)
    assert not window.exports.save_screenshot(path, 200, 150)
    assert path.read_bytes() == b"an earlier picture" and warnings == [f"Could not write {path}"]
    assert sorted(os.listdir(tmp_path)) == ["shot.png"]
