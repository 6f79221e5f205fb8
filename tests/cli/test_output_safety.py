"""The user's files are precious (docs/cli.md, "Outputs are the user's files too"): no output over an
input, no output half-written after an error, a full disk or a signal, no output into a FIFO or a
device, every failure one line."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from app.cli.main import main
from app.resources import demo_paths
from tests.helpers import exit_status
from tests.paths import CORPUS

FOX = CORPUS / "Fox" / "Fox.glb"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def leftovers(folder: Path) -> list[str]:
    """Temporaries of writes that ended (a write's temporary is named ``.NAME.PID.TAG.partial.EXT``)."""
    return sorted(name for name in os.listdir(folder) if ".partial" in name)


def boneyard(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def model(tmp_path) -> Path:
    """A copy of the demo character as a user's file."""
    path = tmp_path / "hero.glb"
    shutil.copy(demo_paths()[0], path)
    return path


# --- never over an input ----------------------------------------------------------------------------

@pytest.mark.parametrize("command", [["pose"], ["convert"], ["pose", "--frame", "2", "--clip", "walk"]])
def test_an_output_that_is_the_input_is_refused_before_any_work(model, capsys, command):
    before = digest(model)
    assert exit_status([*command, str(model), "-o", str(model)]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "is the input file" in error and str(model) in error
    assert digest(model) == before


def test_links_and_other_names_of_the_input_are_the_input(model, tmp_path, capsys):
    before = digest(model)
    (tmp_path / "link.glb").symlink_to(model)
    os.link(model, tmp_path / "hard.glb")
    (tmp_path / "sub").mkdir()
    assert exit_status(["convert", str(model), "-o", str(tmp_path / "link.glb")]) == 2
    assert exit_status(["convert", str(model), "-o", str(tmp_path / "hard.glb")]) == 2
    assert exit_status(["pose", str(model), "-o", str(tmp_path / "sub" / ".." / "hero.glb")]) == 2
    assert digest(model) == before
    capsys.readouterr()


def test_ragdoll_never_saves_its_profile_or_run_over_an_input(model, tmp_path, capsys):
    before = digest(model)
    assert exit_status(["ragdoll", str(model), "--seconds", "0.1", "-o", str(tmp_path / "run.npz"),
                        "--save-profile", str(model)]) == 2
    assert exit_status(["ragdoll", str(model), "--seconds", "0.1", "-o", str(model)]) == 2
    assert digest(model) == before
    assert not (tmp_path / "run.npz").exists()
    assert "is the input file" in capsys.readouterr().err


def test_a_texture_named_by_option_is_an_input_too(model, tmp_path, capsys):
    image = tmp_path / "skin.png"
    Image.new("RGBA", (4, 4), (200, 30, 30, 255)).save(image)
    before = digest(image)
    assert exit_status(["render", str(model), "--texture", str(image), "-o", str(image)]) == 2
    assert digest(image) == before
    capsys.readouterr()


def test_an_empty_output_name_is_a_usage_error(model, capsys):
    assert exit_status(["convert", str(model), "-o", ""]) == 2
    assert "-o needs a file name" in capsys.readouterr().err


# --- outputs that are not regular files ---------------------------------------------------------------

@pytest.mark.parametrize("name", ["out.glb", "out.mp4", "out.npz"])
def test_a_fifo_output_is_refused_at_once(model, tmp_path, name):
    fifo = tmp_path / name
    os.mkfifo(fifo)
    command = {"out.glb": "convert", "out.mp4": "render", "out.npz": "pose"}[name]
    done = boneyard(command, str(model), "-o", str(fifo), timeout=60)  # a write into it would hang
    assert done.returncode == 3, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "it is a FIFO" in lines[0] and str(fifo) in lines[0]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
def test_a_device_output_is_refused(model, tmp_path, capsys):
    (tmp_path / "full.glb").symlink_to("/dev/full")
    assert exit_status(["convert", str(model), "-o", str(tmp_path / "full.glb")]) == 3
    assert "it is a character device" in capsys.readouterr().err
    assert Path("/dev/full").is_char_device()


# --- errors and a full disk leave the previous file -------------------------------------------------

def _fill_and_fail(real):
    """A writer that writes part of its file, then finds the disk full."""
    def write(path, *args, **kwargs):
        Path(path).write_bytes(b"half a file")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return write


def test_a_full_disk_during_convert_keeps_the_previous_export(model, tmp_path, monkeypatch, capsys):
    import pygltflib

    out = tmp_path / "out.glb"
    assert main(["convert", str(model), "-o", str(out)]) == 0
    before = digest(out)
    monkeypatch.setattr(pygltflib.GLTF2, "save_binary", lambda self, path: _fill_and_fail(None)(path))
    assert main(["convert", str(model), "-o", str(out)]) == 3
    error = capsys.readouterr().err.strip()
    assert error == f"error: cannot write {out}: {os.strerror(errno.ENOSPC)}"
    assert digest(out) == before and leftovers(tmp_path) == []


def test_a_full_disk_during_pose_keeps_the_previous_file(model, tmp_path, monkeypatch, capsys):
    out = tmp_path / "pose.npz"
    assert main(["pose", str(model), "-o", str(out)]) == 0
    before = digest(out)
    monkeypatch.setattr(np, "savez", _fill_and_fail(None))
    assert main(["pose", str(model), "-o", str(out)]) == 3
    assert "No space left on device" in capsys.readouterr().err
    assert digest(out) == before and leftovers(tmp_path) == []


def _mount_small_disk(folder: Path, size: str) -> bool:
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                          capture_output=True, check=False)
    return done.returncode == 0


@pytest.fixture
def small_disk(tmp_path):
    """A 2 MB file system (tmpfs; needs root, as CI is), later filled to its last 4 KB page."""
    folder = tmp_path / "disk"
    if shutil.which("mount") is None or os.geteuid() != 0 or not _mount_small_disk(folder, "2m"):
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], check=False)


@pytest.mark.gl
@pytest.mark.parametrize("name", ["big.glb", "big.png", "walk.gif", "walk.mp4", "walk.webm", "walk.webp",
                                  "walk_%03d.png", "pose.npz", "pose.obj"])
def test_a_small_disk_that_fills_leaves_no_partial_file(small_disk, name):
    """Each output first fits (the previous file), then is asked for at a size that does not fit."""
    command, small, large = {
        ".glb": (["convert", str(FOX)], ["--clip", "0"], []),
        ".npz": (["pose", str(FOX)], [], []),
        ".obj": (["pose", str(FOX)], [], []),
    }.get(Path(name).suffix, (["render", "--demo"], ["--size", "64x48", "--fps", "4"],
                             ["--size", "480x360", "--fps", "12"]))
    out = small_disk / name
    done = boneyard(*command, "-o", str(out), *small)
    assert done.returncode == 0, done.stderr
    before = {path.name: digest(path) for path in small_disk.iterdir()}
    free = os.statvfs(small_disk)
    (small_disk / "filler").write_bytes(b"\0" * (free.f_bavail * free.f_frsize - (4 << 10)))
    done = boneyard(*command, "-o", str(out), *large)
    assert done.returncode == 3, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "No space left on device" in lines[0], lines
    assert {path.name: digest(path) for path in small_disk.iterdir() if path.name != "filler"} == before


# --- signals -------------------------------------------------------------------------------------------

def _as_from_a_terminal() -> None:
    """A shell starts background jobs with SIGINT ignored, and a child keeps that; a terminal's Ctrl+C
    reaches a foreground process whose SIGINT is not ignored, which is the case tested."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _killed_during_write(args: list[str], out: Path, signum: int, delay: float) -> int:
    process = subprocess.Popen([sys.executable, "-m", "app", *args], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, preexec_fn=_as_from_a_terminal)
    time.sleep(delay)
    process.send_signal(signum)
    process.wait(timeout=120)
    return process.returncode


@pytest.mark.gl
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_a_render_stopped_midway_leaves_the_previous_video(tmp_path, signum):
    out = tmp_path / "walk.mp4"
    assert boneyard("render", "--demo", "--fps", "2", "--size", "64x48", "-o", str(out)).returncode == 0
    before = digest(out)
    status = _killed_during_write(["render", "--demo", "--clip", "idle", "--fps", "120", "--size", "320x240",
                                   "-o", str(out)], out, signum, delay=2.5)
    assert digest(out) == before or status == 0
    if signum != signal.SIGKILL:  # cleanup ran: no temporary either, and the status says the signal
        assert status == 128 + signum and leftovers(tmp_path) == []
    video_frames = subprocess.run([sys.executable, "-c", "import av,sys; c=av.open(sys.argv[1]); "
                                   "print(sum(1 for _ in c.decode(video=0)))", str(out)],
                                  capture_output=True, text=True, timeout=60)
    assert video_frames.returncode == 0 and int(video_frames.stdout) > 0


def test_the_next_write_removes_what_a_killed_write_left(model, tmp_path):
    out = tmp_path / "out.glb"
    orphan = tmp_path / f".out.{2 ** 22 + 12345}.0123abcd.partial.glb"  # a process id no system gives
    orphan.write_bytes(b"half")
    other = tmp_path / ".other.4194999.0123abcd.partial.glb"
    other.write_bytes(b"another file's")
    assert main(["convert", str(model), "-o", str(out)]) == 0
    assert leftovers(tmp_path) == [other.name]


# --- bounded work -------------------------------------------------------------------------------------

def test_a_sheet_too_wide_for_its_frames_is_refused_before_loading(tmp_path, capsys):
    out = tmp_path / "sheet.png"
    assert exit_status(["render", str(tmp_path / "missing.glb"), "--sheet", "--frames", "64",
                        "-o", str(out)]) == 2
    error = capsys.readouterr().err
    assert "20480 pixels wide" in error and "at most 51 frames" in error


def test_a_shot_too_short_to_aim_is_a_usage_error(capsys):
    assert exit_status(["ragdoll", "--demo", "--shoot", "0,1,2:0,0,-1e-12", "-o", "x.npz"]) == 2
    assert "direction at least" in capsys.readouterr().err


def _peak_rss_of(code: str) -> int:
    """Peak resident memory (bytes) of a child running ``code``: its VmHWM, which starts afresh with
    the program (getrusage's ru_maxrss keeps the high-water mark of the test process it was forked
    from)."""
    probe = code + ("\nprint(next(line.split()[1] for line in open('/proc/self/status') "
                    "if line.startswith('VmHWM')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stdout.split()[-1]) * 1024


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc/self/status")
@pytest.mark.parametrize("suffix", [".gif", ".webp"])
def test_animated_images_are_streamed_not_held(tmp_path, suffix):
    """600 distinct 512×512 frames: 630 MB held as RGBA, a few tens of MB streamed."""
    out = tmp_path / f"long{suffix}"
    code = (
        "import numpy as np\nfrom pathlib import Path\nfrom app.render.video import write_animation\n"
        "def frames():\n"
        "    for index in range(600):\n"
        "        frame = np.zeros((512, 512, 4), np.uint8); frame[..., 3] = 255\n"
        "        frame[:, index % 512, :3] = 255\n"
        "        yield frame\n"
        f"write_animation(Path({str(out)!r}), {suffix[1:]!r}, frames(), 30.0, 600)\n")
    assert _peak_rss_of(code) < 300 << 20
    image = Image.open(out)
    assert image.n_frames == 600


def test_a_model_whose_name_is_not_utf8_gets_its_ragdoll_check(tmp_path, capsys, short_trial):
    path = tmp_path / os.fsdecode(b"bad\xff\xfename.glb")
    shutil.copy(demo_paths()[0], path)
    assert exit_status(["ragdoll", "--check", str(path)]) in (0, 1)  # the verdict, not an error
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] in ("pass", "fail") and report["parts"]
