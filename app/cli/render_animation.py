"""``render``'s animated outputs: a clip as video, animated image or numbered PNGs, and contact
sheets (docs/cli.md, "Animation out of ``render``"). The command-line side: options checked, model
loaded, frames rendered with progress, file written."""

from __future__ import annotations

import sys
from argparse import Namespace
from collections.abc import Callable
from pathlib import Path

from app.cli.progress import Progress
from app.cli.shared import (
    DEFAULT_SIZE,
    EXIT_OK,
    OutputError,
    UsageError,
    load_model_for,
    output_path,
    render_settings,
    writing,
)
from app.animation.dangly_swing import DanglySwing
from app.model import Clip, Model
from app.pose import Pose
from app.render import sheet, video
from app.render.animation_outputs import VIDEO_SUFFIXES, animation_kind
from app.render.sheet import MAX_SHEET_FRAMES, MAX_SIDE
from app.cli.clip_choice import chosen_clip_index
from app.cli.wording import counted

#: The size of a sheet's frames when --size is not given.
SHEET_CELL = (320, 240)


def render(args: Namespace) -> int:
    """``render --sheet`` or ``render -o OUT.mp4|.webm|.gif|.webp|OUT_%04d.png``."""
    output = output_path(args.output)
    kind = animation_kind(output)
    if args.sheet:
        _check_sheet_request(output, kind, args)
    elif kind in VIDEO_SUFFIXES.values() and args.transparent:
        raise UsageError(f"--transparent: a {kind.upper()} video has no transparency (use .webp or .gif)")
    first = video.sequence_name(output, 0) if kind == "frames" else output
    model = load_model_for(args, [first])
    options = render_settings(model, args)
    from app.render.offscreen import NotEnoughMemory, OffscreenRenderer, PictureTooLarge

    with OffscreenRenderer() as offscreen, Progress("render") as progress:
        try:
            if args.sheet:
                _sheet(model, args, output, offscreen, options, progress)
            else:
                _animation(model, args, output, kind, offscreen, options, progress)
        except (PictureTooLarge, NotEnoughMemory) as error:
            raise OutputError(f"cannot render {output}: {error}") from None
        warnings = offscreen.renderer.take_warnings()
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return EXIT_OK


def _check_sheet_request(output: Path, kind: str | None, args: Namespace) -> None:
    """``--sheet``'s -o and ``--frames``, the sheet's width included, checked before the model loads."""
    if output.suffix.lower() != ".png" or kind is not None:
        raise UsageError(f"--sheet writes one PNG: -o must end in .png with no %d, got {output.name!r}")
    problem = sheet_request_problem(args.frames, args.size)
    if problem:
        raise UsageError(problem)


def sheet_request_problem(frames: int, size: tuple[int, int] | None) -> str:
    """What is wrong with asking for sheets of ``frames`` per clip, each ``size`` (``render --sheet``,
    ``batch render --sheet``), or ''."""
    if not 1 <= frames <= MAX_SHEET_FRAMES:
        return f"--frames {frames}: expected 1 to {MAX_SHEET_FRAMES}"
    cell = (size or SHEET_CELL)[0]
    if cell * frames > MAX_SIDE:
        return (f"--frames {frames} of {counted(cell, 'pixel')} make a sheet {cell * frames} pixels "
                f"wide, over {MAX_SIDE}: at most {counted(MAX_SIDE // cell, 'frame')} at this --size")
    return ""


def _sheet(model: Model, args: Namespace, output: Path, offscreen, options, progress: Progress) -> None:
    write_sheet(model, args, output, offscreen, options,
                lambda share: progress.update(share, "contact sheet"), onion_ghosts(model, args))


def write_sheet(model: Model, args: Namespace, output: Path, offscreen, options,
                on_progress: Callable[[float], None] = lambda share: None,
                ghosts: video.Ghosts | None = None) -> None:
    """The model's contact sheet (a row per clip, ``args.frames`` frames of ``args.size``, each with
    ``ghosts``' onion skins) to ``output``, written whole or not at all (``render``, ``batch render``)."""
    from app.render.offscreen import save_png

    if not model.clips:
        raise UsageError("the model has no clips to put on a sheet")
    cell = args.size or SHEET_CELL
    try:
        sheet.check_sheet_size(*sheet.sheet_size(model, args.frames, cell))
    except ValueError as error:
        raise UsageError(f"{error}: use a smaller --size or fewer --frames") from None
    offscreen.check_fits(cell, frames_held=sheet.frames_held(model, args.frames))
    image = sheet.render_sheet(offscreen, model, args.frames, cell, options, args.view, progress=on_progress,
                               ghosts=ghosts)
    with writing(output):
        save_png(image, output)


def _animation(model: Model, args: Namespace, output: Path, kind: str, offscreen, options,
               progress: Progress) -> None:
    clip = _clip(model, args)
    start, end = _span(clip, args)
    fps = args.fps or video.clip_rate(clip)
    times = video.run_times(start, end, fps)
    try:
        video.check_frame_count(len(times), fps)
    except ValueError as error:
        raise UsageError(str(error)) from None
    size = args.size or DEFAULT_SIZE
    if kind in VIDEO_SUFFIXES.values():
        size = video.even_size(size)
    offscreen.check_fits(size, frames_held=video.ENCODER_FRAMES_HELD)
    frames = video.render_frames(offscreen, model, clip, times, size, options, args.view, args.turntable,
                                 sway=dangly_sway(model) if args.dangly else None,
                                 ghosts=onion_ghosts(model, args))
    with writing(output):
        try:
            video.write_animation(output, kind, frames, fps, len(times),
                                  progress=lambda done: progress.update(done / len(times),
                                                                        f"frame {done} of {len(times)}"))
        except ValueError as error:
            raise OutputError(f"cannot write {output}: {error}") from None


def dangly_sway(model: Model) -> Callable[[Pose, float], Pose]:
    """``render --dangly`` for a run of frames: each frame's pose with the danglymeshes swung on from
    the frame before (from rest at the first)."""
    swing = DanglySwing(model)

    def sway(pose: Pose, seconds: float) -> Pose:
        swing.step(pose, seconds)
        return swing.swung(pose)

    return sway


def onion_ghosts(model: Model, args: Namespace) -> video.Ghosts | None:
    """``--onion N [--onion-step S]``: each frame's ghosts around its own instant (None without)."""
    if not args.onion:
        return None
    from app.state.onion import onion_poses

    return lambda clip, time: onion_poses(model, clip, time, args.onion, args.onion_step)


def _clip(model: Model, args: Namespace) -> Clip | None:
    if not model.clips:
        if args.turntable:
            return None
        raise UsageError("the model has no clips to animate (--turntable circles the bind pose)")
    try:
        return model.clips[chosen_clip_index(model, args.clip)]
    except (KeyError, IndexError) as error:
        raise UsageError(error.args[0]) from None


def _span(clip: Clip | None, args: Namespace) -> tuple[float, float]:
    """--from and --to, checked against the clip (default its whole timeline)."""
    if clip is None:
        low, high = 0.0, video.TURNTABLE_SECONDS
    else:
        low, high = clip.start, clip.start + clip.duration
    start = low if args.start is None else args.start
    end = high if args.end is None else args.end
    name = "the turntable" if clip is None else f"clip {clip.name!r}"
    for option, value in (("--from", start), ("--to", end)):
        if not low - 1e-6 <= value <= high + 1e-6:
            raise UsageError(f"{option} {value:g} s outside {low:g}..{high:g} s of {name}")
    if end < start:
        raise UsageError(f"--to {end:g} s is before --from {start:g} s")
    return start, end
