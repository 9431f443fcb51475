"""Options as typer cannot check them: integers and numbers written as such and within range,
time limits, streaks and tokens, a variant and its mode by name; and the help's flags."""

from __future__ import annotations

import math
import re
from typing import Any

import typer
from typer.core import TyperGroup

from solver.errors import RulesError, clipped
from solver.schema import level_tokens_most
from solver.variants import Mode, Variant, find_variant

MAX_TOKENS = level_tokens_most()  # the most tokens an option takes: a level file's cap on "tokens"
MAX_STREAK = 1000  # the longest streak carried in


_INTEGER = re.compile(r"[+-]?[0-9]+")
_DIGITS_MOST = 100  # an option's integer (none of whose ranges comes near)
_NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?inf", re.IGNORECASE)


def int_option(*decls: str, help: str, min: int | None = None, max: int | None = None) -> Any:
    """An option whose value is an integer spelled as one, within ``min``..``max``: typer's own
    integers (pydantic's lax mode, from typer 0.29) took ``1.0``, ``1_0`` and `` 2`` as 1, 10
    and 2. Typer shows the range in the help but leaves a parser's value unchecked: checked here."""
    def parse(value: Any) -> int:
        if isinstance(value, int):  # a default
            return value
        text = str(value)
        if not _INTEGER.fullmatch(text):
            raise typer.BadParameter(f"expected an integer, got {clipped(repr(text), 80)}")
        expected = (f"{min:,} to {max:,}" if min is not None and max is not None else f"{min:,} or more"
                    if min is not None else f"{max:,} or less" if max is not None else "an integer")
        significant = text.lstrip("+-").lstrip("0") or "0"
        negative = text.startswith("-")
        if len(significant) > _DIGITS_MOST:  # (past Python's limit for int(), 4,300 digits, its own message)
            # with no top to its range, the cap on digits is the range a value breaks: said with it
            cap = f" (of at most {_DIGITS_MOST} digits)" if max is None else ""
            raise typer.BadParameter(f"expected {expected}{cap}, got {'a negative' if negative else 'an'}"
                                     f" integer of {len(significant):,} digits")
        number = int(significant) * (-1 if negative else 1)
        if (min is not None and number < min) or (max is not None and number > max):
            raise typer.BadParameter(f"expected {expected}, got {number}")
        return number
    return typer.Option(*decls, help=help, parser=parse, min=min, max=max)


def float_option(*decls: str, help: str) -> Any:
    """An option whose value is a number written as one (``2``, ``0.5``, ``1e3``, ``inf``), as
    ``int_option``'s are: typer's (pydantic's lax mode) took ``1_0`` as 10 and ``infinity``."""
    def parse(value: Any) -> float:
        if isinstance(value, (int, float)):  # a default
            return float(value)
        text = str(value)
        if not _NUMBER.fullmatch(text):
            raise typer.BadParameter(f"expected a number, got {clipped(repr(text), 80)}")
        number = float(text)
        # (a float rounds 1e-400 to 0 and 1e400 to inf: a range check would then quote a number not typed)
        mantissa = text.lower().partition("e")[0]
        if (math.isinf(number) and "inf" not in mantissa) or (number == 0 and re.search("[1-9]", mantissa)):
            size = "too small a number (it reads as 0)" if number == 0 else "too large a number (it reads as infinity)"
            raise typer.BadParameter(f"{clipped(text, 80)} is {size}")
        return number
    return typer.Option(*decls, help=help, parser=parse)


def check_seconds(value: float | None, allow_zero: bool = False, allow_inf: bool = False,
                  name: str = "--time-limit") -> None:
    """A time limit: a number of seconds above 0 (or 0, where it means "no lookahead"), ``inf``
    only where it means "no limit"; never nan, which no clock compares to."""
    if value is None:
        return
    if math.isnan(value) or value < 0 or (value == 0 and not allow_zero) or (math.isinf(value) and not allow_inf):
        expected = ("a number of seconds " if allow_inf else "a finite number of seconds ") + (
            "0 or more" if allow_zero else "above 0")
        raise RulesError(f"{name}: expected {expected}{', or inf for no limit' if allow_inf else ''}, "
                         f"got {number_text(value)}")


def number_text(value: float) -> str:
    """A number for a message as a person writes it: ``-0``, ``1000``, ``0.5``, ``1e-05``, ``inf``
    (Python's shortest spelling that reads back the same, less a whole number's ``.0``)."""
    text = repr(value)
    return text.removesuffix(".0")


def check_streak_and_tokens(streak: int, tokens: int | None, rules: str) -> None:
    """``--streak`` and ``--tokens`` (None: the mode's) within 0..``MAX_STREAK`` and 0..``MAX_TOKENS``,
    and no tokens for a variant that has none (the server checks its request fields itself)."""
    for name, value, high in (("--streak", streak, MAX_STREAK), ("--tokens", tokens, MAX_TOKENS)):
        if value is not None and not 0 <= value <= high:
            raise RulesError(f"{name}: expected 0 to {high:,}, got {value}")
    variant_arg(rules).check_tokens(tokens, "--tokens")


def mode_arg(variant: Variant, name: str | None) -> Mode:
    """``--mode``: one of the variant's modes (None: its default)."""
    try:
        return variant.mode(name)
    except RulesError as err:
        raise RulesError(f"--mode: {err}") from None


def variant_arg(name: str) -> Variant:
    """``--rules``: a variant's name."""
    try:
        return find_variant(name)
    except RulesError as err:
        raise RulesError(f"--rules: {err}") from None


class FlagsGroup(TyperGroup):
    """A command group whose help shows a flag (``--json``, ``--help``) as a flag: typer 0.29
    writes ``--json <bool>``, as if it took a value, which ``--json true`` then refuses."""

    def get_params(self, ctx):
        return _flags_take_no_value(super().get_params(ctx))

    def get_command(self, ctx, name):
        command = super().get_command(ctx, name)
        if command is not None:
            _flags_take_no_value(command.get_params(ctx))
        return command


def _flags_take_no_value(params: list) -> list:
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""  # (the help's type column: empty)
    return params
