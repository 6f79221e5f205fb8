"""File › Export glTF off the GUI thread: the window keeps running while the file is written, a
progress dialog offers Cancel, and a cancelled export leaves the target as it was and no temporary
behind. A slow export is made by wrapping the real one (state/exports.py) with a wait."""

import os
import threading
import time

import pytest

from tests.gui_helpers import needs_display

pytestmark = [pytest.mark.gui, needs_display]

#: How long the wrapped export waits before writing (seconds).
SLOW_S = 1.5


@pytest.fixture
def slow_export(monkeypatch):
    """The real glTF export, started only once ``release`` is set (or after SLOW_S seconds)."""
    from app.state import exports

    real, release = exports.export_gltf, threading.Event()

    def slow(model, path, show_hidden):
        release.wait(SLOW_S)
        return real(model, path, show_hidden)

    monkeypatch.setattr(exports, "export_gltf", slow)
    return release


def test_the_window_keeps_running_while_the_export_is_written(window, qtbot, tmp_path, slow_export):
    from PySide6.QtCore import QTimer

    from app import loading

    started = time.perf_counter()
    window.exports.export_gltf(tmp_path / "all")  # the .glb suffix added
    assert time.perf_counter() - started < 0.2  # the GUI thread is not writing
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(20)
    qtbot.waitUntil(lambda: "all.glb" in window.statusBar().currentMessage(), timeout=60_000)
    timer.stop()
    assert len(ticks) > 20 and max(b - a for a, b in zip(ticks, ticks[1:])) < 0.2  # no freeze
    back = loading.load([tmp_path / "all.glb"])
    assert [clip.name for clip in back.clips] == [clip.name for clip in window.model.clips]
    assert sorted(os.listdir(tmp_path)) == ["all.glb"]


def test_cancel_leaves_the_target_as_it_was(window, qtbot, tmp_path, slow_export):
    from PySide6.QtWidgets import QProgressDialog, QPushButton

    target = tmp_path / "out.glb"
    target.write_bytes(b"an earlier export")
    window.exports.export_gltf(target)
    qtbot.waitUntil(lambda: any(dialog.isVisible() for dialog in window.findChildren(QProgressDialog)),
                    timeout=5_000)  # shown after 200 ms
    dialog = next(dialog for dialog in window.findChildren(QProgressDialog) if dialog.isVisible())
    assert dialog.windowTitle() == "Export glTF" and "out.glb" in dialog.labelText()
    dialog.findChild(QPushButton).click()  # the dialog's Cancel button
    assert "cancelled" in window.statusBar().currentMessage()
    slow_export.set()
    qtbot.waitUntil(lambda: sorted(os.listdir(tmp_path)) == ["out.glb"], timeout=60_000)  # temporary gone
    time.sleep(0.2)
    assert target.read_bytes() == b"an earlier export"
    window.exports.export_gltf(target)  # a new export after a cancelled one works
    qtbot.waitUntil(lambda: target.read_bytes()[:4] == b"glTF", timeout=60_000)



def test_an_export_over_a_link_replaces_the_file_it_names(window, qtbot, tmp_path):
    """The export is written as every output is (app/atomic_files.py): over a link, the file it
    names gets the new export and the link stays; nothing else is left in the folder."""
    from app import loading

    real = tmp_path / "real.glb"
    real.write_bytes(b"an earlier export")
    link = tmp_path / "out.glb"
    link.symlink_to(real.name)
    window.exports.export_gltf(link)
    qtbot.waitUntil(lambda: real.read_bytes()[:4] == b"glTF", timeout=60_000)
    assert link.is_symlink() and sorted(os.listdir(tmp_path)) == ["out.glb", "real.glb"]
    back = loading.load([real])
    assert [clip.name for clip in back.clips] == [clip.name for clip in window.model.clips]


@pytest.fixture
def slow_pose_export(monkeypatch):
    """The real pose export, started only once ``release`` is set (or after SLOW_S seconds)."""
    from app.state import exports

    real, release = exports.export_pose, threading.Event()

    def slow(model, pose, skinning, path):
        release.wait(SLOW_S)
        return real(model, pose, skinning, path)

    monkeypatch.setattr(exports, "export_pose", slow)
    return release


@pytest.mark.parametrize("suffix", [".obj", ".glb", ".npz", ".json"])
def test_export_pose_writes_the_pose_asked_for_while_the_window_runs(window, qtbot, tmp_path, suffix,
                                                                      slow_pose_export):
    """Every Export Pose format runs off the GUI thread; what is written is the pose shown when it was
    asked for, even though the playhead moves on meanwhile."""
    import numpy as np
    from PySide6.QtCore import QTimer

    from app.export.writers import pose_arrays
    from app.pose import evaluate

    clip = window.playback.clip
    window.playback.set_time(0.25)
    expected = pose_arrays(window.model, evaluate(window.model, clip, 0.25))["positions"]
    started = time.perf_counter()
    assert window.exports.export_pose(tmp_path / f"pose{suffix}")
    assert time.perf_counter() - started < 0.2
    window.playback.set_time(0.75)  # the playhead moves on while the file is written
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(20)
    qtbot.waitUntil(lambda: f"pose{suffix}" in window.statusBar().currentMessage(), timeout=60_000)
    timer.stop()
    assert len(ticks) > 20 and max(b - a for a, b in zip(ticks, ticks[1:])) < 0.2  # no freeze
    assert set(os.listdir(tmp_path)) - {"pose.mtl"} == {f"pose{suffix}"}  # no temporary left
    if suffix == ".npz":
        assert np.allclose(np.load(tmp_path / "pose.npz")["positions"], expected, atol=1e-5)
    if suffix == ".obj":
        rows = [line.split()[1:4] for line in (tmp_path / "pose.obj").read_text().splitlines()
                if line.startswith("v ")]
        assert np.allclose(np.array(rows, dtype=float), expected, atol=1e-4)


def test_a_cancelled_pose_export_leaves_the_target(window, qtbot, tmp_path, slow_pose_export):
    from PySide6.QtWidgets import QProgressDialog, QPushButton

    target = tmp_path / "pose.json"
    target.write_text("an earlier pose")
    window.exports.export_pose(target)
    assert not window.exports.export_pose(tmp_path / "other.json")  # one export at a time
    qtbot.waitUntil(lambda: any(dialog.isVisible() for dialog in window.findChildren(QProgressDialog)),
                    timeout=5_000)
    dialog = next(dialog for dialog in window.findChildren(QProgressDialog) if dialog.isVisible())
    assert dialog.windowTitle() == "Export Pose" and "pose.json" in dialog.labelText()
    dialog.findChild(QPushButton).click()
    slow_pose_export.set()
    qtbot.waitUntil(lambda: sorted(os.listdir(tmp_path)) == ["pose.json"], timeout=60_000)
    time.sleep(0.2)
    assert target.read_text() == "an earlier pose"
