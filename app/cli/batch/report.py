"""The batch's outputs about itself: the JSONL report (one object per model), the summary line and
``OUTDIR/index.html``, a static page (no server, no script from the network) of every model."""

from __future__ import annotations

import html
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from app import json_text
from app.atomic_files import replacing, write_atomically
from app.cli.batch.names import shown, shown_all
from app.cli.wording import counted

#: The report's keys in order (docs/cli.md); ``clip_names`` and ``messages`` (the warnings' text)
#: follow for the index page and for a resumed batch.
REPORT_KEYS = ("model", "files", "status", "error", "warnings", "seconds", "output", "output_bytes",
               "vertices", "bones", "clips")


def entry(model: str, output: str | os.PathLike | None, result: dict, files: list[str]) -> dict:
    """The report object of one model from a worker's ``result``: every name as ``shown``, and the
    size of its output as written (what ``--skip-existing`` checks before trusting it)."""
    fields = {
        "model": model, "files": files, "status": result["status"], "error": result["error"],
        "warnings": len(result["warnings"]), "seconds": result["seconds"],
        "output": None if output is None else os.fspath(output), "output_bytes": file_size(output),
        "vertices": result["vertices"], "bones": result["bones"], "clips": result["clips"],
        "clip_names": result["clip_names"], "messages": result["warnings"]}
    if result.get("findings") is not None:  # ``check``: the engine-rule findings, counted and listed
        fields.update(findings=len(result["findings"]), finding_lines=result["findings"])
    return shown_all(fields)


def file_size(path: str | os.PathLike | None) -> int | None:
    """The size of the regular file at ``path``; None when there is none."""
    if path is None:
        return None
    try:
        return os.stat(path).st_size if os.path.isfile(path) else None
    except OSError:
        return None


def read_report(path: Path) -> dict[str, dict]:
    """A previous report's objects by model (for ``--skip-existing``); lines that do not parse are
    left out."""
    entries = {}
    try:
        lines = path.read_bytes().splitlines()
    except OSError:
        return entries
    for text in lines:
        try:
            line = json_text.loads(text)
        except ValueError:
            continue
        if isinstance(line, dict) and isinstance(line.get("model"), str):
            entries[line["model"]] = line
    return entries


def done_before(previous: dict | None, output: Path) -> bool:
    """Whether a previous report's line says its model succeeded with ``output`` as it is now: the
    same file, there, with the size recorded (a 0-byte or cut file from an interrupted or full-disk
    run is not done)."""
    if not previous or previous.get("status") != "ok" or previous.get("output") != shown(output):
        return False
    recorded = previous.get("output_bytes")
    return isinstance(recorded, int) and not isinstance(recorded, bool) and recorded == file_size(output)


@contextmanager
def writing_report(path: Path | None) -> Iterator[Callable[[dict], None]]:
    """A function that adds one line to the report at ``path`` (nothing when None). The lines go to
    a temporary beside it, flushed one by one, renamed over ``path`` when the block ends (an
    interruption the block handles included); on an error escaping the block, or a kill, the
    previous report stays as it was."""
    if path is None:
        yield lambda line: None
        return
    with replacing(path) as temporary, open(temporary, "w", encoding="utf-8") as handle:
        def write(line: dict) -> None:
            handle.write(json.dumps(line) + "\n")
            handle.flush()
        yield write


def summary(command: str, entries: list[dict], seconds: float, skipped: int) -> str:
    """``batch render: 120 models, 118 ok, 2 failed (3 skipped) in 4.2 s``."""
    kept = f" ({skipped} skipped, done before)" if skipped else ""
    return f"batch {command}: {tally(entries)}{kept} in {seconds:.1f} s"


def tally(entries: list[dict]) -> str:
    """``120 models, 118 ok, 2 failed``: the report lines counted by status."""
    failed = sum(line["status"] != "ok" for line in entries)
    return f"{counted(len(entries), 'model')}, {len(entries) - failed} ok, {failed} failed"


_STYLE = """
body { font: 14px system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid #ddd; padding: 6px 8px; text-align: left; vertical-align: top; }
th { cursor: pointer; background: #f3f3f3; position: sticky; top: 0; user-select: none; }
th.sorted-up::after { content: " \\25B2"; } th.sorted-down::after { content: " \\25BC"; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
img { max-width: 128px; max-height: 128px; background: #ccc; display: block; }
.error { color: #b00020; } .ok { color: #1b6e20; }
td:last-child { width: 34em; } details { max-width: 34em; } ul { margin: 0.2em 0 0.2em 1.2em; padding: 0; }
"""

_SCRIPT = """
document.querySelectorAll("th").forEach(function (header, column) {
  header.addEventListener("click", function () {
    var body = document.querySelector("tbody");
    var up = !header.classList.contains("sorted-up");
    document.querySelectorAll("th").forEach(function (h) { h.classList.remove("sorted-up", "sorted-down"); });
    header.classList.add(up ? "sorted-up" : "sorted-down");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[column].dataset.key, y = b.cells[column].dataset.key;
      var nx = parseFloat(x), ny = parseFloat(y);
      var order = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
      return up ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  });
});
"""

_COLUMNS = ("picture", "model", "status", "vertices", "bones", "clips", "warnings", "seconds", "details")


def write_index(path: Path, command: str, entries: list[dict], line: str) -> None:
    """``index.html`` in ``path``'s folder: one table row per model, the failed first, sortable by any
    column."""
    folder = path.parent
    order = sorted(entries, key=lambda e: (e["status"] == "ok", e["model"]))
    rows = [_row(line_, folder, command) for line_ in order]
    head = "".join(f"<th>{name}</th>" for name in _COLUMNS)
    page = (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>boneyard batch {html.escape(command)}</title><style>{_STYLE}</style></head>\n<body>"
            f"<h1>boneyard batch {html.escape(command)}</h1><p>{html.escape(line)}</p>\n"
            f"<table><thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(rows) +
            f"\n</tbody></table>\n<script>{_SCRIPT}</script></body></html>\n")
    write_atomically(path, shown(page))


def _cell(text: str, key, css: str = "") -> str:
    attribute = f' class="{css}"' if css else ""
    return f'<td{attribute} data-key="{html.escape(str(key), quote=True)}">{text}</td>'


def _row(line: dict, folder: Path, command: str) -> str:
    output = line.get("output")
    picture = ""
    if command == "render" and output and line["status"] == "ok":
        source = Path(os.path.relpath(output, folder)).as_posix()
        picture = f'<img src="{html.escape(source, quote=True)}" alt="" loading="lazy">'
    values = [line.get(key) for key in ("vertices", "bones", "clips", "warnings", "seconds")]
    numbers = [_cell("" if value is None else str(value), -1 if value is None else value, "number")
               for value in values]
    details = []
    if line.get("error"):
        details.append(f'<div class="error">{html.escape(line["error"])}</div>')
    if line.get("clip_names"):
        details.append(_list("clip", line["clip_names"]))
    if line.get("finding_lines"):
        details.append(_list("finding", line["finding_lines"]))
    if line.get("messages"):
        details.append(_list("warning", line["messages"]))
    if len(line.get("files", [])) > 1:
        details.append(_list("file", line["files"]))
    status = line["status"]
    return ("<tr>" + _cell(picture, line["model"]) + _cell(html.escape(line["model"]), line["model"])
            + _cell(html.escape(status), status, status) + "".join(numbers)
            + _cell("".join(details), line.get("error") or "") + "</tr>")


def _list(noun: str, items: list[str]) -> str:
    """A folded list: ``3 clips`` over the items."""
    entries = "".join(f"<li>{html.escape(str(item))}</li>" for item in items)
    title = counted(len(items), noun)
    return f"<details><summary>{title}</summary><ul>{entries}</ul></details>"
