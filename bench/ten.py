"""Ten open-variant solver speed: seeded positions with 6, 10 and 14 tiles left, solved to the end of placement.

Usage: .venv/bin/python bench/ten.py [--seed S] [--positions N] [--left 6,10,14] [--time-limit T]
Prints, per size, the median and p99 time to solve and the nodes per second, with seed and machine.
Positions are random non-winning play from shuffled rows where the side to move cannot win at once.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine, percentile  # noqa: E402
from solver.ten.play import random_open_position  # noqa: E402
from solver.ten.search import solve_open  # noqa: E402


class Help(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """The docstring as written, and each option's default."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=Help)
    parser.add_argument("--seed", type=int, default=1, help="the first position's seed (then seed+1, ...)")
    parser.add_argument("--positions", type=int, default=15, help="positions per size")
    parser.add_argument("--left", default="6,10,14", help="tiles left in both rows, a comma-separated list")
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per position (then unknown)")
    args = parser.parse_args()
    print(f"ten benchmark  seed={args.seed}  positions/size={args.positions}  time limit={args.time_limit:g}s"
          f"  machine: {machine()}")
    for left in (int(x) for x in args.left.split(",")):
        times, nodes, results, timeouts = [], 0, {}, 0
        for i in range(args.positions):
            position = random_open_position(seed=args.seed * 1000 + left * 100 + i, tiles_left=left, quiet=True)
            start = time.perf_counter()
            result = solve_open(position, depth=left, time_limit=args.time_limit)
            elapsed = time.perf_counter() - start
            if result.result == "unknown" and result.depth < left:
                timeouts += 1
            times.append(elapsed)
            nodes += result.nodes
            results[result.result] = results.get(result.result, 0) + 1
        total = sum(times)
        print(f"{left:>2} tiles left: median {statistics.median(times):.4f} s  p99 {percentile(times, 0.99):.4f} s"
              f"  max {max(times):.3f} s  {nodes / total:,.0f} nodes/s  results {results}"
              f"  timeouts {timeouts}/{args.positions}")


if __name__ == "__main__":
    main()
