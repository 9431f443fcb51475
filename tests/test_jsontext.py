"""The JSON reader walks a text's values for what JSON or text has not (``not_text``) only where
a quick look at the text finds it may hold some: held here to walking every text, on seeded
random texts whose strings, keys and numbers mix good and bad characters, raw and escaped."""

from __future__ import annotations

import json
import random

import pytest

from solver.errors import FormatError
from solver.jsontext import _NotANumber, _number, _unique_keys, load_json, not_text

# string pieces: plain, escaped text (é, a tab, a line break, a surrogate pair, a backslash
# before a u), raw non-ASCII, and what is not text, raw or escaped, in both cases of hex
GOOD = ["a", "S", "#", " ", "\\u00e9", "\\t", "\\n", "\\u0009", "\\u000A", "\\ud83d\\ude00", "\\\\u0001",
        "\\\\ud800", "é", "\u2028", "\\u0041", "\\/", "\\\"", "\\u00ff", "\\uabcd", "\\ufffd", "\ufffd",
        "\\\\b", "\\\\f"]  # (a backslash, then b or f: text)
BAD = ["\\u0001", "\\u001f", "\\u001F", "\\ud800", "\\uDC00", "\\udbff", "\\ufffe", "\\uFFFF", "\ufffe",
       "\uffff", "\\u000b", "\\u0000", "\\b", "\\f"]  # (JSON's short escapes of a backspace and a form feed)
NUMBERS = ["0", "-1", "12", "1.5", "-0.25e3", "5.0", "1e308", "9" * 30, "0.0e-999", "-0E5", "5e-324"]
ODD_NUMBERS = ["NaN", "Infinity", "-Infinity", "1e400", "-2E999", "1e-400", "-0.5E-999"]


def string(rng: random.Random, bad: float) -> str:
    return '"' + "".join(rng.choice(BAD if rng.random() < bad else GOOD) for _ in range(rng.randrange(4))) + '"'


def value(rng: random.Random, depth: int, bad: float) -> str:
    kind = rng.randrange(6 if depth < 3 else 3)
    if kind == 0:
        return string(rng, bad)
    if kind == 1:
        return rng.choice(ODD_NUMBERS if rng.random() < bad else NUMBERS)
    if kind == 2:
        return rng.choice(["true", "false", "null"])
    if kind == 3:
        return "[" + ", ".join(value(rng, depth + 1, bad) for _ in range(rng.randrange(4))) + "]"
    keys = {string(rng, bad) for _ in range(rng.randrange(4))}
    return "{" + ", ".join(f"{key}: {value(rng, depth + 1, bad)}" for key in keys) + "}"


def case(seed: int) -> str:
    rng = random.Random(seed)
    return value(rng, 0, bad=rng.choice([0.0, 0.05, 0.2, 0.5]))


def walked(text: str):
    """What walking every value finds (the reader's first answer, before any shortcut)."""
    try:
        data = json.loads(text, parse_constant=_NotANumber, parse_float=_number, object_pairs_hook=_unique_keys)
    except Exception:
        return "unread", None
    return not_text(data), data


@pytest.mark.parametrize("seed", range(600))
def test_the_quick_look_finds_what_the_walk_finds(seed):
    text = case(seed)
    found, data = walked(text)
    if found == "unread":  # a key given twice: the reader's own message, not the walk's
        with pytest.raises(FormatError, match="appears twice"):
            load_json(text, "t")
    elif found is None:
        assert load_json(text, "t") == data
    else:
        where, bad = found
        with pytest.raises(FormatError) as err:
            load_json(text, "t")
        assert f"t: {where}: " in str(err.value)
        assert (bad.text if isinstance(bad, _NotANumber) else f"\\u{ord(bad):04x}") in str(err.value)


def test_the_random_texts_hold_both_kinds():
    """The cases above are worth their time: many texts hold something the walk finds, raw or
    escaped, and many more hold none."""
    found = [walked(case(seed))[0] for seed in range(600)]
    assert sum(f is None for f in found) > 200
    assert sum(isinstance(f, tuple) and isinstance(f[1], str) for f in found) > 80
    assert sum(isinstance(f, tuple) and isinstance(f[1], _NotANumber) for f in found) > 20


def test_reading_leaves_the_garbage_collector_as_it_found_it():
    """The reader pauses cyclic collection while it builds a file's values (gc_paused): after
    it, collection is on again where it was on, off where it was off, also when the text is
    refused."""
    import gc

    was = gc.isenabled()
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            assert load_json('{"a": [1, 2]}', "t") == {"a": [1, 2]}
            with pytest.raises(FormatError):
                load_json('{"a": [1, 2]', "t")
            assert gc.isenabled() == enabled
    finally:
        (gc.enable if was else gc.disable)()
