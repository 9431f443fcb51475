"""A level or pack file's JSON checked against its JSON Schema (``levels/schema/``): a compiled
quick check first, and where it fails, jsonschema's first error as one line naming the field
and spelling values as JSON spells them. tenfold's integers are JSON integers (the schema's
own "integer" would take 5.0)."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from .errors import FormatError, clipped
from .jsontext import json_value


@lru_cache(maxsize=None)
def _schema(name: str) -> dict[str, Any]:
    return json.loads(resources.files("levels").joinpath("schema", f"{name}.schema.json").read_text("utf-8"))


def level_tokens_most() -> int:
    """The most tokens a level file may give (its schema's cap), which the options that take
    tokens share."""
    return _schema("level")["properties"]["tokens"]["maximum"]


@lru_cache(maxsize=None)
def _validator(name: str):
    """The schema's validator, whose first error a message names."""
    import jsonschema

    schema = _schema(name)
    # an integer is an int, as our fields count things: JSON Schema would also take 5.0
    integers = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda checker, value: isinstance(value, int) and not isinstance(value, bool))
    strict = jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=integers)
    return strict(schema)


# the schemas' pattern for ids, which one-line outputs, URLs and file names show: no line break or tab
# ("(?![\\s\\S])", nothing after, ends the text in every dialect: Python's "$" also matches before a
# last line break, so "$" took "id\n")
ONE_LINE = "^[^\\n\\r\\t\\u0085\\u2028\\u2029]+(?![\\s\\S])"


def _json_spelled(message: str, instance: Any, expected: Any) -> str:
    """A jsonschema message with the value it quotes first (and the schema's value it names, as
    an enum's list) spelled as JSON spells them."""
    head = repr(instance)
    if message.startswith(head):
        message = json_value(instance) + message[len(head):]
    if isinstance(expected, (list, dict, bool)) or expected is None:
        message = message.replace(repr(expected), json.dumps(expected))
    return message


def _where(path) -> str:
    parts = []
    for p in path:
        parts.append(f"[{p}]" if isinstance(p, int) else (f".{p}" if parts else str(p)))
    return "".join(parts) or "(top level)"


# The keywords the quick check below knows to mean what they mean to the validator above: in
# fastjsonschema's draft 7 as in draft 2020-12, but for "integer", which it takes 5.0 for.
_QUICK_KEYWORDS = frozenset({
    "$schema", "$id", "title", "type", "properties", "items", "required", "additionalProperties",
    "minProperties", "maxProperties", "const", "enum", "pattern", "minLength", "minItems", "maxItems",
    "minimum", "maximum", "oneOf"})


def _quick_keywords_only(schema: Any) -> bool:
    if not isinstance(schema, dict) or not set(schema) <= _QUICK_KEYWORDS:
        return False
    subs = [*schema.get("properties", {}).values(), *schema.get("oneOf", [])]
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            subs.append(schema[key])
    return all(_quick_keywords_only(sub) for sub in subs)


@lru_cache(maxsize=None)
def _quick_check(name: str):
    """A compiled check of the schema (fastjsonschema: a big pack's levels are checked some 30
    times faster than jsonschema checks them), or None where the schema uses a keyword it is
    not known to read alike. It says only whether a value passes; a value it refuses is
    checked again by ``_validator`` for the message (tests/test_level_files.py holds the two
    to each other on mutated levels)."""
    import fastjsonschema

    schema = _schema(name)
    return fastjsonschema.compile(schema) if _quick_keywords_only(schema) else None


@lru_cache(maxsize=None)
def _integer_places_of(name: str):
    return _integer_places(_schema(name))


def _integer_places(schema: dict[str, Any]):
    """Where the schema asks for an integer: None where nowhere, else (here, {property: places},
    the items' places), the path ``_integer_as_float`` walks instead of the whole value."""
    types = schema.get("type")
    types = types if isinstance(types, list) else [types]
    here = "integer" in types and "number" not in types
    properties = {key: places for key, sub in schema.get("properties", {}).items()
                  if (places := _integer_places(sub)) is not None}
    items = _integer_places(schema["items"]) if isinstance(schema.get("items"), dict) else None
    return (here, properties, items) if here or properties or items else None


def _integer_as_float(places, value: Any) -> bool:
    """Whether ``value`` holds a float, such as 5.0, where the schema asks for an integer,
    which JSON Schema takes and the quick check too, and tenfold refuses."""
    if places is None:
        return False
    here, properties, items = places
    if here and type(value) is float:
        return True
    if isinstance(value, dict):
        return any(key in value and _integer_as_float(sub, value[key]) for key, sub in properties.items())
    if isinstance(value, list) and items is not None:
        return any(_integer_as_float(items, item) for item in value)
    return False


def _passes_quickly(data: Any, name: str) -> bool:
    import fastjsonschema

    check = _quick_check(name)
    if check is None:
        return False
    try:
        check(data)
    except fastjsonschema.JsonSchemaException:
        return False
    return not _integer_as_float(_integer_places_of(name), data)


# a JSON Schema type as an error message says it
_TYPE_WORDS = {"object": "an object", "array": "a list", "string": "a string", "integer": "an integer",
               "number": "a number", "boolean": "true or false", "null": "null"}


def validate_schema(data: Any, name: str, where: str) -> None:
    if _passes_quickly(data, name):
        return
    errors = sorted(_validator(name).iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        err = errors[0]
        message = err.message
        path = list(err.absolute_path)
        if err.validator == "required" and isinstance(err.instance, dict):  # named as the field it is
            missing = [key for key in err.validator_value if key not in err.instance]
            raise FormatError(f"{where}: field {_where(path + missing[:1])}: missing")
        if err.validator == "type":  # jsonschema says "False is not of type 'array'"
            types = err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
            message = (f"expected {' or '.join(_TYPE_WORDS.get(t, t) for t in types)}, "
                       f"got {json_value(err.instance)}")
        elif err.validator in ("minItems", "maxItems") and isinstance(err.instance, list):  # "[...] is too long"
            most, n = err.validator_value, len(err.instance)
            got = f"{n}: {clipped(json.dumps(err.instance))}" if n else "none"
            message = (f"expected {'at least' if err.validator == 'minItems' else 'at most'} {most} "
                       f"item{'s' if most != 1 else ''}, got {got}")
        elif err.validator == "const":  # jsonschema says "True was expected", in Python's spelling
            message = f"expected {json.dumps(err.validator_value)}, got {clipped(json.dumps(err.instance))}"
        elif err.validator == "oneOf":  # a goal: one of the goals' fields, with any others (kept)
            names = ", ".join(sub["required"][0] for sub in err.validator_value)
            message = (f"expected exactly one of the fields {names} (other fields are kept), "
                       f"got {clipped(json.dumps(err.instance))}")
        elif err.validator == "pattern" and err.validator_value == ONE_LINE:  # ids: one line of text
            message = f"expected one line of text (no line break or tab), got {clipped(json.dumps(err.instance))}"
        else:  # jsonschema writes the values in Python's spelling: None, True, ['a'], {'k': 1}
            message = _json_spelled(message, err.instance, err.validator_value)
        if name == "pack" and len(path) == 2 and path[0] == "levels":  # a level: as its own errors start
            raise FormatError(f"{where}: levels[{path[1]}]: {clipped(message, 240)}")
        raise FormatError(f"{where}: field {_where(path)}: {clipped(message, 240)}")
