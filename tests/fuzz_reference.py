"""More of ``test_campaign_reference``'s tiny levels than the suite runs: the campaign solvers
against the brute force on the reference rules, seed by seed.

    .venv/bin/python tests/fuzz_reference.py [--start 400] [--end 4400] [--cpsat] [--cap 5]
        [--reserve | --stony [--tokens]]

``--reserve``: the levels with a reserve to redeal from (``reserve_level``; the search only, as
CP-SAT does not model the draws). ``--stony``: strips of open cells on boards of stones
(``stony_level``; the suite runs seeds 0-1199); with ``--tokens``, the Arabic and Sudoku ones
cut to one or two pieces with two or one rotate/remove token (they found the bound's mistake
with zones complete at the start, seeds 1543, 1855 and 2974).

Prints each mismatch as it is found, a progress line every 200 seeds, and a summary; levels
whose brute force takes longer than ``--cap`` seconds are skipped and counted. Exit 1 on any
mismatch.
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from level_reference import reference_best  # noqa: E402
from test_campaign_reference import check, reserve_level, stony_level, tiny_level  # noqa: E402

from solver.campaign import solve_level  # noqa: E402
from solver.campaign_cpsat import solve_level_cpsat  # noqa: E402
from solver.level import parse_level  # noqa: E402


class _TooLong(Exception):
    pass


def _alarm(*_args) -> None:
    raise _TooLong


def _with_tokens(seed: int) -> dict | None:
    """``stony_level(seed)`` cut to one tray of one or two pieces, with two or one token (None
    for Halloween, which has none)."""
    data = stony_level(seed)
    if data["variant"] == "halloween":
        return None
    rng = random.Random(f"stony-tokens-{seed}")
    tray = data["trays"][0][:rng.choice((1, 2))]
    return {**data, "trays": [tray], "limit": len(tray), "tokens": 2 if len(tray) == 1 else 1}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--start", type=int, default=400)
    parser.add_argument("--end", type=int, default=4400)
    parser.add_argument("--cpsat", action="store_true", help="check CP-SAT as well as the search")
    parser.add_argument("--cap", type=int, default=5, help="seconds allowed to the brute force")
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--reserve", action="store_true", help="levels with a reserve and a redeal token")
    kind.add_argument("--stony", action="store_true", help="strips of open cells on boards of stones")
    parser.add_argument("--tokens", action="store_true", help="with --stony: rotate/remove tokens")
    args = parser.parse_args()
    if args.tokens and not args.stony:
        parser.error("--tokens goes with --stony")
    if args.reserve and args.cpsat:
        parser.error("--cpsat: CP-SAT proves nothing on levels with a reserve")
    make = reserve_level if args.reserve else stony_level if args.stony else tiny_level
    if args.tokens:
        make = _with_tokens
    solvers = [solve_level] + ([solve_level_cpsat] if args.cpsat else [])
    signal.signal(signal.SIGALRM, _alarm)
    checked = skipped = bad = 0
    start = time.perf_counter()
    for seed in range(args.start, args.end):
        data = make(seed)
        if data is None:
            continue
        signal.alarm(args.cap)
        try:
            expected = reference_best(data)
        except _TooLong:
            skipped += 1
            continue
        finally:
            signal.alarm(0)
        checked += 1
        for solve in solvers:
            try:
                check(data, solve(parse_level(data), time_limit=60), expected)
            except AssertionError as err:
                bad += 1
                print(f"MISMATCH seed {seed} {solve.__name__}: {err}", flush=True)
        if (seed - args.start) % 200 == 199:
            print(f"seed {seed}: {checked} checked, {skipped} skipped, {bad} mismatches, "
                  f"{time.perf_counter() - start:.0f} s", flush=True)
    print(f"{checked} levels checked ({', '.join(s.__name__ for s in solvers)}), {skipped} skipped "
          f"(brute force over {args.cap} s), {bad} mismatches, {time.perf_counter() - start:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
