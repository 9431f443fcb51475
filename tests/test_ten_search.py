"""The Ten solvers against an independent brute force written plainly here.

Shared with the solver: only the position parser/model. The brute force keeps
the field as a dict of (x, y) -> (colour, value), finds maximal runs by
scanning every tile, checks connectivity by flood fill, and searches every
move to the full depth.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from shared_memo import shared_cache
from solver.ten.play import random_open_position
from solver.ten.position import BLACK, WHITE, TenPosition, parse_position
from solver.ten.lines import threats, winning_moves
from solver.ten.search import solve_open
from solver.ten.chance import solve_hidden

LINES = ((1, 0), (0, 1), (1, 1), (1, -1))
EDGES = ((1, 0), (-1, 0), (0, 1), (0, -1))


# --- the brute force -------------------------------------------------------

def bf_has_ten(tiles: dict, colour: int) -> bool:
    for (x, y), (c, _) in tiles.items():
        if c != colour:
            continue
        for dx, dy in LINES:
            if tiles.get((x - dx, y - dy), (None,))[0] == colour:
                continue  # not the first tile of its run
            total, cx, cy = 0, x, y
            while tiles.get((cx, cy), (None,))[0] == colour:
                total += tiles[(cx, cy)][1]
                cx, cy = cx + dx, cy + dy
            if total == 10:
                return True
    return False


def bf_connected(cells: set) -> bool:
    if not cells:
        return True
    start = next(iter(cells))
    seen, todo = {start}, [start]
    while todo:
        x, y = todo.pop()
        for dx, dy in EDGES:
            n = (x + dx, y + dy)
            if n in cells and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(cells)


def bf_open_cells(tiles: dict) -> set:
    if not tiles:
        return {(0, 0)}
    return {(x + dx, y + dy) for x, y in tiles for dx, dy in EDGES} - set(tiles)


def bf_moves(state):
    """(new state, mover won) for every legal move; state = (tiles, rows, to_move)."""
    tiles, rows, mover = state
    row = rows[mover]
    out = []
    if row:
        ends = [(row[0], row[1:])] + ([(row[-1], row[:-1])] if len(row) > 1 else [])
        for cell in bf_open_cells(tiles):
            for end, (value, rest) in enumerate(ends):
                new = dict(tiles)
                new[cell] = (mover, value)
                new_rows = (rest, rows[1]) if mover == WHITE else (rows[0], rest)
                out.append(((new, new_rows, 1 - mover), bf_has_ten(new, mover), (cell, value, None, end)))
        return out
    for origin, (c, value) in tiles.items():
        if c != mover:
            continue
        x, y = origin
        if all((x + dx, y + dy) in tiles for dx, dy in EDGES):
            continue  # no free side
        rest = {k: v for k, v in tiles.items() if k != origin}
        if not rest or not bf_connected(set(rest)):
            continue
        for cell in bf_open_cells(rest) - {origin}:
            new = dict(rest)
            new[cell] = (mover, value)
            out.append(((new, rows, 1 - mover), bf_has_ten(new, mover), (cell, value, origin, None)))
    return out


def bf_value(state, depth: int) -> int:
    """+1 the mover forces a win within ``depth`` plies, -1 the opponent does, else 0."""
    if depth == 0:
        return 0
    moves = bf_moves(state)
    if any(won for _, won, _ in moves):
        return 1
    if depth == 1:
        return 0
    if not moves:  # pass
        tiles, rows, mover = state
        return -bf_value((tiles, rows, 1 - mover), depth - 1)
    ceiling = 1 if depth >= 3 else 0  # without an immediate win, a win needs a later own move
    best = -1
    for child, _, _ in moves:
        best = max(best, -bf_value(child, depth - 1))
        if best == ceiling:
            break
    return best


def bf_state(position: TenPosition):
    return dict(position.tiles), position.rows, position.to_move


# --- open variant: immediate wins and depth 3 ----------------------------------

def _positions():
    rng = random.Random(20240606)
    cases = []
    for i in range(150):  # 150: every kind of position (5 depth-3 losses); 240 took 20 s, 150 take 12 s
        left = rng.choice([0, 1, 2, 3, 4, 6, 8, 10, 12, 14, 16, 20, 24, 26])
        size = 15 if left > 4 else rng.choice([4, 5, 6])  # small fields reach the second round cheaply
        cases.append((i, left, size))
    return cases


POSITIONS = _positions()


def _random_position(i, left, size):
    return random_open_position(seed=1000 + i, tiles_left=min(left, 2 * size), row_size=size)


@shared_cache
def depth_three_value(i, left, size) -> int:
    """The brute force's depth-3 value of position ``i`` (both tests below ask for it)."""
    return bf_value(bf_state(_random_position(i, left, size)), 3)


def test_brute_force_sees_every_kind_of_position():
    """The sample covers placements, second-round moves, and each result (so the comparison can fail)."""
    kinds = set()
    for i, left, size in POSITIONS:
        position = _random_position(i, left, size)
        second = not position.rows[position.to_move]
        kinds.add(("second" if second else "place", depth_three_value(i, left, size)))
    assert {("place", 1), ("place", 0), ("place", -1), ("second", 0)} <= kinds


@pytest.mark.parametrize("i,left,size", POSITIONS)
def test_immediate_wins_and_depth_three_match_brute_force(i, left, size):
    position = _random_position(i, left, size)
    state = bf_state(position)
    expected_wins = {(cell[0], cell[1], value, origin) for _, won, (cell, value, origin, _) in bf_moves(state)
                     if won}
    found = {(w.x, w.y, w.value, w.origin) for w in winning_moves(position)}
    assert found == expected_wins
    expected = {1: "win", 0: "unknown", -1: "loss"}[depth_three_value(i, left, size)]
    assert solve_open(position, depth=3).result == expected


def test_threats_of_the_opponent_are_its_wins_if_it_moved_now():
    for seed in range(30):
        position = random_open_position(seed=seed, tiles_left=12)
        opponent = 1 - position.to_move
        flipped = TenPosition(position.tiles, opponent, "open", rows=position.rows)
        expected = {(cell[0], cell[1], value) for _, won, (cell, value, _, _) in bf_moves(bf_state(flipped)) if won}
        assert {(w.x, w.y, w.value) for w in threats(position)[opponent]} == expected


@pytest.mark.parametrize("seed", range(6))
def test_deeper_results_match_brute_force_on_small_rows(seed):
    """Depth 5 from the start of a game with short rows: TT, ordering and forced blocks stay exact."""
    position = random_open_position(seed=500 + seed, tiles_left=5, row_size=4)
    assert solve_open(position, depth=5).result == {1: "win", 0: "unknown", -1: "loss"}[
        bf_value(bf_state(position), 5)]


def test_principal_variation_of_a_win_is_legal_and_ends_in_a_ten():
    checked = 0
    for seed in range(60):
        position = random_open_position(seed=seed, tiles_left=10, quiet=True)
        result = solve_open(position, depth=5)
        if result.result != "win":
            continue
        state = bf_state(position)
        for colour, move in result.pv:
            assert colour == state[2]
            options = {(cell, value, end): (child, won) for child, won, (cell, value, _, end) in bf_moves(state)}
            state, won = options[((move.x, move.y), move.value, move.end)]
        assert won and len(result.pv) % 2 == 1
        checked += 1
    assert checked >= 3


# --- the rulebook's closing example ------------------------------------------

RULEBOOK_EXAMPLE = {
    "format": "tenfold.ten/1",
    "tiles": [
        # white's vertical 3+2+2 wants a 3 on (0, 0); black closes its lower end
        {"x": 0, "y": 1, "colour": "white", "value": 3},
        {"x": 0, "y": 2, "colour": "white", "value": 2},
        {"x": 0, "y": 3, "colour": "white", "value": 2},
        {"x": 0, "y": 4, "colour": "black", "value": 2},
        # white's diagonal 3+3+2 wants a 2 on (1, 0); black closes its lower end
        {"x": 2, "y": 1, "colour": "white", "value": 3},
        {"x": 3, "y": 2, "colour": "white", "value": 3},
        {"x": 4, "y": 3, "colour": "white", "value": 2},
        {"x": 5, "y": 4, "colour": "black", "value": 1},
        {"x": 2, "y": 2, "colour": "white", "value": 1},
        {"x": 1, "y": 1, "colour": "black", "value": 2},
        {"x": 3, "y": 1, "colour": "black", "value": 1},
        {"x": 4, "y": 2, "colour": "black", "value": 1},
        {"x": 5, "y": 3, "colour": "black", "value": 2},
    ],
    "to_move": "black",
    "variant": "open",
    "rows": {"white": [2, 1, 3], "black": [1, 1, 3]},
}


def test_rulebook_example_black_cannot_stop_both_threats():
    position = parse_position(RULEBOOK_EXAMPLE)
    assert winning_moves(position) == []
    assert {(w.x, w.y, w.value) for w in threats(position)[WHITE]} == {(0, 0, 3), (1, 0, 2)}
    assert solve_open(position, depth=1).result == "unknown"
    result = solve_open(position, depth=2)
    assert (result.result, result.depth) == ("loss", 2)
    assert bf_value(bf_state(position), 2) == -1
    # white to move in the same field wins at once
    assert solve_open(TenPosition(position.tiles, WHITE, "open", rows=position.rows), depth=1).result == "win"


def test_one_threat_can_be_blocked():
    data = dict(RULEBOOK_EXAMPLE)
    data["rows"] = {"white": [2, 1, 1], "black": [1, 1, 3]}  # white holds no 3: only the diagonal threat
    position = parse_position(data)
    assert {(w.x, w.y, w.value) for w in threats(position)[WHITE]} == {(1, 0, 2)}
    result = solve_open(position, depth=2)
    assert result.result == bf_value_name(position, 2) == "unknown"
    assert (result.pv[0][1].x, result.pv[0][1].y) == (1, 0)  # the only move that does not lose


def bf_value_name(position, depth):
    return {1: "win", 0: "unknown", -1: "loss"}[bf_value(bf_state(position), depth)]


# --- hidden stacks: exact probability against a plain expectimax ----------------

def bf_hidden(tiles, stacks, mover, target, depth, drawn=None) -> Fraction:
    """P(target wins within depth plies); target maximises, the other side minimises."""
    if depth == 0:
        return Fraction(0)
    stack = stacks[mover]
    if drawn is None:
        total = sum(stack)
        result = Fraction(0)
        for v in (1, 2, 3):
            if stack[v - 1]:
                rest = list(stack)
                rest[v - 1] -= 1
                new = (tuple(rest), stacks[1]) if mover == WHITE else (stacks[0], tuple(rest))
                result += Fraction(stack[v - 1], total) * bf_hidden(tiles, new, mover, target, depth, v)
        return result
    values = []
    for cell in bf_open_cells(tiles):
        new = dict(tiles)
        new[cell] = (mover, drawn)
        if bf_has_ten(new, mover):
            values.append(Fraction(1 if mover == target else 0))
        else:
            values.append(bf_hidden(new, stacks, 1 - mover, target, depth - 1))
    return max(values) if mover == target else min(values)


@pytest.mark.parametrize("seed", range(8))
def test_hidden_probability_matches_plain_expectimax(seed):
    rng = random.Random(seed)
    base = random_open_position(seed=700 + seed, tiles_left=20)
    stacks = []
    for colour in (WHITE, BLACK):
        left = [5, 5, 5]
        for c, v in base.tiles.values():
            if c == colour:
                left[v - 1] -= 1
        stacks.append(tuple(min(n, rng.randint(0, 2)) for n in left))
    if sum(stacks[base.to_move]) == 0 or sum(stacks[1 - base.to_move]) == 0:
        stacks = [(1, 1, 0), (0, 1, 1)]
    position = TenPosition(base.tiles, base.to_move, "hidden", stacks=tuple(stacks))
    depth = 3
    result = solve_hidden(position, depth=depth)
    expected = bf_hidden(dict(position.tiles), position.stacks, position.to_move, position.to_move, depth)
    assert result.win_probability == float(expected)
    assert Fraction(result.win_probability).limit_denominator(10**6) == expected


def _opponent_wins_at_once(position: TenPosition) -> bool:
    """Brute force: some legal move of the side to move wins on the spot."""
    from solver.ten.rules import apply_move, legal_moves

    return any(apply_move(position, move)[1] for move in legal_moves(position))


@pytest.mark.parametrize("seed", range(120))
def test_style_move_never_hands_the_opponent_an_immediate_win(seed):
    """Where the search sees no outcome, self-play picks by build score: never a move after which
    the opponent wins at once when some move avoids that (checked over every reply), and a win on
    the spot is taken."""
    from solver.ten.play import style_move
    from solver.ten.rules import apply_move, legal_moves

    tiles_left = 0 if seed % 5 == 0 else 30 - 6 - seed % 14  # 0: the second round, tiles move
    position = random_open_position(seed, tiles_left=tiles_left, quiet=seed % 3 > 0)
    move = style_move(position, depth=2, time_limit=5.0, history=None, rng=random.Random(seed))
    outcomes = [apply_move(position, m) for m in legal_moves(position)]
    if any(won for _, won in outcomes):
        assert apply_move(position, move)[1]
        return
    child, _ = apply_move(position, move)
    if _opponent_wins_at_once(child):  # then every move must lose at once
        assert all(_opponent_wins_at_once(c) for c, _ in outcomes), (seed, move)


def test_self_play_builds_runs_and_ends_in_wins():
    """Self-play used to take the first move generated wherever the search saw no outcome: every
    tile on one column, no run possible, no result after 120 moves. Now both players build."""
    from solver.ten.play import play_game

    games = [play_game(seed, variant, depth=3, time_limit=1.0) for seed in (1, 2) for variant in ("open", "hidden")]
    assert sum(game.winner is not None for game in games) >= 3
    for game in games:
        assert len({move.x for _, move in game.moves}) > 1 and len({move.y for _, move in game.moves}) > 1
