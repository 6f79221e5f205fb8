"""The headless sub-commands: info, pose, render, convert, ragdoll (docs/cli.md). No Qt here.

Each command imports what only it needs when it runs (the writers, NWN's archives and rules, physics,
the animated outputs), so that a fresh ``render`` or ``info`` loads no more than its own work
(tests/cli/test_startup_imports.py).
"""

from __future__ import annotations

import json
import sys
import traceback
from argparse import Namespace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from app.atomic_files import replacing
from app.cli.progress import Progress
from app.cli.shared import (
    DEFAULT_SIZE,
    EXIT_OK,
    EXIT_UNREADABLE,
    EXIT_USAGE,
    OutputError,
    UsageError,
    describe,
    load_model,
    load_model_for,
    output_path,
    pose_at,
    render_settings,
    selected_instant,
    warn,
    writing,
)
from app.errors import InputError
from app.model import Clip, Model
from app.pose import pose_from_world, posed_positions
from app.cli.clip_choice import chosen_clip_index
from app.cli.wording import counted

if TYPE_CHECKING:
    from app.physics.bake import Recording
    from app.physics.rig import Rig

#: How ``info`` says where the up axis came from.
UP_SOURCES = {"file": "from the file", "guessed": "guessed from the model", "option": "from --up"}


#: Half precision keeps about three significant digits of each vertex coordinate (docs/cli.md).
POSITION_TYPES = {"full": np.float32, "half": np.float16}


def run(args: Namespace) -> int:
    handlers = {"info": info, "pose": pose, "render": render, "convert": convert, "ragdoll": ragdoll,
                "check": check}
    try:
        return handlers[args.command](args)
    except (InputError, OutputError) as error:
        return _fail(args, f"error: {error}", EXIT_UNREADABLE)
    except UsageError as error:
        return _fail(args, f"boneyard {args.command}: error: {error}", EXIT_USAGE)


def _fail(args: Namespace, message: str, status: int) -> int:
    if getattr(args, "debug", False):
        traceback.print_exc()
    print(message, file=sys.stderr)
    return status


def _hidden_state(mesh) -> str:
    """', hidden' for a hidden mesh, with the file's reason where it gives one; '' for a shown one."""
    if mesh.visible:
        return ""
    return f", hidden ({mesh.hidden_reason})" if mesh.hidden_reason else ", hidden"


def _texture_state(mesh) -> str:
    """How ``info`` describes a mesh's texture: its name and whether an image was found for it."""
    material = mesh.material
    if not material.texture:
        return "no texture"
    if material.texture_path:
        found = f"found: {material.texture_path}"
    else:
        found = "embedded" if material.image is not None else "not found"
    return f"texture {material.texture} ({found})"


def _rate(clip: dict) -> str:
    """', 30 fps' for a clip whose file states its frame rate, else ''."""
    return "" if clip["rate"] is None else f", {clip['rate']:g} fps"


def check(args: Namespace) -> int:
    from app.cli.check import run_check

    return run_check(args)


def info(args: Namespace) -> int:
    from app.formats.nwn.archives import is_archive

    if len(args.files) == 1 and is_archive(args.files[0]) and not args.demo:
        from app.cli.archive_info import archive_info

        return archive_info(args)
    model = load_model(args, announce=False)
    facts = describe(model)
    if args.json:
        print(json.dumps(facts, indent=2))
        return EXIT_OK
    triangles = "none (points)" if facts["triangles"] is None else facts["triangles"]
    lines = [
        f"files:      {', '.join(facts['files'])}",
        f"format:     {facts['format']}",
        f"bones:      {facts['bones']}",
        f"meshes:     {facts['meshes']}  vertices: {facts['vertices']}  triangles: {triangles}",
        f"up axis:    {facts['up']} ({UP_SOURCES[facts['up_source']]})  facing: {facts['forward']}",
        f"helpers:    {facts['helpers']}",
        f"clips:      {len(facts['clips'])}",
    ]
    if "file_unit_m" in facts:
        axes = facts["file_axes"] or "axes not stated"
        lines.insert(4, f"file:       {facts['file_unit_m']:g} m per unit, {axes} (read in metres, Y up)")
    lines += [f"  {i}: {c['name']} ({c['kind']}, {counted(c['frames'], 'frame')}, "
              f"{c['duration']:.3f} s{_rate(c)}) from {c['source']}" for i, c in enumerate(facts["clips"])]
    if facts["supermodels"]:
        links = [f"{link['name']} ({Path(link['file']).name if link['file'] else 'not found'})"
                 for link in facts["supermodels"]]
        lines.append(f"supermodels: {' → '.join(links)}")
    lines += ["mesh list:" + ("" if model.meshes else "  none")] + [
        f"  {mesh.name}: {counted(mesh.vertex_count, 'vertex', 'vertices')}, "
        f"{counted(mesh.triangle_count, 'triangle')}"
        f"{_hidden_state(mesh)}, {_texture_state(mesh)}"
        f"{', vertex colours' if mesh.colors is not None else ''}" for mesh in model.meshes]
    lines += _walkmesh_lines(facts["walkmeshes"])
    if facts["derived_tails"]:
        lines.append(f"derived tails: {', '.join(facts['derived_tails'])}")
    lines += [f"warning: {w}" for w in facts["warnings"]]
    print("\n".join(lines))
    return EXIT_OK


def _walkmesh_lines(walkmeshes: list[dict]) -> list[str]:
    """``info``'s walkmesh list: each walkmesh's faces per surface material (non-walkable marked)."""
    if not walkmeshes:
        return []
    lines = ["walkmeshes:"]
    for walkmesh in walkmeshes:
        materials = ", ".join(f"{m['name']} {m['faces']}{'' if m['walkable'] else ' (not walkable)'}"
                              for m in walkmesh["materials"])
        lines.append(f"  {walkmesh['name']} ({walkmesh['kind']}, {Path(walkmesh['source']).name}): "
                     f"{counted(walkmesh['faces'], 'face')}: {materials}")
    return lines


def pose(args: Namespace) -> int:
    from app.export.writers import POSE_WRITERS, pose_arrays

    output = output_path(args.output)
    write = _writer(output, POSE_WRITERS)
    model = load_model_for(args, [output])
    current = pose_at(model, args, default_first_clip=False)
    with writing(output):
        warnings = write(output, model, pose_arrays(model, current))
    warn(warnings)
    return EXIT_OK


def _writer(output: Path, table: dict):
    """The writer for ``-o OUTPUT``'s suffix, else the usage error naming the suffixes."""
    from app.export.writers import writer_for

    try:
        return writer_for(output, table)
    except ValueError as error:
        raise UsageError(f"-o {error}") from None


def wants_animation(args: Namespace) -> bool:
    """Whether ``render``'s arguments ask for a sheet or an animation, not a still PNG."""
    from app.render.animation_outputs import animation_kind

    return bool(args.sheet) or animation_kind(Path(args.output)) is not None


def render(args: Namespace) -> int:
    if args.onion < 0 or (args.onion_step is not None and not args.onion_step > 0):
        raise UsageError("--onion takes a count ≥ 0 and --onion-step a time > 0")
    if wants_animation(args):
        from app.cli import render_animation

        return render_animation.render(args)
    output = output_path(args.output)
    if output.suffix.lower() != ".png":
        raise UsageError(f"-o must end in .png, .mp4, .webm, .gif or .webp, or hold a %d frame number; "
                         f"got {output.name!r}")
    args.size = args.size or DEFAULT_SIZE
    model = load_model_for(args, [output])
    current = pose_at(model, args, default_first_clip=True)
    from app.render.offscreen import NotEnoughMemory, OffscreenRenderer, PictureTooLarge

    options = render_settings(model, args)
    width, height = args.size
    with Progress("render") as progress:
        progress.update(None, f"drawing {width}×{height}")
        with OffscreenRenderer() as renderer, writing(output):
            renderer.renderer.ghosts = onion_skins(model, args)
            try:
                renderer.save_png(model, current, args.size, output, options, args.view)
            except (NotEnoughMemory, PictureTooLarge) as error:
                raise OutputError(f"cannot render {output}: {error}") from None
            warnings = renderer.renderer.take_warnings()
    warn(warnings)
    return EXIT_OK


def onion_skins(model: Model, args: Namespace) -> list:
    """``render --onion N``: the ghosts' poses and offsets around the instant drawn (none without a
    clip to play)."""
    if not args.onion or not model.clips:
        return []
    from app.state.onion import onion_poses

    clip, time = selected_instant(model, args)
    return onion_poses(model, clip, time, args.onion, args.onion_step)


def convert(args: Namespace) -> int:
    from app import loading
    from app.export.writers import MODEL_WRITERS

    output = output_path(args.output)
    write = _writer(output, MODEL_WRITERS)
    model = load_model_for(args, [output])
    try:
        clips = None if not args.clip else [model.clips[chosen_clip_index(model, c)] for c in args.clip]
    except KeyError as error:
        raise UsageError(error.args[0]) from None
    with Progress("convert") as progress, writing(output):
        progress.update(None, f"writing {output.name}")
        warn(write(output, model, clips, args.show_hidden))
    if args.check:
        from app.export.roundtrip import check_export

        result = check_export(model, loading.load_written(output), clips, args.show_hidden)
        print(result.parts_line())
        print(result.line())
    return EXIT_OK


def ragdoll_start(model: Model, args: Namespace) -> tuple[Clip | None, float]:
    """The clip and time ``--clip``/``--frame``/``--time`` select for the ragdoll to take over from
    (None and 0: the bind pose; with ``--follow``, the clip's first frame when no time is given)."""
    if args.follow and not model.clips:
        raise UsageError("--follow needs a clip to follow; the model has none")
    if args.frame is None and args.time is None and not args.follow:
        if args.clip is not None:
            raise UsageError("--clip needs --frame or --time to say where the ragdoll takes over")
        return None, 0.0
    return selected_instant(model, args)


#: Frames a ragdoll run records (every frame is kept in memory until the output is written).
MAX_RAGDOLL_FRAMES = 36_000


def _run_npz(output: Path, model: Model, run: Recording, rig: Rig, args: Namespace) -> list[str]:
    arrays = ragdoll_arrays(model, run, rig, args.positions)
    with replacing(output) as temporary:
        np.savez_compressed(temporary, **arrays)
    return []


def _run_gltf(output: Path, model: Model, run: Recording, rig: Rig, args: Namespace) -> list[str]:
    from app.export.writers import MODEL_WRITERS

    return MODEL_WRITERS[output.suffix.lower()](output, model, [run.clip()], args.show_hidden)


def run_writers() -> dict:
    """Suffix → how ``ragdoll -o`` writes a run: the contract's arrays, or the run as a glTF clip."""
    from app.export.writers import MODEL_WRITERS

    return {".npz": _run_npz, **{suffix: _run_gltf for suffix in MODEL_WRITERS}}


def ragdoll(args: Namespace) -> int:
    if args.check:
        return ragdoll_check(args)
    if args.output is None:
        raise UsageError("ragdoll needs -o OUT.npz|OUT.glb|OUT.gltf (or --check)")
    if args.release is not None and not args.follow and args.strength is None:
        raise UsageError("--release needs motors to release: give --follow or --strength")
    output = output_path(args.output)
    write = _writer(output, run_writers())
    if args.seconds * args.output_fps > MAX_RAGDOLL_FRAMES:
        frames = args.seconds * args.output_fps
        raise UsageError(f"--seconds {args.seconds:g} at --fps {args.output_fps:g} records {frames:.0f} "
                         f"frames; at most {MAX_RAGDOLL_FRAMES} are kept")
    model = load_model_for(args, [output] + ([Path(args.save_profile)] if args.save_profile else []))
    clip, start = ragdoll_start(model, args)
    from app.physics.bake import DEFAULT_SHOT_TIME, Shot, record
    from app.physics.profile_json import save_profile
    from app.physics.ragdoll import Ragdoll

    profile = ragdoll_profile(model, args)
    shots = [Shot(origin, direction, DEFAULT_SHOT_TIME if time is None else time, args.impulse)
             for origin, direction, time in args.shoot]
    with Ragdoll(model, profile) as world, Progress("ragdoll") as progress:
        warn(world.warnings)
        if args.save_profile:  # only a profile that fits the model: a bad one leaves the file as it was
            with writing(Path(args.save_profile)):
                save_profile(profile, args.save_profile)
        world.take_over_clip(clip, start)
        drive = motor_drive(world, clip, start, args)
        if drive is not None:
            world.set_drive(drive)
        run = record(world, args.seconds, args.output_fps, shots,
                     progress=lambda done: progress.update(done, f"{done * args.seconds:.1f} of "
                                                                 f"{args.seconds:g} s simulated"))
    for shot, hit in zip(shots, run.hits):
        ray = f"shot at {shot.time:g} s from {','.join(f'{v:g}' for v in shot.origin)}"
        print(f"{ray}: hit part {hit.name!r}" if hit else
              f"{ray}: {'after the end of the run' if shot.time > args.seconds else 'hit nothing'}")
    with writing(output):
        warnings = write(output, model, run, world.rig, args)
    warn(warnings)
    return EXIT_OK


def ragdoll_profile(model: Model, args: Namespace):
    """The profile ``--profile`` names, else the one saved for the model, else an automatic setup."""
    from app.physics.model_profile import model_profile
    from app.physics.profile_json import load_profile
    from app.user_files import user_data_dir

    if args.profile:
        return load_profile(args.profile)
    try:
        profile, _found, problem = model_profile(model, user_data_dir(), builtin=bool(args.demo))
    except ValueError as error:
        raise UsageError(str(error)) from None
    if problem is not None:
        raise problem
    return profile


def motor_drive(world, clip: Clip | None, start: float, args: Namespace):
    """The motors ``--follow``/``--strength``/``--release`` ask for (``physics/drive.Drive``), or
    None for a limp ragdoll. A profile whose motors are too strong for its masses is a ProfileError."""
    from app.physics.drive import Drive

    if not args.follow and not args.strength:
        return None
    strength = 1.0 if args.strength is None else args.strength
    release_over = 0.0 if args.release is None else max(args.seconds - args.release, 0.0)
    return Drive(world, clip, start, strength=strength, follow=args.follow, release_at=args.release,
                 release_over=release_over)


def ragdoll_check(args: Namespace) -> int:
    """``ragdoll --check``: the standard trial's JSON report on stdout; 1 when the verdict fails."""
    if args.output is not None:
        raise UsageError("--check prints its report; it takes no -o")
    model = load_model(args)
    from app.physics.trial import check_profile

    report = check_profile(model, ragdoll_profile(model, args))
    print(json.dumps(report, indent=1))
    return EXIT_OK if report["verdict"] == "pass" else 1


def ragdoll_arrays(model: Model, run: Recording, rig: Rig, positions: str = "full") -> dict[str, np.ndarray]:
    """The arrays of the ``ragdoll`` contract (docs/cli.md); ``positions`` 'full' (float32), 'half'
    (float16) or 'none' (left out). Joint angles and limits are degrees, a hinge's angle first and 0
    for its locked others."""
    locked = rig.hinge[:, None] & (np.arange(3) > 0)
    arrays = {
        "times": run.times,
        "world": run.world,
        "bone_names": np.array(model.skeleton.names, dtype=str),
        "parts": np.array(rig.part_names, dtype=str),
        "part_world": run.part_world,
        "joint_names": np.array([joint.name for joint in rig.profile.joints], dtype=str),
        "joint_angles": np.degrees(np.where(locked, 0.0, run.joint_angles)),
        "target_angles": np.degrees(np.where(locked, 0.0, run.target_angles)),
        "joint_limits": joint_limit_ranges(rig.profile.joints),
    }
    if positions != "none":
        dtype = POSITION_TYPES[positions]
        arrays["positions"] = np.stack([posed_positions(model, pose_from_world(model, world)).reshape(-1, 3)
                                        .astype(dtype) for world in run.world])
    return arrays


def joint_limit_ranges(joints: list) -> np.ndarray:
    """(J, 3, 2) degrees: each joint angle's low and high limit (0, 0 for a hinge's locked angles)."""
    from app.physics.joint_kinds import KINDS

    ranges = [KINDS[joint.kind].angle_ranges(KINDS[joint.kind].values(joint)) for joint in joints]
    return np.array(ranges).reshape(-1, 3, 2)
