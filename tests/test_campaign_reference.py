"""The campaign solvers against a brute force on the reference rules, which shares no code
with ``solver/`` (``level_reference.reference_best``, on ``reference_rules``).

Hundreds of seeded tiny levels in every variant: dense boards (at most 14 empty cells),
stones, pumpkins and the pumpkin goal, place_all, limits below the piece count, one or two
trays, at most three pieces, and a rotate/remove token or none. ``solvable``, ``best_score`` and the proof
must match the brute force exactly, and every line a solver returns must replay on the
reference rules, within the limit, to the score it claims. ``tenfold verify`` confirms the
true claims on every fifth level and fails each copy carrying a false one.
"""

from __future__ import annotations

import functools
import json
import random
from collections import Counter

import pytest
from typer.testing import CliRunner

from cli.main import app
from level_reference import reference_best, reference_check
from random_boards import dress, random_goals
from solver.campaign import PROOF_INFEASIBLE, PROOF_OPTIMAL, solve_level
from solver.campaign_cpsat import solve_level_cpsat
from solver.deals import RandomDeals
from solver.level import parse_level
from solver.verify import verify_level
from solver.variants import find_variant

SEEDS = range(400)
CHUNKS = 8
CPSAT_SEEDS = range(0, 400, 10)
CLI_SEEDS = range(5, 400, 20)
MODES = {"halloween": "campaign", "arabic": "standard", "sudoku": "campaign"}


def tiny_level(seed: int) -> dict:
    """A seeded level small enough for the brute force (a second or so at most)."""
    rng = random.Random(f"reference-{seed}")
    name = ("halloween", "arabic", "sudoku")[seed % 3]
    variant = find_variant(name)
    for _ in range(200):
        grid = [["#" if rng.random() < rng.uniform(0.88, 0.97) else "." for _ in range(10)] for _ in range(10)]
        pumpkins = dress(rng, variant, grid, zones=(1, 5), stones=(0, 0, 1, 2, 4), pumpkins=(0, 1, 2, 3))
        if sum(row.count(".") for row in grid) <= 14:
            break
    # at most three pieces, one token: past that the brute force takes minutes on some levels
    tokens = 0 if name == "halloween" else rng.choice((0, 1))
    sizes = rng.choice(([1], [2], [1, 1]) if tokens else ([1], [2], [3], [1, 1], [2, 1], [1, 2]))
    deals = RandomDeals(variant, seed)
    trays = [[deals.next_piece() for _ in range(n)] for n in sizes]
    goals = random_goals(rng, pumpkins, 0.6)
    return {"format": "tenfold.level/1", "id": f"t{seed}", "variant": name, "mode": MODES[name],
            "board": ["".join(row) for row in grid], "trays": trays, "goals": goals,
            "limit": rng.randint(max(1, sum(sizes) - 2), sum(sizes)), "tokens": tokens}


@functools.cache
def expected_best(seed: int) -> int | None:
    return reference_best(tiny_level(seed))


def solvable(data: dict, expected: int | None) -> bool:
    """Whether the level's goals can be met, given its best score (the score goal is last)."""
    return expected is not None and expected >= data["goals"][-1]["score"]


def check(data: dict, answer, expected: int | None) -> None:
    where = f"{data['id']}: {json.dumps(data)}"
    assert answer.best_score == expected, where
    assert answer.proof == (PROOF_INFEASIBLE if expected is None else PROOF_OPTIMAL), where
    assert answer.solvable == solvable(data, expected), where
    if answer.best_line is not None:  # replays, within the limit, to the best score
        ok, why, score = reference_check({**data, "goals": data["goals"][:-1],
                                          "solution": [m.to_json() for m in answer.best_line]})
        assert ok and score == expected, f"{where}: best line {why}"
    if answer.solvable:
        ok, why, _ = reference_check({**data, "solution": [m.to_json() for m in answer.solution]})
        assert ok, f"{where}: solution {why}"


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_search_matches_the_reference_brute_force(chunk):
    for seed in SEEDS[chunk::CHUNKS]:
        data = tiny_level(seed)
        check(data, solve_level(parse_level(data), time_limit=60), expected_best(seed))


def test_cpsat_matches_the_reference_brute_force():
    for seed in CPSAT_SEEDS:
        data = tiny_level(seed)
        check(data, solve_level_cpsat(parse_level(data), time_limit=60), expected_best(seed))


def test_cli_solve_json_matches_the_reference_brute_force(tmp_path):
    runner = CliRunner()
    for seed in CLI_SEEDS:
        data = tiny_level(seed)
        path = tmp_path / f"{data['id']}.json"
        path.write_text(json.dumps(data))
        result = runner.invoke(app, ["solve", str(path), "--json"])
        assert result.exit_code == 0, result.output
        out = json.loads(result.stdout)
        expected = expected_best(seed)
        assert out["best_score"] == expected and out["bound"] == expected
        assert out["proof"] == ("infeasible" if expected is None else "optimal")
        assert out["solvable"] == solvable(data, expected)
        if out["solvable"]:
            ok, why, _ = reference_check({**data, "solution": out["solution"]})
            assert ok, f"{data['id']}: {why}"
        else:
            assert out["solution"] is None


def test_the_levels_cover_the_features():
    levels = [tiny_level(seed) for seed in SEEDS]
    expected = [expected_best(seed) for seed in SEEDS[:60]]
    assert {lv["variant"] for lv in levels} == {"halloween", "arabic", "sudoku"}
    assert sum(lv["limit"] < sum(map(len, lv["trays"])) for lv in levels) >= 120
    assert sum(any(g.get("pumpkins") for g in lv["goals"]) for lv in levels) >= 120
    assert sum(any(g.get("place_all") for g in lv["goals"]) for lv in levels) >= 50
    assert sum(lv["tokens"] > 0 for lv in levels) >= 100
    assert sum(len(lv["trays"]) == 2 for lv in levels) >= 120
    assert sum(any("S" in row for row in lv["board"]) for lv in levels) >= 180
    assert 10 <= sum(e is None for e in expected) <= 50  # some levels cannot meet their goals


VERIFY_SEEDS = range(0, 400, 5)


def claimed_levels() -> list[dict]:
    """Levels from VERIFY_SEEDS carrying true claims: the reference's best score (optimal, or
    infeasible) and, where a line meets the goals, the search's best line as the solution with
    the score goal at its score (the line is checked on the reference rules first)."""
    levels = []
    for seed in VERIFY_SEEDS:
        data = tiny_level(seed)
        expected = expected_best(seed)
        if expected is None:
            data["best"] = {"score": None, "proof": "infeasible", "bound": None}
        else:
            line = [m.to_json() for m in solve_level(parse_level(data), time_limit=60).best_line]
            data["goals"][-1]["score"] = expected
            data["solution"] = line
            data["best"] = {"score": expected, "proof": "optimal", "bound": expected}
            assert reference_check(data)[0], data["id"]
        levels.append(data)
    return levels


def false_claims(data: dict) -> dict[str, dict]:
    """The level with one false claim each: best one point too high and one too low (both
    "optimal"), a placement moved onto a filled cell, a limit one short of the solution."""
    out = {}
    best = data["best"]["score"]
    out["too high"] = {**data, "best": {**data["best"], "score": (best or 0) + 1, "proof": "optimal"}}
    if best is not None:
        out["too low"] = {**data, "best": {**data["best"], "score": best - 1}}
        moves = data["solution"]
        placed = [i for i, m in enumerate(moves) if "piece" in m and "token" not in m]
        r, c = next((r, c) for r in range(10) for c in range(10) if data["board"][r][c] in "#S")
        illegal = [dict(m) for m in moves]
        if placed:
            illegal[placed[0]] = {"piece": moves[placed[0]]["piece"], "row": r, "col": c}
        else:  # the best line places nothing
            illegal.insert(0, {"piece": data["trays"][0][0], "row": r, "col": c})
        out["illegal move"] = {**data, "solution": illegal}
        if len(placed) >= 2:
            out["past the limit"] = {**data, "limit": len(placed) - 1}
    return out


def test_verify_confirms_true_claims_and_catches_every_false_one(tmp_path):
    """Through the library and the CLI: every true claim verifies, every level with a false
    one fails naming the claim, and a pack holding any fails (exit 1) naming those levels."""
    levels = claimed_levels()
    assert sum(lv["best"]["proof"] == "optimal" for lv in levels) >= 40
    bad = []
    for data in levels:
        assert verify_level(parse_level(data)).ok, data["id"]
        for kind, wrong in false_claims(data).items():
            verdict = verify_level(parse_level(wrong))
            assert not verdict.ok, f"{data['id']}: {kind} passed"
            named = {"too high": "best.score", "too low": "best.score", "illegal move": "solution",
                     "past the limit": "limit"}[kind]
            assert any(named in p for p in verdict.problems), f"{data['id']} {kind}: {verdict.problems}"
            bad.append({**wrong, "id": f"{data['id']}-{kind.replace(' ', '-')}"})
    kinds = Counter(lv["id"].split("-", 1)[1] for lv in bad)
    assert kinds["too-high"] == len(levels) and min(kinds.values()) >= 5 and len(kinds) == 4, kinds
    runner = CliRunner()
    for name, items in (("true", levels), ("false", levels[:10] + bad[:30])):
        (tmp_path / f"{name}.json").write_text(json.dumps({
            "format": "tenfold.pack/1", "id": name, "title": name, "generator": {"seed": 0, "version": "test"},
            "levels": items}))
    result = runner.invoke(app, ["verify", str(tmp_path / "true.json")])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["verify", str(tmp_path / "false.json")])
    assert result.exit_code == 1
    failed = {line.split()[1].rstrip(":") for line in result.stdout.splitlines() if line.startswith("FAIL")}
    assert failed == {lv["id"] for lv in bad[:30]}
