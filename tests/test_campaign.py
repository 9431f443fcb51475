"""The campaign search on hand-made levels whose answers are worked out by hand, and
``tenfold solve`` / ``tenfold verify`` through the CLI (exit codes 0, 1, 2)."""

from __future__ import annotations

import functools
import json
import re
import time

import pytest
from typer.testing import CliRunner

from cli.main import app
from solver.campaign import solve_level
from solver.campaign_cpsat import solve_level_cpsat
from solver.level import parse_level, play_solution
from solver.moves import Placement, TokenUse, parse_moves
from solver.verify import verify_level

from watchers import ctrl_c_after

EMPTY = "." * 10
STONES = "S" * 10


def level_data(variant="halloween", mode="campaign", board=None, trays=(("1x1",),), goals=({"score": 1},), **extra):
    data = {
        "format": "tenfold.level/1", "id": "hand", "variant": variant, "mode": mode,
        "board": list(board or [EMPTY] * 10), "trays": [list(t) for t in trays], "goals": [dict(g) for g in goals],
    }
    data.update(extra)
    return data


def both(data):
    level = parse_level(data)
    return level, solve_level(level, time_limit=20), solve_level_cpsat(level, time_limit=20)


def test_pumpkin_goal_met_only_one_way():
    # Row 0 holds the pumpkin and misses only (0,9); column 0 misses nine cells.
    # The 1x1 at (0,9) is the one line that clears the pumpkin: 1 cell + one row (10) = 11.
    board = ["P########."] + [EMPTY] * 9
    level, search, cpsat = both(level_data(board=board, goals=[{"pumpkins": True}, {"score": 11}]))
    for answer in (search, cpsat):
        assert (answer.solvable, answer.best_score, answer.proof) == (True, 11, "optimal")
        assert answer.solution == [Placement("1x1", 0, 9)]


def test_a_replay_names_only_the_goals_it_holds_a_line_to():
    """A replay that leaves the score goal out (``ignore_score``: the searches' best lines) names
    the goals unmet without it; a full replay names both."""
    level = parse_level(level_data(board=["P########."] + [EMPTY] * 9, goals=[{"pumpkins": True}, {"score": 11}]))
    line = [Placement("1x1", 5, 5)]  # one point; the pumpkin stays
    assert play_solution(level, line).problem == 'goals not met at the end: [{"pumpkins": true}, {"score": 11}]'
    assert play_solution(level, line, ignore_score=True).problem == 'goals not met at the end: [{"pumpkins": true}]'
    assert play_solution(level, [Placement("1x1", 0, 9)], ignore_score=True).ok


def test_pumpkin_goal_infeasible():
    # A 1x2 cannot fill the single gap of the pumpkin's row, nor nine cells of its column.
    board = ["P########."] + [EMPTY] * 9
    level, search, cpsat = both(level_data(board=board, trays=[["1x2"]], goals=[{"pumpkins": True}]))
    for answer in (search, cpsat):
        assert (answer.solvable, answer.best_score, answer.proof, answer.solution) == (False, None, "infeasible", None)


def test_limit_stops_before_place_all():
    data = level_data(trays=[["1x1", "1x1"]], goals=[{"place_all": True}], limit=1)
    _, search, cpsat = both(data)
    for answer in (search, cpsat):
        assert (answer.solvable, answer.best_score, answer.proof) == (False, None, "infeasible")
    data["limit"] = 2  # both placements allowed: 1 + 1 cells, no clear
    _, search, cpsat = both(data)
    for answer in (search, cpsat):
        assert (answer.solvable, answer.best_score, answer.proof) == (True, 2, "optimal")


def test_limit_below_piece_count_takes_the_best_prefix():
    # One placement on an empty board: the 2x2 (4 points) beats the 1x1; the 2x2 comes second.
    data = level_data(trays=[["1x1", "2x2"]], goals=[{"score": 4}], limit=1)
    _, search, cpsat = both(data)
    for answer in (search, cpsat):
        assert (answer.solvable, answer.best_score, answer.proof) == (True, 4, "optimal")
        assert len(answer.solution) == 1 and answer.solution[0].piece == "2x2"


def test_halloween_streak_across_trays():
    # Rows 0 and 1 each miss their last cell. Two 1x1 in two trays: the first clears row 0
    # (1 + 10), the second clears row 1 after a clearing placement (1 + 10 + 5) = 27.
    board = ["#########.", "#########."] + [EMPTY] * 8
    _, search, cpsat = both(level_data(board=board, trays=[["1x1"], ["1x1"]], goals=[{"score": 27}]))
    for answer in (search, cpsat):
        assert (answer.solvable, answer.best_score, answer.proof) == (True, 27, "optimal")


def test_a_row_of_stones_clears_again_every_second_cell():
    # Row 0 holds eight stones and a tile at (0,8); (0,9) is empty. Five 1x1: (0,9) clears the
    # row (1 + 10), which empties (0,8) and (0,9); (0,8) then scores 1 and (0,9) clears it
    # again (1 + 10, no streak: the placement before cleared nothing); then 1, then 1 + 10.
    # Best 5 cells + 3 clears = 35; no column can complete (each misses nine cells). An upper
    # bound that let a zone complete again only after every zone of its family had completed
    # once cut this line off and claimed 23 optimal.
    board = ["SSSSSSSS#."] + [EMPTY] * 9
    data = level_data(board=board, trays=[["1x1"] * 3, ["1x1"] * 2], goals=[{"score": 1}], limit=5)
    level, search, cpsat = both(data)
    for answer in (search, cpsat, solve_level(level, time_limit=20, compiled=False)):
        assert (answer.solvable, answer.best_score, answer.proof) == (True, 35, "optimal")
        assert play_solution(level, answer.best_line).score == 35


def test_a_small_first_piece_carries_the_zones_complete_at_the_start():
    # Arabic. Columns 0, 1, 5, 7 and 8 are complete at the start (tiles and stones in rows 0-2,
    # stones below), so the first placement clears them wherever it goes. Best: remove the
    # tile at (2,3) (the one token), then the 1x1 at (0,3): 1 + 1,200 (five zones pay as four;
    # column 3, with its gap, does not complete), then the 1x3 at (2,2): 3 + 600 (columns 2, 3
    # and 4) = 1,804. Without the removal the 1x1 also clears column 3, and the 1x3 then
    # completes only columns 2 and 4: 1 + 1,200 + 3 + 300 + 100 for the kept token = 1,604.
    # A bound that gave the complete zones to the largest piece (the 1x3, four zones of its
    # own) counted 1,200 + 300 and cut the removal off.
    board = ["SS#.#####.", "######.##.", "##.#.#####"] + [STONES] * 7
    data = level_data("arabic", "standard", board, [["1x1", "1x3"]], [{"score": 150}], limit=2, tokens=1)
    level, search, cpsat = both(data)
    for answer in (search, cpsat, solve_level(level, time_limit=20, compiled=False)):
        assert (answer.solvable, answer.best_score, answer.proof) == (True, 1804, "optimal")
        assert answer.best_line == [TokenUse("remove", row=2, col=3), Placement("1x1", 0, 3), Placement("1x3", 2, 2)]
        assert play_solution(level, answer.best_line).score == 1804


def test_removal_enables_the_only_placement():
    # Stones everywhere but (0,0) empty and a tile at (0,1). The 1x2 fits only after the
    # tile is removed (1 token); it then completes row 0 and columns 0 and 1: Arabic 3 zones
    # = 600, plus 2 cells, no token left: 602. Keeping the token and not placing: 100.
    board = [".#SSSSSSSS"] + [STONES] * 9
    data = level_data("arabic", "standard", board, [["1x2"]], [{"place_all": True}], tokens=1)
    _, search, cpsat = both(data)
    for answer in (search, cpsat):
        assert (answer.solvable, answer.best_score, answer.proof) == (True, 602, "optimal")
        assert answer.solution == [TokenUse("remove", row=0, col=1), Placement("1x2", 0, 0)]
    data["goals"] = [{"score": 1}]  # without place_all the removal still pays: 602 > 100
    _, search, cpsat = both(data)
    assert search.best_score == cpsat.best_score == 602


def test_rotation_for_a_token():
    # Same board with both cells empty and a vertical 2x1: rotated once it fills row 0.
    board = ["..SSSSSSSS"] + [STONES] * 9
    data = level_data("arabic", "standard", board, [["2x1"]], [{"place_all": True}], tokens=1)
    _, search, cpsat = both(data)
    for answer in (search, cpsat):
        assert (answer.solvable, answer.best_score, answer.proof) == (True, 602, "optimal")
        assert answer.solution == [TokenUse("rotate", piece="2x1", turns=1), Placement("1x2", 0, 0)]


# ---------------------------------------------------------------------------
# CLI

runner = CliRunner()


def write(tmp_path, data, name="level.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return str(path)


def pumpkin_level(**extra):
    board = ["P########."] + [EMPTY] * 9
    data = level_data(board=board, goals=[{"pumpkins": True}, {"score": 11}],
                      solution=[{"piece": "1x1", "row": 0, "col": 9}],
                      best={"score": 11, "proof": "optimal", "bound": 11})
    data.update(extra)
    return data


@pytest.mark.parametrize("method", ["search", "cpsat", "auto"])
def test_cli_solve_json(tmp_path, method):
    result = runner.invoke(app, ["solve", write(tmp_path, pumpkin_level()), "--json", "--method", method])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out == {"solvable": True, "best_score": 11, "proof": "optimal", "bound": 11,
                   "solution": [{"piece": "1x1", "row": 0, "col": 9}]}


def pack_data(levels: list) -> dict:
    """A pack file's JSON holding ``levels``."""
    return {"format": "tenfold.pack/1", "id": "p", "title": "t", "generator": {"seed": 1, "version": "x"},
            "levels": levels}


def test_cli_solve_of_a_pack_prints_each_level_as_it_is_answered(tmp_path, monkeypatch):
    """Text ``solve PACK`` prints a level's line as soon as it is answered, not all at the end
    (a run of hours killed, or failing, on level 3 had shown nothing): here the third level's
    solve fails, and the first two lines are out, as ``solve --level`` gives each."""
    import cli.campaign_cmds as cmds

    pack = pack_data([pumpkin_level(id=name) for name in ("one", "two", "three")])
    path = write(tmp_path, pack)
    alone = [runner.invoke(app, ["solve", path, "--level", name]).stdout.splitlines()[0] for name in ("one", "two")]
    real = cmds.solve_one

    def failing_on_three(level, *args):
        if level.id == "three":
            raise RuntimeError("failed on three")
        return real(level, *args)

    monkeypatch.setattr(cmds, "solve_one", failing_on_three)
    result = runner.invoke(app, ["solve", path])
    assert isinstance(result.exception, RuntimeError)
    cut = [re.sub(r"\S+s$", "", line) for line in result.stdout.splitlines()]  # (the seconds vary)
    assert cut == [re.sub(r"\S+s$", "", line) for line in alone]


def test_cli_verify_correct_level(tmp_path):
    result = runner.invoke(app, ["verify", write(tmp_path, pumpkin_level())])
    assert result.exit_code == 0, result.output
    assert "ok" in result.stdout


def test_cli_verify_one_level_of_a_pack(tmp_path):
    """--level verifies that level alone: the other one's false claim is not looked at."""
    pack = pack_data([pumpkin_level(id="good"), pumpkin_level(id="bad", best={"score": 12, "proof": "optimal"})])
    path = write(tmp_path, pack)
    good = runner.invoke(app, ["verify", path, "--level", "good"])
    assert good.exit_code == 0 and good.stdout.startswith("ok   good:") and good.stdout.count("\n") == 1
    bad = runner.invoke(app, ["verify", path, "--level", "bad"])
    assert bad.exit_code == 1 and bad.stdout.startswith("FAIL bad: best.score")


def test_cli_verify_best_one_too_high(tmp_path):
    result = runner.invoke(app, ["verify", write(tmp_path, pumpkin_level(best={"score": 12, "proof": "optimal"}))])
    assert result.exit_code == 1
    assert "best.score" in result.output


def test_cli_verify_an_infeasible_claim_of_a_winnable_level(tmp_path):
    """``infeasible`` says no line meets the goals: with the right best score beside it (a
    fuzzer's case, passed as ok) the claim contradicts itself, and it is false where a line wins;
    against a search cut short too. The JSON spells a missing score as the file does (null)."""
    for score in (11, None):
        path = write(tmp_path, pumpkin_level(best={"score": score, "proof": "infeasible"}))
        result = runner.invoke(app, ["verify", path, "--json"])
        assert result.exit_code == 1, result.output
        problems = json.loads(result.stdout)[0]["problems"]
        assert "best.score: claimed null (infeasible), the search proves 11" in problems
        assert ("best: proof infeasible says no line meets the goals, yet claims score 11" in problems) == (
            score is not None)
    data = open_level_data()
    cut = solve_level(parse_level(data), time_limit=3600, node_limit=20000)
    assert not cut.complete and cut.best_score is not None
    for score in (cut.best_score, None):
        verdict = verify_level(parse_level({**data, "best": {"score": score, "proof": "infeasible"}}),
                               time_limit=0.3)
        assert verdict.status == "fail" and f"a line scores {cut.best_score}" in verdict.line()


def test_cli_verify_a_bound_below_the_best_whatever_the_proof(tmp_path):
    """A bound says no line scores more: one below a reachable score is false, also beside a
    right optimal score (a reviewer's case passed as ok) and against a search cut short."""
    for proof in ("optimal", "bound"):
        result = runner.invoke(app, ["verify", write(tmp_path, pumpkin_level(best={"score": 11, "proof": proof,
                                                                                   "bound": 10}))])
        assert result.exit_code == 1, result.output
        assert result.stdout.startswith("FAIL ") and "best.bound: 10 is below the proven best 11" in result.stdout
    data = open_level_data()
    cut = solve_level(parse_level(data), time_limit=3600, node_limit=20000)
    assert not cut.complete and cut.best_score is not None
    line = [m.to_json() for m in cut.best_line]
    best = {"score": cut.best_score, "proof": "optimal", "bound": cut.best_score - 1}
    verdict = verify_level(parse_level({**data, "best": best, "solution": line}), time_limit=0.3)
    assert verdict.status == "fail" and "best.bound" in verdict.line()


@pytest.mark.parametrize("goals, tray, status, text", [
    ([{"pumpkins": True}], "1x1", "ok", "a line meets every goal"),
    ([{"pumpkins": True}, {"score": 40}], "1x1", "fail", "no line meets the goals: proven"),
    ([{"pumpkins": True}], "2x2", "fail", "no line meets the goals: proven"),
])
def test_cli_verify_holds_a_level_without_claims_to_being_winnable(tmp_path, goals, tray, status, text):
    """A level with no solution and no best still claims to be a level: one line can win it
    (the 1x1 clears the pumpkin's row, 11 points), so it is ok; a score goal no line reaches,
    or a piece that cannot clear the pumpkin (a 2x2 fills no row or column), is a FAIL."""
    data = {k: v for k, v in pumpkin_level(goals=goals, trays=[[tray]]).items() if k not in ("solution", "best")}
    result = runner.invoke(app, ["verify", write(tmp_path, data), "--json"])
    assert result.exit_code == (0 if status == "ok" else 1), result.output
    verdict = json.loads(result.stdout)[0]
    assert verdict["status"] == status and text in " ".join(verdict["notes"] + verdict["problems"])


def test_cli_verify_a_level_without_claims_is_open_when_no_winning_line_is_found_in_time(tmp_path):
    data = {**open_level_data(), "goals": [{"score": 90}]}  # the node-limit test: 61 found, bound 96
    result = runner.invoke(app, ["verify", write(tmp_path, data), "--time-limit", "0.3"])
    assert result.exit_code == 1 and result.stdout.startswith("OPEN open: no solution or best stored"), result.output


def test_cli_verify_illegal_move(tmp_path):
    level = pumpkin_level(solution=[{"piece": "1x1", "row": 0, "col": 0}])
    result = runner.invoke(app, ["verify", write(tmp_path, level)])
    assert result.exit_code == 1
    assert "illegal" in result.output


@pytest.mark.parametrize("row, col", [(10, 9), (0, -1), (-5, 12), (0, 10), (10**40, 0)])
def test_cli_verify_a_placement_off_the_board_is_a_false_claim(tmp_path, row, col):
    """An anchor outside 0..9 is a well-formed move that breaks the rules, as a piece sticking
    out over the edge does: the solution is false (exit 1, the level and the move named), the
    file is not malformed (exit 2). A row that is no integer is malformed."""
    result = runner.invoke(app, ["verify", write(tmp_path, pumpkin_level(solution=[{"piece": "1x1", "row": row,
                                                                                   "col": col}]))])
    assert result.exit_code == 1, result.output
    line = result.stdout.splitlines()[0]
    assert line.startswith("FAIL hand: solution[0]: illegal: piece 1x1") and "does not fit" in line, line
    assert len(line) < 300
    for wrong in ("0", 1.0, True, None):
        result = runner.invoke(app, ["verify", write(tmp_path, pumpkin_level(solution=[{"piece": "1x1", "row": wrong,
                                                                                       "col": 9}]))])
        assert result.exit_code == 2 and "field 'row' must be an integer" in result.output, result.output


def test_cli_verify_past_the_limit(tmp_path):
    data = pumpkin_level(
        trays=[["1x1", "1x1"]], limit=1,
        solution=[{"piece": "1x1", "row": 5, "col": 5}, {"piece": "1x1", "row": 0, "col": 9}],
    )
    result = runner.invoke(app, ["verify", write(tmp_path, data)])
    assert result.exit_code == 1
    assert "limit" in result.output
    level = parse_level(data)
    assert not play_solution(level, level.solution).ok


@pytest.mark.parametrize("text", ["{not json", json.dumps({"format": "tenfold.level/1", "id": "x"})])
def test_cli_malformed_file(tmp_path, text):
    for command in ("verify", "solve"):
        result = runner.invoke(app, [command, write(tmp_path, text)])
        assert result.exit_code == 2
        assert "Traceback" not in result.output


def open_level_data():
    """An empty board and two trays of big pieces: far more nodes than a test waits for."""
    return level_data(board=[EMPTY] * 10, trays=[["3x3", "1x5", "L5-nw"], ["2x2", "5x1", "1x3"]],
                      goals=[{"score": 1}], limit=6, id="open")


def test_cli_solve_shows_a_live_status_on_a_terminal(tmp_path, monkeypatch):
    from cli import console
    from solver import watch

    monkeypatch.setattr(console, "terminal", lambda: True)
    monkeypatch.setattr(console, "STATUS_EVERY", 0.0)
    ticks = []
    watch.WATCHERS.append(lambda nodes, best: ticks.append(nodes) or len(ticks) == 8)  # then stop
    try:
        result = runner.invoke(app, ["solve", write(tmp_path, open_level_data()), "--time-limit", "600", "--json"])
    finally:
        watch.WATCHERS.clear()
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)  # stdout stays the JSON alone
    assert out["proof"] == "bound" and out["best_score"] is not None
    draws = [part for part in result.stderr.split("\r") if part.strip()]
    assert len(draws) == 8 and all(d.startswith("solving open: ") and " nodes, best " in d for d in draws)
    bests = [int(d.split()[-1]) for d in draws if d.split()[-1] != "-"]
    assert bests and bests == sorted(bests) and bests[-1] <= out["best_score"]
    assert result.stderr.endswith("\r") and result.stderr.split("\r")[-2].strip() == ""  # erased at the end
    assert watch.WATCHERS == []


def test_cli_solve_with_a_node_limit_gives_the_same_answer_every_time(tmp_path):
    """The node limit, not the clock, ends the search: the same best line on every run, and
    the summary's node count stops within one check (4,096 nodes) of the limit."""
    path = write(tmp_path, open_level_data())
    args = ["solve", path, "--time-limit", "3600", "--node-limit", "40000"]
    runs = [runner.invoke(app, [*args, "--json"]) for _ in range(2)]
    assert all(r.exit_code == 0 for r in runs), runs[0].output
    assert runs[0].stdout == runs[1].stdout
    out = json.loads(runs[0].stdout)
    assert out["proof"] == "bound" and out["best_score"] is not None
    replay = play_solution(parse_level(open_level_data()), parse_moves(out["solution"]))
    assert replay.ok and replay.score == out["best_score"]
    line = runner.invoke(app, args)
    nodes = int(line.stdout.split("nodes=")[1].split()[0])
    assert 40000 < nodes <= 40000 + 4096
    for method in ("cpsat", "auto"):  # CP-SAT runs on the clock: the answer would vary
        refused = runner.invoke(app, [*args, "--method", method])
        assert refused.exit_code == 2 and refused.output.count("\n") == 1, refused.output
        assert "--node-limit" in refused.output and f"got --method {method}" in refused.output


def test_cli_solve_shows_no_status_off_a_terminal(tmp_path):
    result = runner.invoke(app, ["solve", write(tmp_path, open_level_data()), "--time-limit", "0.3"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""


def test_search_status_redraws_in_place_and_adds_up_calls():
    import io

    from cli.console import SearchStatus

    now = [0.0]
    stream = io.StringIO()
    status = SearchStatus("solving x", stream, clock=lambda: now[0], every=1.0)
    ticks = [(0.5, 1_000_000, None), (1.0, 2_000_000, 40), (1.5, 3_000_000, 55), (2.5, 500_000, 50),
             (2.6, 900_000, 60)]
    for t, nodes, best in ticks:
        now[0] = t
        status(nodes, best)
    status.close()
    # drawn at 1.0 s and 2.5 s only; the second call of the search adds to the first's 3 M
    assert stream.getvalue() == ("\rsolving x: 1.0 s, 2.0 M nodes, best 40"
                                 "\rsolving x: 2.5 s, 3.5 M nodes, best 55"
                                 "\r" + " " * 38 + "\r")


def test_search_status_counts_a_small_search_exactly():
    """Below a million the count is exact, with thousands marked (it read "0.0 M" until a
    search passed 50,000); from a million on, in millions."""
    import io

    from cli.console import SearchStatus

    now = [0.0]
    stream = io.StringIO()
    status = SearchStatus("expert lookahead", stream, clock=lambda: now[0], every=1.0, scores=False,
                          unit="end states")
    for t, count in [(1.0, 7), (2.0, 12_345), (3.0, 999_999), (4.0, 1_000_000), (5.0, 26_540_000)]:
        now[0] = t
        status(count, None)
    draws = stream.getvalue().split("\r")[1:]
    assert [d.split(", ", 1)[1].strip() for d in draws] == [
        "7 end states", "12,345 end states", "999,999 end states", "1.0 M end states", "26.5 M end states"]


def test_search_status_without_nodes_shows_the_seconds():
    """CP-SAT's ticks count no nodes: the line shows the seconds (and a best once one is given),
    not "0.0 M nodes"."""
    import io

    from cli.console import SearchStatus

    now = [0.0]
    stream = io.StringIO()
    status = SearchStatus("tray (cpsat)", stream, clock=lambda: now[0], every=1.0)
    for t, best in [(1.0, None), (2.0, 70)]:
        now[0] = t
        status(0, best)
    assert stream.getvalue() == "\rtray (cpsat): 1.0 s\rtray (cpsat): 2.0 s, best 70"


@pytest.mark.parametrize("grade", [[], ["--grade"]])
@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_cli_solve_ctrl_c_prints_the_best_so_far(tmp_path, json_flag, grade, python_ctrl_c):
    """Ctrl-C stops the search at its next clock check: the answer so far (a bound) is printed,
    a note goes to stderr, exit code 130, and the handler is put back. ``--grade`` then grades
    nothing (the user asked to stop): a null grading, no line of it."""
    import signal

    from solver import watch

    handler = signal.getsignal(signal.SIGINT)
    watch.WATCHERS.append(ctrl_c_after(2))
    try:
        result = runner.invoke(app, ["solve", write(tmp_path, open_level_data()), "--time-limit", "3600", *json_flag,
                                     *grade])
    finally:
        watch.WATCHERS.clear()
    assert result.exit_code == 130, result.output
    assert "interrupted: the answer is the best found before Ctrl-C" in result.stderr
    if json_flag:
        out = json.loads(result.stdout)
        assert out["proof"] == "bound" and out["best_score"] is not None and out["solution"]
        assert out.get("grading", "absent") == (None if grade else "absent")
    else:
        assert "proof=bound" in result.stdout and result.stdout.count("\n") == 2  # the answer and its line
    assert signal.getsignal(signal.SIGINT) is handler


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_cli_solve_cpsat_ctrl_c_stops_the_solve(tmp_path, python_ctrl_c, stops_as_ctrl_c, stop):
    """CP-SAT catches SIGINT itself unless told not to, and stops as if its time had run out:
    Ctrl-C must stop it as it stops the search (exit 130, the note, a bound answer), and the
    SIGINT handler and wakeup fd are put back. SIGTERM and SIGHUP, taken as Ctrl-C, stop it so
    too (a review: the solve ran on to its time limit, for ever with inf)."""
    import signal

    from solver import watch

    handler = signal.getsignal(signal.SIGINT)
    wakeup = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(wakeup)
    watch.WATCHERS.append(ctrl_c_after(5, getattr(signal, stop)))  # CP-SAT ticks every CPSAT_TICK: about 0.5 s in
    try:
        started = time.monotonic()
        result = runner.invoke(app, ["solve", write(tmp_path, open_level_data()), "--method", "cpsat",
                                     "--time-limit", "60", "--json"])
        took = time.monotonic() - started
    finally:
        watch.WATCHERS.clear()
    assert result.exit_code == 130, result.output
    assert took < 30  # stopped, not run to its limit
    assert "interrupted: the answer is the best found before Ctrl-C" in result.stderr
    assert json.loads(result.stdout)["proof"] == "bound"
    assert signal.getsignal(signal.SIGINT) is handler
    assert signal.set_wakeup_fd(wakeup) == wakeup


def test_watchers_stop_a_cpsat_solve():
    from solver import watch

    calls = []

    def stop_after_five(nodes, best):
        calls.append(nodes)
        return len(calls) >= 5

    watch.WATCHERS.append(stop_after_five)
    try:
        answer = solve_level_cpsat(parse_level(open_level_data()), time_limit=60)
    finally:
        watch.WATCHERS.clear()
    assert answer.proof == "bound" and not answer.complete
    assert 5 <= len(calls) and answer.seconds < 30  # stopped by the watcher, not the time limit


def test_cli_verify_ctrl_c_gives_no_verdict_for_the_level_cut_short(tmp_path, python_ctrl_c):
    from solver import watch

    data = open_level_data()
    data["solution"] = [{"piece": "3x3", "row": 0, "col": 0}]
    data["best"] = {"score": 200, "proof": "optimal", "bound": 200}
    pack = pack_data([pumpkin_level(id="first"), data])
    watch.WATCHERS.append(ctrl_c_after(2))
    try:
        result = runner.invoke(app, ["verify", write(tmp_path, pack), "--time-limit", "3600"])
    finally:
        watch.WATCHERS.clear()
    assert result.exit_code == 130, result.output
    assert result.stdout.startswith("ok   first:") and "open" not in result.stdout
    assert "interrupted: verified 1 of 2 levels" in result.stderr


def test_second_ctrl_c_aborts_except_inside_a_compiled_search():
    from cli.console import Interrupt
    from solver import watch

    interrupt = Interrupt()
    interrupt.handle(2, None)
    assert interrupt.requested and interrupt(0, None) is True
    watch.in_compiled = 1  # a KeyboardInterrupt cannot unwind through compiled code: the watcher stops it
    try:
        interrupt.handle(2, None)
    finally:
        watch.in_compiled = 0
    with pytest.raises(KeyboardInterrupt):
        interrupt.handle(2, None)


def test_auto_keeps_the_better_of_the_two_answers():
    """``--method auto`` hands the search's unproven answer to CP-SAT: a proof from either
    stands; otherwise the higher best found (its line), the lower bound, a solution from
    whichever found one. CP-SAT's answer alone could lose what the search found."""
    from solver.campaign import CampaignAnswer, best_of
    from solver.moves import Placement

    a_line, b_line = [Placement("1x1", 0, 0)], [Placement("1x1", 1, 1)]
    search = CampaignAnswer(True, 40, "bound", 90, a_line, a_line, nodes=5, seconds=1.0, complete=False)
    worse = CampaignAnswer(False, 30, "bound", 70, None, b_line, nodes=0, seconds=2.0, complete=False)
    both = best_of(search, worse)
    assert (both.solvable, both.best_score, both.proof, both.bound) == (True, 40, "bound", 70)
    assert both.best_line == a_line and both.solution == a_line and not both.complete
    assert (both.nodes, both.seconds) == (5, 3.0)
    better = CampaignAnswer(True, 45, "bound", 95, b_line, b_line, complete=False)
    both = best_of(search, better)
    assert (both.best_score, both.bound, both.best_line, both.solution) == (45, 90, b_line, b_line)
    tight = CampaignAnswer(False, None, "bound", 20, None, None, complete=False)
    assert best_of(search, tight).bound == 40  # never below the best found
    proven = CampaignAnswer(True, 50, "optimal", 50, b_line, b_line)
    assert best_of(search, proven) is proven and best_of(proven, worse) is proven


def test_verify_judges_claims_a_search_cut_short_can_still_settle(tmp_path):
    """Against a search the time limit ends, a claim above the root bound or below a line's score
    is false, a bound claim that a line reaches under a bound no lower than the root's holds, and
    an optimal claim neither refuted nor re-proven is open: OPEN, not FAIL, and still exit 1."""
    data = open_level_data()
    cut = solve_level(parse_level(data), time_limit=3600, node_limit=20000)
    assert not cut.complete and cut.best_score is not None and cut.bound > cut.best_score
    found, bound = cut.best_score, cut.bound
    line = [m.to_json() for m in cut.best_line]
    cases = [
        ({"score": found, "proof": "bound", "bound": bound}, "ok"),
        ({"score": found, "proof": "bound", "bound": None}, "ok"),
        ({"score": found - 1, "proof": "optimal"}, "fail"),
        ({"score": bound + 1, "proof": "optimal"}, "fail"),
        ({"score": bound + 1, "proof": "bound", "bound": bound + 5}, "fail"),
        ({"score": found, "proof": "bound", "bound": found - 1}, "fail"),
        ({"score": None, "proof": "infeasible"}, "fail"),
        ({"score": found, "proof": "bound", "bound": bound - 1}, "open"),
    ]
    for best, status in cases:
        verdict = verify_level(parse_level({**data, "best": best, "solution": line}), time_limit=0.3)
        assert verdict.status == status and verdict.ok == (status == "ok"), (best, verdict)
        if status == "open":
            assert verdict.line().startswith("OPEN ") and "could not re-prove" in verdict.line()
    pack = pack_data([{**data, "id": f"l{i}", "best": best, "solution": line} for i, (best, _) in enumerate(cases)])
    result = runner.invoke(app, ["verify", write(tmp_path, pack), "--time-limit", "0.3", "--json"])
    assert result.exit_code == 1, result.output
    verdicts = json.loads(result.stdout)
    assert [v["status"] for v in verdicts] == [status for _, status in cases]
    text = runner.invoke(app, ["verify", write(tmp_path, pack), "--time-limit", "0.3"])
    assert text.exit_code == 1 and len(text.stdout.splitlines()) == 8  # a line per level
    assert [line.split()[0] for line in text.stdout.splitlines()] == ["ok", "ok"] + ["FAIL"] * 5 + ["OPEN"]
    assert text.stderr.splitlines()[-1] == "8 levels: 2 ok, 5 FAIL (a false claim), 1 OPEN (not settled)"


@functools.cache
def cut_short_answer() -> tuple[int, int]:
    """The open level's best line and bound when its node limit cuts the search short."""
    answer = solve_level(parse_level(open_level_data()), time_limit=3600, node_limit=40_000)
    assert answer.proof == "bound" and answer.best_score + 1 < answer.bound, answer
    return answer.best_score, answer.bound


@pytest.mark.parametrize("goal_at, expected, text", [("best", True, "yes"), ("between", None, "?"),
                                                      ("above bound", False, "no")])
def test_cli_solve_cut_short_says_no_only_when_a_bound_proves_it(tmp_path, goal_at, expected, text):
    """Cut short by its node limit, the search's best line on the open level scores less than
    its bound: a goal the line meets is solvable, one above the bound is proven unsolvable
    (any line meeting it would score at least it), and one between is not known (JSON null)."""
    best, bound = cut_short_answer()
    goal = {"best": best, "between": best + 1, "above bound": bound + 1}[goal_at]
    data = {**open_level_data(), "goals": [{"score": goal}]}
    path = write(tmp_path, data)
    args = ["solve", path, "--time-limit", "3600", "--node-limit", "40000"]
    out = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    assert out["proof"] == "bound" and (out["best_score"] >= goal) == (expected is True)
    assert (goal > out["bound"]) == (expected is False)
    assert out["solvable"] is expected
    assert (out["solution"] is None) == (expected is not True)
    line = runner.invoke(app, args).stdout
    assert f"solvable={text} " in line


def test_cpsat_cut_short_before_a_first_line_claims_nothing(tmp_path):
    """Stopped before its first line, CP-SAT's own objective bound is no bound (it reads 0): the
    answer keeps the counting bound, says solvability is not known, and ``auto`` never reports
    a bound below the search's line. (A shipped level with no limit: far beyond 10 ms.)"""
    from solver.campaign_cpsat import root_bound
    from solver.level import parse_pack
    from pathlib import Path

    pack = json.loads((Path(__file__).resolve().parents[1] / "levels" / "halloween-2026.json").read_text())
    data = {k: v for k, v in pack["levels"][0].items() if k not in ("solution", "best", "limit")}
    level = parse_pack({**pack, "levels": [data]}).levels[0]
    answer = solve_level_cpsat(level, time_limit=0.01)
    assert (answer.solvable, answer.best_score, answer.proof) == (None, None, "bound")
    assert answer.bound == root_bound(level) and answer.to_json()["solvable"] is None
    path = write(tmp_path, {"format": "tenfold.level/1", **data})
    auto = json.loads(runner.invoke(app, ["solve", path, "--method", "auto", "--time-limit", "0.02",
                                          "--json"]).stdout)
    search = solve_level(level, time_limit=0.01)  # cut short too: its bound is the root's
    assert auto["solvable"] is True and auto["proof"] == search.proof == "bound"
    assert auto["bound"] == min(search.bound, root_bound(level)) > auto["best_score"]


def test_verify_json_is_the_same_bytes_every_run(tmp_path):
    """The verdicts' notes carried the proof's seconds, so the same file verified to other bytes
    each run; the seconds stay in the text line alone."""
    path = write(tmp_path, pumpkin_level(best={"score": 11, "proof": "optimal", "bound": 11}))
    runs = [runner.invoke(app, ["verify", path, "--json"]) for _ in range(2)]
    assert all(r.exit_code == 0 for r in runs) and runs[0].stdout == runs[1].stdout
    assert json.loads(runs[0].stdout)[0]["notes"][-1].startswith("best 11 proven (")
    assert not re.search(r"\d\.\d\d ?s\b", runs[0].stdout)  # no seconds anywhere
    text = runner.invoke(app, ["verify", path]).stdout
    assert text.startswith("ok   ") and text.rstrip().endswith(" s)")


# From a mutation audit of the rules engine: every score goal holds, and verify's bound claims


def unclaimed_pumpkin_level(**extra):
    """``pumpkin_level`` without its best claim: the 1x1 at (0, 9) closes row 0 and clears the
    pumpkin, 1 + 10 = 11, the one line that meets the pumpkin goal."""
    data = pumpkin_level(**extra)
    del data["best"]
    return data


def test_every_score_goal_must_hold_so_the_highest_one_counts():
    # RULES.md §3: a level is won when every goal holds; score goals are "at least". One 1x1 on an
    # empty Halloween board scores 1 (a cell, no clear): it meets {"score": 1} but not {"score": 5}.
    data = level_data(trays=[["1x1"]], limit=1, goals=[{"score": 1}, {"score": 5}])
    level = parse_level(data)
    answer = solve_level(level, time_limit=30)
    assert answer.best_score == 1 and answer.solvable is False
    verdict = verify_level(level, time_limit=30)  # no solution or best stored: it must be winnable
    assert verdict.status == "fail" and "no line meets the goals" in verdict.line()
    assert level.score_goal == 5
    # in the other order too, and with the goals it can meet it is solvable
    assert parse_level({**data, "goals": [{"score": 5}, {"score": 1}]}).score_goal == 5
    assert solve_level(parse_level({**data, "goals": [{"score": 1}, {"score": 0}]}), time_limit=30).solvable is True


@pytest.mark.parametrize("bound", [11, 12, None])
def test_verify_confirms_a_bound_claim_a_finished_search_reaches(bound):
    # The 1x1 at (0, 9) closes row 0 and clears the pumpkin: 1 + 10 = 11, and no other line meets the
    # pumpkin goal. "proof": "bound" claims 11 is reached (not that it is the most): true, with any
    # bound of 11 or more (RULES.md §3 "best").
    verdict = verify_level(parse_level(pumpkin_level(best={"score": 11, "proof": "bound", "bound": bound})),
                           time_limit=30)
    assert verdict.ok and verdict.status == "ok", verdict.line()


def test_verify_refutes_a_bound_claim_on_a_level_no_line_wins():
    # With a 2x2 as the only piece, no line clears the pumpkin (row 0 misses one cell, col 9): best.score
    # is null for this level (RULES.md §3), so a claimed score of 4 (what the 2x2's cells score) is false.
    data = pumpkin_level(trays=[["2x2"]], goals=[{"pumpkins": True}], best={"score": 4, "proof": "bound", "bound": 4})
    del data["solution"]
    verdict = verify_level(parse_level(data), time_limit=30)
    assert verdict.status == "fail", verdict.line()
    assert any(p.startswith("best.score: 4 is not reachable") for p in verdict.problems), verdict.problems


def test_verify_refutes_a_stored_solution_that_misses_the_score_goal():
    # RULES.md §3: "solution": a list of moves that meets the goals, all of them. The 1x1 at (0, 9)
    # clears the pumpkin but scores 1 + 10 = 11, below a score goal of 12.
    verdict = verify_level(parse_level(unclaimed_pumpkin_level(goals=[{"pumpkins": True}, {"score": 12}])),
                           time_limit=30)
    assert verdict.status == "fail", verdict.line()
    assert verdict.problems == ['solution: goals not met at the end: [{"score": 12}]']
    # the same solution against a goal of 11 wins
    assert verify_level(parse_level(unclaimed_pumpkin_level()), time_limit=30).ok


def unwinnable_level() -> dict:
    """A pumpkin level whose one 2x2 clears no pumpkin, with no solution or best stored."""
    level = pumpkin_level(goals=[{"pumpkins": True}], trays=[["2x2"]], id="none")
    return {k: v for k, v in level.items() if k not in ("solution", "best")}


def test_cli_solve_of_a_pack_sums_up_solvable_proven_and_unknown(tmp_path):
    """The summary under a pack's lines, counted by hand: "good" is solvable and proven optimal,
    "none" proven infeasible (proven, not solvable: its 2x2 clears no pumpkin), "unknown" cut short
    by the node limit with its goal one above the best line found and within the bound (not known
    to be solvable, "?", and not proven): 1 solvable, 2 proven, 1 not known."""
    cut = ["--time-limit", "3600", "--node-limit", "5000"]
    found = json.loads(runner.invoke(app, ["solve", write(tmp_path, open_level_data()), *cut, "--json"]).stdout)
    goal = found["best_score"] + 1
    assert found["proof"] == "bound" and goal <= found["bound"]
    none = unwinnable_level()
    pack = pack_data([pumpkin_level(id="good"), none, {**open_level_data(), "id": "unknown",
                                                        "goals": [{"score": goal}]}])
    result = runner.invoke(app, ["solve", write(tmp_path, pack, "pack.json"), *cut])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert [line.split()[:2] for line in lines[:3]] == [["good", "solvable=yes"], ["none", "solvable=no"],
                                                       ["unknown", "solvable=?"]]
    assert lines[3] == "3 levels: 1 solvable, 2 proven, 1 not known to be solvable (no line found in time)"
    assert len(lines) == 4


def test_cli_solve_grade_gives_a_grading_line_for_an_unsolvable_level_too(tmp_path):
    """--grade: "a line after the level's" (docs/cli.md), for one level as for each level of a
    pack; a level no line wins (its 2x2 clears no pumpkin) has nothing to grade, and says so in
    that line, the same alone as in its pack (where it is indented under the level)."""
    none = unwinnable_level()
    alone = runner.invoke(app, ["solve", write(tmp_path, none), "--grade"])
    assert alone.exit_code == 0, alone.output
    lines = alone.stdout.splitlines()
    assert len(lines) == 2 and lines[0].split()[:2] == ["none", "solvable=no"], lines
    assert lines[1].startswith("grading: ")
    pack = pack_data([none, pumpkin_level(id="good")])
    listed = runner.invoke(app, ["solve", write(tmp_path, pack, "pack.json"), "--grade"]).stdout.splitlines()
    assert listed[1] == "  " + lines[1]


def test_cli_solve_of_a_pack_shows_no_progress_bar_off_a_terminal(tmp_path):
    """docs/cli.md: the progress bar and status lines are for a terminal; a pack solved into a
    pipe or a log writes its lines and summary on stdout and nothing on stderr."""
    pack = pack_data([pumpkin_level(id="one"), pumpkin_level(id="two")])
    result = runner.invoke(app, ["solve", write(tmp_path, pack, "pack.json")])
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 3
    assert result.stderr == ""


def test_cli_solve_of_a_pack_on_a_terminal_keeps_the_bar_and_its_clearing_on_stderr(tmp_path, monkeypatch):
    """A pack without --level gets a progress bar on a terminal (docs/cli.md), not also a
    level's live status line, which would write over the bar's line."""
    from cli import console

    monkeypatch.setattr(console, "terminal", lambda: True)
    monkeypatch.setattr(console, "STATUS_EVERY", 0.0)
    pack = pack_data([open_level_data(), pumpkin_level(id="two")])
    result = runner.invoke(app, ["solve", write(tmp_path, pack, "pack.json"), "--node-limit", "20000",
                                 "--time-limit", "3600"])
    assert result.exit_code == 0, result.output
    assert "solving open:" not in result.stderr and "nodes" not in result.stderr, result.stderr
    # the bar's line is cleared on stderr, where it is drawn: stdout keeps the level lines alone
    assert "\x1b" not in result.stdout and "\r" not in result.stdout
    assert [line.split()[0] for line in result.stdout.splitlines()] == ["open", "two", "2"]
