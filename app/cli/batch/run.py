"""``boneyard batch info|render|convert|check PATH... -o OUTDIR`` (docs/cli.md, "boneyard batch").

Nothing the user had is lost: no output may land on an input (checked before any work), the report
and OUTDIR are locked against a second batch, every file is written whole or not at all, and an
interruption, a kill of the batch or a full disk ends with what was done kept and one line said.
"""

from __future__ import annotations

import os
import sys
import time
from argparse import Namespace
from collections.abc import Callable, Iterator
from contextlib import ExitStack, closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

from app.atomic_files import special_kind
from app.cli.batch import report
from app.cli.batch.grouping import Found, Group, find_files, group_files
from app.cli.batch.jobs import Job
from app.cli.batch.locks import InUse, holding
from app.cli.batch.names import shown
from app.cli.batch.pool import run_jobs
from app.cli.batch.shards import Shard
from app.cli.progress import Progress
from app.cli.render_animation import sheet_request_problem
from app.interrupts import exit_status, stop_on_signals
from app.cli.wording import counted

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNWRITABLE = 0, 1, 2, 3
#: The output file's extension per command.
EXTENSIONS = {"info": ".json", "render": ".png", "convert": ".glb", "check": ".json"}
INDEX = "index.html"
#: How every report line begins (report.entry's first key).
REPORT_START = b'{"model": '


class Refused(Exception):
    """The batch cannot start or go on: ``message`` is its one line on stderr, ``status`` the exit."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.message, self.status = message, status


@dataclass
class Plan:
    """What the batch will do: its models (with ``--shard``, those of its slice), each one's output,
    and the files found under the PATHs."""

    groups: list[Group]
    outputs: list[Path]
    found: list[Found]
    outdir: Path
    report: Path | None
    shard: Shard | None = None

    @property
    def index(self) -> Path:
        """``index.html``; a shard's own page is ``index.K-of-N.html``, so that shards writing to one
        shared OUTDIR neither replace nor lock one another's (``batch merge`` writes ``index.html``)."""
        if self.shard is None:
            return self.outdir / INDEX
        return self.outdir / f"index.{self.shard.number}-of-{self.shard.count}.html"


@dataclass
class Ending:
    """How the models' run ended: ``status`` None when every model was done, else the exit status,
    with ``note`` for the summary and ``error`` for stderr."""

    status: int | None = None
    note: str = ""
    error: str = ""


def default_jobs() -> int:
    """Every core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def run(args: Namespace, work: Callable[[Namespace], int] | None = None) -> int:
    """The batch (or ``work``, another batch step such as ``batch merge``, whose refusals end the same
    way): exit 0 when every model is ok, 1 when any failed, 2 for usage, 3 for an output that cannot
    be written (OUTDIR, the report, a full disk) or one another batch holds, 128 + the signal when
    interrupted."""
    stop_on_signals()
    try:
        return (work or _run)(args)
    except Refused as refusal:
        print(refusal.message, file=sys.stderr)
        return refusal.status
    except KeyboardInterrupt as interrupt:  # before the workers started, or while finishing
        print(f"boneyard batch {args.batch_command}: interrupted", file=sys.stderr)
        return exit_status(interrupt)
    except OSError as error:  # one the steps above did not expect: still one line
        print(f"error: {_os_error(error)}", file=sys.stderr)
        return EXIT_UNWRITABLE


def _run(args: Namespace) -> int:
    start = time.perf_counter()
    plan = make_plan(args)
    with locked(plan):
        entries, jobs = _resume(args, plan)
        skipped = len(entries)
        _make_folders(jobs)
        ending = _run_models(args, plan, jobs, entries)
        line = report.summary(args.batch_command, entries, time.perf_counter() - start, skipped)
        if plan.shard is not None:
            line += f" (shard {plan.shard})"
        if ending.status is not None:
            line += f"; {ending.note}, {len(plan.groups) - len(entries)} not done (--skip-existing resumes)"
        index_error = _write_index(plan, args.batch_command, entries, line)
    print(line)
    error = ending.error or index_error
    if error:
        print(error, file=sys.stderr)
    if ending.status is not None:
        return ending.status
    if index_error:
        return EXIT_UNWRITABLE
    return EXIT_OK if all(entry["status"] == "ok" for entry in entries) else EXIT_FAILED


def make_plan(args: Namespace) -> Plan:
    """The checked plan: Refused for usage (exit 2) or an OUTDIR or report that cannot be one (3)."""
    command = args.batch_command
    if not args.output:
        raise _usage(command, "-o OUTDIR is empty; name the folder to write to")
    if args.report == "":
        raise _usage(command, "--report is empty; name the report's file")
    if args.skip_existing and not args.report:
        raise _usage(command, "--skip-existing needs --report (it trusts only what the report recorded)")
    if getattr(args, "sheet", False):
        problem = sheet_request_problem(args.frames, args.size)
        if problem:
            raise _usage(command, problem)
    outdir = Path(args.output)
    report_path = Path(args.report) if args.report else None
    check_kinds(outdir, report_path)
    found = find_files(args.paths, skip=outdir, warn=_warning)
    groups = group_files(found)
    if not groups:
        raise _usage(command, f"no model files under {', '.join(map(shown, args.paths))}")
    plan = Plan(groups, plan_outputs(groups, outdir, EXTENSIONS[command]), found, outdir, report_path,
                args.shard)
    collision = find_collision(plan)
    if collision:
        raise _usage(command, collision)
    if args.shard is not None:
        plan = _slice(plan, args.shard, command)
    prepare(plan)
    return plan


def _slice(plan: Plan, shard: Shard, command: str) -> Plan:
    """The plan's models in ``shard``'s slice. Outputs are planned over the whole library first, so a
    model's output is the one an unsharded batch gives it. Refused when the report holds models of
    other slices: the shard would replace their lines (each shard needs a report of its own)."""
    kept = [(group, output) for group, output in zip(plan.groups, plan.outputs)
            if shard.holds(group.relative)]
    if plan.report is not None:
        others = {shown(group.relative) for group in plan.groups if not shard.holds(group.relative)}
        foreign = sorted(others.intersection(report.read_report(plan.report)))
        if foreign:
            raise _usage(command, f"--report {shown(plan.report)} holds models of other shards "
                                  f"({foreign[0]!r} is not in shard {shard}); give each shard a report of "
                                  f"its own and join them with batch merge")
    return Plan([group for group, _ in kept], [output for _, output in kept], plan.found, plan.outdir,
                plan.report, shard)


def _usage(command: str, message: str) -> Refused:
    return Refused(f"boneyard batch {command}: error: {message}", EXIT_USAGE)


def unwritable(message: str) -> Refused:
    return Refused(f"error: {message}", EXIT_UNWRITABLE)


def _warning(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def check_kinds(outdir: Path, report_path: Path | None) -> None:
    """OUTDIR must be a folder (or not exist yet), the report a regular file (or not exist yet)."""
    kind = special_kind(outdir)
    if os.path.isfile(outdir):
        raise unwritable(f"OUTDIR {shown(outdir)} is a file")
    if kind and kind != "a folder":
        raise unwritable(f"OUTDIR {shown(outdir)} is {kind}")
    kind = special_kind(report_path) if report_path is not None else None
    if kind:
        raise unwritable(f"cannot write {shown(report_path)}: it is {kind}")


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


class KnownFiles:
    """Files by what they are, found by real path or (where they exist) by device and inode, so a
    link or a second name of a file is the file."""

    def __init__(self, named: dict[Path, str]):
        self.by_path = {os.path.realpath(path): name for path, name in named.items()}
        self.by_inode = {key: name for path, name in named.items() if (key := _inode(path))}

    def get(self, path: Path) -> str | None:
        """What ``path`` is among these files, else None."""
        name = self.by_path.get(os.path.realpath(path))
        if name is None and (key := _inode(path)):
            name = self.by_inode.get(key)
        return name


def _inode(path: Path) -> tuple[int, int] | None:
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return None
    return status.st_dev, status.st_ino


def find_collision(plan: Plan) -> str | None:
    """Why the plan would write over a file it must keep, else None: a model's output or the index
    over any file found under the PATHs, the report over one of a model's files, over another file
    found (a texture, a glTF buffer; a previous report found there may be replaced) or over the
    batch's own outputs."""
    found = KnownFiles({item.path: f"the input {shown(item.path)}" for item in plan.found})
    for output in [*plan.outputs, plan.index]:
        hit = found.get(output)
        if hit:
            return f"the output {shown(output)} would replace {hit}; choose another OUTDIR"
    if plan.report is None:
        return None
    models = KnownFiles({Path(path): f"an input of model {shown(group.relative)}"
                     for group in plan.groups
                     for path in [*group.paths, *(found.path for found in group.walkmeshes)]})
    ours = KnownFiles({plan.index: "the batch's index page",
                   **{output: f"the output of model {shown(group.relative)}"
                      for group, output in zip(plan.groups, plan.outputs)}})
    hit = models.get(plan.report) or ours.get(plan.report)
    if hit is None and not _previous_report(plan.report):
        hit = found.get(plan.report)
    if hit:
        return f"--report {shown(plan.report)} is {hit}; name another file"
    return None


def _previous_report(path: Path) -> bool:
    """Whether ``path`` is empty or starts as a batch report does."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(REPORT_START))
    except OSError:
        return False
    return head in (b"", REPORT_START)


def prepare(plan: Plan) -> None:
    """Make OUTDIR (and its parents); Refused when it or the report's folder cannot be written."""
    outdir = plan.outdir
    try:
        outdir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise unwritable(f"cannot write {shown(outdir)}: {error.strerror or error}") from None
    if not os.access(outdir, os.W_OK | os.X_OK):
        raise unwritable(f"cannot write {shown(outdir)}: permission denied")
    kind = special_kind(plan.index)
    if kind:
        raise unwritable(f"cannot write {shown(plan.index)}: it is {kind}")
    if plan.report is None:
        return
    folder = plan.report.parent
    if not folder.is_dir():
        raise unwritable(f"cannot write {shown(plan.report)}: no folder {shown(folder)}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise unwritable(f"cannot write {shown(plan.report)}: permission denied")


@contextmanager
def locked(plan: Plan) -> Iterator[None]:
    """Hold the report and OUTDIR against another batch; Refused (exit 3) when one holds either."""
    targets = [plan.index] + ([plan.report] if plan.report is not None else [])
    with ExitStack() as stack:
        try:
            stack.enter_context(holding(targets))
        except InUse as in_use:
            held = in_use.path
            what = f"OUTDIR {shown(plan.outdir)}" if held == plan.index else f"the report {shown(held)}"
            raise unwritable(f"{what} is in use by another batch") from None
        except OSError as error:
            raise unwritable(_cannot_write(error)) from None
        yield


def _cannot_write(error: OSError) -> str:
    """``cannot write FILE: reason`` for a failed write."""
    return f"cannot write {_os_error(error)}" if _named(error) else _os_error(error)


def _os_error(error: OSError) -> str:
    """``FILE: reason``, or the reason alone when no file is named."""
    reason = error.strerror or str(error)
    return f"{shown(os.fsdecode(error.filename))}: {reason}" if _named(error) else reason


def _named(error: OSError) -> bool:
    return isinstance(error.filename, (str, bytes))


def _resume(args: Namespace, plan: Plan) -> tuple[list[dict], list[Job]]:
    """The report lines of the models done before (``--skip-existing``: the previous report says the
    model succeeded and its output is there with the size recorded) and the jobs for the rest."""
    previous = report.read_report(plan.report) if args.skip_existing else {}
    entries: list[dict] = []
    jobs: list[Job] = []
    for index, (group, output) in enumerate(zip(plan.groups, plan.outputs)):
        line = previous.get(shown(group.relative))
        if report.done_before(line, output):
            entries.append(line)
        else:
            jobs.append(Job(index, group.paths, str(output), group.error))
    return entries, jobs


def _make_folders(jobs: list[Job]) -> None:
    for folder in sorted({Path(job.output).parent for job in jobs}):
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise unwritable(f"cannot write {shown(folder)}: {error.strerror or error}") from None


class _ReportUnwritable(Exception):
    """A line could not be added to the report."""


def _run_models(args: Namespace, plan: Plan, jobs: list[Job], entries: list[dict]) -> Ending:
    """Run ``jobs``, adding each result to ``entries`` and the report; how the run ended. The
    report keeps every line written when the run is interrupted or stopped, and stays as it was
    before the batch when it cannot be written."""
    try:
        with report.writing_report(plan.report) as write_line:
            def write(line: dict) -> None:
                try:
                    write_line(line)
                except OSError as error:
                    raise _ReportUnwritable(error.strerror or str(error)) from None

            for line in entries:
                write(line)
            return _run_jobs(args, plan, jobs, entries, write) if jobs else Ending()
    except (_ReportUnwritable, OSError) as error:  # a line, or the report's rename at the end
        if plan.report is None:
            raise
        reason = error.strerror or str(error) if isinstance(error, OSError) else str(error)
        return Ending(EXIT_UNWRITABLE, "stopped", f"error: cannot write {shown(plan.report)}: {reason}")


def _run_jobs(args: Namespace, plan: Plan, jobs: list[Job], entries: list[dict], write) -> Ending:
    progress = Progress(f"batch {args.batch_command}")
    done_before = len(entries)
    tick = lambda: progress.enabled and progress.draw()  # noqa: E731
    try:
        with closing(run_jobs(jobs, args, _workers(args, len(jobs)), args.timeout, tick=tick)) as results:
            for job, result in results:
                group = plan.groups[job.index]
                files = [group.relative_of(path) for path in result["files"]]
                line = report.entry(group.relative, job.output if result["status"] == "ok" else None,
                                    result, files)
                entries.append(line)
                write(line)
                if result.get("disk_full"):
                    return Ending(EXIT_UNWRITABLE, "stopped", f"error: {line['error']}")
                progress.update((len(entries) - done_before) / len(jobs),
                                f"{len(entries)} of {counted(len(plan.groups), 'model')}")
    except KeyboardInterrupt as interrupt:
        return Ending(exit_status(interrupt), "interrupted")
    finally:
        progress.__exit__(None, None, None)
    return Ending()


def _workers(args: Namespace, models: int) -> int:
    """``--jobs``, at most one per core (more only share the cores, at a cost); every core by default."""
    cores = default_jobs()
    if args.jobs and args.jobs > cores:
        print(f"note: --jobs {args.jobs} is more than the {counted(cores, 'core')} this batch may use; "
              f"using {cores}", file=sys.stderr)
    return max(1, min(args.jobs or cores, cores, models))


def _write_index(plan: Plan, command: str, entries: list[dict], line: str) -> str:
    """Write OUTDIR/index.html; the one-line error when it cannot be written, else ''."""
    try:
        report.write_index(plan.index, command, entries, line)
    except OSError as error:
        return f"error: cannot write {shown(plan.index)}: {error.strerror or error}"
    return ""
