"""Winning lines: where a player wins at once, and every player's threats."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from solver.ten.field import Field, tile_code
from solver.ten.position import BLACK, WHITE, Colour, Coord, TenPosition, colour_name
from solver.ten.rules import placement_cells


@dataclass(frozen=True)
class WinningMove:
    """Putting ``value`` on ``(x, y)`` (lifted from ``origin`` in the second round) completes ``runs``."""

    x: int
    y: int
    value: int
    runs: tuple[tuple[Coord, ...], ...]
    origin: Coord | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"x": self.x, "y": self.y, "value": self.value}
        if self.origin is not None:
            data["from"] = {"x": self.origin[0], "y": self.origin[1]}
        data["runs"] = [[{"x": x, "y": y} for x, y in run] for run in self.runs]
        return data


def _held_values(position: TenPosition, colour: Colour) -> tuple[int, ...]:
    """Values ``colour`` could place on its next turn (its row ends, its drawn tile, or its stack)."""
    if position.variant == "hidden" and colour != position.to_move:
        return tuple(v for v in (1, 2, 3) if position.stacks[colour][v - 1] > 0)
    return position.available_values(colour)


def _runs_through(field: Field, cell: int, colour: Colour) -> tuple[tuple[Coord, ...], ...]:
    return tuple(tuple(field.coord(c) for c in run) for run in field.ten_runs(colour) if cell in run)


def winning_moves(position: TenPosition, colour: Colour | None = None) -> list[WinningMove]:
    """Every move that would win at once for ``colour`` (default: the side to move) if it were its turn.

    A player with tiles in hand places one of the values it can take; a player
    whose hand is empty moves one of its tiles (the second round).
    """
    colour = position.to_move if colour is None else colour
    field = Field.from_position(position)
    found = []
    if position.hand_size(colour) > 0:
        values = _held_values(position, colour)
        for cell in placement_cells(field):
            for value in values:
                if field.placing_wins(cell, colour, value):
                    field.place(cell, tile_code(colour, value))
                    runs = _runs_through(field, cell, colour)
                    field.lift(cell)
                    x, y = field.coord(cell)
                    found.append(WinningMove(x, y, value, runs))
    else:
        for origin in field.movable_tiles(colour):
            for target in field.relocation_targets(origin):
                code = field.lift(origin)
                field.place(target, code)
                if field.relocation_wins(origin, target):
                    runs = tuple(tuple(field.coord(c) for c in run) for run in field.ten_runs(colour))
                    x, y = field.coord(target)
                    found.append(WinningMove(x, y, code & 3, runs, field.coord(origin)))
                field.lift(target)
                field.place(origin, code)
    return sorted(found, key=lambda w: (w.x, w.y, w.value, w.origin or (0, 0)))


def threats(position: TenPosition) -> dict[Colour, list[WinningMove]]:
    """For each player, the moves that would win for it on its next turn in the field as it stands."""
    return {colour: winning_moves(position, colour) for colour in (WHITE, BLACK)}


def lines_to_json(position: TenPosition) -> dict[str, Any]:
    """The ``tenfold ten wins`` answer: ``{"wins": [...], "threats": {"white": [...], "black": [...]}}``."""
    return {
        "wins": [w.to_json() for w in winning_moves(position)],
        "threats": {colour_name(c): [w.to_json() for w in moves] for c, moves in threats(position).items()},
    }
