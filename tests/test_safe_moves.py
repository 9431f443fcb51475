"""Safe first moves (``tray``, ``hint``, ``POST /hint``: ``safe_moves``) against a brute force on
the reference rules (``reference_rules``, no code shared with ``solver/``).

A first move is safe when, after it (and its clears), the rest of the tray can still be placed
in some order. Seeded boards in every variant, half to nearly full, stones, zones one cell short
and zones already complete (the first placement clears them), trays of two or three pieces from
the variant's supply: the set of safe moves must be exactly the brute force's.
"""

from __future__ import annotations

import random

import pytest

import reference_rules as ref
from solver.board import parse_board
from solver.engine import Streak
from solver.tray import TraySearch
from solver.variants import find_variant

CASES = 900


def after(variant: str, grid, piece: str, row: int, col: int):
    """The grid after placing ``piece`` and clearing every complete zone."""
    game = ref.RefGame(variant, ref.grid_text(grid))
    game.place(piece, row, col)
    return game.grid


def can_place_all(variant: str, grid, pieces: list[str]) -> bool:
    if not pieces:
        return True
    return any(can_place_all(variant, after(variant, grid, piece, r, c), pieces[:i] + pieces[i + 1:])
               for i, piece in enumerate(pieces) for r, c in ref.fitting_spots(grid, piece))


def reference_safe_moves(variant: str, grid, pieces: list[str]) -> set[tuple[str, int, int]]:
    return {(piece, r, c) for i, piece in enumerate(pieces) for r, c in ref.fitting_spots(grid, piece)
            if can_place_all(variant, after(variant, grid, piece, r, c), pieces[:i] + pieces[i + 1:])}


def position(seed: int):
    rng = random.Random(f"safe-{seed}")
    variant = ("halloween", "arabic", "sudoku")[seed % 3]
    fill = rng.uniform(0.55, 0.85)
    grid = [["#" if rng.random() < fill else "." for _ in range(10)] for _ in range(10)]
    for _ in range(rng.choice((0, 0, 4))):
        grid[rng.randrange(10)][rng.randrange(10)] = "S"
    if rng.random() < 0.3:  # a zone filled: complete, or one cell short
        _, zone = rng.choice(ref.zones(variant))
        for r, c in zone:
            if grid[r][c] == ".":
                grid[r][c] = "#"
        if rng.random() < 0.7:
            r, c = rng.choice(zone)
            if grid[r][c] != "S":
                grid[r][c] = "."
    supply = list(ref.shape_probabilities(variant))
    return variant, grid, [rng.choice(supply) for _ in range(rng.choice((2, 3)))]


@pytest.mark.parametrize("chunk", range(3))
def test_safe_moves_are_the_brute_forces(chunk):
    some = none = 0
    for seed in range(chunk, CASES, 3):
        variant, grid, pieces = position(seed)
        text = ref.grid_text(grid)
        expected = reference_safe_moves(variant, grid, pieces)
        search = TraySearch(find_variant(variant), parse_board(text), Streak())
        got = {(m.piece, m.row, m.col) for m in search.safe_moves(pieces)}
        assert got == expected, (variant, text, pieces, sorted(expected ^ got)[:5])
        some += bool(expected) and any(ref.fitting_spots(grid, p) and
                                       not {(p, r, c) for r, c in ref.fitting_spots(grid, p)} <= expected
                                       for p in pieces)
        none += not expected and any(ref.fitting_spots(grid, p) for p in pieces)
    assert some >= 30 and none >= 20, (some, none)  # some fitting moves unsafe; all of them
