"""The clip ``--clip`` (and the mix options) mean: a name or a 0-based index (docs/cli.md "Clips").

A name is looked for first, so a clip named ``3`` is what ``--clip 3`` means; when that is not the clip
at index 3, a note on stderr says so and names the clip the index would have taken."""

from __future__ import annotations

import sys

from app.model import Model


def chosen_clip_index(model: Model, selector: str | None) -> int:
    """``model.clip_index(selector)`` (KeyError or IndexError as it raises), with a note on stderr
    when ``selector`` is a name that is also the index of another clip."""
    index = model.clip_index(selector)
    other = _index_meant(selector, len(model.clips))
    if other is not None and other != index:
        print(f"note: --clip {selector} is the clip named {model.clips[index].name!r} (index {index}); "
              f"clip index {other} is {model.clips[other].name!r}", file=sys.stderr)
    return index


def _index_meant(selector: str | None, count: int) -> int | None:
    """The clip index ``selector`` reads as, or None when it is not one of 0..count−1."""
    try:
        index = int(selector)
    except (TypeError, ValueError):
        return None
    return index if 0 <= index < count else None
