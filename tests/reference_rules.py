"""A deliberately naive second reading of RULES.md §1, for checking the engine.

Nothing here is imported from ``solver/``: shapes, zones, supply weights and
scoring are typed again from RULES.md, the board is a 10x10 list of lists of
characters, and every check is a plain loop. Slow and obvious on purpose.

Readings RULES.md leaves to us (the same ones the project's docs choose):
- a zone made only of stones has nothing to clear and is not counted;
- a zone already complete on the starting board is cleared (and counted) by
  the first placement, since "after every placement, every zone that is
  completely filled is cleared";
- a carried-in streak s > 0 means the placement just before the first move
  cleared, and it belonged to the previous turn, so that turn cleared.
"""

from __future__ import annotations

from functools import lru_cache

N = 10

# RULES.md §1 "Pieces", typed from the table.
SHAPES: dict[str, list[str]] = {
    "1x1": ["#"],
    "1x2": ["##"],
    "1x3": ["###"],
    "1x4": ["####"],
    "1x5": ["#####"],
    "2x1": ["#", "#"],
    "3x1": ["#", "#", "#"],
    "4x1": ["#", "#", "#", "#"],
    "5x1": ["#", "#", "#", "#", "#"],
    "2x2": ["##", "##"],
    "2x3": ["###", "###"],
    "3x2": ["##", "##", "##"],
    "3x3": ["###", "###", "###"],
    "X5": [".#.", "###", ".#."],
    "L3-nw": ["##", "#."],
    "L3-ne": ["##", ".#"],
    "L3-sw": ["#.", "##"],
    "L3-se": [".#", "##"],
    "L5-nw": ["###", "#..", "#.."],
    "L5-ne": ["###", "..#", "..#"],
    "L5-sw": ["#..", "#..", "###"],
    "L5-se": ["..#", "..#", "###"],
    "T4-n": [".#.", "###"],
    "T4-s": ["###", ".#."],
    "T4-e": ["#.", "##", "#."],
    "T4-w": [".#", "##", ".#"],
}

# RULES.md §1, the supply of each variant: (weight, shapes).
L_ALL = ["L3-nw", "L3-ne", "L3-sw", "L3-se", "L5-nw", "L5-ne", "L5-sw", "L5-se"]
T_ALL = ["T4-n", "T4-e", "T4-s", "T4-w"]
HALLOWEEN_SHAPES = (
    ["1x1", "1x2", "2x1", "1x3", "3x1", "1x4", "4x1", "1x5", "5x1", "2x2", "3x3"]
    + L_ALL + T_ALL + ["X5"]
)
SUPPLY: dict[str, list[tuple[int, list[str]]]] = {
    # "uniform over shapes": every shape the same weight
    "halloween": [(1, [s]) for s in HALLOWEEN_SHAPES],
    "arabic": [
        (30, ["2x1", "3x1", "4x1", "5x1"]),
        (30, L_ALL + T_ALL),
        (30, ["1x2", "1x3", "1x4", "1x5", "2x3"]),
        (20, ["2x2", "3x3"]),
        (10, ["1x1"]),
    ],
    "sudoku": [
        (30, ["1x1", "1x2", "2x1"]),
        (30, ["1x3", "3x1", "1x4", "4x1", "1x5", "5x1"]),
        (30, list(L_ALL)),
        (30, ["2x2", "2x3", "3x2", "3x3"]),
    ],
}


def shape_probabilities(variant: str) -> dict[str, float]:
    """Chance of each shape in one random draw: group by weight, then uniform inside."""
    groups = SUPPLY[variant]
    total = sum(w for w, _ in groups)
    probs: dict[str, float] = {}
    for weight, shapes in groups:
        for s in shapes:
            probs[s] = probs.get(s, 0.0) + weight / total / len(shapes)
    return probs


def piece_rows(piece: str) -> list[str]:
    """Rows of a canonical id, or of a custom '#'/'.' mask such as '#./##'."""
    if piece in SHAPES:
        return SHAPES[piece]
    rows = piece.split("/")
    if not rows or any(len(r) != len(rows[0]) for r in rows) or set(piece) - set("#./"):
        raise ValueError(f"bad piece {piece!r}")
    return rows


@lru_cache(maxsize=None)
def piece_cells(piece: str) -> tuple[tuple[int, int], ...]:
    rows = piece_rows(piece)
    cells = [(r, c) for r in range(len(rows)) for c in range(len(rows[r])) if rows[r][c] == "#"]
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return tuple(sorted((r - r0, c - c0) for r, c in cells))


def rotate_id(piece: str, turns: int) -> str:
    """The canonical id of the piece after ``turns`` clockwise quarter turns, by brute force."""
    cells = list(piece_cells(piece))
    for _ in range(turns % 4):
        height = max(r for r, _ in cells) + 1
        # clockwise: the left column becomes the top row
        cells = [(c, height - 1 - r) for r, c in cells]
        r0 = min(r for r, _ in cells)
        c0 = min(c for _, c in cells)
        cells = sorted((r - r0, c - c0) for r, c in cells)
    for pid in SHAPES:
        if list(piece_cells(pid)) == cells:
            return pid
    height = max(r for r, _ in cells) + 1
    width = max(c for _, c in cells) + 1
    return "/".join(
        "".join("#" if (r, c) in cells else "." for c in range(width)) for r in range(height)
    )


def zones(variant: str) -> list[tuple[str, list[tuple[int, int]]]]:
    """(kind, cells) for every zone: 'line' for rows and columns, 'region' for Sudoku boxes."""
    out = []
    for r in range(N):
        out.append(("line", [(r, c) for c in range(N)]))
    for c in range(N):
        out.append(("line", [(r, c) for r in range(N)]))
    if variant == "sudoku":
        # ten 2x5 boxes
        for k in range(5):
            for c0 in (0, 5):
                out.append(("region", [(2 * k + dr, c0 + dc) for dr in range(2) for dc in range(5)]))
        # ten 5x2 boxes
        for r0 in (0, 5):
            for k in range(5):
                out.append(("region", [(r0 + dr, 2 * k + dc) for dr in range(5) for dc in range(2)]))
    return out


def parse_grid(text: str) -> list[list[str]]:
    rows = text.split("/") if "/" in text else text.strip().splitlines()
    assert len(rows) == N and all(len(r) == N for r in rows), text
    assert all(ch in ".#SP" for r in rows for ch in r), text
    return [list(r) for r in rows]


def grid_text(grid: list[list[str]]) -> str:
    return "/".join("".join(row) for row in grid)


def fits(grid, piece: str, row: int, col: int) -> bool:
    for dr, dc in piece_cells(piece):
        r, c = row + dr, col + dc
        if not (0 <= r < N and 0 <= c < N) or grid[r][c] != ".":
            return False
    return True


def fitting_spots(grid, piece: str) -> list[tuple[int, int]]:
    return [(r, c) for r in range(N) for c in range(N) if fits(grid, piece, r, c)]


def clear_points(variant: str, lines: int, regions: int, run: int) -> int:
    n = lines + regions
    if n == 0:
        return 0
    if variant == "halloween":
        triangular = {1: 10, 2: 30, 3: 60, 4: 100, 5: 150, 6: 210}.get(n, 10 * n * (n + 1) // 2)
        return triangular + (5 if run > 0 else 0)
    if variant == "arabic":
        return {1: 100, 2: 300, 3: 600}.get(n, 1200)
    if variant == "sudoku":
        if n == 1:
            base = 150 if regions == 1 else 100
        else:
            base = 100 * n * n
        # x(1 + 0.5*s), rounded down; done in halves to stay exact
        return (base * (2 + run)) // 2
    raise ValueError(variant)


CELL_POINTS = {"halloween": 1, "arabic": 1, "sudoku": 10}
TOKEN_BONUS = {"halloween": 0, "arabic": 100, "sudoku": 200}
# Arabic's flow streak: at the end of a turn that cleared, when the turn before did too
FLOW_BONUS = {"arabic": 50}


class RefGame:
    """A free replay (no tray): a turn ends after every 3 placements."""

    def __init__(self, variant: str, board: str, streak: int = 0):
        self.variant = variant
        self.grid = parse_grid(board)
        self.run = streak
        self.prev_turn_cleared = streak > 0
        self.turn_cleared = False
        self.in_turn = 0
        self.score = 0
        self.zones = zones(variant)
        self.last_cleared: list = []

    def place(self, piece: str, row: int, col: int) -> int:
        """Put the piece down, clear, score; returns this move's points (flow bonus included).
        ``last_cleared``: the zones (cell lists) it cleared."""
        if not fits(self.grid, piece, row, col):
            raise ValueError(f"{piece} does not fit at {row},{col}")
        cells = piece_cells(piece)
        for dr, dc in cells:
            self.grid[row + dr][col + dc] = "#"
        lines = regions = 0
        to_clear = set()
        self.last_cleared = []
        grid = self.grid
        for kind, zone in self.zones:
            for r, c in zone:  # (a plain loop: this is most of the brute force's time)
                if grid[r][c] == ".":
                    break
            else:  # the zone is full
                if all(grid[r][c] == "S" for r, c in zone):  # stones alone never clear
                    continue
                if kind == "line":
                    lines += 1
                else:
                    regions += 1
                self.last_cleared.append(zone)
                for r, c in zone:
                    if grid[r][c] != "S":
                        to_clear.add((r, c))
        for r, c in to_clear:
            grid[r][c] = "."
        cleared = lines + regions > 0
        points = len(cells) * CELL_POINTS[self.variant] + clear_points(
            self.variant, lines, regions, self.run
        )
        self.run = self.run + 1 if cleared else 0
        self.turn_cleared = self.turn_cleared or cleared
        self.in_turn += 1
        self.score += points
        if self.in_turn == 3:
            points += self.end_turn()
        return points

    def end_turn(self) -> int:
        """End the turn (by itself after 3 placements; a replay's turn of fewer ends here):
        its flow bonus, added to the score."""
        bonus = FLOW_BONUS.get(self.variant, 0) if self.turn_cleared and self.prev_turn_cleared else 0
        self.prev_turn_cleared = self.turn_cleared
        self.turn_cleared = False
        self.in_turn = 0
        self.score += bonus
        return bonus

    @property
    def text(self) -> str:
        return grid_text(self.grid)
