"""Starting the desktop app: check for a display before Qt is imported."""

from __future__ import annotations

import os
import sys
from argparse import Namespace

NO_DISPLAY_MESSAGE = ("boneyard: no display found (DISPLAY and WAYLAND_DISPLAY are unset); "
                      "render headless instead: boneyard render --demo -o demo.png")


def display_available() -> bool:
    if sys.platform != "linux" or os.environ.get("QT_QPA_PLATFORM"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def launch_app(args: Namespace) -> int:
    if not display_available():
        print(NO_DISPLAY_MESSAGE, file=sys.stderr)
        return 1
    from app.cli.x11_libraries import missing_message, missing_packages

    missing = missing_packages()
    if missing:
        print(missing_message(missing), file=sys.stderr)
    from app.cli.shared import load_options
    from app.ui.application import run_app

    return run_app(args, load_options(args))
