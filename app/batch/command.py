"""``boneyard batch info|render|convert|check PATH... -o OUTDIR`` (docs/cli.md, "boneyard batch")."""

from __future__ import annotations

import json
import os
import sys
import time
from argparse import Namespace
from pathlib import Path

from app.batch import report
from app.batch.grouping import Group, find_files, group_files
from app.batch.jobs import Job
from app.batch.pool import run_jobs
from app.progress import Progress

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNWRITABLE = 0, 1, 2, 3
#: Exit status after Ctrl+C (128 + SIGINT, as a shell reports it).
EXIT_INTERRUPTED = 130
#: The output file's extension per command.
EXTENSIONS = {"info": ".json", "render": ".png", "convert": ".glb", "check": ".json"}


def default_jobs() -> int:
    """Every core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def run(args: Namespace) -> int:
    """The batch: exit 0 when every model is ok, 1 when any failed, 2 for usage, 3 for an OUTDIR or
    report that cannot be written (before any work)."""
    outdir = Path(args.output)
    problem = prepare_outdir(outdir) or (prepare_report(Path(args.report)) if args.report else None)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_UNWRITABLE
    start = time.perf_counter()
    groups = group_files(find_files(args.paths, skip=outdir))
    if not groups:
        print(f"boneyard batch {args.batch_command}: error: no model files under "
              f"{', '.join(args.paths)}", file=sys.stderr)
        return EXIT_USAGE
    outputs = plan_outputs(groups, outdir, EXTENSIONS[args.batch_command])
    previous = report.read_report(Path(args.report)) if args.report and args.skip_existing else {}
    entries: list[dict] = []
    jobs: list[Job] = []
    for index, (group, output) in enumerate(zip(groups, outputs)):
        if args.skip_existing and output.is_file():
            entries.append(previous.get(group.relative) or _skipped(group, output))
            continue
        output.parent.mkdir(parents=True, exist_ok=True)
        jobs.append(Job(index, group.paths, str(output), group.error))
    skipped = len(entries)
    report_file = open(args.report, "w", encoding="utf-8") if args.report else None
    progress = Progress(f"batch {args.batch_command}")
    interrupted = False
    try:
        for line in entries:
            _write_line(report_file, line)
        for job, result in run_jobs(jobs, args, args.jobs or default_jobs(), args.timeout,
                                    tick=lambda: progress.enabled and progress.draw()):
            group = groups[job.index]
            files = [group.relative_of(path) for path in result["files"]]
            output = job.output if result["status"] == "ok" else None
            line = report.entry(group.relative, output, result, files)
            entries.append(line)
            _write_line(report_file, line)
            progress.update((len(entries) - skipped) / len(jobs), f"{len(entries)} of {len(groups)} models")
    except KeyboardInterrupt:
        interrupted = True
    finally:
        progress.__exit__(None, None, None)
        if report_file is not None:
            report_file.close()
    line = report.summary(args.batch_command, entries, time.perf_counter() - start, skipped)
    if interrupted:
        line += f"; interrupted, {len(groups) - len(entries)} not done (--skip-existing resumes)"
    report.write_index(outdir / "index.html", args.batch_command, entries, line)
    print(line)
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_OK if all(entry["status"] == "ok" for entry in entries) else EXIT_FAILED


def prepare_outdir(outdir: Path) -> str | None:
    """Make OUTDIR (and its parents); the reason it cannot be written to, else None."""
    try:
        outdir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return f"cannot write {outdir}: {error.strerror or error}"
    if not os.access(outdir, os.W_OK | os.X_OK):
        return f"cannot write {outdir}: permission denied"
    return None


def prepare_report(path: Path) -> str | None:
    """The reason the report file cannot be written, else None (its folder must exist)."""
    if path.is_dir():
        return f"cannot write {path}: it is a folder"
    folder = path.parent
    if not folder.is_dir():
        return f"cannot write {path}: no folder {folder}"
    if not os.access(path if path.exists() else folder, os.W_OK):
        return f"cannot write {path}: permission denied"
    return None


def plan_outputs(groups: list[Group], outdir: Path, extension: str) -> list[Path]:
    """Each model's output: its main file's path below its PATH with ``extension``; a model whose
    output another model already takes (``hero.mdl`` and ``hero.glb``) keeps its whole file name."""
    taken: set[Path] = set()
    outputs = []
    for group in groups:
        relative = Path(group.relative)
        output = outdir / relative.with_suffix(extension)
        if output in taken:
            output = outdir / relative.with_name(relative.name + extension)
        taken.add(output)
        outputs.append(output)
    return outputs


def _skipped(group: Group, output: Path) -> dict:
    return {"model": group.relative, "files": [group.relative], "status": "ok", "error": None,
            "warnings": 0, "seconds": 0.0, "output": str(output), "vertices": None, "bones": None,
            "clips": None, "clip_names": [], "messages": [], "skipped": True}


def _write_line(handle, line: dict) -> None:
    if handle is not None:
        handle.write(json.dumps(line) + "\n")
        handle.flush()
