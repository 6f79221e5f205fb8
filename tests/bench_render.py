"""Rendering benchmarks, called by the lead's benchmark runner or run as ``python -m tests.bench_render``.

``bench_skinned_vs_static`` times a 100k-vertex, 64-bone skinned tube drawn with GPU skinning
against the same buffers drawn unskinned, offscreen at 1280×720. The goal is a ratio ≤ 1.3.
"""

from __future__ import annotations

import time

import numpy as np

from app import maths
from app.model import Clip, Mesh, Model, Skeleton, Track
from app.pose import evaluate, pose_from_world
from app.render.camera import camera_for
from app.render.offscreen import OffscreenRenderer
from app.render.renderer import DisplayOptions


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


def _time_draws(offscreen: OffscreenRenderer, camera, options: DisplayOptions, draws: int,
                size: tuple[int, int]) -> float:
    """Seconds per draw, averaged over ``draws`` after one warm-up draw."""
    target = offscreen.draw_target(size)
    offscreen.renderer.draw(target, camera, options)
    offscreen.ctx.finish()
    start = time.perf_counter()
    for _ in range(draws):
        offscreen.renderer.draw(target, camera, options)
    offscreen.ctx.finish()
    return (time.perf_counter() - start) / draws


def bench_skinned_vs_static(draws: int = 15, repeats: int = 3, vertices: int = 100_000, bones: int = 64,
                            size: tuple[int, int] = (1280, 720)) -> dict:
    """Per-draw seconds for LBS, DQS and unskinned drawing of the same mesh in one EGL context:
    the best of ``repeats`` interleaved runs of ``draws`` draws each (a software rasteriser is noisy).

    Returns {'vertices', 'bones', 'size', 'draws', 'static_s', 'lbs_s', 'dqs_s', 'lbs_ratio',
    'dqs_ratio', 'renderer'}; the ratios are skinned ÷ static time (goal ≤ 1.3).
    """
    model = skinned_tube(vertices, bones)
    with OffscreenRenderer() as offscreen:
        offscreen.renderer.set_model(model, bent_pose(model))
        camera = camera_for(*offscreen.renderer.bounds(), up_axis="Z", view="iso", aspect=size[0] / size[1])
        runs = [{mode: _time_draws(offscreen, camera, DisplayOptions(skinning=mode, grid=False), draws, size)
                 for mode in ("none", "lbs", "dqs")} for _ in range(repeats)]
        times = {mode: min(run[mode] for run in runs) for mode in runs[0]}
        renderer_name = offscreen.ctx.info["GL_RENDERER"]
    return {
        "vertices": model.vertex_count, "bones": bones, "size": size, "draws": draws * repeats,
        "static_s": times["none"], "lbs_s": times["lbs"], "dqs_s": times["dqs"],
        "lbs_ratio": times["lbs"] / times["none"], "dqs_ratio": times["dqs"] / times["none"],
        "renderer": renderer_name,
    }


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
    options = DisplayOptions(grid=False)
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
    from app import formats
    from app.resources import demo_paths

    demo = formats.load(demo_paths())
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
    result = bench_skinned_vs_static()
    print(f"{result['vertices']} vertices, {result['bones']} bones, {result['size'][0]}x{result['size'][1]}, "
          f"{result['draws']} draws on {result['renderer']}")
    for mode in ("static", "lbs", "dqs"):
        print(f"  {mode:6s} {result[mode + '_s'] * 1000:8.2f} ms/draw")
    print(f"  ratio  lbs {result['lbs_ratio']:.2f}x  dqs {result['dqs_ratio']:.2f}x  (goal <= 1.3x)")


if __name__ == "__main__":
    main()
