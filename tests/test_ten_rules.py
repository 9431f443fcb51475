"""Ten rules: the position format, second-round legality, cut tiles against networkx, symmetric keys."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from solver.errors import FormatError, RulesError
from solver.ten.field import Field, coord_articulation_points
from solver.ten.position import BLACK, WHITE, TenPosition, parse_position, position_to_json
from solver.ten.rules import TenMove, apply_move, legal_moves


def tile(x, y, colour="white", value=1):
    return {"x": x, "y": y, "colour": colour, "value": value}


def open_position(tiles, to_move="white", rows=None):
    return {"format": "tenfold.ten/1", "tiles": tiles, "to_move": to_move, "variant": "open",
            "rows": rows if rows is not None else {"white": [], "black": []}}


# --- format ------------------------------------------------------------------

@pytest.mark.parametrize("change,message", [
    (lambda d: d["tiles"][1].update(colour="red"), "tiles[1].colour: unknown colour \"red\""),
    (lambda d: d["tiles"][0].update(value=4), "tiles[0].value: expected a tile value 1, 2 or 3, got 4"),
    (lambda d: d.pop("rows"), "rows: missing"),
    (lambda d: d["rows"].pop("black"), "rows.black: missing"),
    (lambda d: d["rows"]["white"].append(4), "rows.white[2]: expected a tile value 1, 2 or 3, got 4"),
    (lambda d: d["tiles"].append(tile(0, 0, "black", 2)), "tiles[2]: cell (0, 0) is already taken by tiles[0]"),
    (lambda d: d["rows"].update(white=[3] * 5), "rows.white[4]: white would have 6 tiles of value 3"),
    (lambda d: d.update(to_move="green"), "to_move: unknown colour \"green\""),
    (lambda d: d.update(variant="blind"), "variant: unknown variant \"blind\""),
    (lambda d: d["tiles"].append(tile(5, 5)), "tiles[2]: tile at (5, 5) is not edge-connected"),
    (lambda d: d["tiles"][0].pop("x"), "tiles[0].x: missing"),
    (lambda d: d.update(format="tenfold.ten/2"), "format: expected 'tenfold.ten/1'"),
])
def test_malformed_positions_name_the_field(change, message):
    data = open_position([tile(0, 0, "white", 3), tile(1, 0, "black", 2)], "white",
                         {"white": [1, 2], "black": [3]})
    parse_position(data)  # the unchanged position is fine
    change(data)
    with pytest.raises(FormatError) as err:
        parse_position(data)
    assert message in str(err.value)


def test_hidden_stacks_are_counted_and_checked():
    data = {"tiles": [tile(0, 0, "white", 2)], "to_move": "black", "variant": "hidden",
            "stacks": {"white": {"1": 5, "2": 4, "3": 5}, "black": {"1": 5, "2": 5, "3": 5}}}
    position = parse_position(data)
    assert position.hand_size(WHITE) == 14 and position.available_values(BLACK) == (1, 2, 3)
    data["stacks"]["white"]["2"] = 5
    with pytest.raises(FormatError, match=r"stacks.white.2: white would have 6 tiles of value 2"):
        parse_position(data)


def test_unknown_fields_are_kept_through_a_round_trip():
    data = open_position([tile(0, 0, "white", 3)], "black", {"white": [1], "black": [2, 3]})
    data["comment"] = "from the rulebook"
    again = parse_position(position_to_json(parse_position(data)))
    assert again.extra == {"comment": "from the rulebook"} and again.rows == ((1,), (2, 3))


# --- placement phase -----------------------------------------------------------

def test_first_tile_goes_on_origin_and_later_tiles_touch_an_edge():
    start = TenPosition({}, WHITE, "open", rows=((1, 2), (3,)))
    assert {(m.x, m.y, m.value) for m in legal_moves(start)} == {(0, 0, 1), (0, 0, 2)}
    after, won = apply_move(start, TenMove(0, 0, 2, end=1))
    assert not won and after.rows == ((1,), (3,)) and after.to_move == BLACK
    assert {(m.x, m.y) for m in legal_moves(after)} == {(1, 0), (-1, 0), (0, 1), (0, -1)}
    with pytest.raises(RulesError, match="does not share an edge"):
        apply_move(after, TenMove(1, 1, 3))
    with pytest.raises(RulesError, match="cannot take a 2"):
        apply_move(after, TenMove(1, 0, 2))


def test_maximal_run_over_ten_does_not_win():
    # white 3 3 3 . 1 : a 1 in the gap makes 3+3+3+1+1 = 11 — no win, though 3+3+3+1 is 10
    tiles = [tile(0, 0, "white", 3), tile(1, 0, "white", 3), tile(2, 0, "white", 3), tile(4, 0, "white", 1),
             tile(4, 1, "black", 1), tile(3, 1, "black", 1), tile(2, 1, "black", 1)]
    position = parse_position(open_position(tiles, "white", {"white": [1], "black": [2]}))
    _, won = apply_move(position, TenMove(3, 0, 1))
    assert not won
    _, won = apply_move(position, TenMove(-1, 0, 1))
    assert won  # 1+3+3+3 = 10, ended by empty cells


# --- second round ------------------------------------------------------------

def second_round(tiles, to_move="white"):
    return parse_position(open_position(tiles, to_move))


def movable(position):
    return {m.origin for m in legal_moves(position)}


def test_bridge_tile_cannot_move_but_leaves_can():
    # a line W B W B W: the middle three are bridges
    tiles = [tile(x, 0, "white" if x % 2 == 0 else "black", 1) for x in range(5)]
    assert movable(second_round(tiles)) == {(0, 0), (4, 0)}
    assert movable(second_round(tiles, "black")) == set()


def test_enclosed_tile_cannot_move():
    # white at the centre of a plus, black arms, white corners close the ring
    tiles = [tile(0, 0, "white", 2)]
    tiles += [tile(dx, dy, "black", 1) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    tiles += [tile(dx, dy, "white", 1) for dx, dy in ((1, 1), (-1, 1), (1, -1), (-1, -1))]
    position = second_round(tiles)
    assert (0, 0) not in movable(position)  # no free side
    assert movable(position) == {(1, 1), (-1, 1), (1, -1), (-1, -1)}  # corners: the ring stays connected


def test_tile_in_a_cycle_may_move_and_not_onto_its_own_cell():
    square = [tile(0, 0, "white", 1), tile(1, 0, "black", 1), tile(1, 1, "white", 2), tile(0, 1, "black", 2)]
    position = second_round(square)
    moves = legal_moves(position)
    assert {m.origin for m in moves} == {(0, 0), (1, 1)}
    targets = {(m.x, m.y) for m in moves if m.origin == (0, 0)}
    assert (0, 0) not in targets
    assert targets == {(2, 0), (2, 1), (1, 2), (0, 2), (-1, 1), (1, -1)}
    with pytest.raises(RulesError, match="no tiles left to place"):
        apply_move(position, TenMove(2, 0, 1))


def test_relocation_can_win_by_splitting_a_run():
    # white 3 3 3 1 1 in a row is 11; lifting the last 1 leaves 3+3+3+1 = 10
    tiles = [tile(x, 0, "white", v) for x, v in enumerate((3, 3, 3, 1, 1))]
    tiles += [tile(x, 1, "black", 1) for x in range(5)]
    position = second_round(tiles)
    wins = {(m.origin, (m.x, m.y)) for m in legal_moves(position) if apply_move(position, m)[1]}
    assert ((4, 0), (2, -1)) in wins  # only the split run 3+3+3+1 makes 10 there
    assert ((3, 0), (-1, 0)) in wins  # 1+3+3+3 at the other end, the lone 1 left behind
    assert ((3, 0), (0, -1)) not in wins  # legal, but 3+3+3 and a lone 1 make no 10
    assert ((3, 0), (0, -1)) in {(m.origin, (m.x, m.y)) for m in legal_moves(position)}


# --- cut tiles against networkx -------------------------------------------------

def random_field(rng, size):
    cells = {(0, 0)}
    while len(cells) < size:
        x, y = rng.choice(sorted(cells))
        dx, dy = rng.choice(((1, 0), (-1, 0), (0, 1), (0, -1)))
        cells.add((x + dx, y + dy))
    return cells


@pytest.mark.parametrize("seed", range(200))
def test_articulation_points_match_networkx(seed):
    rng = random.Random(seed)
    cells = random_field(rng, rng.randint(1, 30))
    graph = nx.Graph()
    graph.add_nodes_from(cells)
    graph.add_edges_from(((x, y), (x + 1, y)) for x, y in cells if (x + 1, y) in cells)
    graph.add_edges_from(((x, y), (x, y + 1)) for x, y in cells if (x, y + 1) in cells)
    assert coord_articulation_points(cells) == set(nx.articulation_points(graph))


def test_articulation_sample_has_cuts_and_cycles():
    rng = random.Random(1)
    counts = [len(coord_articulation_points(random_field(rng, 20))) for _ in range(30)]
    assert max(counts) > 0 and min(counts) < max(counts)


# --- symmetric keys ---------------------------------------------------------------

SYMMETRIES = (lambda x, y: (x, y), lambda x, y: (-x, y), lambda x, y: (x, -y), lambda x, y: (-x, -y),
              lambda x, y: (y, x), lambda x, y: (-y, x), lambda x, y: (y, -x), lambda x, y: (-y, -x))


def field_of(tiles):
    return Field.from_position(TenPosition(tiles, WHITE, "open", rows=((), ())))


@pytest.mark.parametrize("seed", range(20))
def test_canonical_key_ignores_translation_and_symmetry(seed):
    rng = random.Random(seed)
    cells = random_field(rng, 12)
    tiles = {c: (rng.randrange(2), rng.randint(1, 3)) for c in cells}
    key = field_of(tiles).canonical_key()[0]
    dx, dy = rng.randint(-40, 40), rng.randint(-40, 40)
    for sym in SYMMETRIES:
        moved = {(sym(x, y)[0] + dx, sym(x, y)[1] + dy): t for (x, y), t in tiles.items()}
        assert field_of(moved).canonical_key()[0] == key
    # changing one tile's value changes the key
    (x, y), (colour, value) = next(iter(tiles.items()))
    tiles[(x, y)] = (colour, value % 3 + 1)
    assert field_of(tiles).canonical_key()[0] != key


def test_canonical_frame_maps_cells_back():
    rng = random.Random(3)
    tiles = {c: (rng.randrange(2), rng.randint(1, 3)) for c in random_field(rng, 10)}
    field = field_of(tiles)
    for symmetry in range(8):
        for cell in list(field.tiles) + sorted(field.frontier):
            assert field.from_canonical(field.to_canonical(cell, symmetry), symmetry) == cell


# --- cases a mutation audit found no test for ----------------------------------

def hidden_position(tiles, stacks, to_move="white", drawn=None, variant=True):
    data = {"format": "tenfold.ten/1", "tiles": tiles, "to_move": to_move,
            "stacks": {"white": dict(zip("123", stacks[0])), "black": dict(zip("123", stacks[1]))}}
    if variant:
        data["variant"] = "hidden"
    if drawn is not None:
        data["drawn"] = drawn
    return data


def test_placing_from_a_hidden_stack_takes_that_tile_from_the_stack():
    position = parse_position(hidden_position([], ((5, 5, 5), (5, 5, 5))))
    after, won = apply_move(position, TenMove(0, 0, 2))
    assert after.stacks == ((5, 4, 5), (5, 5, 5)) and not won and after.to_move == BLACK
    empty = parse_position(hidden_position([tile(0, 0, "black", 1)], ((5, 0, 5), (4, 5, 5))))
    with pytest.raises(RulesError, match="white has no 2 left in its stack"):
        apply_move(empty, TenMove(1, 0, 2))


def test_a_drawn_tile_is_in_the_movers_hand_only():
    """The drawn tile counts in the hand of the side to move, not the other's: white with an empty
    stack and a drawn 2 still places (the 2, nowhere else), and moves no tile yet."""
    position = parse_position(hidden_position([tile(0, 0, "white", 1), tile(1, 0, "black", 1)],
                                              ((0, 0, 0), (0, 0, 1)), drawn=2))
    assert (position.hand_size(WHITE), position.hand_size(BLACK)) == (1, 1)
    moves = legal_moves(position)
    assert moves and all(m.origin is None and m.value == 2 for m in moves)


def test_a_position_without_a_variant_is_read_from_its_fields():
    assert parse_position(hidden_position([], ((5, 5, 5), (5, 5, 5)), variant=False)).variant == "hidden"
    assert parse_position({"tiles": [], "to_move": "white", "rows": {"white": [1], "black": [2]}}).variant == "open"


def test_an_empty_field_is_a_position():
    position = parse_position(open_position([], rows={"white": [1, 2], "black": [3]}))
    assert position.tiles == {} and [(m.x, m.y) for m in legal_moves(position)] == [(0, 0), (0, 0)]


@pytest.mark.parametrize("count", [True, "2", -1, 2.0])
def test_a_stack_count_must_be_a_whole_number(count):
    data = hidden_position([], ((5, 5, 5), (5, 5, 5)))
    data["stacks"]["white"]["1"] = count
    with pytest.raises(FormatError, match="stacks.white.1: expected a count 0 to 5"):
        parse_position(data)


def test_a_moved_tile_must_land_next_to_the_field_without_it():
    position = parse_position(open_position([tile(0, 0), tile(1, 0, "black")]))
    with pytest.raises(RulesError, match=r"cell \(5, 5\) is not an empty cell next to the field"):
        apply_move(position, TenMove(5, 5, 1, (0, 0)))
    after, _ = apply_move(position, TenMove(2, 0, 1, (0, 0)))  # around the black tile
    assert after.tiles == {(1, 0): (BLACK, 1), (2, 0): (WHITE, 1)}


def test_moves_round_trip_through_their_json():
    """``parse_move`` reads what ``TenMove.to_json`` writes, for every legal move of seeded open
    and second-round positions, and names the field of a malformed one."""
    from solver.ten.play import random_open_position
    from solver.ten.rules import parse_move

    seen_origin = seen_end = False
    for seed in range(40):
        position = random_open_position(seed=seed, tiles_left=seed % 4, row_size=4)
        for move in legal_moves(position):
            assert parse_move(move.to_json()) == move
            seen_origin |= move.origin is not None
            seen_end |= move.end is not None
    assert seen_origin and seen_end
    for bad, message in (([1], "move: expected an object"), ({"x": 1, "y": 0}, "move.value: expected an integer"),
                         ({"x": 1, "y": 0, "value": 2, "from": [0, 0]}, "move.from: expected an object"),
                         ({"x": 1, "y": 0, "value": 2, "end": "middle"}, "move.end: expected 'first' or 'last'")):
        with pytest.raises(FormatError, match=message):
            parse_move(bad)


def test_a_tile_touching_the_field_only_at_a_corner_is_not_connected():
    """RULES.md §2: tiles join the field by sharing an edge; a diagonal touch is no connection
    (a mutation audit: reading diagonal neighbours as connected went unnoticed)."""
    data = open_position([tile(0, 0, "white", 3), tile(1, 0, "black", 2), tile(2, 1, "white", 1)], "white",
                         {"white": [1, 2], "black": [3]})
    with pytest.raises(FormatError) as err:
        parse_position(data)
    assert "tiles[2]: tile at (2, 1) is not edge-connected" in str(err.value)


def test_relocation_can_win_by_splitting_a_diagonal_run():
    """The split-run win of test_relocation_can_win_by_splitting_a_run on a diagonal (RULES.md §2: runs
    go either diagonal too): white 3 3 3 1 1 down a diagonal is 11, joined by black 1s; lifting the
    last 1 leaves 3+3+3+1 = 10 (a mutation audit: checking split runs on rows and columns only went
    unnoticed)."""
    tiles = [tile(i, i, "white", v) for i, v in enumerate((3, 3, 3, 1, 1))]
    tiles += [tile(i + 1, i, "black", 1) for i in range(4)]
    position = second_round(tiles)
    move = TenMove(5, 3, 1, (4, 4))
    assert move in legal_moves(position)
    assert apply_move(position, move)[1]
    from solver.ten.lines import winning_moves
    assert ((4, 4), (5, 3)) in {(w.origin, (w.x, w.y)) for w in winning_moves(position)}
