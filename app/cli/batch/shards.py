"""``batch … --shard K/N``: the K-th of N disjoint slices of a library, the same on every machine.

A model's slice comes from the SHA-1 of its main file's path relative to its PATH (as UTF-8, a
name that is not UTF-8 by its own bytes): never Python's ``hash()``, which is salted per process.
"""

from __future__ import annotations

import argparse
import hashlib
import os
from dataclasses import dataclass

#: Most slices a library is cut into.
MOST_SHARDS = 1_000_000


@dataclass(frozen=True)
class Shard:
    """Slice ``number`` (1-based) of ``count``."""

    number: int
    count: int

    def __str__(self) -> str:
        return f"{self.number}/{self.count}"

    def holds(self, relative: str) -> bool:
        """Whether the model whose main file is ``relative`` (below its PATH) is in this slice."""
        return shard_of(relative, self.count) == self.number


def shard_of(relative: str, count: int) -> int:
    """The slice (1 to ``count``) of the model whose main file is ``relative`` below its PATH."""
    digest = hashlib.sha1(os.fsencode(relative)).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def parse_shard(text: str) -> Shard:
    """``K/N`` with 1 ≤ K ≤ N (argparse's type: a bad value is a usage error)."""
    number, slash, count = text.partition("/")
    try:
        if not slash:
            raise ValueError
        shard = Shard(int(number), int(count))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected K/N (this machine's slice K of N), got {text[:40]!r}") \
            from None
    if not 1 <= shard.count <= MOST_SHARDS:
        raise argparse.ArgumentTypeError(f"{text}: N must be 1 to {MOST_SHARDS}")
    if not 1 <= shard.number <= shard.count:
        raise argparse.ArgumentTypeError(f"{text}: K must be 1 to N ({shard.count})")
    return shard
