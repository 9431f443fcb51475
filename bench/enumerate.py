"""Full tray enumeration benchmark: time per tray on the tray benchmark's positions.

    .venv/bin/python bench/enumerate.py [--count 1000] [--seed 2026] [--python 0]

Positions are ``bench/positions.py``'s (boards 0-70% full, a third with 4
stones), the same set ``bench/tray.py`` uses for the same seed. "mid-game"
is the subset with 30-70 empty cells. Times the numba kernel (first call,
the cache load, excluded) and, with ``--python N``, the pure-Python
reference on the first N positions.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine, summary  # noqa: E402
from positions import random_position  # noqa: E402

from solver.board import Board  # noqa: E402
from solver.engine import Streak  # noqa: E402
from solver.enumerate import enumerate_tray_py  # noqa: E402
from solver.enumerate_jit import enumerate_tray_jit  # noqa: E402
from solver.variants import VARIANTS  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--python", type=int, default=0, help="also time the pure-Python reference on N positions")
    args = parser.parse_args()
    print(f"enumeration benchmark  seed={args.seed}  positions/variant={args.count}  machine: {machine()}")
    enumerate_tray_jit(VARIANTS["halloween"], Board(), Streak(), ["1x1"])  # load the compiled kernel
    for name, variant in VARIANTS.items():
        rng = random.Random(f"{args.seed}-{name}")
        positions = [random_position(variant, rng, stones=rng.choice((0, 0, 4))) for _ in range(args.count)]
        every, mid, states = [], [], []
        for board, tray in positions:
            t0 = time.perf_counter()
            ends = enumerate_tray_jit(variant, board, Streak(), tray)
            elapsed = time.perf_counter() - t0
            every.append(elapsed)
            states.append(len(ends))
            if 30 <= 100 - board.occupied.bit_count() <= 70:
                mid.append(elapsed)
        print(summary(f"{name} all", every))
        print(summary(f"{name} mid-game", mid))
        print(f"{'':<28} end states: median {statistics.median(states):.0f}  max {max(states)}")
        if args.python:
            py = []
            for board, tray in positions[: args.python]:
                t0 = time.perf_counter()
                enumerate_tray_py(variant, board, Streak(), tray)
                py.append(time.perf_counter() - t0)
            print(summary(f"{name} pure Python", py))


if __name__ == "__main__":
    main()
