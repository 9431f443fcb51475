"""The two kinds of level tenfold generates, and how one candidate becomes a graded level.

A candidate is a pure function of (kind, trays, seed): the same inputs give
the same result on any machine and in any worker, so a pack does not depend
on how its candidates were spread over processes. Proofs are bounded by a
node budget, never by wall-clock time, for the same reason.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from solver.campaign import PROOF_OPTIMAL, solve_level
from solver.level import LEVEL_FORMAT, Level
from solver.moves import Placement
from solver.variants import find_variant

from .construct import construct
from .grade import Measurements, grading, measure

GOAL_FRACTIONS = (0.3, 0.5, 0.7, 0.85, 1.0)


@dataclass(frozen=True)
class Recipe:
    kind: str
    variant: str
    mode: str
    stones: tuple[int, int]  # inclusive range
    density: tuple[float, float]
    pumpkins: tuple[int, int]  # inclusive range; (0, 0) for none
    place_all: bool
    default_trays: int  # the most trays whose proofs usually finish inside the node budget
    node_budget: int  # search nodes a candidate's proof may take (machine-independent)


RECIPES: dict[str, Recipe] = {
    # Three ink tokens make every placement a choice among spots freed by removals: one tray's
    # proof takes a median 23 ms (bench/campaign.py), two trays' about 11 s, so one tray is
    # the default and the budget (about 2 s of the compiled search) lets --trays 2 accept
    # about half of its candidates (8 of 15 for `generate sultan --count 8 --seed 1 --trays 2`).
    "sultan": Recipe("sultan", "arabic", "sultan", (4, 4), (0.82, 0.92), (0, 0), True, 1, 4_000_000),
    "halloween": Recipe("halloween", "halloween", "campaign", (2, 5), (0.78, 0.9), (2, 5), False, 5, 400_000),
}


def candidate_seed(kind: str, pack_seed: int, index: int) -> int:
    return random.Random(f"tenfold:{kind}:{pack_seed}:{index}").randrange(1 << 48)


class Unbuildable(Exception):
    """A candidate seed whose construction gave no level (the reason is the message)."""


def candidate_level(kind: str, trays: int, seed: int) -> tuple[Level, list[Placement], random.Random]:
    """The level a candidate seed builds, before any proof: board, trays, goals (no score
    goal yet) and placement limit; with the construction's own line (a hint for the proof)
    and the random stream, left where grading continues it. Raises ``Unbuildable``."""
    recipe = RECIPES[kind]
    variant = find_variant(recipe.variant)
    mode = variant.mode(recipe.mode)
    rng = random.Random(seed)
    stones = rng.randint(*recipe.stones)
    built = construct(variant, rng, trays, stones, rng.uniform(*recipe.density))
    if built is None:
        raise Unbuildable("construction failed")
    pieces = sum(len(t) for t in built.trays)
    board = built.board
    goals: list[dict[str, Any]] = []
    limit = pieces
    line = list(built.line)
    if recipe.place_all:
        goals.append({"place_all": True})
    if recipe.pumpkins[1]:
        cleared_any = 0
        for mask in built.cleared_originals:
            cleared_any |= mask
        cells = [c for c in range(100) if cleared_any >> c & 1]
        if len(cells) < recipe.pumpkins[0]:
            raise Unbuildable("too few clearable tiles for pumpkins")
        chosen = rng.sample(cells, min(len(cells), rng.randint(*recipe.pumpkins)))
        pumpkins = sum(1 << c for c in chosen)
        last = max(i for i, mask in enumerate(built.cleared_originals) if mask & pumpkins)
        limit = min(pieces, last + 1 + rng.randint(0, 2))
        line = line[:limit]
        board = type(board)(board.filled, board.stones, pumpkins)
        goals.append({"pumpkins": True})
    level = Level("candidate", variant, mode.name, board, built.trays, goals, limit=limit, tokens=mode.tokens)
    return level, line, rng


def build_candidate(kind: str, trays: int, seed: int, node_budget: int | None = None) -> dict[str, Any]:
    """Construct, prove and measure one candidate.

    Returns a JSON-able dict: ``status`` ``accepted`` with the level (no score
    goal yet), its proven best and one grading option per goal fraction; or
    ``rejected`` with the reason. An option's grade is null when a line count cut short by
    its budget leaves it unsettled (``grade.settled_grade``): a pack never takes such an option.
    """
    if node_budget is None:
        node_budget = RECIPES[kind].node_budget
    try:
        level, line, rng = candidate_level(kind, trays, seed)
    except Unbuildable as why:
        return _rejected(seed, str(why))
    answer = solve_level(level, time_limit=math.inf, node_limit=node_budget, hint=line)
    if not answer.complete or answer.nodes > node_budget:  # (the search reads its count every 4,096 nodes)
        return _rejected(seed, "proof budget exceeded", nodes=answer.nodes)
    if answer.proof != PROOF_OPTIMAL or answer.best_score is None:
        return _rejected(seed, f"no winning line ({answer.proof})", nodes=answer.nodes)
    best = answer.best_score
    playout_seed = rng.randrange(1 << 31)
    goals = score_goals(best)
    options = [grading_option(goal, m) for goal, m in zip(goals, measure(level, goals, answer.nodes, playout_seed))]
    data = level.to_json()
    data["solution"] = [m.to_json() for m in answer.best_line]
    data["best"] = {"score": best, "proof": PROOF_OPTIMAL, "bound": best}
    return {"seed": seed, "status": "accepted", "level": data, "best": best, "options": options,
            "nodes": answer.nodes, "seconds": round(answer.seconds, 3)}


def score_goals(best: int) -> list[int]:
    """The score goals a level with this best may carry: one per goal fraction."""
    return [max(1, math.ceil(fraction * best)) for fraction in GOAL_FRACTIONS]


def grading_option(goal: int, m: Measurements) -> dict[str, Any]:
    """One goal a candidate may be given, with the grade and difficulty its measurements make."""
    return {"goal": goal, **grading(m)}


def _rejected(seed: int, reason: str, nodes: int = 0) -> dict[str, Any]:
    return {"seed": seed, "status": "rejected", "reason": reason, "nodes": nodes}


def finish_level(candidate: dict[str, Any], option: dict[str, Any], level_id: str) -> dict[str, Any]:
    """The level as it goes into a pack: score goal, stars, grade and its measurements."""
    level = dict(candidate["level"])
    best = candidate["best"]
    goal = option["goal"]
    level["format"] = LEVEL_FORMAT
    level["id"] = level_id
    level["goals"] = list(level["goals"]) + [{"score": goal}]
    level["stars"] = [goal, (goal + best + 1) // 2, best]
    level["grade"] = option["grade"]
    level["difficulty"] = option["difficulty"]
    level["measurements"] = option["measurements"]
    return level
