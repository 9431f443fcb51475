"""The exact chance that the next tray cannot be placed: the expert's survival term.

Endless games end on one tray that does not fit, and on a board that still
looks roomy that chance is small but far from nothing: before each of the
five Halloween deaths of the self-play benchmark the board chosen one tray
earlier lost to about 0.5-5 % of the trays the supply deals, while the best
other end state of the same tray lost to as many or fewer (0 % on two of
them), and every one of those deaths could have been avoided (a placement
of the tray before let the fatal tray go down). The sampled lookahead sees
such trays a few times in a hundred; this module counts them all.

``death_chance(variant, lo, hi, stones)`` sums, for each board, over every
multiset of three shapes the supply can deal, its exact probability (the
multinomial of the per-draw shape chances, ``lookahead.shape_probabilities``)
times whether the tray cannot be placed in any order with the clears in
between. The placeability test (``_placeable``) is a depth-first search
that stops at the first line that works: pieces in every order (equal
pieces once), every spot, each placement settled by the campaign search's
``_settle`` (the rules' clear, every zone scanned), the last piece only
tested for a free spot. One pruning rule: when the last piece has
no spot on the board before the middle one is placed, only a middle
placement that clears can open one (a placement that clears nothing only
fills cells). ``tray_placeable`` asks the kernel about one tray; the tests
hold it to the rules engine's ``TraySearch.placeable``. Halloween's expert
uses it by default, at the root and (leaf survival) one tray deeper; see
``solver.expert``.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement
from math import factorial

import numba as nb
import numpy as np

from .board_jit import _settle
from .deals import TRAY_SIZE
from .enumerate_jit import split, zone_tables
from .pieces import placements
from .variants import Variant

assert TRAY_SIZE == 3, "_placeable places a tray of three pieces, and the deal weights count three draws"


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
    return (tuple(shapes), np.array(lo, dtype=np.uint64), np.array(hi, dtype=np.uint64),
            np.array(start, dtype=np.int64), np.array(trays, dtype=np.int64),
            np.array(weights, dtype=np.float64)) + zone_tables(variant)


@nb.njit(cache=True, inline="always")
def _fits(o_lo, o_hi, s_lo, s_hi, a, b):
    for k in range(a, b):
        if (s_lo[k] & o_lo) == 0 and (s_hi[k] & o_hi) == 0:
            return True
    return False


_PERMS = np.array([[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]], dtype=np.int64)
_NO_TOUCH = np.zeros((1, 1, 1), dtype=np.int64)  # _settle scans every zone (full_scan)


@nb.njit(cache=True)
def _placeable(f_lo, f_hi, st_lo, st_hi, tray, s_lo, s_hi, start, z_lo, z_hi, z_region, perms):
    """Whether the three shapes ``tray`` can all be placed on the board (filled cells ``f``,
    stones ``st``), in some order, with the clears in between."""
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
            if (s_lo[a] & (f_lo | st_lo)) != 0 or (s_hi[a] & (f_hi | st_hi)) != 0:
                continue
            b_lo, b_hi, _, _ = _settle(f_lo | s_lo[a], f_hi | s_hi[a], st_lo, st_hi, _NO_TOUCH, 0, 0, True,
                                       z_lo, z_hi, z_region)
            o_lo = b_lo | st_lo
            o_hi = b_hi | st_hi
            # the last piece fits after the middle one only if it fits now or the middle one clears
            last_fits = _fits(o_lo, o_hi, s_lo, s_hi, start[r], start[r + 1])
            for b in range(start[q], start[q + 1]):
                if (s_lo[b] & o_lo) != 0 or (s_hi[b] & o_hi) != 0:
                    continue
                c_lo, c_hi, lines, regions = _settle(b_lo | s_lo[b], b_hi | s_hi[b], st_lo, st_hi, _NO_TOUCH,
                                                     0, 0, True, z_lo, z_hi, z_region)
                if lines + regions == 0 and not last_fits:
                    continue
                if _fits(c_lo | st_lo, c_hi | st_hi, s_lo, s_hi, start[r], start[r + 1]):
                    return True
    return False


@nb.njit(cache=True)
def _death_chances(lo, hi, st_lo, st_hi, trays, weights, s_lo, s_hi, start, z_lo, z_hi, z_region):
    out = np.zeros(lo.shape[0])
    for n in range(lo.shape[0]):
        total = 0.0
        for t in range(trays.shape[0]):
            if not _placeable(lo[n], hi[n], st_lo, st_hi, trays[t], s_lo, s_hi, start, z_lo, z_hi, z_region,
                              _PERMS):
                total += weights[t]
        out[n] = total
    return out


def death_chance(variant: Variant, lo: np.ndarray, hi: np.ndarray, stones: int) -> np.ndarray:
    """For boards given as uint64 word pairs (filled cells, no complete zone), the exact chance
    that the next tray dealt from the variant's supply cannot be placed."""
    _, s_lo, s_hi, start, trays, weights, z_lo, z_hi, z_region = _tables(variant)
    st_lo, st_hi = split(stones)
    return _death_chances(np.asarray(lo, dtype=np.uint64), np.asarray(hi, dtype=np.uint64),
                          np.uint64(st_lo), np.uint64(st_hi), trays, weights, s_lo, s_hi, start,
                          z_lo, z_hi, z_region)


def tray_shapes(variant: Variant) -> list[tuple[tuple[str, str, str], float]]:
    """Every multiset of three shapes the supply deals, with its probability (for tests)."""
    shapes, _, _, _, trays, weights, *_ = _tables(variant)
    return [(tuple(shapes[k] for k in t), float(w)) for t, w in zip(trays, weights)]


def tray_placeable(variant: Variant, filled: int, stones: int, pieces) -> bool:
    """Whether the three supply shapes ``pieces`` can all go down on the board (the kernel's test)."""
    shapes, s_lo, s_hi, start, _, _, z_lo, z_hi, z_region = _tables(variant)
    index = {s: k for k, s in enumerate(shapes)}
    tray = np.array(sorted(index[p] for p in pieces), dtype=np.int64)
    f_lo, f_hi = split(filled)
    st_lo, st_hi = split(stones)
    return bool(_placeable(np.uint64(f_lo), np.uint64(f_hi), np.uint64(st_lo), np.uint64(st_hi), tray,
                           s_lo, s_hi, start, z_lo, z_hi, z_region, _PERMS))
