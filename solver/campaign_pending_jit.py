"""The campaign search's final-tray rule (``solver.campaign_jit`` argues why it is sound): the
placements still pending a clear that uses them (``_pending_after``), and whether each
must-use one can still be used (``_pending_alive``; with two placements left,
``_usable_by_two``)."""

from __future__ import annotations

import numpy as np

from .board_jit import (_borrowing, _completing, _covering_any, _covering_apart, _fits, _low_bit, _near, _pop_zone,
                        _settle, _zones_through)
from .evaluate_jit import _pop64


@_borrowing
def _pending_after(p_lo, p_hi, p_must, p_zones, d, n_src, cleared, o_lo, o_hi, a_lo, a_hi, s_lo, s_hi,
                   cell_zones):
    """The pending placements after one more (its cells s; the board o before its clear, a
    after): a clear drops those it uses (one of its zones ran through them) and makes the rest
    must-use, a plain placement joins as free. Read from row ``d`` of the ``p_*`` arrays,
    written to row ``d + 1`` (rows, not views: a view costs two atomic reference counts);
    returns (count, must-use)."""
    n = 0
    must = 0
    e = d + 1
    for j in range(n_src):
        # tiles cleared are o & ~a: the pending cells still there are in no completed zone
        if cleared and ((p_lo[d, j] & o_lo & ~a_lo) != 0 or (p_hi[d, j] & o_hi & ~a_hi) != 0):
            continue
        p_lo[e, n] = p_lo[d, j]
        p_hi[e, n] = p_hi[d, j]
        p_must[e, n] = 1 if cleared else p_must[d, j]
        p_zones[e, n] = p_zones[d, j]
        must += p_must[e, n]
        n += 1
    if not cleared:
        p_lo[e, n] = s_lo
        p_hi[e, n] = s_hi
        p_must[e, n] = 0
        p_zones[e, n] = _zones_through(s_lo, s_hi, cell_zones)
        n += 1
    return n, must


@_borrowing
def _pending_alive(f_lo, f_hi, st_lo, st_hi, pend_zones, pend_must, d, n_pend, strict, cnt, rest_cells, t_idx,
                   rest, tray_len, tray_piece, n_zones, zone_lo, zone_hi, zone_region,
                   piece_size, offs, offs_n, anchor_lo, anchor_hi, cover_lo, cover_hi, spot_of, spot_lo,
                   spot_hi, spot_touch):
    """Whether a later clear can still use every pending placement that must be used (all of
    them when ``strict``; row ``d`` of ``pend_zones`` and ``pend_must``): ``cnt`` placements
    left, of the unplaced slots ``rest`` of tray ``t_idx``, ``rest_cells`` cells at most. Exact
    for one placement left, a necessary condition per pending placement for two
    (``_usable_by_two``), a zone count beyond."""
    all_hi = np.uint64((1 << 36) - 1)
    e_lo = ~(f_lo | st_lo)
    e_hi = ~(f_hi | st_hi) & all_hi
    need = 0
    for j in range(n_pend):
        if pend_must[d, j] == 1 or strict:
            need += 1
            zs = pend_zones[d, j]
            found = False
            while zs != 0:  # a zone through it no fuller than the cells to come can fill
                z, zs = _pop_zone(zs)
                if _pop64(zone_lo[z] & e_lo) + _pop64(zone_hi[z] & e_hi) <= rest_cells:
                    found = True
                    break
            if not found:
                return False
    if need == 0:
        return True
    if cnt == 1:  # one spot must complete a zone through each
        for i in range(tray_len[t_idx]):
            if not (rest >> i & 1):
                continue
            g = tray_piece[t_idx, i]
            l_lo, l_hi = _fits(g, e_lo, e_hi, offs, offs_n, anchor_lo, anchor_hi)
            for j in range(n_pend):
                if pend_must[d, j] == 1 or strict:
                    l_lo, l_hi = _completing(g, l_lo, l_hi, e_lo, e_hi, pend_zones[d, j], zone_lo, zone_hi,
                                             piece_size, cover_lo, cover_hi)
                    if l_lo == 0 and l_hi == 0:
                        break
            if l_lo != 0 or l_hi != 0:
                return True
        return False
    if cnt == 2 and _pop64(np.uint64(rest)) == 2:
        sa = -1
        sb = -1
        for i in range(tray_len[t_idx]):
            if rest >> i & 1:
                if sa < 0:
                    sa = i
                else:
                    sb = i
        ga = tray_piece[t_idx, sa]
        gb = tray_piece[t_idx, sb]
        fa_lo, fa_hi = _fits(ga, e_lo, e_hi, offs, offs_n, anchor_lo, anchor_hi)
        fb_lo, fb_hi = _fits(gb, e_lo, e_hi, offs, offs_n, anchor_lo, anchor_hi)
        near = _near(e_lo, e_hi, n_zones, zone_lo, zone_hi, max(piece_size[ga], piece_size[gb]))
        ca_lo, ca_hi = _completing(ga, fa_lo, fa_hi, e_lo, e_hi, near, zone_lo, zone_hi, piece_size, cover_lo,
                                   cover_hi)
        cb_lo, cb_hi = _completing(gb, fb_lo, fb_hi, e_lo, e_hi, near, zone_lo, zone_hi, piece_size, cover_lo,
                                   cover_hi)
        # the last rows first: a child's pumpkins follow its pending placements, and the test fails
        # sooner on them (3.3 s to 3.0 s on 5-tray benchmark level 19; in the order of the rows,
        # or the item with the fullest zone first, it did not)
        for jj in range(n_pend):
            j = n_pend - 1 - jj
            if (pend_must[d, j] == 1 or strict) and not _usable_by_two(
                    ga, gb, fa_lo, fa_hi, fb_lo, fb_hi, ca_lo, ca_hi, cb_lo, cb_hi, f_lo, f_hi, st_lo, st_hi,
                    pend_zones[d, j], zone_lo, zone_hi, zone_region, piece_size, offs, offs_n,
                    anchor_lo, anchor_hi, cover_lo, cover_hi, spot_of, spot_lo, spot_hi, spot_touch):
                return False
    return True


@_borrowing
def _usable_by_two(ga, gb, fa_lo, fa_hi, fb_lo, fb_hi, ca_lo, ca_hi, cb_lo, cb_hi, f_lo, f_hi, st_lo, st_hi,
                   x_zones, zone_lo, zone_hi, zone_region, piece_size, offs, offs_n, anchor_lo, anchor_hi,
                   cover_lo, cover_hi, spot_of, spot_lo, spot_hi, spot_touch):
    """Whether the pieces ``ga`` and ``gb`` (fitting at the anchors fa, fb, of which ca, cb
    complete some zone), placed next in either order on the board f, can complete one of the
    zones ``x_zones`` (a necessary condition: where the first clears nothing, the second may
    take any spot that fits before it and misses its cells)."""
    all_hi = np.uint64((1 << 36) - 1)
    e_lo = ~(f_lo | st_lo)
    e_hi = ~(f_hi | st_hi) & all_hi
    # the next placement completes one
    c_lo, c_hi = _completing(ga, fa_lo, fa_hi, e_lo, e_hi, x_zones, zone_lo, zone_hi, piece_size, cover_lo,
                             cover_hi)
    if c_lo != 0 or c_hi != 0:
        return True
    c_lo, c_hi = _completing(gb, fb_lo, fb_hi, e_lo, e_hi, x_zones, zone_lo, zone_hi, piece_size, cover_lo,
                             cover_hi)
    if c_lo != 0 or c_hi != 0:
        return True
    # both fill one together; or one clears (at an anchor that completes none of these: neither
    # alone can), then the other completes one
    return _filled_together(ga, gb, fa_lo, fa_hi, fb_lo, fb_hi, e_lo, e_hi, x_zones, zone_lo, zone_hi, piece_size,
                            cover_lo, cover_hi, spot_of, spot_lo, spot_hi) or \
        _after_a_clear(ga, gb, ca_lo, ca_hi, f_lo, f_hi, st_lo, st_hi, x_zones, zone_lo, zone_hi, zone_region,
                       piece_size, offs, offs_n, anchor_lo, anchor_hi, cover_lo, cover_hi, spot_of, spot_lo,
                       spot_hi, spot_touch) or \
        _after_a_clear(gb, ga, cb_lo, cb_hi, f_lo, f_hi, st_lo, st_hi, x_zones, zone_lo, zone_hi, zone_region,
                       piece_size, offs, offs_n, anchor_lo, anchor_hi, cover_lo, cover_hi, spot_of, spot_lo,
                       spot_hi, spot_touch)


@_borrowing
def _filled_together(a_g, b_g, a_lo, a_hi, b_lo, b_hi, e_lo, e_hi, x_zones, zone_lo, zone_hi, piece_size,
                     cover_lo, cover_hi, spot_of, spot_lo, spot_hi):
    """Whether pieces a and b (fitting at the anchors a, b on the empty cells e), neither
    clearing, can together fill every empty cell of one of the zones ``x_zones``: a spot of a
    covering some of them, one of b the rest, apart from a's cells (the same test in either
    order)."""
    if (a_lo == 0 and a_hi == 0) or (b_lo == 0 and b_hi == 0):
        return False
    size = piece_size[a_g] + piece_size[b_g]
    zs = x_zones
    while zs != 0:
        z, zs = _pop_zone(zs)
        m_lo = zone_lo[z] & e_lo
        m_hi = zone_hi[z] & e_hi
        n = _pop64(m_lo) + _pop64(m_hi)
        if n < 2 or n > size:
            continue
        cand_lo, cand_hi = _covering_any(a_g, m_lo, m_hi, cover_lo, cover_hi)
        cand_lo &= a_lo
        cand_hi &= a_hi
        while cand_lo != 0 or cand_hi != 0:
            a, cand_lo, cand_hi = _low_bit(cand_lo, cand_hi)
            k = spot_of[a_g, a]
            s_lo = spot_lo[a_g, k]
            s_hi = spot_hi[a_g, k]
            bb_lo, bb_hi = _covering_apart(b_g, b_lo, b_hi, m_lo & ~s_lo, m_hi & ~s_hi, s_lo, s_hi, cover_lo,
                                           cover_hi)
            if bb_lo != 0 or bb_hi != 0:
                return True
    return False


@_borrowing
def _after_a_clear(a_g, b_g, c_lo, c_hi, f_lo, f_hi, st_lo, st_hi, x_zones, zone_lo, zone_hi, zone_region,
                   piece_size, offs, offs_n, anchor_lo, anchor_hi, cover_lo, cover_hi, spot_of, spot_lo, spot_hi,
                   spot_touch):
    """Whether piece a, clearing at one of its anchors c on the board f, lets piece b complete
    one of the zones ``x_zones`` next (b may take the cells the clear empties)."""
    all_hi = np.uint64((1 << 36) - 1)
    while c_lo != 0 or c_hi != 0:
        a, c_lo, c_hi = _low_bit(c_lo, c_hi)
        k = spot_of[a_g, a]
        n_lo, n_hi, _, _ = _settle(f_lo | spot_lo[a_g, k], f_hi | spot_hi[a_g, k], st_lo, st_hi,
                                   spot_touch, a_g, k, False, zone_lo, zone_hi, zone_region)
        e2_lo = ~(n_lo | st_lo)
        e2_hi = ~(n_hi | st_hi) & all_hi
        l_lo, l_hi = _fits(b_g, e2_lo, e2_hi, offs, offs_n, anchor_lo, anchor_hi)
        l_lo, l_hi = _completing(b_g, l_lo, l_hi, e2_lo, e2_hi, x_zones, zone_lo, zone_hi, piece_size,
                                 cover_lo, cover_hi)
        if l_lo != 0 or l_hi != 0:
            return True
    return False
