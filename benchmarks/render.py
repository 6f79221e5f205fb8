"""Rendering benchmarks, called by the lead's benchmark runner or run as ``python -m benchmarks.render``.

``bench_skinned_vs_static`` times frames of a 100k-vertex, 64-bone tube drawn with GPU skinning against
the same picture drawn from static buffers, offscreen at 1280×720. The goal is a ratio ≤ 1.3.
``bench_morph_skinned_vs_static`` does the same with 8 morph targets on the tube, weighted and skinned
each frame (goal ≤ 1.5).
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from app import maths
from app.model import Clip, Mesh, Model, Skeleton, Track
from app.morph_targets import MorphTargets
from app.pose import evaluate, pose_from_world
from app.render.camera import camera_for
from app.render.offscreen import ImageTargets, OffscreenRenderer
from app.render.renderer import Renderer
from app.scene.draw_settings import DrawSettings


def skinned_tube(vertices: int = 100_000, bones: int = 64, lanes: int = 4) -> Model:
    """A Z-up tube about ``vertices`` vertices long, a chain of ``bones`` bones up its axis, each
    vertex weighted to its ``lanes`` nearest bones."""
    around = 128
    rings = max(vertices // around, 2)
    height = 4.0
    angles = np.linspace(0.0, 2.0 * np.pi, around, endpoint=False)
    levels = np.linspace(0.0, height, rings)
    positions = np.stack([np.broadcast_to(0.3 * np.cos(angles), (rings, around)),
                          np.broadcast_to(0.3 * np.sin(angles), (rings, around)),
                          np.broadcast_to(levels[:, None], (rings, around))], axis=-1).reshape(-1, 3)
    normals = positions * [1.0, 1.0, 0.0] / 0.3
    ring, step = np.meshgrid(np.arange(rings - 1), np.arange(around), indexing="ij")
    a = ring * around + step
    b = ring * around + (step + 1) % around
    triangles = np.stack([np.stack([a, b, b + around], -1), np.stack([a, b + around, a + around], -1)],
                         axis=2).reshape(-1, 3)
    heads = np.zeros((bones, 3))
    heads[:, 2] = np.linspace(0.0, height, bones, endpoint=False)
    tails = heads + [0.0, 0.0, height / bones]
    distance = np.abs(positions[:, 2:3] - (heads[:, 2] + 0.5 * height / bones))
    joints = np.argsort(distance, axis=1)[:, :lanes]
    weights = 1.0 / (np.take_along_axis(distance, joints, axis=1) + 0.01)
    skeleton = Skeleton(names=[f"bone{i}" for i in range(bones)], parents=np.arange(bones) - 1,
                        bind_world=maths.translation(heads), heads=heads, tails=tails,
                        derived_tails=np.zeros(bones, bool))
    mesh = Mesh(name="tube", positions=positions, normals=normals, joints=joints,
                weights=weights / weights.sum(axis=1, keepdims=True), triangles=triangles)
    return Model(name="tube", skeleton=skeleton, meshes=[mesh])


def bent_pose(model: Model):
    """Each bone turned a little about X relative to its parent: the tube curls."""
    count = len(model.skeleton)
    local = model.skeleton.bind_local @ maths.axis_rotation("X", np.full(count, 0.03))
    world = local.copy()
    for level in model.skeleton.levels[1:]:
        world[level] = world[model.skeleton.parents[level]] @ local[level]
    return pose_from_world(model, world)


def posed_copy(model: Model, renderer: Renderer) -> Model:
    """``model`` with each mesh's positions and normals replaced by what ``renderer``'s skinning pass
    makes of them in its current pose (read back by transform feedback): drawn unskinned, the copy makes
    the skinned model's picture from static buffers of the same layout (morph targets applied, so
    dropped)."""
    meshes = []
    for index, mesh in enumerate(model.meshes):
        positions, normals = renderer.skinned_vertices(index, "lbs")
        meshes.append(dataclasses.replace(mesh, positions=positions.astype(np.float64),
                                          normals=normals.astype(np.float64), morphs=None))
    return dataclasses.replace(model, meshes=meshes)


def _per_draw(ctx, function, draws: int) -> tuple[float, float]:
    """(wall, CPU) seconds per call of ``function`` over ``draws`` calls, the GL queue finished after.
    CPU time counts every thread of the process, the software rasteriser's included."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(draws):
        function()
    ctx.finish()
    return (time.perf_counter() - wall) / draws, (time.process_time() - cpu) / draws


def _picture_difference(first: np.ndarray, second: np.ndarray) -> tuple[int, int]:
    """(largest channel difference, pixels that differ) between two RGBA images."""
    difference = np.abs(first.astype(np.int16) - second.astype(np.int16))
    return int(difference.max()), int(np.count_nonzero(difference.max(axis=-1)))


def morphed_tube(vertices: int = 100_000, bones: int = 64, targets: int = 8) -> Model:
    """``skinned_tube`` with ``targets`` morph targets: each bulges its own band of the tube outwards."""
    model = skinned_tube(vertices, bones)
    mesh = model.meshes[0]
    heights = mesh.positions[:, 2] / mesh.positions[:, 2].max()
    radial = mesh.positions * [1.0, 1.0, 0.0]
    bands = np.exp(-((heights[None, :] - (np.arange(targets)[:, None] + 0.5) / targets) * targets) ** 2)
    deltas = 0.5 * bands[:, :, None] * radial[None]
    morphs = MorphTargets(positions=deltas, defaults=np.zeros(targets))
    return dataclasses.replace(model, meshes=[dataclasses.replace(mesh, morphs=morphs)])


def bench_skinned_vs_static(draws: int = 4, rounds: int = 9, vertices: int = 100_000, bones: int = 64,
                            size: tuple[int, int] = (1280, 720)) -> dict:
    """A frame of the skinned tube against the same picture drawn from static buffers, in one EGL
    context at ``size`` (``skinned_against_static``)."""
    model = skinned_tube(vertices, bones)
    return skinned_against_static(model, bent_pose(model), draws, rounds, size)


def bench_morph_skinned_vs_static(draws: int = 4, rounds: int = 9, vertices: int = 100_000, bones: int = 64,
                                  size: tuple[int, int] = (1280, 720)) -> dict:
    """The tube with 8 morph targets, each at its own weight, skinned in the bent pose, against the same
    picture from static buffers (``skinned_against_static``; the goal figure is ``lbs_ratio``)."""
    model = morphed_tube(vertices, bones)
    pose = dataclasses.replace(bent_pose(model), morph_weights=np.linspace(0.1, 0.8, 8))
    return skinned_against_static(model, pose, draws, rounds, size)


def skinned_against_static(model: Model, pose, draws: int, rounds: int, size: tuple[int, int]) -> dict:
    """A frame of ``model`` drawn in ``pose`` with GPU skinning (and its morph targets) against the same
    picture drawn from static buffers, in one EGL context at ``size``.

    - skinned (``lbs``, ``dqs``): the pose uploaded (skinning palette → bone texture, morph weights),
      then the bind-pose buffers drawn with GPU morphing and skinning;
    - static: a copy of the model whose buffers hold the posed positions and normals (read back from
      the skinning pass), drawn unskinned — the same triangles in the same places;
    - bind_static (for comparison only): the skinned tube's own buffers drawn unskinned, i.e. the
      straight bind-pose tube, partly out of view: a different picture, so not the goal's baseline.

    ``rounds`` rounds of ``draws`` draws per case, the cases interleaved (order reversed every other
    round). Each round gives a skinned ÷ static ratio from times taken seconds apart; the goal figure
    ``lbs_ratio`` is the median of those ratios (wall time), with their range beside it. CPU-time ratios
    (every thread of the process) are printed as a cross-check that is blind to other processes' load.
    """
    bones = len(model.skeleton)
    with OffscreenRenderer() as offscreen:
        ctx = offscreen.ctx
        skinned = offscreen.renderer
        skinned.set_model(model, pose)
        static = Renderer(ctx)
        try:
            static.set_model(posed_copy(model, skinned))
            camera = camera_for(*skinned.bounds(), up_axis="Z", view="iso", aspect=size[0] / size[1])
            target = offscreen.draw_target(size)

            def skinned_frame(mode: str):
                def frame() -> None:
                    skinned.set_pose(pose)
                    skinned.draw(target, camera, DrawSettings(skinning=mode, grid=False))
                return frame

            unskinned = DrawSettings(skinning="none", grid=False)
            cases = {
                "static": lambda: static.draw(target, camera, unskinned),
                "lbs": skinned_frame("lbs"),
                "dqs": skinned_frame("dqs"),
                "bind_static": lambda: skinned.draw(target, camera, unskinned),
            }
            with ImageTargets.create(ctx, size) as targets:
                pictures = [targets.render(renderer, camera, DrawSettings(skinning=mode, grid=False))
                            for renderer, mode in ((static, "none"), (skinned, "lbs"))]
            for function in cases.values():
                _per_draw(ctx, function, 1)
            wall = {name: [] for name in cases}
            cpu = {name: [] for name in cases}
            for round_ in range(rounds):
                for name in (list(cases) if round_ % 2 == 0 else list(cases)[::-1]):
                    seconds, cpu_seconds = _per_draw(ctx, cases[name], draws)
                    wall[name].append(seconds)
                    cpu[name].append(cpu_seconds)
        finally:
            static.release()
        renderer_name = ctx.info["GL_RENDERER"]
    wall = {name: np.array(times) for name, times in wall.items()}
    cpu = {name: np.array(times) for name, times in cpu.items()}
    largest, differing = _picture_difference(*pictures)
    result = {"vertices": model.vertex_count, "bones": bones, "size": size,
              "rounds x draws": f"{rounds} x {draws}", "renderer": renderer_name,
              "static vs lbs picture: max channel difference": largest,
              "static vs lbs picture: pixels differing": differing}
    for name in cases:
        result[f"{name}_s"] = float(np.median(wall[name]))
    for name in ("lbs", "dqs", "bind_static"):
        ratios = wall[name] / wall["static"]
        result[f"{name}_ratio"] = float(np.median(ratios))
        result[f"{name}_ratio range"] = f"{ratios.min():.3f}..{ratios.max():.3f}"
        result[f"{name}_ratio cpu"] = float(np.median(cpu[name] / cpu["static"]))
    return result


def waving_clip(model: Model, keys: int = 30) -> Clip:
    """A 1 s keyed clip: every bone swings about X, out of phase along the chain."""
    count = len(model.skeleton)
    times = np.linspace(0.0, 1.0, keys)
    angles = 0.05 * np.sin(2 * np.pi * (times[:, None] + np.arange(count) / count))
    tracks = [Track(bone, rotation=(times, maths.quat_from_matrix(
        model.skeleton.bind_local[bone][None] @ maths.axis_rotation("X", angles[:, bone]))))
        for bone in range(count)]
    return Clip("wave", "keyed", tracks=tracks)


def _time_scrub(offscreen: OffscreenRenderer, model: Model, clip: Clip, camera, frames: int,
                size: tuple[int, int]) -> tuple[float, float]:
    """Seconds per scrubbed frame (evaluate + bone upload + draw) and per plain redraw."""
    options = DrawSettings(grid=False)
    target = offscreen.draw_target(size)
    times = np.linspace(clip.start, clip.start + clip.duration, frames)

    def scrub() -> None:
        for time_ in times:
            offscreen.renderer.set_pose(evaluate(model, clip, float(time_)))
            offscreen.renderer.draw(target, camera, options)
        offscreen.ctx.finish()

    def redraw() -> None:
        for _ in times:
            offscreen.renderer.draw(target, camera, options)
        offscreen.ctx.finish()

    scrub()
    runs = [(_seconds(scrub), _seconds(redraw)) for _ in range(3)]
    return min(r[0] for r in runs) / frames, min(r[1] for r in runs) / frames


def _seconds(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def bench_scrub(frames: int = 20, size: tuple[int, int] = (1280, 720)) -> dict:
    """Cost of one scrubbed frame in the viewport's path — pose evaluation, bone-texture upload and
    the draw — against redrawing an unchanged pose, for the demo and a 100k-vertex model."""
    from app import loading
    from app.resources import demo_paths

    demo = loading.load(demo_paths())
    tube = skinned_tube()
    result = {}
    with OffscreenRenderer() as offscreen:
        for label, model, clip in (("demo", demo, demo.clips[0]), ("100k tube", tube, waving_clip(tube))):
            offscreen.renderer.set_model(model, evaluate(model, clip, clip.start))
            camera = camera_for(*offscreen.renderer.bounds(), up_axis=model.up_axis, aspect=size[0] / size[1])
            scrub, redraw = _time_scrub(offscreen, model, clip, camera, frames, size)
            result[f"{label}: scrub frame (ms)"] = scrub * 1e3
            result[f"{label}: redraw only (ms)"] = redraw * 1e3
            result[f"{label}: ratio scrub / redraw"] = scrub / redraw
    return result


def main() -> None:
    for key, value in bench_skinned_vs_static().items():
        print(f"  {key:<45} {value:.4g}" if isinstance(value, float) else f"  {key:<45} {value}")


if __name__ == "__main__":
    main()
