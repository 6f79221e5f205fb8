"""Counts in the command line's messages, singular or plural as the count asks ('1 model', '2 models')."""

from __future__ import annotations


def counted(count: int, noun: str, nouns: str | None = None) -> str:
    """``counted(1, "model")`` is '1 model'; ``counted(3, "vertex", "vertices")`` is '3 vertices'."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"
