"""Count a level's winning placement sequences for every score goal at once.

Along one sequence of placements the score never falls and the other goals,
once they hold, keep holding (pumpkins never come back; ``place_all`` holds
only at the very end). So for a score goal G, a sequence wins at the first
placement where the other goals hold and the score reaches G: each node of
the sequence tree wins for the goals in (its parent's score, its score].
One walk of the tree records those intervals; counting for any G is then
a lookup. The walk has a node budget and says whether it finished.
"""

from __future__ import annotations

from solver.engine import placement_points, settle
from solver.level import Level
from solver.pieces import placements


def winning_intervals(level: Level, node_budget: int = 60_000) -> tuple[list[tuple[int, int]], bool]:
    variant = level.variant
    stones = level.board.stones
    trays = [tuple(t) for t in level.trays]
    need_pumpkins = any(g.get("pumpkins") for g in level.goals)
    need_all = any(g.get("place_all") for g in level.goals)
    bonus = level.tokens * variant.token_bonus
    intervals: list[tuple[int, int]] = []
    nodes = 0

    class Budget(Exception):
        pass

    def others_hold(pumpkins: int, tray_index: int) -> bool:
        if need_pumpkins and pumpkins:
            return False
        if need_all and tray_index < len(trays):
            return False
        return True

    def walk(filled, pumpkins, tray_index, tray, run, turn_cleared, prev, placed, points, parent_ok_score):
        nonlocal nodes
        nodes += 1
        if nodes > node_budget:
            raise Budget
        score = points + bonus
        ok = others_hold(pumpkins, tray_index)
        if ok:
            intervals.append((parent_ok_score, score))
            parent_ok_score = score
        if placed >= level.limit or tray_index >= len(trays):
            return
        occupied = filled | stones
        for piece in dict.fromkeys(tray):
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
                walk(after, pumpkins & after, n_index, n_tray, run + 1 if cleared else 0, t_cleared,
                     n_prev, placed + 1, points + gained, parent_ok_score if ok else -1)
            # equal pieces are one choice: dict.fromkeys above

    try:
        walk(level.board.filled, level.board.pumpkins, 0, trays[0] if trays else (), 0, False, False, 0, 0, -1)
        complete = True
    except Budget:
        complete = False
    return intervals, complete


def first_win_count(intervals: list[tuple[int, int]], goal: int) -> int:
    return sum(1 for lo, hi in intervals if lo < goal <= hi)
