"""Ten positions: the ``tenfold.ten/1`` file format, parsed and checked before anything is built."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from solver.errors import FormatError
from solver.jsontext import json_kind, json_value

Colour = int
Coord = tuple[int, int]

WHITE: Colour = 0
BLACK: Colour = 1
COLOUR_NAMES = ("white", "black")
VALUES = (1, 2, 3)
TILES_PER_VALUE = 5
WIN_SUM = 10
FORMAT = "tenfold.ten/1"
VARIANTS = ("open", "hidden")

_KNOWN_FIELDS = {"format", "tiles", "to_move", "variant", "rows", "stacks", "drawn"}
_EDGE_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))
_ONE_HAND = "a position holds the hands as rows (the open variant) or as stacks (hidden), not both"


def colour_name(colour: Colour) -> str:
    return COLOUR_NAMES[colour]


def parse_colour(value: Any, what: str) -> Colour:
    if value not in COLOUR_NAMES:
        raise FormatError(f'{what}: unknown colour {json_value(value)} (expected "white" or "black")')
    return COLOUR_NAMES.index(value)


@dataclass(frozen=True)
class TenPosition:
    """Tiles on the field, the side to move, and what each player still holds.

    ``rows[c]`` is the open row of colour ``c`` (ends are first and last);
    ``stacks[c]`` the hidden stack as counts of values 1, 2, 3. ``drawn`` is a
    tile the side to move has already drawn (hidden variant only); it is not
    in its stack. ``extra`` keeps unknown fields of the file.
    """

    tiles: dict[Coord, tuple[Colour, int]]
    to_move: Colour
    variant: str = "open"
    rows: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    stacks: tuple[tuple[int, int, int], tuple[int, int, int]] | None = None
    drawn: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def hand_size(self, colour: Colour) -> int:
        """Tiles the player has not placed yet (row, stack, and a drawn tile)."""
        if self.variant == "open":
            return len(self.rows[colour])
        held = 1 if self.drawn is not None and colour == self.to_move else 0
        return sum(self.stacks[colour]) + held

    def available_values(self, colour: Colour) -> tuple[int, ...]:
        """Values the player could place next: row ends, a drawn tile, or any value left in the stack."""
        if self.variant == "open":
            row = self.rows[colour]
            return tuple(sorted({row[0], row[-1]})) if row else ()
        if self.drawn is not None and colour == self.to_move:
            return (self.drawn,)
        return tuple(v for v in VALUES if self.stacks[colour][v - 1] > 0)


def _int_field(item: dict, key: str, what: str) -> int:
    if key not in item:
        raise FormatError(f"{what}.{key}: missing")
    value = item[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise FormatError(f"{what}.{key}: expected an integer, got {json_value(value)}")
    return value


def _tile_value(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value not in VALUES:  # 3.0 == 3, but not a tile
        raise FormatError(f"{what}: expected a tile value 1, 2 or 3, got {json_value(value)}")
    return value


def _parse_tiles(data: Any, what: str) -> tuple[dict[Coord, tuple[Colour, int]], list[str]]:
    if not isinstance(data, list):
        raise FormatError(f"{what}: expected a list of tiles, got {json_value(data)}")
    tiles: dict[Coord, tuple[Colour, int]] = {}
    where: dict[Coord, str] = {}
    names = []
    for i, item in enumerate(data):
        name = f"{what}[{i}]"
        if not isinstance(item, dict):
            raise FormatError(f"{name}: expected an object with x, y, colour, value, got {json_value(item)}")
        x = _int_field(item, "x", name)
        y = _int_field(item, "y", name)
        if "colour" not in item:
            raise FormatError(f"{name}.colour: missing")
        colour = parse_colour(item["colour"], f"{name}.colour")
        if "value" not in item:
            raise FormatError(f"{name}.value: missing")
        value = _tile_value(item["value"], f"{name}.value")
        if (x, y) in tiles:
            raise FormatError(f"{name}: cell ({x}, {y}) is already taken by {where[(x, y)]}")
        tiles[(x, y)] = (colour, value)
        where[(x, y)] = name
        names.append(name)
    return tiles, names


def _parse_rows(data: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if not isinstance(data, dict):
        raise FormatError(f"rows: expected an object with 'white' and 'black' lists, got {json_value(data)}")
    rows = []
    for name in COLOUR_NAMES:
        if name not in data:
            raise FormatError(f"rows.{name}: missing")
        row = data[name]
        if not isinstance(row, list):
            raise FormatError(f"rows.{name}: expected a list of tile values, got {json_value(row)}")
        rows.append(tuple(_tile_value(v, f"rows.{name}[{i}]") for i, v in enumerate(row)))
    for key in data:
        if key not in COLOUR_NAMES:
            raise FormatError(f'rows: unknown colour {json_value(key)} (expected "white" or "black")')
    return rows[0], rows[1]


def _parse_stacks(data: Any) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    if not isinstance(data, dict):
        raise FormatError(f"stacks: expected an object with 'white' and 'black' counts, got {json_value(data)}")
    stacks = []
    for key in data:
        if key not in COLOUR_NAMES:
            raise FormatError(f'stacks: unknown colour {json_value(key)} (expected "white" or "black")')
    for name in COLOUR_NAMES:
        if name not in data:
            raise FormatError(f"stacks.{name}: missing")
        counts = data[name]
        if not isinstance(counts, dict):
            raise FormatError(f"stacks.{name}: expected an object like {{\"1\": 5, \"2\": 5, \"3\": 5}}, "
                              f"got {json_value(counts)}")
        for key in counts:
            if key not in ("1", "2", "3"):
                raise FormatError(f"stacks.{name}: unknown tile value {json_value(key)} "
                                  '(expected "1", "2" or "3")')
        row = []
        for v in VALUES:
            n = counts.get(str(v), 0)
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise FormatError(f"stacks.{name}.{v}: expected a count 0 to 5, got {json_value(n)}")
            row.append(n)
        stacks.append(tuple(row))
    return stacks[0], stacks[1]


def _check_counts(position: TenPosition, tile_names: list[str]) -> None:
    """At most five tiles of each value per colour, counting the field and the hand."""
    counts = [[0, 0, 0], [0, 0, 0]]

    def add(colour: Colour, value: int, n: int, what: str) -> None:
        counts[colour][value - 1] += n
        if counts[colour][value - 1] > TILES_PER_VALUE:
            raise FormatError(
                f"{what}: {colour_name(colour)} would have {counts[colour][value - 1]} tiles of value {value}"
                f" (at most {TILES_PER_VALUE}, counting the field and the hand)"
            )

    for name, (colour, value) in zip(tile_names, position.tiles.values()):
        add(colour, value, 1, name)
    if position.variant == "open":
        for colour, row in enumerate(position.rows):
            for i, value in enumerate(row):
                add(colour, value, 1, f"rows.{colour_name(colour)}[{i}]")
    else:
        for colour, stack in enumerate(position.stacks):
            for value in VALUES:
                add(colour, value, stack[value - 1], f"stacks.{colour_name(colour)}.{value}")
        if position.drawn is not None:
            add(position.to_move, position.drawn, 1, "drawn")


def _check_connected(tiles: dict[Coord, tuple[Colour, int]], names: list[str]) -> None:
    if not tiles:
        return
    cells = list(tiles)
    seen = {cells[0]}
    queue = deque([cells[0]])
    while queue:
        x, y = queue.popleft()
        for dx, dy in _EDGE_STEPS:
            n = (x + dx, y + dy)
            if n in tiles and n not in seen:
                seen.add(n)
                queue.append(n)
    for name, cell in zip(names, cells):
        if cell not in seen:
            raise FormatError(f"{name}: tile at ({cell[0]}, {cell[1]}) is not edge-connected to {names[0]}"
                              " (the field must be one edge-connected group)")


def parse_position(data: Any, what: str = "position") -> TenPosition:
    """Check a ``tenfold.ten/1`` object completely, then build the position; an error names
    ``what`` (the file) and the field, as a level's do."""
    if not isinstance(data, dict):
        raise FormatError(f"{what}: expected a JSON object, got {json_kind(data)}")
    try:
        return _parse_position(data)
    except FormatError as err:
        raise FormatError(f"{what}: field {err}") from None


def _parse_position(data: dict[str, Any]) -> TenPosition:
    if "format" in data and data["format"] != FORMAT:
        raise FormatError(f"format: expected {FORMAT!r}, got {json_value(data['format'])}")
    if "tiles" not in data:
        raise FormatError("tiles: missing")
    tiles, names = _parse_tiles(data["tiles"], "tiles")
    if "to_move" not in data:
        raise FormatError("to_move: missing")
    to_move = parse_colour(data["to_move"], "to_move")
    variant = data.get("variant")
    if variant is None:
        variant = "hidden" if "stacks" in data and "rows" not in data else "open"
    if variant not in VARIANTS:
        raise FormatError(f'variant: unknown variant {json_value(variant)} (expected "open" or "hidden")')
    rows = stacks = drawn = None
    if variant == "open":
        if "rows" not in data:
            raise FormatError("rows: missing (the open variant needs each player's row)")
        rows = _parse_rows(data["rows"])
        if data.get("drawn") is not None:
            raise FormatError("drawn: only the hidden variant draws tiles")
        if data.get("stacks") is not None:  # (a tool would read one of the two hands, the other passed over)
            raise FormatError(f"stacks: {_ONE_HAND}")
    else:
        if "stacks" not in data:
            raise FormatError("stacks: missing (the hidden variant needs each player's stack)")
        if data.get("rows") is not None:
            raise FormatError(f"rows: {_ONE_HAND}")
        stacks = _parse_stacks(data["stacks"])
        if data.get("drawn") is not None:
            drawn = _tile_value(data["drawn"], "drawn")
    extra = {k: v for k, v in data.items() if k not in _KNOWN_FIELDS}
    position = TenPosition(tiles, to_move, variant, rows, stacks, drawn, extra)
    _check_counts(position, names)
    _check_connected(tiles, names)
    return position


def position_to_json(position: TenPosition) -> dict[str, Any]:
    """The position as a ``tenfold.ten/1`` object; unknown fields read in are written back."""
    data: dict[str, Any] = {"format": FORMAT}
    data.update(position.extra)
    data["tiles"] = [{"x": x, "y": y, "colour": colour_name(c), "value": v}
                     for (x, y), (c, v) in position.tiles.items()]
    data["to_move"] = colour_name(position.to_move)
    data["variant"] = position.variant
    if position.variant == "open":
        data["rows"] = {colour_name(c): list(position.rows[c]) for c in (WHITE, BLACK)}
    else:
        data["stacks"] = {colour_name(c): {str(v): position.stacks[c][v - 1] for v in VALUES}
                          for c in (WHITE, BLACK)}
        if position.drawn is not None:
            data["drawn"] = position.drawn
    return data
