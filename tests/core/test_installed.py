"""What users install: the wheel and the sdist built from this checkout.

The contents checks are quick and always run: every module of ``app/``, every shader and asset and the
licence must reach the wheel, and every source file the sdist. The install checks (marked slow) put each
into a fresh virtual environment outside the checkout and use it from another folder, as ``pip install .``
would for a user: they run when BONEYARD_INSTALL_TEST=1 (``make install-test``, which ``.ci/run`` calls).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from app import __version__

from tests.paths import ROOT

#: The folders whose files the distributions carry, and where they go in the wheel.
WHEEL_HOMES = {"app": "app", "shaders": "app/shaders", "assets": "app/assets"}
#: Files of the checkout's top the sdist must carry besides those folders.
SDIST_TOP_FILES = ("LICENSE", "README.md", "pyproject.toml", "setup.py")
COMMAND_TIMEOUT_S = 180
INSTALL_TIMEOUT_S = 600


def source_files(folder: str) -> list[str]:
    """The files of ``folder`` (relative to the checkout) that git tracks, else every file in it but
    caches; paths relative to the checkout."""
    listed = subprocess.run(["git", "ls-files", "--", folder], cwd=ROOT, capture_output=True, text=True,
                            check=False)
    if listed.returncode == 0 and listed.stdout.strip():
        return listed.stdout.split()
    return [str(path.relative_to(ROOT)) for path in (ROOT / folder).rglob("*")
            if path.is_file() and "__pycache__" not in path.parts]


def wheel_name_of(source: str) -> str:
    """Where the checkout's file ``source`` sits inside the wheel."""
    folder, _, rest = source.partition("/")
    return f"{WHEEL_HOMES[folder]}/{rest}"


def fresh_copy(target: Path) -> Path:
    """The checkout's own files (tracked, or new and not ignored) copied into ``target``, as a fresh
    clone has them: no build folder or egg-info left by earlier builds, whose file lists setuptools
    would reuse (a package left out of the build would still ship through them)."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                            cwd=ROOT, capture_output=True, text=True, check=False)
    if listed.returncode == 0:
        for name in filter(None, listed.stdout.split("\0")):
            if (ROOT / name).is_file():
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / name, target / name)
    else:
        shutil.copytree(ROOT, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns(
            ".git", ".venv", ".node", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache"))
    return target


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> tuple[Path, Path]:
    """(wheel, sdist) built from a fresh copy of this checkout; the wheel is built from the sdist, as
    pip does."""
    out = tmp_path_factory.mktemp("dist")
    source = fresh_copy(tmp_path_factory.mktemp("source"))
    result = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(source)],
                            capture_output=True, text=True, check=False, timeout=INSTALL_TIMEOUT_S)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    (wheel,), (sdist,) = out.glob("*.whl"), out.glob("*.tar.gz")
    return wheel, sdist


def test_wheel_carries_every_module_shader_asset_and_the_licence(dists):
    wheel, _ = dists
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    expected = {wheel_name_of(source) for folder in WHEEL_HOMES for source in source_files(folder)
                if not source.endswith(".pyc")}
    assert any(name.startswith("app/state/") for name in expected), "the checkout's own list is empty"
    missing = sorted(expected - names)
    assert not missing, f"the wheel lacks {missing}: is a package left out of the build?"
    assert f"boneyard-{__version__}.dist-info/licenses/LICENSE" in names


def test_sdist_carries_every_source_file(dists):
    _, sdist = dists
    with tarfile.open(sdist) as archive:
        names = {name.partition("/")[2] for name in archive.getnames()}
    expected = {source for folder in WHEEL_HOMES for source in source_files(folder)} | set(SDIST_TOP_FILES)
    missing = sorted(expected - names)
    assert not missing, f"the sdist lacks {missing}"


# --- installed into a fresh environment (slow) --------------------------------------------------

@pytest.fixture(scope="module", params=["wheel", "sdist"])
def installed(request, dists, tmp_path_factory) -> Path:
    """The bin folder of a fresh virtual environment with the wheel or the sdist installed (not
    editable), made outside the checkout."""
    if os.environ.get("BONEYARD_INSTALL_TEST") != "1":
        pytest.skip("installs the package into fresh environments: set BONEYARD_INSTALL_TEST=1 "
                    "(make install-test)")
    venv = tmp_path_factory.mktemp(f"venv-{request.param}")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=COMMAND_TIMEOUT_S)
    dist = dists[0] if request.param == "wheel" else dists[1]
    result = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(dist)],
                            capture_output=True, text=True, check=False, timeout=INSTALL_TIMEOUT_S,
                            cwd=venv)
    assert result.returncode == 0, result.stderr[-3000:]
    return venv / "bin"


@pytest.fixture
def elsewhere(tmp_path) -> Path:
    """A working folder away from the checkout: nothing of it can be imported from there."""
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


def run_installed(bin_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME")}
    env["XDG_DATA_HOME"] = str(cwd / "data")
    return subprocess.run([str(bin_dir / args[0]), *args[1:]], cwd=cwd, env=env, capture_output=True,
                          text=True, check=False, timeout=COMMAND_TIMEOUT_S)


def assert_picture(path: Path, size: tuple[int, int] | None = None) -> None:
    """``path`` is a PNG of ``size`` with a drawing in it, not one flat colour."""
    with Image.open(path) as image:
        if size is not None:
            assert image.size == size
        pixels = np.asarray(image.convert("RGB"))
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 50, f"{path.name} is flat"


@pytest.mark.slow
def test_installed_version_and_info_come_from_the_environment(installed, elsewhere):
    version = run_installed(installed, elsewhere, "boneyard", "--version")
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"boneyard {__version__}"
    info = run_installed(installed, elsewhere, "boneyard", "info", "--demo", "--json")
    assert info.returncode == 0, info.stderr
    described = json.loads(info.stdout)
    assert described["bones"] == 17
    demo_file = Path(described["files"][0]).resolve()
    assert demo_file.is_relative_to(installed.parent.resolve()) and not demo_file.is_relative_to(ROOT)


@pytest.mark.slow
def test_installed_modules_all_import(installed, elsewhere):
    """Every module of the checkout's package imports from the environment, and from there only."""
    script = ("import importlib, json, pkgutil, app\n"
              "names = [m.name for m in pkgutil.walk_packages(app.__path__, 'app.')]\n"
              "files = {}\n"
              "for name in names:\n"
              "    files[name] = importlib.import_module(name).__file__\n"
              "print(json.dumps(files))\n")
    result = run_installed(installed, elsewhere, "python", "-c", script)
    assert result.returncode == 0, result.stderr[-3000:]
    imported = json.loads(result.stdout)
    expected = {source[:-3].replace("/", ".").removesuffix(".__init__")
                for source in source_files("app") if source.endswith(".py")}
    expected.discard("app")
    assert sorted(expected - set(imported)) == []
    assert not any(Path(file).resolve().is_relative_to(ROOT) for file in imported.values())


@pytest.mark.slow
@pytest.mark.gl
def test_installed_render_convert_and_ragdoll(installed, elsewhere):
    render = run_installed(installed, elsewhere, "boneyard", "render", "--demo", "-o", "walk.png",
                           "--size", "320x240")
    assert render.returncode == 0, render.stderr
    assert_picture(elsewhere / "walk.png", (320, 240))
    convert = run_installed(installed, elsewhere, "boneyard", "convert", "--demo", "-o", "demo.glb")
    assert convert.returncode == 0, convert.stderr
    reread = run_installed(installed, elsewhere, "boneyard", "info", "demo.glb", "--json")
    assert reread.returncode == 0, reread.stderr
    assert json.loads(reread.stdout)["bones"] == 17
    ragdoll = run_installed(installed, elsewhere, "boneyard", "ragdoll", "--demo", "--seconds", "1",
                            "-o", "fall.npz")
    assert ragdoll.returncode == 0, ragdoll.stderr
    with np.load(elsewhere / "fall.npz") as run:
        assert np.isfinite(run["world"]).all() and run["world"].shape[1] == 17


@pytest.mark.slow
@pytest.mark.gui
def test_installed_window_screenshot(installed, elsewhere):
    if not os.environ.get("DISPLAY"):
        pytest.skip("needs a display (make install-test runs under xvfb-run)")
    result = run_installed(installed, elsewhere, "boneyard", "--screenshot", "window.png")
    assert result.returncode == 0, result.stderr
    assert_picture(elsewhere / "window.png")
