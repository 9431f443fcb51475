"""Token rescue benchmark: ``tenfold tray --tokens N`` on trays that do not fit.

Seeded dense boards (72-88% full, a few zones nearly complete, sometimes stones) with a
tray of three supply pieces that does not fit, for the variants with tokens. Times the
whole answer (``analyse_tray``: the fewest tokens, then the most points with them) and,
apart, ``TraySearch.rescue`` alone (the fewest tokens and the first plan found).

    .venv/bin/python bench/rescue.py [--count 200] [--seed 2026] [--tokens 3]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine, summary  # noqa: E402
from positions import random_position  # noqa: E402

from solver.board import Board  # noqa: E402
from solver.engine import Streak  # noqa: E402
from solver.tray import TraySearch, analyse_tray, best_plan  # noqa: E402
from solver.variants import VARIANTS  # noqa: E402


def stuck_position(variant, rng: random.Random) -> tuple[Board, list[str]]:
    """A dense board (``random_position`` 72-88% full) and a tray of three that does not fit."""
    while True:
        board, tray = random_position(variant, rng, stones=rng.choice((0, 0, 2, 4)), fill_range=(0.72, 0.88))
        if best_plan(variant, board, tray, Streak()) is None:
            return board, tray


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--tokens", type=int, default=3)
    args = parser.parse_args()
    print(f"rescue benchmark  seed={args.seed}  trays/variant={args.count}  tokens={args.tokens}  "
          f"machine: {machine()}")
    for name, variant in VARIANTS.items():
        if not variant.token_kinds & {"rotate", "remove"}:
            continue
        rng = random.Random(f"{args.seed}-rescue-{name}")
        positions = [stuck_position(variant, rng) for _ in range(args.count)]
        analyse_tray(variant, *positions[0], 0, args.tokens)  # load the compiled kernels before timing
        first_t, best_t, used = [], [], Counter()
        for board, tray in positions:
            t0 = time.perf_counter()
            TraySearch(variant, board, Streak()).rescue(tray, args.tokens)
            first_t.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            answer = analyse_tray(variant, board, tray, 0, args.tokens)
            best_t.append(time.perf_counter() - t0)
            used[answer.tokens_used if answer.placeable else "none"] += 1
        print(summary(f"{name} fewest tokens", first_t))
        print(summary(f"{name} then most points", best_t))
        print(f"{'':28} tokens used: " + ", ".join(f"{k}: {v}" for k, v in sorted(used.items(), key=str)))


if __name__ == "__main__":
    main()
