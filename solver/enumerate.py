"""Full tray enumeration: every distinct end-of-tray state, the player's move generator.

An end state is (filled board, streak after the turn, points gained), reached
by placing the whole tray in some order. States are merged level by level:
after k placements, two paths that reach the same (board, pieces left, run,
turn cleared) have the same future, so only the one with more points is
kept (first found on ties). The end states are therefore exact: one per
(board, streak), each with the most points any order reaches and a plan
that ``Game.apply`` replays to exactly those points.

Two implementations share this contract: ``enumerate_tray_py`` on Python
ints with ``settle``/``placement_points`` (the reference), and
``enumerate_tray``, which runs the numba kernel in ``solver.enumerate_jit``;
tests hold the two to each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from .bitboard import Bitboard
from .board import Board
from .engine import Streak, has_complete_zone, placement_points, settle
from .moves import Placement
from .pieces import get_piece, placements
from .variants import Variant


@dataclass(frozen=True)
class EndState:
    filled: Bitboard
    streak: Streak  # after the turn (flow bonus judged)
    points: int  # placement points plus the flow bonus
    plan: tuple[Placement, ...]


def canonical_tray(pieces) -> tuple[str, ...]:
    return tuple(sorted(get_piece(p).id for p in pieces))


def enumerate_tray_py(variant: Variant, board: Board, streak: Streak, pieces) -> list[EndState]:
    """Every end state of placing all of ``pieces``; [] when the tray cannot be placed."""
    stones = board.stones
    tray = canonical_tray(pieces)
    full_scan = has_complete_zone(variant, board.filled, stones)
    # key -> (points, plan); key = (filled, pieces left, run, turn_cleared)
    level: dict = {(board.filled, tray, streak.run, streak.turn_cleared): (0, ())}
    for _ in range(len(tray)):
        nxt: dict = {}
        for (filled, left, run, turn_cleared), (points, plan) in level.items():
            occupied = filled | stones
            for i, piece in enumerate(left):
                if piece in left[:i]:
                    continue
                rest = left[:i] + left[i + 1:]
                size = get_piece(piece).size
                for spot in placements(piece):
                    if spot.mask & occupied:
                        continue
                    after, lines, regions = settle(variant, filled, stones, spot.mask, full_scan)
                    cleared = lines + regions > 0
                    gained = placement_points(variant, size, lines, regions, run)
                    key = (after, rest, run + 1 if cleared else 0, turn_cleared or cleared)
                    total = points + gained
                    seen = nxt.get(key)
                    if seen is None or seen[0] < total:
                        nxt[key] = (total, plan + (Placement(spot.piece, spot.row, spot.col),))
        level = nxt
        full_scan = False
    ends: dict = {}
    for (filled, _, run, turn_cleared), (points, plan) in level.items():
        bonus, after = Streak(run, turn_cleared, streak.prev_turn_cleared).after_turn(variant)
        key = (filled, after)
        total = points + bonus
        seen = ends.get(key)
        if seen is None or seen[0] < total:
            ends[key] = (total, plan)
    return [EndState(filled, s, points, plan) for (filled, s), (points, plan) in ends.items()]


def enumerate_tray(variant: Variant, board: Board, streak: Streak, pieces) -> list[EndState]:
    """Same contract as ``enumerate_tray_py``, compiled (numba is a dependency: no fallback, so a
    broken install fails loudly rather than slowly)."""
    from .enumerate_jit import enumerate_tray_jit

    return enumerate_tray_jit(variant, board, streak, pieces).states()
