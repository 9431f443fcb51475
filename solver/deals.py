"""Where pieces come from: a level's fixed trays and reserve, or a seeded random supply.

A random deal draws a supply group by weight, then a shape uniformly inside
it (RULES.md §1, "Random deals"). ``random.Random`` seeded with an int is
the same Mersenne Twister stream on every machine and Python version.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .errors import RulesError
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
