"""Load benchmarks for the FBX and BVH readers: `python -m benchmarks.fbx_bvh [FILE.fbx]`.

- ``fbx_vs_glb_load``: loading a skinned, animated FBX (``loading.load``: read, posed tails) over
  loading the GLB ``convert`` writes from it, both in this process, the best of 5 interleaved runs
  each, goal ≤ 1.5. The FBX is the file given (a Mixamo character, say), else one written here: a
  12,800-quad strip skinned to a 40-bone chain (two influences a vertex) with a 10 s stack of
  rotation keys on every bone, in FBX 7.4 ASCII (tests/writers/fbx_ascii_writer.py).
- ``bvh_parse_vs_fromstring``: reading a 2.6 MB BVH take (CMU's 01_01 skeleton from the corpus,
  its frames repeated to 3,500) over ``numpy.fromstring`` of its motion block, CPU time (the
  machines are shared), best of 5 each, goal ≤ 1.5.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from app import loading
from app.export.gltf import export_gltf
from app.formats import bvh
from tests.paths import CORPUS
from tests.writers.fbx_ascii_writer import Bone, Curve, MeshSpec, Stack, write_fbx

BONES = 40
ROWS = 320
COLUMNS = 40
SECONDS = 10.0
KEYS = 301
TAKE_FRAMES = 3500


def best_of(function, repeats: int = 5, clock=time.perf_counter) -> float:
    times = []
    for _ in range(repeats):
        started = clock()
        function()
        times.append(clock() - started)
    return min(times)


def write_strip(path: Path) -> Path:
    """A tall strip of quads, each row of points weighted to the two nearest bones of a chain."""
    bones = [Bone(f"bone{index}", translation=(0.0, 0.0 if index == 0 else 10.0, 0.0),
                  parent=None if index == 0 else index - 1) for index in range(BONES)]
    rows = np.arange(ROWS + 1)
    x, y = np.meshgrid(np.linspace(-5, 5, COLUMNS + 1), rows * (10.0 * BONES / ROWS))
    points = np.stack([x.ravel(), y.ravel(), np.zeros(x.size)], axis=1)
    width = COLUMNS + 1
    polygons = [[row * width + column, row * width + column + 1, (row + 1) * width + column + 1,
                 (row + 1) * width + column] for row in range(ROWS) for column in range(COLUMNS)]
    along = points[:, 1] / 10.0
    lower = np.clip(np.floor(along).astype(int), 0, BONES - 1)
    upper = np.clip(lower + 1, 0, BONES - 1)
    share = np.clip(along - lower, 0, 1)
    influences = {}
    for bone in range(BONES):
        chosen = np.flatnonzero((lower == bone) | (upper == bone))
        weights = np.where(lower[chosen] == bone, 1 - share[chosen], 0) + \
            np.where((upper[chosen] == bone) & (upper[chosen] != lower[chosen]), share[chosen], 0)
        influences[bone] = (chosen.tolist(), weights.tolist())
    bind = {index: np.array([[1, 0, 0, 0], [0, 1, 0, 10.0 * index], [0, 0, 1, 0], [0, 0, 0, 1]])
            for index in range(BONES)}
    times = tuple(np.linspace(0, SECONDS, KEYS))
    curves = [Curve(bone, "Z", times, tuple(20 * np.sin(np.array(times) * 2 + bone * 0.3)))
              for bone in range(BONES)]
    mesh = MeshSpec(points=points, polygons=polygons, influences=influences, bind=bind)
    return write_fbx(path, bones, mesh, [Stack("wave", SECONDS, curves)])


def fbx_vs_glb(source: Path | None, folder: Path) -> dict:
    fbx_path = source or write_strip(folder / "strip.fbx")
    glb_path = folder / "converted.glb"
    model = loading.load([fbx_path])
    export_gltf(model, glb_path)
    fbx_times, glb_times = [], []
    for _ in range(5):
        fbx_times.append(best_of(lambda: loading.load([fbx_path]), 1))
        glb_times.append(best_of(lambda: loading.load([glb_path]), 1))
    fbx_time, glb_time = min(fbx_times), min(glb_times)
    return {"fbx file": fbx_path.name, "fbx MB": round(fbx_path.stat().st_size / 1e6, 2),
            "vertices": model.vertex_count, "bones": len(model.skeleton), "fbx load s": fbx_time,
            "glb load s": glb_time, "fbx_vs_glb_load": fbx_time / glb_time}


def long_take(path: Path) -> tuple[Path, bytes]:
    """The corpus's CMU take with its frames repeated to TAKE_FRAMES; the file and its motion block."""
    text = (CORPUS / "cmu-bvh" / "01_01_first240.bvh").read_bytes()
    hierarchy, motion = text.split(b"MOTION", 1)
    lines = motion.strip().split(b"\n")
    frames = [lines[2 + index % (len(lines) - 2)] for index in range(TAKE_FRAMES)]
    block = b"\n".join(frames) + b"\n"
    path.write_bytes(hierarchy + b"MOTION\n" + f"Frames: {TAKE_FRAMES}\n".encode() + lines[1] + b"\n" + block)
    return path, block


def bvh_vs_fromstring(folder: Path) -> dict:
    path, block = long_take(folder / "take.bvh")
    baseline = best_of(lambda: np.fromstring(block, sep=" "), clock=time.process_time)
    reading = best_of(lambda: bvh.read(path), clock=time.process_time)
    return {"bvh MB": round(path.stat().st_size / 1e6, 2), "bvh read CPU s": reading,
            "fromstring CPU s": baseline, "bvh_parse_vs_fromstring": reading / baseline}


def run(source: str | None = None) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        fbx = fbx_vs_glb(Path(source) if source else None, Path(folder))
        return {**fbx, **bvh_vs_fromstring(Path(folder))}


if __name__ == "__main__":
    for key, value in run(sys.argv[1] if len(sys.argv) > 1 else None).items():
        print(f"{key:<28} {value:.4g}" if isinstance(value, float) else f"{key:<28} {value}")
