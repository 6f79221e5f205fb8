"""The ``boneyard`` command: the desktop app, or a headless sub-command (docs/cli.md).

Sub-commands never import Qt, so they run without a display and start fast.
"""

from __future__ import annotations

import argparse
import gc
import math
import re
import sys
from pathlib import Path

from app import __version__
from app.interrupts import exit_status, stop_on_signals
from app.maths import NORMALIZE_EPSILON

SUBCOMMANDS = ("info", "pose", "render", "convert", "ragdoll", "check", "batch")
VIEWS = ("front", "side", "top", "iso")
EXIT_USAGE = 2
WINDOW_USAGE = "boneyard [FILE ...] [--screenshot OUT.png [--size WxH]] [MODEL OPTIONS]"


class Parser(argparse.ArgumentParser):
    """argparse with values that begin with ``-`` and a digit taken as values, not options
    (``--shoot -1,0,2:1,0,0``, ``--time -0.5``); no option of Boneyard's looks like a number.
    Options are never abbreviated: ``--bone`` is an error, not ``--bones``."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-\.?\d")


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 1280x720, got {text!r}") from None
    if not (1 <= width <= 16384 and 1 <= height <= 16384):
        raise argparse.ArgumentTypeError(f"size {text!r} outside 1..16384 on a side")
    return width, height


def _number(low: float, high: float, above_low: bool = False):
    """An argparse type: a finite number in ``low..high`` (``above_low``: strictly above ``low``)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}") from None
        if not (low < value if above_low else low <= value) or not value <= high:
            lower = f"above {low:g}" if above_low else f"at least {low:g}"
            raise argparse.ArgumentTypeError(
                f"{text[:40]!r} is not a finite number {lower} and at most {high:g}")
        return value
    return parse


#: Option ranges: frame rates (at least one frame in 1000 s, so a file's frame times stay finite), a
#: simulation's length (its frames are kept in memory), clip times, impulses.
FPS = _number(0.001, 1000.0)
SECONDS = _number(0.0, 600.0, above_low=True)
TIME = _number(-1e6, 1e6)
IMPULSE = _number(0.0, 1e6)
TIME_SPAN = _number(0.0, 1e6)
STRENGTH = _number(0.0, 1.0)
#: ``batch --timeout``: up to a day per model.
TIMEOUT = _number(0.0, 86400.0, above_low=True)


def _clip_and(number):
    """An argparse type: ``CLIP:NUMBER``, the number checked by ``number``."""
    def parse(text: str) -> tuple[str, float]:
        clip, colon, value = text.rpartition(":")
        if not colon or not clip:
            raise argparse.ArgumentTypeError(f"expected CLIP:NUMBER, got {text[:40]!r}")
        return clip, number(value)
    return parse


def _add_mix(parser: argparse.ArgumentParser) -> None:
    """Two clips at once and clips of another skeleton (docs/cli.md)."""
    second = parser.add_mutually_exclusive_group()
    second.add_argument("--blend", type=_clip_and(STRENGTH), metavar="CLIP:W",
                        help="mix the --clip with CLIP by weight W (0: the --clip, 1: CLIP)")
    second.add_argument("--add", metavar="CLIP", help="add CLIP's change from its first frame on top")
    second.add_argument("--crossfade", type=_clip_and(TIME_SPAN), metavar="CLIP:S",
                        help="play the --clip, then CLIP, fading over S seconds")
    parser.add_argument("--mask", action="append", default=[], metavar="BONE",
                        help="limit the second clip to BONE's subtree; repeatable")
    parser.add_argument("--clips-from", nargs="+", default=[], metavar="FILE",
                        help="play the clips of these files' skeleton on this one (they replace its clips)")
    parser.add_argument("--map", metavar="MAP.json",
                        help="with --clips-from: the bone map {\"source bone\": \"target bone\"} "
                        "(default: suggested from names and the hierarchy, or where numbered bones rest)")
    parser.add_argument("--in-place", action="store_true",
                        help="take the root's travel over the ground off every clip (as View › In Place "
                        "shows it); the clips are then stored as bone matrices at their frames")


def _has_direction(direction: tuple[float, ...]) -> bool:
    """Whether ``direction`` is long enough to aim a ray along (the ragdoll's own rule)."""
    return math.hypot(*direction) > NORMALIZE_EPSILON


def _shot(text: str) -> tuple[tuple[float, ...], tuple[float, ...], float | None]:
    """``X,Y,Z:DX,DY,DZ[@T]`` → (origin, direction, time or None)."""
    try:
        ray, _, when = text.partition("@")
        origin, direction = (tuple(float(v) for v in part.split(",")) for part in ray.split(":"))
        time = float(when) if when else None
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected X,Y,Z:DX,DY,DZ[@T] such as 0,1,2:0,0,-1@0.5, got {text!r}") from None
    values = (*origin, *direction, 0.0 if time is None else time)
    if len(origin) != 3 or len(direction) != 3 or (time is not None and time < 0) \
            or not all(abs(value) <= 1e6 for value in values) or not _has_direction(direction):
        raise argparse.ArgumentTypeError(
            f"expected a point, a direction at least {NORMALIZE_EPSILON:g} long and a time >= 0, finite "
            f"and within ±1e6, got {text[:80]!r}")
    return origin, direction, time


def _texture(text: str) -> tuple[str | None, str]:
    """``[MESH=]IMAGE`` → (mesh name or None for every mesh, image path); a path that names an
    existing file is taken whole even when it holds '='."""
    mesh, equals, image = text.partition("=")
    if not equals or Path(text).is_file():
        return None, text
    if not mesh or not image:
        raise argparse.ArgumentTypeError(f"expected [MESH=]IMAGE such as body=skin.png, got {text!r}")
    return mesh, image


def _plt_choice(text: str) -> tuple[str, int]:
    from app.formats.nwn.plt import parse_choice

    try:
        return parse_choice(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """The options every command and the window take (docs/cli.md)."""
    parser.add_argument("--up", type=str.upper, choices=("Y", "Z"), metavar="y|z",
                        help="the model's up axis, overriding the file's or the guessed one")
    parser.add_argument("--texture", type=_texture, action="append", default=[], metavar="[MESH=]IMAGE",
                        help="an image (PNG, JPEG, TGA, DDS, BMP) for every mesh, or for the mesh named "
                             "MESH; repeatable")
    parser.add_argument("--texture-dir", action="append", default=[], metavar="DIR",
                        help="a folder searched for textures the files name; repeatable")
    parser.add_argument("--show-hidden", action="store_true",
                        help="also draw and export meshes the file marks as not rendered")
    parser.add_argument("--resources", action="append", default=[], metavar="PATH",
                        help="a folder or NWN archive (.hak .erf .mod .nwm .sav, a .key with its .bif "
                             "files) searched for supermodels, textures and palettes; repeatable, in order")
    parser.add_argument("--plt", type=_plt_choice, action="append", default=[], metavar="LAYER=INDEX",
                        help="the colour index (0-175) of a PLT layer (skin hair metal1 metal2 cloth1 cloth2 "
                             "leather1 leather2 tattoo1 tattoo2); repeatable")


def _add_files(parser: argparse.ArgumentParser, load_fps: bool = True) -> None:
    parser.add_argument("files", nargs="*", metavar="FILE", help="model and animation files (one model)")
    parser.add_argument("--demo", action="store_true", help="use the built-in demo character")
    _add_load_options(parser, load_fps)


def _add_load_options(parser: argparse.ArgumentParser, load_fps: bool = True) -> None:
    if load_fps:
        parser.add_argument("--fps", type=FPS, help="frames per second for formats that store no times")
    else:
        parser.set_defaults(fps=None)
    parser.add_argument("--conjugate-quaternions", action="store_true",
                        help="conjugate .anm quaternions (files from a tool with the opposite sign)")
    add_model_options(parser)
    parser.add_argument("--debug", action="store_true", help="show a traceback on errors")


def _add_instant(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--clip", help="clip name or 0-based index (default: the first clip)")
    when = parser.add_mutually_exclusive_group()
    when.add_argument("--frame", type=int, help="the N-th stored frame or key of the clip (0-based)")
    when.add_argument("--time", type=TIME, help="seconds on the clip's timeline")


def _add_render_options(render: argparse.ArgumentParser, default_size: tuple[int, int] | None = None) -> None:
    size = "1280x720; a sheet's frames 320x240" if default_size is None else "x".join(map(str, default_size))
    render.add_argument("--size", type=_size, default=default_size, help=f"WIDTHxHEIGHT (default {size})")
    render.add_argument("--bones", action="store_true", help="draw the skeleton")
    render.add_argument("--wireframe", action="store_true", help="draw the wireframe over the shading")
    render.add_argument("--transparent", action="store_true", help="transparent background")
    render.add_argument("--walkmesh", action="store_true",
                        help="lay the walkmeshes over the model, coloured by surface material, with a legend")
    render.add_argument("--view", choices=VIEWS, default="iso", help="camera direction (default iso)")
    render.add_argument("--skinning", choices=("lbs", "dqs"), default="lbs",
                        help="linear blend or dual quaternion skinning")
    render.add_argument("--emitters", action="store_true",
                        help="draw particle emitters' cones and birth planes (NWN)")
    render.add_argument("--dangly", action="store_true",
                        help="swing danglymeshes as the clip plays up to each frame (NWN)")


def _info_parser(commands) -> None:
    info = commands.add_parser("info", help="what is in the files")
    _add_files(info)
    info.add_argument("--json", action="store_true", help="machine-readable output")


def _pose_parser(commands) -> None:
    pose = commands.add_parser("pose", help="write the posed bones and vertices at one instant")
    _add_files(pose)
    _add_instant(pose)
    _add_mix(pose)
    pose.add_argument("-o", "--output", required=True,
                      help="OUT.npz, OUT.json, OUT.obj, or OUT.glb/.gltf (static mesh)")


def _render_parser(commands) -> None:
    render = commands.add_parser("render", help="render a PNG, a video, an animated image or a contact "
                                 "sheet without a window")
    _add_files(render)
    _add_instant(render)
    _add_mix(render)
    render.add_argument("-o", "--output", required=True,
                        help="OUT.png, or a clip as OUT.mp4|.webm|.gif|.webp or frames/OUT_%%04d.png")
    _add_render_options(render)
    render.add_argument("--from", dest="start", type=TIME, metavar="S",
                        help="animation: first instant, seconds on the clip (default its start)")
    render.add_argument("--to", dest="end", type=TIME, metavar="S",
                        help="animation: last instant, seconds on the clip (default its end)")
    render.add_argument("--turntable", action="store_true", help="animation: the camera circles once")
    render.add_argument("--sheet", action="store_true",
                        help="a contact sheet (-o OUT.png): one row per clip of --frames frames")
    render.add_argument("--frames", type=int, default=6, metavar="K",
                        help="frames per clip on a --sheet (default 6)")
    render.add_argument("--onion", type=int, default=0, metavar="N",
                        help="N ghosted poses before and after the instant, or each frame of an animation or "
                             "sheet (onion skins)")
    render.add_argument("--onion-step", type=TIME, metavar="S",
                        help="seconds between onion skins (default one frame of the clip's rate)")


def _convert_parser(commands) -> None:
    convert = commands.add_parser("convert", help="write glTF 2.0 (.glb or .gltf)")
    _add_files(convert)
    convert.add_argument("-o", "--output", required=True, help="OUT.glb or OUT.gltf")
    convert.add_argument("--clip", action="append", help="export only these clips (name or index); "
                         "with --blend, --add or --crossfade, the first clip of the mix")
    _add_mix(convert)
    convert.add_argument("--check", action="store_true",
                         help="re-read the written file and print the worst vertex error over every "
                         "clip's frames")


def _ragdoll_parser(commands) -> None:
    ragdoll = commands.add_parser("ragdoll", help="simulate the ragdoll and write the run (.npz or .glb)")
    _add_files(ragdoll, load_fps=False)
    _add_instant(ragdoll)
    ragdoll.add_argument("-o", "--output", help="OUT.npz or OUT.glb (not with --check)")
    ragdoll.add_argument("--profile", help="ragdoll profile JSON (default: FILE.ragdoll.json beside the "
                         "first file, else an automatic setup)")
    ragdoll.add_argument("--seconds", type=SECONDS, default=3.0, help="how long to simulate (default 3, "
                         "at most 600)")
    ragdoll.add_argument("--fps", dest="output_fps", metavar="F", type=FPS, default=60.0,
                         help="frames per second written (default 60)")
    ragdoll.add_argument("--shoot", type=_shot, action="append", default=[], metavar="X,Y,Z:DX,DY,DZ[@T]",
                         help="a ray from X,Y,Z along DX,DY,DZ at T seconds (default 0.5); repeatable")
    ragdoll.add_argument("--impulse", type=IMPULSE, default=10.0,
                         help="impulse of each shot in N·s (default 10)")
    ragdoll.add_argument("--positions", choices=("full", "half", "none"), default="full",
                         help="posed vertices in the .npz: float32 (default), float16, or left out")
    ragdoll.add_argument("--save-profile", metavar="OUT.json",
                         help="also write the profile the run used (loaded or automatic)")
    ragdoll.add_argument("--follow", action="store_true",
                         help="drive the joints toward the clip (--clip, default the first) with motors "
                         "while the root follows it")
    ragdoll.add_argument("--strength", type=STRENGTH, default=None, metavar="S",
                         help="motor strength from 0 to 1 (default 1 with --follow; without it, a powered "
                         "fall holding the take-over pose)")
    ragdoll.add_argument("--release", type=SECONDS, default=None, metavar="T",
                         help="from T seconds, free the root and fade the motors out over the rest of "
                         "the run")
    ragdoll.add_argument("--check", action="store_true",
                         help="run the profile through the standard trial and print a JSON report "
                         "(exit 1 when it fails)")


def _check_parser(commands) -> None:
    check = commands.add_parser("check", help="hold a model to its format's engine rules "
                                "(Neverwinter Nights)")
    _add_files(check)
    check.add_argument("--json", action="store_true", help="machine-readable output")


def _batch_parser(commands) -> None:
    from app.cli.batch.arguments import add_batch_parser

    add_batch_parser(commands, _add_load_options, _add_render_options, _add_instant, TIMEOUT)


#: Each command's sub-parser, in the order ``boneyard --help`` lists them.
COMMAND_PARSERS = {"info": _info_parser, "pose": _pose_parser, "render": _render_parser,
                   "convert": _convert_parser, "ragdoll": _ragdoll_parser, "check": _check_parser,
                   "batch": _batch_parser}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of ``command`` alone (what a run of that command parses: its
    arguments and messages are the same, and the other commands' set-up is not paid for)."""
    parser = Parser(prog="boneyard", formatter_class=argparse.RawDescriptionHelpFormatter,
                    usage=f"{WINDOW_USAGE}\n       boneyard COMMAND ... (boneyard COMMAND --help)",
                    description="Viewer and ragdoll sandbox for legacy skinned meshes and skeletal "
                    "animation.",
                    epilog="The desktop app: boneyard FILE ... opens the files in the window (no FILE: the "
                    "built-in demo);\n--screenshot OUT.png saves the whole window after the first full frame "
                    "and quits,\n--size WxH sets the window size for it. MODEL OPTIONS are those every "
                    "command takes\n(--fps, which for ragdoll is the output rate instead; "
                    "--conjugate-quaternions, --up, --texture, --texture-dir, --show-hidden; "
                    "boneyard info --help).")
    parser.add_argument("--version", action="version", version=f"boneyard {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", prog="boneyard")
    for name, add in COMMAND_PARSERS.items():
        if command is None or name == command:
            add(commands)
    return parser


def build_app_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="boneyard", description="Open the desktop app.", epilog=(
        "Headless commands: " + ", ".join(SUBCOMMANDS) + " (boneyard COMMAND --help)."))
    parser.add_argument("--version", action="version", version=f"boneyard {__version__}")
    parser.add_argument("files", nargs="*", metavar="FILE", help="files to open (default: the demo)")
    parser.add_argument("--screenshot", metavar="OUT.png",
                        help="save a screenshot of the window after the first full frame, then quit")
    parser.add_argument("--size", type=_size, help="window size for --screenshot, WIDTHxHEIGHT")
    parser.add_argument("--fps", type=FPS, help="frames per second for formats that store no times")
    parser.add_argument("--conjugate-quaternions", action="store_true",
                        help="conjugate .anm quaternions (files from a tool with the opposite sign)")
    add_model_options(parser)
    return parser


def first_word(parser: argparse.ArgumentParser, argv: list[str]) -> str | None:
    """The first argument that is neither an option of the window's ``parser`` nor an option's value."""
    takes_value = {option for action in parser._actions if action.nargs != 0
                   for option in action.option_strings}
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--":
            continue
        elif arg.startswith("-") and len(arg) > 1:
            skip = arg in takes_value
        else:
            return arg
    return None


def unknown_command(word: str) -> str | None:
    """The error for a first word that names neither a command nor a file that exists: a file name
    with no folder and no extension is taken for a mistyped command."""
    if Path(word).exists() or any(mark in word for mark in "/.\\"):
        return None
    import difflib

    near = difflib.get_close_matches(word, SUBCOMMANDS, n=1, cutoff=0.6)
    if near:
        return f"boneyard: error: unknown command {word!r}; did you mean {near[0]!r}?"
    return (f"boneyard: error: unknown command {word!r} and no file of that name "
            f"(commands: {', '.join(SUBCOMMANDS)})")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    app_parser = build_app_parser()
    first = first_word(app_parser, argv)
    if first in SUBCOMMANDS or (argv and argv[0] in ("-h", "--help")):
        # A command given first parses with its own sub-parser alone; anything before it (--help) with all.
        args = build_parser(first if argv[0] == first else None).parse_args(argv)
        if args.command == "batch" and args.batch_command == "merge":
            from app.cli.batch.merge import run_merge

            return run_merge(args)
        if args.command == "batch":
            from app.cli.batch.run import run

            return run(args)
        from app.cli import commands

        return commands.run(args)
    error = unknown_command(first) if first is not None else None
    if error:
        print(error, file=sys.stderr)
        return EXIT_USAGE
    args = app_parser.parse_args(argv)
    from app.cli.launch import launch_app

    return launch_app(args)


def entry() -> int:
    """The console script: ``main`` that ends quietly when its output pipe closes (``| head``), and
    in one line when Ctrl+C, SIGTERM or SIGHUP stops it (each output is written whole or not at all).

    What is left when it returns is frozen out of the garbage collector's reach: the interpreter's
    collections at exit would spend about 20 ms of a ``render`` on objects the exit frees anyway."""
    stop_on_signals()
    try:
        return main()
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    except KeyboardInterrupt as interrupt:
        print("boneyard: interrupted; no output was left half-written", file=sys.stderr)
        return exit_status(interrupt)
    finally:
        gc.freeze()
