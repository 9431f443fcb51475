"""Self-play benchmark: seeded games per variant, capped, with the greedy or expert policy.

    .venv/bin/python bench/selfplay.py [--games 20] [--cap 2000] [--policy expert|greedy|both]
        [--time-limit S] [--seed 2026] [--only halloween,sultan] [--json out.json]
        [--fixed-rounds] [--risk] [--weights '{"hard_blocked": -40}'] [--expert '{"samples": 32}']

Configurations: halloween (endless), arabic (standard), sudoku (classic) and
sultan (arabic, Sultan's Labyrinth: 3 tokens and 4 stones on seeded cells);
also any ``variant:mode`` (e.g. ``arabic:speed``), and ``every-mode`` for
every mode of every variant that ``tenfold play`` plays (one board: not
Sudoku's ``battle``); a mode with a target score (Sudoku's ``sprint``) ends
there, as ``play`` does, and a game that reached it counts as surviving.
As ``tenfold play``, the expert runs every lookahead round unless
``--time-limit S`` gives it a clock of S seconds a tray (its games then
follow the machine's speed and load), or the mode has one (Arabic's speed,
45 s; not with ``--fixed-rounds``). ``--policy both`` plays each
configuration with the expert and then with greedy on the same seeds, e.g.
the check that the expert survives 200 trays everywhere and greedy does not
(a sprint won counts as survived, by either):
``bench/selfplay.py --only every-mode --games 3 --cap 200 --policy both``.
Game ``g`` of a configuration deals from seed ``seed + g``. Reports trays
placed (median, min), how many games survived (to the cap, or to the
mode's target), final score (median) and
milliseconds per tray (median and p99 over every tray played).
``--time-limit 0`` plays the 1-ply expert (no lookahead, the variant's
other defaults kept: the tuner's policy); ``--weights`` overrides
evaluation weights for a probe, ``--expert`` passes ``ExpertPolicy``
options (e.g. ``death``, ``samples``) for a probe.

``--risk`` also measures, after every tray, the exact chance that the next
tray dealt cannot be placed on the board (``solver.survival``), and reports
the sum per 1,000 trays. Without tokens, and with a policy that places
every tray that can be placed (the expert plans the whole tray), each tray
ends the game with exactly that chance, so the sum's expectation is the
expected number of game overs: the same quantity as counting them, with
far less noise, so a probe can be judged on a few thousand trays instead
of a 40,000-tray run. Only trays that get dealt count (not the one after
the cap). The share of the sum from the worst 1 % of the positions shows
how concentrated the danger is.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine, percentile  # noqa: E402

from solver.enumerate_jit import split  # noqa: E402  (solver before numpy: one BLAS thread, as in tenfold)
from solver.policy import POLICIES  # noqa: E402
from solver.selfplay import expert_clock, mode_start_board, new_random_game, play_game  # noqa: E402
from solver.survival import death_chance  # noqa: E402
from solver.variants import VARIANTS, find_variant  # noqa: E402

import numpy as np  # noqa: E402

CONFIGS = {  # name -> (variant, mode)
    "halloween": ("halloween", "endless"),
    "arabic": ("arabic", "standard"),
    "sudoku": ("sudoku", "classic"),
    "sultan": ("arabic", "sultan"),
}


def make_policy(name: str, time_limit: float, seed: int, clock: bool = True,
                weights: dict | None = None, options: dict | None = None):
    if name == "expert":
        from solver.expert import ExpertPolicy

        return ExpertPolicy(time_limit=time_limit, seed=seed, clock=clock, weights=weights,
                            **(options or {}))
    return POLICIES[name]


def resolve_config(config: str) -> tuple[str, str]:
    """(variant, mode) of a configuration name: a named one, or ``variant:mode``."""
    if config in CONFIGS:
        return CONFIGS[config]
    variant_name, _, mode_name = config.partition(":")
    mode = find_variant(variant_name).mode(mode_name or None)  # a RulesError names what is wrong
    return variant_name, mode.name


def expand_configs(only: str) -> list[str]:
    names = []
    for config in only.split(","):
        if config == "every-mode":
            names += [f"{v.name}:{m}" for v in VARIANTS.values() for m, mode in v.modes.items() if mode.players == 1]
        else:
            names.append(config)
    return names


def run_config(config: str, games: int, cap: int, policy: str, time_limit: float | None, seed: int,
               progress: bool = True, fixed_rounds: bool = False, overrides: dict | None = None,
               options: dict | None = None, risk: bool = False) -> dict:
    variant_name, mode_name = resolve_config(config)
    variant = find_variant(variant_name)
    weights = None
    if overrides:
        from solver.evaluate import load_weights

        weights = {**load_weights(variant), **overrides}
    mode = variant.mode(mode_name)
    seconds, clock = expert_clock(time_limit, fixed_rounds, mode)  # (Arabic speed: its 45 s, as play)
    trays, scores, tray_ms, chances, game_risk, survived = [], [], [], [], [], []
    for g in range(games):
        game_seed = seed + g
        game = new_random_game(variant, game_seed, mode_start_board(mode, game_seed), mode.tokens)
        last = [time.perf_counter()]
        first = len(chances)

        def on_tray(game, last=last):
            now = time.perf_counter()
            tray_ms.append(1000 * (now - last[0]))
            if risk:
                record_risk(game, cap, chances)
            last[0] = time.perf_counter()  # the risk measurement is not the policy's time

        result = play_game(game, make_policy(policy, seconds, game_seed, clock, weights, options), cap,
                           on_tray=on_tray, target=mode.target)
        trays.append(result.trays)
        survived.append(not result.over)  # (the cap, or a target reached: sprint's 5,000)
        scores.append(result.score)
        game_risk.append(sum(chances[first:]))
        if progress:
            print(f"  {config} seed {game_seed}: {result.trays} trays, score {result.score}, "
                  f"{result.ms_per_tray:.1f} ms/tray (mean){' (game over)' if result.over else ''}"
                  f"{f' (reached {mode.target:,} in tray {result.trays + 1})' if result.reached else ''}", flush=True)
    ms = sorted(tray_ms) or [0.0]
    return {
        "config": config, "games": games, "cap": cap, "policy": policy, "time_limit": time_limit,
        "clock": policy == "expert" and clock and seconds > 0,
        "seed": seed, "trays_median": statistics.median(trays), "trays_min": min(trays),
        "reached_cap": sum(t >= cap for t in trays), "survived": sum(survived),
        "score_median": statistics.median(scores),
        "ms_per_tray_median": round(statistics.median(ms), 2),
        "ms_per_tray_p99": round(percentile(ms, 0.99), 2),
        "trays": trays, "weights_override": overrides or {}, "expert_options": options or {},
        **({**risk_summary(chances), "risk_by_game": [round(r, 4) for r in game_risk]} if risk else {}),
    }


def record_risk(game, cap: int, chances: list[float]) -> None:
    """After a tray: the chance that the next one cannot be placed, when it will be dealt."""
    if game.turns_completed < cap:
        chances.append(stuck_chance(game))


def stuck_chance(game) -> float:
    """The exact chance that the next tray dealt from the supply cannot be placed on this board."""
    lo, hi = split(game.board.filled)
    return float(death_chance(game.variant, np.array([lo], np.uint64), np.array([hi], np.uint64),
                              game.board.stones)[0])


def risk_summary(chances: list[float]) -> dict:
    """Expected unplaceable trays per 1,000 trays (the exact next-tray chances summed, a
    low-noise stand-in for counting game overs), and the share of it from the worst 1 %
    of positions."""
    total = sum(chances)
    worst = sorted(chances, reverse=True)[:max(1, len(chances) // 100)]
    return {"risk_per_1000": round(1000 * total / max(len(chances), 1), 4),
            "risk_worst_1pct_share": round(sum(worst) / total, 3) if total else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--cap", type=int, default=2000)
    parser.add_argument("--policy", default="expert", choices=("greedy", "expert", "both"))
    parser.add_argument("--time-limit", type=float, default=None,
                        help="expert: a clock of this many seconds of lookahead per tray, spent only when the "
                             "board gets tight (default: no clock, every round; 0: no lookahead)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--only", default=",".join(CONFIGS), help="comma-separated configurations")
    parser.add_argument("--json", dest="json_out", help="also write the results to this file")
    parser.add_argument("--fixed-rounds", action="store_true",
                        help="expert lookahead runs all its rounds whatever --time-limit says (but 0): "
                             "results repeat on any machine (the default without --time-limit)")
    parser.add_argument("--weights", default="",
                        help='JSON object of evaluation weights that replace those in solver/weights.json, '
                             'e.g. \'{"hard_blocked": -40}\' (probes before a weight is checked in)')
    parser.add_argument("--risk", action="store_true",
                        help="after every tray, the exact chance that the next one cannot be placed; "
                             "reports their sum per 1,000 trays (about 0.4 ms a tray, not timed)")
    parser.add_argument("--expert", default="",
                        help='JSON object of ExpertPolicy options for a probe, e.g. \'{"death": -10000}\'')
    args = parser.parse_args()
    overrides = json.loads(args.weights) if args.weights else None
    options = json.loads(args.expert) if args.expert else None
    configs = expand_configs(args.only)
    for config in configs:  # a bad name stops before any game is played
        try:
            resolve_config(config)
        except ValueError as exc:
            parser.error(f"--only {config!r}: {exc} (or one of {', '.join(CONFIGS)}, every-mode)")
    if args.policy == "greedy" and (args.time_limit is not None or args.fixed_rounds):
        parser.error("--time-limit and --fixed-rounds: settings of the expert's lookahead, not of --policy greedy")
    if args.time_limit is not None and (args.time_limit < 0 or args.time_limit != args.time_limit):
        parser.error(f"--time-limit: expected 0 or more seconds, got {args.time_limit}")
    lookahead = ("none" if args.time_limit == 0 else "every round" if args.time_limit is None or args.fixed_rounds
                 else f"a clock of {args.time_limit} s a tray")
    print(f"self-play  policy={args.policy}  "
          f"{f'expert lookahead={lookahead}  ' if args.policy != 'greedy' else ''}games={args.games}  "
          f"cap={args.cap}  seed={args.seed}  machine: {machine()}")
    results = []
    policies = ("expert", "greedy") if args.policy == "both" else (args.policy,)
    for config, policy in [(c, p) for c in configs for p in policies]:
        r = run_config(config, args.games, args.cap, policy, args.time_limit, args.seed,
                       fixed_rounds=args.fixed_rounds, overrides=overrides, options=options, risk=args.risk)
        results.append(r)
        label = config if len(policies) == 1 else f"{config} {policy}"
        print(f"{label:<25} trays median {r['trays_median']:7.1f}  min {r['trays_min']:5d}  "
              f"survived {r['survived']}/{r['games']}  score median {r['score_median']:9.0f}  "
              f"ms/tray median {r['ms_per_tray_median']:7.2f}  p99 {r['ms_per_tray_p99']:8.2f}"
              + (f"  risk/1000 trays {r['risk_per_1000']:.3f} (worst 1 %: {r['risk_worst_1pct_share']:.0%})"
                 if args.risk else ""), flush=True)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"machine": machine(), "results": results}, indent=1) + "\n")


if __name__ == "__main__":
    main()
