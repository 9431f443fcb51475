"""The exact chance that the next tray cannot be placed: the expert's survival term.

Endless games end on one tray that does not fit, and on a board that still
looks roomy that chance is small but far from nothing: before each of the
five Halloween deaths of the self-play benchmark the board chosen one tray
earlier lost to about 0.5-5 % of the trays the supply deals, while the best
other end state of the same tray lost to as many or fewer (0 % on two of
them), and every one of those deaths could have been avoided (a placement of the tray before let
the fatal tray go down). The sampled lookahead sees such trays a few times in
a hundred; this module counts them all.

``death_chance(variant, lo, hi, stones)`` sums, for each board,, over every multiset of three
shapes the supply can deal, its exact probability (the multinomial of the
per-draw shape chances, ``lookahead.shape_probabilities``) times whether the
tray cannot be placed in any order with the clears in between. The
placeability test (``_placeable``) is a depth-first search that stops at the
first line that works: pieces in every order (equal pieces once), every
spot, each placement settled (complete zones cleared, stones kept), the last
piece only tested for a free spot. One pruning rule: when the last piece has
no spot on the board before the middle one is placed, only a middle
placement that clears can open one (a placement that clears nothing only
fills cells). ``tray_placeable`` asks the kernel about one tray; the tests
hold it to the rules engine's ``TraySearch.placeable``. Measured in
self-play, the term is not the expert's default (see ``solver.expert``).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement
from math import factorial

import numba as nb
import numpy as np

from .enumerate_jit import split, zone_tables
from .pieces import placements
from .variants import Variant


@lru_cache(maxsize=None)
def _tables(variant: Variant):
    """Spot masks of every shape the supply deals (concatenated, with start offsets), and
    every multiset of three of those shapes with its exact probability."""
    from .lookahead import shape_probabilities

    probs = shape_probabilities(variant)
    shapes = sorted(s for s, p in probs.items() if p > 0)
    lo, hi, start = [], [], [0]
    for shape in shapes:
        for spot in placements(shape):
            a, b = split(spot.mask)
            lo.append(a)
            hi.append(b)
        start.append(len(lo))
    trays, weights = [], []
    for combo in combinations_with_replacement(range(len(shapes)), 3):
        ways = factorial(3)
        for k in set(combo):
            ways //= factorial(combo.count(k))
        p = Fraction(ways)
        for k in combo:
            p *= probs[shapes[k]]
        trays.append(combo)
        weights.append(float(p))
    z_lo, z_hi, _ = zone_tables(variant)
    return (tuple(shapes), np.array(lo, dtype=np.uint64), np.array(hi, dtype=np.uint64),
            np.array(start, dtype=np.int64), np.array(trays, dtype=np.int64),
            np.array(weights, dtype=np.float64), z_lo, z_hi)


@nb.njit(cache=True, inline="always")
def _fits(o_lo, o_hi, s_lo, s_hi, a, b):
    for k in range(a, b):
        if (s_lo[k] & o_lo) == 0 and (s_hi[k] & o_hi) == 0:
            return True
    return False


@nb.njit(cache=True, inline="always")
def _settle(o_lo, o_hi, st_lo, st_hi, z_lo, z_hi):
    """The occupied board after clearing every complete zone (stones stay); and whether any was."""
    c_lo = np.uint64(0)
    c_hi = np.uint64(0)
    cleared = False
    for z in range(z_lo.shape[0]):
        if (o_lo & z_lo[z]) == z_lo[z] and (o_hi & z_hi[z]) == z_hi[z]:
            c_lo |= z_lo[z]
            c_hi |= z_hi[z]
            cleared = True
    return o_lo & ~(c_lo & ~st_lo), o_hi & ~(c_hi & ~st_hi), cleared


_PERMS = np.array([[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]], dtype=np.int64)


@nb.njit(cache=True)
def _placeable(o_lo, o_hi, st_lo, st_hi, tray, s_lo, s_hi, start, z_lo, z_hi, perms):
    """Whether the three shapes ``tray`` can all be placed on the occupied board (stones
    included), in some order, with the clears in between."""
    for m in range(6):
        p, q, r = tray[perms[m, 0]], tray[perms[m, 1]], tray[perms[m, 2]]
        seen = False
        for e in range(m):
            if p == tray[perms[e, 0]] and q == tray[perms[e, 1]] and r == tray[perms[e, 2]]:
                seen = True
                break
        if seen:
            continue
        for a in range(start[p], start[p + 1]):
            if (s_lo[a] & o_lo) != 0 or (s_hi[a] & o_hi) != 0:
                continue
            b_lo, b_hi, _ = _settle(o_lo | s_lo[a], o_hi | s_hi[a], st_lo, st_hi, z_lo, z_hi)
            # the last piece fits after the middle one only if it fits now or the middle one clears
            last_fits = _fits(b_lo, b_hi, s_lo, s_hi, start[r], start[r + 1])
            for b in range(start[q], start[q + 1]):
                if (s_lo[b] & b_lo) != 0 or (s_hi[b] & b_hi) != 0:
                    continue
                c_lo, c_hi, cleared = _settle(b_lo | s_lo[b], b_hi | s_hi[b], st_lo, st_hi, z_lo, z_hi)
                if not cleared and not last_fits:
                    continue
                if _fits(c_lo, c_hi, s_lo, s_hi, start[r], start[r + 1]):
                    return True
    return False


@nb.njit(cache=True)
def _death_chances(lo, hi, st_lo, st_hi, trays, weights, s_lo, s_hi, start, z_lo, z_hi):
    out = np.zeros(lo.shape[0])
    for n in range(lo.shape[0]):
        o_lo = lo[n] | st_lo
        o_hi = hi[n] | st_hi
        total = 0.0
        for t in range(trays.shape[0]):
            if not _placeable(o_lo, o_hi, st_lo, st_hi, trays[t], s_lo, s_hi, start, z_lo, z_hi, _PERMS):
                total += weights[t]
        out[n] = total
    return out


def death_chance(variant: Variant, lo: np.ndarray, hi: np.ndarray, stones: int) -> np.ndarray:
    """For boards given as uint64 word pairs (filled cells, no complete zone), the exact chance
    that the next tray dealt from the variant's supply cannot be placed."""
    _, s_lo, s_hi, start, trays, weights, z_lo, z_hi = _tables(variant)
    st_lo, st_hi = split(stones)
    return _death_chances(np.asarray(lo, dtype=np.uint64), np.asarray(hi, dtype=np.uint64),
                          np.uint64(st_lo), np.uint64(st_hi), trays, weights, s_lo, s_hi, start, z_lo, z_hi)


def tray_shapes(variant: Variant) -> list[tuple[tuple[str, str, str], float]]:
    """Every multiset of three shapes the supply deals, with its probability (for tests)."""
    shapes, *_, trays, weights, _, _ = _tables(variant)
    return [(tuple(shapes[k] for k in t), float(w)) for t, w in zip(trays, weights)]


def tray_placeable(variant: Variant, filled: int, stones: int, pieces) -> bool:
    """Whether the three supply shapes ``pieces`` can all go down on the board (the kernel's test)."""
    shapes, s_lo, s_hi, start, *_, z_lo, z_hi = _tables(variant)
    index = {s: k for k, s in enumerate(shapes)}
    tray = np.array(sorted(index[p] for p in pieces), dtype=np.int64)
    o_lo, o_hi = split(filled | stones)
    st_lo, st_hi = split(stones)
    return bool(_placeable(np.uint64(o_lo), np.uint64(o_hi), np.uint64(st_lo), np.uint64(st_hi), tray,
                           s_lo, s_hi, start, z_lo, z_hi, _PERMS))
