"""A level part played (``solver.continuation``, ``tenfold solve --after``, ``POST
/levels/{pack}/{level}/hint``) against the brute force on the reference rules, which shares no
code with ``solver/`` (``level_reference.reference_best`` with ``after``).

Each seeded level of the reference tests (tiny dense levels in every variant, strips of open
cells on boards of stones, pieces spelled as masks, reserves that tokens redeal from) is
played a few random moves in, drawn from the moves the brute force itself would try (tokens
included); from there the best final score of a game that starts with those moves, its proof
and the verdict must be the brute force's, and the moves played followed by the answer's
rest must replay on the reference rules to that score, meeting the goals.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.answer_cache import AnswerCache
from cli.api import Api, LEVEL_HINT_NODES
from cli.main import app
from level_reference import random_moves, reference_best, reference_check
from random_boards import MODES, dress, random_goals
from solver.campaign import PROOF_BOUND, PROOF_INFEASIBLE, PROOF_OPTIMAL, solve_level
from solver.continuation import next_step, position_after, solve_after, spelled_rest
from solver.deals import RandomDeals
from solver.errors import RulesError
from solver.level import Pack, parse_level, parse_level_or_pack, play_solution
from solver.moves import Placement, parse_moves
from solver.variants import find_variant
from test_campaign_reference import mask_level, reserve_level, stony_level, tiny_level
from tiers import seeds

def roomy_level(seed: int) -> dict:
    """A seeded level of two trays of three pieces on a board a third to a half empty, with
    nearly complete zones, stones and pumpkins: room for most pieces, so a line made of random
    moves goes on for a few placements (the reference tests' levels are too full for that)."""
    rng = random.Random(f"roomy-{seed}")
    name = ("halloween", "arabic", "sudoku")[seed % 3]
    variant = find_variant(name)
    density = rng.uniform(0.3, 0.55)
    grid = [["#" if rng.random() < density else "." for _ in range(10)] for _ in range(10)]
    pumpkins = dress(rng, variant, grid, zones=(2, 6), stones=(0, 1, 2), pumpkins=(0, 1, 2))
    deals = RandomDeals(variant, seed)
    trays = [[deals.next_piece() for _ in range(3)] for _ in range(2)]
    goals = random_goals(rng, pumpkins, 0.5, place_all=0.1)
    return {"format": "tenfold.level/1", "id": f"c{seed}", "variant": name, "mode": MODES[name],
            "board": ["".join(row) for row in grid], "trays": trays, "goals": goals,
            "limit": rng.randint(4, 6), "tokens": 0 if name == "halloween" else rng.choice((0, 0, 1))}


FAMILIES = {"tiny": (tiny_level, range(400)), "stony": (stony_level, range(300)),
            "mask": (mask_level, range(150)), "reserve": (reserve_level, range(120)),
            "roomy": (roomy_level, range(240))}


def part_played(make, seed: int) -> tuple[dict, list[dict]]:
    """A seeded level and random moves into it: 0-4 on the reference tests' small levels; on
    a roomy level, up to where one to three placements are left (at most two with a token
    left, whose removals multiply the brute force's work)."""
    data = make(seed)
    rng = random.Random(f"continuation-{data['id']}-{seed}")
    if make is not roomy_level:
        return data, random_moves(data, rng, rng.randint(0, 4))
    moves, placed, tokens, left = [], 0, data["tokens"], rng.choice((1, 2, 3))
    for move in random_moves(data, rng, data["limit"] + data["tokens"]):
        moves.append(move)
        placed += "token" not in move
        tokens -= "token" in move
        if placed >= data["limit"] - (min(left, 2) if tokens else left):
            break
    return data, moves


def check_after(data: dict, moves: list[dict], compiled: bool = True) -> tuple:
    where = f"{data['id']} after {json.dumps(moves)}: {json.dumps(data)}"
    level = parse_level(data)
    expected = reference_best(data, moves)
    position, answer = solve_after(level, parse_moves(moves), time_limit=60, compiled=compiled)
    goal = data["goals"][-1]["score"]
    assert answer.best_score == expected, where
    assert answer.proof == (PROOF_INFEASIBLE if expected is None else PROOF_OPTIMAL), where
    assert answer.solvable == (expected is not None and expected >= goal), where
    # the moves played as the player wrote them, then the rest as tenfold writes it (what a client
    # plays on): the best line to the best score, and the solution to every goal
    if answer.best_line is not None:
        line = moves + spelled_rest(level, position, answer.best_line)
        ok, why, score = reference_check({**data, "goals": data["goals"][:-1], "solution": line})
        assert ok and score == expected, f"{where}: best line {why}"
    if answer.solvable:
        ok, why, _ = reference_check({**data, "solution": moves + spelled_rest(level, position, answer.solution)})
        assert ok, f"{where}: solution {why}"
    else:
        assert answer.solution is None, where
    return position, answer


@pytest.mark.parametrize("family", FAMILIES)
def test_the_rest_of_a_part_played_level_matches_the_reference_brute_force(family):
    make, family_seeds = FAMILIES[family]
    tokens_spent = placed = unwinnable = 0
    for seed in seeds(family_seeds, first=len(family_seeds)):
        data, moves = part_played(make, seed)
        position, answer = check_after(data, moves)
        tokens_spent += any("token" in m for m in moves)
        placed += position.placed > 0
        unwinnable += answer.best_score is None
    # the random moves reach what they should: placements made, tokens spent, and lost games
    # (the reference tests' levels are nearly full: most of their first moves are tokens)
    assert placed >= len(family_seeds) // (2 if family == "roomy" else 10), placed
    assert tokens_spent >= (0 if family == "stony" else 5) and unwinnable >= 5, (tokens_spent, unwinnable)


def test_the_readable_search_continues_as_the_compiled_one_does():
    """``compiled=False``: the reference search from the same state, held to the same brute force."""
    for seed in range(0, 400, 8):
        check_after(*part_played(tiny_level, seed), compiled=False)


def test_no_moves_is_the_level_itself():
    for seed in range(0, 400, 10):
        level = parse_level(tiny_level(seed))
        _, after = solve_after(level, [])
        whole = solve_level(level)
        assert (after.best_score, after.proof, after.solvable, after.bound) == \
               (whole.best_score, whole.proof, whole.solvable, whole.bound), seed


LEVELS = Path(__file__).resolve().parents[1] / "levels"


def shipped_pack(name: str) -> Pack:
    return parse_level_or_pack(json.loads((LEVELS / name).read_text()), name)


def shipped_levels():
    return shipped_pack("halloween-2026.json").levels[:6] + shipped_pack("sultan-2026.json").levels[:6]


def test_a_stored_optimal_line_keeps_its_best_at_every_step():
    """Any prefix of a proven optimal line can still reach the level's best, and the rest the
    search gives from there replays through the engine to it; one step off the line can do no
    better."""
    for level in shipped_levels():
        best = level.best["score"]
        line = level.solution
        for k in range(len(line) + 1):
            position, answer = solve_after(level, line[:k])
            assert answer.proof == PROOF_OPTIMAL and answer.best_score == best, (level.id, k)
            assert position.game.final_score == play_solution(level, line[:k], ignore_score=True).score \
                or k < len(line)
            replay = play_solution(level, line[:k] + answer.best_line, ignore_score=True)
            assert replay.ok and replay.score == best, (level.id, k, replay.problem)


def test_a_position_is_the_engine_game_after_the_moves():
    level = shipped_levels()[3]
    line = level.solution
    for k in range(len(line) + 1):
        position = position_after(level, line[:k])
        game = position.game
        assert position.state.filled == game.board.filled and position.state.pumpkins == game.board.pumpkins
        assert position.placed == sum(isinstance(m, Placement) for m in line[:k])
        assert position.points == game.score and position.level.board == game.board
        assert sorted(position.state.tray) == sorted(game.tray or [])
        assert (position.level.trays, position.level.limit, position.level.goals) == \
               (level.trays, level.limit, level.goals)


def test_moves_the_level_refuses_are_named():
    level = shipped_levels()[3]
    line = level.solution
    with pytest.raises(RulesError, match=r"^moves\[1\]: illegal: piece .* is not in the tray"):
        position_after(level, [line[0], line[0]])  # (each piece of this tray is a shape of its own)
    overlap = next(m for m in line[1:] if isinstance(m, Placement) and m.piece != line[0].piece)
    with pytest.raises(RulesError, match=r"^moves\[1\]: illegal: piece .* overlaps"):
        position_after(level, [line[0], Placement(overlap.piece, line[0].row, line[0].col)])
    placement = next(m for m in line if isinstance(m, Placement))
    with pytest.raises(RulesError, match=r"^moves\[0\]: illegal: .*not in the tray"):
        position_after(level, [Placement("1x1" if placement.piece != "1x1" else "3x3", 0, 0)])
    short = parse_level({**level.to_json(), "limit": 2})
    with pytest.raises(RulesError, match=r"^moves\[2\]: placement 3 is past the limit of 2"):
        position_after(short, line[:3])


def test_the_compiled_search_answers_where_it_can():
    """A position runs the compiled search (the server's larger node budget) unless tokens left
    may redeal from the reserve, or a redeal put a tray in hand that is no tray of the level's."""
    plain = parse_level(roomy_level(0))
    assert position_after(plain, []).compiled
    seen = Counter()
    for seed in range(40):
        data = reserve_level(seed)
        level = parse_level(data)
        assert not position_after(level, []).compiled  # (one token, a reserve, a redeal to spend it on)
        redeal = [m for m in _legal_moves(data) if m.get("token") in ("reroll", "refresh")]
        if redeal:  # no token left: compiled where the reserve's pieces happen to be the tray's own
            after = position_after(level, parse_moves(redeal[:1]))
            own = not Counter(after.state.tray) - Counter(level.trays[after.state.tray_index])
            assert after.state.tokens == 0 and after.compiled == own, (seed, after.state)
            seen[own] += 1
    assert seen[True] and seen[False], seen


def test_next_step_is_the_tokens_and_the_first_placement():
    moves = parse_moves([{"token": "remove", "row": 1, "col": 2}, {"piece": "1x1", "row": 0, "col": 0},
                         {"piece": "1x2", "row": 5, "col": 5}])
    assert next_step(moves) == moves[:2]
    assert next_step(moves[1:]) == moves[1:2]
    assert next_step(moves[:1]) == moves[:1]
    assert next_step([]) == []


# -- the command and the server -------------------------------------------------------------


def write(tmp_path, name: str, data) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def test_cli_solve_after_answers_as_the_brute_force(tmp_path):
    runner = CliRunner()
    for seed in range(3, 400, 25):
        data, moves = part_played(mask_level, seed)
        expected = reference_best(data, moves)
        result = runner.invoke(app, ["solve", write(tmp_path, "level.json", data), "--after",
                                     write(tmp_path, "moves.json", moves), "--json"])
        assert result.exit_code == 0, result.output
        out = json.loads(result.stdout)
        assert out["best_score"] == expected and out["after"]["moves"] == len(moves), (seed, out)
        assert out["after"]["placed"] == sum("piece" in m and "token" not in m for m in moves)
        if out["solvable"]:  # the rest, spelled as the level spells its pieces, replays after the moves
            ok, why, _ = reference_check({**data, "solution": moves + out["solution"]})
            assert ok, (seed, why)
        text = runner.invoke(app, ["solve", write(tmp_path, "level.json", data), "--after",
                                   write(tmp_path, "moves.json", moves)])
        assert text.exit_code == 0 and f"after {len(moves)} move" in text.stdout, text.output
        assert f"best={'-' if expected is None else expected} " in text.stdout, text.output


@pytest.mark.parametrize("args, message", [
    (["--method", "auto"], "--after: the rest of a part-played level is solved by --method search"),
    (["--method", "cpsat"], "--after: the rest of a part-played level is solved by --method search"),
])
def test_cli_solve_after_refuses_what_it_cannot_do(tmp_path, args, message):
    level = shipped_levels()[0]
    path = write(tmp_path, "level.json", level.to_json())
    moves = write(tmp_path, "moves.json", [])
    result = CliRunner().invoke(app, ["solve", path, "--after", moves, *args])
    assert result.exit_code == 2 and message in result.stderr, result.output


def test_cli_solve_after_bad_input_is_one_line(tmp_path):
    runner = CliRunner()
    level = shipped_levels()[0]
    path = write(tmp_path, "level.json", level.to_json())
    pack = str(LEVELS / "halloween-2026.json")
    held = len(shipped_pack("halloween-2026.json").levels)
    cases = [
        (["solve", pack, "--after", write(tmp_path, "m1.json", [])],
         f"--after: the moves of one level; give --level ID (this pack holds {held} levels)"),
        (["solve", path, "--after", m2 := write(tmp_path, "m2.json", {"moves": []})],
         f"--after {m2}: moves: expected a list"),  # the option and the file named
        (["solve", path, "--after", m3 := write(tmp_path, "m3.json", [level.solution[0].to_json()] * 2)],
         f"--after {m3}: moves[1]: illegal"),
        (["solve", path, "--after", str(tmp_path / "missing.json")], "--after: no such file"),
        (["solve", "-", "--after", "-"], "the file argument and --after: each reads - (stdin)"),
    ]
    for args, message in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1, (args, result.stderr)


def shipped_api() -> tuple[Api, Pack]:
    pack = shipped_pack("halloween-2026.json")
    return Api({pack.id: pack}), pack


def test_level_hint_follows_the_stored_solution_step_by_step():
    api, pack = shipped_api()
    for level in pack.levels[:5]:
        line = [m.to_json() for m in level.solution]
        for k in range(len(line) + 1):
            r = api.handle("POST", f"/levels/{pack.id}/{level.id}/hint", json.dumps({"moves": line[:k]}).encode())
            assert r.status == 200, r.body
            assert r.body["solution"] == line[k:] and r.body["next"] == line[k:k + 1], (level.id, k, r.body)
            assert r.body["best_score"] == level.best["score"] and r.body["after"]["moves"] == k


def test_level_hint_off_the_stored_line_replays_to_its_claim():
    """A player who left the stored line gets a rest that wins from where they stand (the
    server's node budget proves these small levels), or a proven no."""
    api, pack = shipped_api()
    rng = random.Random(5)
    answered = 0
    for level in pack.levels[:10]:  # (the 11th's brute force takes 5 s)
        data = level.to_json()
        moves = random_moves(data, rng, rng.randint(1, 3))
        r = api.handle("POST", f"/levels/{pack.id}/{level.id}/hint", json.dumps({"moves": moves}).encode())
        assert r.status == 200, r.body
        assert r.body["proof"] != PROOF_BOUND, (level.id, "within", LEVEL_HINT_NODES)
        expected = reference_best(data, moves)
        assert r.body["best_score"] == expected, (level.id, moves, r.body)
        if r.body["solvable"]:
            ok, why, score = reference_check({**data, "solution": moves + r.body["solution"]})
            assert ok and score == expected, (level.id, why)
            assert r.body["next"] == next_step_json(r.body["solution"])
            answered += 1
        else:
            assert r.body["solution"] is None
        if expected is None:
            assert r.body["best_line"] is None and r.body["next"] is None
        else:  # the best line meets every goal but the score; next follows the winning rest, else it
            ok, why, score = reference_check({**data, "goals": data["goals"][:-1],
                                              "solution": moves + r.body["best_line"]})
            assert ok and score == expected, (level.id, why)
            assert r.body["next"] == next_step_json(r.body["solution"] or r.body["best_line"])
    assert answered >= 3


def test_level_hint_points_toward_the_best_line_when_the_score_goal_is_out_of_reach():
    """A level whose score goal no line reaches: not solvable, and the hint's next step is the
    best line's (every other goal met), which replays to the proven best."""
    api, pack = shipped_api()
    for level in pack.levels[:6]:
        data = {**level.to_json(), "goals": [g for g in level.goals if "score" not in g]
                + [{"score": level.best["score"] + 1}]}
        hard = parse_level(data)
        api.packs[pack.id] = Pack(pack.id, pack.title, pack.generator, [hard])
        r = api.handle("POST", f"/levels/{pack.id}/{hard.id}/hint", json.dumps({"moves": []}).encode())
        assert (r.body["solvable"], r.body["solution"], r.body["best_score"]) == (False, None, level.best["score"])
        replay = play_solution(hard, parse_moves(r.body["best_line"]), ignore_score=True)
        assert replay.ok and replay.score == level.best["score"], replay.problem
        assert r.body["next"] == next_step_json(r.body["best_line"]) and r.body["next"]


def test_level_hint_is_cached_for_the_level_and_the_moves_as_served(tmp_path):
    """A level hint asked again is a lookup (the same answer, X-Tenfold-Cache: hit), also for a
    new server on the same cache file; other moves, or another level under the same pack and
    level ids (a pack file changed between runs), are solved afresh."""
    pack = shipped_pack("halloween-2026.json")
    api = Api({pack.id: pack}, AnswerCache(tmp_path / "cache.sqlite3"))
    rng = random.Random(11)
    level = pack.levels[3]
    moves = random_moves(level.to_json(), rng, 2)
    url = f"/levels/{pack.id}/{level.id}/hint"
    first = api.handle("POST", url, json.dumps({"moves": moves}).encode())
    reordered = [dict(reversed(m.items())) for m in moves]
    again = api.handle("POST", url, json.dumps({"moves": reordered}, indent=1).encode())
    assert first.status == again.status == 200, first.body
    assert (first.headers["X-Tenfold-Cache"], again.headers["X-Tenfold-Cache"]) == ("miss", "hit")
    uncached = Api({pack.id: pack}).handle("POST", url, json.dumps({"moves": moves}).encode())
    assert again.body == first.body == uncached.body
    other = api.handle("POST", url, json.dumps({"moves": moves[:1]}).encode())
    assert other.headers["X-Tenfold-Cache"] == "miss" and other.body["after"]["moves"] == 1
    api.cache.close()
    # a new server on the same file: the same level answers from it, a changed one does not
    data = {**level.to_json(), "goals": [g for g in level.goals if "score" not in g] + [{"score": 10_000}]}
    for served, expected in ((level, "hit"), (parse_level(data), "miss")):
        fresh = Api({pack.id: Pack(pack.id, pack.title, pack.generator, [served])},
                    AnswerCache(tmp_path / "cache.sqlite3"))
        r = fresh.handle("POST", url, json.dumps({"moves": moves}).encode())
        assert r.headers["X-Tenfold-Cache"] == expected, served.goals
        assert (r.body == first.body) == (expected == "hit") and r.body["solvable"] == (expected == "hit")
        fresh.cache.close()

    # a move spelled as another slot of the tray acts on that slot: the rest names the other
    spelled = parse_level({"format": "tenfold.level/1", "id": "dup", "variant": "halloween", "mode": "campaign",
                           "board": ["." * 10] * 10, "trays": [["#/#", "2x1", "1x1"]], "goals": [{"score": 5}]})
    api = Api({"p": Pack("p", "", pack.generator, [spelled])}, AnswerCache(tmp_path / "spelled.sqlite3"))
    rests = {}
    for piece in ("#/#", "2x1", "#/#"):
        body = json.dumps({"moves": [{"piece": piece, "row": 0, "col": 0}]}).encode()
        r = api.handle("POST", "/levels/p/dup/hint", body)
        rests.setdefault(piece, []).append((r.headers["X-Tenfold-Cache"], [m["piece"] for m in r.body["solution"]]))
    assert rests == {"#/#": [("miss", ["1x1", "2x1"]), ("hit", ["1x1", "2x1"])], "2x1": [("miss", ["1x1", "#/#"])]}
    api.cache.close()

def next_step_json(rest: list[dict]) -> list[dict]:
    for i, move in enumerate(rest):
        if "token" not in move:
            return rest[:i + 1]
    return rest


@pytest.mark.parametrize("method, body, status, message", [
    ("POST", b"[]", 400, "body: expected a JSON object like"),
    ("POST", b"{}", 400, "field moves: missing"),
    ("POST", b'{"moves": 3}', 400, "field moves: expected a list"),
    ("POST", b'{"moves": [{"piece": "1x1", "row": 0, "col": 0}]}', 400, "field moves[0]: illegal"),
    ("POST", b'{"moves": [{"piece": "zz", "row": 0, "col": 0}]}', 400, "field moves[0]: unknown piece"),
    ("GET", b"", 405, "use POST"),
])
def test_level_hint_bad_requests_are_named(method, body, status, message):
    api, pack = shipped_api()
    level = next(lv for lv in pack.levels if lv.trays[0][0] != "1x1")
    r = api.handle(method, f"/levels/{pack.id}/{level.id}/hint", body)
    assert r.status == status and message in r.body["error"], r.body
    missing = api.handle("POST", f"/levels/{pack.id}/no-such-level/hint", b'{"moves": []}')
    assert missing.status == 404
    for verb in ("GET", "POST"):  # a route that is none, whatever the method
        r = api.handle(verb, f"/levels/{pack.id}/{level.id}/hints", b'{"moves": []}')
        assert r.status == 404 and "did you mean /solution, or POST /hint?" in r.body["error"], r.body
    for path in ("solution/extra", "solution/a/b", "hint/extra"):  # nothing lies past a route's end
        r = api.handle("GET", f"/levels/{pack.id}/{level.id}/{path}")
        assert r.status == 404 and "no such route" in r.body["error"], (path, r.body)


def flow_level(seed: int) -> dict:
    """An Arabic level of trays of two and three pieces on a board of many nearly complete
    zones, so that random lines clear in turn after turn (the flow bonus: RULES.md §1)."""
    data = roomy_level(seed * 3 + 1)  # the Arabic ones
    rng = random.Random(f"flow-{seed}")
    grid = [list(row) for row in data["board"]]
    dress(rng, find_variant("arabic"), grid, zones=(6, 10), stones=(0,), pumpkins=(0,))
    deals = RandomDeals(find_variant("arabic"), seed)
    return {**data, "id": f"f{seed}", "board": ["".join(row) for row in grid], "tokens": 0,
            "trays": [[deals.next_piece() for _ in range(n)] for n in (2, 3)], "limit": 5,
            "goals": [{"score": 1}]}


def test_a_turn_that_has_cleared_keeps_its_flow_bonus():
    """Moves that stop inside a turn which has cleared, after a turn that cleared too: the rest
    earns the flow bonus at the turn's end even when it clears nothing more."""
    found = 0
    for seed in range(1000):  # about one seed in forty
        data = flow_level(seed)
        rng = random.Random(f"flow-moves-{seed}")
        moves = random_moves(data, rng, 3)  # the first tray, and one placement of the second
        if len(moves) < 3:
            continue
        position = position_after(parse_level(data), parse_moves(moves))
        if position.state.turn_cleared and position.state.prev_turn_cleared:
            check_after(data, moves)
            found += 1
            if found == 10:
                break
    assert found == 10


def test_a_second_redeal_draws_where_the_first_left_the_reserve():
    """Two tokens and a reserve: moves that redeal once leave the reserve drawn that far, and
    the rest may redeal again from there."""
    checked = 0
    for seed in range(60):
        data = {**reserve_level(seed), "tokens": 2}
        data["reserve"] = data["reserve"] + ["1x1", "2x1", "1x2"][: 4 - len(data["reserve"])]
        play = random.Random(f"redeal-{seed}")
        first = [m for m in random_moves(data, play, 1) if m.get("token") in ("reroll", "refresh", "swap")]
        redeals = [m for m in _legal_moves(data) if m.get("token") in ("reroll", "refresh", "swap")]
        if not redeals:
            continue
        moves = [play.choice(redeals)] if not first else first
        position, _ = check_after(data, moves)
        assert position.state.reserve_index > 0
        checked += 1
    assert checked >= 30


def _legal_moves(data: dict) -> list[dict]:
    from level_reference import _Play
    return list(_Play(data).moves())


TWINS = {"2x1": ("#/#", ".#/.#"), "1x2": ("##", "##/.."), "2x2": ("##/##",), "1x3": ("###",), "3x1": ("#/#/#",)}


def twin_level(seed: int) -> dict:
    """A roomy level whose trays hold a piece spelled two or three ways (``2x1``, ``#/#``,
    ``.#/.#``): a move names the slot it takes by its spelling, and the rest must name the
    slots left."""
    data = roomy_level(seed)
    rng = random.Random(f"twin-{seed}")
    trays = []
    for _ in range(2):
        piece = rng.choice(sorted(TWINS))
        spellings = [piece, *TWINS[piece]]
        tray = rng.sample(spellings, min(len(spellings), rng.choice((2, 3))))
        trays.append(tray + [rng.choice(("1x1", "L3-nw", "2x2"))][:3 - len(tray)])
    return {**data, "id": f"w{seed}", "trays": trays, "tokens": 0, "limit": 4}


def test_the_rest_names_the_slots_the_moves_left():
    """The moves taken name the slot they took by its spelling, and the brute force's tray (the
    level's spellings, each its own piece) holds exactly what the rest names."""
    twice = 0
    for seed in range(150):
        data = twin_level(seed)
        rng = random.Random(f"twin-moves-{seed}")
        moves = random_moves(data, rng, rng.randint(2, 3))  # (one or two placements left)
        check_after(data, moves)
        twice += any(m["piece"] != parse_moves([m])[0].piece for m in moves)
    assert twice >= 40


def test_a_move_spelled_as_a_later_slot_leaves_the_first():
    """The audit's level: a tray of #/# and 2x1 (one shape); after 2x1 the rest places #/#, after
    #/# it places 2x1, through the command and the server alike."""
    data = {"format": "tenfold.level/1", "id": "sp", "variant": "halloween", "mode": "campaign",
            "board": ["." * 10] * 10, "trays": [["#/#", "2x1"]], "goals": [{"place_all": True}]}
    level = parse_level(data)
    api = Api({"p": Pack("p", "t", {}, [level])})
    for taken, left in (("2x1", "#/#"), ("#/#", "2x1")):
        moves = [{"piece": taken, "row": 0, "col": 0}]
        position, answer = solve_after(level, parse_moves(moves))
        rest = spelled_rest(level, position, answer.solution)
        assert [m["piece"] for m in rest] == [left], (taken, rest)
        r = api.handle("POST", "/levels/p/sp/hint", json.dumps({"moves": moves}).encode())
        assert [m["piece"] for m in r.body["next"]] == [left], r.body


def test_after_counts_moves_placements_and_the_score_with_the_tokens_bonus():
    """docs/json.md ``after``: moves played (placements and tokens), placements among them, the
    score so far with the bonus of the tokens left (RULES.md: +100 a token in Arabic), tokens
    left. A 1x2 on an empty board scores 2 and clears nothing; a removal spends a token."""
    data = {"format": "tenfold.level/1", "id": "after", "variant": "arabic", "mode": "standard",
            "board": ["." * 10] * 10, "trays": [["1x2", "1x1", "2x1"]], "tokens": 3, "goals": [{"score": 1}]}
    level = parse_level(data)
    placed = parse_moves([{"piece": "1x2", "row": 0, "col": 0}])
    assert position_after(level, placed).to_json() == {"moves": 1, "placed": 1, "score": 302, "tokens": 3}
    removed = parse_moves([{"piece": "1x2", "row": 0, "col": 0}, {"token": "remove", "row": 0, "col": 1}])
    assert position_after(level, removed).to_json() == {"moves": 2, "placed": 1, "score": 202, "tokens": 2}
