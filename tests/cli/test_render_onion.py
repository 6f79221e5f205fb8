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
                                  ["--onion", "2", "-o", "clip.mp4"]])
def test_bad_onion_options_are_usage_errors(tmp_path, args):
    output = [] if "-o" in args else ["-o", str(tmp_path / "x.png")]
    assert exit_status(["render", "--demo", *args, *output]) == 2
