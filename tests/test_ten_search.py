"""The Ten solvers against an independent brute force written plainly here.

Shared with the solver: only the position parser/model. The brute force keeps
the field as a dict of (x, y) -> (colour, value), finds maximal runs by
scanning every tile, checks connectivity by flood fill, and searches every
move to the full depth.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest

from shared_memo import shared_cache
from solver.ten.play import random_open_position
from solver.ten.position import BLACK, WHITE, TenPosition, colour_name, parse_position
from solver.ten.lines import threats, winning_moves
from solver.ten.search import solve_open
from solver.ten.chance import solve_hidden

LINES = ((1, 0), (0, 1), (1, 1), (1, -1))
EDGES = ((1, 0), (-1, 0), (0, 1), (0, -1))


# --- the brute force -------------------------------------------------------

def bf_ten_runs(tiles: dict, colour: int) -> set[frozenset]:
    """Every maximal straight run of ``colour``'s tiles summing to 10, each as its set of cells."""
    found = set()
    for (x, y), (c, _) in tiles.items():
        if c != colour:
            continue
        for dx, dy in LINES:
            if tiles.get((x - dx, y - dy), (None,))[0] == colour:
                continue  # not the first tile of its run
            total, cx, cy, cells = 0, x, y, []
            while tiles.get((cx, cy), (None,))[0] == colour:
                total += tiles[(cx, cy)][1]
                cells.append((cx, cy))
                cx, cy = cx + dx, cy + dy
            if total == 10:
                found.add(frozenset(cells))
    return found


def bf_has_ten(tiles: dict, colour: int) -> bool:
    return bool(bf_ten_runs(tiles, colour))


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
    mover = position.to_move
    expected_wins = {(cell[0], cell[1], value, origin,
                      # the runs a placement completes pass through its tile; a relocation's may not
                      frozenset(run for run in bf_ten_runs(after[0], mover) if origin or cell in run))
                     for after, won, (cell, value, origin, _) in bf_moves(state) if won}
    found = {(w.x, w.y, w.value, w.origin, frozenset(map(frozenset, w.runs))) for w in winning_moves(position)}
    assert found == expected_wins
    for w in winning_moves(position):  # each run's cells in order along its line
        for run in w.runs:
            steps = {(b[0] - a[0], b[1] - a[1]) for a, b in zip(run, run[1:])}
            assert len(steps) <= 1 and steps <= set(LINES) | {(-dx, -dy) for dx, dy in LINES}, run
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


def line_of_black_between_whites(seed: int) -> TenPosition:
    """A second-round position, white to move: a row of tiles whose inner ones are black (each
    holds the row together, so black cannot move one), its ends white, and a few white tiles off
    the ends; random values. Black must often pass."""
    rng = random.Random(seed)
    length = rng.randint(4, 7)
    tiles = {(x, 0): (WHITE if x in (0, length - 1) else BLACK, rng.randint(1, 3)) for x in range(length)}
    for _ in range(rng.randint(0, 3)):
        x = rng.choice([0, length - 1]) + rng.choice([-1, 0, 1])
        tiles.setdefault((x, rng.choice([-1, 1]) if 0 <= x < length else 0), (WHITE, rng.randint(1, 3)))
    return TenPosition(tiles, WHITE, "open", rows=((), ()))


def replay_line(position: TenPosition, pv) -> tuple[int, bool]:
    """Play a line on the brute force: a side whose colour the next move skips must have no move
    (a pass); returns the passes and whether the last move made a ten."""
    state, won, passes = bf_state(position), False, 0
    for colour, move in pv:
        assert not won, "a move after the win"
        if state[2] != colour:
            assert not bf_moves(state), f"{colour_name(state[2])} is skipped but has a move"
            state, passes = (state[0], state[1], colour), passes + 1
        options = {(cell, value, origin): (child, w) for child, w, (cell, value, origin, _) in bf_moves(state)}
        state, won = options[((move.x, move.y), move.value, move.origin)]
    return passes, won


def test_a_line_goes_on_past_a_pass_to_the_win():
    """A forced win whose line has the opponent pass: the line went on no further than the pass
    (its first move only, an auditor's case); it is legal and ends in a ten, passes left out."""
    with_passes = lost = 0
    for seed in range(240):
        position = line_of_black_between_whites(seed)
        if bf_has_ten(position.tiles, WHITE) or bf_has_ten(position.tiles, BLACK):
            continue
        result = solve_open(position, depth=3)
        if result.result == "win":
            passes, won = replay_line(position, result.pv)
            assert won, (seed, result.pv)
            with_passes += passes > 0
        # black to move has no move (each black tile holds the row together): no line, not white's moves
        black = TenPosition(position.tiles, BLACK, "open", rows=position.rows)
        assert not bf_moves(bf_state(black))
        result = solve_open(black, depth=3)
        assert result.pv == [] and result.result == {1: "win", 0: "unknown", -1: "loss"}[
            bf_value(bf_state(black), 3)], seed
        lost += result.result == "loss"
    assert with_passes >= 8 and lost >= 2, (with_passes, lost)


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


# --- self-play replayed move by move on the brute force ------------------------------

def bf_repetition_key(state):
    """The field up to translation (normalised to its top-left corner) and the side to move."""
    tiles, _, mover = state
    if not tiles:
        return (), mover
    left, top = min(x for x, _ in tiles), min(y for _, y in tiles)
    return tuple(sorted(((x - left, y - top), tile) for (x, y), tile in tiles.items())), mover


def bf_replay_game(start: TenPosition, game, max_plies: int) -> dict:
    """Replay a self-played open game from ``start`` on the brute force alone and check it.

    Every move must be one of the brute force's legal moves for the side to move (placements
    while it holds tiles, second-round moves after), and the solver's own move list at each
    position reached must be exactly the brute force's; a turn missing from the record (a pass)
    is only allowed where the brute force finds no legal move; a win on the spot is never turned
    down. The game must end exactly where RULES §2 ends it: at the first move after which the
    mover has a maximal run of 10 (that colour is the winner), or at the third occurrence of a
    second-round position (same field up to translation, same side to move: a draw), or else
    after ``max_plies`` turns with no result. Returns counts of what the game went through.
    """
    from solver.ten.rules import legal_moves

    state = bf_state(start)
    assert not bf_has_ten(state[0], WHITE) and not bf_has_ten(state[0], BLACK)
    seen = Counter()
    stats = Counter()

    def second_round(s):
        return not s[1][WHITE] and not s[1][BLACK]

    def arrive(s):  # the result of reaching ``s`` without a win: a draw on its third occurrence
        if second_round(s):
            seen[bf_repetition_key(s)] += 1
            if seen[bf_repetition_key(s)] == 3:
                return "draw"
        return None

    def pass_turn(s, ply):
        if bf_moves(s):
            raise AssertionError(f"ply {ply}: {colour_name(s[2])} passed, but the brute force has moves for it")
        stats["passes"] += 1
        return (s[0], s[1], 1 - s[2])

    arrive(state)
    ended, turns = None, 0
    for ply, (colour, move) in enumerate(game.moves):
        while ended is None and state[2] != colour:  # the record skips passes
            state = pass_turn(state, ply)
            turns += 1
            ended = arrive(state)
        assert ended is None, f"ply {ply}: {move} played after the game ended ({ended})"
        options = {(cell, value, origin, end): (child, won)
                   for child, won, (cell, value, origin, end) in bf_moves(state)}
        here = TenPosition(state[0], state[2], "open", rows=state[1])
        differ = {((m.x, m.y), m.value, m.origin, m.end) for m in legal_moves(here)} ^ set(options)
        assert not differ, f"ply {ply}: legal_moves and the brute force differ on {list(differ)[:4]}"
        key = ((move.x, move.y), move.value, move.origin, move.end)
        if key not in options:
            raise AssertionError(f"ply {ply}: {colour_name(colour)} {move} is not legal by the brute force")
        if any(won for _, won in options.values()):
            assert options[key][1], f"ply {ply}: {colour_name(colour)} {move} turns down a win on the spot"
        state, won = options[key]
        turns += 1
        if move.origin is not None:
            stats["second"] += 1
            stats["second_wins"] += won
        else:
            stats["placements"] += 1
        ended = colour if won else arrive(state)
    while ended is None and turns < max_plies and not bf_moves(state):  # passes after the last move
        state = pass_turn(state, len(game.moves))
        turns += 1
        ended = arrive(state)
    declared = game.winner if game.winner is not None else "draw" if game.drawn else None
    if ended is None and turns < max_plies:
        raise AssertionError(f"the game stops ({declared}) after {len(game.moves)} moves; by the brute force"
                             f" it goes on: no win, no third occurrence, and {colour_name(state[2])} can move")
    assert declared == ended, f"the game's result is {declared}, the brute force's {ended}"
    assert (dict(game.final.tiles), game.final.rows, game.final.to_move) == state
    stats[{WHITE: "white", BLACK: "black", "draw": "draws", None: "unfinished"}[ended]] += 1
    return stats


# (row size, tiles left, seed) of random_open_position: games that start a few placements from
# the end of the placement phase, or at the start of the second round, with no winner yet. What
# each did when picked (play depth 2; about 5 s in all): 3,0,10 and 3,3,8 repetition draws with passes;
# 5,2,0 two placements, passes, a white win; 5,0,1 a draw after 12 moves; 6,0,4, 7,1,4 white and
# 8,0,6, 6,1,4 black second-round wins; 15,*: full 30-tile fields, won in the second round. In
# all: 105 tiles moved, 7 games won by moving a tile, 3 draws, 7 passes.
LATE_STARTS = [(3, 0, 10), (3, 3, 8), (5, 2, 0), (5, 0, 1), (6, 0, 4), (7, 1, 4), (8, 0, 6), (6, 1, 4),
               (15, 2, 0), (15, 0, 0)]
LATE_MAX_PLIES = 80

# Second round, white to move: its 3 3 3 1 1 is 11 (black closes the left end), and white's only
# wins lift the last 1 (3+3+3+1 left behind: RULES' "any maximal run" after the move), none through
# the cell the tile goes to. Self-play from random starts met no such win in ~7,000 second-round moves.
SPLIT_WIN_START = {
    "tiles": [{"x": x, "y": 0, "colour": "white", "value": v} for x, v in enumerate((3, 3, 3, 1, 1))]
    + [{"x": x, "y": 1, "colour": "black", "value": v} for x, v in enumerate((1, 2, 1, 2, 1))]
    + [{"x": -1, "y": 0, "colour": "black", "value": 2}],
    "to_move": "white", "variant": "open", "rows": {"white": [], "black": []},
}


def test_self_play_into_the_second_round_replays_on_the_brute_force(monkeypatch):
    """play_game from late positions (its ``new_game`` swapped for the start: play_game takes no
    start position), each game replayed on the brute force; the second round must really be
    played: tiles moved, games won by moving a tile, repetition draws."""
    import solver.ten.play as play_module

    starts = [(seed, f"random_open_position(seed={seed}, tiles_left={left}, row_size={size})",
               random_open_position(seed=seed, tiles_left=left, row_size=size)) for size, left, seed in LATE_STARTS]
    starts.append((0, "SPLIT_WIN_START", parse_position(SPLIT_WIN_START)))
    totals = Counter()
    for seed, name, start in starts:
        monkeypatch.setattr(play_module, "new_game", lambda _seed, _variant="open", start=start: start)
        game = play_module.play_game(seed, "open", depth=2, time_limit=60.0, max_plies=LATE_MAX_PLIES)
        try:
            stats = bf_replay_game(start, game, LATE_MAX_PLIES)
        except AssertionError as failure:
            raise AssertionError(f"play_game({seed}, 'open', depth=2, max_plies={LATE_MAX_PLIES}) from {name}:"
                                 f" {failure}") from failure
        totals.update(stats)
    assert stats == {"second": 1, "second_wins": 1, "white": 1}  # the split win, taken at once
    assert totals["second"] >= 80, totals
    assert totals["second_wins"] >= 5 and totals["draws"] >= 2 and totals["passes"] >= 2, totals
    assert totals["white"] >= 2 and totals["black"] >= 2 and totals["placements"] >= 5, totals


def _start_of(game) -> TenPosition:
    """An open game's starting position: an empty field, and the rows rebuilt from the final rows
    and the tiles taken (each from the end the move names)."""
    rows = [list(game.final.rows[WHITE]), list(game.final.rows[BLACK])]
    for colour, move in reversed(game.moves):
        if move.origin is None:
            if move.end == 0:
                rows[colour].insert(0, move.value)
            else:
                rows[colour].append(move.value)
    return TenPosition({}, WHITE, "open", rows=(tuple(rows[WHITE]), tuple(rows[BLACK])))


@pytest.mark.parametrize("seed,variant", [(1, "open"), (5, "open"), (7, "open"), (4, "hidden")])
def test_play_cli_json_is_the_python_game(seed, variant):
    """``tenfold ten play --json`` reports the game play_game plays with the same settings (move by
    move, winner, result); the open games are also replayed on the brute force from their start."""
    import json

    from typer.testing import CliRunner

    from cli.main import app
    from solver.ten.play import play_game

    depth, time_limit, max_plies = 2, 60.0, 120  # a limit no move nears: both runs are deterministic
    runner = CliRunner(mix_stderr=False) if "mix_stderr" in CliRunner.__init__.__code__.co_varnames else CliRunner()
    result = runner.invoke(app, ["ten", "play", "--seed", str(seed), "--variant", variant, "--depth", str(depth),
                                 "--time-limit", str(time_limit), "--max-plies", str(max_plies), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    game = play_game(seed, variant, depth=depth, time_limit=time_limit, max_plies=max_plies)
    assert data["moves"] == [move.to_json(colour) for colour, move in game.moves]
    assert data["winner"] == (None if game.winner is None else colour_name(game.winner))
    assert data["result"] == (f"{colour_name(game.winner)} wins" if game.winner is not None
                              else "draw by threefold repetition" if game.drawn
                              else f"no result after {len(game.moves)} moves")
    assert game.winner is not None and len(game.moves) >= 8  # these seeds: won after 8 to 14 moves
    if variant == "open":
        start = _start_of(game)
        assert sorted(start.rows[WHITE]) == sorted(start.rows[BLACK]) == [v for v in (1, 2, 3) for _ in range(5)]
        bf_replay_game(start, game, max_plies)


HIDDEN_SECOND_ROUND_WIN = {
    "format": "tenfold.ten/1", "variant": "hidden", "to_move": "white", "drawn": 3,
    "tiles": [{"x": 0, "y": -1, "colour": "white", "value": 2}, {"x": 0, "y": 0, "colour": "white", "value": 1},
              {"x": 2, "y": 0, "colour": "white", "value": 2}, {"x": 0, "y": 3, "colour": "black", "value": 1},
              {"x": 2, "y": 1, "colour": "black", "value": 3}, {"x": 1, "y": 0, "colour": "black", "value": 2},
              {"x": 1, "y": 3, "colour": "black", "value": 1}, {"x": 1, "y": -1, "colour": "white", "value": 3},
              {"x": 1, "y": 1, "colour": "black", "value": 2}, {"x": 1, "y": 2, "colour": "black", "value": 3},
              {"x": 2, "y": 3, "colour": "white", "value": 2}, {"x": -1, "y": 0, "colour": "white", "value": 2}],
    "stacks": {"white": {"1": 0, "2": 0, "3": 0}, "black": {"1": 1, "2": 0, "3": 0}}}


@pytest.mark.parametrize("seed", range(60))
def test_hidden_second_round_names_its_best_move(seed):
    """In the second round no tile is left to draw, so hidden stacks play as open tiles: the win
    probability is 1 exactly where the brute force finds a forced win, and the answer names one
    legal move (it named none: pv empty, no best_by_draw, even for a certain win), which wins at
    once or leaves the opponent lost by the brute force; none only when the mover must pass."""
    size = (3, 4, 5, 6, 8)[seed % 5]
    base = random_open_position(seed=4000 + seed, tiles_left=0, row_size=size)
    position = TenPosition(base.tiles, base.to_move, "hidden", stacks=((0, 0, 0), (0, 0, 0)))
    state = bf_state(base)
    depth = 1 + seed % 3
    result = solve_hidden(position, depth=depth)
    assert (result.win_probability == 1) == (bf_value(state, depth) == 1), (seed, result)
    options = {(cell, value, origin): (child, won) for child, won, (cell, value, origin, _) in bf_moves(state)}
    if not options:
        assert result.pv == []
        return
    [(colour, move)] = result.pv
    assert colour == base.to_move and move.end is None and not result.best_by_draw
    key = ((move.x, move.y), move.value, move.origin)
    assert key in options, (seed, move)
    if result.result == "win":
        child, won = options[key]
        assert won or bf_value(child, result.depth - 1) == -1, (seed, move)


def test_hidden_default_depth_reaches_into_the_second_round():
    """An independent auditor's position: white places its last tile (the drawn 3), black its
    last, and white's first move of the second round wins for certain (at ply 3). The default
    depth is 4 as documented, not the 2 tiles left, which reported a win chance of 0 (the
    deepening stops at the depth that settles it, 3)."""
    position = parse_position(HIDDEN_SECOND_ROUND_WIN)
    default = solve_hidden(position)
    assert (default.depth, default.result, default.win_probability) == (3, "win", 1)
    assert solve_hidden(position, 2).win_probability == 0  # within the placements alone: no win
    assert solve_hidden(position, 3).win_probability == 1
    assert default.pv == solve_hidden(position, 3).pv


@pytest.mark.parametrize("hidden", [False, True])
def test_the_clock_is_read_often_enough_for_slow_second_round_nodes(monkeypatch, hidden):
    """A second-round node on a line of 30 tiles lists every move of every free tile (some
    milliseconds), and the clock, read at every 1,024th node, let a 1 s limit run 4-7 s. With a
    clock that moves 0.1 s at each read, a 1 s limit now stops within about a dozen reads of
    16 nodes (open: with its first depth finished)."""
    import solver.ten.chance as chance_module
    import solver.ten.search as search_module

    class Clock:
        now = 0.0

        @classmethod
        def perf_counter(cls):
            cls.now += 0.1
            return cls.now

    for module in (search_module, chance_module):
        monkeypatch.setattr(module, "time", Clock)
    line = [{"x": i, "y": 0, "colour": "white" if i % 2 == 0 else "black", "value": [1, 2, 3][i // 2 % 3]}
            for i in range(30)]
    hands = {"stacks": {"white": {}, "black": {}}} if hidden else {"rows": {"white": [], "black": []}}
    position = parse_position({"format": "tenfold.ten/1", "variant": "hidden" if hidden else "open",
                               "to_move": "white", "tiles": line, **hands}, "line")
    result = (solve_hidden if hidden else solve_open)(position, 8, 1.0)
    assert 16 < result.nodes <= 16 * 12, result.nodes  # (read at every 1,024th node: thousands)
    assert result.depth >= 1


@pytest.mark.parametrize("seed", range(6))
def test_hidden_time_limit_answers_with_the_deepest_depth_finished(monkeypatch, seed):
    """The docs' promise for --time-limit (an auditor's case: depth 12 with 3 s answered depth 0,
    'unknown', though depth 4 takes 0.04 s): the time runs out early in depth 4, and the answer
    is depth 3's, exactly as a search to depth 3 alone gives it."""
    import solver.ten.chance as chance_module

    base = random_open_position(seed=900 + seed, tiles_left=20)
    position = TenPosition(base.tiles, base.to_move, "hidden", stacks=((2, 2, 1), (1, 2, 2)))
    three = solve_hidden(position, depth=3)
    four = solve_hidden(position, depth=4)
    assert four.nodes > three.nodes
    ticks = {"n": 0}
    real_tick = chance_module.HiddenSearch._tick

    def tick(self):  # the clock runs out at depth 4's second node (each depth searches afresh)
        ticks["n"] += 1
        if ticks["n"] > three.nodes + 1:
            raise chance_module.SearchTimeout
        real_tick(self)

    monkeypatch.setattr(chance_module.HiddenSearch, "_tick", tick)
    result = solve_hidden(position, depth=12, time_limit=1e9)
    if three.result != "unknown":  # settled at a shallower depth: the deepening stopped there
        assert (result.depth, result.result) == (three.depth, three.result)
        return
    assert (result.depth, result.result, result.win_probability) == (3, "unknown", three.win_probability)
    assert result.best_by_draw == three.best_by_draw


def test_depth_three_across_the_last_placements_matches_brute_force():
    """Two tiles left to place: the depth-3 search crosses from the placements into the second
    round (a side that has placed its last tile moves one next), as the brute force does; 150
    seeded positions with wins, losses and neither (a mutation audit found no test there)."""
    results = Counter()
    for seed in range(150):
        position = random_open_position(seed=seed, tiles_left=2, row_size=5)
        expected = {1: "win", 0: "unknown", -1: "loss"}[bf_value(bf_state(position), 3)]
        assert solve_open(position, depth=3).result == expected, seed
        results[expected] += 1
    assert results["win"] >= 5 and results["loss"] >= 1, results


def test_threefold_repetition_is_a_draw():
    """Two 1s and no tiles left to place: nobody can ever make ten, and the tiles can only walk
    around each other. Within 3 plies no position comes back a third time (unknown); within 5 a
    third repetition can be forced whichever way the horizon counts (RULES.md §2: a draw)."""
    position = parse_position({"format": "tenfold.ten/1", "variant": "open", "to_move": "white",
                                "tiles": [{"x": 0, "y": 0, "colour": "white", "value": 1},
                                          {"x": 1, "y": 0, "colour": "black", "value": 1}],
                                "rows": {"white": [], "black": []}})
    assert solve_open(position, depth=3).result == "unknown"
    assert solve_open(position, depth=5).result == "draw"


# --- metamorphic relations: what a relabelling of a position must leave as it is -------------------

FIELD_MAPS = {"turned a quarter": lambda x, y: (-y, x), "mirrored": lambda x, y: (-x, y),
              "on the diagonal": lambda x, y: (y, x), "shifted": lambda x, y: (x + 3, y - 7)}


def relabelled(position: TenPosition, cell=None, swap: bool = False, reverse: bool = False) -> TenPosition:
    """``position`` with its field mapped by ``cell``, the colours swapped (who moves too), or both
    open rows reversed (a row's two ends are alike), read back from its file."""
    from solver.ten.position import position_to_json

    tiles = {(cell(x, y) if cell else (x, y)): ((1 - c if swap else c), v) for (x, y), (c, v) in position.tiles.items()}
    rows, stacks = position.rows, position.stacks
    if swap:
        rows = rows and (rows[1], rows[0])
        stacks = stacks and (stacks[1], stacks[0])
    if reverse:
        rows = tuple(tuple(reversed(r)) for r in rows)
    image = TenPosition(tiles, 1 - position.to_move if swap else position.to_move, position.variant, rows, stacks,
                        position.drawn)
    return parse_position(position_to_json(image), "image")


def relation_positions():
    """Open positions placing and in the second round, and hidden stacks with and without a drawn
    tile; (position, depth)."""
    out = []
    for seed in range(32):
        rng = random.Random(f"ten-relations-{seed}")
        kind = ("open", "second", "hidden", "hidden-second")[seed % 4]
        second = kind.endswith("second")
        size = rng.choice((4, 5, 6)) if second else 15
        position = random_open_position(seed=70000 + seed, tiles_left=rng.choice((0, 1, 2)) if second else
                                        rng.choice((4, 6, 8, 10)), row_size=size, quiet=rng.random() < 0.7)
        if kind.startswith("hidden"):
            stacks = tuple(tuple(row.count(v) for v in (1, 2, 3)) for row in position.rows)
            drawn = None
            if kind == "hidden" and seed % 8 == 2 and sum(stacks[position.to_move]):
                drawn = max(v for v in (1, 2, 3) if stacks[position.to_move][v - 1])
                held = list(stacks[position.to_move])
                held[drawn - 1] -= 1
                stacks = tuple(tuple(held) if c == position.to_move else stacks[c] for c in (0, 1))
            position = TenPosition(position.tiles, position.to_move, "hidden", None, stacks, drawn)
            depth = 3
        else:
            depth = 3 if second else min(rng.choice((4, 5, 6)), len(position.rows[0]) + len(position.rows[1]))
        out.append((position, depth))
    return out


@pytest.mark.parametrize("index", range(32))
def test_a_relabelled_position_has_the_same_answer(index):
    """The field turned, mirrored, on its diagonal or shifted, the colours swapped (with and without
    a mirror), or an open position's rows reversed: the same result, depth and win chance (the rules
    know no direction, no place and no colour but the mover's). A metamorphic audit held 3,511 such
    pairs (2026-12-05)."""
    from solver.ten import solve

    position, depth = relation_positions()[index]
    answer = solve(position, depth=depth)
    images = [relabelled(position, cell) for cell in FIELD_MAPS.values()]
    images += [relabelled(position, swap=True), relabelled(position, FIELD_MAPS["mirrored"], swap=True)]
    if position.variant == "open":
        images.append(relabelled(position, reverse=True))
    for image in images:
        got = solve(image, depth=depth)
        assert (got.result, got.depth, got.win_probability) == (answer.result, answer.depth, answer.win_probability)


def test_the_relabelled_positions_have_every_kind_of_answer():
    """The relation is not only among unknowns: wins, losses, and win chances strictly between."""
    from solver.ten import solve

    answers = [solve(p, depth=d) for p, d in relation_positions()]
    results = Counter(a.result for a in answers)
    chances = [a.win_probability for a in answers if a.win_probability is not None]
    assert results["win"] + results["loss"] >= 3 and results["unknown"] >= 3, results
    assert any(0 < c < 1 for c in chances), chances


@pytest.mark.parametrize("seed", range(12))
def test_the_chance_before_the_draw_is_the_mean_of_the_chances_after(seed):
    """Hidden stacks: the mover's win chance with no tile drawn is the average over the tiles it may
    draw, weighted by their counts, of its chance with that tile drawn (exact, as fractions)."""
    rng = random.Random(f"ten-draw-{seed}")
    position = random_open_position(seed=91000 + seed, tiles_left=rng.choice((4, 6, 8, 10, 14)),
                                    quiet=rng.random() < 0.5)
    stacks = tuple(tuple(row.count(v) for v in (1, 2, 3)) for row in position.rows)
    mover = position.to_move
    depth = rng.choice((1, 2))
    before = solve_hidden(TenPosition(position.tiles, mover, "hidden", None, stacks), depth=depth)
    mean = Fraction(0)
    for value in (1, 2, 3):
        count = stacks[mover][value - 1]
        if count:
            held = list(stacks[mover])
            held[value - 1] -= 1
            after = tuple(tuple(held) if c == mover else stacks[c] for c in (0, 1))
            drawn = solve_hidden(TenPosition(position.tiles, mover, "hidden", None, after, value), depth=depth)
            mean += Fraction(count, sum(stacks[mover])) * Fraction(drawn.win_probability)
    assert abs(float(mean) - before.win_probability) < 1e-12
# From a mutation audit of Ten's solver (2026-12-06): hand-built positions, where hundreds of
# random ones had passed each mutant.

def _two_threats_one_hidden(white_row):
    """Black's diagonal (1,1),(2,2),(3,3) = 3+3+3 needs a 1 on (0,0), which no tile touches yet;
    black's column (1,1..3) = 9 needs a 1 on (1,0), its only winning cell. White must block on (1,0)
    (a tile elsewhere leaves black's runs as they are), and that tile opens (0,0): black wins with its
    next tile (RULES.md §2: the new cell shares an edge with the field)."""
    def t(x, y, c, v):
        return {"x": x, "y": y, "colour": c, "value": v}
    return parse_position({"format": "tenfold.ten/1", "variant": "open", "to_move": "white",
                           "tiles": [t(1, 1, "black", 3), t(1, 2, "black", 3), t(1, 3, "black", 3),
                                     t(2, 2, "black", 3), t(3, 3, "black", 3),
                                     t(2, 1, "white", 1), t(3, 2, "white", 1), t(1, 4, "white", 1)],
                           "rows": {"white": white_row, "black": [1]}})


def test_a_forced_block_that_opens_a_winning_cell_loses():
    """The depth-2 shortcut must count the cells a block opens for the opponent (a mutation audit:
    ignoring them answered "unknown" here)."""
    position = _two_threats_one_hidden([2, 2])
    assert {(w.x, w.y, w.value) for w in threats(position)[BLACK]} == {(1, 0, 1)}
    assert bf_value_name(position, 2) == "loss"
    result = solve_open(position, depth=2)
    assert (result.result, result.depth) == ("loss", 2)
    assert [(m.x, m.y, m.value) for _, m in result.pv] == [(1, 0, 2), (0, 0, 1)]


def test_a_loss_is_reported_at_the_first_depth_that_proves_it():
    """docs/ten.md: iterative deepening stops at the first depth that proves a win *or a loss*
    and reports that depth (a mutation audit: going on past a loss reported depth 4)."""
    result = solve_open(_two_threats_one_hidden([2, 2]), depth=4)
    assert (result.result, result.depth) == ("loss", 2)


def test_the_default_depth_reaches_the_last_placement():
    """docs/ten.md: the open default depth is the tiles left in both hands (here 2: white's 2 and
    black's winning 1), so the loss on the very last placement is found (a mutation audit: a
    default one ply short answered "unknown")."""
    position = _two_threats_one_hidden([2])
    assert bf_value_name(position, 2) == "loss"
    result = solve_open(position)
    assert (result.result, result.depth) == ("loss", 2)


def test_transposition_bounds_are_used_only_where_they_hold():
    """The table's entries are bounds (flag) proven within some depth: a fail-low "unknown" (UPPER)
    says only "at most unknown" (it may be a loss), and a win within 5 plies is no win within 3 (a
    mutation audit: using either as a lower bound went unnoticed by every search test)."""
    from solver.ten.search import EXACT, LOWER, UPPER, OpenSearch
    from solver.ten.search import LOSS as L, UNKNOWN as U, WIN as W

    search = OpenSearch(random_open_position(seed=1, tiles_left=10))
    key = ("any",)
    search.tt[key] = (3, U, UPPER, None)
    assert search._probe(key, 3, L, W)[:3] == (None, L, U)   # narrows the window, proves nothing
    search.tt[key] = (3, U, EXACT, None)
    assert search._probe(key, 3, L, W)[0] == U
    search.tt[key] = (5, W, LOWER, None)
    assert search._probe(key, 3, L, W)[:3] == (None, L, W)   # a deeper win says nothing at depth 3
    assert search._probe(key, 6, L, W)[0] == W                # but holds at any greater depth


@pytest.mark.parametrize("mover", [WHITE, BLACK])
def test_a_draw_needs_both_sides_unable_to_escape_it(mover):
    """White 1, black 1, white 1 in a row, nobody can make ten: black's tile joins the two whites, so
    it can never move (RULES.md §2: removal must keep the field connected), while white's end tiles
    can walk and keep black stuck. Within 8 plies white can force a third repetition, but it can
    also avoid one, so not every line ends in a draw: "unknown", not "draw" (docs/ten.md; a
    mutation audit: accepting either side's forced repetition as a draw went unnoticed)."""
    position = TenPosition({(0, 0): (WHITE, 1), (1, 0): (BLACK, 1), (2, 0): (WHITE, 1)}, mover, "open",
                           rows=((), ()))
    assert solve_open(position, depth=8).result == "unknown"


# White to move holding a 2, with stacks of three 1s, a 2 and a 3 each: values drawn with unequal odds.
WEIGHTED_DRAWS_FIELD = {(0, 0): (WHITE, 2), (0, 1): (WHITE, 2), (-1, 0): (WHITE, 3),
                        (0, -1): (BLACK, 1), (1, 1): (BLACK, 3), (0, -2): (BLACK, 2)}


def test_hidden_draws_are_weighted_by_the_tiles_left():
    """RULES.md §2: the next tile is drawn at random from the tiles left, so a value comes up with
    probability count/size. Stacks of three 1s, a 2 and a 3, depth 4 (both players draw inside the
    tree), against the plain expectimax (a mutation audit: drawing uniformly among the values left
    answered 1/2 here and passed every test, whose stacks held 0-2 of each value)."""
    tiles = dict(WEIGHTED_DRAWS_FIELD)
    position = TenPosition(tiles, WHITE, "hidden", stacks=((3, 0, 1), (3, 1, 1)), drawn=2)
    expected = bf_hidden(dict(tiles), position.stacks, WHITE, WHITE, 4, drawn=2)
    assert expected == Fraction(1, 4)
    assert Fraction(solve_hidden(position, depth=4).win_probability).limit_denominator(1000) == expected


def test_hidden_forced_block_that_opens_a_winning_cell_loses():
    """The open position of test_a_forced_block_that_opens_a_winning_cell_loses with hidden stacks:
    white holds a 2, black's last tile is a 1. White can only block on (1,0), which opens (0,0), so
    black wins for sure: "loss" (a mutation audit: the depth-2 shortcut ignoring opened cells said
    "unknown")."""
    position = _two_threats_one_hidden([2, 2])
    position = TenPosition(position.tiles, WHITE, "hidden", stacks=((0, 1, 0), (1, 0, 0)), drawn=2)
    assert bf_hidden(dict(position.tiles), position.stacks, WHITE, BLACK, 2, drawn=2) == 1
    result = solve_hidden(position, depth=2)
    assert (result.result, result.depth, result.win_probability) == ("loss", 2, 0.0)


def test_a_hidden_repetition_draw_is_no_win():
    """test_threefold_repetition_is_a_draw's position with hidden stacks (both empty): within 5 plies
    a third repetition can be forced, and a draw is not a win (RULES.md §2), so white's chance stays 0
    (a mutation audit: counting the draw as a win for the side counted answered "win")."""
    position = TenPosition({(0, 0): (WHITE, 1), (1, 0): (BLACK, 1)}, WHITE, "hidden", stacks=((0, 0, 0), (0, 0, 0)))
    result = solve_hidden(position, depth=5)
    assert (result.result, result.depth, result.win_probability) == ("unknown", 5, 0.0)


def test_hidden_loss_only_when_the_opponent_wins_for_sure():
    """docs/ten.md: "loss" if the opponent wins with probability 1. Same field as above, but black
    draws its 1 only half the time (stack: a 1 and a 2): "unknown" (a mutation audit: "loss" for any
    chance of the opponent's went unnoticed)."""
    position = _two_threats_one_hidden([2, 2])
    position = TenPosition(position.tiles, WHITE, "hidden", stacks=((0, 1, 0), (1, 1, 0)), drawn=2)
    assert bf_hidden(dict(position.tiles), position.stacks, WHITE, BLACK, 2, drawn=2) == Fraction(1, 2)
    result = solve_hidden(position, depth=2)
    assert (result.result, result.win_probability) == ("unknown", 0.0)


def test_hidden_default_depth_is_four_plies():
    """docs/ten.md: hidden stacks search 4 plies by default (a mutation audit: a default of 3 went
    unnoticed, since the auditor's second-round position settles at ply 3)."""
    tiles = dict(WEIGHTED_DRAWS_FIELD)
    result = solve_hidden(TenPosition(tiles, WHITE, "hidden", stacks=((3, 0, 1), (3, 1, 1)), drawn=2))
    assert (result.result, result.depth, result.win_probability) == ("unknown", 4, 0.25)


def test_hidden_second_round_escapes_a_loss_by_a_third_repetition():
    """RULES.md §2: a position repeated three times with the same player to move is a draw. A
    second-round position (hidden stacks, both empty) that white loses within 2 plies, with a history
    in which the field after white's first legal move, black to move, has been seen twice: that move
    draws, so "unknown", not "loss" (a mutation audit: keying the hidden search's repetitions by the
    side that just moved, not the side to move, went unnoticed)."""
    from solver.ten.rules import apply_move, legal_moves
    from solver.ten.search import repetition_key

    base = random_open_position(seed=77, tiles_left=0, row_size=5)
    position = TenPosition(base.tiles, base.to_move, "hidden", stacks=((0, 0, 0), (0, 0, 0)))
    assert solve_hidden(position, depth=2).result == "loss"
    after, won = apply_move(position, legal_moves(position)[0])
    assert not won
    history = {repetition_key(position): 1, repetition_key(after): 2}
    result = solve_hidden(position, depth=2, history=history)
    assert (result.result, result.win_probability) == ("unknown", 0.0)
