"""``make bench``: every benchmark, printed as figures and as ratios against a baseline measured in
the same process (these machines are noisy, so absolute times alone mean little).

Run as ``python -m benchmarks.bench`` (or ``python -m benchmarks.bench pose render`` for some of them).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app import maths
from app.model import Clip, Model, Skeleton, Track
from app.pose import evaluate
from app.resources import demo_paths


def best_of(function, repeats: int = 5, number: int = 1) -> float:
    """The fastest of ``repeats`` runs of ``number`` calls, in seconds per call."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            function()
        times.append((time.perf_counter() - start) / number)
    return min(times)


def _long_skeleton_model(count: int) -> tuple[Model, Clip]:
    rng = np.random.default_rng(0)
    parents = np.array([-1] + [int(rng.integers(0, b)) for b in range(1, count)])
    bind = maths.translation(rng.normal(size=(count, 3)))
    heads = bind[:, :3, 3]
    skeleton = Skeleton([f"b{i}" for i in range(count)], parents, bind, heads, heads + 0.1,
                        np.zeros(count, bool))
    tracks = [Track(b, rotation=(np.linspace(0, 1, 30), maths.quat_normalize(rng.normal(size=(30, 4)))),
                    translation=(np.linspace(0, 1, 10), rng.normal(size=(10, 3)))) for b in range(count)]
    clip = Clip("random", "keyed", tracks=tracks)
    return Model("bench", skeleton, clips=[clip]), clip


def _per_bone_reference(model: Model, clip: Clip, time_: float) -> np.ndarray:
    """A straightforward per-bone loop: the baseline the vectorised evaluator is measured against."""
    world = np.zeros((len(model.skeleton), 4, 4))
    local = model.skeleton.bind_local.copy()
    for track in clip.tracks:
        times, values = track.rotation
        i = min(max(int(np.searchsorted(times, time_, side="right")) - 1, 0), len(times) - 2)
        f = float(np.clip((time_ - times[i]) / (times[i + 1] - times[i]), 0, 1))
        rotation = maths.slerp(values[i], values[i + 1], f)
        times, values = track.translation
        j = min(max(int(np.searchsorted(times, time_, side="right")) - 1, 0), len(times) - 2)
        g = float(np.clip((time_ - times[j]) / (times[j + 1] - times[j]), 0, 1))
        offset = values[j] + g * (values[j + 1] - values[j])
        local[track.bone] = maths.compose_trs(offset, rotation, np.ones(3))
    for level in model.skeleton.levels:
        for bone in level:
            parent = model.skeleton.parents[bone]
            world[bone] = local[bone] if parent < 0 else world[parent] @ local[bone]
    return world


def bench_pose() -> dict:
    model, clip = _long_skeleton_model(200)
    assert np.allclose(evaluate(model, clip, 0.37).world, _per_bone_reference(model, clip, 0.37))
    vectorised = best_of(lambda: evaluate(model, clip, 0.37), number=20)
    reference = best_of(lambda: _per_bone_reference(model, clip, 0.37), number=3)
    return {"pose eval, 200 bones (ms)": vectorised * 1e3,
            "per-bone loop baseline (ms)": reference * 1e3,
            "ratio vectorised / loop": vectorised / reference}


def wall(args: list[str], env: dict[str, str] | None = None) -> float:
    """Seconds a fresh process running ``args`` takes, start to exit."""
    start = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True, timeout=300, env=env)
    return time.perf_counter() - start


def best_interleaved(commands: dict[str, list[str]], env: dict[str, str], rounds: int) -> dict[str, float]:
    """Each command's best wall time over ``rounds`` rounds that run every command once in turn, so a
    busy spell of the machine slows them alike."""
    times = {name: [] for name in commands}
    for _ in range(rounds):
        for name, command in commands.items():
            times[name].append(wall(command, env))
    return {name: min(runs) for name, runs in times.items()}


def bench_render_process() -> dict:
    python = sys.executable
    bare = min(wall([python, "-c", "pass"]) for _ in range(3))
    imports = min(wall([python, "-c", "import app.cli.commands, app.render.offscreen, app.formats"])
                  for _ in range(3))
    with tempfile.TemporaryDirectory() as folder:
        out = str(Path(folder) / "demo.png")
        render = min(wall([python, "-m", "app", "render", "--demo", "--time", "0.5", "-o", out])
                     for _ in range(3))
    return {"python start (s)": bare, "import app (s)": imports, "render --demo process (s)": render,
            "ratio import / bare python": imports / bare, "ratio render / bare python": render / bare}


#: f3d's offscreen render of argv[1] into argv[2] at 1280×720, as its Python module offers it (the wheel
#: has no command-line executable).
F3D_RENDER = """
import sys
import f3d
engine = f3d.Engine.create(True)
engine.window.size = (1280, 720)
engine.scene.add(sys.argv[1])
engine.window.render_to_image().save(sys.argv[2])
"""


def installed_env(bytecode_folder: str) -> dict[str, str]:
    """This environment with Python writing and reading bytecode (kept in ``bytecode_folder``), as an
    installed app has its .pyc files: without them every fresh process compiles every module again."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = bytecode_folder
    return env


def bench_render_vs_f3d(rounds: int = 7) -> dict:
    """A fresh ``boneyard render`` of the demo glTF at 1280×720 against a fresh f3d process rendering
    the same file at the same size: the best of ``rounds`` interleaved runs each, after a warm-up run
    of both that writes the bytecode."""
    if importlib.util.find_spec("f3d") is None:
        return {"skipped": "f3d not installed (make bench installs it: pip install -e '.[bench]')"}
    from PIL import Image

    python = sys.executable
    model = str(demo_paths()[0])
    with tempfile.TemporaryDirectory() as folder:
        env = installed_env(str(Path(folder) / "bytecode"))
        ours, theirs = Path(folder) / "boneyard.png", Path(folder) / "f3d.png"
        commands = {"boneyard": [python, "-m", "app", "render", model, "-o", str(ours), "--size", "1280x720"],
                    "f3d": [python, "-c", F3D_RENDER, model, str(theirs)]}
        for command in commands.values():
            wall(command, env)
        for picture in (ours, theirs):
            with Image.open(picture) as image:
                assert image.size == (1280, 720), f"{picture.name} is {image.size}"
        times = best_interleaved(commands, env, rounds)
    render, f3d = times["boneyard"], times["f3d"]
    return {"render demo process, 1280x720 (s)": render, "f3d process, same file (s)": f3d,
            "render_vs_f3d": render / f3d}


def _optional(module: str, function: str):
    def run() -> dict:
        try:
            return getattr(importlib.import_module(module), function)()
        except ImportError as error:
            return {"skipped": f"{module} unavailable ({error})"}
    return run


BENCHES = {
    "gpu": _optional("benchmarks.render", "bench_skinned_vs_static"),
    "morph": _optional("benchmarks.render", "bench_morph_skinned_vs_static"),
    "scrub": _optional("benchmarks.render", "bench_scrub"),
    "pose": bench_pose,
    "render": bench_render_process,
    "f3d": bench_render_vs_f3d,
    "text": _optional("benchmarks.text", "run"),
    "binary": _optional("benchmarks.binary", "run"),
    "nwn_ascii": _optional("benchmarks.nwn_ascii", "run"),
    "convert": _optional("benchmarks.convert", "run"),
    "ragdoll": _optional("benchmarks.ragdoll", "run"),
    "window": _optional("benchmarks.window", "run"),
    "batch": _optional("benchmarks.batch", "bench_batch_vs_f3d"),
    "batch_worker": _optional("benchmarks.batch", "bench_per_model"),
    "video": _optional("benchmarks.batch", "bench_video"),
    "floor": _optional("benchmarks.batch", "bench_floor"),
    "fbx_bvh": _optional("benchmarks.fbx_bvh", "run"),
    "clips": _optional("benchmarks.clips", "run"),
    "autosetup": _optional("benchmarks.autosetup", "run"),
}


@dataclass(frozen=True)
class Goal:
    """One line of the closing block: ``goal: NAME VALUE (goal OP TARGET)``; docs/benchmarks.md says
    what each measures."""

    name: str
    bench: str
    figure: Callable[[dict], float | None]
    op: str
    target: float

    def met(self, value: float) -> bool:
        return value <= self.target if self.op == "<=" else value >= self.target


GOALS = (
    Goal("skinned_vs_static", "gpu", lambda r: r.get("lbs_ratio"), "<=", 1.3),
    Goal("morph_skinned_vs_static", "morph", lambda r: r.get("lbs_ratio"), "<=", 1.5),
    Goal("window_fps_vs_offscreen_draw", "window", lambda r: r.get("window_fps_vs_offscreen_draw"),
         ">=", 0.8),
    Goal("window_fps_vs_offscreen_draw_100k", "window", lambda r: r.get("window_fps_vs_offscreen_draw_100k"),
         ">=", 0.8),
    Goal("window_fps_mix_vs_offscreen_draw", "window", lambda r: r.get("window_fps_mix_vs_offscreen_draw"),
         ">=", 0.8),
    Goal("render_vs_f3d", "f3d", lambda r: r.get("render_vs_f3d"), "<=", 0.5),
    Goal("text_parse_vs_fromstring", "text", lambda r: r.get("time_ratio"), "<=", 1.5),
    Goal("nwn_load_mb_per_s", "binary", lambda r: r.get("nwn_mdl", {}).get("mb_per_s"), ">=", 200),
    Goal("c3de_load_mb_per_s", "binary", lambda r: r.get("c3de", {}).get("mb_per_s"), ">=", 200),
    Goal("nwn_ascii_3mb_load_s", "nwn_ascii", lambda r: r.get("load_s"), "<=", 0.5),
    Goal("ragdolls_realtime_awake", "ragdoll",
         lambda r: r.get("ragdolls in real time while all awake"), ">=", 10),
    Goal("powered_ragdolls_realtime", "ragdoll",
         lambda r: r.get("powered_ragdolls_realtime (goal >= 10)"), ">=", 10),
    Goal("ragdolls_realtime_falling", "ragdoll",
         lambda r: r.get("ragdolls in real time over a 6 s fall (goal >= 20)"), ">=", 20),
    Goal("window_ragdoll_speed_vs_realtime", "window", lambda r: r.get("window_ragdoll_speed_vs_realtime"),
         ">=", 0.95),
    Goal("batch_render_vs_f3d", "batch", lambda r: r.get("batch_render_vs_f3d"), "<=", 0.1),
    Goal("batch_render_per_model_ms", "batch_worker", lambda r: r.get("batch_render_per_model_ms"), "<=", 40),
    Goal("video_encode_overhead", "video", lambda r: r.get("video_encode_overhead"), "<=", 1.3),
    Goal("render_vs_floor", "floor", lambda r: r.get("render_vs_floor"), "<=", 1.3),
    Goal("render_fox_vs_floor", "floor", lambda r: r.get("render_fox_vs_floor"), "<=", 1.3),
    Goal("fbx_vs_glb_load", "fbx_bvh", lambda r: r.get("fbx_vs_glb_load"), "<=", 1.5),
    Goal("bvh_parse_vs_fromstring", "fbx_bvh", lambda r: r.get("bvh_parse_vs_fromstring"), "<=", 1.5),
    Goal("info_8000_clips_vs_one_clip", "clips", lambda r: r.get("info_8000_clips_vs_one_clip"), "<=", 1.5),
    Goal("autosetup_500_bones_s", "autosetup", lambda r: r.get("autosetup_500_bones_s"), "<=", 2),
)


def goal_lines(results: dict[str, dict]) -> list[str]:
    """The closing block, one line per goal whose benchmark ran (outside checks parse these lines)."""
    lines = []
    for goal in GOALS:
        if goal.bench not in results:
            continue
        value = goal.figure(results[goal.bench])
        shown = "n/a" if value is None else f"{value:.4g}"
        lines.append(f"goal: {goal.name} {shown} (goal {goal.op} {goal.target:g})")
    return lines


def main(names: list[str]) -> int:
    results = {}
    for name in names or list(BENCHES):
        print(f"== {name}", flush=True)
        results[name] = BENCHES[name]()
        for key, value in results[name].items():
            shown = f"{value:.4g}" if isinstance(value, float) else str(value)
            print(f"  {key:<40} {shown}", flush=True)
    print()
    print("\n".join(goal_lines(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
