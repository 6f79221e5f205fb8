"""Load benchmark for the BonesPro structure reader: `python -m benchmarks.text [vertices]`.

A structure file with ``vertices`` vertices and 4 weights each is written once; then
- the reader's load time is compared with ``numpy.fromstring(text, sep=" ")`` over the file's
  vertex section (the whole file cannot be given to fromstring: the bone names are not numbers),
  goal ≤ 1.5×;
- the peak traced memory while loading (tracemalloc) is compared with the size of the model's
  final arrays, goal ≤ 4×.
"""

from __future__ import annotations

import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

from app.formats.bonespro import structure as bonespro
from app.formats.registry import LoadOptions, SniffedFile

BONES = 30
INFLUENCES = 4


def write_structure(path: Path, vertices: int, bones: int = BONES, mixed: bool = False) -> int:
    """Write a structure file; returns the byte offset where the vertex section starts.

    ``mixed``: vertices alternate in runs between 4 and 2 influences (the reader's slower path).
    """
    rng = np.random.default_rng(0)
    header = [str(bones), str(vertices)]
    for bone in range(bones):
        matrix = "1 0 0\n0 1 0\n0 0 1\n" + " ".join(str(v) for v in rng.uniform(-10, 10, 3))
        header += [f"<Bip01 Bone {bone}>", "*" if bone == 0 else str(bone - 1), "1 1 1", matrix, matrix]
    head = ("\n".join(header) + "\n").encode()
    positions = rng.uniform(-100, 100, (vertices, 3))
    joints = rng.integers(0, bones, (vertices, INFLUENCES))
    weights = rng.dirichlet(np.ones(INFLUENCES), vertices)
    with open(path, "wb") as handle:
        handle.write(head)
        for chunk in range(0, vertices, 100_000):
            rows = slice(chunk, min(chunk + 100_000, vertices))
            lines = []
            for index, (p, j, w) in enumerate(zip(positions[rows], joints[rows], weights[rows])):
                count = 2 if mixed and (chunk + index) // 50 % 2 else INFLUENCES
                pairs = "\n".join(f"{j[k]} {w[k] / w[:count].sum():.6f}" for k in range(count))
                lines.append(f"{p[0]:.6f} {p[1]:.6f} {p[2]:.6f}\n{count}\n{pairs}\n")
            handle.write("".join(lines).encode())
    return len(head)


def load(path: Path):
    return bonespro.load([SniffedFile(path, "bonespro", "structure")], LoadOptions())


def final_bytes(model) -> int:
    """Bytes of the arrays the model keeps: mesh arrays and skeleton arrays."""
    arrays = [a for mesh in model.meshes for a in (mesh.positions, mesh.joints, mesh.weights)]
    skeleton = model.skeleton
    arrays += [skeleton.parents, skeleton.bind_world, skeleton.heads, skeleton.tails, skeleton.derived_tails]
    return sum(a.nbytes for a in arrays)


def measure(path: Path, section_start: int) -> dict:
    section = path.read_bytes()[section_start:]
    started = time.perf_counter()
    np.fromstring(section, sep=" ")
    baseline = time.perf_counter() - started
    del section
    started = time.perf_counter()
    model = load(path)
    load_time = time.perf_counter() - started
    arrays = final_bytes(model)
    del model
    tracemalloc.start()
    model = load(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"file_bytes": path.stat().st_size, "vertices": model.vertex_count,
            "fromstring_s": round(baseline, 3), "load_s": round(load_time, 3),
            "time_ratio": round(load_time / baseline, 3), "peak_bytes": peak, "final_bytes": arrays,
            "memory_ratio": round(peak / arrays, 3)}


def run(vertices: int = 1_000_000, mixed: bool = False) -> dict:
    """Write the file in a temporary folder, measure, and return the figures."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "structure.txt"
        section_start = write_structure(path, vertices, mixed=mixed)
        return measure(path, section_start)


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    print({"uniform": run(count)})
    print({"mixed runs of 50": run(count, mixed=True)})
