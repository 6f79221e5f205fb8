"""``make bench``'s batch and animation figures (docs/benchmarks.md):

- ``batch_render_vs_f3d``: 512×512 thumbnails of a library of 100+ models by ``boneyard batch render
  --jobs N`` against f3d, one fresh process per file, N at a time (``xargs -P N``);
- ``batch_render_per_model_ms``: one worker's time per small model after its first;
- ``video_encode_overhead``: a 300-frame 1280×720 MP4 against rendering the same frames to memory;
- ``render_vs_floor``, ``render_fox_vs_floor``: a fresh ``boneyard render`` of the demo, and of the
  textured Fox, against the floor any such Python program pays (a fresh process that imports numpy
  and Pillow, makes the EGL context, draws one triangle and saves the PNG).
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from app.cli.batch.run import default_jobs
from app.loading import load
from app.resources import demo_paths
from benchmarks.bench import F3D_RENDER, best_interleaved, installed_env, wall
from tests.demo_formats import WRITERS
from tests.paths import CORPUS

#: Models in the benchmark's library.
LIBRARY_SIZE = 104

#: The floor: what any Python program that renders a PNG with EGL pays in a fresh process.
FLOOR = """
import sys
import numpy as np
from PIL import Image
import moderngl
ctx = moderngl.create_standalone_context(require=330, backend="egl")
program = ctx.program(vertex_shader="#version 330\\nin vec2 p; void main() { gl_Position = vec4(p, 0, 1); }",
                      fragment_shader="#version 330\\nout vec4 c; void main() { c = vec4(1, 0.5, 0, 1); }")
buffer = ctx.buffer(np.array([-1, -1, 1, -1, 0, 1], "f4").tobytes())
target = ctx.simple_framebuffer((1280, 720))
target.use()
target.clear(0.2, 0.2, 0.2, 1)
ctx.vertex_array(program, [(buffer, "2f", "p")]).render()
Image.frombytes("RGBA", (1280, 720), target.read(components=4)).save(sys.argv[1])
"""


def build_library(folder: Path) -> list[Path]:
    """LIBRARY_SIZE models under ``folder / "library"``: the demo in every format, the glTF corpus,
    and copies of the demo and of the corpus's GLB files. Returns, for f3d, one glTF file per model
    (the legacy formats converted by ``boneyard convert`` into ``folder / "converted"``)."""
    model = load(demo_paths())
    library, converted = folder / "library", folder / "converted"
    converted.mkdir(parents=True)
    gltf_files = []
    for name, write in WRITERS.items():
        (library / name).mkdir(parents=True)
        paths = write(model, library / name)
        gltf_files.append(converted / f"{name}.glb")
        subprocess.run([sys.executable, "-m", "app", "convert", *map(str, paths), "-o", str(gltf_files[-1])],
                       check=True, capture_output=True)
    shutil.copytree(CORPUS, library / "corpus")
    shutil.copy(demo_paths()[0], library / "demo.glb")
    corpus = sorted(p for p in (library / "corpus").rglob("*") if p.suffix in (".glb", ".gltf"))
    gltf_files += [library / "demo.glb", *corpus]
    sources = [library / "demo.glb", *(p for p in corpus if p.suffix == ".glb")]
    for copy in range(LIBRARY_SIZE - len(gltf_files)):
        gltf_files.append(library / f"copy_{copy}.glb")
        shutil.copy(sources[copy % len(sources)], gltf_files[-1])
    return gltf_files


def bench_batch_vs_f3d(rounds: int = 2) -> dict:
    if importlib.util.find_spec("f3d") is None:
        return {"skipped": "f3d not installed (make bench installs it: pip install -e '.[bench]')"}
    jobs = default_jobs()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        f3d_files = build_library(folder)
        env = installed_env(str(folder / "bytecode"))
        ours = [sys.executable, "-m", "app", "batch", "render", str(folder / "library"), "-o",
                str(folder / "out"), "--size", "512x512", "--jobs", str(jobs), "--report",
                str(folder / "report.jsonl")]
        script = F3D_RENDER.replace("(1280, 720)", "(512, 512)")
        theirs = ["xargs", "-P", str(jobs), "-I{}", sys.executable, "-c", script, "{}", "{}.png"]
        listing = "\n".join(map(str, f3d_files)).encode()

        def run_f3d() -> float:
            start = time.perf_counter()
            subprocess.run(theirs, input=listing, capture_output=True, timeout=1200, env=env)
            return time.perf_counter() - start

        def run_ours() -> float:
            shutil.rmtree(folder / "out", ignore_errors=True)
            start = time.perf_counter()
            subprocess.run(ours, capture_output=True, timeout=1200, env=env)
            return time.perf_counter() - start

        run_ours()  # bytecode
        ours_times, f3d_times = [], []
        for _ in range(rounds):
            ours_times.append(run_ours())
            f3d_times.append(run_f3d())
        lines = [json.loads(line) for line in (folder / "report.jsonl").read_text().splitlines()]
        drawn = sum(1 for path in f3d_files if Path(f"{path}.png").exists())
    ok = sum(line["status"] == "ok" for line in lines)
    return {"models": len(lines), "ok": ok, "f3d files": len(f3d_files), "f3d pictures": drawn, "jobs": jobs,
            "batch render (s)": min(ours_times), "f3d one process per file (s)": min(f3d_times),
            "batch_render_vs_f3d": min(ours_times) / min(f3d_times)}


def bench_per_model(copies: int = 40) -> dict:
    """One worker rendering ``copies`` small models (BoxAnimated: 320 vertices, 4 bones, one clip), as
    ``batch render`` draws thumbnails (FXAA) and, beside it, with ``--antialias msaa``."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        (folder / "library").mkdir()
        for index in range(copies):
            shutil.copy(CORPUS / "BoxAnimated" / "BoxAnimated.gltf", folder / "library" / f"box{index}.gltf")
        for extra in (CORPUS / "BoxAnimated").iterdir():
            if extra.suffix != ".gltf":
                shutil.copy(extra, folder / "library")
        figures = {}
        for antialias in ("msaa", "fxaa"):
            subprocess.run([sys.executable, "-m", "app", "batch", "render", str(folder / "library"), "-o",
                            str(folder / "out"), "--size", "512x512", "--jobs", "1", "--report",
                            str(folder / "report.jsonl"), "--antialias", antialias],
                           check=True, capture_output=True, timeout=600)
            lines = [json.loads(line) for line in (folder / "report.jsonl").read_text().splitlines()]
            assert all(line["status"] == "ok" for line in lines), lines
            seconds = sorted(line["seconds"] for line in lines[1:])
            figures[antialias] = (lines[0]["seconds"] * 1e3, seconds[len(seconds) // 2] * 1e3,
                                  sum(seconds) / len(seconds) * 1e3)
    first, median, mean = figures["fxaa"]
    return {"first model (ms)": first, "median after the first (ms)": median,
            "mean after the first, --antialias msaa (ms)": figures["msaa"][2],
            "batch_render_per_model_ms": mean}


def bench_video(frames: int = 300, size: tuple[int, int] = (1280, 720)) -> dict:
    """The demo's idle clip (3 s) at 100 frames a second: rendered to memory, then to an MP4."""
    from app.render import video
    from app.render.offscreen import OffscreenRenderer
    from app.scene.draw_settings import DrawSettings

    model = load(demo_paths())
    clip = model.clips[1]
    times = video.run_times(0.0, clip.duration, (frames - 1) / clip.duration)
    options = DrawSettings()
    with OffscreenRenderer() as offscreen, tempfile.TemporaryDirectory() as folder:
        for _ in video.render_frames(offscreen, model, clip, times[:5], size, options, "iso", False):
            pass  # warm-up: shaders, buffers
        memory, encoded = [], []
        for _ in range(2):
            start = time.perf_counter()
            for _ in video.render_frames(offscreen, model, clip, times, size, options, "iso", False):
                pass
            memory.append(time.perf_counter() - start)
            start = time.perf_counter()
            video.write_animation(Path(folder) / "idle.mp4", "mp4",
                                  video.render_frames(offscreen, model, clip, times, size, options, "iso",
                                                      False),
                                  (frames - 1) / clip.duration, len(times))
            encoded.append(time.perf_counter() - start)
    return {"frames": len(times), "to memory (s)": min(memory), "to MP4 (s)": min(encoded),
            "video_encode_overhead": min(encoded) / min(memory)}


def bench_floor(rounds: int = 7) -> dict:
    """A fresh ``render`` of the demo and of the textured Fox (1280×720 each) against the floor: the
    best of ``rounds`` interleaved runs each, after one run of each that writes the bytecode."""
    with tempfile.TemporaryDirectory() as folder:
        env = installed_env(str(Path(folder) / "bytecode"))
        commands = {"render": [sys.executable, "-m", "app", "render", "--demo", "-o",
                               str(Path(folder) / "a.png")],
                    "fox": [sys.executable, "-m", "app", "render", str(CORPUS / "Fox" / "Fox.glb"), "-o",
                            str(Path(folder) / "c.png")],
                    "floor": [sys.executable, "-c", FLOOR, str(Path(folder) / "b.png")]}
        for command in commands.values():
            wall(command, env)
        times = best_interleaved(commands, env, rounds)
    render, fox, floor = times["render"], times["fox"], times["floor"]
    return {"render --demo process (s)": render, "render Fox.glb process (s)": fox,
            "floor process (s)": floor, "render_vs_floor": render / floor, "render_fox_vs_floor": fox / floor}
