"""JSON input text to Python values, with every way it can be bad reported as a ``FormatError``:
malformed JSON (with its line and column), nesting too deep to read, integers too long to
convert, numbers JSON has not (``NaN``, ``Infinity``, which Python's reader takes, and one too
large for a float, as ``1e400``, which it reads as infinity, or too small, as ``1e-400``, which
it reads as 0: a strict reader of what we write would refuse them), and strings that are not
text: a lone UTF-16 surrogate, which ``\\ud800`` spells in valid JSON but no output can encode,
and a control character other than tab, line feed and carriage return (``\\u0001``), which XML
(the Tiled maps, the pictures) cannot hold and which a terminal would act on."""

from __future__ import annotations

import copy
import gc
import json
import math
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .errors import FormatError, clipped

_NOT_TEXT = re.compile("[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


class _NotANumber:
    """Where the reader met a number JSON has not: its text, to be reported with its field."""

    def __init__(self, text: str) -> None:
        self.text = text


def _number(text: str) -> float | _NotANumber:
    """A JSON number with a fraction or an exponent, or where it has no float: one too large
    (``1e400`` reads as infinity) or too small (``1e-400`` reads as 0, where a message would
    then quote a 0.0 the file does not hold)."""
    value = float(text)
    if not math.isfinite(value) or (value == 0 and re.search("[1-9]", text.lower().partition("e")[0])):
        return _NotANumber(text)
    return value


class _Twice(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys are all different: a key given twice is refused, where Python's
    reader keeps the last silently (RFC 8259: the names within an object SHOULD be unique)."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Twice(key)
            seen.add(key)
    return data


def json_value(value: Any) -> str:
    """A value as JSON spells it, for messages (null, true, "text"; not None, True, 'text'),
    clipped when long."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return clipped(text)


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection inside: while a big file's values are read or copied, each
    collection would walk every container made so far, to find no cycle (a JSON value has
    none), and a pack of 100,000 levels spent more than half its loading so."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


_SCALARS = frozenset({str, int, float, bool, type(None)})


def json_copy(value: Any) -> Any:
    """A deep copy of a JSON value (dicts, lists, strings, numbers, booleans, null), several
    times faster than ``copy.deepcopy``, which a big pack's loading spent a quarter of its time
    in; anything else in it is deep-copied as ``copy.deepcopy`` would."""
    kind = type(value)
    if kind is dict:
        return {key: item if type(item) in _SCALARS else json_copy(item) for key, item in value.items()}
    if kind is list:
        return [item if type(item) in _SCALARS else json_copy(item) for item in value]
    if kind in _SCALARS:
        return value
    return copy.deepcopy(value)


def json_kind(value: Any) -> str:
    """What a JSON reader calls the kind of ``value``, for messages ("got null", not NoneType)."""
    if value is None:
        return "null"
    for kind, name in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
                       (list, "array"), (dict, "object")):
        if isinstance(value, kind):
            return name
    return type(value).__name__


# Where a string of the text may hold what ``_NOT_TEXT`` finds: such a character itself, or an
# escape that spells one (``\u0001``, ``\ud800``, ``\uFFFE``, and JSON's short ``\b`` and ``\f``,
# which let a form feed into an id; also ones that spell a tab or a line break, which are text,
# and a backslash's own escape before a ``u``, ``b`` or ``f``: ``not_text`` decides).
_MAYBE_NOT_TEXT = re.compile(_NOT_TEXT.pattern + r"|\\u(?:00[01]|[dD][89a-fA-F]|[fF]{3}[eEfF])|\\[bf]")


def load_json(text: str, what: str) -> Any:
    odd: list[_NotANumber] = []  # the numbers JSON has not, as the reader meets them

    def constant(name: str) -> _NotANumber:
        odd.append(_NotANumber(name))
        return odd[-1]

    def number(digits: str) -> float | _NotANumber:
        value = _number(digits)
        if isinstance(value, _NotANumber):
            odd.append(value)
        return value

    try:
        with gc_paused():
            data = json.loads(text, parse_constant=constant, parse_float=number, object_pairs_hook=_unique_keys)
    except _Twice as err:
        raise FormatError(f"{what}: invalid JSON: the key {json_value(err.key)} appears twice in one object; "
                          "keep one") from None
    except json.JSONDecodeError as err:
        why = err.msg.removesuffix(" at")  # Python's reader ends some with "at", before a position it adds
        raise FormatError(f"{what}: invalid JSON at line {err.lineno}, column {err.colno}: {why}") from None
    except RecursionError:
        raise FormatError(f"{what}: invalid JSON: nested too deeply to read") from None
    except ValueError:  # an integer past Python's digit limit for conversion
        raise FormatError(f"{what}: invalid JSON: a number of more than {sys.get_int_max_str_digits()} digits"
                          ) from None
    # the walk over every value is most of a big file's reading: only a text that may hold
    # something it finds is walked (tests/test_cli_errors.py holds the two ways to each other)
    found = not_text(data) if odd or _MAYBE_NOT_TEXT.search(text) else None
    if found is not None:
        where, bad = found
        if isinstance(bad, _NotANumber):
            why = ("not valid JSON (JSON has no NaN or Infinity)" if bad.text in ("NaN", "Infinity", "-Infinity") else
                   "too small a number (it reads as 0)" if float(bad.text) == 0 else
                   "too large a number (it reads as infinity)")
            raise FormatError(f"{what}: {where}: {bad.text} is {why}")
        kind = "a lone surrogate" if "\ud800" <= bad <= "\udfff" else "a control character"
        raise FormatError(f"{what}: {where}: a string holds {kind} (\\u{ord(bad):04x}), which is not text")
    return data


def not_text(data: Any) -> tuple[str, str | _NotANumber] | None:
    """The first value that is not text or not a JSON number: a string (a key or a value)
    holding a lone surrogate or a control character, with that character, or a number JSON has
    not; its place, as ``field levels[2].id``. None when there is none."""
    stack = [(data, "")]
    while stack:
        value, where = stack.pop()
        if isinstance(value, _NotANumber):
            return _place(where), value
        if isinstance(value, str):
            match = _NOT_TEXT.search(value)
            if match:
                return _place(where), match.group()
        elif isinstance(value, dict):
            for key in value:
                match = _NOT_TEXT.search(key)
                if match:
                    return (f"a key in {_place(where)}" if where else "a key"), match.group()
            stack.extend((item, f"{where}.{key}") for key, item in reversed(value.items()))
        elif isinstance(value, list):  # reversed: the first item comes off the stack first
            stack.extend((item, f"{where}[{i}]") for i, item in reversed(list(enumerate(value))))
    return None


def _place(where: str) -> str:
    """A value's place for a message: ``field levels[2].id``, or ``the text`` for the whole."""
    return f"field {where.lstrip('.')}" if where else "the text"
