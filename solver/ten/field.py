"""The Ten field as a mutable grid for search: tiles, the frontier, runs, cut tiles, and symmetric keys.

A cell is an int ``gy * STRIDE + gx`` on a 256x256 grid; a position's field is
translated so that it sits in the middle, which leaves room for more than a
hundred plies of drift in the second round. A tile is a code
``colour << 2 | value`` (white 1..3, black 5..7); 0 is an empty cell.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from solver.errors import RulesError
from solver.ten.position import WIN_SUM, Colour, Coord, TenPosition

Cell = int
TileCode = int

STRIDE = 256
CENTRE = 128
EMPTY: TileCode = 0
EDGE_STEPS = (1, -1, STRIDE, -STRIDE)
LINE_STEPS = (1, STRIDE, STRIDE + 1, STRIDE - 1)  # east, south, south-east, south-west


def tile_code(colour: Colour, value: int) -> TileCode:
    return colour << 2 | value


def cell_of(gx: int, gy: int) -> Cell:
    return gy * STRIDE + gx


# --- keys: a polynomial hash per symmetry, so translation is a multiplication ---

_HASH_MOD = (1 << 61) - 1
_rng = random.Random(0x7E4)
_HASH_A = _rng.randrange(2, _HASH_MOD)
_HASH_B = _rng.randrange(2, _HASH_MOD)
_TILE_KEYS = tuple(_rng.randrange(1, _HASH_MOD) for _ in range(8))
_POW_A = [pow(_HASH_A, i, _HASH_MOD) for i in range(STRIDE)]
_POW_B = [pow(_HASH_B, i, _HASH_MOD) for i in range(STRIDE)]
_INV_A = [pow(_HASH_A, -i, _HASH_MOD) for i in range(STRIDE)]
_INV_B = [pow(_HASH_B, -i, _HASH_MOD) for i in range(STRIDE)]
_LAST = STRIDE - 1


def symmetric_coords(gx: int, gy: int) -> tuple[tuple[int, int], ...]:
    """The cell's image under the 8 symmetries of the square grid (identity first)."""
    rx, ry = _LAST - gx, _LAST - gy
    return ((gx, gy), (rx, gy), (gx, ry), (rx, ry), (gy, gx), (ry, gx), (gy, rx), (ry, rx))


_multipliers: dict[Cell, tuple[int, ...]] = {}


def _cell_multipliers(cell: Cell) -> tuple[int, ...]:
    found = _multipliers.get(cell)
    if found is None:
        gy, gx = divmod(cell, STRIDE)
        found = tuple(_POW_A[x] * _POW_B[y] % _HASH_MOD for x, y in symmetric_coords(gx, gy))
        _multipliers[cell] = found
    return found


# --- cut tiles ---

def articulation_cells(cells: Iterable[Cell]) -> set[Cell]:
    """Tiles whose removal splits the edge-connected field (Tarjan's low-link, iterative)."""
    cells = set(cells)
    if len(cells) <= 2:
        return set()
    root = min(cells)
    disc = {root: 0}
    low = {root: 0}
    cuts: set[Cell] = set()
    root_children = 0
    counter = 1
    stack = [(root, -1, iter([root + s for s in EDGE_STEPS if root + s in cells]))]
    while stack:
        v, parent, neighbours = stack[-1]
        for w in neighbours:
            if w == parent:
                continue
            if w in disc:
                if disc[w] < low[v]:
                    low[v] = disc[w]
            else:
                disc[w] = low[w] = counter
                counter += 1
                stack.append((w, v, iter([w + s for s in EDGE_STEPS if w + s in cells])))
                break
        else:
            stack.pop()
            if stack:
                u = stack[-1][0]
                if low[v] < low[u]:
                    low[u] = low[v]
                if u == root:
                    root_children += 1
                elif low[v] >= disc[u]:
                    cuts.add(u)
    if root_children > 1:
        cuts.add(root)
    return cuts


def coord_articulation_points(coords: Iterable[Coord]) -> set[Coord]:
    """``articulation_cells`` for ``(x, y)`` coordinates (any range)."""
    coords = list(coords)
    if not coords:
        return set()
    ox = CENTRE - min(x for x, _ in coords)
    oy = CENTRE - min(y for _, y in coords)
    if max(x for x, _ in coords) + ox >= STRIDE or max(y for _, y in coords) + oy >= STRIDE:
        raise RulesError("field is too wide for the grid")
    back = {cell_of(x + ox, y + oy): (x, y) for x, y in coords}
    return {back[c] for c in articulation_cells(back)}


class Field:
    """Tiles on the grid with their frontier (empty cells sharing an edge with a tile) and keys."""

    __slots__ = ("board", "tiles", "frontier", "adjacent", "hashes", "ox", "oy",
                 "col_count", "row_count", "minx", "maxx", "miny", "maxy")

    def __init__(self, ox: int = CENTRE, oy: int = CENTRE) -> None:
        self.board = [EMPTY] * (STRIDE * STRIDE)
        self.adjacent = [0] * (STRIDE * STRIDE)  # occupied edge neighbours of each cell
        self.tiles: dict[Cell, TileCode] = {}
        self.frontier: set[Cell] = set()
        self.hashes = [0] * 8
        self.ox, self.oy = ox, oy  # grid = position coordinate + offset
        self.col_count = [0] * STRIDE
        self.row_count = [0] * STRIDE
        self.minx = self.miny = STRIDE
        self.maxx = self.maxy = -1

    @classmethod
    def from_position(cls, position: TenPosition) -> "Field":
        tiles = position.tiles
        if tiles:
            xs = [x for x, _ in tiles]
            ys = [y for _, y in tiles]
            ox = CENTRE - (min(xs) + max(xs)) // 2
            oy = CENTRE - (min(ys) + max(ys)) // 2
        else:
            ox = oy = CENTRE
        field = cls(ox, oy)
        for (x, y), (colour, value) in tiles.items():
            field.place(field.cell(x, y), tile_code(colour, value))
        return field

    def cell(self, x: int, y: int) -> Cell:
        gx, gy = x + self.ox, y + self.oy
        if not (1 <= gx < STRIDE - 1 and 1 <= gy < STRIDE - 1):
            raise RulesError(f"cell ({x}, {y}) is too far from the field's centre for the search grid")
        return cell_of(gx, gy)

    def coord(self, cell: Cell) -> Coord:
        gy, gx = divmod(cell, STRIDE)
        return gx - self.ox, gy - self.oy

    # --- changes ---

    def place(self, cell: Cell, code: TileCode) -> None:
        gy, gx = divmod(cell, STRIDE)
        if gy < 1 or gy >= STRIDE - 1 or gx < 1 or gx >= STRIDE - 1:
            raise RulesError("the field drifted off the search grid")
        board = self.board
        adjacent = self.adjacent
        frontier = self.frontier
        board[cell] = code
        self.tiles[cell] = code
        frontier.discard(cell)
        for step in EDGE_STEPS:
            n = cell + step
            adjacent[n] += 1
            if board[n] == EMPTY:
                frontier.add(n)
        key = _TILE_KEYS[code]
        hashes = self.hashes
        for s, m in enumerate(_cell_multipliers(cell)):
            hashes[s] = (hashes[s] + key * m) % _HASH_MOD
        self.col_count[gx] += 1
        self.row_count[gy] += 1
        if gx < self.minx:
            self.minx = gx
        if gx > self.maxx:
            self.maxx = gx
        if gy < self.miny:
            self.miny = gy
        if gy > self.maxy:
            self.maxy = gy

    def lift(self, cell: Cell) -> TileCode:
        board = self.board
        adjacent = self.adjacent
        frontier = self.frontier
        code = board[cell]
        board[cell] = EMPTY
        del self.tiles[cell]
        for step in EDGE_STEPS:
            n = cell + step
            adjacent[n] -= 1
            if adjacent[n] == 0 and board[n] == EMPTY:
                frontier.discard(n)
        if adjacent[cell]:
            frontier.add(cell)
        key = _TILE_KEYS[code]
        hashes = self.hashes
        for s, m in enumerate(_cell_multipliers(cell)):
            hashes[s] = (hashes[s] - key * m) % _HASH_MOD
        gy, gx = divmod(cell, STRIDE)
        self.col_count[gx] -= 1
        self.row_count[gy] -= 1
        if not self.tiles:
            self.minx = self.miny = STRIDE
            self.maxx = self.maxy = -1
            return code
        while self.col_count[self.minx] == 0:
            self.minx += 1
        while self.col_count[self.maxx] == 0:
            self.maxx -= 1
        while self.row_count[self.miny] == 0:
            self.miny += 1
        while self.row_count[self.maxy] == 0:
            self.maxy -= 1
        return code

    # --- keys ---

    def canonical_key(self) -> tuple[int, int]:
        """(key, symmetry): the same for every translation, rotation and reflection of the field."""
        if not self.tiles:
            return 0, 0
        h = self.hashes
        lo_x, hi_x, lo_y, hi_y = self.minx, _LAST - self.maxx, self.miny, _LAST - self.maxy
        shifts = ((lo_x, lo_y), (hi_x, lo_y), (lo_x, hi_y), (hi_x, hi_y),
                  (lo_y, lo_x), (hi_y, lo_x), (lo_y, hi_x), (hi_y, hi_x))
        best = None
        best_s = 0
        for s in range(8):
            sx, sy = shifts[s]
            k = h[s] * _INV_A[sx] % _HASH_MOD * _INV_B[sy] % _HASH_MOD
            if best is None or k < best:
                best, best_s = k, s
        return best, best_s

    def translation_key(self) -> int:
        """A key equal for translated copies of the field (not for rotations): repetition counting."""
        if not self.tiles:
            return 0
        return self.hashes[0] * _INV_A[self.minx] % _HASH_MOD * _INV_B[self.miny] % _HASH_MOD

    def to_canonical(self, cell: Cell, symmetry: int) -> tuple[int, int]:
        """A cell in the canonical frame of ``canonical_key``'s symmetry."""
        gy, gx = divmod(cell, STRIDE)
        x, y = symmetric_coords(gx, gy)[symmetry]
        ox, oy = self._canonical_origin(symmetry)
        return x - ox, y - oy

    def from_canonical(self, xy: tuple[int, int], symmetry: int) -> Cell:
        ox, oy = self._canonical_origin(symmetry)
        x, y = xy[0] + ox, xy[1] + oy
        # every symmetry is an involution except the two quarter turns, which swap
        inverse = {5: 6, 6: 5}.get(symmetry, symmetry)
        gx, gy = symmetric_coords(x, y)[inverse]
        return cell_of(gx, gy)

    def _canonical_origin(self, s: int) -> tuple[int, int]:
        lo_x, hi_x, lo_y, hi_y = self.minx, _LAST - self.maxx, self.miny, _LAST - self.maxy
        return ((lo_x, lo_y), (hi_x, lo_y), (lo_x, hi_y), (hi_x, hi_y),
                (lo_y, lo_x), (hi_y, lo_x), (lo_y, hi_x), (hi_y, hi_x))[s]

    # --- runs ---

    def run_sum(self, cell: Cell, step: int, colour: Colour) -> int:
        """Sum of the colour's tiles contiguous from ``cell + step`` onwards (stops early past 10)."""
        board = self.board
        total = 0
        n = cell + step
        code = board[n]
        while code and code >> 2 == colour:
            total += code & 3
            if total > WIN_SUM:
                break
            n += step
            code = board[n]
        return total

    def run_cells(self, cell: Cell, step: int) -> list[Cell]:
        """The maximal run through an occupied ``cell`` along ``step``, in order."""
        colour = self.board[cell] >> 2
        board = self.board
        start = cell
        while board[start - step] and board[start - step] >> 2 == colour:
            start -= step
        cells = []
        n = start
        while board[n] and board[n] >> 2 == colour:
            cells.append(n)
            n += step
        return cells

    def placing_wins(self, cell: Cell, colour: Colour, value: int) -> bool:
        """Would ``value`` of ``colour`` on the empty ``cell`` complete a maximal run of exactly 10?"""
        need = WIN_SUM - value
        for step in LINE_STEPS:
            if self.run_sum(cell, step, colour) + self.run_sum(cell, -step, colour) == need:
                return True
        return False

    def winning_values(self, cell: Cell, colour: Colour) -> int:
        """Bit ``v`` set when value ``v`` of ``colour`` on the empty ``cell`` would make a run of 10."""
        mask = 0
        for step in LINE_STEPS:
            need = WIN_SUM - self.run_sum(cell, step, colour) - self.run_sum(cell, -step, colour)
            if 1 <= need <= 3:
                mask |= 1 << need
        return mask

    def has_ten_through(self, cell: Cell) -> bool:
        """Does the occupied ``cell`` lie on a maximal run of its colour summing to exactly 10?"""
        code = self.board[cell]
        colour = code >> 2
        need = WIN_SUM - (code & 3)
        for step in LINE_STEPS:
            if self.run_sum(cell, step, colour) + self.run_sum(cell, -step, colour) == need:
                return True
        return False

    def ten_runs(self, colour: Colour) -> list[list[Cell]]:
        """Every maximal run of ``colour`` summing to exactly 10."""
        runs = []
        for cell, code in self.tiles.items():
            if code >> 2 != colour:
                continue
            for step in LINE_STEPS:
                back = self.board[cell - step]
                if back and back >> 2 == colour:
                    continue  # not the start of its run
                run = self.run_cells(cell, step)
                if sum(self.board[c] & 3 for c in run) == WIN_SUM:
                    runs.append(run)
        return runs

    def relocation_wins(self, origin: Cell, target: Cell) -> bool:
        """After a tile moved from ``origin`` to ``target``: does its colour now have a run of 10?

        The new run through ``target`` and the runs split where the tile left are the only ones
        that changed.
        """
        if self.has_ten_through(target):
            return True
        board = self.board
        colour = board[target] >> 2
        for step in LINE_STEPS:
            for n in (origin + step, origin - step):
                code = board[n]
                if code and code >> 2 == colour and n != target:
                    need = WIN_SUM - (code & 3)
                    if self.run_sum(n, step, colour) + self.run_sum(n, -step, colour) == need:
                        return True
        return False

    # --- the second round ---

    def movable_tiles(self, colour: Colour) -> list[Cell]:
        """The colour's tiles with a free side whose lifting keeps the rest of the field connected."""
        if len(self.tiles) < 2:
            return []
        cuts = articulation_cells(self.tiles)
        adjacent = self.adjacent
        return sorted(c for c, code in self.tiles.items()
                      if code >> 2 == colour and adjacent[c] < 4 and c not in cuts)

    def relocations(self, colour: Colour) -> tuple[tuple[Cell, Cell, TileCode] | None, list]:
        """The colour's second-round moves (origin, target, code), and the first that wins at once.

        Stops at the first winning move: (that move, the moves seen so far). The field is left
        as it was.
        """
        moves = []
        for origin in self.movable_tiles(colour):
            code = self.lift(origin)
            for target in sorted(self.frontier - {origin}):
                self.place(target, code)
                won = self.relocation_wins(origin, target)
                self.lift(target)
                if won:
                    self.place(origin, code)
                    return (origin, target, code), moves
                moves.append((origin, target, code))
            self.place(origin, code)
        return None, moves

    def relocation_targets(self, origin: Cell) -> list[Cell]:
        """Empty cells sharing an edge with the field once ``origin`` is lifted (not ``origin`` itself)."""
        code = self.lift(origin)
        targets = sorted(self.frontier - {origin})
        self.place(origin, code)
        return targets
