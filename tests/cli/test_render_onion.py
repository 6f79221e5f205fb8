"""``boneyard render --onion N``: the walk ghosted N frames (of its 12 per second) before and after
the instant, blue before and orange after, over a picture that is otherwise the same; usage errors
for a negative count, a step that is not positive, or an animation output."""

import numpy as np
import pytest
from PIL import Image

from app.cli.main import main
from tests.helpers import exit_status

pytestmark = pytest.mark.gl


def rendered(tmp_path, name, *args):
    out = tmp_path / name
    assert main(["render", "--demo", "--clip", "walk", "--time", "0.5", "--size", "480x360", "-o", str(out),
                 *args]) == 0
    return np.asarray(Image.open(out).convert("RGB")).astype(int)


def test_onion_skins_are_drawn_around_the_instant(gl_context, tmp_path):
    plain = rendered(tmp_path, "plain.png")
    ghosted = rendered(tmp_path, "onion.png", "--onion", "2")
    wide = rendered(tmp_path, "wide.png", "--onion", "1", "--onion-step", "0.25")
    changed = np.abs(plain - ghosted).max(axis=-1) > 20
    assert changed.sum() > 300
    red, blue = ghosted[..., 0], ghosted[..., 2]
    assert ((blue - red > 25) & changed).sum() > 50 and ((red - blue > 25) & changed).sum() > 50
    assert np.abs(wide - ghosted).max(axis=-1).astype(bool).sum() > 300  # other instants, other ghosts
    assert np.array_equal(rendered(tmp_path, "none.png", "--onion", "0"), plain)


@pytest.mark.parametrize("args", [["--onion", "-1"], ["--onion", "1", "--onion-step", "0"],
                                  ["--onion", "-2", "-o", "clip.mp4"], ["--onion", "-1", "--sheet"]])
def test_bad_onion_options_are_usage_errors(tmp_path, args):
    output = [] if "-o" in args else ["-o", str(tmp_path / "x.png")]
    assert exit_status(["render", "--demo", *args, *output]) == 2


def tinted(plain, ghosted):
    """The pixels the ghosts changed that turned blue (before the instant) and orange (after)."""
    changed = np.abs(plain - ghosted).max(axis=-1) > 20
    red, blue = ghosted[..., 0], ghosted[..., 2]
    return int(((blue - red > 25) & changed).sum()), int(((red - blue > 25) & changed).sum())


def frames_of(folder, *args):
    folder.mkdir()
    assert main(["render", "--demo", "--clip", "walk", "--fps", "4", "--from", "0", "--to", "0.5",
                 "--size", "320x240", "-o", str(folder / "f_%02d.png"), *args]) == 0
    return [np.asarray(Image.open(path).convert("RGB")).astype(int) for path in sorted(folder.iterdir())]


def test_each_frame_of_an_animation_has_its_own_onion_skins(gl_context, tmp_path):
    """Frames at 0, 0.25 and 0.5 s: the first has only ghosts after it (those before fall outside the
    clip), the later ones both; each frame's ghosts differ as its instant does."""
    plain = frames_of(tmp_path / "plain")
    ghosted = frames_of(tmp_path / "onion", "--onion", "2")
    assert len(plain) == len(ghosted) == 3
    before, after = tinted(plain[0], ghosted[0])
    assert before < 10 and after > 50
    for frame in (1, 2):
        before, after = tinted(plain[frame], ghosted[frame])
        assert before > 50 and after > 50
    assert np.abs(ghosted[1] - ghosted[2]).max(axis=-1).astype(bool).sum() > 300


def test_a_gif_with_onion_skins(gl_context, tmp_path):
    outputs = {}
    for name, extra in (("plain.gif", []), ("onion.gif", ["--onion", "1", "--onion-step", "0.2"])):
        out = tmp_path / name
        assert main(["render", "--demo", "--clip", "walk", "--fps", "4", "--from", "0.25", "--to", "0.5",
                     "--size", "240x180", "-o", str(out), *extra]) == 0
        outputs[name] = np.asarray(Image.open(out).convert("RGB")).astype(int)  # the first frame
    before, after = tinted(outputs["plain.gif"], outputs["onion.gif"])
    assert before > 30 and after > 30


def test_a_sheet_with_onion_skins(gl_context, tmp_path):
    """A sheet's first column is each clip's start (ghosts after it only), its last the end (before
    it only)."""
    sheets = {}
    for name, extra in (("plain.png", []), ("onion.png", ["--onion", "2"])):
        out = tmp_path / name
        assert main(["render", "--demo", "--sheet", "--frames", "3", "--size", "160x120", "-o", str(out),
                     *extra]) == 0
        sheets[name] = np.asarray(Image.open(out).convert("RGB")).astype(int)
    walk = 0  # the demo's first clip's row
    for column, (want_before, want_after) in enumerate(((False, True), (True, True), (True, False))):
        cell = (slice(walk * 134, walk * 134 + 120), slice(column * 160, (column + 1) * 160))
        before, after = tinted(sheets["plain.png"][cell], sheets["onion.png"][cell])
        assert (before > 20) == want_before and (after > 20) == want_after, (column, before, after)
