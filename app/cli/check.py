"""``boneyard check FILE... [--resources PATH...] [--json]``: a model held to its format's engine rules
(docs/cli.md; for Neverwinter Nights, app/formats/nwn/rules.py). Exit 1 when any finding is an error."""

from __future__ import annotations

import json
from argparse import Namespace
from pathlib import Path

from app.cli.shared import EXIT_OK, load_model
from app.formats.nwn.archives import open_archive, split_member
from app.formats.nwn.nodes import Parsed
from app.formats.nwn.supermodels import parse_bytes, parse_file
from app.formats.nwn.rules import Finding, check
from app.model import Model

EXIT_FINDINGS = 1


def findings_of(args: Namespace) -> list[Finding]:
    """The findings for the model the arguments name."""
    return findings_for(load_model(args, announce=False))


def findings_for(model: Model) -> list[Finding]:
    """The engine-rule findings of a loaded model (none for formats without rules)."""
    parsed = _own_file(model)
    return [] if parsed is None else check(parsed, model)


def run_check(args: Namespace) -> int:
    findings = findings_of(args)
    if args.json:
        print(json.dumps({"findings": [finding.as_json() for finding in findings]}, indent=2))
    else:
        print("\n".join(finding.line() for finding in findings) or "no findings")
    return EXIT_FINDINGS if any(finding.severity == "error" for finding in findings) else EXIT_OK


def _own_file(model: Model) -> Parsed | None:
    """The parsed file of a Neverwinter Nights model (the one its name comes from), else None."""
    if not model.format.startswith("nwn"):
        return None
    candidates = []
    for text in model.files:
        member = split_member(text)
        if member is None:
            candidates.append(parse_file(Path(text)))
            continue
        archive = open_archive(member[0])
        candidates.append(parse_bytes(Path(text), archive.read(archive.find(member[1], ("mdl",)))))
    return next((parsed for parsed in candidates if parsed.name.lower() == model.name.lower()), candidates[0])
