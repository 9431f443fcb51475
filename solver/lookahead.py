"""Stratified sampling of the next tray, for the expert's lookahead.

The lookahead wants, for each candidate end state ``s``, the expectation
``E[V(s, T)]`` over the next tray ``T`` dealt from the variant's supply
(RULES.md §1: three independent draws, each a group by weight, then a shape
uniformly inside it). Plain Monte Carlo with 16 trays rarely meets the
trays that end games: in Halloween self-play the deaths on 50-60 %-full
boards came almost all from trays holding two or three *bulky* pieces
(3x3 or X5; on the boards before the deaths of seeds 2029 and 2039, 91 % and
100 % of the death probability lay in trays with at least two of them,
trays that are dealt 2 % of the time), so 16 plain samples usually hold none.

Strata. A tray falls in stratum ``min(k, 2)`` where ``k`` counts its bulky
pieces (``BULKY`` that the supply can deal). With ``b`` the chance that one
draw is bulky, ``P(k) = C(3, k) b^k (1-b)^(3-k)``; these probabilities are
exact (``fractions.Fraction`` from the integer supply weights).
Inside a stratum a tray is drawn from the supply conditioned on it: the
bulky count (for the top stratum, 2 or 3 in proportion to their chances),
which slots hold bulky pieces (uniformly), then each slot's shape from the
supply restricted to bulky or to other shapes. So a stratum's sample mean is
an unbiased estimate of its conditional mean.

Allocation. Every stratum that can occur gets at least ``n // 4`` of the
``n`` rounds (at least one when ``n`` is no less than the number of
strata); the rest are shared in proportion to ``P(k)`` (largest
remainder). For 16 rounds in Halloween that is 7, 5 and 4 trays for 0, 1
and 2+ bulky pieces, instead of about 12, 3 and 0.3. The allocation is
fixed before any tray is drawn, so it does not bias the stratum means.

Estimate. ``sum_h P(h) * mean_h``: unbiased for the expectation over the
supply whenever every stratum holds at least one sample. The schedule
visits the strata in turn (0, 1, 2, 0, 1, 2, ...), so any 3 or more
complete rounds do; with fewer (a lookahead cut short by the clock) the
sampled strata's probabilities are renormalised, which is biased towards
the strata sampled and is the only bias. Under the clock the number of
complete rounds depends on time (hence slightly on which trays were
drawn); with ``clock=False`` it is fixed.

``PlainTrays`` is the unstratified sampler behind the same interface, and
``blocked_hazard`` the exact chance that a tray deals a hard piece with no
spot on a board, from the board's features (the expert's leaf hazard).
"""

from __future__ import annotations

import bisect
import random
from fractions import Fraction
from functools import lru_cache
from math import comb

import numpy as np

from .deals import TRAY_SIZE, RandomDeals
from .variants import Variant

BULKY = ("3x3", "X5")  # the pieces that need a whole free 3x3 box's centre cross
TOP = 2  # strata: 0, 1 and >= 2 bulky pieces


@lru_cache(maxsize=None)
def shape_probabilities(variant: Variant) -> dict[str, Fraction]:
    """Exact chance that one draw deals each shape (a shape in two groups sums both)."""
    total = sum(weight for _, weight, _ in variant.supply)
    probs: dict[str, Fraction] = {}
    for _, weight, group in variant.supply:
        for shape in group:
            probs[shape] = probs.get(shape, Fraction(0)) + Fraction(weight, total * len(group))
    return probs


def bulky_count(tray) -> int:
    return sum(piece in BULKY for piece in tray)


def stratum_of(tray) -> int:
    return min(bulky_count(tray), TOP)


@lru_cache(maxsize=None)
def count_probabilities(variant: Variant) -> tuple[Fraction, ...]:
    """Exact ``P(k bulky pieces in a tray)`` for k = 0..3."""
    b = sum(p for shape, p in shape_probabilities(variant).items() if shape in BULKY)
    return tuple(comb(TRAY_SIZE, k) * b ** k * (1 - b) ** (TRAY_SIZE - k) for k in range(TRAY_SIZE + 1))


@lru_cache(maxsize=None)
def stratum_probabilities(variant: Variant) -> tuple[Fraction, ...]:
    """Exact chance of each stratum (0, 1, ..., TOP bulky pieces, the last one 'or more')."""
    counts = count_probabilities(variant)
    return tuple(counts[:TOP]) + (sum(counts[TOP:]),)


def allocate(rounds: int, probs) -> list[int]:
    """Samples per stratum: a floor of ``rounds // 4`` (at least 1 when there are rounds
    enough) for every stratum that can occur, the rest in proportion to ``probs`` by
    largest remainder (ties to the lower stratum)."""
    live = [p > 0 for p in probs]
    floor = max(1, rounds // 4) if rounds >= sum(live) else 0
    counts = [floor if ok else 0 for ok in live]
    spare = rounds - sum(counts)
    shares = [spare * float(p) for p in probs]
    for h, share in enumerate(shares):
        counts[h] += int(share)
    left = rounds - sum(counts)
    by_remainder = sorted(range(len(probs)), key=lambda h: (-(shares[h] - int(shares[h])), h))
    for h in by_remainder[:left]:
        counts[h] += 1
    return counts


def schedule(counts: list[int]) -> list[int]:
    """The stratum of every round: the strata in turn while each has samples left."""
    left, order = list(counts), []
    while any(left):
        for h in range(len(left)):
            if left[h]:
                order.append(h)
                left[h] -= 1
    return order


class _Table:
    """Draws a shape with the given (relative) probabilities from a ``random.Random``."""

    def __init__(self, probs: dict[str, Fraction]):
        self.shapes = list(probs)
        total = sum(probs.values())
        acc, self.edges = Fraction(0), []
        for shape in self.shapes:
            acc += probs[shape]
            self.edges.append(float(acc / total))

    def draw(self, rng: random.Random) -> str:
        i = bisect.bisect_right(self.edges, rng.random())
        return self.shapes[min(i, len(self.shapes) - 1)]


class StratifiedTrays:
    """Seeded trays for ``rounds`` lookahead rounds, stratified by bulky pieces.

    ``schedule`` gives each round's stratum, ``draw(h)`` a tray from stratum
    ``h``, ``estimate(sums, counts)`` the stratified mean from per-stratum
    sums of values (one column per candidate) and sample counts.
    """

    def __init__(self, variant: Variant, seed: int, rounds: int):
        self.rng = random.Random(seed)
        self.probs = np.array([float(p) for p in stratum_probabilities(variant)])
        self._counts = count_probabilities(variant)
        self.schedule = schedule(allocate(rounds, stratum_probabilities(variant)))
        shapes = shape_probabilities(variant)
        self._bulky = _Table({s: p for s, p in shapes.items() if s in BULKY}) if self.probs[1:].any() else None
        self._other = _Table({s: p for s, p in shapes.items() if s not in BULKY})

    @property
    def strata(self) -> int:
        return len(self.probs)

    def _bulky_count(self, h: int) -> int:
        if h < TOP:
            return h
        tail = self._counts[TOP:]  # the top stratum: k >= TOP in proportion to P(k)
        roll, acc = self.rng.random() * float(sum(tail)), 0.0
        for k, p in enumerate(tail, TOP):
            acc += float(p)
            if roll < acc:
                return k
        return TRAY_SIZE

    def draw(self, h: int) -> list[str]:
        k = self._bulky_count(h)
        slots = set(self.rng.sample(range(TRAY_SIZE), k))
        return [(self._bulky if i in slots else self._other).draw(self.rng) for i in range(TRAY_SIZE)]

    def estimate(self, sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """``sum_h P(h) * sums[h] / counts[h]`` over the strata sampled (renormalised if any is missing)."""
        sampled = counts > 0
        weights = np.where(sampled, self.probs, 0.0)
        weights /= weights.sum()
        return (weights / np.maximum(counts, 1)) @ sums


class PlainTrays:
    """The unstratified sampler with the same interface: ``rounds`` trays straight from the
    supply (``RandomDeals``), one stratum, the estimate their plain mean."""

    strata = 1

    def __init__(self, variant: Variant, seed: int, rounds: int):
        self._deals = RandomDeals(variant, seed)
        self.schedule = [0] * rounds

    def draw(self, h: int) -> list[str]:
        return self._deals.next_tray()

    def estimate(self, sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
        return sums[0] / counts[0]


@lru_cache(maxsize=None)
def _hard_shape_chances(variant: Variant) -> tuple[float, float, float, float]:
    """Per-draw chances of 3x3, 1x5, 5x1 and of one L5 turn (the mean of the four)."""
    p = shape_probabilities(variant)
    turns = [p.get(f"L5-{c}", Fraction(0)) for c in ("nw", "ne", "sw", "se")]
    return float(p.get("3x3", 0)), float(p.get("1x5", 0)), float(p.get("5x1", 0)), float(sum(turns) / 4)


def blocked_hazard(variant: Variant, feats: np.ndarray) -> np.ndarray:
    """For boards given by their feature rows (``solver.evaluate.FEATURES``), the chance that
    the following tray deals at least one hard shape that has no spot on the board:
    ``1 - (1 - q)^3`` with ``q`` the per-draw chance of a blocked shape. It ignores that
    another piece of that tray may clear a line and open a spot, so it overstates a little."""
    from .evaluate import FEATURES

    col = {f: FEATURES.index(f) for f in ("fit_3x3", "fit_1x5", "fit_5x1", "hard_blocked")}
    p33, p15, p51, p_turn = _hard_shape_chances(variant)
    b33 = feats[:, col["fit_3x3"]] == 0
    b15 = feats[:, col["fit_1x5"]] == 0
    b51 = feats[:, col["fit_5x1"]] == 0
    turns = feats[:, col["hard_blocked"]] - b33 - b15 - b51  # the L5 turns with no spot
    q = p33 * b33 + p15 * b15 + p51 * b51 + p_turn * turns
    return 1.0 - (1.0 - q) ** TRAY_SIZE
