"""The real window's speed: ``python -m benchmarks.window [MODEL…]`` (or
``python -m benchmarks.bench window``).

Child processes, because Mesa cannot hold Qt's GLX context and a headless EGL one in the same process:

- ``window``: the app's MainWindow on the demo (or a model given on the command line) at 1280×800,
  playing its first clip; the frames the viewport draws (its own count) are counted over three 2 s
  spans. Then the ragdoll goes (Go Ragdoll from the current frame) and the simulated seconds are
  compared with the wall clock.
- ``offscreen``: the same model, the same clip advancing by the wall clock, in the window's view (its
  size, camera and display options, which the window child reports), drawn with the EGL renderer as
  fast as it goes for 3 s (pose evaluated, bones uploaded, drawn, resolved to a single-sample picture
  with the shader the window resolves into its GL window with, finished). It runs twice, while the
  window waits between its spans, so a load that comes or goes during the run weighs on both sides.

``window_fps_vs_offscreen_draw`` is the window's mean frames per second over the offscreen runs' mean
draws per second: what the window adds to drawing (event loop, widgets, per-frame Python, the overlay,
the copy into the window and its swap); the CPU time per frame of each side is printed beside it, a
cross-check that other processes' load does not sway. Without models on the command line the same is
measured again on the largest model the benchmarks draw, the 100k-vertex, 64-bone tube of
``bench_render`` playing a waving clip (written to a temporary glTF):
``window_fps_vs_offscreen_draw_100k``; and on the demo with the Mix row on (Playback › Mix Clips: its
first clip cross-fading into its second, the baked mix playing, which the offscreen child bakes the same
way and draws): ``window_fps_mix_vs_offscreen_draw``. The window needs a display; without one the
children run under ``xvfb-run``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SIZE = (1280, 800)
#: The window's count: SEGMENTS spans of SEGMENT_SECONDS, an offscreen run of PLAY_SECONDS between each two.
SEGMENTS = 3
SEGMENT_SECONDS = 2.0
PLAY_SECONDS = 3.0
WARM_UP_SECONDS = 1.0
RAGDOLL_SECONDS = 3.0


def _load(paths: list[str]):
    from app import loading
    from app.resources import demo_paths

    return loading.load([Path(p) for p in paths] or demo_paths())


def _mixed_clip(model):
    """The clip the window plays with the Mix row on: the first clip cross-fading into the second,
    baked as ``ViewerState.set_mixing`` bakes it."""
    from app.animation.mix import baked_clip
    from app.state.live_mix import first_settings

    return baked_clip(model, model.clips[0], first_settings(model, 0).mix(model))


def _window(paths: list[str], ragdoll: bool = True, mix: bool = False) -> dict:
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from app.ui.application import _surface_format
    from PySide6.QtGui import QSurfaceFormat

    QSurfaceFormat.setDefaultFormat(_surface_format())
    _application = QApplication.instance() or QApplication(sys.argv[:1])  # alive while the window runs
    from app.ui.main_window import MainWindow

    window = MainWindow()
    window.resize(*SIZE)
    window.show()
    window.set_model(_load(paths))

    def pump(seconds: float) -> None:
        """Run the event loop as the app does, blocking between events (a loop spinning on
        processEvents would take a core from the software rasteriser)."""
        loop = QEventLoop()
        QTimer.singleShot(round(seconds * 1000), loop.quit)
        loop.exec()

    if mix:
        window.state.set_mixing(True)
    pump(WARM_UP_SECONDS)
    if window.playback is not None and not window.playback.playing:
        window.playback.set_playing(True)
    viewport = window.viewport

    rates, cpu = [], []
    for segment in range(SEGMENTS):
        if segment:
            sys.stdin.readline()
            pump(0.2)
        drawn, started, cpu_started = viewport.frames_drawn, time.perf_counter(), time.process_time()
        pump(SEGMENT_SECONDS)
        frames = viewport.frames_drawn - drawn
        rates.append(frames / (time.perf_counter() - started))
        cpu.append((time.process_time() - cpu_started) / max(frames, 1))
        if segment < SEGMENTS - 1:
            # The parent draws the same view offscreen now, then says go on.
            print(json.dumps(_view(viewport)), flush=True)

    ragdoll_speed = None
    if ragdoll and window.set_ragdoll_running(True):
        world = window.ragdoll.ragdoll
        pump(0.25)
        simulated, started = world.time, time.perf_counter()
        pump(RAGDOLL_SECONDS)
        ragdoll_speed = (world.time - simulated) / (time.perf_counter() - started)
        window.set_ragdoll_running(False)
    window.close()
    return {"window_fps": rates, "window_cpu_s": cpu, "ragdoll_speed": ragdoll_speed}


def _view(viewport) -> dict:
    """What the viewport shows, as JSON: its size in pixels, its camera and its display options."""
    ratio = viewport.devicePixelRatioF()
    size = [max(int(viewport.width() * ratio), 1), max(int(viewport.height() * ratio), 1)]
    camera = dataclasses.asdict(viewport.camera)
    camera["target"] = [float(value) for value in camera["target"]]
    return {"size": size, "camera": camera, "options": dataclasses.asdict(viewport.options)}


def _offscreen(paths: list[str], view: dict, mix: bool = False) -> dict:
    """Draws per second of ``paths``' first clip (with ``mix``, its mix with the second: ``_mixed_clip``),
    the wall clock its time, in ``view`` (``_view``'s)."""
    from app.pose import evaluate
    from app.render.camera import Camera
    from app.render.offscreen import ImageTargets, OffscreenRenderer
    from app.scene.draw_settings import DrawSettings

    model = _load(paths)
    clip = _mixed_clip(model) if mix else model.clips[0] if model.clips else None
    size = tuple(view["size"])
    camera = Camera(**view["camera"])
    options = DrawSettings(**{key: tuple(value) if isinstance(value, list) else value
                                for key, value in view["options"].items()})
    with OffscreenRenderer() as offscreen, ImageTargets.create(offscreen.ctx, size) as targets:
        renderer = offscreen.renderer
        renderer.set_model(model, evaluate(model, clip, 0.0) if clip else None)
        draws, started, cpu_started = 0, time.perf_counter(), time.process_time()
        while (elapsed := time.perf_counter() - started) < PLAY_SECONDS:
            if clip is not None:
                renderer.set_pose(evaluate(model, clip, elapsed % max(clip.duration, 1e-6)))
            renderer.draw(targets.draw_target, camera, options)
            # Resolved into a single-sample picture with the shader the window resolves with.
            targets.resolve()
            offscreen.ctx.finish()
            draws += 1
    return {"offscreen_fps": draws / (time.perf_counter() - started),
            "offscreen_cpu_s": (time.process_time() - cpu_started) / max(draws, 1)}


def _command(mode: str, paths: list[str], view: dict | None = None) -> list[str]:
    command = [sys.executable, "-m", "benchmarks.window", "--child", mode, *paths]
    if view:
        command[5:5] = ["--view", json.dumps(view)]
    if mode.startswith("window") and not os.environ.get("DISPLAY") and shutil.which("xvfb-run"):
        command = ["xvfb-run", "-a", "-s", f"-screen 0 {SIZE[0] + 320}x{SIZE[1] + 200}x24", *command]
    return command


def _fresh_user(folder: str) -> dict[str, str]:
    """This environment with the user's folders in ``folder``: the window starts with its default
    layout (the Outliner's tab on top, no ragdoll gizmos), not with what the last session on this
    machine left in its settings (an open Ragdoll tab adds the gizmos to every frame)."""
    return {**os.environ, "XDG_DATA_HOME": str(Path(folder) / "data"),
            "XDG_CONFIG_HOME": str(Path(folder) / "config")}


def _result(mode: str, returncode: int, stdout: str, stderr: str) -> dict:
    if returncode:
        raise RuntimeError(f"{mode} child failed: {stderr.strip()[-2000:]}")
    return json.loads(stdout.strip().splitlines()[-1])


def window_vs_offscreen(paths: list[str], ragdoll: bool = True, mix: bool = False) -> dict:
    """The window's frame rate on ``paths`` (the demo when empty) over SEGMENTS spans, with the
    offscreen draw rate of the same view measured between each two; with ``ragdoll``, the window's
    ragdoll speed too; with ``mix``, the first two clips mixed on both sides."""
    mode = "window-mix" if mix else "window" if ragdoll else "window-play"
    offscreen = []
    with tempfile.TemporaryFile("w+") as errors, tempfile.TemporaryDirectory() as user:
        window = subprocess.Popen(_command(mode, paths), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=errors, text=True, env=_fresh_user(user))
        try:
            for _ in range(SEGMENTS - 1):
                line = window.stdout.readline()
                if not line:
                    break
                view = json.loads(line)
                run = subprocess.run(_command("offscreen-mix" if mix else "offscreen", paths, view),
                                     capture_output=True, text=True, timeout=600)
                offscreen.append(_result("offscreen", run.returncode, run.stdout, run.stderr))
                window.stdin.write("go\n")
                window.stdin.flush()
            stdout, _ = window.communicate(timeout=600)
        finally:
            if window.poll() is None:
                window.kill()
                window.wait()
        errors.seek(0)
        played = _result(mode, window.returncode, stdout, errors.read())
    window_fps = float(np.mean(played["window_fps"]))
    offscreen_fps = float(np.mean([run["offscreen_fps"] for run in offscreen]))
    offscreen_cpu = float(np.mean([run["offscreen_cpu_s"] for run in offscreen]))
    return {"viewport": "x".join(map(str, view["size"])),
            "window frames/s": window_fps,
            "window frames/s, each span": ", ".join(f"{fps:.3g}" for fps in played["window_fps"]),
            "offscreen draws/s, same view and size": offscreen_fps,
            "offscreen draws/s, each run": ", ".join(f"{run['offscreen_fps']:.3g}" for run in offscreen),
            "window_fps_vs_offscreen_draw": window_fps / offscreen_fps,
            "CPU ms per frame, window / offscreen": f"{np.mean(played['window_cpu_s']) * 1e3:.1f} / "
                                                     f"{offscreen_cpu * 1e3:.1f}",
            "window_ragdoll_speed_vs_realtime": played["ragdoll_speed"]}


def _large_model(folder: Path) -> str:
    """The 100k-vertex tube with its waving clip, written as a glTF in ``folder``."""
    from app.export.gltf import export_gltf
    from benchmarks.render import skinned_tube, waving_clip

    tube = skinned_tube()
    tube.clips.append(waving_clip(tube))
    path = folder / "tube_100k.glb"
    export_gltf(tube, path, clips=tube.clips)
    return str(path)


def run(paths: list[str] | None = None) -> dict:
    """The demo's (or ``paths``') window figures; without ``paths`` also the 100k tube's frame rates."""
    result = window_vs_offscreen(paths or [])
    if not paths:
        mixed = window_vs_offscreen([], ragdoll=False, mix=True)
        result.update({f"mix: {key}": value for key, value in mixed.items()
                       if key not in ("window_fps_vs_offscreen_draw", "window_ragdoll_speed_vs_realtime")})
        result["window_fps_mix_vs_offscreen_draw"] = mixed["window_fps_vs_offscreen_draw"]
        with tempfile.TemporaryDirectory() as folder:
            large = window_vs_offscreen([_large_model(Path(folder))], ragdoll=False)
        result.update({f"100k tube: {key}": value for key, value in large.items()
                       if key not in ("window_fps_vs_offscreen_draw", "window_ragdoll_speed_vs_realtime")})
        result["window_fps_vs_offscreen_draw_100k"] = large["window_fps_vs_offscreen_draw"]
    return result


def _child_main(argv: list[str]) -> int:
    mode, *paths = argv
    view = None
    if paths[:1] == ["--view"]:
        view, paths = json.loads(paths[1]), paths[2:]
    if mode.startswith("window"):
        result = _window(paths, ragdoll=mode == "window", mix=mode == "window-mix")
    else:
        result = _offscreen(paths, view, mix=mode == "offscreen-mix")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        sys.exit(_child_main(sys.argv[2:]))
    for key, value in run(sys.argv[1:]).items():
        print(f"  {key:<45} {value:.4g}" if isinstance(value, float) else f"  {key:<45} {value}")
