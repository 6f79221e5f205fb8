"""Replaces PyInstaller's PySide6.QtGui hook: the same collection, less the Qt plug-ins a desktop
viewer never loads. Leaving a plug-in out here also leaves out the libraries only it needs (the GTK3
theme alone pulls in GLib, Cairo and Pango).

Kept: the xcb (X11), Wayland, offscreen and minimal platforms; the GLX/EGL integrations for xcb; the
Wayland client plug-ins; input contexts (compose key, IBus); the XDG desktop portal theme (native file
dialogs through D-Bus); the SVG icon engine; the common image formats.
"""

import os

from PyInstaller.utils.hooks.qt import add_qt6_dependencies

hiddenimports, binaries, datas = add_qt6_dependencies(__file__)

#: (plug-in folder, file name prefix or None for the whole folder) that the bundle leaves out.
DROPPED = {
    "egldeviceintegrations": None,  # eglfs: full-screen on a bare framebuffer, no window system
    "generic": None,  # evdev / TUIO input for eglfs and linuxfb (TUIO also needs QtNetwork)
    "platforms": ("libqeglfs", "libqlinuxfb", "libqminimalegl", "libqvkkhrdisplay", "libqvnc",
                  "libqdirectfb"),
    "platformthemes": ("libqgtk3",),
    "imageformats": ("libqtiff", "libqwebp", "libqicns", "libqtga", "libqwbmp", "libqpdf"),
}


def _kept(destination_dir: str, source: str) -> bool:
    folder = os.path.basename(os.path.normpath(destination_dir))
    if folder not in DROPPED:
        return True
    prefixes = DROPPED[folder]
    return prefixes is not None and not os.path.basename(source).startswith(prefixes)


binaries = [(source, destination) for source, destination in binaries if _kept(destination, source)]
