"""Build the standalone one-folder bundle and its tarball (``make package``).

    python packaging/build.py [--dist DIR] [--work DIR] [--clean]

Writes DIR/boneyard/ (run DIR/boneyard/boneyard; desktop files and their installer in
DIR/boneyard/desktop/) and DIR/boneyard-VERSION-linux-ARCH.tar.gz. Needs PyInstaller (the ``package``
extra: ``pip install -e ".[package]"``) and binutils' ``strip`` (optional: without it the bundle keeps
its debug information and is much larger).
"""

from __future__ import annotations

import argparse
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
NAME = "boneyard"
#: Files copied into the bundle's desktop/ folder.
DESKTOP_FILES = ("boneyard.desktop", "boneyard-mime.xml", "boneyard.svg", "boneyard.png",
                 "install-desktop.sh")


def version() -> str:
    text = (ROOT / "app" / "__init__.py").read_text(encoding="utf-8")
    return re.search(r'^__version__ = "([^"]+)"', text, re.MULTILINE).group(1)


def tarball_name() -> str:
    return f"{NAME}-{version()}-linux-{platform.machine()}.tar.gz"


def build(dist: Path, work: Path, clean: bool = False) -> tuple[Path, Path]:
    """Run PyInstaller, add the desktop files, pack the folder; returns (bundle folder, tarball)."""
    dist, work = dist.resolve(), work.resolve()
    command = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
               "--distpath", str(dist), "--workpath", str(work), str(HERE / "boneyard.spec")]
    if clean:
        command.insert(3, "--clean")
    # Run from packaging/ so that the repository root (with this packaging/ folder in it) is not the
    # first entry of PyInstaller's sys.path: the `packaging` library must stay the one it imports.
    subprocess.run(command, check=True, cwd=HERE)
    bundle = dist / NAME
    desktop = bundle / "desktop"
    desktop.mkdir(exist_ok=True)
    for name in DESKTOP_FILES:
        shutil.copy2(HERE / name, desktop / name)
    tarball = dist / tarball_name()
    with tarfile.open(tarball, "w:gz", compresslevel=6) as archive:
        archive.add(bundle, arcname=NAME)
    return bundle, tarball


def folder_size(path: Path) -> int:
    return sum(item.stat().st_size for item in path.rglob("*") if item.is_file() and not item.is_symlink())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="output folder (default dist/)")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "pyinstaller",
                        help="PyInstaller's work folder (default build/pyinstaller/)")
    parser.add_argument("--clean", action="store_true", help="drop PyInstaller's cache first")
    args = parser.parse_args(argv)
    start = time.monotonic()
    bundle, tarball = build(args.dist, args.work, args.clean)
    megabytes = 1024 * 1024
    print(f"{bundle}/: {folder_size(bundle) / megabytes:.0f} MiB; {tarball}: "
          f"{tarball.stat().st_size / megabytes:.0f} MiB; {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
