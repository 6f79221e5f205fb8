"""``render`` of a clip as MP4, WebM, GIF, WebP or numbered PNGs, turntables, and contact sheets.
Videos are read back with PyAV, the encoder library; the expected frame counts are worked out from
the demo's clips (walk: 13 keys 1/12 s apart, 1 s; idle: 7 keys over 3 s)."""

from __future__ import annotations

from pathlib import Path

import av
import numpy as np
import pytest
from PIL import Image

from app.cli.main import main
from tests.helpers import exit_status
from tests.paths import CORPUS

pytestmark = pytest.mark.gl
FOX = CORPUS / "Fox" / "Fox.glb"
BOX = CORPUS / "Box" / "Box.glb"


def video_facts(path: Path) -> tuple[int, int, int, float, str, str]:
    """Decoded frames, width, height, duration (s), codec and pixel format, read back by PyAV."""
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        frames = sum(1 for _ in container.decode(stream))
        return (frames, stream.width, stream.height, container.duration / av.time_base,
                stream.codec_context.name, stream.codec_context.pix_fmt)


def test_mp4_of_the_walk_at_its_own_rate(tmp_path):
    out = tmp_path / "walk.mp4"
    assert main(["render", "--demo", "-o", str(out), "--size", "320x240"]) == 0
    frames, width, height, duration, codec, pixels = video_facts(out)
    assert (frames, width, height, codec, pixels) == (13, 320, 240, "h264", "yuv420p")
    assert duration == pytest.approx(13 / 12, abs=0.01)


def test_mp4_of_part_of_a_clip_at_a_given_rate_and_an_odd_size(tmp_path):
    out = tmp_path / "idle.mp4"
    assert main(["render", "--demo", "--clip", "idle", "--from", "1", "--to", "2", "--fps", "10",
                 "-o", str(out), "--size", "161x99"]) == 0
    frames, width, height, duration, _, _ = video_facts(out)
    assert (frames, width, height) == (11, 162, 100)  # 1 s at 10 a second, both ends; sides made even
    assert duration == pytest.approx(1.1, abs=0.01)


def test_webm_is_vp9(tmp_path):
    out = tmp_path / "walk.webm"
    assert main(["render", "--demo", "--fps", "8", "-o", str(out), "--size", "160x120"]) == 0
    frames, width, height, duration, codec, _ = video_facts(out)
    assert (frames, width, height, codec) == (9, 160, 120, "vp9")
    assert duration == pytest.approx(9 / 8, abs=0.02)


@pytest.mark.parametrize("suffix", [".gif", ".webp", ".apng"])
def test_animated_images(tmp_path, suffix):
    out = tmp_path / f"walk{suffix}"
    assert main(["render", "--demo", "--fps", "10", "-o", str(out), "--size", "200x150"]) == 0
    image = Image.open(out)
    assert (image.n_frames, image.size, image.info["loop"]) == (11, (200, 150), 0)
    image.seek(0)
    first = np.asarray(image.convert("RGB")).astype(int)
    image.seek(3)
    assert np.abs(np.asarray(image.convert("RGB")).astype(int) - first).max() > 60  # the legs moved
    assert image.info["duration"] == 100  # WebP and APNG give a frame's duration once it is decoded


def test_frame_sequence_and_turntable(tmp_path):
    plain, turning = tmp_path / "plain", tmp_path / "turn"
    plain.mkdir()
    turning.mkdir()
    assert main(["render", "--demo", "--fps", "4", "-o", str(plain / "walk_%04d.png"),
                 "--size", "96x72"]) == 0
    assert main(["render", "--demo", "--fps", "4", "--turntable", "-o", str(turning / "walk_%03d.png"),
                 "--size", "96x72"]) == 0
    assert sorted(p.name for p in plain.iterdir()) == [f"walk_{i:04d}.png" for i in range(5)]
    assert sorted(p.name for p in turning.iterdir()) == [f"walk_{i:03d}.png" for i in range(5)]
    still = [np.asarray(Image.open(plain / f"walk_{i:04d}.png")).astype(int) for i in range(5)]
    turn = [np.asarray(Image.open(turning / f"walk_{i:03d}.png")).astype(int) for i in range(5)]
    assert still[0].shape == (72, 96, 4)
    assert np.array_equal(still[0], turn[0])  # the turn starts from the view asked for
    assert np.abs(still[2] - turn[2]).max() > 100  # half way round: the other side


def test_contact_sheet_grid(tmp_path):
    """The Fox's three clips, four frames each, 160x120 frames over a 14-pixel label strip."""
    out = tmp_path / "sheet.png"
    assert main(["render", str(FOX), "--sheet", "--frames", "4", "--size", "160x120", "-o", str(out)]) == 0
    sheet = np.asarray(Image.open(out).convert("RGB")).astype(int)
    assert sheet.shape == (3 * (120 + 14), 4 * 160, 3)
    for row in range(3):
        top = row * 134
        for column in range(4):
            frame = sheet[top:top + 120, column * 160:(column + 1) * 160]
            red, blue = frame[..., 0], frame[..., 2]
            assert ((red > 150) & (red - blue > 80)).sum() > 100  # orange fur in every frame
            label = sheet[top + 120:top + 134, column * 160:(column + 1) * 160]
            assert (label.sum(axis=-1) > 700).mean() > 0.6 and (label.sum(axis=-1) < 200).sum() > 20


def test_bad_animation_requests_are_usage_errors(tmp_path):
    assert exit_status(["render", "--demo", "--transparent", "-o", str(tmp_path / "a.mp4")]) == 2
    assert exit_status(["render", "--demo", "--from", "5", "-o", str(tmp_path / "a.gif")]) == 2
    assert exit_status(["render", "--demo", "--from", "0.8", "--to", "0.2",
                        "-o", str(tmp_path / "a.gif")]) == 2
    assert exit_status(["render", "--demo", "--sheet", "-o", str(tmp_path / "a.gif")]) == 2
    assert exit_status(["render", "--demo", "--sheet", "--frames", "0", "-o", str(tmp_path / "a.png")]) == 2
    assert exit_status(["render", str(BOX), "-o", str(tmp_path / "box.gif")]) == 2  # no clip
    assert exit_status(["render", "--demo", "-o", str(tmp_path / "a.avi")]) == 2
    assert not any(tmp_path.iterdir())


def test_turntable_of_a_model_without_clips(tmp_path):
    out = tmp_path / "box.gif"
    assert main(["render", str(BOX), "--turntable", "--fps", "2", "-o", str(out), "--size", "64x64"]) == 0
    assert Image.open(out).n_frames == 9  # four seconds at two a second, both ends


def test_a_long_clip_name_is_cut_to_its_frame():
    from PIL import Image as PILImage
    from PIL import ImageDraw, ImageFont

    from app.render.sheet import fitted

    draw = ImageDraw.Draw(PILImage.new("RGB", (10, 10)))
    font = ImageFont.load_default(size=12)
    label = fitted(draw, font, "a_very_long_animation_name_from_a_modding_tool", "  1.25 s", 120)
    assert draw.textlength(label, font=font) <= 120
    assert label.startswith("a_very") and label.endswith("…  1.25 s")
    assert fitted(draw, font, "walk", "  0.00 s", 120) == "walk  0.00 s"
