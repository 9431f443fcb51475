"""The campaign search's admissible bound on a state's final score (``solver.bounds``, the
readable version the tests hold it to), on two uint64 words."""

from __future__ import annotations

import numba as nb

from .board_jit import _borrowing
from .evaluate_jit import _pop64


@nb.njit(cache=True, inline="always")
def _event_points(pts, zones, run, has_regions):
    """``bounds._event_points``: one placement's clear points for ``zones`` zones, the kind
    that pays most."""
    return pts[0, zones, run] if has_regions else pts[zones, 0, run]


@nb.njit(cache=True, inline="always")
def _spread(caps, count, first, extra, completions, most, pts, run, has_regions):
    """``bounds.concentrated_points`` over the ``count`` caps (largest first) with ``extra`` more
    on ``caps[first]``."""
    boosted = min(caps[first] + extra, most)
    pending = True  # the boosted cap, taken in its place in the order
    total = 0
    for a in range(count + 1):
        if completions <= 0:
            break
        if a < count and a == first:
            continue
        cap = min(caps[a], most) if a < count else -1
        if pending and boosted >= cap:
            pending = False
            z = min(boosted, completions)
            completions -= z
            total += _event_points(pts, z, run, has_regions)
        if a < count and completions > 0:
            z = min(cap, completions)
            completions -= z
            total += _event_points(pts, z, run, has_regions)
    return total


@_borrowing
def _bound(f_lo, f_hi, st_lo, st_hi, points, run, tc, prev, t_idx, left_mask, placed, full_scan,
           limit, rem_n, rem_cells, rem_caps, rem_ends, ev, ev_from, fam_zone, fam_count, fam_refill,
           zone_lo, zone_hi, has_regions, pts, paying, cell_points, flow_bonus, bonus_const, costs_buf):
    """``CampaignSearch._upper_bound`` for a state without tokens (see solver/bounds.py).

    ``rem_*[t, left]``: the pieces a line can still place from tray ``t`` with slots ``left``
    unplaced (their count, prefix sums of their sizes largest first, their caps largest first,
    the trays that can still end); ``ev[t - ev_from, left]``: their emptied-budget table
    (``bounds.events_bound``).
    """
    trays_ending = rem_ends[t_idx, left_mask]
    n = rem_n[t_idx, left_mask]
    count = min(n, limit - placed)
    cells = rem_cells[t_idx, left_mask, count]
    total = points + bonus_const + cells * cell_points
    clears = 0
    if count > 0:
        occ_lo = f_lo | st_lo
        occ_hi = f_hi | st_hi
        completions = 0
        for fam in range(fam_count.shape[0]):
            # the family's zones cheapest first (missing counts 0-10, so by a histogram)
            m = fam_count[fam]
            for c in range(11):
                costs_buf[c] = 0
            for a in range(m):
                z = fam_zone[fam, a]
                costs_buf[_pop64(zone_lo[z] & ~occ_lo) + _pop64(zone_hi[z] & ~occ_hi)] += 1
            refill = fam_refill[fam]
            budget = cells
            done = costs_buf[0]
            for c in range(1, min(refill, 11)):  # then every completion costs a refill or more
                k = min(costs_buf[c], budget // c)
                done += k
                budget -= k * c
                if k < costs_buf[c]:
                    break
            completions += done + budget // refill
        if completions > 0:
            if full_scan:
                extra = 0
                for z in range(zone_lo.shape[0]):
                    if ((occ_lo & zone_lo[z]) == zone_lo[z] and (occ_hi & zone_hi[z]) == zone_hi[z]
                            and ((zone_lo[z] & ~st_lo) != 0 or (zone_hi[z] & ~st_hi) != 0)):
                        extra += 1
            else:
                extra = 0
            best_run = run + count
            completions_all = completions
            most = paying[best_run]  # past this many zones a placement's points grow no more
            caps = rem_caps[t_idx, left_mask]
            # with zones complete now, the first placement (any piece: bounds.clear_points_bound)
            # clears them too
            for first in range(count if extra > 0 else 1):
                if first == 0 or caps[first] != caps[first - 1]:
                    clears = max(clears, _spread(caps, count, first, extra, completions, most, pts, best_run,
                                                 has_regions))
            if not full_scan and t_idx >= ev_from:
                table = ev[t_idx - ev_from, left_mask]
                capped = table[min(completions_all, table.shape[0] - 1),
                               min(_pop64(f_lo) + _pop64(f_hi) + cells, table.shape[1] - 1)]
                if capped < clears:
                    clears = capped
    total += clears
    if flow_bonus:
        if clears:
            total += flow_bonus * trays_ending
        elif tc and prev:
            total += flow_bonus
    return total
