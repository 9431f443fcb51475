"""The compiled campaign search: every level except those with tokens that redeal.

Same search as ``solver.campaign.CampaignSearch`` (the readable reference,
which the tests hold this one to): depth-first over the placements, trays
in order, clears between; branch-and-bound on the same admissible bound
(``solver.bounds``, mirrored here on two uint64 words); a transposition
table where a state reached again with no more points is pruned; the
placements that complete a zone searched first. Differences are only in
bookkeeping:
- moves come from a bitboard generator (``_anchors``): a piece's legal
  anchors are the empty board shifted by each of its cells and ANDed, the
  clearing ones those covering every empty cell of some zone, so a plain
  placement is never settled;
- the last placement of a line is scored inline instead of as a node (one
  spot that clears nothing stands for all such spots of a piece, as in the
  reference);
- the bound is computed at every second placement of a line (``BOUND_EVERY``);
  in between a node keeps its parent's, which bounds its lines too;
- the transposition table is a hash table, one 64-byte cache line per
  entry, that doubles up to 2^21 entries; once full, a new state replaces
  the probed entry deepest in the level (latest tray, fewest pieces left
  in it), whose subtree is the cheapest to search again (forgetting only
  prunes less). Replacing the last probed entry instead took 2.2-2.5x the
  time on the hardest 3-tray benchmark levels (10.3 s against 4.6 s, 22.8
  s against 9.0 s). The streak run is kept in the entry, not the key: a
  state reached again with no more points and a run no longer is pruned (a
  longer run never scores less on a line), and in Halloween, where only runs
  0 and 1 differ and by one streak bonus at most, one with a longer run
  too when it has at least that bonus fewer points (``run_margin``): 5 %
  fewer nodes on 5-tray benchmark levels 6 and 19, 1-2 % on 4 and 10.

Four pruning rules are the compiled search's own. One: two placements in a row
inside one tray that both clear nothing commute. Placed the other way
round, neither clears (a zone complete after the first alone would be
complete after both), the board, points, streak and pumpkins end the
same, so only the order with the lower tray slot first is searched. It
cuts about a quarter of the nodes on the campaign benchmark's levels.
It holds too when either placement spends tokens on the tiles under its
own spot (and turning it), as long as the two spots are apart: each
removal is then possible in either order, and the board ends the same
(15-30 % fewer nodes on token levels, little time). Node counts therefore
differ from the reference's; answers do not.

The second prunes the tray where every line ends (the last
tray, or the one the placement limit falls in) when no token can be spent
there. A plain placement in that tray that no later clear uses (no zone
completed after it runs through its cells) can be moved to the very end
of the line: every placement between still fits and clears the same zones,
the moved one still clears nothing, and a streak can only gain (the
placements it stood between now touch). So only lines where each plain
placement of that tray is used by a later clear, or is followed by plain
placements alone, are searched. A placement is "pending" from when it is
placed until a clear uses it; a clear that leaves one pending makes it
"must-use", and where ending with no more clears cannot beat the best
(or pumpkins the goals need cleared are left), every pending one is
must-use. A child is dropped when some must-use placement can no longer
be used: tested exactly with one placement left, with two by whether they
can complete a zone through it in either order (``_usable_by_two``), and
with more by a zone count. A state with pending placements skips the
transposition table (its subtree depends on them) and the bound (which
pruned none of them on the benchmark). On the campaign benchmark's 4-tray
levels this searches 5-8x fewer nodes in 12-15 % less time (each test that
drops a child costs about what searching the child did). The pumpkins a
goal needs cleared are must-use in the same sense (a zone through each must
still complete in that tray), so the same test drops a child that can no
longer clear them all: 4 of the 8 benchmark 4-tray levels proven within 30 s
instead of 3, 10-30 % less time on two of the other three, none on the last.
The test runs too on a child whose one placement left is the next tray's first (the limit
falls there): a piece of that tray must clear every pumpkin left, or the child is dropped. On
5-tray benchmark level 4 (limit 13): 4.47 M nodes to 2.92 M, 3.5 s to 2.2 s; levels 0, 6, 8,
10, 11 and 19 searched the same nodes in the same time, level 12 5 % fewer. With two placements left (their pieces in either
order, ``_usable_by_two``) it cut more nodes (level 6: 1.01 M to 0.42 M) but cost more time
than they had (1.3 s to 1.5 s there, 2.7 s to 3.4 s on level 4).
Where one placement is left after a plain one, that test runs for all the
plain spots of a piece at once (``_pumpkin_partners``): only spots after which
a piece left might clear every pumpkin are searched. The children it drops are
those the test would drop one by one (node counts unchanged), at a fraction of
the cost: 2.6 s to 1.9 s on a 5-tray benchmark level where 99 % of the tests
carried pumpkins. The zones' empty cells for each choice of one zone per pumpkin
(``_pumpkin_ways``) are worked out once per node, not per piece and partner: 2.53
s to 2.31 s on 5-tray benchmark level 6 (1.53 M filter calls).
A state at the start of that tray, three or more placements left, is dropped when some pumpkin
can no longer be cleared in time (``_pumpkins_reachable``): a zone can first complete at the
next placement only where one spot of a piece to come covers all its empty cells, and at the
m-th only where spots of those pieces cover them on the board with every zone that can complete
sooner cleared (every tile placed by then fitted such a board) and the m largest pieces have
cells enough. Its children would each run the two-left test above, which drops almost all of
them there: on 8-tray benchmark level 5 (limit 12, five pumpkins) 25 M tests on 5 M nodes, 99 %
dropping. That level: 148-161 s to 51-54 s, at 30.72 M nodes to 30.71 M (a dropped state still
counts as a node); 5-tray levels 4, 6, 10, 19 and 8-tray 9 and 2 the same nodes (level 19 23
fewer) in the same time. Run in the trays before too (three to five placements left) it cut
9-14 % of the nodes on 8-tray levels 9 and 2 but no time, and on level 5 cost 10 s: not kept.

The third marks the table entry of a state none of whose lines meets the goals (most boards
near the limit can no longer clear every pumpkin) as dead: the state is then pruned when
reached again, with any points and run, where the table would otherwise search it again
for more points. A state is dead when its subtree is done and nothing in it was cut for any
other reason than failing the goals: no line met them, and neither the bound, the table (but
a dead entry), a pending test made strict for the best's sake, nor tokens to spend cut
anything. The final-tray rule's drops keep a line of the same end inside the subtree, and so
does the commuting rule below the state: the order it leaves out at a node is searched from
that node's parent. Only the state where it leaves one out is not dead itself (its parent may
be). 5-tray benchmark level 6: 1.21 M to 1.01 M nodes; level 19: 0.54 M to 0.53 M.

The fourth generalises the third: a state's entry keeps, once its subtree is done, the most any
line from it adds to the points it was reached with (word 7), and a state reached again with more
points is pruned when they plus that cannot beat the best (the table alone prunes only those
reached with no more points; a longer streak run adds ``run_margin``, as there). The most is the
best line found below the state, or, for the lines cut there, what the cut held them to: a
state cut again by its entry, that entry's bound; by the bound, the bound; a pending test made
strict for the best's sake, that the lines it drops end with no more clears (the child's points,
its cells to come, a flow bonus) or leave a placement that a line searched could have placed
last; a table hit with no bound, or tokens left unspent for the best's sake, the best itself (at
the end of the subtree: the best only rises). A state where the commuting rule leaves lines to
its parent keeps no bound, as it is not dead. 5-tray benchmark levels 10, 19, 4 and 6: 5.56 M
nodes to 4.20 M, 0.53 M to 0.44 M, 2.92 M to 2.46 M, 1.01 M to 0.92 M; 5.0 s to 3.5 s, 1.37 s
to 1.15 s, 2.41 s to 2.05 s, 1.09 s to 0.97 s (best of two each, run in turns).

Rotate and remove tokens (Arabic ink, Sudoku clear-space) are spent here as
in the reference, as part of the placement they serve (``_token_moves``):
the piece turned, the tiles under its spot removed, or tiles removed to stop
zones it would complete; each spend only where the bound less the tokens'
end bonus can still beat the best. Tokens are part of the state (and of
the transposition key). Levels with a reserve and tokens that deal from it
(reroll, swap, refresh) run the reference search, which hands this one
(``CompiledSearch`` without ``spend``) each subtree where no token is worth
spending; there unspent tokens are only their end bonus.
"""

from __future__ import annotations

import math
import time
from functools import lru_cache

import numba as nb
import numpy as np

from . import watch
from .bitboard import BB_ALL
from .bounds import (_families, add_events, completions_bound, event_costs, events_limits,
                     paying_zones, reachable_pieces, zones_per_piece)
from .engine import has_complete_zone
from .enumerate_jit import split, zone_tables
from .evaluate_jit import _pop64
from .level import Level
from .moves import Move, Placement, TokenUse
from .pieces import get_piece, placements, rotate_cw

STATUS_DONE, STATUS_BUDGET, STATUS_FOUND = 0, 1, 2
TOKEN_ROTATE, TOKEN_REMOVE = 1, 2  # the tokens the search may spend, as bits
TT_BITS = 21
_PROBES = 8
_TT_WORDS = 8  # 64 bytes: the key (0-4), points (5), streak run (6), the value rule's bound (7)
# The bound is computed at every BOUND_EVERY-th placement of a line; between, a node keeps its
# parent's (see ``_search``). Every second: 8-tray benchmark level 9 in 17.7 s against 20.4 s
# (node counts equal within 0.001 %), the 5-tray ones 0-28 % faster (0-12 % more nodes).
BOUND_EVERY = 2
_DEAD = 1 << 61  # a table value above any score: no line from the state meets the goals
_U_OFF = 1 << 40  # added to a table entry's bound on the points still to come (word 7; 0: none)
_EVENT_ENTRIES = 1 << 22  # the emptied-budget tables' size cap (int32 entries)


# The search's helpers are plain compiled functions, not numba-inlined ones (``inline=
# "always"`` copies their code into every call site before typing): that halves the cold
# compile (47 s to 18-23 s here). Called, each array argument would cost an atomic reference
# count up and down per call, which loops and early returns keep numba from pruning (5.0 s
# against 3.4 s inlined on a 5-tray benchmark level). The helpers make, keep and return no
# array (they read or write elements of those they are given, which the caller holds), so they
# are compiled without reference counting ("_nrt=False"): 3.1-3.6 s on that level.
_borrowing = nb.njit(cache=True, _nrt=False)


def _tick(nodes, best) -> bool:
    """``watch.tick`` from the compiled search's clock check (in object mode)."""
    return watch.tick(int(nodes), None if best <= -(1 << 60) else int(best))


NO_MARGIN = -1  # run_margin: no fixed amount bounds what a longer run adds
RUN_IN_KEY = -2  # a margin the tests pass: the run in the table's key, each run its own entry (as before)


def run_margin(variant) -> int:
    """How many points more a line can score from a state with a longer streak run than from the
    same state with a shorter one, or ``NO_MARGIN`` when no fixed amount bounds it.

    A longer run never scores less on a line (clear points grow with the run, and the runs
    after a placement stay at least as long). Where the rules tell only runs 0 and 1 apart
    (Halloween), the two agree after the line's first placement, which the run can add at most
    one streak bonus to; with no run (Arabic) nothing. A longer run (Sudoku) carries its
    multiplier along every clear in a row: no fixed bound."""
    cap = run_key_cap(variant)
    if cap == 0:
        return 0
    if cap == 1:
        every = range(len(variant.zones) + 1)
        return max(variant.clear_points(lines, regions, 1) - variant.clear_points(lines, regions, 0)
                   for lines in every for regions in every)
    return NO_MARGIN


def run_key_cap(variant) -> int:
    """The largest streak run the rules tell apart (the same key as the reference's states)."""
    if variant.name == "halloween":
        return 1
    if variant.name == "arabic":
        return 0
    return 1 << 20


@nb.njit(cache=True, inline="always")
def _hash(a, b, c, d, e, mask):
    h = a * np.uint64(0x9E3779B97F4A7C15)
    h ^= (b + np.uint64(0x632BE59BD9B4E019)) * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= (c + np.uint64(0x2545F4914F6CDD1D)) * np.uint64(0x165667B19E3779F9)
    h ^= (d + np.uint64(0x27D4EB2F165667C5)) * np.uint64(0x94D049BB133111EB)
    h ^= e * np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(31)
    return np.int64(h & mask)


@_borrowing
def _tt_victim(tt, h, tt_mask):
    """Of the ``_PROBES`` slots from ``h`` (all taken), the one whose state is deepest in the
    level (tray index, then pieces placed from that tray; the later slot on a tie): a full
    table keeps the states with the largest subtrees."""
    victim = h
    victim_depth = -1
    for _p in range(_PROBES):
        m = tt[h, 4] - np.uint64(1)
        depth = np.int64(m & np.uint64(0xFFFF)) * 16 - _pop64((m >> np.uint64(16)) & np.uint64(0xFF))
        if depth >= victim_depth:
            victim = h
            victim_depth = depth
        h = (h + 1) & np.int64(tt_mask)
    return victim


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
           zone_lo, zone_hi, zone_region, has_regions, pts, paying, cell_points, flow_bonus, bonus_const,
           costs_buf):
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


@nb.njit(cache=True, inline="always")
def _shr(lo, hi, k):
    """The 128-bit board (lo, hi) shifted right by ``k`` cells, 0 <= k < 128."""
    if k == 0:
        return lo, hi
    if k < 64:
        return (lo >> np.uint64(k)) | (hi << np.uint64(64 - k)), hi >> np.uint64(k)
    return hi >> np.uint64(k - 64), np.uint64(0)


@nb.njit(cache=True, inline="always")
def _low_bit(lo, hi):
    """The lowest set cell of a nonempty (lo, hi): (cell, lo without it, hi without it)."""
    one = np.uint64(1)
    if lo != 0:
        b = lo & (~lo + one)
        return _pop64(b - one), lo ^ b, hi
    b = hi & (~hi + one)
    return 64 + _pop64(b - one), lo, hi ^ b


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


@nb.njit(cache=True, inline="always")
def _pop_zone(zones):
    """The lowest zone of a nonempty zone set (a bit each), and the set without it."""
    b = zones & (~zones + np.uint64(1))
    return _pop64(b - np.uint64(1)), zones ^ b


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


@nb.njit(cache=True, inline="always")
def _shl(lo, hi, k):
    """The 100-cell board (lo, hi) shifted left by ``k`` cells, 0 <= k < 64 (cells past 99 dropped)."""
    all_hi = np.uint64((1 << 36) - 1)
    if k == 0:
        return lo, hi
    return lo << np.uint64(k), ((hi << np.uint64(k)) | (lo >> np.uint64(64 - k))) & all_hi


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


@nb.njit(cache=True, inline="always")
def _zones_through(lo, hi, cell_zones):
    """The zones (a bit each) through any of the cells (lo, hi)."""
    out = np.uint64(0)
    while lo != 0 or hi != 0:
        cell, lo, hi = _low_bit(lo, hi)
        out |= cell_zones[cell]
    return out


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


@nb.njit(cache=True)
def _grow(tt):
    """The transposition table at twice the size, every entry kept."""
    size = tt.shape[0] * 2
    mask = np.uint64(size - 1)
    new = np.zeros((size, _TT_WORDS), np.uint64)
    for i in range(tt.shape[0]):
        if tt[i, 4] == 0:
            continue
        h = _hash(tt[i, 0], tt[i, 1], tt[i, 2], tt[i, 3], tt[i, 4], mask)
        while new[h, 4] != 0:
            h = (h + 1) & np.int64(mask)
        for w in range(_TT_WORDS):
            new[h, w] = tt[i, w]
    return new


@nb.njit(cache=True, inline="always")
def _has(lo, hi, cell):
    if cell < 64:
        return (lo >> np.uint64(cell)) & np.uint64(1) != 0
    return (hi >> np.uint64(cell - 64)) & np.uint64(1) != 0


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
                 spot_lo, spot_hi, spot_touch, zone_lo, zone_hi, mv, e, comb, cells_buf, zbuf_lo, zbuf_hi):
    """``CampaignSearch._token_placements`` for one state: append its placements that spend
    rotate/remove tokens to the move stack ``mv`` from row ``e`` (``_mv_push``).

    Each piece once (the first unplaced slot holding it), as itself or turned (one token); its
    spots over filled tiles remove them first (one token each); and, where tokens remain, every
    set of further removals that stops some of the zones the placement would complete, each
    tile stopping a zone the others do not (``_prevent_clears``; only where ``prevent``: not on
    a line's last placement, where a clear stopped only costs). Spends that cannot beat
    ``best`` (the bound less their bonus) are left out. Returns (the stack, new end).
    """
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
    return mv, e


@nb.njit(cache=True)
def _search(f0_lo, f0_hi, p0_lo, p0_hi, st_lo, st_hi, full_scan0, limit, need_pumpkins, need_all,
            tray_len, tray_piece, tray_group, piece_size, rem_n, rem_cells, rem_caps, rem_ends, ev, ev_from,
            spot_lo, spot_hi,
            spot_touch, spot_of, offs, offs_n, anchor_lo, anchor_hi, cover_lo, cover_hi, fam_zone, fam_count,
            fam_refill, zone_lo, zone_hi, zone_region, has_regions, pts, paying, cell_points, flow_bonus, run_cap,
            bonus_const, best0, target, node_limit, deadline, tt_bits, start, tt, tt_used,
            tok_kinds, token_bonus, rot_n, rot_g, cell_zones, final_rule, bound_every, run_margin, dead_rule, value_rule):
    """Search from the state ``start`` = (tray index, unplaced slots, run, turn cleared, previous
    turn cleared, points, placed, tokens) on the board (f0, p0); ``tt`` and ``tt_used`` carry the
    transposition table between calls (its values are points plus ``bonus_const``).

    ``tok_kinds``: the tokens this search may spend (``TOKEN_ROTATE | TOKEN_REMOVE``, 0 for
    none: unspent tokens are then only their end bonus). ``rot_g[g, :rot_n[g]]``: the distinct
    shapes a rotation turns piece ``g`` into. ``cell_zones[c]``: the zones through cell c, a bit
    each. ``final_rule``: prune by pending placements in the final tray (the module docstring).
    ``bound_every``: a node without tokens computes the bound only this many placements after
    the last ancestor that did; in between it keeps its parent's, which bounds every line
    through the parent, this node's included (on the benchmark the bound prunes so little that
    computing it at every node cost more than the nodes it saved). ``run_margin``: see
    ``run_margin`` (``NO_MARGIN``: a state with a longer run is never pruned by one with a
    shorter; ``RUN_IN_KEY``: the run in the key, each its own entry). ``dead_rule``: a state none of
    whose lines meets the goals is pruned when reached again with any points (the module docstring).
    ``value_rule``: a state is pruned when reached again with points that the most its lines added
    the last time cannot lift above the best (the module docstring).

    Returns (status, best, nodes, best path codes piece * 1024 + spot, the slot pieces those
    placements came from (a rotated piece differs from its shape), the tiles removed before each,
    path length, the pumpkins removed at the end, tt, tt_used).
    """
    n_trays = tray_len.shape[0]
    total_pieces = 0
    for t in range(n_trays):
        total_pieces += tray_len[t]
    depth_max = total_pieces + 2
    width = tray_piece.shape[1]
    n_zones = zone_lo.shape[0]
    size_max = 0
    for t in range(n_trays):
        for i in range(tray_len[t]):
            size_max = max(size_max, piece_size[tray_piece[t, i]])
    all_hi = np.uint64((1 << 36) - 1)
    # frame arrays
    F_lo = np.zeros(depth_max, np.uint64)
    F_hi = np.zeros(depth_max, np.uint64)
    P_lo = np.zeros(depth_max, np.uint64)
    P_hi = np.zeros(depth_max, np.uint64)
    T_idx = np.zeros(depth_max, np.int64)
    Left = np.zeros(depth_max, np.int64)
    Run = np.zeros(depth_max, np.int64)
    TC = np.zeros(depth_max, np.int64)
    Prev = np.zeros(depth_max, np.int64)
    Pts = np.zeros(depth_max, np.int64)
    Placed = np.zeros(depth_max, np.int64)
    Stage = np.zeros(depth_max, np.int64)  # 0 enter, 1 clearing pass, 2 plain pass
    # the tray slot of the placement that led here when it cleared nothing and the tray goes on, else -1
    Plain = np.full(depth_max, -1, np.int64)
    PlainLo = np.zeros(depth_max, np.uint64)  # and that placement's cells
    PlainHi = np.zeros(depth_max, np.uint64)
    # per tray slot, the anchors still to search: those that clear (pass 1), then the plain ones
    ClrLo = np.zeros((depth_max, width), np.uint64)
    ClrHi = np.zeros((depth_max, width), np.uint64)
    PlnLo = np.zeros((depth_max, width), np.uint64)
    PlnHi = np.zeros((depth_max, width), np.uint64)
    Slot = np.zeros(depth_max, np.int64)
    # the plain placements of the level's final tray not yet used by a clear (see "pending" below)
    PendN = np.zeros(depth_max, np.int64)
    PendLo = np.zeros((depth_max, width), np.uint64)
    PendHi = np.zeros((depth_max, width), np.uint64)
    PendMust = np.zeros((depth_max, width + 100), np.int64)
    PendZ = np.zeros((depth_max, width + 100), np.uint64)  # the zones through each (then the pumpkins')
    Tok = np.zeros(depth_max, np.int64)
    # whether a line of the frame's subtree met the goals or was cut on grounds other than that
    # none can (the bound, the table, a best-dependent rule, tokens): 0 leaves it "dead"
    Open = np.zeros(depth_max, np.int64)
    Stored = np.zeros(depth_max, np.uint64)  # the table key's meta word of the frame's state if stored, else 0
    # whether the frame left out placements the commuting rule searches in its parent's subtree:
    # not dead itself, though its parent may be
    Swapped = np.zeros(depth_max, np.int64)
    UB = np.zeros(depth_max, np.int64)  # the bound of each frame (its own, or inherited)
    # the best final score of the lines searched below each frame, or an upper bound on those cut
    # there (then no more than the best: CutBest marks a cut that the best at the end bounds)
    SubMax = np.zeros(depth_max, np.int64)
    CutBest = np.zeros(depth_max, np.int64)
    UBAt = np.zeros(depth_max, np.int64)  # the placements made where that bound was computed
    # the token placements (rotate/remove) of every frame on one stack: frame d's are
    # MvBase[d]..MvEnd[d] of mv, searched from MvCur[d]; rows (slot, shape, spot, cost, tiles removed)
    MvBase = np.zeros(depth_max, np.int64)
    MvEnd = np.zeros(depth_max, np.int64)
    MvCur = np.zeros(depth_max, np.int64)
    mv = np.zeros((1024, 6), np.uint64)
    comb = np.zeros(100, np.int64)
    cells_buf = np.zeros(100, np.int64)
    zbuf_lo = np.zeros(n_zones, np.uint64)
    zbuf_hi = np.zeros(n_zones, np.uint64)
    path = np.zeros(depth_max, np.int64)
    path_orig = np.zeros(depth_max, np.int64)
    path_lo = np.zeros(depth_max, np.uint64)
    path_hi = np.zeros(depth_max, np.uint64)
    best_path = np.zeros(depth_max, np.int64)
    best_orig = np.zeros(depth_max, np.int64)
    best_rm_lo = np.zeros(depth_max, np.uint64)
    best_rm_hi = np.zeros(depth_max, np.uint64)
    best_pk_lo = np.uint64(0)
    best_pk_hi = np.uint64(0)
    best_len = -1
    zero = np.uint64(0)
    best = best0
    costs_buf = np.zeros(16, np.int64)
    way_lo = np.zeros(_PARTNER_CHOICES, np.uint64)  # the pumpkins' zone choices (_pumpkin_ways)
    way_hi = np.zeros(_PARTNER_CHOICES, np.uint64)
    way_n = np.zeros(_PARTNER_CHOICES, np.int64)
    reach_g = np.zeros(total_pieces + 1, np.int64)  # the pieces to come and where each fits (_pumpkins_reachable)
    reach_lo = np.zeros(total_pieces + 1, np.uint64)
    reach_hi = np.zeros(total_pieces + 1, np.uint64)
    tt_size = tt.shape[0]  # grows by doubling up to 1 << tt_bits
    tt_mask = np.uint64(tt_size - 1)
    nodes = 0
    status = 0
    F_lo[0] = f0_lo
    F_hi[0] = f0_hi
    P_lo[0] = p0_lo
    P_hi[0] = p0_hi
    T_idx[0] = start[0]
    Left[0] = start[1]
    Run[0] = start[2]
    TC[0] = start[3]
    Prev[0] = start[4]
    Pts[0] = start[5]
    Placed[0] = start[6]
    Tok[0] = start[7]
    can_rotate = (tok_kinds & TOKEN_ROTATE) != 0
    can_remove = (tok_kinds & TOKEN_REMOVE) != 0
    depth = 0
    while depth >= 0:
        t_idx = T_idx[depth]
        left = Left[depth]
        placed = Placed[depth]
        points = Pts[depth]
        f_lo = F_lo[depth]
        f_hi = F_hi[depth]
        full_scan = full_scan0 and placed == 0
        tokens = Tok[depth]
        bonus = bonus_const + tokens * token_bonus
        # with tokens to spend the children are searched as nodes (they may spend them)
        ends_line = placed + 1 >= limit or (t_idx == n_trays - 1 and (left & (left - 1)) == 0)
        last_move = ends_line and (tokens == 0 or tok_kinds == 0)
        # the tray where every line from here ends, with no token to spend: "pending placements"
        ends_here = final_rule and (t_idx == n_trays - 1 or placed + _pop64(np.uint64(left)) >= limit) and (
            tokens == 0 or tok_kinds == 0)
        pend_n = PendN[depth]
        if Stage[depth] == 0:
            nodes += 1
            Open[depth] = 1 if tokens > 0 and tok_kinds != 0 else 0
            CutBest[depth] = Open[depth]
            SubMax[depth] = -(1 << 62)
            Stored[depth] = 0
            Swapped[depth] = 0
            if (nodes & 4095) == 0:
                if nodes > node_limit:
                    status = 1
                    break
                with nb.objmode(now="float64", stop="boolean"):
                    now = time.perf_counter()
                    stop = _tick(nodes, best)
                if now > deadline or stop:
                    status = 1
                    break
            MvBase[depth] = MvEnd[depth - 1] if depth > 0 else 0
            MvEnd[depth] = MvBase[depth]
            pumpk = P_lo[depth] != 0 or P_hi[depth] != 0
            final = -(1 << 62)
            pk_lo = zero
            pk_hi = zero
            if (not need_pumpkins or not pumpk) and (not need_all or t_idx >= n_trays):
                final = points + bonus
            elif need_pumpkins and can_remove and not (need_all and t_idx < n_trays):
                n_pk = _pop64(P_lo[depth]) + _pop64(P_hi[depth])
                if n_pk <= tokens:  # stop here by spending a token on each pumpkin left
                    final = points + bonus - n_pk * token_bonus
                    pk_lo = P_lo[depth]
                    pk_hi = P_hi[depth]
            if final > -(1 << 62):
                Open[depth] = 1
                SubMax[depth] = final
            if final > best:
                best = final
                best_len = depth
                for a in range(depth):
                    best_path[a] = path[a]
                    best_orig[a] = path_orig[a]
                    best_rm_lo[a] = path_lo[a]
                    best_rm_hi[a] = path_hi[a]
                best_pk_lo = pk_lo
                best_pk_hi = pk_hi
                if final >= target:
                    status = 2
                    break
            if placed >= limit or t_idx >= n_trays:
                if depth > 0:
                    Open[depth - 1] |= Open[depth]
                    SubMax[depth - 1] = max(SubMax[depth - 1], SubMax[depth])
                depth -= 1
                continue
            if ends_here and need_pumpkins and pumpk and not full_scan:
                k_left = min(rem_n[t_idx, left], limit - placed)
                if k_left >= 3 and not _pumpkins_reachable(
                        P_lo[depth], P_hi[depth], f_lo, f_hi, st_lo, st_hi, t_idx, left, k_left, tray_len,
                        tray_piece, rem_cells, n_zones, zone_lo, zone_hi, cell_zones, piece_size, offs, offs_n,
                        anchor_lo, anchor_hi, cover_lo, cover_hi, reach_g, reach_lo, reach_hi):
                    # no line from here clears every pumpkin (the module docstring): dead, its parent may be
                    depth -= 1
                    continue
            # A last move's node skips the bound and the transposition table: its children are
            # scored inline, which costs less than either (on the benchmark's 3-tray levels the
            # table pruned 0.04 % of these nodes; skipping both took 40 % off the time). So does a
            # state with pending placements (the module docstring).
            inherited = UB[depth - 1] if depth > 0 else np.int64(1 << 62)
            UB[depth] = inherited
            UBAt[depth] = UBAt[depth - 1] if depth > 0 else -(1 << 40)
            if not last_move and pend_n == 0:
                if tokens == 0 and placed - UBAt[depth] < bound_every:
                    ub = inherited
                else:
                    UBAt[depth] = placed
                    ub = min(inherited, _bound(
                        f_lo, f_hi, st_lo, st_hi, points, Run[depth], TC[depth], Prev[depth], t_idx, left, placed,
                        full_scan, limit, rem_n, rem_cells, rem_caps, rem_ends, ev, ev_from, fam_zone, fam_count,
                        fam_refill, zone_lo, zone_hi, zone_region, has_regions, pts, paying, cell_points,
                        flow_bonus, bonus, costs_buf))
                if best > -(1 << 60) and ub <= best:
                    if depth > 0:
                        Open[depth - 1] = 1
                        SubMax[depth - 1] = max(SubMax[depth - 1], ub)
                    depth -= 1
                    continue
                UB[depth] = ub
                # tray index < 2^16 (checked by the caller), tray slots < 2^8, tokens < 2^8; the run
                # (< 2^26) is in the entry, word 6, not the key (the module docstring)
                meta = np.uint64(t_idx | (left << 16) | ((Run[depth] if run_margin == RUN_IN_KEY else 0) << 24)
                                 | (TC[depth] << 50) | (Prev[depth] << 51) | (tokens << 52)) + np.uint64(1)
                h = _hash(f_lo, f_hi, P_lo[depth], P_hi[depth], meta, tt_mask)
                pruned = False
                dead = False
                known = False  # an upper bound on the lines from the state, from its last search
                hb = np.int64(0)
                slot_h = -1
                first = h
                for _p in range(_PROBES):
                    e = tt[h, 4]
                    if e == 0:
                        if slot_h < 0:
                            slot_h = h
                        break
                    if (e == meta and tt[h, 0] == f_lo and tt[h, 1] == f_hi and tt[h, 2] == P_lo[depth]
                            and tt[h, 3] == P_hi[depth]):
                        was = np.int64(tt[h, 5])
                        dead = was >= _DEAD
                        extra = -1
                        if np.int64(tt[h, 6]) >= Run[depth]:
                            pruned = was >= points + bonus_const
                            extra = 0
                        elif run_margin >= 0:
                            pruned = was >= points + bonus_const + run_margin
                            extra = run_margin
                        if value_rule and not dead and tt[h, 7] != 0 and extra >= 0:
                            # the most its lines added to the points they were reached with
                            known = True
                            hb = points + np.int64(tt[h, 7]) - _U_OFF + extra
                            if best > -(1 << 60) and hb <= best:
                                pruned = True
                        slot_h = h
                        break
                    h = (h + 1) & np.int64(tt_mask)
                if pruned:
                    if depth > 0 and not dead:
                        Open[depth - 1] = 1
                        if known:
                            SubMax[depth - 1] = max(SubMax[depth - 1], hb)
                        else:
                            CutBest[depth - 1] = 1
                    depth -= 1
                    continue
                if slot_h < 0:  # every probed slot taken: replace the entry nearest the leaves
                    slot_h = _tt_victim(tt, first, tt_mask)
                elif tt[slot_h, 4] == 0:
                    tt_used += 1
                tt[slot_h, 0] = f_lo
                tt[slot_h, 1] = f_hi
                tt[slot_h, 2] = P_lo[depth]
                tt[slot_h, 3] = P_hi[depth]
                tt[slot_h, 4] = meta
                tt[slot_h, 5] = np.uint64(points + bonus_const)
                tt[slot_h, 6] = np.uint64(Run[depth])
                tt[slot_h, 7] = np.uint64(0)
                Stored[depth] = meta
                if 2 * tt_used > tt_size and tt_size < (1 << tt_bits):
                    tt = _grow(tt)
                    tt_size = tt.shape[0]
                    tt_mask = np.uint64(tt_size - 1)
            Stage[depth] = 1
            Slot[depth] = 0
            e_lo = ~(f_lo | st_lo)
            e_hi = ~(f_hi | st_hi) & all_hi
            ways = -2  # not computed yet
            near = _near(e_lo, e_hi, n_zones, zone_lo, zone_hi, size_max)
            for i in range(tray_len[t_idx]):
                if not (left >> i & 1) or (left & ((1 << i) - 1) & tray_group[t_idx, i]) != 0:
                    ClrLo[depth, i] = 0
                    ClrHi[depth, i] = 0
                    PlnLo[depth, i] = 0
                    PlnHi[depth, i] = 0
                    continue
                c_lo, c_hi, p_lo, p_hi = _anchors(tray_piece[t_idx, i], e_lo, e_hi, full_scan, near,
                                                  zone_lo, zone_hi, piece_size, offs, offs_n,
                                                  anchor_lo, anchor_hi, cover_lo, cover_hi)
                if i < Plain[depth]:
                    # two plain placements in a row commute (see the module docstring): only the
                    # order with the lower slot first is searched
                    if p_lo != 0 or p_hi != 0:
                        Swapped[depth] = 1
                    p_lo = np.uint64(0)
                    p_hi = np.uint64(0)
                elif last_move:
                    # a last move needs one plain spot per piece: they all end the same
                    if p_lo != 0:
                        p_lo &= ~p_lo + np.uint64(1)
                        p_hi = np.uint64(0)
                    else:
                        p_hi &= ~p_hi + np.uint64(1)
                elif ends_here and need_pumpkins and (P_lo[depth] != 0 or P_hi[depth] != 0) and (
                        p_lo != 0 or p_hi != 0):
                    others = left & ~(1 << i)
                    if others != 0 and min(rem_n[t_idx, others], limit - placed - 1) == 1:
                        # after a plain placement here the one left must clear every pumpkin (as
                        # the child's pending test would find, one child at a time)
                        if ways == -2:  # the zone choices, once for the node's pieces
                            ways = _pumpkin_ways(P_lo[depth], P_hi[depth], e_lo, e_hi, cell_zones, zone_lo,
                                                 zone_hi, way_lo, way_hi, way_n)
                        p_lo, p_hi = _pumpkin_partners(tray_piece[t_idx, i], p_lo, p_hi, e_lo, e_hi, ways, way_lo,
                                                       way_hi, way_n, others, t_idx, tray_len, tray_piece, piece_size,
                                                       offs, offs_n, anchor_lo, anchor_hi, cover_lo, cover_hi,
                                                       spot_of, spot_lo, spot_hi)
                ClrLo[depth, i] = c_lo
                ClrHi[depth, i] = c_hi
                PlnLo[depth, i] = p_lo
                PlnHi[depth, i] = p_hi
        # ---- generate the next child: pass 1 the placements that clear, pass 2 the plain ones,
        # pass 3 (stages 3-4) those that spend rotate/remove tokens on the way
        stage = Stage[depth]
        n_slots = tray_len[t_idx]
        pushed = False
        while not pushed and stage <= 4:
            rm_lo = zero
            rm_hi = zero
            spent = 0
            if stage == 3:
                if tokens > 0 and tok_kinds != 0 and (best <= -(1 << 60) or UB[depth] - token_bonus > best):
                    prevent = can_remove and not ends_line
                    mv, MvEnd[depth] = _token_moves(
                        f_lo, f_hi, st_lo, st_hi, t_idx, left, tokens, UB[depth], best, full_scan,
                        can_rotate, can_remove, prevent, token_bonus, tray_len, tray_piece, tray_group, rot_n, rot_g,
                        anchor_lo, anchor_hi, spot_of, spot_lo, spot_hi, spot_touch, zone_lo, zone_hi,
                        mv, MvBase[depth], comb, cells_buf, zbuf_lo, zbuf_hi)
                MvCur[depth] = MvBase[depth]
                stage = 4
                Stage[depth] = 4
                continue
            if stage == 4:
                c = MvCur[depth]
                if c >= MvEnd[depth]:
                    stage = 5
                    Stage[depth] = 5
                    continue
                MvCur[depth] = c + 1
                spent = np.int64(mv[c, 3])
                if best > -(1 << 60) and UB[depth] - spent * token_bonus <= best:
                    continue  # the best rose since this list was made
                i = np.int64(mv[c, 0])
                g = np.int64(mv[c, 1])
                k = np.int64(mv[c, 2])
                rm_lo = mv[c, 4]
                rm_hi = mv[c, 5]
                a_lo, a_hi, lines, regions = _settle((f_lo & ~rm_lo) | spot_lo[g, k],
                                                     (f_hi & ~rm_hi) | spot_hi[g, k], st_lo, st_hi,
                                                     spot_touch, g, k, full_scan, zone_lo, zone_hi, zone_region)
                cleared = lines + regions > 0
                if (not cleared and i < Plain[depth] and (rm_lo & ~spot_lo[g, k]) == 0
                        and (rm_hi & ~spot_hi[g, k]) == 0 and (spot_lo[g, k] & PlainLo[depth]) == 0
                        and (spot_hi[g, k] & PlainHi[depth]) == 0):
                    Swapped[depth] = 1
                    continue  # commutes with the placement before it, searched the other way round
            else:
                i = Slot[depth]
                if i >= n_slots:
                    stage += 1
                    Stage[depth] = stage
                    Slot[depth] = 0
                    continue
                g = tray_piece[t_idx, i]
                if stage == 1:
                    if ClrLo[depth, i] == 0 and ClrHi[depth, i] == 0:
                        Slot[depth] = i + 1
                        continue
                    a, ClrLo[depth, i], ClrHi[depth, i] = _low_bit(ClrLo[depth, i], ClrHi[depth, i])
                    k = spot_of[g, a]
                    a_lo, a_hi, lines, regions = _settle(f_lo | spot_lo[g, k], f_hi | spot_hi[g, k], st_lo,
                                                         st_hi, spot_touch, g, k, full_scan, zone_lo, zone_hi,
                                                         zone_region)
                    cleared = True
                else:
                    if PlnLo[depth, i] == 0 and PlnHi[depth, i] == 0:
                        Slot[depth] = i + 1
                        continue
                    a, PlnLo[depth, i], PlnHi[depth, i] = _low_bit(PlnLo[depth, i], PlnHi[depth, i])
                    k = spot_of[g, a]
                    a_lo = f_lo | spot_lo[g, k]
                    a_hi = f_hi | spot_hi[g, k]
                    lines = 0
                    regions = 0
                    cleared = False
            run = Run[depth]
            gained = piece_size[g] * cell_points + pts[lines, regions, run]
            rest = left & ~(1 << i)
            n_run = min(run + 1, run_cap) if cleared else 0
            n_tc = 1 if flow_bonus and (cleared or TC[depth] == 1) else 0
            n_prev = Prev[depth]
            n_t = t_idx
            if rest == 0:
                if n_tc == 1 and n_prev == 1:
                    gained += flow_bonus
                n_prev = n_tc
                n_tc = 0
                n_t = t_idx + 1
                rest = (1 << tray_len[n_t]) - 1 if n_t < n_trays else 0
            n_plo = P_lo[depth] & ~rm_lo & a_lo
            n_phi = P_hi[depth] & ~rm_hi & a_hi
            code = g * 1024 + k
            orig = tray_piece[t_idx, i]
            n_p = 0
            if ends_here and (pend_n > 0 or not cleared):
                # the child's pending placements (frame d is free until the child is pushed)
                n_p, must = _pending_after(PendLo, PendHi, PendMust, PendZ, depth, pend_n, cleared,
                                           f_lo | spot_lo[g, k], f_hi | spot_hi[g, k], a_lo, a_hi,
                                           spot_lo[g, k], spot_hi[g, k], cell_zones)
                if last_move and must > 0:
                    continue  # an unused plain placement before a clear: searched moved to the end
            if last_move:
                # the child only offers its end: score it here (no token is spent in a last move)
                if (not need_pumpkins or (n_plo == 0 and n_phi == 0)) and (not need_all or n_t >= n_trays):
                    Open[depth] = 1
                    final = points + gained + bonus
                    SubMax[depth] = max(SubMax[depth], final)
                    if final > best:
                        best = final
                        best_len = depth + 1
                        for a in range(depth):
                            best_path[a] = path[a]
                            best_orig[a] = path_orig[a]
                            best_rm_lo[a] = path_lo[a]
                            best_rm_hi[a] = path_hi[a]
                        best_path[depth] = code
                        best_orig[depth] = orig
                        best_rm_lo[depth] = zero
                        best_rm_hi[depth] = zero
                        best_pk_lo = zero
                        best_pk_hi = zero
                        if final >= target:
                            status = 2
                            pushed = True
                            break
                continue
            path[depth] = code
            path_orig[depth] = orig
            path_lo[depth] = rm_lo
            path_hi[depth] = rm_hi
            d = depth + 1
            F_lo[d] = a_lo
            F_hi[d] = a_hi
            P_lo[d] = n_plo
            P_hi[d] = n_phi
            T_idx[d] = n_t
            Left[d] = rest
            Run[d] = n_run
            TC[d] = n_tc
            Prev[d] = n_prev
            Pts[d] = points + gained
            Placed[d] = placed + 1
            Tok[d] = tokens - spent
            Stage[d] = 0
            # a placement that clears nothing and removes only tiles under its spot (if any)
            Plain[d] = i if (not cleared and n_t == t_idx and (rm_lo & ~spot_lo[g, k]) == 0
                             and (rm_hi & ~spot_hi[g, k]) == 0) else -1
            PlainLo[d] = spot_lo[g, k]
            PlainHi[d] = spot_hi[g, k]
            if n_t != t_idx:
                n_p = 0  # (in the tray where lines end, its last placement is a last move, scored inline)
            PendN[d] = n_p
            # pumpkins the goals need cleared in the tray where lines end: this one, or the next when
            # the child's one placement left is its first (the module docstring)
            pumpkins_left = need_pumpkins and (n_plo != 0 or n_phi != 0) and (ends_here or (
                final_rule and n_t != t_idx and n_t < n_trays and (tokens - spent == 0 or tok_kinds == 0)
                and limit - placed - 1 == 1))
            if n_p > 0 or pumpkins_left:
                cnt = min(rem_n[n_t, rest], limit - placed - 1)
                rest_cells = rem_cells[n_t, rest, cnt]
                # when ending with no more clears cannot beat the best, free ones must be used too
                strict = points + gained + rest_cells * cell_points + flow_bonus + bonus <= best or pumpkins_left
                # the pumpkins left go after the child's pending placements (past PendN, so its own
                # children ignore them): each must be cleared in this tray, must-use in the same
                # sense (one call site keeps the compile time down)
                n_chk = n_p
                q_lo = n_plo if pumpkins_left else zero
                q_hi = n_phi if pumpkins_left else zero
                while q_lo != 0 or q_hi != 0:
                    cell, q_lo, q_hi = _low_bit(q_lo, q_hi)
                    PendZ[d, n_chk] = cell_zones[cell]
                    PendMust[d, n_chk] = 1
                    n_chk += 1
                if strict and not pumpkins_left:
                    Open[depth] = 1  # (strict for the best's sake: a drop may leave a line meeting the goals)
                if not _pending_alive(a_lo, a_hi, st_lo, st_hi, PendZ, PendMust, d, n_chk, strict, cnt,
                                      rest_cells, n_t, rest, tray_len, tray_piece, n_zones, zone_lo, zone_hi,
                                      zone_region, piece_size, offs, offs_n, anchor_lo, anchor_hi, cover_lo,
                                      cover_hi, spot_of, spot_lo, spot_hi, spot_touch):
                    if strict and not pumpkins_left:
                        # its lines each leave a placement unused: one where it comes last is searched,
                        # or they end with no more clears, no more than this
                        SubMax[depth] = max(SubMax[depth], points + gained + rest_cells * cell_points + flow_bonus
                                            + bonus)
                    continue
            depth = d
            pushed = True
        if status == 2:
            break
        if not pushed:
            if CutBest[depth] == 1:
                SubMax[depth] = max(SubMax[depth], best)
            if depth > 0:
                Open[depth - 1] |= Open[depth]
                SubMax[depth - 1] = max(SubMax[depth - 1], SubMax[depth])
            dead = dead_rule and Open[depth] == 0
            if Swapped[depth] == 0 and Stored[depth] != 0 and (dead or (value_rule and SubMax[depth] > -(1 << 60))):
                # no line from this state meets the goals: it is pruned when reached again, whatever
                # its points and run; or the most its lines add, for the next time (the entry is
                # found again: the table may have grown since)
                meta = Stored[depth]
                h = _hash(f_lo, f_hi, P_lo[depth], P_hi[depth], meta, tt_mask)
                for _p in range(_PROBES):
                    if (tt[h, 4] == meta and tt[h, 0] == f_lo and tt[h, 1] == f_hi and tt[h, 2] == P_lo[depth]
                            and tt[h, 3] == P_hi[depth]):
                        if dead:
                            tt[h, 5] = np.uint64(_DEAD)
                            tt[h, 6] = np.uint64(_DEAD)
                        else:
                            tt[h, 7] = np.uint64(SubMax[depth] - points + _U_OFF)
                        break
                    h = (h + 1) & np.int64(tt_mask)
            depth -= 1
    return (status, best, nodes, best_path, best_orig, best_rm_lo, best_rm_hi, best_len, best_pk_lo,
            best_pk_hi, tt, tt_used)


class _Tables:
    """The level's rules as arrays for ``_search``."""

    def __init__(self, level: Level) -> None:
        variant = level.variant
        trays = [tuple(sorted(t)) for t in level.trays]
        pieces = {p for t in trays for p in t}
        turned = {p: _turns(p) for p in pieces} if level.tokens and "rotate" in variant.token_kinds else {}
        ids = sorted(pieces | {q for shapes in turned.values() for q, _ in shapes})
        self.ids = ids
        index = {p: i for i, p in enumerate(ids)}
        # the distinct shapes each tray piece turns into (a rotate token), and how far it turns
        self.rot_n = np.zeros(max(len(ids), 1), np.int64)
        self.rot_g = np.zeros((max(len(ids), 1), 3), np.int64)
        self.turns = {}
        for p, shapes in turned.items():
            self.rot_n[index[p]] = len(shapes)
            for r, (q, t) in enumerate(shapes):
                self.rot_g[index[p], r] = index[q]
                self.turns[p, q] = t
        n_trays = len(trays)
        width = max((len(t) for t in trays), default=1)
        self.tray_len = np.array([len(t) for t in trays], np.int64)
        self.tray_piece = np.zeros((max(n_trays, 1), max(width, 1)), np.int64)
        self.tray_group = np.zeros((max(n_trays, 1), max(width, 1)), np.int64)
        for t, tray in enumerate(trays):
            for j, p in enumerate(tray):
                self.tray_piece[t, j] = index[p]
                self.tray_group[t, j] = sum(1 << q for q in range(len(tray)) if tray[q] == p)
        self.piece_size = np.array([get_piece(p).size for p in ids] or [0], np.int64)
        self._remaining(variant, trays, level.limit)
        self._events(variant, trays, level.board.stones)
        zones = variant.zones
        zone_id = {z: i for i, z in enumerate(zones)}
        spot_w = max((len(placements(p)) for p in ids), default=1)
        touch_w = 1 + max((_spot_tables(variant, p)[2].shape[1] for p in ids), default=0)
        self.spot_lo = np.zeros((max(len(ids), 1), spot_w), np.uint64)
        self.spot_hi = np.zeros((max(len(ids), 1), spot_w), np.uint64)
        self.spot_touch = np.full((max(len(ids), 1), spot_w, touch_w), -1, np.int64)
        for g, p in enumerate(ids):
            lo, hi, touch = _spot_tables(variant, p)
            self.spot_lo[g, :len(lo)] = lo
            self.spot_hi[g, :len(hi)] = hi
            self.spot_touch[g, :touch.shape[0], :touch.shape[1]] = touch
        self._anchor_tables(ids)
        families = _families(variant, level.board.stones)
        self.fam_count = np.array([len(z) for z, _ in families], np.int64)
        self.fam_refill = np.array([r for _, r in families], np.int64)
        self.fam_zone = np.zeros((max(len(families), 1), 16), np.int64)
        for f, (fz, _) in enumerate(families):
            for a, z in enumerate(fz):
                self.fam_zone[f, a] = zone_id[z]
        self.zone_lo, self.zone_hi, self.zone_region = zone_tables(variant)
        assert len(zones) <= 64, "the zone sets are one uint64"
        self.cell_zones = np.array([sum(1 << i for i, z in enumerate(zones) if z >> c & 1) for c in range(100)],
                                   np.uint64)
        runs = 2 * sum(len(t) for t in trays) + 2  # a streak run plus the pieces left
        self.pts = _points_table(variant, runs)
        self.paying = np.array([paying_zones(variant, run) for run in range(runs)], np.int64)

    def _anchor_tables(self, ids) -> None:
        """Per piece: its cells as offsets from the anchor (the top-left cell of its box), the
        anchors where it fits inside the board, the spot index of each anchor, and per cell the
        anchors whose spot covers it; the bitboard move generator's tables."""
        n = max(len(ids), 1)
        width = max((get_piece(p).size for p in ids), default=1)
        self.offs = np.zeros((n, width), np.int64)
        self.offs_n = np.zeros(n, np.int64)
        self.spot_of = np.full((n, 100), -1, np.int64)
        self.anchor_lo = np.zeros(n, np.uint64)
        self.anchor_hi = np.zeros(n, np.uint64)
        self.cover_lo = np.zeros((n, 100), np.uint64)
        self.cover_hi = np.zeros((n, 100), np.uint64)
        for g, p in enumerate(ids):
            offs, spot_of, anchor_lo, anchor_hi, cover_lo, cover_hi = _anchor_rows(p)
            self.offs_n[g] = len(offs)
            self.offs[g, :len(offs)] = offs
            self.spot_of[g] = spot_of
            self.anchor_lo[g], self.anchor_hi[g] = anchor_lo, anchor_hi
            self.cover_lo[g] = cover_lo
            self.cover_hi[g] = cover_hi

    def _remaining(self, variant, trays, limit) -> None:
        """For tray ``t`` with unplaced slots ``left``: the pieces a line can still place (that
        tray's unplaced ones and the later trays' up to the placement limit), as their count,
        prefix sums of their sizes largest first, and their zone caps largest first; and how
        many trays can still end within the limit. The bound's lookups."""
        n_trays = max(len(trays), 1)
        masks = 1 << max((len(t) for t in trays), default=0)
        total = sum(len(t) for t in trays)
        self.rem_n = np.zeros((n_trays, masks), np.int64)
        self.rem_cells = np.zeros((n_trays, masks, total + 1), np.int64)
        self.rem_caps = np.zeros((n_trays, masks, total + 1), np.int64)
        self.rem_ends = np.zeros((n_trays, masks), np.int64)
        # (t, left) -> the caps of the pieces placeable at most, largest first (the events tables)
        self.placeable_caps: dict[tuple[int, int], tuple[int, ...]] = {}
        before = 0  # the placements made before tray t
        for t, tray in enumerate(trays):
            for left in range(1 << len(tray)):
                placed = before + len(tray) - left.bit_count()
                unplaced = [p for j, p in enumerate(tray) if left >> j & 1]
                pieces, ends = reachable_pieces(unplaced, trays[t + 1:], limit - placed)
                sizes = sorted((get_piece(p).size for p in pieces), reverse=True)
                caps = sorted((zones_per_piece(variant, p) for p in pieces), reverse=True)
                self.placeable_caps[t, left] = tuple(caps[:max(0, min(len(pieces), limit - placed))])
                self.rem_n[t, left] = len(pieces)
                self.rem_cells[t, left, 1:len(sizes) + 1] = np.cumsum(sizes, dtype=np.int64)
                self.rem_caps[t, left, :len(caps)] = caps
                self.rem_ends[t, left] = ends
            before += len(tray)

    def _events(self, variant, trays, stones) -> None:
        """``ev[t - ev_from, left]``: ``bounds.events_bound``'s table for the pieces a line can
        still place from tray ``t`` with slots ``left`` unplaced (the largest caps, as many as
        placements are left), on one grid for the whole level (as many completions and emptied
        cells as any state can reach). Built for the last trays, as many as fit in
        ``_EVENT_ENTRIES`` (a long level's first trays then use the count bound alone);
        ``ev_from`` is past the last tray where the budget does not apply."""
        costs = event_costs(variant, stones.bit_count())
        self.ev_from = len(trays)
        self.ev = np.zeros((1, 1, 1, 1), np.int32)
        if costs is None or not trays:
            return
        pieces = [p for t in trays for p in t]
        cells = sum(get_piece(p).size for p in pieces)
        c_lim, e_lim = events_limits(costs, tuple(zones_per_piece(variant, p) for p in pieces))
        c_max = min(c_lim, completions_bound(variant, BB_ALL & ~stones, stones, cells))
        e_max = min(e_lim, 100 + cells)
        masks = self.rem_n.shape[1]
        keep = min(len(trays), _EVENT_ENTRIES // (masks * (c_max + 1) * (e_max + 1)))
        if keep == 0:
            return
        self.ev_from = len(trays) - keep
        self.ev = np.zeros((keep, masks, c_max + 1, e_max + 1), np.int32)
        for t in range(self.ev_from, len(trays)):
            for left in range(1 << len(trays[t])):
                caps = self.placeable_caps[t, left]
                self.ev[t - self.ev_from, left] = _events_grid(variant, stones.bit_count(), caps, c_max, e_max)


# The parts of the tables that depend on the variant and the pieces alone, kept for the next
# level (a pack, the generator's candidates, the tests' hundreds of levels). ``_Tables`` copies
# them into the level's arrays, except the points table, which levels share and only read.

@lru_cache(maxsize=None)
def _spot_tables(variant, piece_id: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per spot of the piece (in ``placements`` order): its mask's low and high words, and the
    zones it touches (ascending, -1 after the last)."""
    spots = placements(piece_id)
    touched = [[i for i, z in enumerate(variant.zones) if z & s.mask] for s in spots]
    touch = np.full((len(spots), max((len(t) for t in touched), default=0)), -1, np.int64)
    lo = np.zeros(len(spots), np.uint64)
    hi = np.zeros(len(spots), np.uint64)
    for k, s in enumerate(spots):
        lo[k], hi[k] = split(s.mask)
        touch[k, :len(touched[k])] = touched[k]
    return lo, hi, touch


@lru_cache(maxsize=None)
def _anchor_rows(piece_id: str) -> tuple:
    """The piece's row of ``_anchor_tables``: cell offsets, spot index per anchor, anchors (low,
    high words) and per cell the anchors covering it (low, high words)."""
    piece = get_piece(piece_id)
    offs = np.array([r * 10 + c for r, c in piece.cells], np.int64)
    spot_of = np.full(100, -1, np.int64)
    anchors = 0
    cover = [0] * 100
    for k, spot in enumerate(placements(piece_id)):
        a = spot.row * 10 + spot.col
        anchors |= 1 << a
        spot_of[a] = k
        for r, c in piece.cells:
            cover[a + r * 10 + c] |= 1 << a
    words = [split(m) for m in cover]
    anchor_lo, anchor_hi = split(anchors)
    return (offs, spot_of, anchor_lo, anchor_hi, np.array([w[0] for w in words], np.uint64),
            np.array([w[1] for w in words], np.uint64))


@lru_cache(maxsize=64)
def _points_table(variant, runs: int) -> np.ndarray:
    """``clear_points(lines, regions, run)`` for runs below ``runs``; the bound may ask for
    every zone at once. Shared by the levels that ask for it: never written to."""
    every = range(len(variant.zones) + 1)
    return np.array([[[variant.clear_points(lines, regions, run) for run in range(runs)]
                      for regions in every] for lines in every], np.int64)


@lru_cache(maxsize=256)
def _events_grid(variant, stones: int, caps: tuple[int, ...], c_max: int, e_max: int) -> np.ndarray:
    """``bounds.events_bound``'s table for pieces with these caps, on a (c_max + 1, e_max + 1)
    grid (``_Tables._events`` copies it into the level's table). Built on the table of all
    but the last cap, which the levels' cap lists (largest first) share."""
    if not caps:
        return np.zeros((c_max + 1, e_max + 1), np.int64)
    return add_events(_events_grid(variant, stones, caps[:-1], c_max, e_max), caps[-1],
                      event_costs(variant, stones))


def _turns(piece_id: str) -> list[tuple[str, int]]:
    """The shapes other than its own that turning the piece gives, with the turns (first found)."""
    seen = {piece_id}
    out = []
    for turns in (1, 2, 3):
        shape = rotate_cw(get_piece(piece_id), turns).id
        if shape not in seen:
            seen.add(shape)
            out.append((shape, turns))
    return out


class CompiledSearch:
    """One level's compiled search: its tables and a transposition table kept between calls, so
    the reference search can hand it the token-free subtrees of a level with tokens.

    With ``spend`` it also spends rotate and remove tokens (the whole search of a level with no
    reserve to redeal from); without, unspent tokens are only their end bonus. ``final_rule``
    False turns off the pending-placement pruning of the final tray (for the tests that hold
    it to the search without); ``bound_every`` 1 computes the bound at every node; ``margin``
    replaces ``run_margin(variant)`` (``RUN_IN_KEY``: the streak run in the table's key, as
    before the run moved to the entry); ``dead_rule`` False turns off the pruning of states
    known to meet no goal (for the tests); ``value_rule`` False turns off the pruning by the points a
    state's lines were found to add (for the tests).
    """

    def __init__(self, level: Level, spend: bool = False, final_rule: bool = True,
                 bound_every: int | None = None, margin: int | None = None, dead_rule: bool = True,
                 value_rule: bool = True) -> None:
        variant = level.variant
        self.level = level
        self.final_rule = final_rule
        self.dead_rule = dead_rule
        self.value_rule = value_rule
        self.margin = run_margin(variant) if margin is None else margin
        self.bound_every = BOUND_EVERY if bound_every is None else bound_every
        self.tables = _Tables(level)
        kinds = variant.token_kinds if spend else frozenset()
        self.tok_kinds = (TOKEN_ROTATE if "rotate" in kinds else 0) | (TOKEN_REMOVE if "remove" in kinds else 0)
        self.trays = [tuple(sorted(t)) for t in level.trays]
        self.stones = split(level.board.stones)
        self.full_scan = has_complete_zone(variant, level.board.filled, level.board.stones)
        self.need_pumpkins = any(g.get("pumpkins") for g in level.goals)
        self.need_all = any(g.get("place_all") for g in level.goals)
        self.tt = np.zeros((1 << 14, _TT_WORDS), np.uint64)
        self.tt_used = 0

    def _entry_state(self, i: int) -> tuple[int, int, int, int, int, bool, bool]:
        """The state of table entry ``i``, read back from the key ``_search`` writes: (filled,
        pumpkins, tray index, unplaced slots, tokens, turn cleared, previous turn cleared); its
        ``meta`` word, plus one, holds the tray index in bits 0-15, slots in 16-23, the turn flags in
        50 and 51, tokens from bit 52."""
        tt = self.tt
        meta = int(tt[i, 4]) - 1
        return (int(tt[i, 0]) | int(tt[i, 1]) << 64, int(tt[i, 2]) | int(tt[i, 3]) << 64, meta & 0xFFFF,
                meta >> 16 & 0xFF, meta >> 52, bool(meta >> 50 & 1), bool(meta >> 51 & 1))

    def dead_states(self) -> list[tuple[int, int, int, int, int]]:
        """The states the table holds marked dead (no line from them meets the goals), for the
        tests: (filled, pumpkins, tray index, unplaced slots, tokens)."""
        tt = self.tt
        return [self._entry_state(i)[:5] for i in np.flatnonzero((tt[:, 4] != 0) & (tt[:, 5] >= np.uint64(_DEAD)))]

    def value_bounds(self) -> list[tuple[int, int, int, int, int, bool, bool, int, int]]:
        """The states the table holds with a bound on the points their lines add, for the tests:
        ``_entry_state``'s fields, then the streak run and the most any line from the state adds
        to its points (end bonuses included)."""
        tt = self.tt
        keep = (tt[:, 4] != 0) & (tt[:, 7] != 0) & (tt[:, 5] < np.uint64(_DEAD))
        return [self._entry_state(i) + (int(tt[i, 6]), int(tt[i, 7]) - _U_OFF) for i in np.flatnonzero(keep)]

    def left_mask(self, tray_index: int, pieces: tuple[str, ...]) -> int | None:
        """The unplaced slots of tray ``tray_index`` holding ``pieces`` (of a repeated piece, the
        last slots, as this search leaves them); None if the pieces are not all that tray's."""
        if tray_index >= len(self.trays):
            return 0 if not pieces else None
        tray = self.trays[tray_index]
        mask = 0
        for piece in set(pieces):
            slots = [j for j, p in enumerate(tray) if p == piece]
            need = pieces.count(piece)
            if need > len(slots):
                return None
            for j in slots[len(slots) - need:]:
                mask |= 1 << j
        return mask

    def run(self, filled: int, pumpkins: int, tray_index: int, left: int, run: int, turn_cleared: bool,
            prev_turn_cleared: bool, points: int, placed: int, tokens: int, deadline: float,
            node_limit: int, best0: int | None, target: int | None
            ) -> tuple[int, int | None, int, list[Move] | None]:
        """Search from one state: (status, best final score or None, nodes, the best line from
        that state or None when nothing beat ``best0``)."""
        level, tb = self.level, self.tables
        variant = level.variant
        f_lo, f_hi = split(filled)
        p_lo, p_hi = split(pumpkins)
        s_lo, s_hi = self.stones
        none = -(1 << 62)
        start = np.array([tray_index, left, run, int(turn_cleared), int(prev_turn_cleared), points, placed,
                          tokens], np.int64)
        watch.in_compiled += 1
        try:
            result = _search(
                np.uint64(f_lo), np.uint64(f_hi), np.uint64(p_lo), np.uint64(p_hi), np.uint64(s_lo), np.uint64(s_hi),
                self.full_scan, level.limit, self.need_pumpkins, self.need_all,
                tb.tray_len if level.trays else np.zeros(0, np.int64), tb.tray_piece, tb.tray_group,
                tb.piece_size, tb.rem_n, tb.rem_cells, tb.rem_caps, tb.rem_ends, tb.ev, tb.ev_from, tb.spot_lo,
                tb.spot_hi,
                tb.spot_touch, tb.spot_of, tb.offs, tb.offs_n, tb.anchor_lo, tb.anchor_hi, tb.cover_lo, tb.cover_hi,
                tb.fam_zone, tb.fam_count, tb.fam_refill, tb.zone_lo, tb.zone_hi, tb.zone_region,
                bool(variant.regions), tb.pts, tb.paying, variant.cell_points, variant.flow_bonus,
                run_key_cap(variant),
                0, none if best0 is None else best0,
                (1 << 62) if target is None else target, node_limit, deadline, TT_BITS,
                start, self.tt, self.tt_used, self.tok_kinds, variant.token_bonus, tb.rot_n, tb.rot_g,
                tb.cell_zones, self.final_rule, self.bound_every, self.margin, self.dead_rule, self.value_rule,
            )
        finally:
            watch.in_compiled -= 1
        (status, best, nodes, path, orig, rm_lo, rm_hi, length, pk_lo, pk_hi, self.tt, self.tt_used) = result
        line = None
        if length >= 0:
            line = []
            for a in range(length):
                g, k = divmod(int(path[a]), 1024)
                shape, piece = tb.ids[g], tb.ids[int(orig[a])]
                if shape != piece:
                    line.append(TokenUse("rotate", piece=piece, turns=tb.turns[piece, shape]))
                line += _removes(int(rm_lo[a]) | int(rm_hi[a]) << 64)
                spot = placements(shape)[k]
                line.append(Placement(spot.piece, spot.row, spot.col))
            line += _removes(int(pk_lo) | int(pk_hi) << 64)
        found = None if best == none else int(best)
        return int(status), found, int(nodes), line


def _removes(mask: int) -> list[Move]:
    return [TokenUse("remove", row=c // 10, col=c % 10) for c in range(100) if mask >> c & 1]


_warm = False


def warm_up() -> None:
    """Compile the search, or load it from numba's cache, before a caller starts its clock: a
    cold cache compiles for about 35 s, which a level's time limit must not pay for (the first
    ``tenfold solve --time-limit 30`` after an install used to stop after 4,096 nodes)."""
    global _warm
    if _warm:
        return
    from .level import parse_level

    level = parse_level({"format": "tenfold.level/1", "id": "warm-up", "variant": "halloween",
                         "mode": "campaign", "board": ["." * 10] * 10, "trays": [["1x1", "1x2"]],
                         "goals": [{"score": 1}], "tokens": 0})
    CompiledSearch(level, spend=True).run(0, 0, 0, 3, 0, False, False, 0, 0, 0, 1e300, 10**6, None, None)
    _warm = True


def search(level: Level, time_limit: float, node_limit: int, best0: int | None,
           target: int | None, **options) -> tuple[int, int | None, int, list[Move] | None]:
    """Run the compiled search on a level with no reserve to redeal from (its tokens, if any,
    rotate and remove): (status, best final score or None, nodes, best line or None).
    ``options`` go to ``CompiledSearch`` (``final_rule``, ``bound_every``, ``margin``, ``dead_rule``,
    ``value_rule``: for the tests).

    The best line is None when nothing beat ``best0`` (the caller's hint holds it).
    """
    warm_up()
    board = level.board
    deadline = time.perf_counter() + time_limit if math.isfinite(time_limit) else 1e300
    left = (1 << len(level.trays[0])) - 1 if level.trays else 0
    return CompiledSearch(level, spend=True, **options).run(board.filled, board.pumpkins, 0, left, 0, False, False,
                                                           0, 0, level.tokens, deadline, node_limit, best0, target)


def upper_bound(level: Level, filled: int, points: int, run: int, turn_cleared: bool, prev_turn_cleared: bool,
                tray_index: int, left_mask: int, placed: int, full_scan: bool) -> int:
    """The compiled bound for one state (the tests hold it to ``CampaignSearch._upper_bound``)."""
    variant = level.variant
    tb = _Tables(level)
    f_lo, f_hi = split(filled)
    s_lo, s_hi = split(level.board.stones)
    return int(_bound(np.uint64(f_lo), np.uint64(f_hi), np.uint64(s_lo), np.uint64(s_hi), points, run,
                      int(turn_cleared), int(prev_turn_cleared), tray_index, left_mask, placed, full_scan,
                      level.limit, tb.rem_n, tb.rem_cells, tb.rem_caps, tb.rem_ends, tb.ev, tb.ev_from, tb.fam_zone,
                      tb.fam_count, tb.fam_refill, tb.zone_lo, tb.zone_hi, tb.zone_region,
                      bool(variant.regions), tb.pts, tb.paying, variant.cell_points, variant.flow_bonus,
                      level.tokens * variant.token_bonus, np.zeros(16, np.int64)))


def pending_alive(level: Level, filled: int, pending: list[int], must: list[bool], strict: bool,
                  tray_index: int, left_mask: int, count: int) -> bool:
    """The compiled search's pending test (``_pending_alive``) for one state, for the tests that
    hold it to a brute force: whether ``count`` more placements, from the unplaced slots
    ``left_mask`` of tray ``tray_index`` (slots in sorted piece order), can still clear a zone
    through every pending placement (``pending``: their cells) marked must-use (all when
    ``strict``). False only where none can; True may still be wrong the other way."""
    tb = _Tables(level)
    f_lo, f_hi = split(filled)
    s_lo, s_hi = split(level.board.stones)
    n = len(pending)
    zones = np.array([[int(_zones_through(*(np.uint64(w) for w in split(cells)), tb.cell_zones))
                       for cells in pending] or [0]], np.uint64)
    musts = np.array([[int(m) for m in must] or [0]], np.int64)
    rest_cells = int(tb.rem_cells[tray_index, left_mask, count])
    return bool(_pending_alive(np.uint64(f_lo), np.uint64(f_hi), np.uint64(s_lo), np.uint64(s_hi), zones, musts, 0, n,
                               strict, count, rest_cells, tray_index, left_mask, tb.tray_len, tb.tray_piece,
                               tb.zone_lo.shape[0], tb.zone_lo, tb.zone_hi, tb.zone_region, tb.piece_size,
                               tb.offs, tb.offs_n, tb.anchor_lo, tb.anchor_hi, tb.cover_lo, tb.cover_hi,
                               tb.spot_of, tb.spot_lo, tb.spot_hi, tb.spot_touch))


def pumpkins_reachable(level: Level, filled: int, pumpkins: int, tray_index: int, left_mask: int,
                       count: int) -> bool:
    """The compiled search's pumpkin reach test (``_pumpkins_reachable``) for one state, for the
    tests that hold it to a brute force: whether ``count`` more placements, from the unplaced
    slots ``left_mask`` of tray ``tray_index`` (slots in sorted piece order) on, might still clear
    every pumpkin. False only where none can; ``count`` is the placements the level's limit leaves."""
    tb = _Tables(level)
    words = [np.uint64(w) for w in split(pumpkins) + split(filled) + split(level.board.stones)]
    n = sum(len(t) for t in level.trays) + 1
    return bool(_pumpkins_reachable(*words, tray_index, left_mask, count, tb.tray_len, tb.tray_piece, tb.rem_cells,
                                    tb.zone_lo.shape[0], tb.zone_lo, tb.zone_hi, tb.cell_zones, tb.piece_size,
                                    tb.offs, tb.offs_n, tb.anchor_lo, tb.anchor_hi, tb.cover_lo, tb.cover_hi,
                                    np.zeros(n, np.int64), np.zeros(n, np.uint64), np.zeros(n, np.uint64)))


def pumpkin_partners(level: Level, filled: int, pumpkins: int, slot: int, left_mask: int) -> tuple[int, int]:
    """The compiled search's pumpkin filter (``_pumpkin_partners``) for the tests that hold it
    to a brute force: the plain anchors (top-left cells, a bit each) of the piece in ``slot`` of
    tray 0 (slots in sorted piece order) on ``filled``, and those of them kept because a piece
    in the other slots of ``left_mask``, placed next, might still clear every pumpkin."""
    tb = _Tables(level)
    s_lo, s_hi = split(level.board.stones)
    f_lo, f_hi = split(filled)
    e_lo = np.uint64(~(f_lo | s_lo) & 0xFFFFFFFFFFFFFFFF)
    e_hi = np.uint64(~(f_hi | s_hi) & ((1 << 36) - 1))
    g = int(tb.tray_piece[0, slot])
    every = np.uint64((1 << tb.zone_lo.shape[0]) - 1)
    _, _, p_lo, p_hi = _anchors(g, e_lo, e_hi, False, every, tb.zone_lo, tb.zone_hi, tb.piece_size,
                                tb.offs, tb.offs_n, tb.anchor_lo, tb.anchor_hi, tb.cover_lo, tb.cover_hi)
    p_lo, p_hi = np.uint64(p_lo), np.uint64(p_hi)
    way_lo = np.zeros(_PARTNER_CHOICES, np.uint64)
    way_hi = np.zeros(_PARTNER_CHOICES, np.uint64)
    way_n = np.zeros(_PARTNER_CHOICES, np.int64)
    ways = _pumpkin_ways(*(np.uint64(w) for w in split(pumpkins)), e_lo, e_hi, tb.cell_zones, tb.zone_lo, tb.zone_hi,
                         way_lo, way_hi, way_n)
    k_lo, k_hi = _pumpkin_partners(g, p_lo, p_hi, e_lo, e_hi, ways, way_lo, way_hi, way_n,
                                   left_mask & ~(1 << slot), 0, tb.tray_len, tb.tray_piece, tb.piece_size,
                                   tb.offs, tb.offs_n, tb.anchor_lo, tb.anchor_hi, tb.cover_lo, tb.cover_hi,
                                   tb.spot_of, tb.spot_lo, tb.spot_hi)
    return int(p_lo) | int(p_hi) << 64, int(k_lo) | int(k_hi) << 64
