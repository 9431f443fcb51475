"""Generator benchmark: accepted levels per minute per core, by kind, tray count and grade, and
the median and p99 time to build (and prove) one candidate.

    .venv/bin/python bench/generate.py [--candidates 40] [--seed 2026]
        [--rows sultan:1,sultan:2,halloween:2,halloween:3,halloween:5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine, percentile  # noqa: E402

from generator.recipes import build_candidate, candidate_seed  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--candidates", type=int, default=40)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--rows", default="sultan:1,sultan:2,halloween:2,halloween:3,halloween:5",
                        help="kind:trays pairs, comma-separated")
    args = parser.parse_args()
    print(f"generate benchmark  seed={args.seed}  candidates per row={args.candidates}  machine: {machine()}")
    rows = [(kind, int(trays)) for kind, trays in (row.split(":") for row in args.rows.split(","))]
    for kind in dict.fromkeys(kind for kind, _ in rows):  # load the compiled kernels before timing: the
        build_candidate(kind, 1, candidate_seed(kind, args.seed + 1, 0))  # first row paid for them (2x slower)
    for kind, trays in rows:
        accepted = 0
        grades: Counter = Counter()
        reasons: Counter = Counter()
        start = time.perf_counter()
        seconds: list[float] = []
        for i in range(args.candidates):
            began = time.perf_counter()
            result = build_candidate(kind, trays, candidate_seed(kind, args.seed, i))
            seconds.append(time.perf_counter() - began)
            settled = {o["grade"] for o in result.get("options", ())} - {None}
            if result["status"] == "accepted" and settled:
                accepted += 1
                grades.update(settled)
            else:
                reasons[result.get("reason", "grade not settled")] += 1
        minutes = (time.perf_counter() - start) / 60
        print(f"{kind:<9} trays={trays}  accepted {accepted}/{args.candidates}  "
              f"{accepted / minutes:6.1f} accepted levels/min/core  a candidate: median "
              f"{statistics.median(seconds) * 1000:.1f} ms, p99 {percentile(seconds, 0.99) * 1000:.1f} ms  "
              f"grades reachable {dict(grades)}  rejected {dict(reasons)}")


if __name__ == "__main__":
    main()
