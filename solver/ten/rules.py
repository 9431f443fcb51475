"""Ten's rules on whole positions: legal moves, applying a move, and who has won."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from solver.errors import FormatError, RulesError
from solver.ten.field import Field, tile_code
from solver.ten.position import (
    BLACK,
    VALUES,
    WHITE,
    Colour,
    Coord,
    TenPosition,
    colour_name,
    parse_colour,
)

FIRST_CELL: Coord = (0, 0)
ROW_FIRST, ROW_LAST = 0, 1
END_NAMES = ("first", "last")


@dataclass(frozen=True)
class TenMove:
    """A tile of ``value`` put on ``(x, y)``.

    ``origin`` is set for a second-round move (the tile is lifted from there);
    ``end`` says which end of an open row the tile comes from (``ROW_FIRST`` or
    ``ROW_LAST``; both ends may hold the same value but leave different rows).
    """

    x: int
    y: int
    value: int
    origin: Coord | None = None
    end: int | None = None

    def to_json(self, colour: Colour | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if colour is not None:
            data["colour"] = colour_name(colour)
        data.update({"x": self.x, "y": self.y, "value": self.value})
        if self.origin is not None:
            data["from"] = {"x": self.origin[0], "y": self.origin[1]}
        if self.end is not None:
            data["end"] = END_NAMES[self.end]
        return data


@contextmanager
def repetition(history: dict, key) -> Iterator[bool]:
    """Count one more occurrence of a position while inside; yields True on its third (a draw)."""
    seen = history.get(key, 0) + 1
    if seen >= 3:
        yield True
        return
    history[key] = seen
    try:
        yield False
    finally:
        history[key] = seen - 1


def parse_move(data: Any, what: str = "move") -> TenMove:
    if not isinstance(data, dict):
        raise FormatError(f"{what}: expected an object with x, y, value, got {data!r}")
    for key in ("x", "y", "value"):
        if not isinstance(data.get(key), int) or isinstance(data.get(key), bool):
            raise FormatError(f"{what}.{key}: expected an integer, got {data.get(key)!r}")
    origin = None
    if "from" in data:
        src = data["from"]
        if not isinstance(src, dict) or not all(isinstance(src.get(k), int) for k in ("x", "y")):
            raise FormatError(f"{what}.from: expected an object with x and y, got {src!r}")
        origin = (src["x"], src["y"])
    end = None
    if "end" in data:
        if data["end"] not in END_NAMES:
            raise FormatError(f"{what}.end: expected 'first' or 'last', got {data['end']!r}")
        end = END_NAMES.index(data["end"])
    if "colour" in data:
        parse_colour(data["colour"], f"{what}.colour")
    return TenMove(data["x"], data["y"], data["value"], origin, end)


def is_placement_turn(position: TenPosition) -> bool:
    """A player places while it holds tiles; with an empty hand it moves a tile (the second round)."""
    return position.hand_size(position.to_move) > 0


def position_winner(position: TenPosition) -> Colour | None:
    """The colour that already has a maximal run of exactly 10 on the field, if any."""
    field = Field.from_position(position)
    for colour in (WHITE, BLACK):
        if field.ten_runs(colour):
            return colour
    return None


def _placement_choices(position: TenPosition) -> list[tuple[int, int | None]]:
    """(value, end) pairs the side to move may place."""
    mover = position.to_move
    if position.variant == "open":
        row = position.rows[mover]
        if not row:
            return []
        if len(row) == 1:
            return [(row[0], ROW_FIRST)]
        return [(row[0], ROW_FIRST), (row[-1], ROW_LAST)]
    return [(v, None) for v in position.available_values(mover)]


def placement_cells(field: Field) -> list:
    """Empty cells a new tile may go on (grid cells); the very first tile goes on (0, 0)."""
    if not field.tiles:
        return [field.cell(*FIRST_CELL)]
    return sorted(field.frontier)


def legal_moves(position: TenPosition) -> list[TenMove]:
    """Every legal move of the side to move, placements or (second round) relocations."""
    field = Field.from_position(position)
    mover = position.to_move
    moves = []
    if is_placement_turn(position):
        choices = _placement_choices(position)
        for cell in placement_cells(field):
            x, y = field.coord(cell)
            moves.extend(TenMove(x, y, value, None, end) for value, end in choices)
        return moves
    for origin in field.movable_tiles(mover):
        value = field.board[origin] & 3
        ox, oy = field.coord(origin)
        for target in field.relocation_targets(origin):
            x, y = field.coord(target)
            moves.append(TenMove(x, y, value, (ox, oy)))
    return moves


def _take_from_hand(position: TenPosition, move: TenMove) -> TenPosition:
    mover = position.to_move
    if position.variant == "open":
        row = position.rows[mover]
        ends = [e for v, e in _placement_choices(position) if v == move.value]
        if not ends:
            raise RulesError(f"{colour_name(mover)} cannot take a {move.value}: its row ends are "
                             f"{row[0]} and {row[-1]}" if row else f"{colour_name(mover)} has no tiles left")
        end = move.end if move.end is not None else ends[0]
        if end not in ends:
            raise RulesError(f"the {END_NAMES[end]} tile of {colour_name(mover)}'s row is not a {move.value}")
        rest = row[1:] if end == ROW_FIRST else row[:-1]
        rows = (rest, position.rows[1]) if mover == WHITE else (position.rows[0], rest)
        return replace(position, rows=rows)
    if position.drawn is not None:
        if move.value != position.drawn:
            raise RulesError(f"{colour_name(mover)} drew a {position.drawn}, not a {move.value}")
        return replace(position, drawn=None)
    stack = list(position.stacks[mover])
    if move.value not in VALUES or stack[move.value - 1] == 0:
        raise RulesError(f"{colour_name(mover)} has no {move.value} left in its stack")
    stack[move.value - 1] -= 1
    stacks = (tuple(stack), position.stacks[1]) if mover == WHITE else (position.stacks[0], tuple(stack))
    return replace(position, stacks=stacks)


def apply_move(position: TenPosition, move: TenMove) -> tuple[TenPosition, bool]:
    """Play ``move``; return the new position (other side to move) and whether the mover won."""
    mover = position.to_move
    field = Field.from_position(position)
    tiles = dict(position.tiles)
    target = (move.x, move.y)
    if is_placement_turn(position):
        if move.origin is not None:
            raise RulesError(f"{colour_name(mover)} still has tiles to place; it cannot move a tile yet")
        if target in tiles:
            raise RulesError(f"cell {target} is taken")
        if tiles and field.cell(*target) not in field.frontier:
            raise RulesError(f"cell {target} does not share an edge with the field")
        if not tiles and target != FIRST_CELL:
            raise RulesError(f"the first tile goes on {FIRST_CELL}, not {target}")
        after = _take_from_hand(position, move)
        cell = field.cell(*target)
        field.place(cell, tile_code(mover, move.value))
        won = field.has_ten_through(cell)
    else:
        if move.origin is None:
            raise RulesError(f"{colour_name(mover)} has no tiles left to place; it must move one of its tiles")
        if tiles.get(move.origin) != (mover, move.value):
            raise RulesError(f"there is no {colour_name(mover)} {move.value} at {move.origin}")
        origin = field.cell(*move.origin)
        if origin not in field.movable_tiles(mover):
            raise RulesError(f"the tile at {move.origin} cannot move: it has no free side or the field"
                             " would fall apart without it")
        if field.cell(*target) not in field.relocation_targets(origin):
            raise RulesError(f"cell {target} is not an empty cell next to the field without the tile at"
                             f" {move.origin}")
        del tiles[move.origin]
        after = position
        code = field.lift(origin)
        cell = field.cell(*target)
        field.place(cell, code)
        won = field.relocation_wins(origin, cell)
    tiles[target] = (mover, move.value)
    return replace(after, tiles=tiles, to_move=1 - mover), won
