"""File › Export Animation…: the dialog's choices, a GIF and a contact sheet from the window's view,
and Cancel in the progress dialog."""

from __future__ import annotations

import av
import pytest
from PIL import Image

from tests.gui_helpers import needs_display, show_demo_window

pytestmark = [pytest.mark.gui, needs_display]


def test_dialog_offers_the_clip_and_its_span(qtbot):
    from app.ui.export_animation import ExportAnimationDialog

    window = show_demo_window(qtbot)
    dialog = ExportAnimationDialog(window.model, 1, (320, 240), 4096, window)
    qtbot.addWidget(dialog)
    choice = dialog.choice()
    assert (choice.kind, choice.clip, choice.start, choice.end) == ("mp4", 1, 0.0, 3.0)  # idle: 3 s
    assert choice.fps == 30.0  # idle's 7 keys over 3 s are too sparse to be a rate
    assert not choice.in_place  # the travel is kept unless asked
    dialog.in_place.setChecked(True)
    assert dialog.choice().in_place
    dialog.clip.setCurrentIndex(0)
    assert (dialog.choice().end, dialog.choice().fps) == (1.0, 12.0)  # walk: 13 keys 1/12 s apart
    dialog.format.setCurrentText("Contact sheet (PNG)")
    assert dialog.choice().kind == "sheet" and not dialog.clip.isEnabled()


def test_export_animation_writes_video_gif_and_sheet(qtbot, tmp_path):
    from app.ui.export_animation import AnimationChoice

    window = show_demo_window(qtbot)
    walk = dict(clip=0, start=0.0, end=1.0, fps=10.0, size=(161, 120), turntable=False, frames=3)
    assert window.exports.export_animation(tmp_path / "walk.gif", AnimationChoice(kind="gif", **walk))
    gif = Image.open(tmp_path / "walk.gif")
    assert (gif.n_frames, gif.size) == (11, (161, 120))
    assert window.exports.export_animation(tmp_path / "walk.mp4", AnimationChoice(kind="mp4", **walk))
    with av.open(str(tmp_path / "walk.mp4")) as container:
        stream = container.streams.video[0]
        assert (sum(1 for _ in container.decode(stream)), stream.width, stream.height) == (11, 162, 120)
    assert window.exports.export_animation(tmp_path / "sheet.png", AnimationChoice(kind="sheet", **walk))
    assert Image.open(tmp_path / "sheet.png").size == (3 * 161, 2 * (120 + 14))  # two clips, three frames
    assert "Saved" in window.statusBar().currentMessage()


def test_cancel_stops_the_export_and_removes_the_file(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QProgressDialog

    from app.ui.export_animation import AnimationChoice

    window = show_demo_window(qtbot)
    monkeypatch.setattr(QProgressDialog, "wasCanceled", lambda self: self.value() >= 200)
    choice = AnimationChoice(kind="webp", clip=1, start=0.0, end=3.0, fps=30.0, size=(96, 72),
                             turntable=True, frames=6)
    assert not window.exports.export_animation(tmp_path / "idle.webp", choice)
    assert not (tmp_path / "idle.webp").exists()
    assert window.statusBar().currentMessage() == "Export Animation cancelled"
    (tmp_path / "idle.webp").write_bytes(b"an earlier export")
    assert not window.exports.export_animation(tmp_path / "idle.webp", choice)
    assert (tmp_path / "idle.webp").read_bytes() == b"an earlier export"  # a cancel keeps it
    assert sorted(path.name for path in tmp_path.iterdir()) == ["idle.webp"]


def test_onion_skins_are_drawn_around_each_exported_frame(qtbot, tmp_path):
    """With View › Onion Skin on and the playhead at 0.5 s, an exported frame at the clip's start has
    ghosts after it only (none before the start), not the view's ghosts around 0.5 s; with it off,
    none."""
    import numpy as np

    from app.ui.export_animation import AnimationChoice

    window = show_demo_window(qtbot)
    window.playback.set_playing(False)
    window.playback.set_time(0.5)
    first = AnimationChoice(kind="frames", clip=0, start=0.0, end=0.0, fps=10.0, size=(240, 180),
                            turntable=False, frames=3)
    frames = {}
    for onion in (False, True):
        window.state.set_display(onion=onion)
        qtbot.wait(50)  # the view paints its own ghosts (or none)
        folder = tmp_path / str(onion)
        folder.mkdir()
        assert window.exports.export_animation(folder / "f_%02d.png", first)
        frames[onion] = np.asarray(Image.open(folder / "f_00.png").convert("RGB")).astype(int)
    window.state.set_display(onion=False)
    changed = np.abs(frames[True] - frames[False]).max(axis=-1) > 20
    red, blue = frames[True][..., 0], frames[True][..., 2]
    assert ((red - blue > 25) & changed).sum() > 30 and ((blue - red > 25) & changed).sum() < 10


def test_the_mix_on_screen_is_offered_and_exported(qtbot, tmp_path):
    from dataclasses import replace

    from app.ui.export_animation import ExportAnimationDialog

    window = show_demo_window(qtbot)
    window.timeline.mix_action.trigger()  # the walk (1 s), then the idle (3 s) faded in over 0.3 s
    dialog = ExportAnimationDialog(*window.state.animation_model(), (320, 240), 4096, window)
    qtbot.addWidget(dialog)
    assert dialog.clip.currentText() == "walk>idle" and dialog.choice().end == pytest.approx(3.7)
    choice = replace(dialog.choice(), kind="frames", fps=5.0, size=(64, 48))
    assert window.exports.export_animation(tmp_path / "mix_%02d.png", choice)
    assert len(list(tmp_path.glob("mix_*.png"))) == 19  # 0 to 3.6 s, 5 a second
    assert [clip.name for clip in window.model.clips] == ["walk", "idle"]  # the mix was not kept


def test_exports_keep_to_the_command_lines_limits(qtbot, tmp_path, monkeypatch):
    """Too many frames, a sheet too large, or frames memory cannot hold: a warning before any drawing,
    and no file (``boneyard render``'s limits, app/render/video.py and sheet.py)."""
    from PySide6.QtWidgets import QMessageBox

    from app.render import offscreen, sheet, video
    from app.ui.export_animation import AnimationChoice

    window = show_demo_window(qtbot)
    warned = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: warned.append(text))
    monkeypatch.setattr(video, "MAX_FRAMES", 10)
    walk = dict(clip=0, start=0.0, end=1.0, fps=10.0, size=(96, 72), turntable=False, frames=3)
    assert not window.exports.export_animation(tmp_path / "walk.gif", AnimationChoice(kind="gif", **walk))
    assert "walk.gif was not written: 11 frames at 10 per second; at most 10 are rendered" in warned[-1]
    monkeypatch.setattr(sheet, "MAX_SIDE", 200)
    assert not window.exports.export_animation(tmp_path / "sheet.png", AnimationChoice(kind="sheet", **walk))
    assert "the sheet would be 288×172 pixels, over 200 on a side" in warned[-1]
    monkeypatch.setattr(offscreen, "available_memory", lambda: 1 << 20)
    walk["end"] = 0.5
    assert not window.exports.export_animation(tmp_path / "walk.mp4", AnimationChoice(kind="mp4", **walk))
    assert "a 96×72 picture needs about" in warned[-1] and len(warned) == 3
    assert list(tmp_path.iterdir()) == []
