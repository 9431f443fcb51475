"""JSON input text to Python values, with every way it can be bad reported as a ``FormatError``:
malformed JSON (with its line and column), nesting too deep to read, integers too long to
convert, and strings that are not text (a lone UTF-16 surrogate, which ``\\ud800`` spells in
valid JSON but no output can encode)."""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from .errors import FormatError

_SURROGATE = re.compile("[\ud800-\udfff]")


def load_json(text: str, what: str) -> Any:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise FormatError(f"{what}: invalid JSON at line {err.lineno}, column {err.colno}: {err.msg}") from None
    except RecursionError:
        raise FormatError(f"{what}: invalid JSON: nested too deeply to read") from None
    except ValueError:  # an integer past Python's digit limit for conversion
        raise FormatError(f"{what}: invalid JSON: a number of more than {sys.get_int_max_str_digits()} digits"
                          ) from None
    found = lone_surrogate(data)
    if found is not None:
        where, char = found
        raise FormatError(f"{what}: {where}: a string holds a lone surrogate (\\u{ord(char):04x}), which is not text")
    return data


def lone_surrogate(data: Any) -> tuple[str, str] | None:
    """The first string (a key or a value) holding a lone surrogate: its place, as
    ``field levels[2].id``, and the surrogate; None when every string is text."""
    stack = [(data, "")]
    while stack:
        value, where = stack.pop()
        if isinstance(value, str):
            match = _SURROGATE.search(value)
            if match:
                return f"field {where.lstrip('.')}" if where else "the text", match.group()
        elif isinstance(value, dict):
            for key in value:
                match = _SURROGATE.search(key)
                if match:
                    return f"a key in field {where.lstrip('.')}" if where else "a key", match.group()
            stack.extend((item, f"{where}.{key}") for key, item in reversed(value.items()))
        elif isinstance(value, list):  # reversed: the first item comes off the stack first
            stack.extend((item, f"{where}[{i}]") for i, item in reversed(list(enumerate(value))))
    return None
