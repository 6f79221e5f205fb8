"""The command line as a user meets it (docs/cli.md): values that begin with '-', outputs that cannot
be written, mistyped commands, the help text, --time outside the clip, progress on a terminal and
the size of ragdoll run files."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
import threading
import zipfile

import numpy as np
import pytest

from app.cli.main import main, unknown_command
from app.cli.progress import Progress
from tests.helpers import exit_status

DEMO_CLIP_SECONDS = 1.0  # the demo's walk: 13 keys at 12 frames per second


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd)


def one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    return lines[0]


# --- values that begin with '-' ------------------------------------------------------------------

def test_a_shot_from_negative_coordinates_is_a_value(tmp_path, capsys):
    out = tmp_path / "run.npz"
    assert main(["ragdoll", "--demo", "--seconds", "0.2", "--shoot", "-1,1,0:1,0,0@0.1", "-o", str(out)]) == 0
    report = capsys.readouterr().out
    assert report.startswith("shot at 0.1 s from -1,1,0: hit part '")


def test_a_negative_time_is_a_value_and_outside_the_clip(tmp_path, capsys):
    assert exit_status(["pose", "--demo", "--time", "-0.5", "-o", str(tmp_path / "p.npz")]) == 2
    assert "time -0.5 s outside 0..1 s of clip 'walk'" in capsys.readouterr().err


# --- outputs that cannot be written ----------------------------------------------------------------

COMMANDS = [("render", "x.png"), ("pose", "x.npz"), ("pose", "x.obj"), ("convert", "x.glb"),
            ("ragdoll", "x.npz")]


@pytest.mark.parametrize("command, name", COMMANDS)
def test_output_in_a_missing_folder_exits_3_naming_path_and_reason(command, name, tmp_path, capsys):
    out = tmp_path / "missing" / name
    extra = ["--seconds", "0.1"] if command == "ragdoll" else []
    assert exit_status([command, "--demo", *extra, "-o", str(out)]) == 3
    assert one_line(capsys.readouterr().err) == f"error: cannot write {out}: no folder {out.parent}"


@pytest.mark.parametrize("command, name", COMMANDS)
def test_output_that_is_a_folder_exits_3(command, name, tmp_path, capsys):
    out = tmp_path / name
    out.mkdir()
    assert exit_status([command, "--demo", "-o", str(out)]) == 3
    assert one_line(capsys.readouterr().err) == f"error: cannot write {out}: it is a folder"


def test_output_below_a_file_exits_3(tmp_path, capsys):
    plain = tmp_path / "plain.txt"
    plain.write_text("not a folder")
    out = plain / "x.png"
    assert exit_status(["render", "--demo", "-o", str(out)]) == 3
    assert one_line(capsys.readouterr().err) == f"error: cannot write {out}: {plain} is not a folder"


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc, where no file can be made")
@pytest.mark.parametrize("command, name", COMMANDS)
def test_a_write_that_fails_exits_3_with_the_system_reason(command, name, capsys):
    out = f"/proc/{name}"
    extra = ["--seconds", "0.1"] if command == "ragdoll" else []
    assert exit_status([command, "--demo", *extra, "-o", out]) == 3
    line = one_line(capsys.readouterr().err)
    assert line.startswith(f"error: cannot write {out}: ") and "Traceback" not in line


def test_unwritable_output_from_the_shell_has_no_traceback(tmp_path):
    result = run_cli("render", "--demo", "-o", "/nonexistent-boneyard/x.png")
    assert result.returncode == 3
    assert one_line(result.stderr) == ("error: cannot write /nonexistent-boneyard/x.png: "
                                       "no folder /nonexistent-boneyard")


# --- mistyped commands and the help -----------------------------------------------------------------

@pytest.mark.parametrize("args, near", [(["rendr", "--demo", "-o", "x.png"], "render"), (["rendr"], "render"),
                                        (["ragdol", "--demo"], "ragdoll"), (["inof"], "info")])
def test_a_mistyped_command_is_named_with_the_near_one(args, near, tmp_path):
    result = run_cli(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert one_line(result.stderr) == f"boneyard: error: unknown command {args[0]!r}; did you mean {near!r}?"


def test_a_word_near_no_command_lists_the_commands(tmp_path):
    result = run_cli("xyzzy", cwd=tmp_path)
    assert result.returncode == 2
    assert one_line(result.stderr) == ("boneyard: error: unknown command 'xyzzy' and no file of that name "
                                       "(commands: info, pose, render, convert, ragdoll, check, batch)")


def test_an_existing_file_or_a_path_is_not_taken_for_a_command(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rendr").write_bytes(b"")
    assert unknown_command("rendr") is None
    assert unknown_command("missing.glb") is None
    assert unknown_command("folder/rendr") is None
    assert unknown_command("rendr2") is not None


def test_option_values_are_not_taken_for_a_command(tmp_path, capsys):
    """``--size`` is the window's; its value is not the first word (the command is)."""
    assert exit_status(["--size", "800x600", "xyzzy"]) == 2
    assert "unknown command 'xyzzy'" in capsys.readouterr().err


def test_help_shows_the_window_form_and_the_commands():
    result = run_cli("--help")
    assert result.returncode == 0
    usage = result.stdout
    assert "boneyard [FILE ...] [--screenshot OUT.png [--size WxH]]" in usage
    assert "--screenshot OUT.png saves the whole window" in usage and "--size WxH" in usage
    for command in ("info", "pose", "render", "convert", "ragdoll"):
        assert f"\n    {command} " in usage
    assert run_cli("render", "--help").stdout.startswith("usage: boneyard render ")


# --- --time outside the clip ------------------------------------------------------------------------

@pytest.mark.parametrize("command, name", [("pose", "p.npz"), ("render", "r.png"), ("ragdoll", "g.npz")])
def test_time_beyond_the_clip_is_an_error_like_frame(command, name, tmp_path, capsys):
    out = str(tmp_path / name)
    assert exit_status([command, "--demo", "--time", "99", "-o", out]) == 2
    assert "time 99 s outside 0..1 s of clip 'walk'" in capsys.readouterr().err
    assert exit_status([command, "--demo", "--frame", "99", "-o", out]) == 2
    assert "frame 99 outside 0..12 of clip 'walk'" in capsys.readouterr().err


def test_time_at_the_clip_end_is_inside(tmp_path):
    assert main(["pose", "--demo", "--time", str(DEMO_CLIP_SECONDS), "-o", str(tmp_path / "p.npz")]) == 0


# --- progress ----------------------------------------------------------------------------------------

class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_draws_over_one_line_and_clears_it():
    stream = Terminal()
    with Progress("ragdoll", stream, delay=60.0) as progress:
        progress.update(0.5, "3 of 6 s simulated")
        progress.draw()
        drawn = stream.getvalue()
    assert drawn.startswith("\rragdoll:  50% 3 of 6 s simulated · ")
    assert "\n" not in stream.getvalue()
    assert stream.getvalue().endswith("\r" + " " * (len(drawn) - 1) + "\r")


def test_progress_is_silent_off_a_terminal():
    stream = io.StringIO()
    with Progress("ragdoll", stream, delay=0.0) as progress:
        progress.update(0.5)
    assert not progress.enabled and stream.getvalue() == ""


def test_a_long_ragdoll_run_shows_progress_on_a_terminal(tmp_path):
    controller, terminal = pty.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        """Read the terminal while the run writes to it: a full pty buffer would block the run."""
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        # Long enough to pass the progress line's half-second delay on a fast, idle machine.
        result = subprocess.run([sys.executable, "-m", "app", "ragdoll", "--demo", "--seconds", "120",
                                 "--positions", "none", "-o", str(tmp_path / "run.npz")],
                                stdout=subprocess.PIPE, stderr=terminal, timeout=300)
    finally:
        os.close(terminal)
    reader.join(10)
    os.close(controller)
    assert result.returncode == 0
    text = b"".join(chunks).decode()
    assert "\rragdoll: " in text and "of 120 s simulated" in text
    assert text.endswith("\r"), "the progress line is cleared at the end"


# --- ragdoll run files -------------------------------------------------------------------------------

def test_ragdoll_npz_is_compressed_and_positions_may_be_half_or_left_out(tmp_path):
    runs = {}
    for positions in ("full", "half", "none"):
        out = tmp_path / f"{positions}.npz"
        assert main(["ragdoll", "--demo", "--seconds", "0.3", "--positions", positions, "-o", str(out)]) == 0
        with zipfile.ZipFile(out) as archive:
            assert {info.compress_type for info in archive.infolist()} == {zipfile.ZIP_DEFLATED}
        runs[positions] = np.load(out)
    assert runs["full"]["positions"].dtype == np.float32
    assert runs["half"]["positions"].dtype == np.float16
    assert "positions" not in runs["none"].files
    full = runs["full"]["positions"]
    # float16 keeps 11 significant bits: each coordinate within 2^-11 of its magnitude.
    assert np.all(np.abs(runs["half"]["positions"] - full) <= np.abs(full) * 2.0 ** -11 + 1e-7)
    for key in ("times", "world", "bone_names", "parts", "part_world"):
        np.testing.assert_array_equal(runs["none"][key], runs["full"][key])


# --- clip names ----------------------------------------------------------------------------------

def test_a_clip_name_matches_whatever_its_case_when_one_clip_fits(tmp_path):
    exact, folded = tmp_path / "exact.npz", tmp_path / "folded.npz"
    assert main(["pose", "--demo", "--clip", "idle", "--frame", "2", "-o", str(exact)]) == 0
    assert main(["pose", "--demo", "--clip", "IDLE", "--frame", "2", "-o", str(folded)]) == 0
    assert np.array_equal(np.load(exact)["world"], np.load(folded)["world"])


def test_a_clip_name_two_clips_fit_without_case_is_refused_unless_exact(tmp_path, demo, capsys):
    from dataclasses import replace

    from app.export.gltf import export_gltf

    walk, idle = demo.clips
    path = tmp_path / "two.glb"
    export_gltf(replace(demo, clips=[replace(walk, name="Walk"), replace(idle, name="walk")]), path)
    out = str(tmp_path / "p.npz")
    assert exit_status(["pose", str(path), "--clip", "WALK", "--frame", "0", "-o", out]) == 2
    assert "clip name 'WALK' matches Walk, walk when case is ignored" in capsys.readouterr().err
    exact = tmp_path / "exact.npz"
    assert main(["pose", str(path), "--clip", "walk", "--frame", "5", "-o", str(exact)]) == 0
    assert main(["pose", "--demo", "--clip", "idle", "--frame", "5", "-o", str(tmp_path / "i.npz")]) == 0
    assert np.allclose(np.load(exact)["world"], np.load(tmp_path / "i.npz")["world"], atol=1e-5)
