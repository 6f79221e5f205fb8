"""docs/fuzzing.md from a fuzz run's report (the JSON lines tests/fuzzing.py appends with
BONEYARD_FUZZ_REPORT set): per reader, the inputs run, the failures by kind and the time taken.

    python -m tests.fuzzing_report REPORT.jsonl docs/fuzzing.md
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.fuzzing import CASE_LIMIT, CPU_LIMIT, HANG_LIMIT, SKINNED_CLIPS

#: Inputs per reader, and kills per command in the writes mode, ``make fuzz`` runs.
TARGET = 20_000
WRITES_TARGET = 200

INTRODUCTION = f"""# Fuzzing the readers

`make fuzz` runs every reader on {TARGET:,} mutated inputs (tests/fuzzing.py; the mutations are in
tests/formats/test_fuzz_text.py, tests/formats/test_fuzz_binary.py and
tests/formats/test_fuzz_gltf.py). Each input is loaded
(half of them through the format registry, which sniffs them) and every loaded model posed: bind
pose and each clip at its start, middle and end (vertices skinned for the bind pose and the first
{SKINNED_CLIPS} clips). An input passes when it ends in the reader's own
ReadError, or in a model whose poses are finite, within {CASE_LIMIT:g} s of CPU (`slow` past that;
at {CPU_LIMIT:g} s a timer interrupts it). A failure is counted by its kind: the exception's type,
`slow`, `CPU limit`, or `hang` (no answer in {HANG_LIMIT:g} s: the run stops there).

The glTF mutations work on the JSON: members replaced (null, zero, huge, wrong types, integers of
400 and 5,000 digits, nesting up to 100,000 deep), deleted or duplicated; byteLength, byteOffset,
byteStride and count set at and just past their limits; buffer and image URIs pointed at a symlink
loop, a link to a device, a link out of the folder, a FIFO and a folder; data URI, GLB chunk and
sidecar bytes flipped or cut. The NWN ASCII mutations add, to the text ones (bytes, tokens, lines,
long tokens, cuts inside numeric blocks), duplicated animation and node blocks (up to 500 copies,
the file kept under 2.5 MB) and names made to collide.
"""


def table(rows: list[dict]) -> str:
    lines = ["| reader | seed | inputs | failures by kind | time (s) | inputs per s |",
             "| --- | --- | ---: | --- | ---: | ---: |"]
    for row in rows:
        failures = ", ".join(f"{kind}: {count}" for kind, count in sorted(row["failures"].items())) or "none"
        rate = row["inputs"] / row["seconds"] if row["seconds"] else 0.0
        lines.append(f"| {row['reader']} | {row['seed']} | {row['inputs']:,} | {failures} | "
                     f"{row['seconds']:.1f} | {rate:.0f} |")
    total = sum(row["inputs"] for row in rows)
    failed = sum(sum(row["failures"].values()) for row in rows)
    seconds = sum(row["seconds"] for row in rows)
    lines.append(f"| all | | {total:,} | {failed or 'none'} | {seconds:.1f} | |")
    return "\n".join(lines)


WRITES = f"""## Killed writes

`make fuzz` also kills `convert`, `render -o .mp4` and `batch convert` {WRITES_TARGET} times each, at random
points of the second half of their run (where they write), with SIGKILL, SIGTERM or SIGINT, each over
the output of an earlier run (tests/cli/test_fuzz_writes.py; `make fuzz FUZZ_MODE=writes` runs only these).
A kill fails when an output path then holds neither the earlier file nor the whole new one (a batch's
report must be whole JSON lines and its index a whole page), when an earlier output is gone, or when a
process of the run is left behind.
"""


def writes_table(rows: list[dict]) -> str:
    lines = ["| command | kills | failures by kind | time (s) |", "| --- | ---: | --- | ---: |"]
    for row in rows:
        failures = ", ".join(f"{kind}: {count}" for kind, count in sorted(row["failures"].items())) or "none"
        lines.append(f"| {row['reader']} | {row['inputs']:,} | {failures} | {row['seconds']:.1f} |")
    return "\n".join(lines)


def document(rows: list[dict]) -> str:
    readers = [row for row in rows if row.get("mode") != "writes"]
    writes = [row for row in rows if row.get("mode") == "writes"]
    fewest = min((row["inputs"] for row in readers), default=0)
    scope = "" if fewest >= TARGET else (
        f"\nThis run is shorter than `make fuzz`: {fewest:,} inputs for the reader that ran fewest, "
        f"not {TARGET:,}.\n")
    text = f"{INTRODUCTION}\n## The last run\n{scope}\n{table(readers)}\n" if readers else INTRODUCTION
    return text + (f"\n{WRITES}{writes_scope(writes)}\n{writes_table(writes)}\n" if writes else "")


def writes_scope(rows: list[dict]) -> str:
    fewest = min(row["inputs"] for row in rows)
    return "" if fewest >= WRITES_TARGET else (
        f"\nThis run is shorter than `make fuzz`: {fewest:,} kills a command, not {WRITES_TARGET:,}.\n")


def main(report: str, output: str) -> int:
    rows = [json.loads(line) for line in Path(report).read_text().splitlines() if line.strip()]
    Path(output).write_text(document(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
