"""Moves and their JSON form (RULES.md §3, "Moves")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

from .bitboard import Bitboard, cell_col, cell_row, scan_cells
from .deals import TRAY_SIZE
from .errors import FormatError
from .jsontext import json_kind, json_value
from .pieces import get_piece


@dataclass(frozen=True)
class Placement:
    piece: str
    row: int
    col: int
    # the piece as the input spelled it, where that is not its id (a mask: ".#/.#" for 2x1), for
    # messages about the move; not part of the move (equal moves, whatever their spelling)
    written: str | None = field(default=None, compare=False, repr=False)

    @property
    def named(self) -> str:
        return named(self.piece, self.written)

    def to_json(self) -> dict[str, Any]:
        return {"piece": self.piece, "row": self.row, "col": self.col}


def named(piece: str | None, written: str | None) -> str:
    """A move's piece as a message names it: as written, with its id where they differ."""
    return str(piece) if written is None else f"{written} ({piece})"


TOKEN_KINDS = ("rotate", "remove", "reroll", "swap", "refresh")
REDEAL_KINDS = frozenset({"reroll", "swap", "refresh"})  # the tokens that deal from the stream


@dataclass(frozen=True)
class TokenUse:
    token: str
    piece: str | None = None
    turns: int | None = None
    row: int | None = None
    col: int | None = None
    # a rotate's or swap's piece as the input spelled it, where that is not its id (as Placement's)
    written: str | None = field(default=None, compare=False, repr=False)

    @property
    def named(self) -> str:
        return named(self.piece, self.written)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"token": self.token}
        if self.token in ("rotate", "swap"):
            out["piece"] = self.piece
        if self.token == "rotate":
            out["turns"] = self.turns
        if self.token == "remove":
            out["row"], out["col"] = self.row, self.col
        return out


Move = Union[Placement, TokenUse]


def as_written(move: Move) -> dict[str, Any]:
    """The move's JSON with its piece as the move spelled it (a mask such as ``##/#.``), which
    also names its id."""
    data = move.to_json()
    if move.written is not None:
        data["piece"] = move.written
    return data


def removals(tiles: Bitboard) -> list[TokenUse]:
    """A remove token for each tile of ``tiles``, in cell order."""
    return [TokenUse("remove", row=cell_row(c), col=cell_col(c)) for c in scan_cells(tiles)]


def _int_field(data: dict, key: str, where: str, lo: int | None = None, hi: int | None = None) -> int:
    """An integer field, within ``lo..hi`` when given. A cell's row and column take any integer:
    a well-formed move off the board is an illegal move (the engine says so), not a malformed one,
    as is a piece that sticks out over the edge."""
    if key not in data:
        raise FormatError(f"{where}: missing field {key!r}")
    value = data[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise FormatError(f"{where}: field {key!r} must be an integer, got {json_value(value)}")
    if lo is not None and hi is not None and not lo <= value <= hi:
        raise FormatError(f"{where}: field {key!r} must be an integer {lo}..{hi}, got {json_value(value)}")
    return value


def _piece_field(data: dict, where: str) -> tuple[str, str | None]:
    """The move's piece id, and its spelling as written where that is not the id (else None)."""
    if "piece" not in data:
        raise FormatError(f"{where}: missing field 'piece'")
    try:
        piece = get_piece(data["piece"]).id
    except ValueError as err:
        raise FormatError(f"{where}: {err}") from None
    return piece, (data["piece"] if data["piece"] != piece else None)


def parse_move(data: Any, where: str = "move") -> Move:
    if not isinstance(data, dict):
        raise FormatError(f"{where}: expected an object like {{\"piece\": \"1x1\", \"row\": 0, \"col\": 0}}, "
                          f"got {json_value(data)}")
    if "token" in data:
        kind = data["token"]
        if kind not in TOKEN_KINDS:
            raise FormatError(f"{where}: unknown token {json_value(kind)} "
                              f"(expected one of {', '.join(TOKEN_KINDS)})")
        if kind == "rotate":
            piece, written = _piece_field(data, where)
            return TokenUse(kind, piece=piece, turns=_int_field(data, "turns", where, 1, 3), written=written)
        if kind == "swap":
            piece, written = _piece_field(data, where)
            return TokenUse(kind, piece=piece, written=written)
        if kind == "remove":
            return TokenUse(kind, row=_int_field(data, "row", where), col=_int_field(data, "col", where))
        return TokenUse(kind)
    piece, written = _piece_field(data, where)
    return Placement(piece, _int_field(data, "row", where), _int_field(data, "col", where), written)


def parse_moves(data: Any, where: str = "moves") -> list[Move]:
    if not isinstance(data, list):
        raise FormatError(f"{where}: expected a list of moves, got {json_kind(data)}")
    return [parse_move(item, f"{where}[{i}]") for i, item in enumerate(data)]


def parse_turns(data: Any, where: str = "moves") -> list[list[Move]] | None:
    """A list of turns, each the list of its moves with 1 to 3 placements (``[[move, ...], ...]``);
    None for a flat list of moves (``parse_moves``), which ``data`` must then be."""
    if not (isinstance(data, list) and data and isinstance(data[0], list)):
        return None
    turns = []
    for t, turn in enumerate(data):
        at = f"{where}[{t}]"
        if not isinstance(turn, list):
            raise FormatError(f"{at}: expected a turn (a list of moves), as the first is, got {json_value(turn)}")
        moves = parse_moves(turn, at)
        placed = sum(isinstance(move, Placement) for move in moves)
        if not 1 <= placed <= TRAY_SIZE:
            raise FormatError(f"{at}: expected a turn of 1 to {TRAY_SIZE} placements, got {placed}")
        turns.append(moves)
    return turns
