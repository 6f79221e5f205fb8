"""JSON from the user's files, bounded before it is parsed: every reader of JSON (glTF, bone maps,
ragdoll profiles, reports, settings) goes through ``loads``, so a document nested 100,000 levels
deep, an integer of thousands of digits or a key given twice is one clear error, not a
RecursionError or a silent choice."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

#: Deepest nesting of arrays and objects read (a glTF document needs fewer than ten levels).
MAX_DEPTH = 200
#: Most digits of an integer read (Python refuses to convert more than 4300).
MAX_INTEGER_DIGITS = 4000
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = np.frombuffer(b"[{]}", np.uint8)


class JsonError(ValueError):
    """JSON that cannot be read: ``message`` says why; ``line`` and ``column`` (1-based) or
    ``offset`` (0-based, in bytes) say where, when known."""

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None,
                 offset: int | None = None):
        super().__init__(message)
        self.message, self.line, self.column, self.offset = message, line, column, offset

    def where(self) -> str:
        """'line L column C', 'byte N' or '' for messages."""
        if self.line is not None:
            return f"line {self.line} column {self.column}"
        return f"byte {self.offset}" if self.offset is not None else ""


def nesting_depth(data: bytes) -> int:
    """How deep arrays and objects nest in JSON ``data`` (strings skipped), in linear time."""
    codes = np.frombuffer(_STRING.sub(b'""', data), np.uint8)
    steps = np.zeros(len(codes), np.int32)
    steps[(codes == _BRACKETS[0]) | (codes == _BRACKETS[1])] = 1
    steps[(codes == _BRACKETS[2]) | (codes == _BRACKETS[3])] = -1
    return int(np.cumsum(steps).max(initial=0))


def loads(data: str | bytes, *, max_depth: int = MAX_DEPTH, parse_int=None, unique_keys: bool = True) -> Any:
    """Parse JSON ``data`` (a leading UTF-8 byte-order mark is skipped). JsonError for text that is
    not JSON, nests deeper than ``max_depth``, holds an integer too long to read, or (with
    ``unique_keys``) gives an object a key twice, naming the key. ``parse_int`` is json's hook for
    integers."""
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise JsonError(f"not UTF-8 text ({error.reason})", offset=error.start) from None
    depth = nesting_depth(raw)
    if depth > max_depth:
        raise JsonError(f"the JSON nests {depth} levels deep; at most {max_depth} are read")
    try:
        return json.loads(text, object_pairs_hook=_unique_object if unique_keys else None,
                          parse_int=parse_int or _integer)
    except json.JSONDecodeError as error:
        raise JsonError(error.msg, line=error.lineno, column=error.colno, offset=error.pos) from None
    except RecursionError:
        raise JsonError("the JSON nests too deeply") from None


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise JsonError(f"an integer of {len(text.lstrip('-'))} digits; at most {MAX_INTEGER_DIGITS} "
                        "are read")
    return int(text)


def _unique_object(pairs: list[tuple[str, Any]]) -> dict:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        repeated = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise JsonError(f"the key {repeated!r} is given twice in one object")
    return result
