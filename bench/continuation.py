"""Level hints benchmark: what ``POST /levels/{pack}/{level}/hint`` (``solve --after``) costs.

    .venv/bin/python bench/continuation.py [--positions 40] [--seed 2026] [--trays 5,8]

A game client asks from where its player stands, on or off a winning line. Two kinds of
position: ``random``, random placements from a level's start (1 to limit-1 of them, each a
piece of the tray in hand at a random free spot), which mostly leave a level lost; and ``off
the line``, a winning line's first moves (0 to limit-2 of them) then one random placement, a
player who has just left it. Levels: the shipped packs' (their stored solutions), and the
candidates ``tenfold generate halloween`` builds (``bench/campaign.py``'s ``generated``
levels, with the construction's line) of each ``--trays``. Each position is answered as the
server does (``LEVEL_HINT_NODES`` nodes); the figures are its time (median and p99; ``--nodes``
sets another budget), how many it proves (``optimal`` or ``infeasible``) and how many it finds
still winnable. The first answer of a run loads the compiled search and is not timed.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine, summary  # noqa: E402

from cli.api import LEVEL_HINT_NODES  # noqa: E402
from generator.recipes import Unbuildable, candidate_level, candidate_seed  # noqa: E402
from solver.campaign import PROOF_BOUND  # noqa: E402
from solver.continuation import solve_after  # noqa: E402
from solver.level import Level, parse_level_or_pack  # noqa: E402
from solver.moves import Placement  # noqa: E402
from solver.pieces import placements  # noqa: E402


def random_placements(level: Level, rng: random.Random, count: int, after: list = ()) -> list:
    """``after``, then up to ``count`` placements, each of a piece of the tray in hand at a random
    free spot."""
    game = level.new_game()
    for move in after:
        game.apply(move)
    moves = list(after)
    while len(moves) < len(after) + count and game.tray:
        spots = [(piece, spot) for piece in dict.fromkeys(game.tray) for spot in placements(piece)
                 if not spot.mask & game.board.occupied]
        if not spots:
            break
        piece, spot = rng.choice(spots)
        move = Placement(piece, spot.row, spot.col)
        game.apply(move)
        moves.append(move)
    return moves


def shipped_levels() -> list[tuple[Level, list]]:
    """The shipped packs' levels, each with its stored solution."""
    levels = []
    for name in ("halloween-2026.json", "sultan-2026.json"):
        pack = parse_level_or_pack(json.loads((ROOT / "levels" / name).read_text("utf-8")), name)
        levels += [(level, level.solution) for level in pack.levels]
    return levels


def generated_levels(trays: int, count: int, seed: int) -> list[tuple[Level, list]]:
    """Generator candidates, each with the construction's line (which clears every pumpkin)."""
    levels = []
    index = 0
    while len(levels) < count:
        try:
            level, line, _ = candidate_level("halloween", trays, candidate_seed("halloween", seed, index))
            levels.append((level, line))
        except Unbuildable:
            pass
        index += 1
    return levels


def measure(label: str, levels: list[tuple[Level, list]], positions: int, rng: random.Random, off_line: bool,
            nodes: int) -> None:
    seconds: list[float] = []
    proven = winnable = 0
    for _ in range(positions):
        level, line = rng.choice(levels)
        if off_line:
            moves = random_placements(level, rng, 1, line[:rng.randint(0, max(0, len(line) - 2))])
        else:
            moves = random_placements(level, rng, rng.randint(1, max(1, level.limit - 1)))
        start = time.perf_counter()
        _, answer = solve_after(level, moves, time_limit=math.inf, node_limit=nodes, hint=level.solution)
        seconds.append(time.perf_counter() - start)
        proven += answer.proof != PROOF_BOUND
        winnable += answer.solvable is True
    print(f"{summary(label, seconds)}  proven {proven}/{positions}  winnable {winnable}/{positions}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=40, help="positions per kind of level")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--trays", default="5,8", help="tray counts of the generated levels")
    parser.add_argument("--nodes", type=int, default=LEVEL_HINT_NODES, help="the node budget (the server's)")
    args = parser.parse_args()
    print(f"level hints benchmark  seed={args.seed}  positions={args.positions}  node budget={args.nodes:,}"
          f"  machine: {machine()}")
    rng = random.Random(args.seed)
    shipped = shipped_levels()
    solve_after(shipped[0][0], [], node_limit=1)  # loads (or compiles) the compiled search: not timed
    kinds = [("shipped packs", shipped)] + [(f"generated, {t} trays", generated_levels(t, 20, args.seed))
                                            for t in (int(t) for t in args.trays.split(","))]
    for off_line in (False, True):
        for label, levels in kinds:
            measure(f"{label}, {'off the line' if off_line else 'random'}", levels, args.positions, rng, off_line,
                    args.nodes)


if __name__ == "__main__":
    main()
