"""The lines of an NWN ASCII MDL read as the reader needs them: the next line with content, counted
lists of numeric rows (one numpy call per block where it can), key lists running to ``endlist``; every
error names the line."""

from __future__ import annotations

from itertools import chain
from pathlib import Path

import numpy as np

from app.formats.registry import ReadError

#: Largest count a list line may give (more rows than any file could hold is a bad count anyway).
MAX_COUNT = 10_000_000


def parse_number(token: str) -> float:
    """A float, with the MSVC spellings of infinities and NaNs (``1.#INF``, ``-1.#IND``) as NaN."""
    try:
        return float(token)
    except ValueError:
        if "#" in token:
            return float("nan")
        raise


def has_content(line: str) -> bool:
    """Whether a line holds anything: blank lines and ``#`` comment lines are skipped everywhere."""
    stripped = line.lstrip()
    return bool(stripped) and not stripped.startswith("#")


class LineReader:
    """The file's lines and where reading is (``at``, the next line's index); non-finite numbers read
    (as 0) are counted in ``nonfinite``."""

    def __init__(self, path: Path, text: str):
        self.path = path
        self.lines = text.splitlines()
        self.at = 0
        self.nonfinite = 0
        self.endlists: np.ndarray | None = None

    def error(self, line: int, message: str) -> ReadError:
        """``line`` is 0-based; the error quotes it 1-based."""
        return ReadError(self.path, message, line=line + 1)

    def next_tokens(self) -> tuple[list[str], int] | None:
        """The next line with content (comments and blank lines skipped), and its index."""
        while self.at < len(self.lines):
            line = self.at
            self.at += 1
            tokens = self.lines[line].split()
            if tokens and not tokens[0].startswith("#"):
                return tokens, line
        return None

    def rows(self, start: int, count: int, width: int, what: str, bounded: bool = False) -> np.ndarray:
        """(count, width) floats from the ``count`` rows after line ``start`` (extra numbers on a
        row are ignored); fewer rows or a short row is an error naming the line. Blank and comment
        lines among the rows are not rows. ``bounded``: the rows are exactly the ``count`` lines
        after ``start`` (a key list up to its ``endlist``), less such lines.

        Fast path: one ``np.fromstring`` over the block, accepted when it reads every number and
        the count matches rows of the first row's width (the last row is checked too)."""
        first, end = start + 1, start + 1 + count
        if end > len(self.lines):
            raise self.error(start, f"{what}: expected {count} rows, "
                                    f"the file ends after {len(self.lines) - first}")
        self.at = end
        if not count:
            return np.zeros((0, width))
        lines = self.lines[first:end]
        columns = len(lines[0].split())
        if columns >= width and len(lines[-1].split()) == columns:
            try:
                values = np.fromstring("\n".join(lines), sep=" ")
            except ValueError:  # a token that is no number: found and named row by row below
                values = None
            if values is not None and values.size == count * columns:
                return self._finite(values.reshape(count, columns)[:, :width])
        numbers = self.content_lines(start, count, what, bounded)
        return self._checked_rows([self.lines[number] for number in numbers], numbers, start, width, what)

    def content_lines(self, start: int, count: int, what: str, bounded: bool = False) -> list[int]:
        """The indices of the ``count`` lines after line ``start`` that are neither blank nor
        comments (``bounded``: those among the next ``count`` lines), leaving ``self.at`` after
        them; the file ending first is an error naming ``start``."""
        if bounded:
            return [number for number in range(start + 1, start + 1 + count)
                    if has_content(self.lines[number])]
        numbers: list[int] = []
        number = start + 1
        while len(numbers) < count and number < len(self.lines):
            if has_content(self.lines[number]):
                numbers.append(number)
            number += 1
        if len(numbers) < count:
            raise self.error(start, f"{what}: expected {count} rows, the file ends after {len(numbers)}")
        self.at = number
        return numbers

    def _checked_rows(self, lines: list[str], numbers: list[int], start: int, width: int,
                      what: str) -> np.ndarray:
        """Row by row, for blocks the fast path refused: the first short row or bad number is an error."""
        if not lines:
            return np.zeros((0, width))
        parts = [line.split() for line in lines]
        widths = np.fromiter(map(len, parts), np.int64, len(parts))
        short = np.flatnonzero(widths < width)
        if short.size:
            row = int(short[0])
            found = " ".join(parts[row]) or "an empty line"
            raise self.error(numbers[row], f"{what}: row {row + 1} of {len(lines)} "
                                           f"(listed on line {start + 1}) "
                                           f"should hold {width} numbers, found {found!r}")
        flat = list(chain.from_iterable(part[:width] for part in parts))
        try:
            values = np.array(flat, np.float64)
        except ValueError:
            values = self._slow_numbers(flat, numbers, width, what)
        return self._finite(values.reshape(len(lines), width))

    def _finite(self, values: np.ndarray) -> np.ndarray:
        finite = np.isfinite(values)
        if not finite.all():
            self.nonfinite += int((~finite).sum())
            values = np.where(finite, values, 0.0)
        return values

    def _slow_numbers(self, flat: list[str], numbers: list[int], width: int, what: str) -> np.ndarray:
        """Numbers one by one, for a block holding ``1.#INF``-style spellings or a bad token."""
        values = np.empty(len(flat))
        for index, token in enumerate(flat):
            try:
                values[index] = parse_number(token)
            except ValueError:
                raise self.error(numbers[index // width],
                                 f"{what}: expected a number, found {token!r}") from None
        return values

    def count(self, tokens: list[str], line: int) -> int:
        if len(tokens) < 2:
            raise self.error(line, f"{tokens[0]}: expected a count after it")
        try:
            value = int(tokens[1])
        except ValueError:
            raise self.error(line, f"{tokens[0]}: expected a whole count, found {tokens[1]!r}") from None
        if not 0 <= value <= MAX_COUNT:
            raise self.error(line, f"{tokens[0]}: count {value} outside 0..{MAX_COUNT}")
        return value

    def rows_to_endlist(self, start: int) -> int:
        """How many lines follow line ``start`` before its ``endlist`` (key lists without a count);
        a line that is no key row before it is reported when the rows are read."""
        if self.endlists is None:
            self.endlists = np.array([index for index, line in enumerate(self.lines)
                                      if line.strip().lower() == "endlist"], np.int64)
        position = int(np.searchsorted(self.endlists, start, side="right"))
        if position == len(self.endlists):
            raise self.error(start, "a key list without a count runs to the end of the file "
                                    "(expected 'endlist')")
        return int(self.endlists[position]) - start - 1
