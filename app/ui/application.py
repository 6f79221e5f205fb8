"""QApplication set-up, the command line's files, and ``--screenshot``."""

from __future__ import annotations

import sys
from argparse import Namespace
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtGui import QIcon, QSurfaceFormat
from PySide6.QtWidgets import QApplication

from app import formats, loading
from app.resources import asset_path, demo_paths
from app.ui.image_files import save_image

#: How long --screenshot waits for the first full frame before giving up.
SCREENSHOT_TIMEOUT_MS = 60_000


def _surface_format() -> QSurfaceFormat:
    """OpenGL 3.3 core with depth. No multisampling here: the viewport multisamples into its own target
    and resolves into Qt's framebuffer, which costs about half of Qt's multisampled widget framebuffer
    on a software rasteriser (docs/benchmarks.md)."""
    surface = QSurfaceFormat()
    surface.setVersion(3, 3)
    surface.setProfile(QSurfaceFormat.OpenGLContextProfile.CoreProfile)
    surface.setDepthBufferSize(24)
    return surface


def run_app(args: Namespace, options: formats.LoadOptions) -> int:
    """The window on the files ``args`` name (the demo without any), read with ``options`` (the
    command line's), or ``--screenshot`` of it."""
    QSurfaceFormat.setDefaultFormat(_surface_format())
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Boneyard")
    app.setOrganizationName("Boneyard")
    # Wayland docks find the icon through the desktop file (packaging/boneyard.desktop); X11 uses this one.
    app.setDesktopFileName("boneyard")
    app.setWindowIcon(QIcon(str(asset_path("boneyard.png"))))
    from app.ui.main_window import MainWindow

    paths = [Path(p) for p in args.files] or demo_paths()
    try:
        model = loading.load(paths, options)
    except formats.ReadError as error:
        if args.screenshot:
            print(f"error: {error}", file=sys.stderr)
            return 3
        model = None
        failure = error
    window = MainWindow(load_options=options)
    if args.size:
        window.resize(*args.size)
    result = {"status": 0}
    if args.screenshot:
        _screenshot_when_drawn(app, window, Path(args.screenshot), result)
    window.show()
    if model is not None:
        window.state.set_model(model)
    else:
        window.state.set_model(loading.load(demo_paths()))
        window.show_read_error(failure)
    status = app.exec()
    return result["status"] if args.screenshot else status


def _screenshot_when_drawn(app: QApplication, window, target: Path, result: dict) -> None:
    """Once the viewport has drawn the model, save the window and quit; give up after a while, or at
    once when the view cannot draw here."""
    result["status"] = 1
    if window.viewport.gl_problem:
        print(f"error: the view cannot draw: {window.viewport.gl_problem}", file=sys.stderr)
        QTimer.singleShot(0, app.quit)
        return

    def save() -> None:
        if save_image(window.grab(), target):
            result["status"] = 0
        else:
            print(f"error: could not write {target}", file=sys.stderr)
        app.quit()

    def give_up() -> None:
        print("error: the viewport drew no frame (is OpenGL 3.3 available?)", file=sys.stderr)
        app.quit()

    window.viewport.first_frame_drawn.connect(lambda: QTimer.singleShot(100, save))
    QTimer.singleShot(SCREENSHOT_TIMEOUT_MS, give_up)
