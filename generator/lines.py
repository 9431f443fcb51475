"""Count a level's winning placement sequences, for several score goals in one walk.

A sequence wins at the first placement where every goal holds (RULES.md §3:
a level is won the moment every goal holds): along a sequence the score never
falls and the other goals, once they hold, keep holding (pumpkins never come
back; ``place_all`` holds only at the very end), so a sequence that wins stops
there and is counted once. The walk is memoised on everything the rest of a
sequence depends on, the points so far included, so a state that many
sequences reach (the orders of a tray's pieces, most of all) is counted once
for all of them; counts stop growing at a cap (the grade does not look past
1,000), and the walk stops at a budget of states expanded.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from solver.engine import placement_points, settle
from solver.level import Level
from solver.pieces import get_piece, placements


def winning_counts(level: Level, goals: Sequence[int], cap: int | None = None,
                   node_budget: int = 100_000) -> tuple[list[int], bool]:
    """For each score goal in ``goals``: the number of distinct placement sequences within the
    limit that meet every goal at their end and at no shorter prefix (the moment a level is
    won). Memoised on everything the rest of a sequence depends on, the points so far
    included; a count stops at ``cap`` (None: none), and ``node_budget`` caps the states
    expanded. Returns (counts, complete); when the
    budget runs out the counts are floors (the sequences counted so far)."""
    variant = level.variant
    stones = level.board.stones
    trays = [tuple(sorted(t)) for t in level.trays]
    need_pumpkins = level.needs_pumpkins
    need_all = level.needs_all_placed
    bonus = level.tokens * variant.token_bonus
    most = math.inf if cap is None else cap
    memo: dict[tuple, tuple[int, ...]] = {}
    nodes = 0
    short = False  # the budget ran out: counts from here on are partial and not remembered

    def last_placements(filled, pumpkins, tray_index, tray, run, turn_cleared, prev, points, won, counts):
        """Add the winning last placements to ``counts``: the spots that clear are scored one by
        one; the others all score the piece's cells (and the same flow bonus) and leave the
        pumpkins as they are, so they are counted together."""
        occupied = filled | stones
        ends_tray = len(tray) == 1
        ends_all = ends_tray and tray_index == len(trays) - 1
        near = [z & ~occupied for z in variant.zones if z & ~occupied]

        def add(n, after_pumpkins, gained, cleared):
            if need_pumpkins and after_pumpkins or need_all and not ends_all:
                return
            if ends_tray and (turn_cleared or cleared) and prev:
                gained += variant.flow_bonus
            for k, g in enumerate(goals):
                if not won[k] and points + gained + bonus >= g:
                    counts[k] += n

        for piece in dict.fromkeys(tray):
            plain = 0
            size = get_piece(piece).size
            fillable = [e for e in near if e.bit_count() <= size]  # zones one spot of the piece can complete
            for spot in placements(piece):
                mask = spot.mask
                if mask & occupied:
                    continue
                if not fillable or not any(not e & ~mask for e in fillable):
                    plain += 1
                    continue
                after, lines, regions = settle(variant, filled, stones, mask, False)
                add(1, pumpkins & after, placement_points(variant, size, lines, regions, run), True)
            if plain:
                add(plain, pumpkins, placement_points(variant, size, 0, 0, run), False)
        counts[:] = [min(c, most) for c in counts]

    def walk(filled, pumpkins, tray_index, tray, run, turn_cleared, prev, placed, points):
        nonlocal nodes, short
        key = (filled, pumpkins, tray_index, tray, run, turn_cleared, prev, placed, points)
        known = memo.get(key)
        if known is not None:
            return known
        ok = not (need_pumpkins and pumpkins) and not (need_all and tray_index < len(trays))
        won = [ok and points + bonus >= g for g in goals]
        counts = [int(w) for w in won]
        if all(won) or placed >= level.limit or tray_index >= len(trays):
            memo[key] = tuple(counts)
            return memo[key]
        if nodes >= node_budget:
            short = True
            return tuple(counts)
        nodes += 1
        occupied = filled | stones
        if placed > 0 and (placed + 1 >= level.limit or (tray_index == len(trays) - 1 and len(tray) == 1)):
            last_placements(filled, pumpkins, tray_index, tray, run, turn_cleared, prev, points, won, counts)
            memo[key] = tuple(counts)
            return memo[key]
        for piece in dict.fromkeys(tray):  # equal pieces are one choice
            rest = list(tray)
            rest.remove(piece)
            for spot in placements(piece):
                if spot.mask & occupied:
                    continue
                after, lines, regions = settle(variant, filled, stones, spot.mask, placed == 0)
                cleared = lines + regions > 0
                gained = placement_points(variant, spot.mask.bit_count(), lines, regions, run)
                t_cleared = turn_cleared or cleared
                n_prev, n_index, n_tray = prev, tray_index, tuple(rest)
                if not rest:
                    if t_cleared and prev:
                        gained += variant.flow_bonus
                    n_prev, t_cleared = t_cleared, False
                    n_index = tray_index + 1
                    n_tray = trays[n_index] if n_index < len(trays) else ()
                sub = walk(after, pumpkins & after, n_index, n_tray, run + 1 if cleared else 0, t_cleared,
                           n_prev, placed + 1, points + gained)
                counts = [c if w else min(c + n, most) for c, w, n in zip(counts, won, sub)]
                if short:
                    return tuple(counts)
                if all(w or c >= most for w, c in zip(won, counts)):  # every count at the cap: done
                    memo[key] = tuple(counts)
                    return memo[key]
        memo[key] = tuple(counts)
        return memo[key]

    board = level.board
    counts = walk(board.filled, board.pumpkins, 0, trays[0] if trays else (), 0, False, False, 0, 0)
    return list(counts), not short
