"""The real window's speed: ``python -m tests.bench_window`` (or ``python -m tests.bench window``).

Two child processes, because Mesa cannot hold Qt's GLX context and a headless EGL one in the same
process:

- ``window``: the app's MainWindow on the demo (or a model given on the command line) at 1280×800,
  playing its first clip; the viewport's swapped frames are counted for a few seconds. Then the ragdoll
  goes (Go Ragdoll from the current frame) and the simulated seconds are compared with the wall clock.
- ``offscreen``: the same model, the same clip advancing by the wall clock and the same viewport size,
  drawn with the EGL renderer as fast as it goes (pose evaluated, bones uploaded, drawn, finished).

``window_fps_vs_offscreen_draw`` is the window's frames per second over the offscreen draws per second:
what the window adds to drawing (event loop, widgets, per-frame Python, the swap). The window needs a
display; without one the children run under ``xvfb-run``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

SIZE = (1280, 800)
PLAY_SECONDS = 4.0
WARM_UP_SECONDS = 1.0
RAGDOLL_SECONDS = 3.0


def _load(paths: list[str]):
    from app import formats
    from app.resources import demo_paths

    return formats.load([Path(p) for p in paths] or demo_paths())


def _window(paths: list[str]) -> dict:
    from PySide6.QtWidgets import QApplication

    from app.ui.application import _surface_format
    from PySide6.QtGui import QSurfaceFormat

    QSurfaceFormat.setDefaultFormat(_surface_format())
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from app.ui.main_window import MainWindow

    window = MainWindow()
    window.resize(*SIZE)
    window.show()
    window.set_model(_load(paths))
    frames = [0]
    window.viewport.frameSwapped.connect(lambda: frames.__setitem__(0, frames[0] + 1))

    def pump(seconds: float) -> None:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            app.processEvents()

    pump(WARM_UP_SECONDS)
    if window.playback is not None and not window.playback.playing:
        window.playback.set_playing(True)
    viewport = window.viewport
    size = (viewport.width(), viewport.height())
    frames[0] = 0
    started = time.perf_counter()
    pump(PLAY_SECONDS)
    fps = frames[0] / (time.perf_counter() - started)

    ragdoll_speed = None
    if window.set_ragdoll_running(True):
        world = window.ragdoll.ragdoll
        pump(0.25)
        simulated, started = world.time, time.perf_counter()
        pump(RAGDOLL_SECONDS)
        ragdoll_speed = (world.time - simulated) / (time.perf_counter() - started)
        window.set_ragdoll_running(False)
    window.close()
    return {"window_fps": fps, "viewport": size, "ragdoll_speed": ragdoll_speed}


def _offscreen(paths: list[str], size: tuple[int, int]) -> dict:
    from app.pose import evaluate
    from app.render.camera import camera_for
    from app.render.offscreen import OffscreenRenderer
    from app.render.renderer import DisplayOptions

    model = _load(paths)
    clip = model.clips[0] if model.clips else None
    with OffscreenRenderer() as offscreen:
        renderer = offscreen.renderer
        renderer.set_model(model, evaluate(model, clip, 0.0) if clip else None)
        camera = camera_for(*renderer.bounds(), up_axis=model.up_axis, view="iso", aspect=size[0] / size[1])
        target = offscreen.draw_target(size)
        options = DisplayOptions()
        draws, started = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - started) < PLAY_SECONDS:
            if clip is not None:
                renderer.set_pose(evaluate(model, clip, elapsed % max(clip.duration, 1e-6)))
            renderer.draw(target, camera, options)
            offscreen.ctx.finish()
            draws += 1
    return {"offscreen_fps": draws / (time.perf_counter() - started)}


def _child(mode: str, paths: list[str], size: tuple[int, int] | None = None) -> dict:
    command = [sys.executable, "-m", "tests.bench_window", "--child", mode, *paths]
    if size:
        command[5:5] = ["--size", f"{size[0]}x{size[1]}"]
    if mode == "window" and not os.environ.get("DISPLAY") and shutil.which("xvfb-run"):
        command = ["xvfb-run", "-a", "-s", f"-screen 0 {SIZE[0] + 320}x{SIZE[1] + 200}x24", *command]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if result.returncode:
        raise RuntimeError(f"{mode} child failed: {result.stderr.strip()[-2000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def run(paths: list[str] | None = None) -> dict:
    """{window_fps, offscreen_fps, window_fps_vs_offscreen_draw, window_ragdoll_speed_vs_realtime}."""
    paths = paths or []
    window = _child("window", paths)
    offscreen = _child("offscreen", paths, tuple(window["viewport"]))
    return {"viewport": "x".join(map(str, window["viewport"])),
            "window frames/s": window["window_fps"],
            "offscreen draws/s, same view and size": offscreen["offscreen_fps"],
            "window_fps_vs_offscreen_draw": window["window_fps"] / offscreen["offscreen_fps"],
            "window_ragdoll_speed_vs_realtime": window["ragdoll_speed"]}


def _child_main(argv: list[str]) -> int:
    mode = argv[0]
    size = None
    if len(argv) > 2 and argv[1] == "--size":
        size = tuple(int(v) for v in argv[2].split("x"))
        argv = [mode, *argv[3:]]
    paths = argv[1:]
    result = _window(paths) if mode == "window" else _offscreen(paths, size or SIZE)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        sys.exit(_child_main(sys.argv[2:]))
    for key, value in run(sys.argv[1:]).items():
        print(f"  {key:<45} {value:.4g}" if isinstance(value, float) else f"  {key:<45} {value}")
