"""The ``batch`` sub-command's arguments (docs/cli.md, "boneyard batch"). Standard library only:
the parser is built on every start."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from app.cli.batch.shards import parse_shard

#: Seconds one model may take by default before its worker is stopped.
DEFAULT_TIMEOUT = 300.0
#: A thumbnail's default size in ``batch render``.
THUMBNAIL = (512, 512)
#: How ``batch render`` smooths edges (render/offscreen.py, ANTIALIASING; docs/benchmarks.md).
ANTIALIASING = ("msaa", "fxaa", "none")
THUMBNAIL_ANTIALIAS = "fxaa"


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of workers, got {text[:40]!r}") from None
    if not 1 <= value <= 1024:
        raise argparse.ArgumentTypeError(f"{value} workers: expected 1 to 1024")
    return value


def add_batch_parser(commands, load_options: Callable, render_options: Callable, instant: Callable,
                     seconds: Callable) -> None:
    """``batch info|render|convert|check`` under ``commands`` (the sub-command parsers); the other
    arguments add the options every model takes, ``render``'s and the clip instant's, and ``seconds``
    is the type of ``--timeout``."""
    batch = commands.add_parser("batch", help="run info, render, convert or check on every model under "
                                "folders, on worker processes, with a report")
    kinds = batch.add_subparsers(dest="batch_command", metavar="info|render|convert|check|merge",
                                 required=True)
    helps = {"info": "write each model's info --json", "render": "write each model's thumbnail (PNG)",
             "convert": "write each model as glTF (.glb)",
             "check": "load, pose every clip, round-trip through glTF and drop the ragdoll; report only"}
    for name, text in helps.items():
        parser = kinds.add_parser(name, help=text)
        parser.add_argument("paths", nargs="+", metavar="PATH",
                            help="files and folders (searched recursively)")
        parser.add_argument("-o", "--output", required=True, metavar="OUTDIR", help="the folder written to")
        parser.add_argument("--jobs", type=_jobs, metavar="N",
                            help="worker processes (default, and at most: every core)")
        parser.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT, metavar="S",
                            help=f"seconds one model may take before its worker is stopped (default "
                                 f"{DEFAULT_TIMEOUT:g})")
        parser.add_argument("--report", metavar="OUT.jsonl",
                            help="one JSON object per model (put in place whole when the batch ends)")
        parser.add_argument("--skip-existing", action="store_true",
                            help="leave out models the --report says succeeded, whose output is there with "
                                 "the size it recorded (resume an interrupted batch)")
        parser.add_argument("--shard", type=parse_shard, metavar="K/N",
                            help="only the K-th of N disjoint slices of the models, the same on every "
                                 "machine (join the shards' reports with batch merge)")
        load_options(parser)
        if name == "render":
            instant(parser)
            render_options(parser, default_size=THUMBNAIL)
            parser.add_argument("--sheet", action="store_true",
                                help="a contact sheet per model instead of a thumbnail: a row per clip of "
                                     "--frames frames (--size is a frame's size)")
            parser.add_argument("--frames", type=int, default=6, metavar="K",
                                help="frames per clip on a --sheet (default 6)")
            parser.add_argument("--antialias", choices=ANTIALIASING, default=THUMBNAIL_ANTIALIAS,
                                help=f"how edges are smoothed: msaa (4 samples a pixel, as render draws), "
                                     f"fxaa (one sample and a smoothing pass: faster) or none (default "
                                     f"{THUMBNAIL_ANTIALIAS})")
        elif name == "convert":
            parser.add_argument("--clip", action="append", help="export only these clips (name or index)")
            parser.add_argument("--check", action="store_true",
                                help="re-read each written file; the worst vertex error is a warning")
    merge = kinds.add_parser("merge", help="join the reports of a batch's shards into one report and "
                             "one index.html")
    merge.add_argument("reports", nargs="+", metavar="REPORT.jsonl", help="the shards' --report files")
    merge.add_argument("-o", "--output", required=True, metavar="OUTDIR",
                       help="the folder of the batch's outputs, where index.html is written")
    merge.add_argument("--report", metavar="OUT.jsonl",
                       help="the joined report (default: OUTDIR/report.jsonl)")
