"""Before the window starts on X11: the system libraries Qt's xcb platform plugin loads, which pip's
PySide6 does not bring. Without one (a fresh Debian has no ``libxcb-cursor0``) Qt aborts with "could
not load the Qt platform plugin xcb"; this names the packages to install, just before. It warns and
goes on rather than refusing: a library found where ``find_library`` does not look still works."""

from __future__ import annotations

import ctypes.util
import os
import sys

#: Each library Qt 6's xcb plugin needs (as ``ctypes.util.find_library`` names it) and the Debian or
#: Ubuntu package that has it (the same list as .ci/system-deps's window set).
XCB_LIBRARIES = {"xcb-cursor": "libxcb-cursor0", "xkbcommon-x11": "libxkbcommon-x11-0",
                 "xcb-icccm": "libxcb-icccm4", "xcb-keysyms": "libxcb-keysyms1",
                 "xcb-render-util": "libxcb-render-util0", "xcb-image": "libxcb-image0",
                 "xcb-randr": "libxcb-randr0", "xcb-shape": "libxcb-shape0", "xcb-xkb": "libxcb-xkb1",
                 "xcb-xinerama": "libxcb-xinerama0"}


def uses_xcb() -> bool:
    """Whether Qt will start on X11 here: Linux, not a bundle (which carries its own libraries), and
    neither another platform chosen nor a Wayland session (Qt prefers Wayland there)."""
    if sys.platform != "linux" or getattr(sys, "frozen", False):
        return False
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform:
        return platform.startswith("xcb")
    return bool(os.environ.get("DISPLAY")) and not os.environ.get("WAYLAND_DISPLAY")


def missing_packages() -> list[str]:
    """The packages whose libraries the xcb plugin needs and this system lacks (empty off X11)."""
    if not uses_xcb():
        return []
    return [package for library, package in XCB_LIBRARIES.items()
            if ctypes.util.find_library(library) is None]


def missing_message(packages: list[str]) -> str:
    return (f"boneyard: warning: Qt's X11 window needs system libraries not found here; if it fails to "
            f"start, install them with: sudo apt-get install {' '.join(packages)} (Debian/Ubuntu; "
            "`make run` does it where it can)")
