"""A shared tokenizer for the whitespace-separated text formats (BonesPro, LGW, .bnf/.anm/.prm, OBJ).

The file is memory-mapped, not read: tokens are matched lazily from a byte position with one
compiled pattern, so a reader only pays for the part of the file it walks token by token. Big
numeric blocks take a fast path — one numpy call over the block's bytes (or ``np.fromfile`` for a
block that runs to the end of the file) — and line numbers are recovered only when that fails.

Tokens: ``//`` comments are skipped; ``"quoted strings"`` and ``<bone names with spaces>`` are one
token each (without their delimiters); anything else runs to the next whitespace, quote, ``<`` or
``//``. Every failure is a ``ReadError`` with the file, the line and what was expected.
"""

from __future__ import annotations

import mmap
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app import maths
from app.formats.registry import UTF8_BOM, ReadError, regular_size
from app.model import MAX_MAGNITUDE

# Every pattern below is possessive (``*+``, ``++``) or has one way to match: none can backtrack
# into what it already matched, so each runs in time linear in the bytes it looks at.
#: Whitespace and ``//`` comments between tokens.
_GAP_SOURCE = rb"(?:\s++|//[^\n]*+)*+"
_GAP = re.compile(_GAP_SOURCE)
#: A bare token: everything up to the next whitespace, quote, ``<`` or ``//``.
_BARE_SOURCE = rb'(?:[^\s"</]++|/(?!/))++'
#: One token: a quoted string, a <name>, or a bare run.
_TOKEN = re.compile(rb'"([^"\n]*+)"|<([^>\n]*+)>|(' + _BARE_SOURCE + rb")")
#: A complete number token as the numeric blocks accept it (the same set ``np.fromstring`` parses).
_NUMBER = re.compile(rb"[+-]?+(?:\d++(?:\.\d*+)?+|\.\d++)(?:[eE][+-]?+\d++)?+\Z"
                     rb"|[+-]?+(?:inf(?:inity)?|nan)\Z", re.IGNORECASE)
#: Longest token text quoted in an error message.
_SHOWN = 40
_COMMENT = re.compile(rb"//[^\n]*")
#: Blocks with fewer values than this are read token by token.
_FAST_BLOCK = 64
#: Bytes a numeric token needs at least: one character and one separator.
_MIN_TOKEN_BYTES = 2


@dataclass(frozen=True)
class Token:
    """One token: its text (delimiters removed), 1-based line, and kind 'word', 'string' or 'name'."""

    text: str
    line: int
    kind: str


def shown(text: str) -> str:
    """``text`` quoted for an error message, cut to a readable length."""
    if len(text) <= _SHOWN:
        return repr(text)
    return f"{text[:_SHOWN]!r}… ({len(text)} characters)"


def decode(raw: bytes) -> str:
    """Token bytes as text: UTF-8 where valid, else Latin-1 (old Windows tools wrote code pages)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


class TextScanner:
    """Tokens of one text file, read from a memory map. Use as a context manager.

    ``position`` is the byte offset of the next unread character, ``line`` its 1-based line.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        regular_size(self.path)
        try:
            self._handle = open(self.path, "rb")
        except OSError as error:
            raise ReadError(self.path, f"cannot open: {error.strerror or error}") from None
        size = self._file_size()
        if size == 0:
            self._handle.close()
            raise ReadError(self.path, "the file is empty", line=1)
        self.data = mmap.mmap(self._handle.fileno(), 0, access=mmap.ACCESS_READ)
        self.size = size
        self.content_end = self._content_end()
        self.position = len(UTF8_BOM) if self.data[:len(UTF8_BOM)] == UTF8_BOM else 0
        self.line = 1
        self._peeked: tuple[Token, int, int] | None = None

    def _file_size(self) -> int:
        self._handle.seek(0, 2)
        size = self._handle.tell()
        self._handle.seek(0)
        return size

    def _content_end(self) -> int:
        """The offset just after the last non-whitespace byte (errors at the end of the file point
        at the last line with content, not at the empty line after a final newline)."""
        end = self.size
        while end > 0:
            chunk = self.data[max(0, end - 4096):end]
            stripped = chunk.rstrip()
            if stripped:
                return end - len(chunk) + len(stripped)
            end -= len(chunk)
        return 0

    def __enter__(self) -> TextScanner:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.data.close()
        self._handle.close()

    # --- errors -------------------------------------------------------------------------------

    def error(self, message: str, line: int | None = None) -> ReadError:
        """A ``ReadError`` at ``line`` (default: the line of the next token)."""
        return ReadError(self.path, message, line=self.peek_line() if line is None else line)

    # --- tokens -------------------------------------------------------------------------------

    def _skip_gap(self, position: int, line: int) -> tuple[int, int]:
        end = _GAP.match(self.data, position).end()
        counted = min(end, max(self.content_end, position))
        return end, line + self.data[position:counted].count(b"\n")

    def _scan(self) -> tuple[Token, int, int] | None:
        """The next token and the position and line after it, without consuming it."""
        position, line = self._skip_gap(self.position, self.line)
        if position >= self.size:
            return None
        match = _TOKEN.match(self.data, position)
        if match is None:
            quote = self.data[position:position + 1]
            closer = b'"' if quote == b'"' else b">"
            raise ReadError(self.path, f"unterminated {decode(quote)}…{decode(closer)}: the line ends "
                                       f"before the closing {decode(closer)}", line=line)
        string, name, word = match.groups()
        kind, raw = ("string", string) if string is not None else (
            ("name", name) if name is not None else ("word", word))
        return Token(decode(raw), line, kind), match.end(), line

    def peek(self) -> Token | None:
        """The next token, or None at the end of the file."""
        if self._peeked is None or self._peeked[1] != self.position:
            scanned = self._scan()
            if scanned is None:
                return None
            self._peeked = (scanned[0], self.position, scanned[1])
        return self._peeked[0]

    def peek_line(self) -> int:
        token = self.peek()
        return token.line if token is not None else self._skip_gap(self.position, self.line)[1]

    def next(self, what: str) -> Token:
        """Consume the next token; ``what`` names what was expected, for the error at end of file."""
        token = self.peek()
        if token is None:
            raise self.error(f"expected {what}, but the file ends here")
        self.position = self._peeked[2]
        self.line = token.line
        return token

    def at_end(self) -> bool:
        return self.peek() is None

    def _expect(self, what: str, kind: str, expected: str, text: str | None = None) -> Token:
        """Consume the next token, which must be of ``kind`` (and read ``text`` when given)."""
        token = self.next(what)
        if token.kind != kind or (text is not None and token.text != text):
            raise self.error(f"expected {expected}, found {token.kind} {shown(token.text)}", token.line)
        return token

    def word(self, what: str) -> Token:
        return self._expect(what, "word", what)

    def keyword(self, expected: str) -> Token:
        """Consume the keyword ``expected`` (exact match)."""
        return self._expect(expected, "word", expected, expected)

    def string(self, what: str) -> Token:
        """Consume a ``"quoted"`` string."""
        return self._expect(what, "string", f"{what} in double quotes")

    def name(self, what: str) -> Token:
        """Consume a ``<name>``."""
        return self._expect(what, "name", f"{what} in < >")

    def number(self, what: str) -> float:
        """Consume one finite number."""
        token = self.next(what)
        return self._to_number(token, what)

    def _to_number(self, token: Token, what: str) -> float:
        if token.kind != "word" or not _NUMBER.match(token.text.encode("latin-1", "replace")):
            raise self.error(f"expected {what} (a number), found {shown(token.text)}", token.line)
        value = float(token.text)
        if not np.isfinite(value):
            raise self.error(f"{what} is {shown(token.text)}: NaN and infinity are not allowed", token.line)
        if abs(value) > MAX_MAGNITUDE:
            raise self.error(f"{what} is {shown(token.text)}, beyond ±{MAX_MAGNITUDE:g}", token.line)
        return value

    def integer(self, what: str, low: int | None = None, high: int | None = None) -> int:
        """Consume an integer in ``low..high`` (inclusive, either bound optional)."""
        token = self.next(what)
        value = self._to_number(token, what)
        if value != int(value):
            raise self.error(f"expected {what} (a whole number), found {shown(token.text)}", token.line)
        value = int(value)
        if (low is not None and value < low) or (high is not None and value > high):
            bounds = f"{low if low is not None else '…'}..{high if high is not None else '…'}"
            raise self.error(f"{what} is {value}, expected {bounds}", token.line)
        return value

    def line_text(self, what: str) -> tuple[str, int]:
        """Consume the rest of the next non-blank line (comment removed, stripped); its text and line."""
        position, line = self._skip_gap(self.position, self.line)
        if position >= self.size:
            raise self.error(f"expected {what}, but the file ends here", line)
        end = self.data.find(b"\n", position)
        end = self.size if end < 0 else end
        text = _COMMENT.sub(b"", self.data[position:end]).strip()
        self.position, self.line = end, line
        return decode(text), line

    # --- numeric blocks -----------------------------------------------------------------------

    def require(self, values: int, what: str, line: int | None = None) -> None:
        """Raise unless ``values`` more tokens can fit in the rest of the file (checked before any
        allocation sized by a count read from the file); ``line``: where the count was read."""
        remaining = self.size - self.position
        if values * _MIN_TOKEN_BYTES > remaining + 1:
            raise self.error(f"{what}: {values} values cannot fit in the {remaining} bytes left "
                             f"(the count is too large or the file is truncated)", line)

    def floats(self, count: int, what: str, dtype=np.float64) -> np.ndarray:
        """Consume ``count`` numbers as a (count,) array; NaN and infinity are refused."""
        self.require(count, what)
        if count < _FAST_BLOCK:
            values = np.array([self.number(what) for _ in range(count)], dtype=dtype)
            return values
        start, start_line = self._skip_gap(self.position, self.line)
        end = self._after_tokens(start, count)
        block = self.data[start:end]
        values = self._parse_block(block, dtype)
        if values is None or values.size != count:
            self._raise_bad_token(start, start_line, what, count)
        self._check_finite(values, start, start_line, what)
        self.position, self.line = end, start_line + block.count(b"\n")
        return values

    def rest_floats(self, what: str, dtype=np.float32) -> tuple[np.ndarray, int, int]:
        """Consume every remaining token as numbers: (values (n,), start byte, start line).

        The clean case is one ``np.fromfile`` call that never holds the text in memory; a block
        with comments is read once more, comments removed.
        """
        start, start_line = self._skip_gap(self.position, self.line)
        self._handle.seek(start)
        try:
            values = np.fromfile(self._handle, dtype=dtype, sep=" ")
        except ValueError:
            values = self._parse_block(self.data[start:], dtype)
            if values is None:
                self._raise_bad_token(start, start_line, what, None)
        self._check_finite(values, start, start_line, what)
        self.position, self.line = self.size, start_line
        return values, start, start_line

    def _after_tokens(self, position: int, count: int) -> int:
        """The byte offset just after the next ``count`` tokens (or the end of the file)."""
        pattern = _counted_tokens(min(count, 65535))
        while count > 0:
            step = min(count, 65535)
            matcher = pattern if step == 65535 else _counted_tokens(step)
            match = matcher.match(self.data, position)
            if match is None:
                return self.size
            position, count = match.end(), count - step
        return position

    @staticmethod
    def _parse_block(block: bytes, dtype) -> np.ndarray | None:
        """Numbers in ``block`` with one numpy call (comments removed first); None if any token
        is not a number."""
        if b"//" in block:
            block = _COMMENT.sub(b"", block)
        try:
            return np.fromstring(block, dtype=dtype, sep=" ")
        except ValueError:
            return None

    def token_line(self, start: int, start_line: int, index: int) -> int:
        """The line of the ``index``-th token (0-based) after byte ``start`` (slow; for errors)."""
        position, line, token_line = start, start_line, start_line
        for _ in range(index + 1):
            position, line = self._skip_gap(position, line)
            match = _TOKEN.match(self.data, position) if position < self.size else None
            if match is None:
                return line
            token_line, position = line, match.end()
        return token_line

    def _raise_bad_token(self, start: int, start_line: int, what: str, count: int | None) -> None:
        """Find the first non-number (or the end of the data) after ``start`` and raise there."""
        position, line, index = start, start_line, 0
        while count is None or index < count:
            position, line = self._skip_gap(position, line)
            match = _TOKEN.match(self.data, position) if position < self.size else None
            if match is None:
                break
            text = match.group(0)
            if match.group(3) is None or not _NUMBER.match(text):
                raise ReadError(self.path, f"{what}: expected a number, found {shown(decode(text))}",
                                line=line)
            position, index = match.end(), index + 1
        raise ReadError(self.path, f"{what}: expected {count} numbers, the file ends after {index}",
                        line=line)

    def _check_finite(self, values: np.ndarray, start: int, start_line: int, what: str) -> None:
        """Refuse NaN, infinity and magnitudes beyond ``MAX_MAGNITUDE`` (naming the first one's line)."""
        bad = np.flatnonzero(~(np.abs(values) <= MAX_MAGNITUDE))
        if bad.size:
            line = self.token_line(start, start_line, int(bad[0]))
            raise ReadError(self.path, f"{what}: {values[bad[0]]:g} is not allowed (NaN, infinity and "
                                       f"magnitudes beyond ±{MAX_MAGNITUDE:g} are refused)", line=line)


def affine_invertible(matrix: np.ndarray) -> bool:
    """Whether a (4, 4) affine matrix is finite and ``maths.affine_inverse`` accepts it (readers refuse
    singular bind matrices at load, with the line, rather than later)."""
    return bool(np.isfinite(matrix).all() and maths.invertible(matrix))


def first_unrooted(parents: np.ndarray) -> int:
    """The lowest bone whose parent chain never reaches a root, i.e. one on (or under) a parent cycle;
    for the error line once ``hierarchy_levels`` has refused ``parents`` (N,), all in range."""
    rooted = parents == -1
    for _ in range(len(parents)):
        rooted |= (parents >= 0) & rooted[np.maximum(parents, 0)]
    return int(np.flatnonzero(~rooted)[0])


_counted_cache: dict[int, re.Pattern] = {}


def _counted_tokens(count: int) -> re.Pattern:
    """A pattern matching exactly ``count`` bare tokens with their leading gaps (each token whole:
    the possessive parts cannot split one token into several when fewer than ``count`` remain)."""
    pattern = _counted_cache.get(count)
    if pattern is None:
        pattern = re.compile(rb"(?:" + _GAP_SOURCE + _BARE_SOURCE + rb"){%d}" % count)
        if len(_counted_cache) < 64:
            _counted_cache[count] = pattern
    return pattern


def head_tokens(head: bytes, limit: int = 64) -> list[bytes]:
    """Up to ``limit`` tokens of a sniffed file head (complete lines only, comments removed)."""
    if b"\0" in head:
        return []
    cut = head.rfind(b"\n")
    text = head if len(head) < 4096 or cut < 0 else head[:cut]
    tokens = []
    position = _GAP.match(text, 0).end()
    while position < len(text) and len(tokens) < limit:
        match = _TOKEN.match(text, position)
        if match is None:
            break
        tokens.append(match.group(0))
        position = _GAP.match(text, match.end()).end()
    return tokens


def head_lines(head: bytes, limit: int = 16) -> list[bytes]:
    """Up to ``limit`` non-blank lines of a sniffed file head, comments removed."""
    if b"\0" in head:
        return []
    lines = []
    for raw in head.split(b"\n")[:-1] if len(head) >= 4096 else head.split(b"\n"):
        text = _COMMENT.sub(b"", raw).strip()
        if text:
            lines.append(text)
        if len(lines) >= limit:
            break
    return lines


def is_number(raw: bytes) -> bool:
    return bool(_NUMBER.match(raw))


def is_integer(raw: bytes) -> bool:
    return bool(re.fullmatch(rb"[+-]?+\d++", raw))


@dataclass(frozen=True)
class RecordLayout:
    """Variable-length records in a flat number array: ``head`` values, the count at ``count_at``
    inside the head, then ``count × item`` values. E.g. a BonesPro vertex is head 4 (x y z Nbv),
    count_at 3, item 2 (b W)."""

    head: int
    count_at: int
    item: int


#: Records tested at once when a run of equal counts starts; doubles while the run goes on.
_RUN_CHUNK = 64


def record_starts(values: np.ndarray, records: int, layout: RecordLayout, max_count: int,
                  fail) -> tuple[np.ndarray, np.ndarray]:
    """Start offsets (R,) and counts (R,) of ``records`` consecutive records in ``values`` (n,).

    Records are found run by run: a run of records with the same count has a fixed stride, so
    its count fields are checked with one strided comparison (the chunk doubles while the run
    continues). Files where every record has the same count take one step; the Python work is
    one step per change of count. ``fail(index, message)`` raises the reader's error at value
    ``index``; it is called for a count that is not a whole number in 0..max_count and for a
    record that runs past the end of the data.
    """
    starts = np.empty(records, np.int64)
    counts = np.empty(records, np.int64)
    total = len(values)
    record, start, chunk = 0, 0, _RUN_CHUNK
    while record < records:
        if start + layout.head > total:
            fail(min(start, total), f"record {record} of {records}: the data ends here")
        count = values[start + layout.count_at]
        if not (0 <= count <= max_count and count == int(count)):
            fail(start + layout.count_at,
                 f"record {record}: count {count:g} is not a whole number in 0..{max_count}")
        count = int(count)
        stride = layout.head + layout.item * count
        testable = min(chunk, records - record, (total - start) // stride)
        if testable == 0:
            fail(total, f"record {record} of {records} needs {stride} values, the data ends first")
        fields = values[start + layout.count_at: start + testable * stride: stride]
        changed = np.flatnonzero(fields != count)
        run = int(changed[0]) if changed.size else testable
        starts[record:record + run] = start + stride * np.arange(run)
        counts[record:record + run] = count
        record, start = record + run, start + run * stride
        chunk = _RUN_CHUNK if changed.size else 2 * chunk
    return starts, counts
