"""Build a candidate level together with a line that solves it.

Forward simulation with carving: the trays are dealt first, then played on
a dense starting board. When a piece has no good spot, a hole of its shape
is carved where every cell is either empty or a tile untouched since the
start (never placed on, never cleared). Such a cell's row and column have never been
complete, so carving it changes nothing that already happened: the line
played so far stays legal and scores the same. The result is a starting
board, a tray sequence and a witness line, solvable by construction.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from solver.bitboard import BB_ALL, Bitboard
from solver.board import Board
from solver.deals import RandomDeals
from solver.engine import Game, completes_zone, has_complete_zone, settle
from solver.moves import Placement
from solver.pieces import placements
from solver.variants import Variant


@dataclass
class Construction:
    board: Board
    trays: list[list[str]]
    line: list[Placement]
    cleared_originals: list[Bitboard]  # per placement: starting tiles that placement cleared


def _random_cells(rng: random.Random, count: int, allowed: Bitboard) -> Bitboard:
    cells = [c for c in range(100) if allowed >> c & 1]
    mask = 0
    for c in rng.sample(cells, count):
        mask |= 1 << c
    return mask


def construct(
    variant: Variant,
    rng: random.Random,
    trays: int,
    stones: int,
    density: float,
    carve_chance: float = 0.35,
) -> Construction | None:
    """A dense board, ``trays`` trays from the supply and a winning line; None if the attempt fails."""
    stone_mask = _random_cells(rng, stones, BB_ALL)
    initial = 0
    for cell in range(100):
        if not stone_mask >> cell & 1 and rng.random() < density:
            initial |= 1 << cell
    # No zone may start complete: open one random cell in each.
    for zone in variant.zones:
        if (initial | stone_mask) & zone == zone and zone & ~stone_mask:
            initial &= ~_random_cells(rng, 1, zone & initial)
    deals = RandomDeals(variant, rng.randrange(1 << 31))
    tray_list = [deals.next_tray() for _ in range(trays)]

    filled = initial
    untouched = initial
    line: list[Placement] = []
    cleared_originals: list[Bitboard] = []
    for tray in tray_list:
        order = list(tray)
        rng.shuffle(order)
        for piece in order:
            occupied = filled | stone_mask
            fits = [s for s in placements(piece) if not s.mask & occupied]
            clearing = [s for s in fits if completes_zone(variant, occupied, s.mask)]
            # Carvable: every cell is empty now or an untouched starting tile.
            carvable = [s for s in placements(piece) if s.mask & occupied & ~untouched == 0
                        and s.mask & untouched]
            if clearing and rng.random() < 0.7:
                spot = rng.choice(clearing)
            elif carvable and (not fits or rng.random() < carve_chance):
                spot = rng.choice(carvable)
                carved = spot.mask & untouched
                initial &= ~carved
                filled &= ~carved
                untouched &= ~carved
            elif fits:
                spot = rng.choice(fits)
            else:
                return None
            after, _, _ = settle(variant, filled, stone_mask, spot.mask)
            cleared = (filled | spot.mask) & ~after
            cleared_originals.append(cleared & untouched)
            untouched &= ~(cleared | spot.mask)
            filled = after
            line.append(Placement(piece, spot.row, spot.col))
    board = Board(initial, stone_mask, 0)
    if has_complete_zone(variant, board.filled, board.stones):
        return None
    # The carving argument says the line replays as simulated; check it anyway.
    game = Game(variant, board, tray=None)
    for move in line:
        game.apply(move)
    if game.board.filled != filled:
        return None
    return Construction(board, [list(t) for t in tray_list], line, cleared_originals)
