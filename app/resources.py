"""Where the shaders and demo assets are.

In a checkout (and an editable install) they sit at the top of the repository, beside ``app/``;
a wheel installs them inside the package as ``app/shaders`` and ``app/assets``.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _resource_dir(name: str) -> Path:
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"the {name}/ folder is missing beside {_PACKAGE}")


def shader_path(name: str) -> Path:
    return _resource_dir("shaders") / name


def asset_path(name: str) -> Path:
    return _resource_dir("assets") / name


def demo_paths() -> list[Path]:
    """The built-in demo character's files."""
    return [asset_path("demo.glb")]
