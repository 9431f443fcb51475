"""``tenfold ten``: JSON shapes, the rulebook example, and bad positions as one line with exit code 2."""

from __future__ import annotations

import copy
import json

import pytest
from typer.testing import CliRunner

from cli.main import app
from test_ten_search import RULEBOOK_EXAMPLE

runner = CliRunner(mix_stderr=False) if "mix_stderr" in CliRunner.__init__.__code__.co_varnames else CliRunner()


def write(tmp_path, data, name="position.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return str(path)


def test_wins_json_shape(tmp_path):
    result = runner.invoke(app, ["ten", "wins", write(tmp_path, RULEBOOK_EXAMPLE), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    column = [{"x": 0, "y": y} for y in range(4)]  # 3 + 3 + 2 + 2 down column 0
    diagonal = [{"x": x, "y": x - 1} for x in range(1, 5)]  # 2 + 3 + 3 + 2 down the diagonal
    assert data == {"wins": [], "threats": {"white": [{"x": 0, "y": 0, "value": 3, "runs": [column]},
                                                      {"x": 1, "y": 0, "value": 2, "runs": [diagonal]}],
                                           "black": []}}


def test_solve_rulebook_example_is_a_loss_for_black(tmp_path):
    result = runner.invoke(app, ["ten", "solve", write(tmp_path, RULEBOOK_EXAMPLE), "--depth", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"result", "depth", "pv", "win_probability"}
    assert (data["result"], data["depth"], data["win_probability"]) == ("loss", 2, None)
    assert [m["colour"] for m in data["pv"]] == ["black", "white"]


def test_solve_hidden_reports_a_probability(tmp_path):
    data = copy.deepcopy(RULEBOOK_EXAMPLE)
    del data["rows"]
    data["variant"] = "hidden"
    data["stacks"] = {"white": {"1": 1, "2": 1, "3": 0}, "black": {"1": 1, "2": 0, "3": 1}}
    result = runner.invoke(app, ["ten", "solve", write(tmp_path, data), "--depth", "3", "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    # white wins next turn if it draws its 2 (one of two tiles) — unless black blocks (1, 0) now, which
    # leaves it a 3 it does not hold: black's best leaves white 0, and black itself cannot win in 3
    assert answer["win_probability"] == 0.0 and answer["result"] in ("unknown", "loss")


@pytest.mark.parametrize("change,message", [
    (lambda d: d["tiles"][0].update(colour="purple"), "tiles[0].colour: unknown colour \"purple\""),
    (lambda d: d["tiles"][3].update(value=4), "tiles[3].value: expected a tile value 1, 2 or 3, got 4"),
    (lambda d: d["tiles"][3].update(value=3.0), "tiles[3].value: expected a tile value 1, 2 or 3, got 3.0"),
    (lambda d: d.pop("rows"), "rows: missing"),
    # (blind acceptance audit: the open variant passed stacks over, and the game over named no file)
    (lambda d: d.update(stacks={"white": {"1": 1, "2": 0, "3": 0}, "black": {"1": 0, "2": 0, "3": 0}}),
     "position.json: field stacks: a position holds the hands as rows (the open variant) or as stacks (hidden), "
     "not both"),
    (lambda d: d.update(variant="hidden",
                        stacks={"white": {"1": 1, "2": 0, "3": 0}, "black": {"1": 0, "2": 0, "3": 0}}),
     "position.json: field rows: a position holds the hands as rows"),
    (lambda d: d["tiles"].append({"x": 0, "y": 0, "colour": "white", "value": 3}),
     "position.json: field tiles: the game is over: white already has a run of 10"),
])
def test_malformed_position_one_line_exit_two(tmp_path, change, message):
    data = copy.deepcopy(RULEBOOK_EXAMPLE)
    change(data)
    for command in (["ten", "wins"], ["ten", "solve"]):
        result = runner.invoke(app, command + [write(tmp_path, data)])
        assert result.exit_code == 2
        err = result.stderr if hasattr(result, "stderr") and result.stderr is not None else result.output
        lines = err.strip().splitlines()
        assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.output


def test_the_text_writes_every_cell_alike_and_counts_one_move_as_one(tmp_path):
    """A lift's cell is written as every other cell, (x,y) (it was '(1, 1)'), and a game of one
    move has 'no result after 1 move' (an acceptance audit's notes)."""
    row = [{"x": x, "y": 0, "colour": "white", "value": 3} for x in range(3)]
    lift = {"tiles": [*row, {"x": 1, "y": 1, "colour": "white", "value": 1}, {"x": 0, "y": -1, "colour": "black",
                                                                            "value": 2}],
            "to_move": "white", "variant": "open", "rows": {"white": [], "black": []}}
    wins = runner.invoke(app, ["ten", "wins", write(tmp_path, lift)])
    assert wins.exit_code == 0, wins.output
    assert "  1 on (3,0) from (1,1) completes (0,0) (1,0) (2,0) (3,0)" in wins.stdout.splitlines()
    one = runner.invoke(app, ["ten", "play", "--seed", "1", "--max-plies", "1", "--json"])
    assert one.exit_code == 0 and json.loads(one.stdout)["result"] == "no result after 1 move"


def test_a_hand_of_null_is_no_hand():
    """null stands for a field left out, for the other variant's hand as for drawn."""
    for hidden in (False, True):
        data = copy.deepcopy(RULEBOOK_EXAMPLE)
        if hidden:
            data.update(variant="hidden", stacks={"white": {"1": 1}, "black": {"2": 1}}, rows=None)
        else:
            data.update(stacks=None, drawn=None)
        result = runner.invoke(app, ["ten", "wins", "-"], input=json.dumps(data))
        assert result.exit_code == 0, result.output


def test_not_json_and_missing_file(tmp_path):
    bad = runner.invoke(app, ["ten", "wins", write(tmp_path, "{not json")])
    assert bad.exit_code == 2 and "invalid JSON" in (bad.stderr or bad.output)
    missing = runner.invoke(app, ["ten", "solve", str(tmp_path / "nope.json")])
    assert missing.exit_code == 2 and "no such file" in (missing.stderr or missing.output)


def test_play_is_seeded_and_draws_the_field():
    first = runner.invoke(app, ["ten", "play", "--seed", "3", "--depth", "2", "--max-plies", "6", "--json"])
    again = runner.invoke(app, ["ten", "play", "--seed", "3", "--depth", "2", "--max-plies", "6", "--json"])
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout) == json.loads(again.stdout)
    assert len(json.loads(first.stdout)["moves"]) == 6
    assert first.stderr == ""  # off a terminal the drawing is left out: the JSON holds the moves
    drawn = runner.invoke(app, ["ten", "play", "--seed", "3", "--variant", "hidden", "--depth", "2",
                                "--max-plies", "4"])
    assert drawn.exit_code == 0, drawn.output
    assert "W" in drawn.stdout and "B" in drawn.stdout


def test_play_rejects_unknown_variant():
    result = runner.invoke(app, ["ten", "play", "--seed", "1", "--variant", "blind"])
    assert result.exit_code == 2


def test_solve_shows_a_live_status_and_ctrl_c_answers_with_the_deepest_finished_depth(tmp_path, monkeypatch,
                                                                                       python_ctrl_c):
    """With no depth or time limit a one-tile opening is searched to the end of the placement
    phase (28 plies), far longer than a test waits: on a terminal a status line counts its nodes
    (no score: Ten has none), and Ctrl-C stops it with the answer so far and exit 130, like
    ``tenfold solve``."""
    from cli import console
    from solver import watch
    from watchers import ctrl_c_after

    opening = {"format": "tenfold.ten/1", "variant": "open", "to_move": "black",
               "tiles": [{"x": 0, "y": 0, "colour": "white", "value": 3}],
               "rows": {"white": [2, 3, 1, 3, 1, 3, 2, 1, 3, 1, 2, 2, 2, 1],
                        "black": [3, 3, 2, 2, 1, 2, 1, 3, 3, 3, 1, 2, 2, 1, 1]}}
    example = write(tmp_path, opening)
    monkeypatch.setattr(console, "terminal", lambda: True)
    monkeypatch.setattr(console, "STATUS_EVERY", 0.0)
    watch.WATCHERS.append(ctrl_c_after(12))
    try:
        result = runner.invoke(app, ["ten", "solve", str(example), "--json"])
    finally:
        watch.WATCHERS.clear()
    assert result.exit_code == 130, result.output
    data = json.loads(result.stdout)
    assert data["result"] == "unknown" and 1 <= data["depth"] < 28 and data["pv"]
    draws = [part for part in result.stderr.split("\r") if part.strip()]
    assert draws[0].startswith("solving the position: ") and " nodes" in draws[0] and "best" not in draws[0]
    assert draws[-1].strip().startswith("interrupted: the answer is the deepest depth finished before Ctrl-C")


def test_solve_hidden_json_names_the_move_for_each_draw(tmp_path):
    """With hidden stacks the move waits on the draw: the JSON's ``best_by_draw`` (its pv is
    empty) holds, for each value the side to move can draw, a legal placement of that value, the
    same the text lists; an open position's answer keeps the four keys of its shape."""
    data = copy.deepcopy(RULEBOOK_EXAMPLE)
    del data["rows"]
    data.update(variant="hidden", to_move="white",
                stacks={"white": {"1": 1, "2": 0, "3": 1}, "black": {"1": 1, "2": 0, "3": 1}})
    path = write(tmp_path, data)
    answer = json.loads(runner.invoke(app, ["ten", "solve", path, "--depth", "2", "--json"]).stdout)
    assert answer["pv"] == [] and set(answer["best_by_draw"]) == {"1", "3"}  # white holds no 2
    taken = {(t["x"], t["y"]) for t in data["tiles"]}
    for value, move in answer["best_by_draw"].items():
        cell = (move["x"], move["y"])
        assert move["value"] == int(value) and cell not in taken
        assert any((cell[0] + dx, cell[1] + dy) in taken for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))
    text = runner.invoke(app, ["ten", "solve", path, "--depth", "2"]).stdout
    for value, move in answer["best_by_draw"].items():
        assert f"if white draws a {value}: play it on ({move['x']},{move['y']})" in text
    opened = json.loads(runner.invoke(app, ["ten", "solve", write(tmp_path, RULEBOOK_EXAMPLE, "open.json"),
                                            "--depth", "2", "--json"]).stdout)
    assert set(opened) == {"result", "depth", "pv", "win_probability"}


def test_solve_stops_at_a_minute_unless_told_otherwise(tmp_path, monkeypatch):
    """An opening searched to the end of the placement phase does not finish: with no
    --time-limit the search gets 60 s (it ran without end, printing nothing), ``inf`` none."""
    import solver.ten

    asked = []
    real = solver.ten.solve
    monkeypatch.setattr(solver.ten, "solve", lambda position, depth, limit: asked.append(limit) or real(position, 1, 5))
    path = write(tmp_path, RULEBOOK_EXAMPLE)
    for extra in ([], ["--time-limit", "inf"], ["--time-limit", "7"]):
        assert runner.invoke(app, ["ten", "solve", path, *extra]).exit_code == 0
    assert asked == [60.0, None, 7.0]


def test_solve_says_where_a_player_passes_in_the_line(tmp_path):
    """The text names the pass that the JSON line leaves out (white twice in a row); the line went
    no further than the pass before."""
    from solver.ten.rules import position_winner
    from solver.ten.position import position_to_json
    from solver.ten.search import solve_open
    from test_ten_search import line_of_black_between_whites

    seed = next(s for s in range(100) if position_winner(line_of_black_between_whites(s)) is None
                and len(solve_open(line_of_black_between_whites(s), depth=3).pv) == 2)
    path = write(tmp_path, position_to_json(line_of_black_between_whites(seed)))
    data = json.loads(runner.invoke(app, ["ten", "solve", path, "--depth", "3", "--json"]).stdout)
    assert data["result"] == "win" and [move["colour"] for move in data["pv"]] == ["white", "white"]
    text = runner.invoke(app, ["ten", "solve", path, "--depth", "3"])
    assert text.exit_code == 0
    [line] = [line for line in text.stdout.splitlines() if line.startswith("line: ")]
    first, second = data["pv"]
    assert line == (f"line: white {first['value']}@({first['x']},{first['y']}) from ({first['from']['x']},"
                    f"{first['from']['y']}), black passes, white {second['value']}@({second['x']},{second['y']}) "
                    f"from ({second['from']['x']},{second['from']['y']})"), line


def test_wins_text_draws_the_field_and_lists_each_win_and_threat(tmp_path):
    """The text of ``ten wins``: the field cell by cell under its x and beside its y (W a white
    tile, B a black one), the count of wins, and a line of threats for each player. White's row
    3 + 3 + 2 makes 10 with a 2 at either end, and white's row holds a 2; black's lone 1 and its
    3 make no 10 anywhere."""
    position = {"format": "tenfold.ten/1", "variant": "open", "to_move": "white",
                "tiles": [{"x": 0, "y": 0, "colour": "white", "value": 3},
                          {"x": 1, "y": 0, "colour": "white", "value": 3},
                          {"x": 2, "y": 0, "colour": "white", "value": 2},
                          {"x": 0, "y": 1, "colour": "black", "value": 1}],
                "rows": {"white": [2, 1], "black": [3]}}
    result = runner.invoke(app, ["ten", "wins", write(tmp_path, position)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert [line.split() for line in lines[:3]] == [["0", "1", "2"], ["0", "W3", "W3", "W2"], ["1", "B1", ".", "."]]
    assert lines[3] == "white to move: 2 winning move(s)"
    assert sorted(lines[4:6]) == ["  2 on (-1,0) completes (-1,0) (0,0) (1,0) (2,0)",
                                  "  2 on (3,0) completes (0,0) (1,0) (2,0) (3,0)"]
    [white] = [line for line in lines if line.startswith("threats of white: ")]
    assert sorted(white.removeprefix("threats of white: ").split(", ")) == ["2@(-1,0)", "2@(3,0)"]
    assert "threats of black: none" in lines


def test_play_text_marks_each_move_and_shows_the_hands_left():
    """Each move of ``ten play``'s text: the move, the field with the cell just played in
    brackets (under its x, beside its y), and the hands left. Open rows: each player starts with
    five tiles each of 1, 2 and 3 (RULES.md) and takes one from an end of its row."""
    result = runner.invoke(app, ["ten", "play", "--seed", "2", "--depth", "1", "--max-plies", "3"])
    assert result.exit_code == 0, result.output
    *blocks, outcome = result.stdout.strip().split("\n\n")
    # (a run of 10 takes at least 4 tiles of one colour: no game is won in 3 moves)
    assert outcome == "no result after 3 moves" and len(blocks) == 3
    hands = {"white": None, "black": None}
    for n, block in enumerate(blocks):
        lines = block.splitlines()
        colour, _, value, _, cell = lines[0].split("  [")[0].split()
        assert colour == ("white", "black")[n % 2], lines[0]
        x, y = map(int, cell.strip("()").split(","))
        xs = [int(v) for v in lines[1].split()]
        field = {int(line[:5]): line[6:] for line in lines[2:-1]}
        marked = [(xs[i], row) for row, text in field.items()
                  for i in range(len(xs)) if text[5 * i:5 * i + 4].startswith("[")]
        assert marked == [(x, y)], block
        i = xs.index(x)
        assert field[y][5 * i:5 * i + 4] == f"[{colour[0].upper()}{value}]", block
        white, black = lines[-1].split("   black: ")
        now = {"white": [int(v) for v in white.removeprefix("white: ").split()],
               "black": [int(v) for v in black.split()]}
        for who, held in now.items():
            before = hands[who]
            if before is None:  # a player's row as first shown: its 15 tiles, less the one played
                full = held + [int(value)] if who == colour else held
                assert sorted(full) == [1] * 5 + [2] * 5 + [3] * 5, block
            elif who == colour:
                assert held in (before[1:], before[:-1]) and int(value) in (before[0], before[-1]), block
            else:
                assert held == before, block
        hands = now


def test_play_json_on_a_terminal_draws_the_game_on_stderr(monkeypatch):
    """On a terminal, ``ten play --json`` still draws the game for the person watching, on
    stderr: stdout holds the JSON alone (docs/cli.md: --json's output is on stdout, notes on
    stderr)."""
    from cli import console

    monkeypatch.setattr(console, "terminal", lambda: True)
    result = runner.invoke(app, ["ten", "play", "--seed", "1", "--depth", "1", "--max-plies", "2", "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert len(answer["moves"]) == 2
    assert result.stderr.count(" plays ") == 2 and "white: " in result.stderr


def test_play_defaults_are_the_documented_ones(monkeypatch):
    """docs/cli.md: open rows, depth 4, 2 s a move and 120 moves unless told otherwise; a
    depth is 1 to 12."""
    import cli.ten_cmds

    asked = []
    real = cli.ten_cmds.play_game
    monkeypatch.setattr(cli.ten_cmds, "play_game", lambda seed, variant, depth, limit, plies, on_move:
                        asked.append((variant, depth, limit, plies)) or real(seed, variant, 1, 1.0, 1, on_move))
    assert runner.invoke(app, ["ten", "play", "--seed", "1", "--json"]).exit_code == 0
    assert asked == [("open", 4, 2.0, 120)]
    for depth in ("0", "13"):
        result = runner.invoke(app, ["ten", "play", "--seed", "1", "--depth", depth])
        assert result.exit_code == 2 and f"1 to 12, got {depth}" in (result.stderr or result.output)


def test_solve_hidden_text_gives_the_chance_and_the_cell_for_each_draw(tmp_path):
    """Hidden stacks: white draws one of its two tiles, each at even odds (docs/ten.md). A 2
    ends white's row 3 + 3 + 2 at 10, on (3,0) or (-1,0); a 1 cannot win at once. So white wins
    within 1 ply with probability 1/2, and the text names, for a drawn 2, a cell that wins."""
    position = {"format": "tenfold.ten/1", "variant": "hidden", "to_move": "white",
                "tiles": [{"x": 0, "y": 0, "colour": "white", "value": 3},
                          {"x": 1, "y": 0, "colour": "white", "value": 3},
                          {"x": 2, "y": 0, "colour": "white", "value": 2},
                          {"x": 0, "y": 1, "colour": "black", "value": 1}],
                "stacks": {"white": {"1": 1, "2": 1, "3": 0}, "black": {"1": 0, "2": 0, "3": 1}}}
    result = runner.invoke(app, ["ten", "solve", write(tmp_path, position), "--depth", "1"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "probability that white wins within 1 plies: 0.500000" in lines
    assert any(line in lines for line in ("  if white draws a 2: play it on (3,0)",
                                          "  if white draws a 2: play it on (-1,0)")), lines
