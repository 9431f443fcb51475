"""The engine against an independent reading of RULES.md (tests/reference_rules.py).

Seeded random boards (stones, pumpkins, many nearly complete lines and
Sudoku regions, sometimes a zone already complete) and random legal move
lists, with a random streak carried in. Per-move points, score, final board
and streak must match exactly, through ``Game.apply`` and ``tenfold replay``.
"""

from __future__ import annotations

import json
import random
from functools import lru_cache

import pytest
from typer.testing import CliRunner

from cli.main import app
from solver.board import parse_board
from solver.engine import Game, Streak
from solver.moves import parse_move
from solver.variants import find_variant
import reference_rules as ref

VARIANTS = ("halloween", "arabic", "sudoku")
CASES_PER_VARIANT = 500
CUSTOM_PIECES = ("#./##/.#", "#.#/###", "##./.##", "#..../#####")


@lru_cache(maxsize=None)
def _zone_cells(variant):
    return [cells for _, cells in ref.zones(variant)]


@lru_cache(maxsize=None)
def _zones_through(variant):
    """For each cell, the zones (as cell lists) that contain it: only to speed up move choice."""
    through = {(r, c): [] for r in range(10) for c in range(10)}
    for cells in _zone_cells(variant):
        for cell in cells:
            through[cell].append(cells)
    return through


def random_board(rng: random.Random, variant: str) -> str:
    """A board 0-70% full, with stones, pumpkins and nearly complete zones."""
    density = rng.uniform(0.0, 0.7)
    grid = [["#" if rng.random() < density else "." for _ in range(10)] for _ in range(10)]
    for r in range(10):
        for c in range(10):
            if grid[r][c] == "#" and rng.random() < 0.1:
                grid[r][c] = "P"
    zone_cells = _zone_cells(variant)
    # nearly complete zones: everything but 1-3 cells filled
    for _ in range(rng.randint(0, 5)):
        zone = rng.choice(zone_cells)
        gaps = set(rng.sample(zone, rng.randint(1, 3)))
        for r, c in zone:
            grid[r][c] = "." if (r, c) in gaps else (grid[r][c] if grid[r][c] != "." else "#")
    for _ in range(rng.choice((0, 0, 1, 2, 4, 4, 6))):
        r, c = rng.randrange(10), rng.randrange(10)
        grid[r][c] = "S"
    if rng.random() < 0.9:
        # usually no zone is complete before the first move
        changed = True
        while changed:
            changed = False
            for zone in zone_cells:
                if all(grid[r][c] != "." for r, c in zone):
                    free = [(r, c) for r, c in zone if grid[r][c] != "S"]
                    if free:
                        r, c = rng.choice(free)
                        grid[r][c] = "."
                        changed = True
    return ref.grid_text(grid)


def _would_clear(piece, row, col, through, gaps) -> bool:
    """Whether the placement fills the last gaps of a zone through its cells; ``gaps`` holds
    each zone's empty cells on the grid (``_gaps``: worked out once per move, not per spot)."""
    cells = {(row + dr, col + dc) for dr, dc in ref.piece_cells(piece)}
    for cell in cells:
        for zone in through[cell]:
            if gaps[id(zone)] <= cells:
                return True
    return False


def _gaps(grid, variant) -> dict[int, set]:
    """Each zone's empty cells on the grid, keyed by the id of its cell list (the lists of
    ``_zone_cells``, which ``_zones_through`` hands out: cached, so the ids hold)."""
    return {id(zone): {(r, c) for r, c in zone if grid[r][c] == "."} for zone in _zone_cells(variant)}


def random_moves(rng: random.Random, variant: str, board: str, count: int) -> list[dict]:
    """A legal move list, chosen on the reference grid; often a placement that clears."""
    game = ref.RefGame(variant, board)
    through = _zones_through(variant)
    pool = [s for _, group in ref.SUPPLY[variant] for s in group]
    moves = []
    for _ in range(count):
        pieces = rng.sample(pool, len(pool))
        if rng.random() < 0.05:
            pieces.insert(0, rng.choice(CUSTOM_PIECES))
        want_clear = rng.random() < 0.6
        chosen = None
        gaps = _gaps(game.grid, variant) if want_clear else None
        for piece in pieces:
            spots = ref.fitting_spots(game.grid, piece)
            if not spots:
                continue
            if want_clear:
                clearing = [s for s in spots if _would_clear(piece, *s, through, gaps)]
                if not clearing:
                    if chosen is None:
                        chosen = (piece, rng.choice(spots))
                    continue
                chosen = (piece, rng.choice(clearing))
            else:
                chosen = (piece, rng.choice(spots))
            break
        if chosen is None:
            break  # nothing fits any more
        piece, (row, col) = chosen
        game.place(piece, row, col)
        moves.append({"piece": piece, "row": row, "col": col})
    return moves


@lru_cache(maxsize=None)
def make_case(variant: str, seed: int) -> dict:
    rng = random.Random(f"{variant}-{seed}")
    board = random_board(rng, variant)
    streak = rng.choice((0, 0, 0, 1, 2, 3, 5))
    moves = random_moves(rng, variant, board, rng.randint(1, 12))
    expected = ref.RefGame(variant, board, streak)
    points = [expected.place(m["piece"], m["row"], m["col"]) for m in moves]
    return {
        "variant": variant,
        "board": board,
        "streak": streak,
        "moves": moves,
        "points": points,
        "score": expected.score,
        "final_board": expected.text,
        "final_streak": expected.run,
    }


def _engine_replay(case: dict) -> tuple[list[int], Game]:
    game = Game(find_variant(case["variant"]), parse_board(case["board"]), Streak.carried_in(case["streak"]))
    points = [game.apply(parse_move(m)).points for m in case["moves"]]
    return points, game


@pytest.mark.parametrize("variant", VARIANTS)
def test_engine_matches_reference(variant):
    clears = 0
    for seed in range(CASES_PER_VARIANT):
        case = make_case(variant, seed)
        points, game = _engine_replay(case)
        where = f"{variant} case {seed}: board {case['board']} streak {case['streak']} moves {case['moves']}"
        assert points == case["points"], where
        assert game.score == case["score"], where
        assert game.board.text() == case["final_board"], where
        assert game.streak.run == case["final_streak"], where
        clears += sum(p >= 100 if variant != "halloween" else p >= 10 for p in case["points"])
    # the generator must actually exercise clears, not just placements
    assert clears > CASES_PER_VARIANT


def test_generated_cases_cover_the_interesting_situations():
    """Stones, pumpkins, carried-in streaks, already-complete zones, multi-zone
    clears and lone Sudoku region clears all occur (counted by the reference)."""
    seen = dict.fromkeys(("stones", "pumpkins", "streak", "complete at start", "multi", "region"), 0)
    for variant in VARIANTS:
        for seed in range(CASES_PER_VARIANT):
            case = make_case(variant, seed)
            seen["stones"] += "S" in case["board"]
            seen["pumpkins"] += "P" in case["board"]
            seen["streak"] += case["streak"] > 0
            grid = ref.parse_grid(case["board"])
            seen["complete at start"] += any(
                all(grid[r][c] != "." for r, c in cells) for cells in _zone_cells(variant)
            )
            if variant == "sudoku":
                game = ref.RefGame(variant, case["board"], 0)
                for m in case["moves"]:
                    clear = game.place(m["piece"], m["row"], m["col"]) - 10 * len(ref.piece_cells(m["piece"]))
                    seen["multi"] += clear >= 400
                    seen["region"] += clear == 150
    for key, count in seen.items():
        assert count > 5, (key, seen)


def _write_moves(tmp_path, name, moves) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(moves))
    return str(path)


@pytest.mark.parametrize("variant", VARIANTS)
def test_cli_replay_json_matches_reference(variant, tmp_path):
    runner = CliRunner()
    for seed in range(0, CASES_PER_VARIANT, 15):
        case = make_case(variant, seed)
        args = ["replay", "--rules", variant, "--board", case["board"],
                "--moves", _write_moves(tmp_path, f"{seed}.json", case["moves"]), "--json"]
        if case["streak"]:
            args += ["--streak", str(case["streak"])]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        out = json.loads(result.stdout)
        assert out == {"score": case["score"], "board": case["final_board"], "streak": case["final_streak"]}


@pytest.mark.parametrize("variant", VARIANTS)
def test_cli_replay_of_turns_matches_reference(variant, tmp_path):
    """replay --moves as a list of turns of 1 to 3 placements (a level's trays of fewer pieces):
    each turn ends, and pays its flow bonus, where the list says, as the reference's end_turn."""
    runner = CliRunner()
    sizes_seen = set()
    for seed in range(0, CASES_PER_VARIANT, 5):
        case = make_case(variant, seed)
        rng = random.Random(f"turns-{variant}-{seed}")
        turns, moves = [], list(case["moves"])
        while moves:
            size = rng.randint(1, min(3, len(moves)))
            turns.append(moves[:size])
            moves = moves[size:]
        sizes_seen.update(len(turn) for turn in turns)
        expected = ref.RefGame(variant, case["board"], case["streak"])
        for turn in turns:
            for m in turn:
                expected.place(m["piece"], m["row"], m["col"])
            if expected.in_turn:
                expected.end_turn()
        args = ["replay", "--rules", variant, "--board", case["board"], "--streak", str(case["streak"]),
                "--moves", _write_moves(tmp_path, f"{seed}.json", turns), "--json"]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout) == {"score": expected.score, "board": expected.text,
                                             "streak": expected.run}, (case, turns)
    assert sizes_seen == {1, 2, 3}


def test_replay_turns_hand_counted_arabic_flow(tmp_path):
    """Arabic's +50 flow comes at the end of a turn that cleared after one that cleared. Rows 0
    and 1 nine tiles each: a 1x1 closing row 0 (1 + 100) and a 1x1 elsewhere (1) as one turn,
    then a 1x1 closing row 1 (1 + 100) as the next: 101 + 1 + 101 + 50 = 253. The same three
    placements as one turn of three: 203, with no second turn to pay the flow."""
    board = "/".join(["#########."] * 2 + ["." * 10] * 8)
    one = {"piece": "1x1", "row": 0, "col": 9}
    other = {"piece": "1x1", "row": 5, "col": 5}
    two = {"piece": "1x1", "row": 1, "col": 9}
    third = {"piece": "1x1", "row": 6, "col": 6}
    scores = []
    # and a flat list that stops inside its second turn leaves it open: no flow (204), where the
    # same moves as two turns pay it (254)
    for moves in ([[one, other], [two]], [one, other, two], [[one, other, two]],
                  [one, other, third, two], [[one, other, third], [two]]):
        result = CliRunner().invoke(app, ["replay", "--rules", "arabic", "--board", board, "--moves",
                                          _write_moves(tmp_path, "m.json", moves), "--json"])
        assert result.exit_code == 0, result.output
        scores.append(json.loads(result.stdout)["score"])
    assert scores == [253, 203, 203, 204, 254]


@pytest.mark.parametrize("moves, message", [
    ([[]], "moves[0]: expected a turn of 1 to 3 placements, got 0"),
    ([[{"token": "reroll"}]], "moves[0]: expected a turn of 1 to 3 placements, got 0"),
    ([[{"piece": "1x1", "row": r, "col": 0} for r in range(4)]],
     "moves[0]: expected a turn of 1 to 3 placements, got 4"),
    ([[{"piece": "1x1", "row": 0, "col": 0}], {"piece": "1x1", "row": 1, "col": 0}],
     'moves[1]: expected a turn (a list of moves), as the first is, got {"piece": "1x1", "row": 1, "col": 0}'),
    ([[{"piece": "1x1", "row": 0, "col": 0}], [{"piece": "1x1", "row": 0, "col": 0}]],
     "moves[1][0]: piece 1x1 at row 0, col 0 overlaps a tile at row 0, col 0"),
])
def test_replay_turns_bad_input(tmp_path, moves, message):
    path = _write_moves(tmp_path, "m.json", moves)
    result = CliRunner().invoke(app, ["replay", "--rules", "arabic", "--moves", path])
    assert result.exit_code == 2 and result.stderr.strip() == f"error: --moves {path}: {message}", result.output


def test_cli_replay_reads_moves_from_stdin_and_board_from_file(tmp_path):
    case = make_case("sudoku", 7)
    board_file = tmp_path / "board.txt"
    board_file.write_text(case["board"].replace("/", "\n") + "\n")
    result = CliRunner().invoke(
        app,
        ["replay", "--rules", "sudoku", "--board", str(board_file), "--moves", "-",
         "--streak", str(case["streak"]), "--json"],
        input=json.dumps(case["moves"]),
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["score"] == case["score"]
    assert json.loads(result.stdout)["board"] == case["final_board"]


def _random_mask(rng: random.Random) -> str:
    """A random piece as a #/. mask: up to 4x4, two opposite corners kept so that no edge row or
    column is blank (a blank one in the middle makes a piece of two parts, which a level may
    define too)."""
    rows, cols = rng.randint(1, 4), rng.randint(1, 4)
    grid = [[rng.random() < 0.6 for _ in range(cols)] for _ in range(rows)]
    grid[0][0] = grid[-1][-1] = True
    return "/".join("".join("#" if cell else "." for cell in row) for row in grid)


def test_zones_touching_keeps_a_bounded_cache_and_right_answers(monkeypatch):
    """``zones_touching`` kept every spot it was asked about, for ever: a server asked about
    random custom pieces grew 0.21 MB a thousand requests, all of it that cache (a helper's
    audit, 200,000 requests). Past ``TOUCH_CACHE`` masks it starts afresh; its answers stay the
    zones through the mask's cells, and the best plans of trays of custom pieces (the path the
    server's hints take) replay through the move applier to the points they claim."""
    from solver import variants
    from solver.board import Board
    from solver.tray import best_plan

    monkeypatch.setattr(variants, "TOUCH_CACHE", 50, raising=False)
    rng = random.Random(2026)
    for name in ("halloween", "sudoku"):
        variant = find_variant(name)
        for _ in range(400):
            mask = 0
            for cell in rng.sample(range(100), rng.randint(1, 9)):
                mask |= 1 << cell
            expected = tuple((zone, i >= len(variant.lines)) for i, zone in enumerate(variant.zones) if zone & mask)
            assert variant.zones_touching(mask) == expected
            assert len(variant._touch_cache) <= 50
        planned = 0
        for _ in range(30):
            tray = [_random_mask(rng) for _ in range(3)]
            board = Board(rng.getrandbits(100) & rng.getrandbits(100), 0, 0)
            plan = best_plan(variant, board, tray, Streak())
            assert len(variant._touch_cache) <= 50
            if plan is not None:
                points, moves = plan
                game = Game(variant, board)
                assert sum(game.apply(move).points for move in moves) == points
                planned += 1
        assert planned >= 20  # (most trays fit their board)
