"""Admissible upper bounds on the clear points still reachable, for branch-and-bound.

Counting argument: a zone completes only once all its missing cells are
filled by placed cells, and a placed cell lies in at most ``k`` zones (a row
and a column; plus two regions in Sudoku). So the zones completed from here
have missing counts summing to at most ``k * cells to place``; a zone
completing again after a clear needs at least its non-stone cells once more.
Clears only ever raise missing counts, so today's counts are the cheapest.
The points for ``K`` completions spread over placements are largest when
concentrated, up to the zone count past which a placement's points grow no
more (Arabic pays four zones' points for more): below it every variant's
clear points are convex in the zone count. So they fill the placements able
to complete the most zones first, each with at most that many.

A second budget caps the big clears (``events_bound``, variants whose zones
are rows and columns): a placement clearing ``n`` zones at once empties
every cell of them, at least ``10n - floor(n/2)*ceil(n/2)`` less the stones,
and no more cells can ever be emptied than are filled now plus those still
to place. So the clears are at most the best choice of one event size per
piece (up to its cap) within both the completions count and that emptied
budget: a small knapsack, solved exactly by a table over the two budgets.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from .bitboard import Bitboard
from .pieces import SHAPE_CACHE, get_piece, placements
from .variants import Variant


@lru_cache(maxsize=SHAPE_CACHE)
def zones_per_piece(variant: Variant, piece_id: str) -> int:
    """The most zones one placement of the piece can touch (so complete at once)."""
    return max(sum(1 for z in variant.zones if z & spot.mask) for spot in placements(piece_id))


@lru_cache(maxsize=SHAPE_CACHE)
def _families(variant: Variant, stones: Bitboard) -> tuple[tuple[tuple[Bitboard, ...], int], ...]:
    """The zones split into families that each partition the board (rows, columns, and each
    family of regions), with the cheapest refill of the family; all-stone zones dropped."""
    groups = [variant.lines[:10], variant.lines[10:]]
    regions = variant.regions
    while regions:  # each region family is a run of zones covering the board once
        covered, k = 0, 0
        while k < len(regions) and not covered & regions[k]:
            covered |= regions[k]
            k += 1
        groups.append(regions[:k])
        regions = regions[k:]
    families = []
    for group in groups:
        zones = tuple(z for z in group if z & ~stones)
        if zones:
            families.append((zones, min((z & ~stones).bit_count() for z in zones)))
    return tuple(families)


def completions_bound(variant: Variant, filled: Bitboard, stones: Bitboard, cells: int) -> int:
    """Most zone completions possible while ``cells`` more cells are placed.

    Each placed cell lies in exactly one zone of each family (one row, one
    column, one region of each region family), so every family has its own
    budget of ``cells`` missing cells to fill.
    """
    occupied = filled | stones
    count = 0
    for zones, refill in _families(variant, stones):
        budget = cells
        done = 0
        # First completions cheaper than a refill, cheapest first; every completion after them
        # (a first one or a zone again) costs at least the refill.
        for cost in sorted((z & ~occupied).bit_count() for z in zones):
            if cost >= refill or cost > budget:
                break
            budget -= cost
            done += 1
        count += done + budget // refill
    return count


def reachable_pieces(unplaced: Sequence[str], later_trays: Sequence[Sequence[str]],
                     placements_left: int) -> tuple[list[str], int]:
    """The pieces a line can still place within ``placements_left`` placements: the current
    tray's ``unplaced`` ones, then each later tray whole until the limit falls in it (any of the
    pieces of that tray may be the ones placed); and how many trays can still end (be emptied)
    within the limit. Trays past the limit add nothing to a bound."""
    pieces = list(unplaced)
    ending = 1 if pieces and len(pieces) <= placements_left else 0
    for tray in later_trays:
        if len(pieces) >= placements_left:
            break
        pieces.extend(tray)
        ending += len(pieces) <= placements_left
    return pieces, ending


def clear_points_bound(
    variant: Variant,
    filled: Bitboard,
    stones: Bitboard,
    pieces: list[str] | tuple[str, ...],
    run: int,
    full_scan: bool = False,
    count: int | None = None,
) -> int:
    """Upper bound on the clear points (streak effects included) that placing ``pieces`` can add.

    ``count``: at most this many of the pieces get placed (a placement limit);
    the bound then takes the ``count`` largest sizes and, separately, the
    ``count`` largest caps, which covers every choice of pieces.
    ``full_scan``: the next placement also clears the zones already complete
    (a starting board may hold some), which need not touch the piece.
    Flow bonuses are not included; callers add them.
    """
    if count is None:
        count = len(pieces)
    count = min(count, len(pieces))
    if count <= 0:
        return 0
    cells = sum(sorted((get_piece(p).size for p in pieces), reverse=True)[:count])
    completions = completions_bound(variant, filled, stones, cells)
    if completions == 0:
        return 0
    caps = sorted((zones_per_piece(variant, p) for p in pieces), reverse=True)[:count]
    best_run = run + count  # the largest streak any placement here can carry
    if full_scan:
        # The first placement, of any of the pieces, also clears the zones complete now. Where
        # points stop growing (Arabic) the best piece to carry them need not be the largest.
        occupied = filled | stones
        extra = sum(1 for z in variant.zones if occupied & z == z and z & ~stones)
        return max(concentrated_points(variant, caps[:i] + [cap + extra] + caps[i + 1:], completions, best_run)
                   for i, cap in enumerate(caps))
    total = concentrated_points(variant, caps, completions, best_run)
    # the table allows any of these pieces to clear nothing, so fewer may be placed
    capped = events_bound(variant, tuple(caps), stones.bit_count(), completions, filled.bit_count() + cells)
    return total if capped is None else min(total, capped)


def _event_points(variant: Variant, zones: int, run: int) -> int:
    """Clear points of one placement completing ``zones`` zones, the kind that pays most."""
    if variant.regions:
        return variant.clear_points(0, zones, run)  # a lone region pays more than a lone line
    return variant.clear_points(zones, 0, run)


@lru_cache(maxsize=None)
def paying_zones(variant: Variant, run: int) -> int:
    """The zone count past which one placement's clear points grow no more (Arabic pays 4
    zones' points for more; the others grow up to every zone)."""
    most = len(variant.zones)
    top = _event_points(variant, most, run)
    n = most
    while n > 0 and _event_points(variant, n - 1, run) == top:
        n -= 1
    return n


def concentrated_points(variant: Variant, caps: Sequence[int], completions: int, run: int) -> int:
    """Most clear points of ``completions`` zone completions spread over placements that can
    complete ``caps`` zones each, at streak ``run``: the largest caps filled first, each with
    at most ``paying_zones``. Exact, because every variant's points are convex in the zone
    count up to there (the tests check both against every spread)."""
    most = paying_zones(variant, run)
    total = 0
    for cap in sorted(caps, reverse=True):
        if completions <= 0:
            break
        z = min(cap, completions, most)
        completions -= z
        total += _event_points(variant, z, run)
    return total


# --- the emptied-cells budget ---------------------------------------------

@lru_cache(maxsize=SHAPE_CACHE)
def event_costs(variant: Variant, stones: int) -> tuple[tuple[int, int], ...] | None:
    """Per event size n (0..every zone): (most clear points, fewest cells emptied) for one
    placement clearing n zones, with ``stones`` stones on the board; None for variants the
    emptied budget does not cover (regions, or clear points that grow with the streak run)."""
    if variant.regions:
        return None
    most = len(variant.zones)
    points = [variant.clear_points(n, 0, 1) for n in range(most + 1)]
    if any(variant.clear_points(n, 0, run) > points[n] for n in range(most + 1) for run in (0, 2, 8, 64)):
        return None
    table = []
    for n in range(most + 1):
        rows = range(max(0, n - 10), min(n, 10) + 1)  # rows among the n lines; the rest columns
        cells = min((10 * n - a * (n - a) for a in rows), default=0)
        table.append((points[n] if n else 0, max(0, cells - stones) if n else 0))
    return tuple(table)


def add_events(table: np.ndarray, cap: int, costs: tuple[tuple[int, int], ...]) -> np.ndarray:
    """``table[C, E]`` (best clear points of the pieces so far with C completions and E cells
    to empty) after one more piece that can clear up to ``cap`` zones at once."""
    out = table.copy()
    n_c, n_e = table.shape
    for n in range(1, min(cap, n_c - 1) + 1):
        points, cells = costs[n]
        if cells >= n_e:
            break
        np.maximum(out[n:, cells:], table[:n_c - n, :n_e - cells] + points, out=out[n:, cells:])
    return out


def events_limits(costs: tuple[tuple[int, int], ...], caps: tuple[int, ...]) -> tuple[int, int]:
    """Completions and emptied cells past which a table over these caps no longer changes."""
    return sum(caps), sum(costs[c][1] for c in caps)


# Entries of the events tables one bound may build (a grid's size times the pieces, each of
# which rewrites the grid): a level of a few dozen trays stays far below it; one of hundreds,
# whose whole grid would take gigabytes and minutes, builds only the corner it asks for, and
# past this even that, uses the count bound alone (looser, as sound).
EVENT_WORK = 30_000_000


def _build_events(variant: Variant, caps: tuple[int, ...], stones: int, c_max: int, e_max: int) -> np.ndarray:
    costs = event_costs(variant, stones)
    table = np.zeros((c_max + 1, e_max + 1), np.int64)
    for cap in caps:
        table = add_events(table, cap, costs)
    return table


@lru_cache(maxsize=4096)
def _events_table(variant: Variant, caps: tuple[int, ...], stones: int) -> np.ndarray:
    """The whole table for these caps (one per cap list, shared by every state that asks)."""
    return _build_events(variant, caps, stones, *events_limits(event_costs(variant, stones), caps))


_events_corner = lru_cache(maxsize=8)(_build_events)  # a long level's corners: a few MB each


def events_bound(variant: Variant, caps: tuple[int, ...], stones: int, completions: int,
                 emptiable: int) -> int | None:
    """Most clear points (streak included) of pieces with these zone caps, within
    ``completions`` zone completions and ``emptiable`` cells emptied; None where the
    budget does not apply (``event_costs``), or would cost more than ``EVENT_WORK`` to build.

    A table's entry depends only on entries of fewer completions and cells, so its corner up
    to what is asked holds the whole table's values there: where the whole table is too big,
    the corner is built instead."""
    costs = event_costs(variant, stones)
    if costs is None:
        return None
    caps = tuple(sorted(caps, reverse=True))
    c_max, e_max = events_limits(costs, caps)
    if len(caps) * (c_max + 1) * (e_max + 1) <= EVENT_WORK:
        table = _events_table(variant, caps, stones)
    else:
        c_max, e_max = min(c_max, completions), min(emptiable, e_max)
        if len(caps) * (c_max + 1) * (e_max + 1) > EVENT_WORK:
            return None
        table = _events_corner(variant, caps, stones, c_max, e_max)
    return int(table[min(completions, c_max), min(emptiable, e_max)])
