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


@pytest.mark.parametrize("code", range(0x20))
def test_each_control_character_but_tab_and_line_breaks_is_refused(code):
    """Held to the rule, not to the walk (which shares the reader's character class): every C0
    control character is refused, escaped, in a value or a key, but tab, line feed and carriage
    return, which are text."""
    for text in (f'{{"id": "a\\u{code:04x}b"}}', f'{{"a\\u{code:04X}b": 1}}'):
        if code in (0x09, 0x0A, 0x0D):
            assert load_json(text, "t") in ({"id": f"a{chr(code)}b"}, {f"a{chr(code)}b": 1})
        else:
            with pytest.raises(FormatError, match="control character") as err:
                load_json(text, "t")
            assert f"\\u{code:04x}" in str(err.value)


def test_the_two_noncharacters_are_refused_and_their_neighbours_read():
    for escape in ("\\ufffe", "\\uffff", "\\uFFFF"):
        with pytest.raises(FormatError, match="field id: a string holds"):
            load_json(f'{{"id": "a{escape}"}}', "t")
    assert load_json('{"id": "\\ufffd\\ufffc"}', "t") == {"id": "\ufffd\ufffc"}


@pytest.mark.parametrize("text", ["0e5", "0.0e-999", "-0.0E+10", "0E400", "0.000e1"])
def test_a_zero_with_any_exponent_reads_as_zero(text):
    """Zero times any power of ten is 0, which a float holds: not a number too small."""
    assert load_json(f"[{text}]", "t") == [0.0]


def test_a_json_error_names_its_line_and_column_counted_from_1():
    """Counted by hand: the 1 where the colon should be is at line 1, column 6, and, after a
    line break and two spaces, at line 2, column 7."""
    with pytest.raises(FormatError, match=r"^t: invalid JSON at line 1, column 6: Expecting ':' delimiter$"):
        load_json('{"a" 1}', "t")
    with pytest.raises(FormatError, match=r"^t: invalid JSON at line 2, column 7: "):
        load_json('{\n  "a" 1}', "t")


def test_a_key_given_twice_is_refused_once_as_much_as_often():
    with pytest.raises(FormatError, match='the key "a" appears twice'):
        load_json('{"a": 1, "a": 2}', "t")
    with pytest.raises(FormatError, match='the key "b" appears twice'):
        load_json('{"x": {"a": 1, "b": 2, "b": 3}}', "t")


def test_messages_quote_values_as_json_spells_them_with_their_own_letters():
    from solver.jsontext import json_kind, json_value

    assert json_value(["é", None, True, 1.5]) == '["é", null, true, 1.5]'
    assert [json_kind(v) for v in (None, True, 1, 1.5, "s", [], {})] == \
        ["null", "boolean", "integer", "number", "string", "array", "object"]


def test_the_first_bad_value_in_file_order_is_named():
    """Two bad values: the message names the first in the text (an item, a field)."""
    with pytest.raises(FormatError, match=r"^t: field x\[1\]: NaN"):
        load_json('{"x": [1, NaN, Infinity]}', "t")
    with pytest.raises(FormatError, match=r"^t: field a: NaN"):
        load_json('{"a": NaN, "b": Infinity}', "t")


def test_a_number_past_a_floats_range_either_way_is_too_large():
    """-1e400 reads as minus infinity: too large a number, as 1e400 is; not too small."""
    for text in ("1e400", "-1e400", "-2E999"):
        with pytest.raises(FormatError, match=rf"^t: field x: {text} is too large a number \(it reads as infinity\)$"):
            load_json(f'{{"x": {text}}}', "t")


def test_a_json_copy_shares_nothing_with_its_original():
    from solver.jsontext import json_copy

    original = {"trays": [["1x1", "2x2"]], "goals": [{"score": 5}], "board": {"rows": ["."]}}
    copied = json_copy(original)
    assert copied == original
    copied["trays"][0].append("3x3")
    copied["goals"][0]["score"] = 6
    copied["board"]["rows"].append("#")
    assert original == {"trays": [["1x1", "2x2"]], "goals": [{"score": 5}], "board": {"rows": ["."]}}
