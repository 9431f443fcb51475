"""Where pieces come from: a level's fixed trays and reserve, or a seeded random supply.

A random deal draws a supply group by weight, then a shape uniformly inside
it (RULES.md §1, "Random deals"). ``random.Random`` seeded with an int is
the same Mersenne Twister stream on every machine and Python version.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .errors import FormatError, RulesError
from .jsontext import json_value, load_json
from .pieces import get_piece
from .variants import Variant

TRAY_SIZE = 3


class RandomDeals:
    """An endless, seeded stream of pieces from a variant's supply."""

    def __init__(self, variant: Variant, seed: int):
        self.variant = variant
        self.seed = seed
        self._rng = random.Random(seed)
        self._total = sum(weight for _, weight, _ in variant.supply)

    def next_piece(self) -> str:
        roll = self._rng.random() * self._total
        for _, weight, group in self.variant.supply:
            if roll < weight:
                return group[self._rng.randrange(len(group))]
            roll -= weight
        group = self.variant.supply[-1][2]  # float round-off at the top end
        return group[self._rng.randrange(len(group))]

    def next_tray(self) -> list[str] | None:
        return [self.next_piece() for _ in range(TRAY_SIZE)]


class ScriptedDeals:
    """A level's trays, dealt in order, and its reserve for rerolls and swaps."""

    def __init__(self, trays: Sequence[Sequence[str]], reserve: Sequence[str] = ()):
        self._trays = [list(t) for t in trays]
        self._reserve = list(reserve)
        self._next_tray = 0
        self._next_reserve = 0

    def next_tray(self) -> list[str] | None:
        if self._next_tray >= len(self._trays):
            return None
        tray = list(self._trays[self._next_tray])
        self._next_tray += 1
        return tray

    def next_piece(self) -> str:
        if self._next_reserve >= len(self._reserve):
            raise RulesError("the level's reserve is used up: no piece left to reroll or swap in")
        piece = self._reserve[self._next_reserve]
        self._next_reserve += 1
        return piece

    @property
    def reserve_left(self) -> int:
        return len(self._reserve) - self._next_reserve

    @property
    def trays_left(self) -> int:
        return len(self._trays) - self._next_tray


def parse_deals(text: str, where: str) -> ScriptedDeals:
    """A fixed deal sequence for endless play (``tenfold play --deals``), so that another engine
    can be given exactly the same trays. Either JSON, a list of trays or an object with
    ``trays`` and an optional ``reserve`` (the pieces rerolls and swaps draw, as in a level
    file), or text with one tray per line, its 1-3 piece ids separated by spaces or commas
    (blank lines skipped)."""
    def piece(value, at: str) -> str:
        try:
            return get_piece(value).id
        except RulesError as err:
            raise FormatError(f"{where}: {at}: {err}") from None

    def tray(items, at: str, item_at) -> list[str]:
        if not isinstance(items, list) or not 1 <= len(items) <= TRAY_SIZE:
            raise FormatError(f"{where}: {at}: expected a tray of 1 to {TRAY_SIZE} piece ids, got {json_value(items)}")
        return [piece(p, item_at(j)) for j, p in enumerate(items)]

    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        data = load_json(text, where)
        reserve_raw: object = []
        if isinstance(data, dict):
            if "trays" not in data:
                raise FormatError(f"{where}: field trays: missing (expected a list of trays)")
            data, reserve_raw = data["trays"], data.get("reserve", [])
        if not isinstance(data, list):
            raise FormatError(f"{where}: field trays: expected a list of trays")
        if not isinstance(reserve_raw, list):
            raise FormatError(f"{where}: field reserve: expected a list of piece ids")
        trays = [tray(t, f"trays[{i}]", lambda j, i=i: f"trays[{i}][{j}]") for i, t in enumerate(data)]
        reserve = [piece(p, f"reserve[{i}]") for i, p in enumerate(reserve_raw)]
    else:
        trays, reserve = [], []
        for number, line in enumerate(text.splitlines(), start=1):
            ids = [p for p in line.replace(",", " ").split() if p]
            if ids:
                trays.append(tray(ids, f"line {number}", lambda j, n=number: f"line {n}, piece {j + 1}"))
    if not trays:
        raise FormatError(f"{where}: no trays (expected at least one)")
    return ScriptedDeals(trays, reserve)
