"""The one folder that holds a user's files: what the window remembers (``settings.ini``) and the
ragdoll profiles saved outside a model's folder (``ragdoll/``). The window and the command line both
find it here, so a profile saved in one is used by the other."""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_NAME = "boneyard"
SETTINGS_FILE = "settings.ini"


def user_data_dir() -> Path:
    """The user's Boneyard folder: ``$XDG_DATA_HOME/boneyard``, else ``~/.local/share/boneyard`` (the
    XDG default); ``%APPDATA%\\boneyard`` on Windows, ``~/Library/Application Support/boneyard`` on macOS."""
    if sys.platform == "win32" and os.environ.get("APPDATA"):
        return Path(os.environ["APPDATA"]) / APP_NAME
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / APP_NAME
    base = os.environ.get("XDG_DATA_HOME") or ""
    root = Path(base) if os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / APP_NAME


def settings_path() -> Path:
    """The window's remembered settings (recent files, texture folders, layout), an INI file."""
    return user_data_dir() / SETTINGS_FILE
