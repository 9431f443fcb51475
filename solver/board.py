"""A board position and its text form (RULES.md §1, "Board and coordinates").

``filled`` holds ordinary tiles and pumpkins, ``stones`` the permanent
stones/tombstones, ``pumpkins`` the subset of ``filled`` that are pumpkins.
"""

from __future__ import annotations

from dataclasses import dataclass

from .bitboard import SIZE, Bitboard, bb_cell
from .errors import FormatError, clipped
from .jsontext import json_kind

EMPTY, TILE, STONE, PUMPKIN = ".", "#", "S", "P"


@dataclass(frozen=True)
class Board:
    filled: Bitboard = 0
    stones: Bitboard = 0
    pumpkins: Bitboard = 0

    @property
    def occupied(self) -> Bitboard:
        return self.filled | self.stones

    def char_at(self, row: int, col: int) -> str:
        bit = bb_cell(row, col)
        if self.stones & bit:
            return STONE
        if self.pumpkins & bit:
            return PUMPKIN
        if self.filled & bit:
            return TILE
        return EMPTY

    def rows(self) -> list[str]:
        """Each row's text, as ``char_at`` spells its cells (a tile or empty a row at a time,
        then the few stones and pumpkins: a big pack's writing spent much of its time here)."""
        out = []
        for r in range(SIZE):
            shift = r * SIZE
            chars = list(format((self.filled >> shift) & _ROW, "010b")[::-1].translate(_TILES))
            for mask, char in ((self.pumpkins, PUMPKIN), (self.stones, STONE)):
                bits = (mask >> shift) & _ROW
                while bits:
                    low = bits & -bits
                    chars[low.bit_length() - 1] = char
                    bits ^= low
            out.append("".join(chars))
        return out

    def text(self) -> str:
        """One-line board text, rows separated by ``/``."""
        return "/".join(self.rows())

    def __str__(self) -> str:
        return "\n".join(self.rows())


def parse_board(text: str | list[str], field: str = "board") -> Board:
    """Board text: 10 rows of 10 characters, separated by newlines or ``/``, or a list of rows."""
    if isinstance(text, list):
        rows = text
        for i, row in enumerate(rows):
            if not isinstance(row, str):
                raise FormatError(f"{field}: row {i}: expected a string of {SIZE} characters, "
                                  f"got {json_kind(row)}")
    elif isinstance(text, str):
        if "/" in text:
            rows = text.strip().split("/")
        else:  # a file's blank lines around the board, and spaces an editor left at a line's end, are
            # passed over; any other character (a space or tab before a row included) is named
            rows = [r.rstrip() for r in text.splitlines()]
            while rows and not rows[-1]:
                rows.pop()
            while rows and not rows[0]:
                rows.pop(0)
    else:
        raise FormatError(f"{field}: expected board text or a list of 10 rows, got {json_kind(text)}")
    if len(rows) != SIZE:
        raise FormatError(f"{field}: expected {SIZE} rows, found {len(rows)}")
    filled = stones = pumpkins = 0
    for r, row in enumerate(rows):
        if len(row) != SIZE:
            raise FormatError(f"{field}: row {r}: expected {SIZE} characters, found {len(row)} ({clipped(repr(row))})")
        if not _BOARD_CHARS.issuperset(row):
            c, ch = next((c, ch) for c, ch in enumerate(row) if ch not in _BOARD_CHARS)
            raise FormatError(f"{field}: row {r}, column {c}: unknown character {ch!r} (expected one of . # S P)")
        # a row's cells as bits, column 0 the lowest: the row reversed, each kind of cell a 1
        shift = r * SIZE
        filled |= int(row[::-1].translate(_FILLED_BITS), 2) << shift
        stones |= int(row[::-1].translate(_STONE_BITS), 2) << shift
        pumpkins |= int(row[::-1].translate(_PUMPKIN_BITS), 2) << shift
    return Board(filled, stones, pumpkins)


_ROW = (1 << SIZE) - 1
_BOARD_CHARS = frozenset(EMPTY + TILE + STONE + PUMPKIN)
_TILES = str.maketrans("01", EMPTY + TILE)
_FILLED_BITS = str.maketrans({EMPTY: "0", TILE: "1", STONE: "0", PUMPKIN: "1"})
_STONE_BITS = str.maketrans({EMPTY: "0", TILE: "0", STONE: "1", PUMPKIN: "0"})
_PUMPKIN_BITS = str.maketrans({EMPTY: "0", TILE: "0", STONE: "0", PUMPKIN: "1"})
