"""Tray benchmark: placeable and optimal ordering on a fixed seeded set of positions, and the
whole answer of ``tenfold tray`` (and ``POST /hint``): the best plan, safe first moves and more.

    .venv/bin/python bench/tray.py [--count 1000] [--seed 2026] [--search]
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine, summary  # noqa: E402
from positions import random_position  # noqa: E402

from solver.engine import Streak  # noqa: E402
from solver.tray import TraySearch, analyse_tray, best_plan  # noqa: E402
from solver.variants import VARIANTS  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--search", action="store_true", help="also time the pure-Python search alone")
    args = parser.parse_args()
    print(f"tray benchmark  seed={args.seed}  positions/variant={args.count}  machine: {machine()}")
    for name, variant in VARIANTS.items():
        rng = random.Random(f"{args.seed}-{name}")
        positions = [random_position(variant, rng, stones=rng.choice((0, 0, 4))) for _ in range(args.count)]
        best_plan(variant, *positions[0], Streak())  # load the compiled kernels before timing
        placeable_t, best_t, search_t, whole_t = [], [], [], []
        for board, tray in positions:
            t0 = time.perf_counter()
            TraySearch(variant, board, Streak()).placeable(tray)
            placeable_t.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            best_plan(variant, board, tray, Streak())
            best_t.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            analyse_tray(variant, board, tray)
            whole_t.append(time.perf_counter() - t0)
            if args.search:
                t0 = time.perf_counter()
                TraySearch(variant, board, Streak()).best(tray)
                search_t.append(time.perf_counter() - t0)
        print(summary(f"{name} placeable", placeable_t))
        print(summary(f"{name} optimal ordering", best_t))
        print(summary(f"{name} whole answer", whole_t))
        if args.search:
            print(summary(f"{name} optimal (pure search)", search_t))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory {peak:.0f} MB")


if __name__ == "__main__":
    main()
