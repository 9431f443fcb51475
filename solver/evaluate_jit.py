"""The numba kernel behind ``solver.evaluate.features_bulk``.

Each board is cut into ten 10-bit rows of empty cells; every feature is a
few shifts and ANDs per row (a 1x5 fits where a row and its shifts by 1..4
are all empty, a 3x3 where three consecutive rows of 3-runs overlap, ...).
Feature order is ``solver.evaluate.FEATURES``.
"""

from __future__ import annotations

import numba as nb
import numpy as np

N_FEATURES = 12
ROW_BITS = 1023


@nb.njit(cache=True, inline="always")
def _pop64(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@nb.njit(cache=True, inline="always")
def _pop(x):
    return _pop64(np.uint64(x))


@nb.njit(cache=True)
def _empty_rows(o_lo, o_hi, rows):
    """rows[i] = the empty cells of row i as 10 bits."""
    for i in range(10):
        start = 10 * i
        if start + 10 <= 64:
            bits = np.int64((o_lo >> np.uint64(start)) & np.uint64(ROW_BITS))
        elif start >= 64:
            bits = np.int64((o_hi >> np.uint64(start - 64)) & np.uint64(ROW_BITS))
        else:
            low_n = 64 - start
            bits = np.int64(o_lo >> np.uint64(start)) & ((1 << low_n) - 1)
            bits |= np.int64(o_hi << np.uint64(low_n)) & ROW_BITS
        rows[i] = ~bits & ROW_BITS


@nb.njit(cache=True, inline="always")
def _isolated_in_row(rows, i):
    """The empty cells of row i with no empty edge-neighbour."""
    e = rows[i]
    nbr = ((e << 1) | (e >> 1)) & ROW_BITS
    if i > 0:
        nbr |= rows[i - 1]
    if i < 9:
        nbr |= rows[i + 1]
    return _pop(e & ~nbr)


@nb.njit(cache=True)
def _components(rows, work):
    for i in range(10):
        work[i] = rows[i]
    count = 0
    area = np.zeros(10, np.int64)
    for i in range(10):
        while work[i] != 0:
            for j in range(10):
                area[j] = 0
            area[i] = work[i] & -work[i]
            changed = True
            while changed:
                changed = False
                for j in range(10):
                    a = area[j]
                    grown = a | (a << 1) | (a >> 1)
                    if j > 0:
                        grown |= area[j - 1]
                    if j < 9:
                        grown |= area[j + 1]
                    grown &= work[j]
                    if grown != a:
                        area[j] = grown
                        changed = True
            for j in range(10):
                work[j] &= ~area[j]
            count += 1
    return count


@nb.njit(cache=True)
def features_kernel(lo, hi, stones_lo, stones_hi, region_lo, region_hi, with_components):
    n = lo.shape[0]
    out = np.zeros((n, N_FEATURES), np.float64)
    rows = np.zeros(10, np.int64)
    h3 = np.zeros(10, np.int64)
    work = np.zeros(10, np.int64)
    n_regions = region_lo.shape[0]
    for b in range(n):
        o_lo = lo[b] | stones_lo
        o_hi = hi[b] | stones_hi
        _empty_rows(o_lo, o_hi, rows)
        empty = 0
        isolated = 0
        rough = 0
        fit_1x5 = 0
        near_lines = 0
        for i in range(10):
            e = rows[i]
            empty += _pop(e)
            isolated += _isolated_in_row(rows, i)
            # horizontal transitions, the rim counting as occupied
            rough += _pop((e ^ (e >> 1)) & 511) + (e & 1) + ((e >> 9) & 1)
            below = rows[i + 1] if i < 9 else 0
            rough += _pop(e ^ below)
            if i == 0:
                rough += _pop(e)
            h2 = e & (e >> 1)
            h3[i] = h2 & (e >> 2)
            fit_1x5 += _pop(h3[i] & (h2 >> 3))
            missing = _pop(e)
            if missing == 1 or missing == 2:
                near_lines += 1
        for c in range(10):
            missing = 0
            for i in range(10):
                missing += (rows[i] >> c) & 1
            if missing == 1 or missing == 2:
                near_lines += 1
        fit_5x1 = 0
        for i in range(6):
            fit_5x1 += _pop(rows[i] & rows[i + 1] & rows[i + 2] & rows[i + 3] & rows[i + 4])
        fit_3x3 = 0
        fit_l5 = 0
        row_min = 10
        row_max = -1
        col_any = 0
        for i in range(8):
            sq = h3[i] & h3[i + 1] & h3[i + 2]
            if sq != 0:
                fit_3x3 += _pop(sq)
                row_min = min(row_min, i)
                row_max = i
                col_any |= sq
            fit_l5 += _pop(h3[i] & rows[i + 1] & rows[i + 2])  # L5-nw
            fit_l5 += _pop(h3[i] & (rows[i + 1] >> 2) & (rows[i + 2] >> 2))  # L5-ne
            fit_l5 += _pop(rows[i] & rows[i + 1] & h3[i + 2])  # L5-sw
            fit_l5 += _pop((rows[i] >> 2) & (rows[i + 1] >> 2) & h3[i + 2])  # L5-se
        blocked = (fit_3x3 == 0) + (fit_1x5 == 0) + (fit_5x1 == 0)
        if fit_l5 > 0:
            # which of the four L5 turns are blocked
            nw = ne = sw = se = 0
            for i in range(8):
                nw += _pop(h3[i] & rows[i + 1] & rows[i + 2])
                ne += _pop(h3[i] & (rows[i + 1] >> 2) & (rows[i + 2] >> 2))
                sw += _pop(rows[i] & rows[i + 1] & h3[i + 2])
                se += _pop((rows[i] >> 2) & (rows[i + 1] >> 2) & h3[i + 2])
            blocked += (nw == 0) + (ne == 0) + (sw == 0) + (se == 0)
        else:
            blocked += 4
        near_regions = 0
        e_lo = ~o_lo
        e_hi = ~o_hi
        for z in range(n_regions):
            missing = _pop64(region_lo[z] & e_lo) + _pop64(region_hi[z] & e_hi)
            if missing == 1 or missing == 2:
                near_regions += 1
        out[b, 0] = empty
        out[b, 1] = isolated
        out[b, 2] = fit_3x3
        out[b, 3] = fit_1x5
        out[b, 4] = fit_5x1
        out[b, 5] = fit_l5
        out[b, 6] = blocked
        out[b, 7] = near_lines
        out[b, 8] = near_regions
        if with_components:
            out[b, 9] = _components(rows, work)
        out[b, 10] = rough
        if col_any != 0:
            col_lo = 0
            while not (col_any >> col_lo) & 1:
                col_lo += 1
            col_hi = 9
            while not (col_any >> col_hi) & 1:
                col_hi -= 1
            if row_max - row_min >= 3 or col_hi - col_lo >= 3:
                out[b, 11] = 1
    return out
