"""The campaign search's pumpkin tests (``solver.campaign_jit`` argues why each is sound): the
reach test at the start of the tray where every line ends (``_pumpkins_reachable``), and with
one placement left after a plain one, the spots after which a piece left may still clear every
pumpkin (``_pumpkin_ways``, ``_pumpkin_partners``)."""

from __future__ import annotations

import numba as nb
import numpy as np

from .board_jit import (_borrowing, _completing, _covering_any, _covering_apart, _fits, _left_to, _low_bit,
                        _pop_zone, _shl, _zones_through)
from .evaluate_jit import _pop64


@_borrowing
def _pumpkins_reachable(p_lo, p_hi, f_lo, f_hi, st_lo, st_hi, t_idx, left, k, tray_len, tray_piece, rem_cells,
                        n_zones, zone_lo, zone_hi, cell_zones, piece_size, offs, offs_n, anchor_lo, anchor_hi,
                        cover_lo, cover_hi, pieces, fit_lo, fit_hi):
    """Whether every pumpkin (p_lo, p_hi) may still be cleared within ``k`` placements from the
    state (tray ``t_idx``, unplaced slots ``left``) on the board f: a necessary condition
    (``pieces``, ``fit_lo`` and ``fit_hi`` are scratch rows, one per piece).

    Zone z can first complete at placement m only if it is in ``Z_m``: ``Z_1`` holds the zones
    one spot of a piece still to come covers every empty cell of (on today's board), ``Z_m``
    also those each of whose empty cells some spot of those pieces covers on the board with
    every zone of ``Z_(m-1)`` cleared, and whose empty cells the m largest of them can fill. (By
    induction: every tile placed up to then fitted a board whose empty cells were today's or a
    zone's completed earlier, so one of ``Z_(m-1)``.) A pumpkin is cleared only by a zone
    through it completing, so each needs one in ``Z_k``."""
    all_hi = np.uint64((1 << 36) - 1)
    e_lo = ~(f_lo | st_lo)
    e_hi = ~(f_hi | st_hi) & all_hi
    # the distinct pieces a line can still place: this tray's unplaced ones, then whole trays
    n = 0
    count = 0
    t = t_idx
    mask = left
    n_trays = tray_len.shape[0]
    while t < n_trays and count < k:
        for i in range(tray_len[t]):
            if mask >> i & 1:
                g = tray_piece[t, i]
                seen = False
                for j in range(n):
                    if pieces[j] == g:
                        seen = True
                        break
                if not seen:
                    pieces[n] = g
                    n += 1
        count += _pop64(np.uint64(mask))
        t += 1
        if t < n_trays:
            mask = (1 << tray_len[t]) - 1
    need = _zones_through(p_lo, p_hi, cell_zones)  # the zones a pumpkin needs one of
    every = _zones_through(~np.uint64(0), all_hi, cell_zones)
    # Z_1: one spot completes the zone
    for j in range(n):
        g = pieces[j]
        fit_lo[j], fit_hi[j] = _fits(g, e_lo, e_hi, offs, offs_n, anchor_lo, anchor_hi)
    reach = np.uint64(0)
    for z in range(n_zones):
        m_lo = zone_lo[z] & e_lo
        m_hi = zone_hi[z] & e_hi
        if m_lo == 0 and m_hi == 0:
            continue
        for j in range(n):
            l_lo, l_hi = _completing(pieces[j], fit_lo[j], fit_hi[j], e_lo, e_hi, np.uint64(1) << np.uint64(z),
                                     zone_lo, zone_hi, piece_size, cover_lo, cover_hi)
            if l_lo != 0 or l_hi != 0:
                reach |= np.uint64(1) << np.uint64(z)
                break
    opened = ~np.uint64(0)  # the zones cleared on the board that cov was worked out on (none yet)
    cov_lo = np.uint64(0)
    cov_hi = np.uint64(0)
    for m in range(2, k + 1):
        if _pumpkins_met(p_lo, p_hi, reach, cell_zones):
            return True
        if reach != opened:
            # the board with every zone reachable so far cleared, and what the pieces cover on it
            x_lo = e_lo
            x_hi = e_hi
            zs = reach
            while zs != 0:
                z, zs = _pop_zone(zs)
                x_lo |= zone_lo[z] & ~st_lo
                x_hi |= zone_hi[z] & ~st_hi
            opened = reach
            cov_lo = np.uint64(0)
            cov_hi = np.uint64(0)
            for j in range(n):
                g = pieces[j]
                l_lo, l_hi = _fits(g, x_lo, x_hi, offs, offs_n, anchor_lo, anchor_hi)
                for o in range(offs_n[g]):
                    s_lo, s_hi = _shl(l_lo, l_hi, offs[g, o])
                    cov_lo |= s_lo
                    cov_hi |= s_hi
        most = rem_cells[t_idx, left, m]
        # at the last placement only a zone through a pumpkin matters
        zs = ~reach & (need if m == k else every)
        while zs != 0:
            z, zs = _pop_zone(zs)
            m_lo = zone_lo[z] & e_lo
            m_hi = zone_hi[z] & e_hi
            if (m_lo == 0 and m_hi == 0) or (m_lo & ~cov_lo) != 0 or (m_hi & ~cov_hi) != 0:
                continue
            if _pop64(m_lo) + _pop64(m_hi) <= most:
                reach |= np.uint64(1) << np.uint64(z)
    return _pumpkins_met(p_lo, p_hi, reach, cell_zones)


@nb.njit(cache=True, inline="always")
def _pumpkins_met(p_lo, p_hi, zones, cell_zones):
    """Whether a zone of ``zones`` runs through every pumpkin."""
    while p_lo != 0 or p_hi != 0:
        cell, p_lo, p_hi = _low_bit(p_lo, p_hi)
        if cell_zones[cell] & zones == 0:
            return False
    return True


_PARTNER_CHOICES = 64  # past this many ways to pick a zone per pumpkin, _pumpkin_partners keeps all


@_borrowing
def _pumpkin_ways(pk_lo, pk_hi, e_lo, e_hi, cell_zones, zone_lo, zone_hi, way_lo, way_hi, way_n):
    """For each way to pick one zone through each pumpkin pk, the picked zones' empty cells (on
    the empty cells e) and their count, into ``way_*``; returns how many ways, or -1 past
    ``_PARTNER_CHOICES`` (the arrays hold that many) or with no pumpkin (nothing to choose)."""
    if pk_lo == 0 and pk_hi == 0:
        return -1
    ways = 1
    q_lo = pk_lo
    q_hi = pk_hi
    while q_lo != 0 or q_hi != 0:
        cell, q_lo, q_hi = _low_bit(q_lo, q_hi)
        ways *= _pop64(cell_zones[cell])
        if ways > _PARTNER_CHOICES:
            return -1
    for w in range(ways):
        u_lo = np.uint64(0)
        u_hi = np.uint64(0)
        r = w
        q_lo = pk_lo
        q_hi = pk_hi
        while q_lo != 0 or q_hi != 0:
            cell, q_lo, q_hi = _low_bit(q_lo, q_hi)
            zs = cell_zones[cell]
            n_z = _pop64(zs)
            pick = r % n_z
            r //= n_z
            for _ in range(pick):
                zs &= zs - np.uint64(1)
            z, zs = _pop_zone(zs)
            u_lo |= zone_lo[z] & e_lo
            u_hi |= zone_hi[z] & e_hi
        way_lo[w] = u_lo
        way_hi[w] = u_hi
        way_n[w] = _pop64(u_lo) + _pop64(u_hi)
    return ways


@_borrowing
def _pumpkin_partners(a_g, p_lo, p_hi, e_lo, e_hi, ways, way_lo, way_hi, way_n, rest, t_idx, tray_len, tray_piece,
                      piece_size, offs, offs_n, anchor_lo, anchor_hi, cover_lo, cover_hi, spot_of, spot_lo, spot_hi):
    """Of the plain anchors (p_lo, p_hi) of piece ``a_g`` on the empty cells e, those after
    which one placement of a piece in the slots ``rest`` of tray ``t_idx`` can clear every
    pumpkin. It must complete a zone through each (a plain placement clears none), so for
    some choice of one zone per pumpkin (``ways`` of them, their empty cells in ``way_*``, from
    ``_pumpkin_ways``) the two spots cover all those zones' empty cells: a spot t of that piece
    covers some of them, a the rest, apart from t (a covering them all would clear). Every
    anchor is kept when there are too many choices (``ways`` -1)."""
    if ways < 0:
        return p_lo, p_hi
    keep_lo = np.uint64(0)
    keep_hi = np.uint64(0)
    for j in range(tray_len[t_idx]):
        if not (rest >> j & 1):
            continue
        b_g = tray_piece[t_idx, j]
        fb_lo, fb_hi = _fits(b_g, e_lo, e_hi, offs, offs_n, anchor_lo, anchor_hi)
        most = piece_size[a_g] + piece_size[b_g]
        for w in range(ways):
            if way_n[w] > most:
                continue
            u_lo = way_lo[w]
            u_hi = way_hi[w]
            # a must cover the cells no fitting spot of b covers, b those no anchor of a left covers
            pa_lo, pa_hi = _left_to(a_g, p_lo & ~keep_lo, p_hi & ~keep_hi, b_g, fb_lo, fb_hi, u_lo, u_hi,
                                    cover_lo, cover_hi)
            if pa_lo == 0 and pa_hi == 0:
                continue
            t_lo, t_hi = _covering_any(b_g, u_lo, u_hi, cover_lo, cover_hi)  # b's spots covering one
            t_lo, t_hi = _left_to(b_g, t_lo & fb_lo, t_hi & fb_hi, a_g, pa_lo, pa_hi, u_lo, u_hi, cover_lo, cover_hi)
            while (t_lo != 0 or t_hi != 0) and (pa_lo != 0 or pa_hi != 0):
                t, t_lo, t_hi = _low_bit(t_lo, t_hi)
                k = spot_of[b_g, t]
                s_lo = spot_lo[b_g, k]
                s_hi = spot_hi[b_g, k]
                # a covers the rest, apart from t's cells
                ok_lo, ok_hi = _covering_apart(a_g, pa_lo, pa_hi, u_lo & ~s_lo, u_hi & ~s_hi,
                                               s_lo, s_hi, cover_lo, cover_hi)
                pa_lo &= ~ok_lo
                pa_hi &= ~ok_hi
                keep_lo |= ok_lo
                keep_hi |= ok_hi
    return keep_lo, keep_hi
