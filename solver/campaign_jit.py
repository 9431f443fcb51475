"""The compiled campaign search: every level except those with tokens that redeal.

Same search as ``solver.campaign.CampaignSearch`` (the readable reference,
which the tests hold this one to): depth-first over the placements, trays
in order, clears between; branch-and-bound on the same admissible bound
(``solver.bounds``, mirrored on two uint64 words); a transposition
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
10, 11 and 19 searched the same nodes in the same time, level 12 5 % fewer. With two placements
left (their pieces in either order, ``_usable_by_two``) it cut more nodes (level 6: 1.01 M to 0.42 M) but cost more time
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

The search's parts are modules of their own: the board primitives and move generator
(``solver.board_jit``), the bound (``solver.campaign_bound_jit``), the final-tray rule's tests
(``solver.campaign_pending_jit``), the pumpkin tests (``solver.campaign_pumpkins_jit``), the
token spends (``solver.campaign_tokens_jit``) and the level's tables (``solver.campaign_tables``).
This one holds the search, its transposition table and the Python entry points. They call one
another compiled, so their numba cache is cleared as one (``solver.jitcache``).
"""

from __future__ import annotations

import math
import time

import numba as nb
import numpy as np

from . import watch
from .board_jit import _anchors, _borrowing, _low_bit, _near, _settle, _zones_through
from .campaign_bound_jit import _bound
from .campaign_pending_jit import _pending_after, _pending_alive
from .campaign_pumpkins_jit import _PARTNER_CHOICES, _pumpkin_partners, _pumpkin_ways, _pumpkins_reachable
from .campaign_tables import _Tables
from .campaign_tokens_jit import _token_moves
from .engine import has_complete_zone
from .enumerate_jit import split
from .evaluate_jit import _pop64
from .level import Level, removals_before_last_placement
from .moves import Move, Placement, TokenUse, removals
from .pieces import placements

STATUS_DONE, STATUS_BUDGET, STATUS_FOUND = 0, 1, 2
# One node's token moves: at most this many sets of removals examined and rows on the move
# stack (48 bytes each), past which the node's moves are cut and the search no longer proves
# (``_token_moves``); and the sets examined after which the clock is read at the next node,
# whatever the node count. The cut only ever met boards of complete zones with five tokens:
# every proof of the tests and of the shipped packs is as before.
TOKEN_SETS_MAX = 1 << 22
MOVE_ROWS_MAX = 1 << 20
_WORK_CHECK = 1 << 18
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
    cap = variant.runs_told_apart
    if cap == 0:
        return 0
    if cap == 1:
        every = range(len(variant.zones) + 1)
        return max(variant.clear_points(lines, regions, 1) - variant.clear_points(lines, regions, 0)
                   for lines in every for regions in every)
    return NO_MARGIN


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


@nb.njit(cache=True)
def _search(f0_lo, f0_hi, p0_lo, p0_hi, st_lo, st_hi, full_scan0, limit, need_pumpkins, need_all,
            tray_len, tray_piece, tray_group, piece_size, rem_n, rem_cells, rem_caps, rem_ends, ev, ev_from,
            spot_lo, spot_hi,
            spot_touch, spot_of, offs, offs_n, anchor_lo, anchor_hi, cover_lo, cover_hi, fam_zone, fam_count,
            fam_refill, zone_lo, zone_hi, zone_region, has_regions, pts, paying, cell_points, flow_bonus, run_cap,
            bonus_const, best0, target, node_limit, deadline, tt_bits, start, tt, tt_used,
            tok_kinds, token_bonus, rot_n, rot_g, cell_zones, final_rule, bound_every, run_margin, dead_rule,
            value_rule):
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
    work = 0  # removal sets examined since the clock was last read (a node can examine millions)
    truncated = False  # a node's token moves were cut short (_token_moves): not exhaustive
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
            if (nodes & 4095) == 0 or work > _WORK_CHECK:
                work = 0
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
                        fam_refill, zone_lo, zone_hi, has_regions, pts, paying, cell_points, flow_bonus, bonus,
                        costs_buf))
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
                    mv, MvEnd[depth], examined, cut = _token_moves(
                        f_lo, f_hi, st_lo, st_hi, t_idx, left, tokens, UB[depth], best, full_scan,
                        can_rotate, can_remove, prevent, token_bonus, tray_len, tray_piece, tray_group, rot_n, rot_g,
                        anchor_lo, anchor_hi, spot_of, spot_lo, spot_hi, spot_touch, zone_lo, zone_hi,
                        mv, MvBase[depth], comb, cells_buf, zbuf_lo, zbuf_hi, TOKEN_SETS_MAX, MOVE_ROWS_MAX)
                    work += examined
                    truncated = truncated or cut
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
    if truncated and status == 0:
        status = 1  # searched to the end, but not every move: an answer, not a proof
    return (status, best, nodes, best_path, best_orig, best_rm_lo, best_rm_hi, best_len, best_pk_lo,
            best_pk_hi, tt, tt_used)


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
        self.need_pumpkins = level.needs_pumpkins
        self.need_all = level.needs_all_placed
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
                variant.runs_told_apart,
                0, none if best0 is None else best0,
                (1 << 62) if target is None else target, node_limit, deadline, TT_BITS,
                start, self.tt, self.tt_used, self.tok_kinds, variant.token_bonus, tb.rot_n, tb.rot_g,
                tb.cell_zones, self.final_rule, self.bound_every, self.margin, self.dead_rule, self.value_rule,
            )
        finally:
            watch.in_compiled -= 1
        watch.compiled_done()
        (status, best, nodes, path, orig, rm_lo, rm_hi, length, pk_lo, pk_hi, self.tt, self.tt_used) = result
        line = None
        if length >= 0:
            line = []
            for a in range(length):
                g, k = divmod(int(path[a]), 1024)
                shape, piece = tb.ids[g], tb.ids[int(orig[a])]
                if shape != piece:
                    line.append(TokenUse("rotate", piece=piece, turns=tb.turns[piece, shape]))
                line += removals(int(rm_lo[a]) | int(rm_hi[a]) << 64)
                spot = placements(shape)[k]
                line.append(Placement(spot.piece, spot.row, spot.col))
            line += removals(int(pk_lo) | int(pk_hi) << 64)
        found = None if best == none else int(best)
        return int(status), found, int(nodes), line


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
                         "mode": "campaign", "board": ["." * 10] * 10, "trays": [["1x1", "1x2", "2x1"]] * 3,
                         "goals": [{"score": 1}], "tokens": 0})
    # A deadline already passed: the search stops at its first clock check (4,096 nodes, a few
    # ms). numba compiles that check's object-mode block at its first run in a process (about
    # 0.2 s, not cached on disk), which a caller's time limit paid for: on a loaded machine the
    # first solve of a process stopped at 4,096 nodes. The caller's watchers are not told of it.
    watchers = watch.WATCHERS[:]
    watch.WATCHERS.clear()
    try:
        CompiledSearch(level, spend=True).run(0, 0, 0, 7, 0, False, False, 0, 0, 0, 0.0, 10**6, None, None)
    finally:
        watch.WATCHERS[:] = watchers
    _warm = True


def search(level: Level, time_limit: float, node_limit: int, best0: int | None,
           target: int | None, start: tuple | None = None, **options
           ) -> tuple[int, int | None, int, list[Move] | None]:
    """Run the compiled search on a level with no reserve to redeal from (its tokens, if any,
    rotate and remove): (status, best final score or None, nodes, best line or None).
    ``options`` go to ``CompiledSearch`` (``final_rule``, ``bound_every``, ``margin``, ``dead_rule``,
    ``value_rule``: for the tests).

    ``start``, for a level part played (``solver.continuation``): ``(tray index, unplaced slots,
    run, turn cleared, previous turn cleared, points, placements, tokens)`` on the level's board,
    which is then the board of that moment; the line is the rest of the game from there.

    The best line is None when nothing beat ``best0`` (the caller's hint holds it); it spends
    no token after its last placement (``removals_before_last_placement``).
    """
    warm_up()
    board = level.board
    deadline = time.perf_counter() + time_limit if math.isfinite(time_limit) else 1e300
    if start is None:
        left = (1 << len(level.trays[0])) - 1 if level.trays else 0
        start = (0, left, 0, False, False, 0, 0, level.tokens)
    status, best, nodes, line = CompiledSearch(level, spend=True, **options).run(
        board.filled, board.pumpkins, *start, deadline, node_limit, best0, target)
    return status, best, nodes, None if line is None else removals_before_last_placement(line)


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
                      tb.fam_count, tb.fam_refill, tb.zone_lo, tb.zone_hi, bool(variant.regions), tb.pts, tb.paying,
                      variant.cell_points, variant.flow_bonus,
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
