"""Seeded test boards for the level searches: nearly complete zones, stones, pumpkins."""

from __future__ import annotations

import random

# a campaign mode per variant, for seeded levels
MODES = {"halloween": "campaign", "arabic": "standard", "sudoku": "campaign"}

# a Halloween board tight enough that the expert looks ahead on it (the expert tests)
TIGHT_BOARD = ("##....#..#/#.....#..#/.#.#..####/.#########/##......../"
               "........../.#.##.#.##/....#.#.../#..##.##.#/#..##..###")

def board_rows(empty, fill: str = "#") -> list[str]:
    """A level's board rows: the (row, col) cells in ``empty`` empty, every other ``fill``."""
    return ["".join("." if (r, c) in empty else fill for c in range(10)) for r in range(10)]


# a board where only column 9 (and the corner cell 0, 0) is free: a 1x5 fits only turned into a 5x1
COLUMN_9_FREE = ".########./" + "/".join(["#########."] * 9)


def dress(rng: random.Random, variant, grid: list[list[str]], zones: tuple[int, int],
          stones: tuple[int, ...], pumpkins: tuple[int, ...]) -> int:
    """Mark ``rng.randrange(*zones)`` zones nearly complete (0-3 gaps), drop a count of stones
    drawn from ``stones`` and of pumpkins drawn from ``pumpkins``; returns the pumpkin count."""
    for _ in range(rng.randrange(*zones)):
        zone = rng.choice(variant.zones)
        cells = [c for c in range(100) if zone >> c & 1]
        gaps = set(rng.sample(cells, rng.choice((0, 1, 1, 2, 2, 3))))
        for c in cells:
            grid[c // 10][c % 10] = "." if c in gaps else "#"
    for _ in range(rng.choice(stones)):
        grid[rng.randrange(10)][rng.randrange(10)] = "S"
    tiles = [(r, c) for r in range(10) for c in range(10) if grid[r][c] == "#"]
    n_pumpkins = rng.choice(pumpkins)
    for r, c in rng.sample(tiles, min(n_pumpkins, len(tiles))):
        grid[r][c] = "P"
    return n_pumpkins


def random_goals(rng: random.Random, pumpkins: int, pumpkin_goal: float, place_all: float = 0.2) -> list[dict]:
    """A level's goals: clear every pumpkin (with chance ``pumpkin_goal`` when there are any),
    place every piece (with chance ``place_all``), and a score, always last."""
    goals: list[dict] = []
    if pumpkins and rng.random() < pumpkin_goal:
        goals.append({"pumpkins": True})
    if rng.random() < place_all:
        goals.append({"place_all": True})
    goals.append({"score": rng.choice((1, 20, 50, 150, 400))})
    return goals
