"""Seeded benchmark positions shared by the benchmark scripts (not by tests)."""

from __future__ import annotations

import random

from solver.bitboard import BB_COLS, BB_ROWS, bb_cell
from solver.board import Board
from solver.deals import RandomDeals
from solver.variants import Variant


def random_position(variant: Variant, rng: random.Random, stones: int = 0,
                    fill_range: tuple[float, float] = (0.0, 0.7)) -> tuple[Board, list[str]]:
    """A board 0-70% full (or as ``fill_range`` says), often with nearly complete lines, and a
    tray from the supply."""
    fill = rng.uniform(*fill_range)
    filled = 0
    for cell in range(100):
        if rng.random() < fill:
            filled |= 1 << cell
    for _ in range(rng.randrange(0, 4)):  # nearly complete lines: all but 1-3 cells
        zone = rng.choice(BB_ROWS + BB_COLS + variant.regions)
        filled |= zone
        for cell in rng.sample([c for c in range(100) if zone >> c & 1], rng.randint(1, 3)):
            filled &= ~(1 << cell)
    stone_mask = 0
    for cell in rng.sample(range(100), stones):
        stone_mask |= bb_cell(cell // 10, cell % 10)
    filled &= ~stone_mask
    deals = RandomDeals(variant, rng.randrange(1 << 30))
    return Board(filled, stone_mask, 0), [deals.next_piece() for _ in range(3)]
