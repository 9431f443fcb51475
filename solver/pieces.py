"""The one table of pieces (RULES.md §1), their rotations and placements.

A piece is a set of cells relative to the top-left corner of its bounding
box. Canonical pieces have ids like ``L5-sw``; a level may define its own as
a ``#``/``.`` mask with ``/`` between rows, and such a piece's id is its
mask text.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .bitboard import SIZE, Bitboard, bb_cell
from .errors import RulesError, TenfoldError, clipped
from .jsontext import json_value

# id -> mask text, rows separated by "/". The only place shapes are written (but for the
# expert's hand-written fit tests of the hardest ones: solver/evaluate.py HARD_PIECES).
_SHAPES: dict[str, str] = {
    "1x1": "#",
    "1x2": "##",
    "1x3": "###",
    "1x4": "####",
    "1x5": "#####",
    "2x1": "#/#",
    "3x1": "#/#/#",
    "4x1": "#/#/#/#",
    "5x1": "#/#/#/#/#",
    "2x2": "##/##",
    "2x3": "###/###",
    "3x2": "##/##/##",
    "3x3": "###/###/###",
    "X5": ".#./###/.#.",
    "L3-nw": "##/#.",
    "L3-ne": "##/.#",
    "L3-sw": "#./##",
    "L3-se": ".#/##",
    "L5-nw": "###/#../#..",
    "L5-ne": "###/..#/..#",
    "L5-sw": "#../#../###",
    "L5-se": "..#/..#/###",
    "T4-n": ".#./###",
    "T4-s": "###/.#.",
    "T4-e": "#./##/#.",
    "T4-w": ".#/##/.#",
}

PieceId = str


@dataclass(frozen=True)
class Piece:
    id: PieceId
    cells: tuple[tuple[int, int], ...]  # (row, col) offsets, sorted
    height: int
    width: int

    @property
    def size(self) -> int:
        return len(self.cells)

    @property
    def mask_text(self) -> str:
        rows = [["."] * self.width for _ in range(self.height)]
        for r, c in self.cells:
            rows[r][c] = "#"
        return "/".join("".join(row) for row in rows)


def _cells_from_text(text: str, what: str) -> tuple[tuple[int, int], ...]:
    rows = text.split("/")
    width = len(rows[0])
    if not text or any(len(r) != width for r in rows) or width == 0:
        raise RulesError(f"piece {what!r}: every row of a mask must have the same, non-zero length")
    if len(rows) > SIZE or width > SIZE:  # (a longer text is only padding, echoed back in answers)
        raise RulesError(f"piece {what!r}: a mask is drawn on the {SIZE}x{SIZE} board, at most {SIZE} rows of "
                         f"{SIZE}; this one is {width} wide and {len(rows)} tall")
    cells = []
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch == "#":
                cells.append((r, c))
            elif ch != ".":
                raise RulesError(
                    f"piece {what!r}: row {r}, column {c}: expected '#' or '.', found {ch!r}"
                )
    if not cells:
        raise RulesError(f"piece {what!r}: a mask needs at least one '#'")
    return _normalise(cells)


def _normalise(cells) -> tuple[tuple[int, int], ...]:
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return tuple(sorted((r - r0, c - c0) for r, c in cells))


def _make(piece_id: str, cells) -> Piece:
    cells = _normalise(cells)
    return Piece(
        id=piece_id,
        cells=cells,
        height=max(r for r, _ in cells) + 1,
        width=max(c for _, c in cells) + 1,
    )


PIECES: dict[PieceId, Piece] = {
    pid: _make(pid, _cells_from_text(text, pid)) for pid, text in _SHAPES.items()
}
_BY_CELLS: dict[tuple[tuple[int, int], ...], PieceId] = {p.cells: pid for pid, p in PIECES.items()}
CANONICAL_IDS: tuple[PieceId, ...] = tuple(_SHAPES)
# The entries a cache keyed by a piece (or by a board's stones) keeps: the canonical pieces and
# their turns are a few dozen, but custom masks and boards come from users (a server's clients
# send new ones for ever), so such a cache forgets the least recently used past this many.
SHAPE_CACHE = 4096


def get_piece(piece_id: str) -> Piece:
    """A canonical id, or a custom ``#``/``.`` mask (its id is its canonical mask text) that
    fits the 10x10 board."""
    if not isinstance(piece_id, str):  # checked before the cache, which cannot hash a list
        raise RulesError(f"piece id must be a string, got {json_value(piece_id)}")
    return _get_piece(piece_id)


@lru_cache(maxsize=SHAPE_CACHE)
def _get_piece(piece_id: str) -> Piece:
    if piece_id in PIECES:
        return PIECES[piece_id]
    if "#" in piece_id or "/" in piece_id or (piece_id and set(piece_id) <= {"."}):  # meant as a mask
        cells = _cells_from_text(piece_id, clipped(piece_id))
        if cells in _BY_CELLS:
            return PIECES[_BY_CELLS[cells]]
        piece = _make("", cells)  # it fits the board: its mask did (_cells_from_text)
        return Piece(piece.mask_text, piece.cells, piece.height, piece.width)
    raise RulesError(f"unknown piece id {clipped(repr(piece_id))} "
                     f"(expected one of {', '.join(CANONICAL_IDS)}, or a #/. mask)")


def largest_side(ids) -> int:
    """The longest side, in cells, of any of these pieces (0 for none): what a slot that shows
    each of them must span."""
    return max((max(get_piece(p).width, get_piece(p).height) for p in ids), default=0)


def canonical_ids(ids: list[str], label: str) -> list[str]:
    """The canonical ids of ``ids`` (as a tray or a list names pieces); an unknown one is a
    ``TenfoldError`` (of the same kind) naming its place, ``label[i]``."""
    out = []
    for i, pid in enumerate(ids):
        try:
            out.append(get_piece(pid).id)
        except TenfoldError as err:
            raise type(err)(f"{label}[{i}]: {err}") from None
    return out


def rotate_cw(piece: Piece, turns: int = 1) -> Piece:
    """The piece turned clockwise ``turns`` quarter turns, under its canonical id if it has one."""
    cells = piece.cells
    for _ in range(turns % 4):
        height = max(r for r, _ in cells) + 1
        cells = _normalise([(c, height - 1 - r) for r, c in cells])
    if cells in _BY_CELLS:
        return PIECES[_BY_CELLS[cells]]
    return get_piece(_make("", cells).mask_text)


@lru_cache(maxsize=SHAPE_CACHE)
def turned_shapes(piece_id: str) -> tuple[tuple[str, int], ...]:
    """The shapes other than its own that turning the piece gives, each with the fewest
    clockwise quarter turns that give it."""
    seen = {piece_id}
    out = []
    for turns in (1, 2, 3):
        shape = rotate_cw(get_piece(piece_id), turns).id
        if shape not in seen:
            seen.add(shape)
            out.append((shape, turns))
    return tuple(out)


@dataclass(frozen=True)
class Spot:
    piece: PieceId
    row: int
    col: int
    mask: Bitboard


@lru_cache(maxsize=SHAPE_CACHE)
def spots_by_cell(piece_id: str) -> tuple[tuple[Spot, ...], ...]:
    """For each cell, the piece's spots that cover it."""
    return tuple(tuple(s for s in placements(piece_id) if s.mask >> cell & 1) for cell in range(100))


@lru_cache(maxsize=SHAPE_CACHE)
def placements(piece_id: str) -> tuple[Spot, ...]:
    """Every position of the piece that lies inside the board, row-major order."""
    piece = get_piece(piece_id)
    result = []
    for row in range(SIZE - piece.height + 1):
        for col in range(SIZE - piece.width + 1):
            mask = 0
            for r, c in piece.cells:
                mask |= bb_cell(row + r, col + c)
            result.append(Spot(piece.id, row, col, mask))
    return tuple(result)


def placement_mask(piece_id: str, row: int, col: int, named: str | None = None) -> Bitboard:
    """The cells the piece covers with its top-left corner at (row, col); error if off the board
    (naming the piece ``named``, as the move spelled it, if given)."""
    piece = get_piece(piece_id)
    if not (0 <= row <= SIZE - piece.height and 0 <= col <= SIZE - piece.width):
        raise RulesError(
            f"piece {named or piece.id} at row {clipped(str(row))}, col {clipped(str(col))} does not fit on the board "
            f"(rows 0..{SIZE - piece.height}, cols 0..{SIZE - piece.width} allowed)"
        )
    return placements(piece.id)[row * (SIZE - piece.width + 1) + col].mask
