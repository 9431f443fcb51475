"""The campaign search's token spends: the rotate and remove tokens that serve one placement
(``_token_moves``), pushed on a move stack (``_mv_push``)."""

from __future__ import annotations

import numba as nb
import numpy as np

from .board_jit import _has, _low_bit
from .evaluate_jit import _pop64


@nb.njit(cache=True)
def _mv_push(mv, e, i, g, k, cost, lo, hi):
    """Write one token placement (slot, shape, spot, cost, tiles removed) at row ``e`` of the
    move stack, doubled when full; returns the stack."""
    if e >= mv.shape[0]:
        grown = np.zeros((2 * mv.shape[0], 6), np.uint64)
        for r in range(e):  # (a slice assignment here took numba 4-5 s more to compile)
            for c in range(6):
                grown[r, c] = mv[r, c]
        mv = grown
    mv[e, 0] = i
    mv[e, 1] = g
    mv[e, 2] = k
    mv[e, 3] = cost
    mv[e, 4] = lo
    mv[e, 5] = hi
    return mv


@nb.njit(cache=True)
def _token_moves(f_lo, f_hi, st_lo, st_hi, t_idx, left, tokens, ub, best, full_scan, can_rotate, can_remove,
                 prevent, token_bonus, tray_len, tray_piece, tray_group, rot_n, rot_g, anchor_lo, anchor_hi, spot_of,
                 spot_lo, spot_hi, spot_touch, zone_lo, zone_hi, mv, e, comb, cells_buf, zbuf_lo, zbuf_hi, budget,
                 room):
    """``CampaignSearch._token_placements`` for one state: append its placements that spend
    rotate/remove tokens to the move stack ``mv`` from row ``e`` (``_mv_push``).

    Each piece once (the first unplaced slot holding it), as itself or turned (one token); its
    spots over filled tiles remove them first (one token each); and, where tokens remain, every
    set of further removals that stops some of the zones the placement would complete, each
    tile stopping a zone the others do not (``_prevent_clears``; only where ``prevent``: not on
    a line's last placement, where a clear stopped only costs). Spends that cannot beat
    ``best`` (the bound less their bonus) are left out.

    The sets of removals grow as binomials: on a board of complete zones with five tokens, one
    spot had about 14 million, which filled memory (a MemoryError after 19 GB) long past the time
    limit. So the sets examined stop at ``budget`` and the stack at ``room`` rows: a caller told
    of the cut (``truncated``) can no longer call its search exhaustive. Returns (the stack, new
    end, sets examined, truncated).
    """
    examined = 0
    none = best <= -(1 << 60)
    occ_lo = f_lo | st_lo
    occ_hi = f_hi | st_hi
    for i in range(tray_len[t_idx]):
        if not (left >> i & 1) or (left & ((1 << i) - 1) & tray_group[t_idx, i]) != 0:
            continue
        g0 = tray_piece[t_idx, i]
        n_shapes = 1 + (rot_n[g0] if can_rotate and tokens > 0 else 0)
        for r in range(n_shapes):
            g = g0 if r == 0 else rot_g[g0, r - 1]
            rot_cost = 0 if r == 0 else 1
            al = anchor_lo[g]
            ah = anchor_hi[g]
            while al != 0 or ah != 0:
                a, al, ah = _low_bit(al, ah)
                k = spot_of[g, a]
                s_lo = spot_lo[g, k]
                s_hi = spot_hi[g, k]
                ov_lo = s_lo & occ_lo
                ov_hi = s_hi & occ_hi
                if (ov_lo & st_lo) != 0 or (ov_hi & st_hi) != 0:
                    continue
                n_ov = _pop64(ov_lo) + _pop64(ov_hi)
                if n_ov > 0 and not can_remove:
                    continue
                cost = rot_cost + n_ov
                if cost > tokens or not (none or ub - max(cost, 1) * token_bonus > best):
                    continue
                if cost > 0:
                    if e >= room:
                        return mv, e, examined, True
                    mv = _mv_push(mv, e, i, g, k, cost, ov_lo, ov_hi)
                    e += 1
                if not prevent or tokens <= cost or not (none or ub - (cost + 1) * token_bonus > best):
                    continue
                # the zones this placement completes (every full zone on a first move of a board
                # that starts with one), and the tiles whose removal could stop them
                o_lo = f_lo | st_lo | s_lo
                o_hi = f_hi | st_hi | s_hi
                nz = 0
                u_lo = np.uint64(0)
                u_hi = np.uint64(0)
                n_t = zone_lo.shape[0] if full_scan else spot_touch.shape[2]
                for t in range(n_t):
                    z = t if full_scan else spot_touch[g, k, t]
                    if z < 0:
                        break
                    z_lo = zone_lo[z]
                    z_hi = zone_hi[z]
                    if ((o_lo & z_lo) == z_lo and (o_hi & z_hi) == z_hi
                            and ((z_lo & ~st_lo) != 0 or (z_hi & ~st_hi) != 0)):
                        zbuf_lo[nz] = z_lo
                        zbuf_hi[nz] = z_hi
                        nz += 1
                        u_lo |= z_lo
                        u_hi |= z_hi
                if nz == 0:
                    continue
                c_lo = f_lo & ~s_lo & u_lo
                c_hi = f_hi & ~s_hi & u_hi
                n_cells = 0
                while c_lo != 0 or c_hi != 0:
                    cell, c_lo, c_hi = _low_bit(c_lo, c_hi)
                    cells_buf[n_cells] = cell
                    n_cells += 1
                for size in range(1, min(tokens - cost, n_cells) + 1):
                    if not (none or ub - (cost + size) * token_bonus > best):
                        break
                    for j in range(size):
                        comb[j] = j
                    while True:
                        examined += 1
                        if examined > budget or e >= room:
                            return mv, e, examined, True
                        ok = True
                        for j in range(size):  # each tile must stop a zone the others do not
                            cj = cells_buf[comb[j]]
                            stops = False
                            for zz in range(nz):
                                if not _has(zbuf_lo[zz], zbuf_hi[zz], cj):
                                    continue
                                alone = True
                                for j2 in range(size):
                                    if j2 != j and _has(zbuf_lo[zz], zbuf_hi[zz], cells_buf[comb[j2]]):
                                        alone = False
                                        break
                                if alone:
                                    stops = True
                                    break
                            if not stops:
                                ok = False
                                break
                        if ok:
                            m_lo = ov_lo
                            m_hi = ov_hi
                            for j in range(size):
                                cj = cells_buf[comb[j]]
                                if cj < 64:
                                    m_lo |= np.uint64(1) << np.uint64(cj)
                                else:
                                    m_hi |= np.uint64(1) << np.uint64(cj - 64)
                            mv = _mv_push(mv, e, i, g, k, cost + size, m_lo, m_hi)
                            e += 1
                        j = size - 1  # the next combination
                        while j >= 0 and comb[j] == n_cells - size + j:
                            j -= 1
                        if j < 0:
                            break
                        comb[j] += 1
                        for j2 in range(j + 1, size):
                            comb[j2] = comb[j2 - 1] + 1
    return mv, e, examined, False
