"""The campaign search's board primitives on two uint64 words (cells 0-63, 64-99): shifts and
low bits, a piece's fit and its legal anchors, the spots that complete or cover zones, and the
clears after a placement (``_settle``). Shared by the search, its pruning tests and
``solver.survival``; ``_borrowing`` is how the search's helpers are compiled."""

from __future__ import annotations

import numba as nb
import numpy as np

from .evaluate_jit import _pop64


# The search's helpers are plain compiled functions, not numba-inlined ones (``inline=
# "always"`` copies their code into every call site before typing): that halves the cold
# compile (47 s to 18-23 s here). Called, each array argument would cost an atomic reference
# count up and down per call, which loops and early returns keep numba from pruning (5.0 s
# against 3.4 s inlined on a 5-tray benchmark level). The helpers make, keep and return no
# array (they read or write elements of those they are given, which the caller holds), so they
# are compiled without reference counting ("_nrt=False"): 3.1-3.6 s on that level.
_borrowing = nb.njit(cache=True, _nrt=False)


@nb.njit(cache=True, inline="always")
def _shr(lo, hi, k):
    """The 128-bit board (lo, hi) shifted right by ``k`` cells, 0 <= k < 128."""
    if k == 0:
        return lo, hi
    if k < 64:
        return (lo >> np.uint64(k)) | (hi << np.uint64(64 - k)), hi >> np.uint64(k)
    return hi >> np.uint64(k - 64), np.uint64(0)


@nb.njit(cache=True, inline="always")
def _shl(lo, hi, k):
    """The 100-cell board (lo, hi) shifted left by ``k`` cells, 0 <= k < 64 (cells past 99 dropped)."""
    all_hi = np.uint64((1 << 36) - 1)
    if k == 0:
        return lo, hi
    return lo << np.uint64(k), ((hi << np.uint64(k)) | (lo >> np.uint64(64 - k))) & all_hi


@nb.njit(cache=True, inline="always")
def _low_bit(lo, hi):
    """The lowest set cell of a nonempty (lo, hi): (cell, lo without it, hi without it)."""
    one = np.uint64(1)
    if lo != 0:
        b = lo & (~lo + one)
        return _pop64(b - one), lo ^ b, hi
    b = hi & (~hi + one)
    return 64 + _pop64(b - one), lo, hi ^ b


@nb.njit(cache=True, inline="always")
def _has(lo, hi, cell):
    if cell < 64:
        return (lo >> np.uint64(cell)) & np.uint64(1) != 0
    return (hi >> np.uint64(cell - 64)) & np.uint64(1) != 0


@nb.njit(cache=True, inline="always")
def _pop_zone(zones):
    """The lowest zone of a nonempty zone set (a bit each), and the set without it."""
    b = zones & (~zones + np.uint64(1))
    return _pop64(b - np.uint64(1)), zones ^ b


@nb.njit(cache=True, inline="always")
def _zones_through(lo, hi, cell_zones):
    """The zones (a bit each) through any of the cells (lo, hi)."""
    out = np.uint64(0)
    while lo != 0 or hi != 0:
        cell, lo, hi = _low_bit(lo, hi)
        out |= cell_zones[cell]
    return out


@_borrowing
def _fits(g, e_lo, e_hi, offs, offs_n, anchor_lo, anchor_hi):
    """The anchors where piece ``g`` fits on the empty cells (e_lo, e_hi)."""
    l_lo = anchor_lo[g]
    l_hi = anchor_hi[g]
    for j in range(offs_n[g]):
        s_lo, s_hi = _shr(e_lo, e_hi, offs[g, j])
        l_lo &= s_lo
        l_hi &= s_hi
    return l_lo, l_hi


@_borrowing
def _near(e_lo, e_hi, n_zones, zone_lo, zone_hi, most):
    """The zones (a bit each) with 1..``most`` empty cells on the empty cells (e_lo, e_hi): the
    only ones a piece of at most ``most`` cells can complete."""
    out = np.uint64(0)
    for z in range(n_zones):
        n = _pop64(zone_lo[z] & e_lo) + _pop64(zone_hi[z] & e_hi)
        if n != 0 and n <= most:
            out |= np.uint64(1) << np.uint64(z)
    return out


@_borrowing
def _anchors(g, e_lo, e_hi, full_scan, zones, zone_lo, zone_hi, piece_size, offs, offs_n,
             anchor_lo, anchor_hi, cover_lo, cover_hi):
    """Where piece ``g`` fits on the empty cells (e_lo, e_hi), split into the anchors (top-left
    cells) whose placement completes a zone and the rest: (clear lo, hi, plain lo, hi).

    A placement completes zone z exactly when it covers every empty cell of z, so the clearing
    anchors are, over the zones with 1..size empty cells, the anchors covering all of them;
    ``zones`` (a bit each) holds at least those (``_near``).
    """
    l_lo, l_hi = _fits(g, e_lo, e_hi, offs, offs_n, anchor_lo, anchor_hi)
    if full_scan:  # a zone full from the start clears with any placement
        return l_lo, l_hi, np.uint64(0), np.uint64(0)
    c_lo, c_hi = _completing(g, l_lo, l_hi, e_lo, e_hi, zones, zone_lo, zone_hi, piece_size, cover_lo, cover_hi)
    return c_lo, c_hi, l_lo & ~c_lo, l_hi & ~c_hi


@_borrowing
def _completing(g, l_lo, l_hi, e_lo, e_hi, zones, zone_lo, zone_hi, piece_size, cover_lo, cover_hi):
    """Of the anchors (l_lo, l_hi) where piece ``g`` fits, those completing one of ``zones`` (a
    bit per zone) on the empty cells (e_lo, e_hi)."""
    size = piece_size[g]
    u_lo = np.uint64(0)
    u_hi = np.uint64(0)
    while zones != 0:
        z, zones = _pop_zone(zones)
        m_lo = zone_lo[z] & e_lo
        m_hi = zone_hi[z] & e_hi
        n = _pop64(m_lo) + _pop64(m_hi)
        if n == 0 or n > size:
            continue
        a_lo = l_lo
        a_hi = l_hi
        while (m_lo != 0 or m_hi != 0) and (a_lo != 0 or a_hi != 0):
            cell, m_lo, m_hi = _low_bit(m_lo, m_hi)
            a_lo &= cover_lo[g, cell]
            a_hi &= cover_hi[g, cell]
        u_lo |= a_lo
        u_hi |= a_hi
    return u_lo, u_hi


@_borrowing
def _covering_any(g, r_lo, r_hi, cover_lo, cover_hi):
    """The anchors of piece ``g`` whose spot covers some cell of r (fitting or not)."""
    u_lo = np.uint64(0)
    u_hi = np.uint64(0)
    while r_lo != 0 or r_hi != 0:
        cell, r_lo, r_hi = _low_bit(r_lo, r_hi)
        u_lo |= cover_lo[g, cell]
        u_hi |= cover_hi[g, cell]
    return u_lo, u_hi


@_borrowing
def _covering_apart(g, ok_lo, ok_hi, r_lo, r_hi, s_lo, s_hi, cover_lo, cover_hi):
    """Of the anchors (ok_lo, ok_hi) of piece ``g``, those whose spot covers every cell of r
    and none of s."""
    while (r_lo != 0 or r_hi != 0) and (ok_lo != 0 or ok_hi != 0):
        cell, r_lo, r_hi = _low_bit(r_lo, r_hi)
        ok_lo &= cover_lo[g, cell]
        ok_hi &= cover_hi[g, cell]
    while (s_lo != 0 or s_hi != 0) and (ok_lo != 0 or ok_hi != 0):
        cell, s_lo, s_hi = _low_bit(s_lo, s_hi)
        ok_lo &= ~cover_lo[g, cell]
        ok_hi &= ~cover_hi[g, cell]
    return ok_lo, ok_hi


@_borrowing
def _left_to(g, ok_lo, ok_hi, h, oh_lo, oh_hi, u_lo, u_hi, cover_lo, cover_hi):
    """Of the anchors ``ok`` of piece ``g``, those covering every cell of u that no anchor
    ``oh`` of piece ``h`` covers (the cells a pair's spots share out, left to g)."""
    while (u_lo != 0 or u_hi != 0) and (ok_lo != 0 or ok_hi != 0):
        cell, u_lo, u_hi = _low_bit(u_lo, u_hi)
        if (cover_lo[h, cell] & oh_lo) == 0 and (cover_hi[h, cell] & oh_hi) == 0:
            ok_lo &= cover_lo[g, cell]
            ok_hi &= cover_hi[g, cell]
    return ok_lo, ok_hi


@_borrowing
def _settle(a_lo, a_hi, st_lo, st_hi, touch, g, k, full_scan, zone_lo, zone_hi, zone_region):
    """Clear the complete zones after placing spot ``k`` of piece ``g``: (lo, hi, lines, regions).

    The same rule as ``engine.settle``; ``enumerate_jit._kernel`` keeps its own inline copy,
    which measured twice as fast in that hot loop as calling a shared function.
    """
    o_lo = a_lo | st_lo
    o_hi = a_hi | st_hi
    c_lo = np.uint64(0)
    c_hi = np.uint64(0)
    lines = 0
    regions = 0
    n = zone_lo.shape[0] if full_scan else touch.shape[2]
    for t in range(n):
        z = t if full_scan else touch[g, k, t]
        if z < 0:
            break
        z_lo = zone_lo[z]
        z_hi = zone_hi[z]
        if (o_lo & z_lo) == z_lo and (o_hi & z_hi) == z_hi and (
                (z_lo & ~st_lo) != 0 or (z_hi & ~st_hi) != 0):
            c_lo |= z_lo
            c_hi |= z_hi
            if zone_region[z]:
                regions += 1
            else:
                lines += 1
    return a_lo & ~c_lo, a_hi & ~c_hi, lines, regions
