"""glTF export throughput on a large model: ``python -m benchmarks.convert``; ``run()`` returns the figures.

The model: 120 000 vertices (4 influences, normals, uvs, 40 000 triangles), 64 bones, a keyed clip
and a 'matrices' clip of 300 frames each. ``export_gltf`` to .glb is timed (best of three) and shown
as MB/s written and vertices/s, with the ratio against a baseline measured in the same process:
``numpy.tofile`` of the same vertex, index, skin and animation arrays (what the .glb's binary chunk
holds), i.e. the cost of the bytes alone. Then ``boneyard convert`` runs as a separate process on the
same mesh and matrices clip written as C3DE files (a seed format), to check the command line end to end.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from app import maths
from app.export.gltf import export_gltf
from app.bone_tree import hierarchy_levels
from app.model import Clip, Mesh, Model, Skeleton, Track
from app.pose import compose_world
from tests.writers.c3de_writer import write_bones_2010, write_mesh

VERTICES = 120_000
BONES = 64
FRAMES = 300
FPS = 30.0


def large_model() -> Model:
    """A random tree of ``BONES`` bones, one skinned mesh, a keyed and a matrices clip."""
    rng = np.random.default_rng(0)
    parents = np.array([-1] + [int(rng.integers(max(0, b - 4), b)) for b in range(1, BONES)])
    local = maths.compose_trs(rng.uniform(-0.3, 0.3, (BONES, 3)) + [0, 0.2, 0],
                              maths.quat_normalize(rng.normal(size=(BONES, 4)) * [0.2, 0.2, 0.2, 1]),
                              np.ones((BONES, 3)))
    local[0] = np.eye(4)
    bind = local.copy()
    for level in hierarchy_levels(parents)[1:]:
        bind[level] = bind[parents[level]] @ local[level]
    heads = bind[:, :3, 3]
    skeleton = Skeleton([f"bone{i:02d}" for i in range(BONES)], parents, bind, heads, heads + [0, 0.1, 0],
                        np.zeros(BONES, bool))
    positions = heads[rng.integers(0, BONES, VERTICES)] + rng.normal(scale=0.05, size=(VERTICES, 3))
    normals, _ = maths.normalize(rng.normal(size=(VERTICES, 3)))
    joints = rng.integers(0, BONES, (VERTICES, 4))
    weights = rng.dirichlet(np.ones(4), VERTICES)
    triangles = rng.permutation(VERTICES).reshape(-1, 3)
    mesh = Mesh("body", positions, joints, weights, normals=normals, uvs=rng.random((VERTICES, 2)),
                triangles=triangles)
    times = np.arange(FRAMES) / FPS
    # Keyed: every bone turns about its own axis, the root also moves.
    axes, _ = maths.normalize(rng.normal(size=(BONES, 3)))
    rest = maths.decompose_trs(skeleton.bind_local)[1]
    turns = maths.quat_from_axis_angle(np.broadcast_to(axes, (FRAMES, BONES, 3)),
                                       0.5 * np.sin(times[:, None] + np.arange(BONES)))
    rotations = maths.quat_multiply(np.broadcast_to(rest, (FRAMES, BONES, 4)), turns)
    root_path = np.stack([np.sin(times), np.zeros(FRAMES), np.cos(times)], axis=1)
    keyed = Clip("keyed", "keyed", tracks=[
        Track(bone, rotation=(times, rotations[:, bone]),
              translation=(times, root_path) if bone == 0 else None)
        for bone in range(BONES)])
    # Matrices: another motion, as world matrices at every frame.
    spins = maths.quat_to_matrix(maths.quat_from_axis_angle(np.broadcast_to(axes, (FRAMES, BONES, 3)),
                                                            0.4 * np.cos(times[:, None] + np.arange(BONES))))
    world = np.stack([compose_world(skeleton, skeleton.bind_local @ spin) for spin in spins])
    matrices = Clip("matrices", "matrices", times=times, world=world)
    return Model("bench", skeleton, [mesh], [keyed, matrices], format="bench", up_axis="Z")


def _baseline_arrays(model: Model) -> list[np.ndarray]:
    """The arrays a .glb of ``model`` holds, in their file types."""
    mesh, skeleton = model.meshes[0], model.skeleton
    arrays = [mesh.positions, mesh.normals, mesh.uvs, mesh.joints.astype(np.uint8), mesh.weights,
              mesh.triangles.astype(np.uint32), skeleton.bind_inverse.astype(np.float32)]
    keyed, matrices = model.clips
    for track in keyed.tracks:
        for keys in (track.translation, track.rotation):
            if keys is not None:
                arrays += [keys[0].astype(np.float32), keys[1].astype(np.float32)]
    local = np.linalg.inv(matrices.world[:, np.maximum(skeleton.parents, 0)]) @ matrices.world
    translations, rotations, scales, _ = maths.decompose_trs(local)
    for bone in range(len(skeleton)):
        arrays += [matrices.times.astype(np.float32)] * 3
        arrays += [translations[:, bone].astype(np.float32), rotations[:, bone].astype(np.float32),
                   scales[:, bone].astype(np.float32)]
    return arrays


def _write_arrays(arrays: list[np.ndarray], path: Path) -> None:
    with open(path, "wb") as handle:
        for array in arrays:
            np.ascontiguousarray(array).tofile(handle)


def _best(function, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return min(times)


def _command_line(model: Model, folder: Path) -> dict:
    """``boneyard convert`` on C3DE files of the same mesh (2 influences) and matrices clip."""
    mesh, skeleton = model.meshes[0], model.skeleton
    order = np.argsort(-mesh.weights, axis=1)[:, :2]
    bone0, bone1 = np.take_along_axis(mesh.joints, order, 1).T
    top = np.take_along_axis(mesh.weights, order, 1)
    weight0 = top[:, 0] / top.sum(axis=1)
    (folder / "big.c3d").write_bytes(write_mesh(mesh.positions, bone0, bone1, weight0, mesh.uvs,
                                                mesh.normals))
    skinning = model.clips[1].world @ skeleton.bind_inverse
    bones = write_bones_2010(skeleton.bind_world, skeleton.heads, skeleton.tails, skinning, skeleton.parents)
    (folder / "bigbones.c3d").write_bytes(bones)
    output = folder / "big_cli.glb"
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "app", "convert", str(folder / "big.c3d"),
                             str(folder / "bigbones.c3d"), "-o", str(output)], capture_output=True, text=True,
                            timeout=600, check=False)
    seconds = time.perf_counter() - started
    if result.returncode != 0 or not output.is_file():
        return {"boneyard convert": f"FAILED (exit {result.returncode}): {result.stderr.strip()[-300:]}"}
    size = output.stat().st_size
    return {"boneyard convert c3de → glb, process (s)": seconds,
            "boneyard convert output (MB)": size / 1e6}


def run() -> dict:
    model = large_model()
    results = {"vertices": model.vertex_count, "bones": len(model.skeleton),
               "frames per clip": FRAMES}
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        glb = folder / "big.glb"
        warnings: list[str] = []
        export = _best(lambda: warnings.extend(export_gltf(model, glb)))
        size = glb.stat().st_size
        arrays = _baseline_arrays(model)
        baseline = _best(lambda: _write_arrays(arrays, folder / "baseline.bin"))
        baseline_size = (folder / "baseline.bin").stat().st_size
        results.update({
            "export .glb (s)": export,
            "export .glb (MB)": size / 1e6,
            "export .glb (MB/s)": size / 1e6 / export,
            "export .glb (vertices/s)": model.vertex_count / export,
            "baseline numpy.tofile (MB/s)": baseline_size / 1e6 / baseline,
            "ratio export / tofile (time per MB)": (export / size) / (baseline / baseline_size),
        })
        if warnings:
            results["export warnings"] = len(warnings)
        results.update(_command_line(model, folder))
    return results


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
