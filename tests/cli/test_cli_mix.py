"""``--blend``, ``--add``, ``--crossfade`` and ``--mask`` on pose, render and convert (docs/cli.md)."""

import numpy as np
import pytest

from app import loading
from app.cli.main import main
from app.resources import demo_paths
from tests.helpers import exit_status


def world(tmp_path, *options):
    out = tmp_path / "pose.npz"
    assert main(["pose", "--demo", *options, "-o", str(out)]) == 0
    with np.load(out) as arrays:
        return arrays["world"]


@pytest.mark.parametrize("time", [0.0, 0.25, 0.5, 1.0])
def test_blend_at_0_and_1_poses_each_clip(tmp_path, time):
    at = ["--time", str(time)]
    walk, idle = world(tmp_path, "--clip", "walk", *at), world(tmp_path, "--clip", "idle", *at)
    assert np.abs(world(tmp_path, "--clip", "walk", "--blend", "idle:0", *at) - walk).max() <= 1e-9
    assert np.abs(world(tmp_path, "--clip", "walk", "--blend", "idle:1", *at) - idle).max() <= 1e-9


def test_crossfade_pose_after_the_fade_is_the_second_clip(tmp_path):
    # walk lasts 1 s; faded over 0.5 s, idle starts at 0.5 s: the mix's 1.25 s is idle's 0.75 s.
    mixed = world(tmp_path, "--clip", "walk", "--crossfade", "idle:0.5", "--time", "1.25")
    assert np.abs(mixed - world(tmp_path, "--clip", "idle", "--time", "0.75")).max() <= 1e-9


def test_mask_keeps_bones_outside_the_subtree_on_the_first_clip(tmp_path):
    model = loading.load([str(path) for path in demo_paths()])
    arm = model.skeleton.names.index("upperarm_l")
    outside = [b for b, parent in enumerate(model.skeleton.parents) if parent < 0]
    at = ["--time", "0.5"]
    walk, idle = world(tmp_path, "--clip", "walk", *at), world(tmp_path, "--clip", "idle", *at)
    mixed = world(tmp_path, "--clip", "walk", "--blend", "idle:1", "--mask", "upperarm_l", *at)
    assert np.abs(mixed[outside] - walk[outside]).max() <= 1e-9
    # the arm's own motion is idle's; its world place also carries the walk's spine.
    arm_local = np.linalg.inv(mixed[model.skeleton.parents[arm]]) @ mixed[arm]
    idle_local = np.linalg.inv(idle[model.skeleton.parents[arm]]) @ idle[arm]
    assert np.abs(arm_local - idle_local).max() <= 1e-9


def test_convert_bakes_the_mix_into_one_clip(tmp_path):
    out = tmp_path / "mix.glb"
    assert main(["convert", "--demo", "--clip", "walk", "--crossfade", "idle:0.5", "-o", str(out)]) == 0
    clips = loading.load([str(out)]).clips
    assert [clip.name for clip in clips] == ["walk>idle"]
    assert clips[0].duration == pytest.approx(1.0 + 3.0 - 0.5)


@pytest.mark.parametrize("options, message", [
    (["--add", "nope"], "no clip named 'nope'"),
    (["--blend", "idle:0.5", "--mask", "toe"], "no bone 'toe'"),
    (["--mask", "spine"], "--mask needs --blend, --add or --crossfade"),
    (["--crossfade", "idle:2"], "cross-fade of 2 s longer than clip 'walk'"),
    (["--blend", "idle:1.5"], "at most 1"),
    (["--blend", "idle"], "expected CLIP:NUMBER"),
    (["--blend", "idle:0.5", "--add", "idle"], "not allowed with"),
])
def test_bad_mix_options_are_usage_errors_naming_the_clip_or_bone(tmp_path, capsys, options, message):
    assert exit_status(["pose", "--demo", *options, "-o", str(tmp_path / "p.npz")]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.gl
def test_render_of_a_blend_at_0_is_the_first_clips_picture(tmp_path):
    from PIL import Image

    pictures = []
    for extra in ([], ["--blend", "idle:0"]):
        out = tmp_path / f"still{len(pictures)}.png"
        assert main(["render", "--demo", "--clip", "walk", "--time", "0.5", "--size", "160x120",
                     *extra, "-o", str(out)]) == 0
        pictures.append(np.asarray(Image.open(out)).astype(int))
    assert np.abs(pictures[0] - pictures[1]).max() <= 1


@pytest.mark.gl
def test_crossfade_contact_sheet_has_one_row_for_the_mix(tmp_path):
    from PIL import Image

    sheets = []
    for extra in (["--clip", "walk", "--crossfade", "idle:0.5"], []):
        out = tmp_path / f"sheet{len(sheets)}.png"
        assert main(["render", "--demo", *extra, "--sheet", "--frames", "4", "--size", "80x60",
                     "-o", str(out)]) == 0
        sheets.append(Image.open(out).size)
    # the demo's own sheet has a row for walk and one for idle; the mix's, one row of 4 frames.
    assert sheets[0][0] == 4 * 80 and 2 * sheets[0][1] == sheets[1][1]


def test_a_crossfade_of_fbx_clips_carries_their_blend_shape_weights(tmp_path, capsys):
    from tests.formats.test_fbx import FROWN, SMILE, WALK, WAVE, strip_with_shapes
    from tests.writers.fbx_ascii_writer import ShapeCurve, Stack, write_fbx

    skeleton, mesh = strip_with_shapes({"smile": SMILE, "frown": FROWN})
    # grin: smile 0 → 100 % over 1 s; pout: frown 100 → 0 % over 0.5 s (smile stays at its rest 50 %)
    grin = Stack("grin", 1.0, WALK.curves, [ShapeCurve(0, (0.0, 1.0), (0.0, 100.0))])
    pout = Stack("pout", 0.5, WAVE.curves, [ShapeCurve(1, (0.0, 0.5), (100.0, 0.0))])
    path = write_fbx(tmp_path / "face.fbx", skeleton, mesh, [grin, pout])

    def weights(time):
        out = tmp_path / "pose.npz"
        assert main(["pose", str(path), "--clip", "grin", "--crossfade", "pout:0.5", "--time", str(time),
                     "-o", str(out)]) == 0
        with np.load(out) as arrays:
            return arrays["morph_weights"]

    # the fade runs from 0.5 to 1 s; at 0.7 s (a stored frame, 0.4 into it) smoothstep gives 0.352 of
    # pout at 0.2 s (0.5, 0.6) and 0.648 of grin (0.7, 0.2)
    assert weights(0.25) == pytest.approx([0.25, 0.2])
    assert weights(0.7) == pytest.approx([0.6296, 0.3408], abs=1e-6)
    assert weights(1.0) == pytest.approx([0.5, 0.0])
    out = tmp_path / "mix.glb"
    assert main(["convert", str(path), "--clip", "grin", "--crossfade", "pout:0.5", "-o", str(out),
                 "--check"]) == 0
    assert "worst morph weight error" in capsys.readouterr().out
    [clip] = loading.load([str(out)]).clips
    assert clip.name == "grin>pout" and clip.weight_channels
