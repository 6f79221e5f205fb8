"""Which output names ask ``render`` for an animation rather than a still PNG: kept apart from
video.py so that a still render decides without importing the encoders' module."""

from __future__ import annotations

import re
from pathlib import Path

#: Suffix → the kind of animated output.
VIDEO_SUFFIXES = {".mp4": "mp4", ".webm": "webm"}
IMAGE_SUFFIXES = {".gif": "gif", ".webp": "webp", ".apng": "apng"}
#: A printf-style frame number in an image sequence's name (``walk_%04d.png``).
FRAME_PATTERN = re.compile(r"%0?\d*d")


def animation_kind(output: Path) -> str | None:
    """'mp4', 'webm', 'gif', 'webp' or 'frames' (a PNG name with a ``%d`` pattern); None for a still."""
    suffix = output.suffix.lower()
    if suffix in VIDEO_SUFFIXES:
        return VIDEO_SUFFIXES[suffix]
    if suffix in IMAGE_SUFFIXES:
        return IMAGE_SUFFIXES[suffix]
    if suffix == ".png" and FRAME_PATTERN.search(output.name):
        return "frames"
    return None
