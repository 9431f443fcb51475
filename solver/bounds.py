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
        costs = sorted((z & ~occupied).bit_count() for z in zones)
        done = 0
        for cost in costs:
            if cost > budget:
                break
            budget -= cost
            done += 1
        if done == len(costs):
            done += budget // refill
        count += done
    return count


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
    if full_scan:
        occupied = filled | stones
        caps[0] += sum(1 for z in variant.zones if occupied & z == z and z & ~stones)
    best_run = run + count  # the largest streak any placement here can carry
    most = len(variant.zones)  # one placement completes at most every zone
    total = 0
    for cap in caps:
        if completions <= 0:
            break
        z = min(cap, completions, most)
        completions -= z
        if variant.regions:
            total += variant.clear_points(0, z, best_run)  # a lone region pays more than a lone line
        else:
            total += variant.clear_points(z, 0, best_run)
    return total
