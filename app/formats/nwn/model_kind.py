"""What kind of NWN model a file's first bytes say it is, for listings (File › Open Archive…): its
classification (character, tile, door, effect, …) and its form (binary or ASCII), without reading it."""

from __future__ import annotations

import re
from pathlib import Path

from app.formats.nwn import ascii as ascii_mdl
from app.formats.nwn import binary

#: Bytes read from each model: the binary model header, or the ASCII header lines before the geometry.
HEAD_BYTES = 4096
#: The binary model header's classification byte: after the 12-byte file header, at 0x72 in the model
#: header (docs/formats/nwn-binary-mdl.md, 2.2).
CLASSIFICATION_AT = 12 + 0x72
_CLASSIFICATION = re.compile(rb"^[ \t]*classification[ \t]+(\w+)", re.IGNORECASE | re.MULTILINE)


def model_kind(head: bytes) -> str:
    """'character, binary', 'tile, ASCII', 'binary' (no known classification), or 'not a model'."""
    if binary.sniff(head, Path()) == "model":
        known = len(head) > CLASSIFICATION_AT
        classification = binary.CLASSIFICATIONS.get(head[CLASSIFICATION_AT], "") if known else ""
        form = "binary"
    elif ascii_mdl.sniff(head, Path()) == "model":
        found = _CLASSIFICATION.search(head)
        classification = found.group(1).decode("latin-1").lower() if found else ""
        form = "ASCII"
    else:
        return "not a model"
    return f"{classification}, {form}" if classification else form
