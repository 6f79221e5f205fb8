"""Loading throughput of the binary readers on large synthetic files (goal ≥ 200 MB/s).

``python -m benchmarks.binary`` prints the figures; ``run()`` returns them as a dict.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import numpy as np

from app import loading
from app.formats import c3de
from app.formats.nwn import binary
from app.formats.nwn import supermodels
from app.formats.registry import LoadOptions, SniffedFile
from tests.writers.c3de_writer import write_bones_2010, write_mesh
from tests.writers.nwn_writer import WNode, write_mdl

VERTICES_PER_NODE = 65535


def _nwn_file(nodes: int) -> bytes:
    rng = np.random.default_rng(0)
    children = []
    for number in range(nodes):
        vertices = rng.normal(size=(VERTICES_PER_NODE, 3))
        faces = rng.integers(0, VERTICES_PER_NODE, size=(VERTICES_PER_NODE, 3))
        extra = {}
        if number % 2:
            extra = dict(skin_bones=[["root", f"part{number - 1}", None, None]] * VERTICES_PER_NODE,
                         skin_weights=np.tile([0.5, 0.5, 0.0, 0.0], (VERTICES_PER_NODE, 1)))
        children.append(WNode(f"part{number}", 0x061 if number % 2 else 0x021, (0, 0, number), (0, 0, 0, 1),
                              vertices=vertices, faces=faces, uvs=rng.random((VERTICES_PER_NODE, 2)),
                              normals=vertices, **extra))
    return write_mdl("bench", WNode("root", position=(0, 0, 0), children=children))


def _c3de_files(vertices: int, frames: int, bones: int) -> tuple[bytes, bytes]:
    rng = np.random.default_rng(1)
    mesh = write_mesh(rng.normal(size=(vertices, 3)), rng.integers(0, bones, vertices),
                      rng.integers(-1, bones, vertices), rng.random(vertices), rng.random((vertices, 2)))
    bind = np.broadcast_to(np.eye(4), (bones, 4, 4))
    skinning = np.broadcast_to(np.eye(4), (frames, bones, 4, 4))
    return mesh, write_bones_2010(bind, np.zeros((bones, 3)), np.ones((bones, 3)), skinning,
                                  np.full(bones, -1))


def _throughput(load, files: list[SniffedFile], repeats: int = 3) -> tuple[float, float]:
    """Megabytes read and megabytes per second, the load stage's posing included (the C3DE fit check)."""
    size = sum(Path(f.path).stat().st_size for f in files)
    def load_and_finish(given, options):
        return loading.finish(load(given, options))

    best = min(_timed(load_and_finish, files) for _ in range(repeats))
    return size / 1e6, size / 1e6 / best


def _timed(load, files) -> float:
    started = time.perf_counter()
    load(files, LoadOptions())
    return time.perf_counter() - started


def run() -> dict:
    """{reader: {"megabytes": file size, "mb_per_s": best of three loads}}; for NWN also the parse
    alone (checks and arrays, without building the Model: ``derive_tails`` dominates the rest)."""
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        (folder / "bench.mdl").write_bytes(_nwn_file(12))
        size, speed = _throughput(supermodels.load, [SniffedFile(folder / "bench.mdl", "nwn_mdl", "model")])
        data = (folder / "bench.mdl").read_bytes()
        parse_seconds = min(_timed(lambda files, options: binary.parse(folder / "bench.mdl", data), [])
                            for _ in range(3))
        results["nwn_mdl"] = {"megabytes": round(size, 1), "mb_per_s": round(speed, 1),
                              "parse_only_mb_per_s": round(size / parse_seconds, 1)}
        mesh, bones = _c3de_files(900_000, 4000, 100)
        (folder / "mesh.c3d").write_bytes(mesh)
        (folder / "bones.c3d").write_bytes(bones)
        size, speed = _throughput(c3de.load, [SniffedFile(folder / "mesh.c3d", "c3de", "mesh"),
                                              SniffedFile(folder / "bones.c3d", "c3de", "bones")])
        results["c3de"] = {"megabytes": round(size, 1), "mb_per_s": round(speed, 1)}
    return results


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
