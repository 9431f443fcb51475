"""Admissible upper bounds on the clear points still reachable, for branch-and-bound.

Counting argument: a zone completes only once all its missing cells are
filled by placed cells, and a placed cell lies in at most ``k`` zones (a row
and a column; plus two regions in Sudoku). So the zones completed from here
have missing counts summing to at most ``k * cells to place``; a zone
completing again after a clear needs at least its non-stone cells once more.
Clears only ever raise missing counts, so today's counts are the cheapest.
The points for ``K`` completions spread over placements are largest when
concentrated (every variant's clear points are convex in the zone count),
so they fill the placements able to complete the most zones first.
"""

from __future__ import annotations

from functools import lru_cache

from .bitboard import Bitboard
from .pieces import get_piece, placements
from .variants import Variant


@lru_cache(maxsize=None)
def zones_per_piece(variant: Variant, piece_id: str) -> int:
    """The most zones one placement of the piece can touch (so complete at once)."""
    return max(sum(1 for z in variant.zones if z & spot.mask) for spot in placements(piece_id))


@lru_cache(maxsize=None)
def _zone_meta(variant: Variant, stones: Bitboard) -> tuple[tuple[Bitboard, ...], int, int]:
    zones = tuple(z for z in variant.zones if z & ~stones)
    per_cell = 4 if variant.regions else 2
    refill = min((z & ~stones).bit_count() for z in zones) if zones else 1
    return zones, per_cell, refill


def completions_bound(variant: Variant, filled: Bitboard, stones: Bitboard, cells: int) -> int:
    """Most zone completions possible while ``cells`` more cells are placed."""
    zones, per_cell, refill = _zone_meta(variant, stones)
    occupied = filled | stones
    budget = per_cell * cells
    costs = sorted((z & ~occupied).bit_count() for z in zones)
    count = 0
    for cost in costs:
        if cost > budget:
            break
        budget -= cost
        count += 1
    if count == len(costs):
        count += budget // refill
    return count


def clear_points_bound(
    variant: Variant,
    filled: Bitboard,
    stones: Bitboard,
    pieces: list[str] | tuple[str, ...],
    run: int,
    full_scan: bool = False,
) -> int:
    """Upper bound on the clear points (streak effects included) that placing ``pieces`` can add.

    ``full_scan``: the next placement also clears the zones already complete
    (a starting board may hold some), which need not touch the piece.
    Flow bonuses are not included; callers add them.
    """
    if not pieces:
        return 0
    cells = sum(get_piece(p).size for p in pieces)
    completions = completions_bound(variant, filled, stones, cells)
    if completions == 0:
        return 0
    caps = sorted((zones_per_piece(variant, p) for p in pieces), reverse=True)
    if full_scan:
        occupied = filled | stones
        caps[0] += sum(1 for z in variant.zones if occupied & z == z and z & ~stones)
    best_run = run + len(pieces)  # the largest streak any placement here can carry
    total = 0
    for cap in caps:
        if completions <= 0:
            break
        z = min(cap, completions)
        completions -= z
        if variant.regions:
            total += variant.clear_points(0, z, best_run)  # a lone region pays more than a lone line
        else:
            total += variant.clear_points(z, 0, best_run)
    return total
