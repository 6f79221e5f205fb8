"""``boneyard batch merge REPORT.jsonl... -o OUTDIR``: the reports of a batch's shards (``--shard K/N``)
joined into one report and one ``index.html``, as one unsharded batch writes them (docs/cli.md,
"`batch` across machines").

Every line of every report is checked before anything is written: a line that is not a report line,
or a model given twice, is one error naming the file and line. Neither output may be one of the
reports or a model's output; both are written whole or not at all, under the batch's locks.
"""

from __future__ import annotations

import json
import os
import sys
from argparse import Namespace
from pathlib import Path

from app import json_text
from app.atomic_files import write_atomically
from app.cli.batch import report
from app.cli.batch.names import shown
from app.cli.batch.run import (EXIT_FAILED, EXIT_OK, EXIT_UNWRITABLE, EXIT_USAGE, KnownFiles, Plan,
                               Refused, check_kinds, locked, prepare, run, unwritable)
from app.cli.wording import counted

#: The joined report's name in OUTDIR when ``--report`` names none.
REPORT_NAME = "report.jsonl"
#: A report line's keys and the types each may hold.
LINE_TYPES = {"model": (str,), "files": (list,), "status": (str,), "error": (str, type(None)),
              "warnings": (int,), "seconds": (int, float), "output": (str, type(None)),
              "output_bytes": (int, type(None))}
STATUSES = ("ok", "error")
#: The command whose batch wrote an output, by the output's extension (``check`` is told by its
#: ``findings``).
COMMANDS_BY_EXTENSION = {".png": "render", ".glb": "convert", ".json": "info"}


class MalformedReport(Exception):
    """A report line that cannot be joined; the message names the file and line."""


def run_merge(args: Namespace) -> int:
    """``batch merge``, its refusals and interruptions ending as a batch's do."""
    return run(args, merge)


def merge(args: Namespace) -> int:
    """Join ``args.reports`` into OUTDIR's report and index: exit 0 when every model is ok, 1 when
    any failed, 2 for usage (an output that is an input, reports of different commands), 3 for a
    report that cannot be read or holds a malformed or repeated line, or an OUTDIR that cannot be
    written or is in use."""
    if not args.output:
        raise _usage("-o OUTDIR is empty; name the folder to write to")
    if args.report == "":
        raise _usage("--report is empty; name the report's file")
    outdir = Path(args.output)
    joined = Path(args.report) if args.report else outdir / REPORT_NAME
    check_kinds(outdir, joined)
    inputs = [Path(name) for name in args.reports]
    try:
        entries = read_reports(inputs)
    except MalformedReport as error:
        raise unwritable(str(error)) from None
    command = command_of(inputs, entries)
    plan = Plan([], [], [], outdir, joined)
    collision = _collision(plan, inputs, entries)
    if collision:
        raise _usage(collision)
    prepare(plan)
    entries.sort(key=lambda line: line["model"])
    failed = sum(line["status"] != "ok" for line in entries)
    summary = f"batch {command}: {report.tally(entries)} (merged from {counted(len(inputs), 'report')})"
    with locked(plan):
        _write(joined, "".join(json.dumps(line) + "\n" for line in entries))
        report.write_index(plan.index, command, entries, summary)
    print(summary)
    missing = [line["output"] for line in entries if _output_missing(line)]
    if missing:
        print(f"warning: {counted(len(missing), 'output')} the reports recorded "
              f"{'are' if len(missing) != 1 else 'is'} not here with the size recorded (first: "
              f"{missing[0]}); the index links them as recorded", file=sys.stderr)
    return EXIT_FAILED if failed else EXIT_OK


def _usage(message: str) -> Refused:
    return Refused(f"boneyard batch merge: error: {message}", EXIT_USAGE)


def _write(path: Path, text: str) -> None:
    try:
        write_atomically(path, text)
    except OSError as error:
        raise Refused(f"error: cannot write {shown(path)}: {error.strerror or error}", EXIT_UNWRITABLE) \
            from None


def read_reports(paths: list[Path]) -> list[dict]:
    """Every line of the reports at ``paths``, in order; MalformedReport for a report that cannot be
    read, a line that is not a report line, or a model in two lines (two reports of one shard)."""
    entries: list[dict] = []
    where: dict[str, str] = {}
    for path in paths:
        for number, line in _lines(path):
            place = f"{shown(path)} line {number}"
            if line["model"] in where:
                raise MalformedReport(f"{place}: model {line['model']!r} is also in {where[line['model']]} "
                                      f"(a shard's report given twice, or two runs of one shard?)")
            where[line["model"]] = place
            entries.append(line)
    return entries


def _lines(path: Path):
    """(line number, report line) of each line of the report at ``path`` that is not blank."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise MalformedReport(f"cannot read {shown(path)}: {error.strerror or error}") from None
    for number, text in enumerate(raw.splitlines(), 1):
        if text.strip():
            yield number, _report_line(text, f"{shown(path)} line {number}")


def _report_line(text: bytes, place: str) -> dict:
    """The report line ``text``; MalformedReport naming ``place`` when it is not one."""
    try:
        line = json_text.loads(text)
    except json_text.JsonError as error:
        column = f" column {error.column}" if error.column is not None else ""
        raise MalformedReport(f"{place}{column}: not a batch report line: {error.message}") from None
    if not isinstance(line, dict):
        raise MalformedReport(f"{place}: not a batch report line: expected a JSON object, got "
                              f"{type(line).__name__}")
    for key, types in LINE_TYPES.items():
        if key not in line:
            raise MalformedReport(f"{place}: not a batch report line: no {key!r}")
        value = line[key]
        if not isinstance(value, types) or isinstance(value, bool):
            raise MalformedReport(f"{place}: {key!r} is {json.dumps(value)[:60]}, not "
                                  f"{' or '.join(_type_name(kind) for kind in types)}")
    if line["status"] not in STATUSES:
        raise MalformedReport(f"{place}: 'status' is {line['status'][:40]!r}, not 'ok' or 'error'")
    if not line["model"]:
        raise MalformedReport(f"{place}: 'model' is empty")
    return line


def _type_name(kind: type) -> str:
    return {str: "text", list: "a list", int: "a whole number", float: "a number",
            type(None): "null"}[kind]


def command_of(paths: list[Path], entries: list[dict]) -> str:
    """The command the batch ran (``render``, ``convert``, ``info``, ``check``), told by its lines:
    ``check``'s carry findings, the others by their outputs' extension; ``merge`` where no line
    tells (every model failed before any output). Refused when the lines tell two commands."""
    told = {_command_of_line(line) for line in entries} - {None}
    if len(told) > 1:
        names = " and ".join(f"batch {name}" for name in sorted(told))
        raise _usage(f"the reports {', '.join(map(shown, paths))} are of different batches ({names})")
    return told.pop() if told else "merge"


def _command_of_line(line: dict) -> str | None:
    if "findings" in line:
        return "check"
    if line["output"] is None:
        return None
    return COMMANDS_BY_EXTENSION.get(os.path.splitext(line["output"])[1].lower())


def _collision(plan: Plan, inputs: list[Path], entries: list[dict]) -> str | None:
    """Why writing the joined report or the index would replace a report given or a model's output,
    else None."""
    known = KnownFiles({path: f"the report {shown(path)} given" for path in inputs})
    outputs = KnownFiles({Path(line["output"]): f"the output of model {line['model']!r}"
                          for line in entries if line["output"]})
    for target, name in ((plan.report, "the joined report"), (plan.index, "the index")):
        hit = known.get(target) or outputs.get(target)
        if hit:
            return f"{name} {shown(target)} would replace {hit}; outputs are never written over inputs"
    if KnownFiles({plan.index: "the index page"}).get(plan.report):
        return f"--report {shown(plan.report)} is the index page; name another file"
    return None


def _output_missing(line: dict) -> bool:
    return line["status"] == "ok" and (line["output"] is None
                                       or report.file_size(line["output"]) != line["output_bytes"])

