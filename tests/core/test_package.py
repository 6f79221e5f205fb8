"""The standalone bundle (packaging/) and its desktop files.

The desktop-file checks are quick and always run. The bundle checks (marked slow) build it with
PyInstaller and run it with a clean environment, as on a machine with no Python: they run when
BONEYARD_PACKAGE_TEST=1 (``make package-test``), or against an existing build when BONEYARD_BUNDLE
names its folder (e.g. ``BONEYARD_BUNDLE=dist/boneyard`` after ``make package``).
"""

from __future__ import annotations

import configparser
import importlib.util
import json
import os
import shutil
import subprocess
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from app import __version__, formats, loading
from app.resources import demo_paths

from tests.paths import CORPUS, ROOT

PACKAGING = ROOT / "packaging"
MIME_NS = {"m": "http://www.freedesktop.org/standards/shared-mime-info"}
GLTF_TYPES = {"model/gltf-binary", "model/gltf+json"}
#: Extensions the readers accept that get no MIME type of their own: plain-text .txt (BonesPro, and
#: LGW's converter output) and the .obj faces that only accompany a BonesPro structure file.
NO_OWN_TYPE = {".txt", ".obj"}
#: The clean environment of a machine with no Python: nothing but a PATH.
CLEAN_ENV = {"PATH": "/usr/bin:/bin"}
RUN_TIMEOUT_S = 120


def _load_packaging_module(name: str):
    """A script from packaging/, loaded by path (a `packaging` import would find the library)."""
    spec = importlib.util.spec_from_file_location(f"boneyard_packaging_{name}", PACKAGING / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str
    parser.read(PACKAGING / "boneyard.desktop", encoding="utf-8")
    return parser["Desktop Entry"]


def _declared_types() -> dict[str, list[str]]:
    """MIME type → its glob patterns, from packaging/boneyard-mime.xml."""
    root = ET.parse(PACKAGING / "boneyard-mime.xml").getroot()
    return {node.get("type"): [glob.get("pattern") for glob in node.findall("m:glob", MIME_NS)]
            for node in root.findall("m:mime-type", MIME_NS)}


# --- desktop files (quick) ---------------------------------------------------------------------

def test_every_extension_the_readers_accept_has_a_mime_type():
    patterns = {pattern for globs in _declared_types().values() for pattern in globs}
    extensions = {ext for fmt in formats.formats.values() for ext in fmt.extensions} - NO_OWN_TYPE
    missing = {ext for ext in extensions if f"*{ext}" not in patterns and ext not in (".glb", ".gltf")}
    assert not missing, f"no MIME type in packaging/boneyard-mime.xml for {sorted(missing)}"


def test_desktop_entry_offers_to_open_every_declared_type():
    entry = _desktop_entry()
    offered = set(filter(None, entry["MimeType"].split(";")))
    assert offered == set(_declared_types()) | GLTF_TYPES
    assert entry["Type"] == "Application" and entry["Name"] == "Boneyard"
    assert entry["Exec"].split()[-1] == "%F", "several files open as one model"
    assert entry["Icon"] == "boneyard" and entry["Categories"].endswith(";")
    if shutil.which("desktop-file-validate"):  # desktop-file-utils, where installed
        result = subprocess.run(["desktop-file-validate", str(PACKAGING / "boneyard.desktop")],
                                check=False, capture_output=True, text=True)
        assert result.returncode == 0 and not result.stdout.strip(), result.stdout


def test_icon_files_are_the_script_output():
    make_icon = _load_packaging_module("make_icon")
    assert (PACKAGING / "boneyard.svg").read_text(encoding="utf-8") == make_icon.svg(), \
        "run packaging/make_icon.py"
    drawn = np.asarray(make_icon.png()).astype(int)
    for committed_path in (PACKAGING / "boneyard.png", ROOT / "assets" / "boneyard.png"):
        committed = np.asarray(Image.open(committed_path).convert("RGBA")).astype(int)
        assert committed.shape == (256, 256, 4)
        assert np.abs(committed - drawn).mean() < 1.0, "run packaging/make_icon.py"


def test_install_desktop_registers_and_removes(tmp_path):
    executable = tmp_path / "bin dir" / "boneyard"
    executable.parent.mkdir()
    executable.write_text("#!/bin/sh\n")
    executable.chmod(0o755)
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    script = str(PACKAGING / "install-desktop.sh")
    subprocess.run(["sh", script, str(executable)], env=env, check=True, capture_output=True)
    data = tmp_path / "data"
    installed = (data / "applications" / "boneyard.desktop").read_text()
    assert f'Exec="{executable}" %F' in installed and f"TryExec={executable}" in installed
    for path in ("mime/packages/boneyard.xml", "icons/hicolor/scalable/apps/boneyard.svg",
                 "icons/hicolor/256x256/apps/boneyard.png"):
        assert (data / path).is_file(), path
    if shutil.which("update-mime-database"):  # the XML is valid: the database knows the types
        globs = (data / "mime" / "globs2").read_text()
        assert "model/x-lgw:*.lgw" in globs and "model/x-nwn-mdl:*.mdl" in globs
    subprocess.run(["sh", script, "--uninstall"], env=env, check=True, capture_output=True)
    assert not (data / "applications" / "boneyard.desktop").exists()
    assert not (data / "mime" / "packages" / "boneyard.xml").exists()


# --- the frozen bundle (slow) --------------------------------------------------------------------

@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(bundle folder, tarball or None): an existing build, or a fresh one."""
    existing = os.environ.get("BONEYARD_BUNDLE")
    if existing:
        bundle = Path(existing).resolve()
        assert (bundle / "boneyard").is_file(), f"BONEYARD_BUNDLE={existing} holds no boneyard executable"
        tarball = bundle.parent / _load_packaging_module("build").tarball_name()
        return bundle, tarball if tarball.is_file() else None
    if os.environ.get("BONEYARD_PACKAGE_TEST") != "1":
        pytest.skip("builds the standalone bundle: set BONEYARD_PACKAGE_TEST=1 (make package-test)")
    if importlib.util.find_spec("PyInstaller") is None:
        pytest.fail("PyInstaller is missing: pip install -e '.[package]' (make package-test does)")
    work = tmp_path_factory.mktemp("package")
    return _load_packaging_module("build").build(work / "dist", work / "build")


@pytest.fixture(scope="module")
def bundle(built):
    return built[0]


def run_clean(bundle: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(bundle / "boneyard"), *args], check=False, env={**CLEAN_ENV, **(env or {})},
                          cwd=bundle, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)


def skin_fraction(path: Path) -> float:
    """The share of the picture in the demo character's warm, light colour."""
    image = np.asarray(Image.open(path).convert("RGB")).astype(int)
    red, green, blue = image[..., 0], image[..., 1], image[..., 2]
    return float(((red > 110) & (green > 80) & (red - blue > 35)).mean())


@pytest.mark.slow
def test_tarball_holds_the_bundle(built):
    _, tarball = built
    if tarball is None:
        pytest.skip("no tarball beside BONEYARD_BUNDLE")
    with tarfile.open(tarball) as archive:
        names = set(archive.getnames())
    for member in ("boneyard/boneyard", "boneyard/desktop/boneyard.desktop",
                   "boneyard/desktop/install-desktop.sh", "boneyard/_internal/app/assets/demo.glb",
                   "boneyard/_internal/app/shaders/mesh.glsl"):
        assert member in names, member
    assert not any("libstdc++" in name or "libGL" in name or "libEGL" in name for name in names), \
        "the C++ runtime and OpenGL must come from the target machine"


@pytest.mark.slow
def test_frozen_version(bundle):
    result = run_clean(bundle, "--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"boneyard {__version__}"


@pytest.mark.slow
def test_frozen_info_names_the_demo_bones(bundle):
    result = run_clean(bundle, "info", "--demo", "--json")
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout)
    expected = loading.load(demo_paths()).skeleton.names
    assert info["bones"] == 17 and info["bone_names"] == list(expected) and len(expected) == 17
    # The demo comes from inside the bundle, not from this checkout.
    assert Path(info["files"][0]).resolve().is_relative_to(bundle)


@pytest.mark.slow
@pytest.mark.parametrize("path", [CORPUS / "assimp-fbx" / "huesitos.fbx",
                                  CORPUS / "cmu-bvh" / "01_01_first240.bvh"], ids=lambda path: path.suffix)
def test_frozen_info_reads_fbx_and_bvh(bundle, path):
    """The bundle holds the readers imported by name, the FBX package with ufbx's extension among them."""
    result = run_clean(bundle, "info", str(path), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["bone_names"] == loading.load([path]).skeleton.names


@pytest.mark.slow
@pytest.mark.gl
def test_frozen_render(bundle, tmp_path, gl_context):
    out = tmp_path / "x.png"
    result = run_clean(bundle, "render", "--demo", "-o", str(out), "--size", "640x360")
    assert result.returncode == 0, result.stderr
    with Image.open(out) as image:
        assert image.size == (640, 360)
        assert len(image.convert("RGB").getcolors(1 << 16) or ()) > 50, "a flat picture"
    assert skin_fraction(out) > 0.03


@pytest.mark.slow
@pytest.mark.gui
def test_frozen_screenshot(bundle, tmp_path):
    out = tmp_path / "window.png"
    app_args = [str(bundle / "boneyard"), "--screenshot", str(out), "--size", "1000x700"]
    # HOME keeps the app's settings file out of / (with no HOME, Qt writes to /.config).
    inner = (f'exec env -i PATH={CLEAN_ENV["PATH"]} HOME="$HOME_DIR" DISPLAY="$DISPLAY" '
             'XAUTHORITY="${XAUTHORITY:-}" "$@"')
    env = {**os.environ, "HOME_DIR": str(tmp_path)}
    if os.environ.get("DISPLAY"):
        command = ["sh", "-c", inner, "sh", *app_args]
    elif shutil.which("xvfb-run"):
        command = ["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", "sh", "-c", inner, "sh", *app_args]
    else:
        pytest.skip("needs a display or xvfb-run")
    result = subprocess.run(command, check=False, env=env, capture_output=True, text=True,
                            timeout=RUN_TIMEOUT_S)
    assert result.returncode == 0, result.stderr
    with Image.open(out) as image:
        assert image.size == (1000, 700)
        assert len(image.convert("RGB").getcolors(1 << 16) or ()) > 50, "a flat picture"
    assert skin_fraction(out) > 0.01, "the viewport shows no character"
