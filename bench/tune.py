"""Tune the evaluation weights (solver/weights.json) by self-play survival: a seeded coordinate search.

    .venv/bin/python bench/tune.py [--variants halloween,arabic,sudoku] [--seeds 4] [--cap 200]
        [--fill 0.0] [--passes 1] [--seed 7] [--only-keys points,roughness] [--objective risk] [--write]

Objective for a weight vector: mean trays survived by the 1-ply expert (no
lookahead: cheap and deterministic) over ``--seeds`` games, each from the
mode's start board (plus random tiles when ``--fill`` > 0, which makes
games end sooner), capped at ``--cap`` trays; ties are broken by mean
score. The 1-ply expert keeps the variant's other defaults: Halloween's
survival term (``solver/expert.py`` ``VARIANT_DEFAULTS``; logs before
2026-12-01 were made without it). ``--objective risk`` ranks by the expected game overs per 1,000 trays
instead (the exact next-tray chances summed, ``bench/selfplay.py --risk``),
the measure to tune Halloween on: its 1-ply expert rarely ends a game
within a few hundred trays, so trays survived barely tell weights apart.
(A first run from 55%-full starts, cap 80, mostly moved score, not
survival: survival from such starts is decided by the start board.) Arabic is tuned on
Sultan's Labyrinth (4 seeded stones, 3 tokens), its hardest mode; the others on their default mode. Every
candidate plays the same seeds (common random numbers).

Search: for each weight in turn, try it scaled by 1 +/- ``step`` (or set to
+/- a small value when it is 0); keep any change that raises the objective;
halve the step after each pass. The log and the final weights go to
bench/tune_results.json (the previous runs move to its ``earlier`` list;
``manual`` holds hand-run probes with their commands); ``--write`` also
updates solver/weights.json.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from common import machine  # noqa: E402
from selfplay import record_risk, risk_summary  # noqa: E402

from solver.board import Board  # noqa: E402
from solver.evaluate import FEATURES, WEIGHTS_FILE, load_weights  # noqa: E402
from solver.expert import ExpertPolicy  # noqa: E402
from solver.selfplay import mode_start_board, new_random_game, play_game  # noqa: E402
from solver.variants import find_variant  # noqa: E402

MODES = {"halloween": "endless", "arabic": "sultan", "sudoku": "classic"}
RESULTS_FILE = ROOT / "bench" / "tune_results.json"


def hard_start(variant, mode, seed: int, fill: float) -> Board:
    """A seeded board ``fill`` full with no complete zone, plus the mode's stones."""
    stones = mode_start_board(mode, seed).stones
    rng = random.Random(f"tune-{seed}")
    filled = sum(1 << c for c in range(100) if rng.random() < fill) & ~stones
    for zone in variant.zones:
        if (filled | stones) & zone == zone:
            tiles = zone & ~stones
            filled &= ~(tiles & -tiles)  # open its first tile
    return Board(filled, stones, 0)


def objective(variant, mode, weights: dict, seeds: list[int], cap: int, fill: float,
              measure: str = "trays") -> tuple[float, float]:
    """Higher is better. ``trays``: (mean trays survived, mean score). ``risk``: (minus the
    expected game overs per 1,000 trays, mean trays survived), the expectation being the
    exact chance of an unplaceable next tray summed over the positions reached
    (bench/selfplay.py ``--risk``): far less noisy than counting the games that end."""
    trays, scores, chances = [], [], []

    on_tray = (lambda game: record_risk(game, cap, chances)) if measure == "risk" else None
    for seed in seeds:
        game = new_random_game(variant, seed, hard_start(variant, mode, seed, fill), mode.tokens)
        result = play_game(game, ExpertPolicy(time_limit=0.0, seed=seed, weights=weights), cap, on_tray=on_tray)
        trays.append(result.trays)
        scores.append(result.score)
    if measure == "risk":
        return 0.0 - risk_summary(chances)["risk_per_1000"], statistics.mean(trays)  # no "-0.0" in the log
    return statistics.mean(trays), statistics.mean(scores)


def tune(name: str, args, log: list) -> dict:
    variant = find_variant(name)
    mode = variant.mode(MODES[name])
    seeds = [args.seed * 1000 + i for i in range(args.seeds)]
    best = load_weights(variant)
    best_obj = objective(variant, mode, best, seeds, args.cap, args.fill, args.objective)
    print(f"{name}: start {best_obj}", flush=True)
    log.append({"variant": name, "weights": dict(best), "objective": best_obj})
    step = args.step
    for _ in range(args.passes):
        for key in args.only_keys.split(",") if args.only_keys else ("points",) + FEATURES:
            if name != "sudoku" and key == "near_regions":
                continue  # no regions outside Sudoku
            for sign in (1, -1):
                trial = dict(best)
                trial[key] = best[key] * (1 + sign * step) if best[key] else sign * 0.5
                t0 = time.perf_counter()
                obj = objective(variant, mode, trial, seeds, args.cap, args.fill, args.objective)
                log.append({"variant": name, "change": key, "value": trial[key], "objective": obj,
                            "seconds": round(time.perf_counter() - t0, 1)})
                if obj > best_obj:
                    best, best_obj = trial, obj
                    print(f"{name}: {key} -> {trial[key]:.3g}  {obj}", flush=True)
                    break
        step /= 2
    log.append({"variant": name, "final": dict(best), "objective": best_obj})
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", default="halloween,arabic,sudoku")
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--cap", type=int, default=200)
    parser.add_argument("--fill", type=float, default=0.0)
    parser.add_argument("--passes", type=int, default=1)
    parser.add_argument("--step", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--objective", choices=("trays", "risk"), default="trays",
                        help="trays: mean trays survived, then score; risk: fewest expected game overs "
                             "per 1,000 trays (bench/selfplay.py --risk), then trays")
    parser.add_argument("--only-keys", default="", help="comma-separated weights to search (default: all)")
    parser.add_argument("--write", action="store_true", help="update solver/weights.json")
    args = parser.parse_args()
    log: list = []
    data = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
    for name in args.variants.split(","):
        data["variants"][name] = {k: round(v, 4) for k, v in tune(name, args, log).items()}
    kept = json.loads(RESULTS_FILE.read_text(encoding="utf-8")) if RESULTS_FILE.exists() else {}
    earlier = kept.pop("earlier", [])
    manual = kept.pop("manual", [])
    if kept:
        earlier.append(kept)
    result = {"args": vars(args), "machine": machine(), "log": log, "earlier": earlier, "manual": manual}
    RESULTS_FILE.write_text(json.dumps(result, indent=1) + "\n")
    if args.write:
        WEIGHTS_FILE.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
