"""Pictures the window saves (screenshots, ``--screenshot``), written whole or not at all like every
other output (``app.atomic_files``)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QImage, QPixmap

from app.atomic_files import replacing


class _NotSaved(OSError):
    """Qt's writer gave up (it says no more than that)."""


def save_image(image: QImage | QPixmap, path: str | Path) -> bool:
    """Save ``image`` as the PNG ``path`` through a temporary renamed into place; False when it could
    not be written, the previous file left as it was."""
    try:
        with replacing(path) as temporary:
            if not image.save(str(temporary), "PNG"):
                raise _NotSaved(path)
    except OSError:
        return False
    return True
