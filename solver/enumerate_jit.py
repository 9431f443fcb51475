"""The numba kernel behind ``solver.enumerate.enumerate_tray``.

Same algorithm as ``enumerate_tray_py`` (level-by-level merge of equal
states), on a board split into two uint64 words (cells 0-63, 64-99) and an
open-addressing hash table in numpy arrays. The rules come in as tables
built in Python from the variant: zone masks, the zones each spot touches,
and ``clear_points`` evaluated for every (lines, regions, run) that can
occur, so the scoring hook stays the one in ``solver.variants``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numba as nb
import numpy as np

from .board import Board
from .engine import Streak, has_complete_zone
from .evaluate_jit import _empty_rows, _isolated_in_row, _pop
from .moves import Placement
from .pieces import SHAPE_CACHE, get_piece, placements
from .variants import Variant

LOW64 = (1 << 64) - 1
MAX_LINES = 21  # a piece spans at most 10 rows + 10 columns
MAX_REGIONS = 21


def split(bb: int) -> tuple[int, int]:
    return bb & LOW64, bb >> 64


@lru_cache(maxsize=SHAPE_CACHE)
def spot_tables(variant: Variant, piece_id: str):
    """(lo, hi, indices of the zones it touches, -1 padded) per spot of the piece, in ``placements`` order."""
    spots = placements(piece_id)
    zones = variant.zones
    lo = np.array([s.mask & LOW64 for s in spots], dtype=np.uint64)
    hi = np.array([s.mask >> 64 for s in spots], dtype=np.uint64)
    touched = [[i for i, z in enumerate(zones) if z & s.mask] for s in spots]
    touch = np.full((len(spots), max(map(len, touched)) + 1), -1, dtype=np.int64)
    for k, ids in enumerate(touched):
        touch[k, :len(ids)] = ids
    return lo, hi, touch


@lru_cache(maxsize=None)
def zone_tables(variant: Variant):
    zones = variant.zones
    lo = np.array([z & LOW64 for z in zones], dtype=np.uint64)
    hi = np.array([z >> 64 for z in zones], dtype=np.uint64)
    is_region = np.array([i >= len(variant.lines) for i in range(len(zones))], dtype=np.bool_)
    return lo, hi, is_region


_points_cache: dict = {}


def points_table(variant: Variant, max_run: int) -> np.ndarray:
    """``clear_points(lines, regions, run)`` for every lines, regions < 21 and run <= max_run."""
    key = variant.name
    table = _points_cache.get(key)
    if table is None or table.shape[2] <= max_run:
        runs = max(max_run + 1, 16 if table is None else 2 * table.shape[2])
        table = np.zeros((MAX_LINES, MAX_REGIONS, runs), dtype=np.int64)
        for lines in range(MAX_LINES):
            for regions in range(MAX_REGIONS):
                for run in range(runs):
                    table[lines, regions, run] = variant.clear_points(lines, regions, run)
        _points_cache[key] = table
    return table


@nb.njit(cache=True, inline="always")
def _hash(lo, hi, aux, mask):
    h = lo * np.uint64(0x9E3779B97F4A7C15)
    h ^= (hi + np.uint64(0x632BE59BD9B4E019)) * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= aux * np.uint64(0x165667B19E3779F9)
    h ^= h >> np.uint64(29)
    return np.int64(h & mask)


@nb.njit(cache=True)
def _rehash(table, lo, hi, left, run, tc, n):
    cap = table.shape[0] * 2
    table = np.full(cap, -1, np.int64)
    mask = np.uint64(cap - 1)
    for j in range(n):
        aux = np.uint64((run[j] << 8) | (left[j] << 1) | tc[j])
        h = _hash(lo[j], hi[j], aux, mask)
        while table[h] >= 0:
            h = (h + 1) & np.int64(cap - 1)
        table[h] = j
    return table


@nb.njit(cache=True)
def _kernel(filled_lo, filled_hi, stones_lo, stones_hi, run0, tc0, full_scan0,
            n_slots, group, sizes, spot_lo, spot_hi, spot_zones, spot_count,
            zone_lo, zone_hi, zone_region, pts, cell_points, best_only, flow_extra):
    """Level-by-level merge. Returns the last level's (lo, hi, run, tc, points) and a plan
    per end state (slot * 1024 + spot index per placement).

    ``best_only``: the last level keeps one end state, not all: the first reached with the
    most points (``flow_extra`` more where the tray clears), then the most empty cells, then
    the fewest isolated ones (the tray's best plan). It stores nothing else, so it needs no
    merge: a state reached again scores no more than its best arrival.

    Two non-clearing placements in a row commute (same board, points, streak), so a
    non-clearing placement of a lower slot right after a non-clearing one of a higher
    slot is not generated: the other order reaches the same state.
    """
    cur_lo = np.empty(1, np.uint64)
    cur_hi = np.empty(1, np.uint64)
    cur_left = np.empty(1, np.int64)
    cur_run = np.empty(1, np.int64)
    cur_tc = np.empty(1, np.int64)
    cur_pts = np.empty(1, np.int64)
    cur_last = np.empty(1, np.int64)  # slot of the last placement if it did not clear, else -1
    cur_lo[0] = filled_lo
    cur_hi[0] = filled_hi
    cur_left[0] = (1 << n_slots) - 1
    cur_run[0] = run0
    cur_tc[0] = tc0
    cur_pts[0] = 0
    cur_last[0] = -1
    parents = []
    moves = []
    full_scan = full_scan0
    n_zones = zone_lo.shape[0]
    rows = np.zeros(10, np.int64)
    best_pts = -1
    best_empty = -1
    best_isolated = 0
    for level in range(n_slots):
        n_cur = cur_lo.shape[0]
        picking = best_only and level == n_slots - 1
        bound = 1  # room for the children: the one kept, or every spot of every slot left
        if not picking:
            for s in range(n_cur):
                left = cur_left[s]
                for i in range(n_slots):
                    if left >> i & 1 and (left & ((1 << i) - 1) & group[i]) == 0:
                        bound += spot_count[i]
        cap = 1024
        while cap < 4 * n_cur and cap < 2 * bound:
            cap *= 2
        table = np.full(cap, -1, np.int64)
        nx_lo = np.empty(bound, np.uint64)
        nx_hi = np.empty(bound, np.uint64)
        nx_left = np.empty(bound, np.int64)
        nx_run = np.empty(bound, np.int64)
        nx_tc = np.empty(bound, np.int64)
        nx_pts = np.empty(bound, np.int64)
        nx_last = np.empty(bound, np.int64)
        nx_parent = np.empty(bound, np.int64)
        nx_move = np.empty(bound, np.int64)
        n_nx = 0
        for s in range(n_cur):
            f_lo = cur_lo[s]
            f_hi = cur_hi[s]
            occ_lo = f_lo | stones_lo
            occ_hi = f_hi | stones_hi
            left = cur_left[s]
            run = cur_run[s]
            last = cur_last[s]
            for i in range(n_slots):
                # equal pieces: only the lowest slot of a group that is still left
                if not (left >> i & 1) or (left & ((1 << i) - 1) & group[i]) != 0:
                    continue
                rest = left & ~(1 << i)
                base = sizes[i] * cell_points
                for k in range(spot_count[i]):
                    m_lo = spot_lo[i, k]
                    m_hi = spot_hi[i, k]
                    if (m_lo & occ_lo) != 0 or (m_hi & occ_hi) != 0:
                        continue
                    a_lo = f_lo | m_lo
                    a_hi = f_hi | m_hi
                    o_lo = a_lo | stones_lo
                    o_hi = a_hi | stones_hi
                    c_lo = np.uint64(0)
                    c_hi = np.uint64(0)
                    lines = 0
                    regions = 0
                    for t in range(n_zones if full_scan else spot_zones.shape[2]):
                        z = t if full_scan else spot_zones[i, k, t]
                        if z < 0:
                            break
                        z_lo = zone_lo[z]
                        z_hi = zone_hi[z]
                        if (o_lo & z_lo) == z_lo and (o_hi & z_hi) == z_hi and (
                                (z_lo & ~stones_lo) != 0 or (z_hi & ~stones_hi) != 0):
                            c_lo |= z_lo
                            c_hi |= z_hi
                            if zone_region[z]:
                                regions += 1
                            else:
                                lines += 1
                    cleared = lines + regions > 0
                    if not cleared and i < last:
                        continue  # reached in the other order
                    a_lo &= ~c_lo
                    a_hi &= ~c_hi
                    gained = base + pts[lines, regions, run]
                    n_run = run + 1 if cleared else 0
                    n_tc = 1 if (cleared or cur_tc[s] == 1) else 0
                    total = cur_pts[s] + gained
                    if picking:
                        key = total + flow_extra * n_tc
                        if key < best_pts:
                            continue
                        _empty_rows(a_lo | stones_lo, a_hi | stones_hi, rows)
                        empty = 0
                        for r in range(10):
                            empty += _pop(rows[r])
                        if key == best_pts and empty < best_empty:
                            continue
                        isolated = 0
                        for r in range(10):
                            isolated += _isolated_in_row(rows, r)
                        if key == best_pts and empty == best_empty and isolated >= best_isolated:
                            continue
                        best_pts = key
                        best_empty = empty
                        best_isolated = isolated
                        nx_lo[0] = a_lo
                        nx_hi[0] = a_hi
                        nx_left[0] = rest
                        nx_run[0] = n_run
                        nx_tc[0] = n_tc
                        nx_pts[0] = total
                        nx_last[0] = -1 if cleared else i
                        nx_parent[0] = s
                        nx_move[0] = i * 1024 + k
                        n_nx = 1
                        continue
                    aux = np.uint64((n_run << 8) | (rest << 1) | n_tc)
                    h = _hash(a_lo, a_hi, aux, np.uint64(cap - 1))
                    while True:
                        j = table[h]
                        if j < 0:
                            table[h] = n_nx
                            nx_lo[n_nx] = a_lo
                            nx_hi[n_nx] = a_hi
                            nx_left[n_nx] = rest
                            nx_run[n_nx] = n_run
                            nx_tc[n_nx] = n_tc
                            nx_pts[n_nx] = total
                            nx_last[n_nx] = -1 if cleared else i
                            nx_parent[n_nx] = s
                            nx_move[n_nx] = i * 1024 + k
                            n_nx += 1
                            if 2 * n_nx > cap:
                                table = _rehash(table, nx_lo, nx_hi, nx_left, nx_run, nx_tc, n_nx)
                                cap = table.shape[0]
                            break
                        if (nx_lo[j] == a_lo and nx_hi[j] == a_hi and nx_left[j] == rest
                                and nx_run[j] == n_run and nx_tc[j] == n_tc):
                            if nx_pts[j] < total:
                                nx_pts[j] = total
                                nx_last[j] = -1 if cleared else i
                                nx_parent[j] = s
                                nx_move[j] = i * 1024 + k
                            break
                        h = (h + 1) & np.int64(cap - 1)
        cur_lo = nx_lo[:n_nx].copy()
        cur_hi = nx_hi[:n_nx].copy()
        cur_left = nx_left[:n_nx].copy()
        cur_run = nx_run[:n_nx].copy()
        cur_tc = nx_tc[:n_nx].copy()
        cur_pts = nx_pts[:n_nx].copy()
        cur_last = nx_last[:n_nx].copy()
        parents.append(nx_parent[:n_nx].copy())
        moves.append(nx_move[:n_nx].copy())
        full_scan = False
        if n_nx == 0:
            break
    n = cur_lo.shape[0]
    plan = np.full((n, n_slots), -1, np.int64)
    if len(parents) == n_slots:
        for e in range(n):
            idx = e
            for lv in range(n_slots - 1, -1, -1):
                plan[e, lv] = moves[lv][idx]
                idx = parents[lv][idx]
    else:
        n = 0
    return cur_lo[:n], cur_hi[:n], cur_run[:n], cur_tc[:n], cur_pts[:n], plan[:n]


@dataclass
class EndStates:
    """The end states of one tray as arrays (what the expert scores in bulk)."""

    variant: Variant
    tray: tuple[str, ...]
    lo: np.ndarray  # uint64, cells 0-63 of the filled board
    hi: np.ndarray  # uint64, cells 64-99
    run: np.ndarray  # streak run after the tray
    turn_cleared: np.ndarray  # the tray cleared (prev_turn_cleared of the next turn)
    points: np.ndarray  # points gained, flow bonus included
    plan_codes: np.ndarray  # (n, len(tray)) slot * 1024 + spot index

    def __len__(self) -> int:
        return int(self.lo.shape[0])

    def filled(self, i: int) -> int:
        return int(self.lo[i]) | int(self.hi[i]) << 64

    def streak(self, i: int) -> Streak:
        return Streak(int(self.run[i]), False, bool(self.turn_cleared[i]))

    def plan(self, i: int) -> tuple[Placement, ...]:
        out = []
        for code in self.plan_codes[i]:
            slot, k = divmod(int(code), 1024)
            spot = placements(self.tray[slot])[k]
            out.append(Placement(spot.piece, spot.row, spot.col))
        return tuple(out)

    def states(self) -> list:
        from .enumerate import EndState

        return [EndState(self.filled(i), self.streak(i), int(self.points[i]), self.plan(i))
                for i in range(len(self))]


def enumerate_tray_jit(variant: Variant, board: Board, streak: Streak, pieces,
                       best_only: bool = False) -> EndStates:
    """Every end state of the tray, or with ``best_only`` the one ``tray.best_plan``
    plays: the most points, then the most empty cells, then the fewest isolated ones."""
    tray = tuple(sorted(get_piece(p).id for p in pieces))
    n = len(tray)
    if n == 0:
        raise ValueError("enumerate_tray: the tray is empty")
    if len(variant.zones) > 64:
        raise ValueError("enumerate_tray: the kernel handles at most 64 zones")
    tables = [spot_tables(variant, p) for p in tray]
    width = max(len(t[0]) for t in tables)
    spot_lo = np.zeros((n, width), np.uint64)
    spot_hi = np.zeros((n, width), np.uint64)
    spot_touch = np.full((n, width, max(t[2].shape[1] for t in tables)), -1, np.int64)
    spot_count = np.zeros(n, np.int64)
    for i, (lo, hi, touch) in enumerate(tables):
        spot_lo[i, :len(lo)] = lo
        spot_hi[i, :len(lo)] = hi
        spot_touch[i, :len(lo), :touch.shape[1]] = touch
        spot_count[i] = len(lo)
    group = np.array([sum(1 << j for j in range(n) if tray[j] == tray[i]) for i in range(n)], np.int64)
    sizes = np.array([get_piece(p).size for p in tray], np.int64)
    z_lo, z_hi, z_region = zone_tables(variant)
    f_lo, f_hi = split(board.filled)
    s_lo, s_hi = split(board.stones)
    pts = points_table(variant, streak.run + n)
    flow_extra = variant.flow_bonus if streak.prev_turn_cleared else 0
    lo, hi, run, tc, points, plan = _kernel(
        np.uint64(f_lo), np.uint64(f_hi), np.uint64(s_lo), np.uint64(s_hi),
        streak.run, int(streak.turn_cleared), has_complete_zone(variant, board.filled, board.stones),
        n, group, sizes, spot_lo, spot_hi, spot_touch, spot_count, z_lo, z_hi, z_region,
        pts, variant.cell_points, best_only, flow_extra,
    )
    if flow_extra:
        points = points + flow_extra * tc
    return EndStates(variant, tray, lo, hi, run, tc.astype(np.bool_), points, plan)
