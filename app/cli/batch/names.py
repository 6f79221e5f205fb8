"""File names as the batch shows them. A name that is not UTF-8 reaches Python with its odd bytes as
lone surrogates (``os.fsdecode``); they cannot be written to a UTF-8 page, report or terminal, so
every name the batch shows has them as U+FFFD instead (the file itself is still opened by its
real name)."""

from __future__ import annotations

import os


def shown(text: str | os.PathLike) -> str:
    """``text`` with each byte that was not UTF-8 as U+FFFD (any other lone surrogate too)."""
    text = os.fspath(text)
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "surrogatepass")
    return raw.decode("utf-8", "replace")


def shown_all(value):
    """``value`` with every string in it (in lists and dicts too) ``shown``."""
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, list):
        return [shown_all(item) for item in value]
    if isinstance(value, dict):
        return {key: shown_all(item) for key, item in value.items()}
    return value
