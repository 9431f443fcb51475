"""Campaign benchmark: seeded Halloween campaign levels of 3, 5 and 8 trays, and
Sultan's Labyrinth levels (4 stones, 3 ink tokens to spend) of 1, 2 and 3 trays.

Two kinds of Halloween level:
* ``halloween``: the construction's board and trays with every piece allowed
  (limit 15 for 5 trays), the hardest form of a level this size;
* ``generated``: the candidates ``tenfold generate halloween`` builds, unfiltered
  (the same function, before the generator's node budget rejects any), whose
  limit falls 0-2 placements after the construction's last pumpkin clear.

Times to decide solvability (a line meeting every goal, the score goal at 70%
of the construction's score) and to prove the best score, one core.

    .venv/bin/python bench/campaign.py [--levels 10] [--seed 2026] [--time-limit 60]
        [--only halloween|generated|sultan] [--trays 5] [--per-level] [--pick 3,18]

``--per-level`` prints a line per level as it is proven (its limit, both times, nodes, the
answer); ``--pick`` runs only those levels of each size (0-based, the same levels as a full run:
``--levels`` must still cover them), for A/B timing of the slow ones.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine, summary  # noqa: E402

from generator.construct import construct  # noqa: E402
from generator.recipes import RECIPES, Unbuildable, candidate_level, candidate_seed  # noqa: E402
from solver import campaign_jit  # noqa: E402
from solver.board import Board  # noqa: E402
from solver.campaign import solve_level  # noqa: E402
from solver.level import Level, play_solution  # noqa: E402
from solver.variants import find_variant  # noqa: E402


def make_sultan_level(trays: int, rng: random.Random) -> Level | None:
    """A Sultan's Labyrinth level as the generator builds them (its recipe's stones and fill),
    every piece to place, three ink tokens."""
    recipe = RECIPES["sultan"]
    variant = find_variant(recipe.variant)
    built = construct(variant, rng, trays, rng.randint(*recipe.stones), rng.uniform(*recipe.density))
    if built is None:
        return None
    level = Level("bench", variant, recipe.mode, built.board, built.trays, [{"place_all": True}],
                  tokens=variant.mode(recipe.mode).tokens)
    level.limit = level.piece_count
    score = play_solution(level, built.line).score
    level.goals.append({"score": max(1, math.ceil(0.7 * score))})
    return level


def make_level(trays: int, rng: random.Random) -> Level | None:
    variant = find_variant("halloween")
    built = construct(variant, rng, trays, rng.randint(2, 5), rng.uniform(0.78, 0.9))
    if built is None:
        return None
    cleared = 0
    for mask in built.cleared_originals:
        cleared |= mask
    cells = [c for c in range(100) if cleared >> c & 1]
    if len(cells) < 2:
        return None
    pumpkins = sum(1 << c for c in rng.sample(cells, min(len(cells), 3)))
    board = Board(built.board.filled, built.board.stones, pumpkins)
    level = Level("bench", variant, "campaign", board, built.trays, [{"pumpkins": True}])
    level.limit = level.piece_count
    score = play_solution(level, built.line).score
    level.goals.append({"score": max(1, math.ceil(0.7 * score))})
    return level


def make_generated_level(trays: int, rng: random.Random) -> Level | None:
    """A Halloween candidate exactly as the generator builds it (seeded from ``rng``), with
    the score goal at 70% of its construction line's score."""
    seed = candidate_seed("halloween", rng.randrange(1 << 31), 0)
    try:
        level, line, _ = candidate_level("halloween", trays, seed)
    except Unbuildable:
        return None
    score = play_solution(level, line).score
    level.goals.append({"score": max(1, math.ceil(0.7 * score))})
    return level


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--levels", type=int, default=10)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--only", choices=("halloween", "generated", "sultan"), default=None)
    parser.add_argument("--trays", default=None,
                        help="comma-separated tray counts to run (default: 3,5,8 Halloween, 1,2,3 Sultan)")
    parser.add_argument("--per-level", action="store_true", help="a line per level")
    parser.add_argument("--pick", default=None, help="comma-separated level indices to run (0-based)")
    args = parser.parse_args()
    picks = None if args.pick is None else [int(i) for i in args.pick.split(",")]
    if picks is not None and (min(picks) < 0 or max(picks) >= args.levels):
        parser.error(f"--pick: indices must be 0-{args.levels - 1} (--levels {args.levels})")
    print(f"campaign benchmark  seed={args.seed}  levels per size={args.levels}  "
          f"time limit={args.time_limit:g}s  machine: {machine()}")
    campaign_jit.warm_up()  # load (or compile) the search first: the first level's times leave it out
    sizes = [("halloween", t, make_level) for t in (3, 5, 8)]
    sizes += [("generated", t, make_generated_level) for t in (3, 5, 8)]
    sizes += [("sultan", t, make_sultan_level) for t in (1, 2, 3)]
    for kind, trays, make in sizes:
        if args.only not in (None, kind) or (args.trays and str(trays) not in args.trays.split(",")):
            continue
        rng = random.Random(f"{args.seed}-{trays}" if kind == "halloween" else f"{args.seed}-{kind}-{trays}")
        levels: list[Level] = []
        while len(levels) < args.levels:
            level = make(trays, rng)
            if level is not None:
                levels.append(level)
        if picks is not None:
            levels = [levels[i] for i in picks]
        decide, prove, proven, nodes, gaps = [], [], 0, 0, []
        for i, level in enumerate(levels):
            t0 = time.perf_counter()
            solve_level(level, time_limit=args.time_limit, target=level.score_goal)
            decide.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            answer = solve_level(level, time_limit=args.time_limit)
            prove.append(time.perf_counter() - t0)
            proven += answer.complete
            nodes += answer.nodes
            if not answer.complete and answer.best_score is not None:
                gaps.append((answer.best_score, answer.bound))
            if args.per_level:
                print(f"  {kind} {trays} trays, level {picks[i] if picks else i:3d}: limit {level.limit:2d}"
                      f"  decide {decide[-1]:7.3f} s  prove {prove[-1]:7.3f} s  {answer.nodes:>12,} nodes"
                      f"  best {answer.best_score} bound {answer.bound} ({answer.proof})", flush=True)
        name = f"{kind} {trays} tray{'s' if trays > 1 else ''}"
        print(summary(f"{name}: decide solvable", decide))
        print(summary(f"{name}: prove best", prove) + f"  proven {proven}/{len(levels)}"
              f"  {nodes / sum(prove) / 1e6:.2f} M nodes/s")
        if kind == "generated":
            limits = sorted(level.limit for level in levels)
            print(f"{name}: placement limits {limits[0]}-{limits[-1]}, median {statistics.median(limits):g}"
                  f" of {levels[0].piece_count} pieces")
        if gaps:
            print(f"{name}: unproven (best found, bound): "
                  + " ".join(f"({b}, {u})" for b, u in gaps))


if __name__ == "__main__":
    main()
