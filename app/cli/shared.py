"""What the commands share: exit codes, the usage and output errors, the checks every output passes
before any work (never over an input, never into a FIFO or device), the reader options and the model
the arguments name, the instant they pick, the draw settings ``render``'s options ask for and the
facts ``info`` reports (docs/cli.md). Imported by the commands, ``render``'s animated outputs,
``batch`` and the window's launch."""

from __future__ import annotations

import sys
from argparse import Namespace
from collections.abc import Iterable
from contextlib import contextmanager
from pathlib import Path

from app import formats, loading
from app.animation.dangly_swing import swung_at
from app.atomic_files import same_file, special_kind
from app.cli.clip_options import mixed_model
from app.model import Clip, Model
from app.orientation import facing
from app.pose import Pose, evaluate, frame_time
from app.resources import demo_paths
from app.scene.draw_settings import DrawSettings, draw_settings
from app.walkmeshes import Walkmesh, material_name, walkable
from app.cli.clip_choice import chosen_clip_index

EXIT_OK, EXIT_USAGE, EXIT_UNREADABLE = 0, 2, 3

#: The size of a still or an animation when --size is not given.
DEFAULT_SIZE = (1280, 720)
#: ``--time`` may overshoot the clip's ends by this much (seconds) for rounding.
TIME_SLACK = 1e-6


class UsageError(Exception):
    """A bad argument found after parsing (exit 2)."""


class OutputError(Exception):
    """An output that cannot be written (exit 3, like an unreadable input)."""


def output_path(text: str) -> Path:
    """``-o``'s value as a path; an empty one is a usage error (it would name the current folder)."""
    if not text:
        raise UsageError("-o needs a file name, got ''")
    return Path(text)


def check_output(path: Path, inputs: Iterable[str | Path] = ()) -> None:
    """Fail before the work when ``path`` cannot or must not be written: a folder, a FIFO or device
    by that name, a folder that does not exist (exit 3), or one of ``inputs`` (exit 2: outputs are
    never written over inputs). A write that fails later is reported by ``writing``."""
    folder = path.parent
    with writing(path):  # a name the file system refuses (too long, …) fails here, not in a traceback
        kind = special_kind(path)
        if kind is not None:
            plain = "" if kind == "a folder" else " (outputs are written as regular files)"
            raise OutputError(f"cannot write {path}: it is {kind}{plain}")
        if not folder.exists():
            raise OutputError(f"cannot write {path}: no folder {folder}")
        if not folder.is_dir():
            raise OutputError(f"cannot write {path}: {folder} is not a folder")
    refuse_inputs(path, inputs)


def refuse_inputs(path: Path, inputs: Iterable[str | Path]) -> None:
    """UsageError when ``path`` is the same file as one of ``inputs`` (links and other names of it
    included)."""
    for source in inputs:
        if same_file(path, source):
            raise UsageError(f"{path} is the input file {source}: outputs are never written over inputs; "
                             "choose another name")


def named_inputs(args: Namespace) -> list[str]:
    """Every file the arguments name to read: the model's files (or the demo's), ``--clips-from``,
    ``--map``, ``--profile`` and ``--texture`` images."""
    named = list(demo_paths() if getattr(args, "demo", False) else getattr(args, "files", []))
    named += list(getattr(args, "clips_from", None) or [])
    named += [value for value in (getattr(args, "map", None), getattr(args, "profile", None)) if value]
    named += [image for _mesh, image in getattr(args, "texture", None) or []]
    return [str(path) for path in named]


def model_inputs(model: Model) -> list[str]:
    """Every file a loaded model was read from: its files, the supermodels found for it, its textures."""
    found = [file for _name, file in model.supermodels if file]
    textures = [mesh.material.texture_path for mesh in model.meshes if mesh.material.texture_path]
    walkmeshes = [walkmesh.source for walkmesh in model.walkmeshes if walkmesh.kind != "aabb"]
    return [*model.files, *found, *textures, *dict.fromkeys(walkmeshes)]


@contextmanager
def writing(path: Path):
    """Turn a failed write of ``path`` into the one-line exit-3 error."""
    try:
        yield
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error.strerror or error}") from None


def load_options(args: Namespace) -> formats.LoadOptions:
    """The reader options the command line sets (``--fps``, ``--texture``, …; every command and the
    window parse them alike)."""
    return formats.LoadOptions(fps=args.fps, conjugate_quaternions=args.conjugate_quaternions, up=args.up,
                               textures=list(args.texture), texture_dirs=list(args.texture_dir),
                               show_hidden=args.show_hidden, resources=list(args.resources),
                               plt_colours=dict(args.plt))


def load_model(args: Namespace, announce: bool = True) -> Model:
    """The model the arguments name, mixed and placed as they ask; its reading's warnings go to stderr
    as ``warning:`` lines unless ``announce`` is off (``info`` lists them itself)."""
    if args.demo and args.files:
        raise UsageError("give FILEs or --demo, not both")
    paths = demo_paths() if args.demo else args.files
    if not paths:
        raise UsageError("no FILE given (or use --demo for the built-in character)")
    options = load_options(args)
    model = loading.load(paths, options)
    if announce:
        warn(model.warnings)
    try:
        model = mixed_model(model, args, options)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if not getattr(args, "in_place", False):
        return model
    from app.animation.root_motion import in_place_model

    return in_place_model(model)


def load_model_for(args: Namespace, outputs: list[Path]) -> Model:
    """The model the arguments name, for a command that writes ``outputs``: each is checked before
    any work (``check_output``: writable, a regular file, none of the files named), then against
    every file the model turned out to read (supermodels and textures found)."""
    inputs = named_inputs(args)
    for output in outputs:
        check_output(output, inputs)
    model = load_model(args)
    for output in outputs:
        refuse_inputs(output, model_inputs(model))
    return model


def pose_at(model: Model, args: Namespace, default_first_clip: bool) -> Pose:
    """The pose ``--clip``/``--frame``/``--time`` select. With neither --frame nor --time: the bind
    pose (``pose``) or frame 0 of the clip (``render``). ``render --dangly``: the danglymeshes swung as
    the clip plays from its start to that instant."""
    wants_instant = args.frame is not None or args.time is not None
    if not model.clips and args.clip is None and not wants_instant:
        return evaluate(model, None, 0.0)
    if model.clips and not wants_instant and not default_first_clip:
        return evaluate(model, None, 0.0)
    if getattr(args, "dangly", False):
        return swung_at(model, *selected_instant(model, args))
    return evaluate(model, *selected_instant(model, args))


def selected_instant(model: Model, args: Namespace) -> tuple[Clip, float]:
    """The clip ``--clip`` names (default the first) and the time ``--frame``/``--time`` pick on it
    (default its first frame); a clip that cannot play is warned about."""
    if not model.clips:
        raise UsageError("the model has no clips; only the bind pose exists")
    try:
        clip = model.clips[chosen_clip_index(model, args.clip)]
        time = args.time if args.time is not None else frame_time(clip, args.frame or 0)
    except (KeyError, IndexError) as error:
        raise UsageError(error.args[0]) from None
    end = clip.start + clip.duration
    if not clip.start - TIME_SLACK <= time <= end + TIME_SLACK:
        raise UsageError(f"time {time:g} s outside {clip.start:g}..{end:g} s of clip {clip.name!r}")
    if clip.note:
        print(f"warning: clip {clip.name!r}: {clip.note}", file=sys.stderr)
    return clip, time


def describe(model: Model) -> dict:
    from app.animation.root_motion import root_travels

    skeleton = model.skeleton
    return {
        "files": model.files,
        "format": model.format,
        "warnings": model.warnings,
        "bones": len(skeleton),
        "vertices": model.vertex_count,
        "triangles": model.triangle_count,
        "meshes": len(model.meshes),
        "helpers": len(model.helpers),
        "clips": [{"name": clip.name, "frames": clip.frame_count, "duration": clip.duration,
                   "kind": clip.motion, "source": clip.source, "rate": clip.rate,
                   **({"morph_weights": True} if clip.skeletal and clip.weight_channels else {}),
                   "root_travel": travel, "root_speed": speed}
                  for clip, (travel, speed) in zip(model.clips, root_travels(model, model.clips))],
        "supermodels": [{"name": name, "file": found} for name, found in model.supermodels],
        "bone_names": skeleton.names,
        "parents": skeleton.parents.tolist(),
        "derived_tails": [name for name, derived in zip(skeleton.names, skeleton.derived_tails) if derived],
        "up": model.up_axis,
        "up_source": model.up_source,
        **({"file_unit_m": model.file_unit_m, "file_axes": model.file_axes}
           if model.file_unit_m is not None else {}),
        "forward": facing(model.up_axis, model.forward),
        "mesh_list": [{"name": mesh.name, "vertices": mesh.vertex_count, "triangles": mesh.triangle_count,
                       "visible": mesh.visible, "texture": mesh.material.texture,
                       "texture_path": mesh.material.texture_path, "colors": mesh.colors is not None}
                      for mesh in model.meshes],
        "walkmeshes": [walkmesh_facts(walkmesh) for walkmesh in model.walkmeshes],
    }


def walkmesh_facts(walkmesh: Walkmesh) -> dict:
    """``info --json``'s entry for a walkmesh: where it came from, its counts, faces per material."""
    return {"name": walkmesh.name, "kind": walkmesh.kind, "source": walkmesh.source,
            "vertices": len(walkmesh.vertices), "faces": len(walkmesh.faces),
            "materials": [{"id": material, "name": material_name(material), "walkable": walkable(material),
                           "faces": count} for material, count in walkmesh.faces_per_material().items()]}


def warn(warnings: list[str]) -> None:
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)


def render_settings(model: Model, args: Namespace) -> DrawSettings:
    """The DrawSettings ``render``'s options ask for (also ``batch render`` and animations); a model
    without meshes shows its skeleton, as in the window."""
    drawn = DrawSettings(skinning=args.skinning, bones=args.bones or not model.meshes,
                         show_hidden=args.show_hidden, wireframe=args.wireframe,
                         emitters=getattr(args, "emitters", False), walkmesh=args.walkmesh)
    return draw_settings(drawn, transparent=args.transparent)
