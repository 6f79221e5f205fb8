"""``render --dangly`` and ``render --emitters`` (docs/cli.md): off by default; a still swung as if
played from the clip's start, a run of frames swung frame by frame; the emitter lines drawn on ask."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageSequence

from app.cli.main import main
from tests.animation.test_dangly_swing import flag_model
from tests.formats.test_nwn_dangly_emitters import tree
from tests.writers.nwn_ascii_writer import write_ascii_mdl

pytestmark = pytest.mark.gl


def changed(first, second) -> int:
    a, b = (np.asarray(image.convert("RGB")).astype(int) for image in (first, second))
    return int((np.abs(a - b).max(axis=-1) > 30).sum())


def render(*arguments) -> None:
    assert main(["render", *arguments, "--size", "160x120", "--view", "iso"]) == 0


def test_a_still_sways_only_with_dangly(tmp_path):
    flag_model(tmp_path)  # writes pole.mdl: the flag slides 0.5 m along X from 1.0 s to 1.1 s
    model = str(tmp_path / "pole.mdl")
    for name, extra in (("plain", []), ("again", []), ("swung", ["--dangly"])):
        render(model, "--time", "1.2", "-o", str(tmp_path / f"{name}.png"), *extra)
    plain, again, swung = (Image.open(tmp_path / f"{name}.png") for name in ("plain", "again", "swung"))
    assert changed(plain, again) == 0
    assert changed(plain, swung) > 20


def test_a_run_sways_frame_by_frame(tmp_path):
    flag_model(tmp_path)
    model = str(tmp_path / "pole.mdl")
    for name, extra in (("plain", []), ("swung", ["--dangly"])):
        render(model, "--from", "0.9", "--to", "1.5", "--fps", "10", "-o", str(tmp_path / f"{name}.gif"),
               *extra)
    plain, swung = ([frame.copy() for frame in ImageSequence.Iterator(Image.open(tmp_path / f"{name}.gif"))]
                    for name in ("plain", "swung"))
    assert len(plain) == len(swung) == 7
    assert changed(plain[0], swung[0]) == 0           # at rest before the slide
    assert max(changed(a, b) for a, b in zip(plain[3:], swung[3:])) > 20


def test_emitters_are_drawn_on_ask(tmp_path):
    path = tmp_path / "fx.mdl"
    root = tree()
    root.children[1].position = (0.5, 0.5, 1.2)  # over the cape, inside the picture's frame
    path.write_bytes(write_ascii_mdl("fx", root))
    render(str(path), "-o", str(tmp_path / "plain.png"))
    render(str(path), "--emitters", "-o", str(tmp_path / "shown.png"))
    shown = np.asarray(Image.open(tmp_path / "shown.png").convert("RGB")).astype(int)
    assert changed(Image.open(tmp_path / "plain.png"), Image.open(tmp_path / "shown.png")) > 20
    assert ((shown[..., 0] > 180) & (shown[..., 2] < 110)).sum() > 20   # orange lines
