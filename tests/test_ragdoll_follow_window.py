"""The window's physical animation: Ragdoll › Follow Clip with the strength slider, Release Motors,
and Check Profile's report selecting the part a problem names."""

from __future__ import annotations

import pytest

from tests.gui_helpers import SharedWindow, needs_display

_gui = needs_display


@pytest.fixture(scope="module")
def shared_window():
    shared = SharedWindow()
    yield shared
    shared.close()


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch, shared_window):
    from PySide6.QtWidgets import QMessageBox

    monkeypatch.setattr(QMessageBox, "warning", lambda *args: QMessageBox.StandardButton.Discard)
    win = shared_window.get(qtbot)
    win.playback.set_playing(False)
    win.playback.set_time(0.0)
    win.ragdoll.document.path = tmp_path / "demo.glb.ragdoll.json"
    win.timer.stop()
    win.ragdoll_panel.raise_()
    return win


def _box(window):
    return window.ragdoll_panel.simulation_box


def _menu_texts(window) -> list[str]:
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Ragdoll")
    return [action.text() for action in menu.actions()]


@_gui
def test_follow_clip_drives_the_ragdoll_along_the_clip_until_released(window):
    box, simulation = _box(window), window.state.simulation
    assert {"&Follow Clip", "Re&lease Motors", "&Check Profile…"} <= set(_menu_texts(window))
    box.follow_action.trigger()
    box.strength_slider.setValue(80)
    assert simulation.follow and simulation.motor_strength == pytest.approx(0.8)
    assert window.set_ragdoll_running(True)
    drive = simulation.ragdoll.drive
    assert drive is not None and drive.follow and drive.strength == pytest.approx(0.8)
    for _ in range(30):
        simulation.tick(1 / 60)
    pelvis = simulation.document.profile.part_index("pelvis")
    standing = simulation.ragdoll.part_world()[pelvis, 1, 3]
    assert standing > 0.8  # carried along the walk, not fallen
    box.release_box.setValue(0.25)
    box.release_action.trigger()
    for _ in range(120):
        simulation.tick(1 / 60)
    assert simulation.ragdoll.drive is None  # faded out: limp
    assert simulation.ragdoll.part_world()[pelvis, 1, 3] < 0.5
    window.set_ragdoll_running(False)


@_gui
def test_check_profile_shows_the_report_and_selects_a_part(window, qtbot):
    from app.ui.ragdoll_check_dialog import problem_part

    box, document = _box(window), window.state.simulation.document
    report = box.show_check()
    assert report["verdict"] == "pass"
    dialog = box.check_dialog
    assert dialog.problems.item(0).text() == "No problems." and "Sound" in dialog.summary.text()
    dialog.close()
    hand = document.profile.part_index("hand_l")
    assert problem_part(document, "part 'hand_l' went 6 cm into the ground (at most 5 cm)") == hand
    wrist = next(j for j in document.profile.joints if j.name == "wrist_l")
    assert problem_part(document, f"joint '{wrist.name}' has a limit of 2° (under 5°)") == hand
    assert problem_part(document, "bone 'neck' moves vertices but has no part") is None
    forearm = document.profile.part_index("forearm_l")
    mass = document.profile.parts[forearm].mass
    document.edit_part("forearm_l", mass=0.05)  # 1:40 against its upper arm
    report = box.show_check()
    assert report["verdict"] == "fail"
    dialog = box.check_dialog
    lines = [dialog.problems.item(row).text() for row in range(dialog.problems.count())]
    row = next(i for i, line in enumerate(lines) if line.startswith("joint 'elbow_l'"))
    document.select_part(None)
    dialog.problems.itemClicked.emit(dialog.problems.item(row))
    assert document.selected_part == document.profile.part_index("forearm_l")
    dialog.close()
    document.undo()
    assert document.profile.parts[forearm].mass == mass
