"""Metamorphic relations of the campaign search: changes to a level whose effect on the proven
answer is known without solving it. Each level is solved as it is and as changed, and the two
proven answers must stand in the relation:

- one placement more allowed never lowers the best score nor loses solvability (a line of at
  most ``limit`` placements is one of at most ``limit + 1``); one fewer never raises it;
- one token more raises the best by at least the token's end bonus (every line stays legal and
  keeps the token);
- a piece turned in advance, with one token fewer, never beats the level (its lines are the
  level's lines that turn that piece first); so for a tile removed in advance;
- a tray added past the limit, or the pieces of a tray in another order, change nothing;
- the best score as the score goal is solvable with the same best; one point more is not.

A metamorphic audit (a helper, 2026-12-05) held about 6,000 such pairs over every generator of
test_campaign_jit and larger levels without a mismatch; these are the cheap ones. The token
bonus and the turned pieces come from reference_rules, not from the solver.
"""

from __future__ import annotations

import random

import pytest

import reference_rules as ref
from solver.campaign import solve_level
from solver.deals import RandomDeals
from solver.level import parse_level
from solver.variants import find_variant
from test_campaign_jit import pumpkin_level, random_spend_level

PROVEN = ("optimal", "infeasible")


def levels() -> list[dict]:
    """Arabic and Sudoku levels with rotate and remove tokens; every variant with pumpkins,
    stones and limits below the piece count."""
    return [random_spend_level(seed).raw for seed in range(40)] + [pumpkin_level(seed).raw for seed in range(30)]


def answer(data: dict):
    got = solve_level(parse_level(data), time_limit=60)
    assert got.proof in PROVEN, data["id"]
    return got


def at_least(a, b, delta: int = 0) -> bool:
    """Whether answer ``a``'s best is at least ``b``'s plus ``delta`` (no line is below any)."""
    return b.best_score is None or (a.best_score is not None and a.best_score >= b.best_score + delta)


@pytest.mark.parametrize("index", range(70))
def test_relations(index):
    data = levels()[index]
    rng = random.Random(f"relations-{index}")
    base = answer(data)
    pieces = sum(map(len, data["trays"]))
    tokens = data.get("tokens", 0)
    kinds = find_variant(data["variant"]).token_kinds  # (the pumpkin levels have no tokens)

    if data["limit"] > 1:
        fewer = answer(dict(data, limit=data["limit"] - 1))
        assert at_least(base, fewer) and (base.solvable or not fewer.solvable), "limit - 1"
    if data["limit"] < pieces:
        more = answer(dict(data, limit=data["limit"] + 1))
        assert at_least(more, base) and (more.solvable or not base.solvable), "limit + 1"
    if tokens:  # (a first token on the pumpkin levels: a search many times longer)
        richer = answer(dict(data, tokens=tokens + 1))
        assert at_least(richer, base, ref.TOKEN_BONUS[data["variant"]]), "one token more"
    if tokens and "rotate" in kinds:
        spots = [(i, j) for i, tray in enumerate(data["trays"]) for j, p in enumerate(tray)
                 if ref.rotate_id(p, 1) != p]
        if spots:
            i, j = rng.choice(spots)
            trays = [list(t) for t in data["trays"]]
            trays[i][j] = ref.rotate_id(trays[i][j], rng.choice((1, 2, 3)))
            assert at_least(base, answer(dict(data, trays=trays, tokens=tokens - 1))), "turned in advance"
    if tokens and "remove" in kinds:
        tiles = [(r, c) for r in range(10) for c in range(10) if data["board"][r][c] in "#P"]
        if tiles:
            r, c = rng.choice(tiles)
            rows = list(data["board"])
            rows[r] = rows[r][:c] + "." + rows[r][c + 1:]
            assert at_least(base, answer(dict(data, board=rows, tokens=tokens - 1))), "removed in advance"
    same = (base.solvable, base.best_score, base.proof)
    if not any("place_all" in g for g in data["goals"]):
        deals = RandomDeals(find_variant(data["variant"]), 123 + index)
        longer = answer(dict(data, trays=data["trays"] + [[deals.next_piece() for _ in range(3)]]))
        assert (longer.solvable, longer.best_score, longer.proof) == same, "a tray past the limit"
    shuffled = answer(dict(data, trays=[rng.sample(t, len(t)) for t in data["trays"]]))
    assert (shuffled.solvable, shuffled.best_score, shuffled.proof) == same, "a tray's order"
    if base.best_score is not None:
        goals = [g for g in data["goals"] if "score" not in g]
        reached = answer(dict(data, goals=goals + [{"score": base.best_score}]))
        assert reached.solvable and reached.best_score == base.best_score, "the best as the goal"
        beyond = answer(dict(data, goals=goals + [{"score": base.best_score + 1}]))
        assert beyond.solvable is False and beyond.best_score == base.best_score, "one point above the best"


def test_the_relations_have_something_to_compare():
    """The sample has proven bests and infeasible levels, tokens of both kinds, and a limit
    that binds somewhere (a relation between two nulls could not fail)."""
    answers = [answer(d) for d in levels()]
    assert sum(a.best_score is not None for a in answers) >= 30
    assert sum(a.proof == "infeasible" for a in answers) >= 5
    assert sum(1 for d in levels() if d.get("tokens")) >= 20
    assert sum(1 for d in levels() if d["limit"] < sum(map(len, d["trays"]))) >= 20
