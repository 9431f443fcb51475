"""A 10x10 board as a 100-bit int: bit ``row*10 + col`` is cell (row, col).

Same vocabulary as python-chess: ``Bitboard = int`` with named masks and
small helpers; every table here is computed once, at import.
"""

from __future__ import annotations

from collections.abc import Iterator

Bitboard = int
Cell = int

SIZE = 10
CELLS = SIZE * SIZE
BB_ALL: Bitboard = (1 << CELLS) - 1


def cell_index(row: int, col: int) -> Cell:
    return row * SIZE + col


def cell_row(cell: Cell) -> int:
    return cell // SIZE


def cell_col(cell: Cell) -> int:
    return cell % SIZE


def bb_cell(row: int, col: int) -> Bitboard:
    return 1 << cell_index(row, col)


BB_ROWS: tuple[Bitboard, ...] = tuple(
    sum(1 << cell_index(r, c) for c in range(SIZE)) for r in range(SIZE)
)
BB_COLS: tuple[Bitboard, ...] = tuple(
    sum(1 << cell_index(r, c) for r in range(SIZE)) for c in range(SIZE)
)


def scan_cells(bb: Bitboard) -> Iterator[Cell]:
    """Yield the set cells of ``bb`` in increasing index order."""
    while bb:
        low = bb & -bb
        yield low.bit_length() - 1
        bb ^= low


# Neighbour shifts that do not wrap around the board's edges.
_NOT_COL0 = BB_ALL & ~BB_COLS[0]
_NOT_COL9 = BB_ALL & ~BB_COLS[SIZE - 1]


def spread(bb: Bitboard) -> Bitboard:
    """Cells edge-adjacent to some cell of ``bb`` (may include ``bb``'s own cells)."""
    return (
        ((bb & _NOT_COL9) << 1)
        | ((bb & _NOT_COL0) >> 1)
        | (bb << SIZE)
        | (bb >> SIZE)
    ) & BB_ALL


def isolated_empty(occupied: Bitboard) -> int:
    """How many empty cells have no empty edge-neighbour."""
    empty = BB_ALL & ~occupied
    return (empty & ~spread(empty)).bit_count()
