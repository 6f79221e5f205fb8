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
    ``unique_keys``) gives an object a key twice, naming the key; each says where (line and column).
    ``parse_int`` is json's hook for integers. TypeError for ``data`` that is not text or bytes (a
    stored setting of another kind: ``bytes(10**9)`` would be a gigabyte of zeros)."""
    if not isinstance(data, (str, bytes, bytearray, memoryview)):
        raise TypeError(f"JSON is text or bytes, not {type(data).__name__}")
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise JsonError(f"not UTF-8 text ({error.reason})", offset=error.start) from None
    depth = nesting_depth(raw)
    if depth > max_depth:
        raise _located(raw, f"the JSON nests {depth} levels deep; at most {max_depth} are read",
                       _too_deep(raw, max_depth))
    try:
        return json.loads(text, object_pairs_hook=_unique_object if unique_keys else None,
                          parse_int=parse_int or _integer)
    except json.JSONDecodeError as error:
        raise JsonError(error.msg, line=error.lineno, column=error.colno,
                        offset=len(text[:error.pos].encode("utf-8"))) from None
    except _LongInteger as error:
        raise _located(raw, str(error), _long_integer(raw)) from None
    except _RepeatedKey as error:
        raise _located(raw, f"the key {error.key!r} is given twice in one object",
                       _repeated_key(raw, error.key)) from None
    except RecursionError:
        raise JsonError("the JSON nests too deeply") from None


class _LongInteger(ValueError):
    pass


class _RepeatedKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _integer(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INTEGER_DIGITS:
        raise _LongInteger(f"integer too long: {digits} digits, at most {MAX_INTEGER_DIGITS} are read")
    return int(text)


def _unique_object(pairs: list[tuple[str, Any]]) -> dict:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        raise _RepeatedKey(next(key for key, _ in pairs if key in seen or seen.add(key)))
    return result


# --- where a problem found while parsing is: the text walked again, token by token ------------------
# Only on the way to an error, so the parse itself stays json's own speed.

_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"\s*:?|[\[\]{}]|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?', re.DOTALL)


def _located(raw: bytes, message: str, offset: int | None) -> JsonError:
    """JsonError ``message`` at byte ``offset`` of ``raw`` (line and column counted from 1)."""
    if offset is None:
        return JsonError(message)
    line_start = raw.rfind(b"\n", 0, offset) + 1
    column = len(raw[line_start:offset].decode("utf-8", "replace")) + 1
    return JsonError(message, line=raw.count(b"\n", 0, offset) + 1, column=column, offset=offset)


def _too_deep(raw: bytes, max_depth: int) -> int | None:
    """Where the first array or object ``max_depth`` levels deep opens."""
    depth = 0
    for token in _TOKEN.finditer(raw):
        kind = token.group()[:1]
        depth += 1 if kind in b"[{" else -1 if kind in b"]}" else 0
        if depth > max_depth:
            return token.start()
    return None


def _long_integer(raw: bytes) -> int | None:
    """Where the first integer of more than MAX_INTEGER_DIGITS digits starts."""
    for token in _TOKEN.finditer(raw):
        number = token.group()
        if number[:1] in b"-0123456789" and number.lstrip(b"-").isdigit() and \
                len(number.lstrip(b"-")) > MAX_INTEGER_DIGITS:
            return token.start()
    return None


def _repeated_key(raw: bytes, key: str) -> int | None:
    """Where ``key`` is given the second time in one object."""
    objects: list[set[str] | None] = []  # per open bracket: an object's keys so far, None for an array
    for token in _TOKEN.finditer(raw):
        text = token.group()
        if text in (b"[", b"{"):
            objects.append(set() if text == b"{" else None)
        elif text in (b"]", b"}") and objects:
            objects.pop()
        elif text.endswith(b":") and objects and objects[-1] is not None:
            name = json.loads(text[:-1].rstrip())
            if name == key and name in objects[-1]:
                return token.start()
            objects[-1].add(name)
    return None
