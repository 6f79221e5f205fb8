"""`make run` and `make test` install the system libraries they need (.ci/system-deps), or name
exactly what to install: the script run with fake dpkg-query, apt-get, id and sudo on a PATH of
their own, as on a fresh machine that lacks them."""

import os
import shutil
import subprocess

import pytest

from tests.paths import ROOT

SCRIPT = ROOT / ".ci" / "system-deps"
#: What the window needs, as the script lists it (written out again here: the test's own record).
WINDOW = ["libxcb-cursor0", "libxkbcommon-x11-0", "libxcb-icccm4", "libxcb-keysyms1", "libxcb-render-util0",
          "libxcb-image0", "libxcb-xinerama0", "libxcb-randr0", "libxcb-shape0", "libxcb-xkb1", "libegl1",
          "libegl-mesa0", "libgl1", "libgl1-mesa-dri", "libglx-mesa0", "libfontconfig1", "libdbus-1-3"]

pytestmark = pytest.mark.skipif(shutil.which("bash") is None or shutil.which("grep") is None,
                                reason="needs bash and grep")


def fake(folder, name, body):
    path = folder / name
    path.write_text(f"#!{shutil.which('bash')}\n{body}\n")
    path.chmod(0o755)


def machine(tmp_path, installed, uid=0, apt=True):
    """A PATH holding bash, grep, a dpkg-query that knows ``installed``, ``id -u`` giving ``uid`` and,
    when ``apt``, an apt-get that records its arguments in ``apt.log``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "grep"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    known = " ".join(installed)
    fake(bin_dir, "dpkg-query", f'for p in {known}; do [ "$p" = "${{@: -1}}" ] && '
                                'printf "install ok installed" && exit 0; done; exit 1')
    fake(bin_dir, "id", f"echo {uid}")
    if apt:
        fake(bin_dir, "apt-get", f'echo "$@" >> {tmp_path / "apt.log"}')
    return {"PATH": str(bin_dir), "HOME": str(tmp_path)}


def run_script(env, *args):
    return subprocess.run([shutil.which("bash"), str(SCRIPT), *args], env=env, capture_output=True,
                          text=True, timeout=60)


def test_without_apt_get_the_window_set_names_exactly_the_missing_packages(tmp_path):
    env = machine(tmp_path, installed=[p for p in WINDOW if p != "libxcb-cursor0"], apt=False)
    done = run_script(env, "window")
    assert done.returncode == 0
    assert done.stderr.strip() == ("system-deps: apt-get not found; the window needs libxcb-cursor0; "
                                   "install them with: sudo apt-get install libxcb-cursor0")


def test_not_root_names_the_packages_and_the_command(tmp_path):
    env = machine(tmp_path, installed=WINDOW[2:], uid=1000)
    done = run_script(env, "window")
    assert done.returncode == 0 and not (tmp_path / "apt.log").exists()
    assert "not root" in done.stderr
    assert done.stderr.strip().endswith("sudo apt-get install libxcb-cursor0 libxkbcommon-x11-0")


def test_as_root_only_the_missing_packages_are_installed(tmp_path):
    env = machine(tmp_path, installed=WINDOW[1:])
    done = run_script(env, "window")
    assert done.returncode == 0 and done.stdout.strip() == "system-deps: installing libxcb-cursor0"
    assert (tmp_path / "apt.log").read_text().splitlines() == [
        "update -qq", "install -y -qq --no-install-recommends libxcb-cursor0"]


def test_the_test_set_adds_the_virtual_display_and_nothing_is_done_when_all_are_there(tmp_path):
    env = machine(tmp_path, installed=WINDOW)
    assert run_script(env, "window").stdout == ""
    assert run_script(env).stdout.strip() == "system-deps: installing xvfb xauth"
    assert run_script(env, "other").returncode == 2


def test_a_machine_without_dpkg_is_left_alone(tmp_path):
    env = machine(tmp_path, installed=[])
    os.remove(tmp_path / "bin" / "dpkg-query")
    done = run_script(env, "window")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_run_installs_the_window_libraries_before_starting():
    plan = subprocess.run(["make", "-n", "-W", "pyproject.toml", "run"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60).stdout.splitlines()
    deps = next(index for index, line in enumerate(plan) if line.strip() == "bash .ci/system-deps window")
    start = next(index for index, line in enumerate(plan) if line.strip().endswith("-m app"))
    assert deps < start


def test_the_window_names_the_x11_libraries_it_cannot_find(monkeypatch):
    """On X11 without libxcb-cursor (found missing by a stand-in for ctypes' search), starting the
    window first prints the package and the apt-get line; on Wayland or in a bundle it checks nothing."""
    import ctypes.util

    from app.cli import x11_libraries

    monkeypatch.setattr(x11_libraries.sys, "platform", "linux")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setattr(ctypes.util, "find_library",
                        lambda name: None if name == "xcb-cursor" else f"lib{name}.so")
    assert x11_libraries.missing_packages() == ["libxcb-cursor0"]
    assert "sudo apt-get install libxcb-cursor0" in x11_libraries.missing_message(["libxcb-cursor0"])
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    assert x11_libraries.missing_packages() == []
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")  # X11 chosen even in a Wayland session
    assert x11_libraries.missing_packages() == ["libxcb-cursor0"]
    monkeypatch.setattr(x11_libraries.sys, "frozen", True, raising=False)
    assert x11_libraries.missing_packages() == []
