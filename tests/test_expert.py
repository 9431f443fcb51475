"""The expert policy: board features, token use, plan caching, hint time limit, CLI, and
that it outlives greedy on the same seeds."""

from __future__ import annotations

import json
import random
import statistics
import time

import numpy as np
import pytest
from typer.testing import CliRunner

from cli.main import app
from solver.bitboard import BB_ALL
from solver.board import Board, parse_board
from solver.deals import RandomDeals
from solver.engine import Game, Streak
from solver.evaluate import FEATURES, board_features, features_bulk, load_weights
from solver.expert import ExpertPolicy, hint
from solver.moves import TokenUse
from solver.policy import POLICIES, greedy
from solver.selfplay import new_random_game, play_game
from solver.tray import analyse_tray
from solver.variants import VARIANTS, find_variant

from level_reference import _Play
from random_boards import COLUMN_9_FREE, TIGHT_BOARD

# a tight Halloween board where the expert looks ahead


@pytest.mark.parametrize("name", ("halloween", "arabic", "sudoku"))
def test_feature_kernel_matches_reference(name):
    variant = find_variant(name)
    rng = random.Random(f"features-{name}")
    for _ in range(150):
        fill = rng.random()
        filled = sum(1 << c for c in range(100) if rng.random() < fill)
        stones = sum(1 << c for c in rng.sample(range(100), rng.choice((0, 4)))) & ~filled
        low = (1 << 64) - 1
        got = features_bulk(variant, np.array([filled & low], np.uint64), np.array([filled >> 64], np.uint64),
                            stones)[0]
        ref = board_features(variant, filled, stones)
        assert dict(zip(FEATURES, got)) == ref


def test_two_3x3_needs_two_disjoint_squares():
    variant = find_variant("halloween")
    full = (1 << 100) - 1

    def empty_box(row, col, height, width):
        return sum(1 << ((row + r) * 10 + col + c) for r in range(height) for c in range(width))

    for box, fits, two in (((0, 0, 4, 4), 4, 0), ((2, 1, 3, 6), 4, 1), ((1, 5, 6, 3), 4, 1),
                           ((0, 0, 2, 9), 0, 0), ((6, 6, 3, 3), 1, 0)):
        filled = full & ~empty_box(*box)
        low = (1 << 64) - 1
        ref = board_features(variant, filled, 0)
        got = dict(zip(FEATURES, features_bulk(variant, np.array([filled & low], np.uint64),
                                               np.array([filled >> 64], np.uint64), 0)[0]))
        assert (ref["fit_3x3"], ref["two_3x3"]) == (fits, two) == (got["fit_3x3"], got["two_3x3"])


def test_weights_cover_every_variant_and_feature():
    for variant in VARIANTS.values():
        weights = load_weights(variant)
        assert set(weights) == {"points", *FEATURES}


def test_expert_is_registered_and_plans_once_per_tray():
    assert "expert" in POLICIES
    variant = VARIANTS["halloween"]
    policy = ExpertPolicy()
    calls = []
    decide = policy.decide
    policy.decide = lambda game: calls.append(1) or decide(game)
    result = play_game(new_random_game(variant, 11), policy, 5)
    assert result.trays == 5
    assert len(calls) == 5


def test_rescue_rotates_when_the_tray_only_fits_turned():
    variant = VARIANTS["arabic"]
    # only column 9 is free: a 1x5 fits only once turned into a 5x1
    board = parse_board(COLUMN_9_FREE)
    game = Game(variant, board, Streak(), 3, ["1x5"], RandomDeals(variant, 1))
    move = ExpertPolicy()(game)
    assert move == TokenUse("rotate", piece="1x5", turns=1) or move == TokenUse("rotate", piece="1x5", turns=3)


def test_sudoku_refreshes_or_swaps_when_nothing_fits():
    variant = VARIANTS["sudoku"]
    checkers = Board(sum(1 << c for c in range(100) if (c // 10 + c % 10) % 2 == 0), 0, 0)
    game = Game(variant, checkers, Streak(), 3, ["2x2", "3x3", "1x2"], RandomDeals(variant, 4))
    move = ExpertPolicy()(game)
    assert isinstance(move, TokenUse) and move.token in ("swap", "refresh", "remove")
    game.apply(move)
    assert game.tokens == 2


def test_hint_respects_time_limit():
    variant = VARIANTS["sudoku"]
    board = parse_board("####..####/###....###/##......##/#........#/....##..../"
                        "....##..../#........#/##......##/###....###/####..####")
    hint(variant, board, ["1x1"], time_limit=0.2)  # load the compiled kernels
    for limit in (0.2, 0.5):
        t0 = time.perf_counter()
        answer = hint(variant, board, ["2x2", "L3-nw", "1x3"], time_limit=limit)
        elapsed = time.perf_counter() - t0
        assert answer["placeable"] and len(answer["plan"]) == 3
        assert elapsed <= limit, (limit, elapsed)


def test_hint_time_limit_counts_from_the_command_start(monkeypatch):
    """tenfold hint's --time-limit counts from the console script's start (cli.entry.STARTED), so
    that starting Python and loading the modules count too: the answer came 0.4-0.6 s past the
    limit in a new process. A limit that start-up alone overran gets an answer without lookahead
    and a note on stderr; ms counts from the start."""
    import cli.entry

    variant = VARIANTS["sudoku"]
    board = parse_board("####..####/###....###/##......##/#........#/....##..../"
                        "....##..../#........#/##......##/###....###/####..####")
    hint(variant, board, ["1x1"], time_limit=0.2)  # load the compiled kernels
    began = time.perf_counter()
    answer = hint(variant, board, ["2x2", "L3-nw", "1x3"], time_limit=0.5, started=began - 0.45)
    assert answer["placeable"] and answer["lookahead_rounds"] == 0 and answer["ms"] >= 450
    args = ["hint", "--rules", "sudoku", "--board", board.text(), "--tray", "2x2,L3-nw,1x3", "--policy", "expert",
            "--time-limit", "2", "--json"]
    runner = CliRunner()
    monkeypatch.setattr(cli.entry, "STARTED", time.perf_counter() - 5)  # a start-up of 5 s
    late = runner.invoke(app, args)
    assert late.exit_code == 0, late.output
    data = json.loads(late.stdout)
    assert data["lookahead_rounds"] == 0 and data["ms"] >= 5000 and data["placeable"]
    assert "note: answered in " in late.stderr and "past --time-limit 2" in late.stderr
    # compiling (the first hint after an install) is not counted: 6 s of it, no note
    import solver.jitcache

    clock = iter([0.0])
    monkeypatch.setattr(solver.jitcache, "compile_seconds", lambda: next(clock, 6.0))
    monkeypatch.setattr(cli.entry, "STARTED", time.perf_counter() - 5)
    compiled = runner.invoke(app, args)
    assert json.loads(compiled.stdout)["ms"] >= 5000 and "note:" not in compiled.stderr
    monkeypatch.undo()
    monkeypatch.setattr(cli.entry, "STARTED", None)  # a command run in-process counts from the hint's start
    prompt = runner.invoke(app, args)
    assert json.loads(prompt.stdout)["lookahead_rounds"] > 0 and "note:" not in prompt.stderr


def test_expert_outlives_greedy():
    """Same seeds for both policies; greedy dies within a few dozen trays (5-23 on these
    seeds), the expert lives to the cap on every one."""
    variant = VARIANTS["halloween"]
    seeds = range(5)
    cap = 30
    greedy_trays = [play_game(new_random_game(variant, s), greedy, cap).trays for s in seeds]
    expert_trays = [play_game(new_random_game(variant, s), ExpertPolicy(seed=s), cap).trays for s in seeds]
    assert statistics.mean(expert_trays) > statistics.mean(greedy_trays)
    assert min(expert_trays) == cap


def test_expert_plays_token_variants():
    for name in ("arabic", "sudoku"):
        variant = VARIANTS[name]
        game = new_random_game(variant, 3, None, variant.mode(None).tokens)
        assert play_game(game, ExpertPolicy(seed=3), 25).trays == 25


@pytest.mark.parametrize("policy", ["greedy", "expert"])
def test_cli_play_deals_file_plays_the_same_game_as_the_seeded_stream(tmp_path, policy):
    """The seeded stream's first 30 trays, written out as a deals file (text and JSON), give
    the same game move for move: same score, trays and end."""
    variant = find_variant("halloween")
    results = []
    for seed in (4, 11):
        deals = RandomDeals(variant, seed)
        trays = [deals.next_tray() for _ in range(30)]
        text = tmp_path / f"deals-{seed}.txt"
        text.write_text("\n".join(" ".join(t) for t in trays) + "\n", encoding="utf-8")
        as_json = tmp_path / f"deals-{seed}.json"
        as_json.write_text(json.dumps({"trays": trays}), encoding="utf-8")
        runs = []
        for extra in (["--trays", "30"], ["--deals", str(text)], ["--deals", str(as_json)]):
            lookahead = ["--time-limit", "0"] if policy == "expert" else []
            out = CliRunner().invoke(app, ["play", "--rules", "halloween", "--seed", str(seed), "--policy",
                                           policy, *lookahead, "--json", *extra])
            assert out.exit_code == 0, out.output
            data = json.loads(out.output.strip().splitlines()[-1])
            runs.append((data["score"], data["trays"], data["over"]))
        assert runs[0] == runs[1] == runs[2]
        results.append(runs[0])
    assert results[0] != results[1]


def test_cli_play_deals_file_ends_stuck_or_when_the_trays_run_out(tmp_path):
    # A checkerboard: the 1x1 goes down without clearing, and no 3x3 fits after it.
    rows = ["".join("#" if (r + c) % 2 == 0 else "." for c in range(10)) for r in range(10)]
    deals = tmp_path / "deals.txt"
    deals.write_text("1x1\n3x3\n", encoding="utf-8")
    base = ["play", "--rules", "halloween", "--seed", "1", "--deals", str(deals), "--json"]
    out = CliRunner().invoke(app, [*base, "--board", "/".join(rows)])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output.strip().splitlines()[-1])
    assert (data["trays"], data["over"], data["score"]) == (1, True, 1)
    out = CliRunner().invoke(app, base)  # an empty board: both trays go down, then the file ends
    data = json.loads(out.output.strip().splitlines()[-1])
    assert (data["trays"], data["over"], data["score"]) == (2, False, 10)


def test_cli_play_and_hint_expert():
    runner = CliRunner()
    out = runner.invoke(app, ["play", "--rules", "halloween", "--seed", "2", "--trays", "5",
                              "--policy", "expert", "--time-limit", "0.05", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output.strip().splitlines()[-1])
    assert data["trays"] == 5 and data["over"] is False
    assert set(data) == {"score", "trays", "over", "ms_per_tray", "start", "moves"}
    out = runner.invoke(app, ["hint", "--rules", "arabic", "--tray", "2x2,1x3,T4-n", "--policy", "expert",
                              "--time-limit", "0.3", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["placeable"] and len(data["plan"]) == 3
    out = runner.invoke(app, ["hint", "--rules", "arabic", "--tray", "2x2", "--policy", "wild"])
    assert out.exit_code == 2


def test_fixed_rounds_expert_repeats_exactly():
    """Without the clock the lookahead does the same work every time: a seeded game repeats."""
    from solver.expert import ExpertPolicy
    from solver.selfplay import new_random_game, play_game
    from solver.variants import find_variant

    variant = find_variant("halloween")
    results = []
    for _ in range(2):
        start = Board(0x3FF_FFF0_FFFF_FFFF_0000_0000 & ((1 << 100) - 1), 0, 0)
        game = new_random_game(variant, 7, start, 0)
        policy = ExpertPolicy(time_limit=0.01, seed=7, samples=2, candidates=3, clock=False, danger_only=False)
        result = play_game(game, policy, 6)
        results.append((result.score, result.trays, game.board.text()))
    assert results[0] == results[1]
    assert results[0][1] > 0


# ---------------------------------------------------------------------------
# the stratified lookahead sampler (solver/lookahead.py)

def _all_ordered_trays(variant):
    """Every ordered tray with its exact chance, by brute force over the supply's draws
    (a group by weight, then a shape uniformly inside it, three times)."""
    from fractions import Fraction
    from itertools import product

    total = sum(weight for _, weight, _ in variant.supply)
    draws = [(shape, Fraction(weight, total * len(group)))
             for _, weight, group in variant.supply for shape in group]
    for combo in product(draws, repeat=3):
        yield [shape for shape, _ in combo], combo[0][1] * combo[1][1] * combo[2][1]


@pytest.mark.parametrize("name", ("halloween", "arabic", "sudoku"))
def test_stratum_probabilities_match_enumeration(name):
    from fractions import Fraction

    from solver.lookahead import stratum_of, stratum_probabilities

    variant = find_variant(name)
    exact = stratum_probabilities(variant)
    brute = [Fraction(0)] * len(exact)
    for tray, p in _all_ordered_trays(variant):
        brute[stratum_of(tray)] += p
    assert sum(exact) == 1 == sum(brute)
    assert list(exact) == brute
    assert all(p > 0 for p in exact)  # every variant deals 3x3: the rare strata exist


def test_allocation_floors_the_rare_strata_and_schedule_visits_them_first():
    from solver.lookahead import allocate, schedule, stratum_probabilities

    probs = stratum_probabilities(find_variant("halloween"))
    counts = allocate(16, probs)
    assert counts == [7, 5, 4]  # proportional would be about 12, 3, 0.3
    assert sum(allocate(5, probs)) == 5 and min(allocate(5, probs)) >= 1
    assert allocate(2, probs) == [2, 0, 0]  # too few rounds for every stratum: proportional
    order = schedule(counts)
    assert sorted(order[:3]) == [0, 1, 2] and [order.count(h) for h in range(3)] == counts


def _value(tray) -> float:
    """A known value function with a rare killer: two 3x3 and an X5 or a third 3x3 'cannot be placed'."""
    from solver.pieces import get_piece

    dead = tray.count("3x3") >= 2 and ("X5" in tray or tray.count("3x3") == 3)
    return -3000.0 if dead else float(sum(get_piece(p).size for p in tray))


def test_stratified_estimate_is_unbiased():
    """The mean of many seeded estimates equals the exact expectation over all trays, within
    4.5 standard errors; the standard error comes from the exact per-stratum variances and the
    allocation. The unweighted mean of the same draws misses (the test can tell)."""
    from solver.lookahead import StratifiedTrays, allocate, stratum_of, stratum_probabilities

    variant = find_variant("halloween")
    probs = [float(p) for p in stratum_probabilities(variant)]
    counts = allocate(16, stratum_probabilities(variant))
    functions = (_value, lambda t: float(t.count("X5")), lambda t: float(t.count("1x1") + 2 * t.count("L5-nw")))
    mean = np.zeros((len(functions), 3))
    square = np.zeros((len(functions), 3))
    for tray, p in _all_ordered_trays(variant):
        h = stratum_of(tray)
        for i, f in enumerate(functions):
            mean[i, h] += float(p) * f(tray) / probs[h]
            square[i, h] += float(p) * f(tray) ** 2 / probs[h]
    exact = mean @ probs
    stderr_one = np.sqrt(((square - mean ** 2) / counts) @ np.square(probs))

    runs = 3000
    estimates = np.zeros((runs, len(functions)))
    naive = np.zeros((runs, len(functions)))
    for r in range(runs):
        sampler = StratifiedTrays(variant, r, 16)
        sums, n = np.zeros((3, len(functions))), np.zeros(3)
        for h in sampler.schedule:
            tray = sampler.draw(h)
            assert stratum_of(tray) == h
            sums[h] += [f(tray) for f in functions]
            n[h] += 1
        estimates[r] = sampler.estimate(sums, n)
        naive[r] = sums.sum(axis=0) / 16
    tolerance = 4.5 * stderr_one / np.sqrt(runs)
    assert np.all(np.abs(estimates.mean(axis=0) - exact) < tolerance), (estimates.mean(axis=0), exact, tolerance)
    assert abs(naive[:, 0].mean() - exact[0]) > 10 * tolerance[0]


def test_estimate_renormalises_when_a_stratum_is_missing():
    from solver.lookahead import StratifiedTrays

    sampler = StratifiedTrays(find_variant("halloween"), 1, 16)
    sums = np.array([[10.0], [0.0], [-30.0]])
    full = sampler.estimate(sums, np.array([2.0, 0.0, 1.0]))
    p0, p2 = sampler.probs[0], sampler.probs[2]
    assert full[0] == pytest.approx((p0 * 5 - p2 * 30) / (p0 + p2))


def test_lookahead_decision_depends_only_on_seed_and_position():
    """Fixed rounds: two policies with the same seed take the same plan with the same value
    on a tight board, every round complete; the sampled trays are the position's."""
    variant = find_variant("halloween")
    board = parse_board(TIGHT_BOARD)
    decisions = []
    for _ in range(2):
        game = Game(variant, board, Streak(), 0, ["2x2", "L3-nw", "1x3"], None)
        decisions.append(ExpertPolicy(seed=5, clock=False).decide(game))
    a, b = decisions
    rounds = ExpertPolicy().option("samples", variant)
    assert a.rounds == b.rounds == rounds and a.candidates == b.candidates > 1
    assert (a.moves, a.value) == (b.moves, b.value)


def test_compiling_is_not_thinking_time_but_loading_is(monkeypatch):
    """The expert's clock counts from the start of its decision, loading the compiled kernels
    included (a hint's answer took its limit plus ~0.3 s of loading in a new process: a docs
    audit), but not numba compiling, seconds with a cold cache after an install: with a limit of
    1 ms and an hour of compiling inside the decision every round is still played; without it,
    none."""
    import itertools

    import solver.expert as expert_module

    variant = find_variant("halloween")
    board = parse_board(TIGHT_BOARD)

    def rounds_played(compiling: float) -> int:
        clock = itertools.chain([0.0], itertools.repeat(compiling))  # at the start, then after
        monkeypatch.setattr(expert_module, "compile_seconds", lambda: next(clock))
        game = Game(variant, board, Streak(), 0, ["2x2", "L3-nw", "1x3"], None)
        return ExpertPolicy(seed=5, time_limit=1e-3).decide(game).rounds

    assert rounds_played(3600.0) == ExpertPolicy().option("samples", variant)
    assert rounds_played(0.0) == 0


@pytest.mark.parametrize("name", ("halloween", "sudoku"))
def test_blocked_hazard_matches_enumeration(name):
    """The chance that the next tray holds a hard shape with no spot, from a board's features,
    equals the brute-force sum over all trays."""
    from solver.evaluate import HARD_PIECES
    from solver.lookahead import blocked_hazard
    from solver.pieces import placements

    variant = find_variant(name)
    trays = [(set(tray), float(p)) for tray, p in _all_ordered_trays(variant)]
    rng = random.Random(f"hazard-{name}")
    seen = set()
    for fill in (0.3, 0.45, 0.55, 0.6, 0.65, 0.7, 0.8):
        filled = sum(1 << c for c in range(100) if rng.random() < fill)
        blocked = {p for p in HARD_PIECES if all(s.mask & filled for s in placements(p))}
        seen.add(len(blocked))
        low = (1 << 64) - 1
        feats = features_bulk(variant, np.array([filled & low], np.uint64), np.array([filled >> 64], np.uint64), 0)
        brute = sum(p for shapes, p in trays if shapes & blocked)
        assert blocked_hazard(variant, feats)[0] == pytest.approx(brute, abs=1e-12)
    assert len(seen) >= 3  # boards with nothing, some and many shapes blocked


@pytest.mark.parametrize("name, measured", [("halloween", True), ("sudoku", True), ("arabic", False)])
def test_lookahead_defaults_follow_the_measured_variants(name, measured):
    """Left unset, the lookahead options are the variant's measured ones: the same game as
    with them given explicitly, move for move (the lookahead runs on every tray here)."""
    from solver.expert import ExpertPolicy

    variant = find_variant(name)

    def moves(**options):
        policy = ExpertPolicy(seed=5, clock=False, danger_only=False, samples=3, candidates=3, **options)
        game = new_random_game(variant, 5)
        played = []
        for _ in range(9):
            move = policy(game)
            played.append(move)
            game.apply(move)
        return played

    default = moves()
    assert default == moves(stratified=measured, leaf_hazard=measured)
    assert default != moves(stratified=not measured, leaf_hazard=not measured)  # the options matter here
    assert ExpertPolicy().lookahead_options(variant) == (measured, measured)
    assert ExpertPolicy(stratified=not measured).lookahead_options(variant) == (not measured, measured)


def test_options_given_win_over_the_variant_defaults():
    from solver.expert import OPTION_DEFAULTS, VARIANT_DEFAULTS, ExpertPolicy

    halloween, arabic = find_variant("halloween"), find_variant("arabic")
    for name, value in VARIANT_DEFAULTS["halloween"].items():
        assert ExpertPolicy().option(name, halloween) == value
        assert ExpertPolicy().option(name, arabic) == OPTION_DEFAULTS[name]
    assert ExpertPolicy(samples=5, survival=0).option("samples", halloween) == 5
    assert ExpertPolicy(samples=5, survival=0).option("survival", halloween) == 0
    assert ExpertPolicy(candidates=2).option("candidates", arabic) == 2


def test_halloween_default_expert_carries_the_survival_term():
    """Left unset, Halloween's survival options are the measured ones: the 1-ply default
    expert plays as with them given and differs from the expert without the term."""
    from solver.expert import VARIANT_DEFAULTS, ExpertPolicy

    variant = find_variant("halloween")
    measured = {k: VARIANT_DEFAULTS["halloween"][k] for k in ("survival", "survival_death")}
    rng = random.Random("survival-default")
    differs = 0
    for n in range(30):
        filled = sum(1 << c for c in range(100) if rng.random() < 0.55)
        game = Game(variant, Board(filled, 0, 0), Streak(), 0, RandomDeals(variant, n).next_tray(), None)
        default = ExpertPolicy(time_limit=0, seed=n).decide(game).moves
        assert default == ExpertPolicy(time_limit=0, seed=n, **measured).decide(game).moves
        differs += default != ExpertPolicy(time_limit=0, seed=n, survival=0).decide(game).moves
    assert differs >= 1


def test_lookahead_budget_guess_leaves_out_the_survival_term(monkeypatch):
    """The guess at one lookahead tray's cost (which sets how many candidates the clock can
    afford) is the root enumeration and its values, not the survival term: a lookahead tray
    does not repeat that term, and counting it (slow on a cold start) left `tenfold hint`
    with no lookahead round inside its default second."""
    from solver.expert import ExpertPolicy

    variant = find_variant("halloween")
    board = parse_board(TIGHT_BOARD)
    game = Game(variant, board, Streak(), 0, ["2x2", "L3-nw", "1x3"], None)
    policy = ExpertPolicy(time_limit=0, seed=1)
    real = policy._with_survival

    def slow(*args):
        time.sleep(1.0)
        return real(*args)

    monkeypatch.setattr(policy, "_with_survival", slow)
    policy.decide(game)
    assert policy._root_cost < 0.5


def test_lookahead_budget_guess_leaves_out_the_first_kernel_load(monkeypatch):
    """A process's first decision also loads the compiled kernels; the guess at one lookahead
    tray's cost is timed again after that load (here a first enumeration made 1 s slower), so
    a cold `tenfold hint` still affords its lookahead."""
    import solver.enumerate_jit
    import solver.expert
    from solver.expert import ExpertPolicy

    variant = find_variant("sudoku")
    board = parse_board(TIGHT_BOARD)
    game = Game(variant, board, Streak(), 0, ["2x2", "L3-nw", "1x3"], None)
    real, calls = solver.enumerate_jit.enumerate_tray_jit, []

    def cold_first(*args):
        if not calls:
            time.sleep(1.0)
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(solver.enumerate_jit, "enumerate_tray_jit", cold_first)
    monkeypatch.setattr(solver.expert, "_RAN", set())
    policy = ExpertPolicy(time_limit=0, seed=1)
    policy.decide(game)
    assert policy._root_cost < 0.5 and len(calls) == 2
    policy.decide(game)  # later decisions are timed once
    assert len(calls) == 3


def test_expert_hint_on_a_tray_that_does_not_fit_says_so():
    """The expert's hint agrees with ``tenfold tray`` on placeability, also where nothing fits
    (it used to crash there), through the CLI in JSON and in text."""

    from test_tray_rescue import crowded

    runner = CliRunner()
    rng = random.Random("expert-stuck")
    stuck = 0
    for name in ("halloween", "arabic", "sudoku"):
        variant = VARIANTS[name]
        for _ in range(8):
            board, pieces = crowded(variant, rng)
            answer = hint(variant, board, pieces, time_limit=0.05)
            assert answer["placeable"] == analyse_tray(variant, board, pieces).placeable
            if not answer["placeable"]:
                assert answer["plan"] is None and answer["best_score"] is None and answer["value"] is None
                stuck += 1
    assert stuck >= 5
    full = "/".join(["#" * 10] * 9 + ["#" * 9 + "."])
    for extra in ([], ["--json"]):
        out = runner.invoke(app, ["hint", "--rules", "halloween", "--board", full, "--tray", "2x1",
                                  "--policy", "expert", "--time-limit", "0.05"] + extra)
        assert out.exit_code == 0, out.output
        assert ("not placeable" in out.stdout) if not extra else json.loads(out.stdout)["placeable"] is False


def test_cli_play_fixed_rounds_plays_the_same_game_whatever_the_clock():
    """With the clock the expert's lookahead depends on the machine's speed and load (a reviewer
    saw the same seed score 2,595 and 2,515); --fixed-rounds runs every round, so a budget of
    0.01 s and one of 5 s play the same game, from a board where it looks ahead (on this host,
    with the clock, 0.01 s scored 148 and 5 s 163 in these six trays)."""
    rng = random.Random(2026)
    board = "/".join("".join("#" if rng.random() < 0.35 else "." for _ in range(10)) for _ in range(10))
    runs = []
    for budget in ("0.01", "5"):
        out = CliRunner().invoke(app, ["play", "--rules", "halloween", "--seed", "3", "--policy", "expert",
                                       "--fixed-rounds", "--time-limit", budget, "--board", board, "--trays", "6",
                                       "--json"])
        assert out.exit_code == 0, out.output
        data = json.loads(out.output.strip().splitlines()[-1])
        runs.append((data["score"], data["trays"], data["over"]))
    assert runs[0] == runs[1]
    greedy = CliRunner().invoke(app, ["play", "--rules", "halloween", "--seed", "3", "--fixed-rounds"])
    assert greedy.exit_code == 2 and "--fixed-rounds" in greedy.output


def test_cli_play_has_no_clock_unless_given_a_time_limit(monkeypatch):
    """The expert plays every lookahead round by default, so a seed is one game on any machine
    (with the clock at 0.3 s a tray, the default before, a Sultan's Labyrinth seed died at tray 76
    in three runs of five and lived to 200 in two); --time-limit S asks for a clock, and
    --fixed-rounds runs every round whatever it says. The same game as --fixed-rounds, move for
    move, from a board where it looks ahead."""
    import solver.expert

    made = []
    real = solver.expert.ExpertPolicy

    def spy(*args, **kwargs):
        made.append(kwargs["clock"])
        return real(*args, **kwargs)

    monkeypatch.setattr(solver.expert, "ExpertPolicy", spy)
    rng = random.Random(2026)
    board = "/".join("".join("#" if rng.random() < 0.35 else "." for _ in range(10)) for _ in range(10))
    base = ["play", "--rules", "halloween", "--seed", "3", "--policy", "expert", "--board", board, "--trays", "6",
            "--json"]
    games = {}
    for name, extra in (("default", []), ("fixed", ["--fixed-rounds"]), ("clock", ["--time-limit", "0.5"]),
                        ("fixed, 0.5 s", ["--time-limit", "0.5", "--fixed-rounds"])):
        out = CliRunner().invoke(app, [*base, *extra])
        assert out.exit_code == 0, out.output
        games[name] = json.loads(out.stdout)["moves"]
    assert made == [False, False, True, False]
    assert games["default"] == games["fixed"] == games["fixed, 0.5 s"] and len(games["default"]) == 18
    # a mode with a clock of its own (Arabic's speed, 45 s a tray) keeps it, but with --fixed-rounds
    for extra, clock in (([], True), (["--fixed-rounds"], False), (["--time-limit", "2"], True)):
        out = CliRunner().invoke(app, ["play", "--rules", "arabic", "--mode", "speed", "--seed", "3", "--policy",
                                       "expert", "--trays", "1", *extra])
        assert out.exit_code == 0, out.output
        assert made[-1] == clock, extra


def test_cli_hint_fixed_rounds_gives_the_same_plan_whatever_the_clock():
    """As for play: with --fixed-rounds the expert's hint runs every lookahead round, so 0.01 s and
    5 s give the same plan and value; with the clock, 0.01 s leaves no time to look ahead. A limit
    of 0 means no lookahead, with --fixed-rounds too (it ran every round: a docstring review)."""
    rng = random.Random(2026)
    board = "/".join("".join("#" if rng.random() < 0.45 else "." for _ in range(10)) for _ in range(10))
    answers = []
    for extra in (["--time-limit", "0.01"], ["--time-limit", "0.01", "--fixed-rounds"],
                  ["--time-limit", "5", "--fixed-rounds"], ["--time-limit", "0"],
                  ["--time-limit", "0", "--fixed-rounds"]):
        out = CliRunner().invoke(app, ["hint", "--rules", "halloween", "--board", board, "--tray", "2x2,1x3",
                                       "--policy", "expert", "--json"] + extra)
        assert out.exit_code == 0, out.output
        data = json.loads(out.stdout)  # (a limit the answer overran: a note on stderr)
        del data["ms"]
        answers.append(data)
    clocked, fixed_short, fixed_long, none, fixed_none = answers
    assert fixed_short == fixed_long and fixed_short["lookahead_rounds"] > 0
    assert clocked["lookahead_rounds"] < fixed_short["lookahead_rounds"]
    assert none == fixed_none and none["lookahead_rounds"] == 0 and none["placeable"]
    best = CliRunner().invoke(app, ["hint", "--rules", "halloween", "--tray", "1x1", "--fixed-rounds"])
    assert best.exit_code == 2 and "--fixed-rounds" in best.output


def count_read(text: str) -> float:
    """A status line's count read back: "12,345" or "3.5 M"."""
    return float(text.removesuffix(" M")) * 1e6 if text.endswith(" M") else int(text.replace(",", ""))


def test_cli_expert_hint_shows_its_lookahead_on_a_terminal(monkeypatch):
    """Every round on an open board took 35-50 s in silence (an auditor's ``--fixed-rounds`` on an
    empty board): on a terminal a status line counts the end states looked ahead through and is
    erased at the end; the answer is the same as without it, and off a terminal nothing is drawn."""
    from cli import console
    from solver import watch

    rng = random.Random(2027)  # (a crowded board: few end states to look ahead from, a quick test)
    board = "/".join("".join("#" if rng.random() < 0.7 else "." for _ in range(10)) for _ in range(10))
    args = ["hint", "--rules", "halloween", "--board", board, "--tray", "1x2,1x1", "--policy", "expert", "--json",
            "--fixed-rounds"]
    quiet = CliRunner().invoke(app, args)
    assert quiet.exit_code == 0 and quiet.stderr == "", quiet.output
    monkeypatch.setattr(console, "terminal", lambda: True)
    monkeypatch.setattr(console, "STATUS_EVERY", 0.0)
    shown = CliRunner().invoke(app, args)
    assert shown.exit_code == 0, shown.output
    answers = [json.loads(run.stdout) for run in (quiet, shown)]  # stdout stays the JSON alone
    for data in answers:
        del data["ms"]
    assert answers[0] == answers[1] and answers[0]["lookahead_rounds"] > 0
    draws = [part for part in shown.stderr.split("\r") if part.strip()]
    counts = [count_read(d.split(", ")[1].removesuffix(" end states")) for d in draws]
    assert draws and all(d.startswith("expert lookahead: ") and d.endswith(" end states") for d in draws)
    assert counts == sorted(counts) and counts[-1] > 0
    assert shown.stderr.endswith("\r") and shown.stderr.split("\r")[-2].strip() == ""  # erased at the end
    assert watch.WATCHERS == []


def expert_rescue_cases(count: int):
    """Seeded Arabic and Sudoku trays that need tokens (or that no tokens can save): boards
    half to four fifths full, stones, no zone complete, 1-3 pieces and 1-3 tokens."""
    import reference_rules as ref

    rng = random.Random("expert-rescue")
    found = 0
    while found < count:
        name = rng.choice(("arabic", "sudoku"))
        fill = rng.uniform(0.5, 0.8)
        grid = [["#" if rng.random() < fill else "." for _ in range(10)] for _ in range(10)]
        for _ in range(rng.choice((0, 4))):
            grid[rng.randrange(10)][rng.randrange(10)] = "S"
        for _, cells in ref.zones(name):
            if all(grid[r][c] != "." for r, c in cells):
                tiles = [(r, c) for r, c in cells if grid[r][c] == "#"]
                if tiles:
                    r, c = rng.choice(tiles)
                    grid[r][c] = "."
        if any(all(grid[r][c] != "." for r, c in cells) for _, cells in ref.zones(name)):
            continue
        pieces = [rng.choice(list(ref.shape_probabilities(name))) for _ in range(rng.randint(1, 3))]
        tokens = rng.randint(1, 3)
        answer = analyse_tray(find_variant(name), parse_board(ref.grid_text(grid)), pieces, 0, tokens)
        if answer.placeable and answer.tokens_used == 0:
            continue
        found += 1
        yield name, grid, pieces, tokens, answer.placeable


def test_expert_hint_places_every_tray_a_token_rescue_can_save():
    """The expert's hint is placeable exactly when the tray search's rescue is, and its plan
    replays on the reference rules within the tokens. It spent the first tokens of a rescue
    and then, with one left, gave up where a removal was needed after a placement."""
    import reference_rules as ref

    saved = 0
    for name, grid, pieces, tokens, placeable in expert_rescue_cases(240):
        text = ref.grid_text(grid)
        answer = hint(find_variant(name), parse_board(text), pieces, 0, tokens, 0.05, fixed_rounds=True)
        assert answer["placeable"] == placeable, (name, text, pieces, tokens)
        if not placeable:
            continue
        play = _Play({"variant": name, "mode": "x", "board": text.split("/"), "trays": [pieces], "tokens": tokens,
                      "goals": [{"score": 0}]})
        for move in answer["plan"]:  # tokens counted, pieces from the tray, each move legal
            assert not play.move(move), (name, text, pieces, tokens, answer["plan"], move)
        assert play.tray == 1 and play.tokens >= 0, (name, text, pieces, tokens, answer["plan"])
        saved += 1
    assert saved >= 100, saved


@pytest.mark.parametrize("policy", ["greedy", "expert"])
def test_no_policy_rerolls_more_than_the_reserve_holds(tmp_path, policy):
    """Nothing fits, and three tokens cannot save the tray (the 3x3 needs four removals); a
    reroll would need two reserve pieces and there is one. The expert rerolled anyway, and play
    stopped with a rules error (exit 2); both policies now end the game, over, keeping the
    tokens' bonus."""
    checker = "/".join(("#." * 5) if r % 2 == 0 else (".#" * 5) for r in range(10))
    deals = tmp_path / "deals.json"
    deals.write_text(json.dumps({"trays": [["3x3", "2x2"]], "reserve": ["1x1"]}))
    out = CliRunner().invoke(app, ["play", "--rules", "arabic", "--seed", "1", "--board", checker, "--deals",
                                   str(deals), "--policy", policy, *(["--fixed-rounds"] * (policy == "expert")),
                                   "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout) | {"ms_per_tray": 0} == {"score": 300, "trays": 0, "over": True, "ms_per_tray": 0,
                                                               "start": checker, "moves": []}


def test_allocation_gives_every_stratum_one_round_once_there_are_rounds_enough():
    """lookahead.allocate's rule: at least one round for every stratum that can occur once the
    rounds are no fewer than the strata (3 rounds, 3 strata: one each, whatever P(k)); the
    rounds past the floors go by largest remainder, ties to the lower stratum."""
    from fractions import Fraction

    from solver.lookahead import allocate, stratum_probabilities

    for name in ("halloween", "arabic", "sudoku"):
        assert allocate(3, stratum_probabilities(find_variant(name))) == [1, 1, 1], name
    third = (Fraction(1, 3),) * 3  # 4 rounds: floors of 1, the spare one's shares tie at 1/3
    assert allocate(4, third) == [2, 1, 1]
    assert allocate(2, (Fraction(1, 2), Fraction(1, 2), Fraction(0))) == [1, 1, 0]  # a stratum that cannot occur


def test_lookahead_samples_every_stratum_as_allocated(monkeypatch):
    """The expert's lookahead draws each round's tray from that round's stratum: with 16 rounds
    in Halloween, 7 trays of no bulky piece (3x3, X5), 5 of one and 4 of two or more (the
    allocation lookahead.py's docstring gives) for every candidate, each stratum's mean over its
    own rounds; drawing them all from the common stratum would never meet the trays that end
    games. The candidates looked ahead from include the best end state of the tray alone."""
    import solver.enumerate_jit
    from solver.lookahead import StratifiedTrays

    variant = find_variant("halloween")
    root = ["2x2", "L3-nw", "1x3"]
    real, looked = solver.enumerate_jit.enumerate_tray_jit, []

    def spy(variant, board, streak, tray):
        looked.append((board, list(tray)))
        return real(variant, board, streak, tray)

    monkeypatch.setattr(solver.enumerate_jit, "enumerate_tray_jit", spy)
    real_estimate, counted = StratifiedTrays.estimate, []

    def estimate(self, sums, counts):
        counted.append(list(counts))
        return real_estimate(self, sums, counts)

    monkeypatch.setattr(StratifiedTrays, "estimate", estimate)
    game = Game(variant, parse_board(TIGHT_BOARD), Streak(), 0, root, None)
    decision = ExpertPolicy(seed=3, clock=False, samples=16, candidates=2, survival=0).decide(game)
    assert decision.rounds == 16 and decision.candidates == 2
    assert counted == [[7, 5, 4]]  # each stratum's mean over its own rounds
    first = ExpertPolicy(time_limit=0, survival=0).decide(game).moves  # the best end state without lookahead
    sim = Game(variant, parse_board(TIGHT_BOARD), Streak(), 0, list(root), None)
    for move in first:
        sim.apply(move)
    boards = [board for board, tray in looked if tray not in (root, ["1x1"])]
    assert sim.board.filled in {board.filled for board in boards}  # the best is a candidate
    sampled = [tray for _, tray in looked if sorted(tray) != sorted(root) and tray != ["1x1"]]
    assert len(sampled) == 32
    strata = [min(sum(piece in ("3x3", "X5") for piece in tray), 2) for tray in sampled]
    assert [strata.count(h) for h in range(3)] == [14, 10, 8]


def test_leaf_hazard_charges_death_times_the_chance_of_a_blocked_hard_piece():
    """A lookahead leaf's value with the leaf hazard is its value without it plus ``death``
    (negative: a cost) times the chance, by brute force over every tray, that the next tray
    deals a hard piece with no spot on that end state's board."""
    from solver.enumerate_jit import enumerate_tray_jit
    from solver.evaluate import HARD_PIECES
    from solver.pieces import placements

    variant = find_variant("halloween")
    board = parse_board(TIGHT_BOARD)
    states = enumerate_tray_jit(variant, board, Streak(), ["1x2", "1x1"])
    trays = [(set(tray), float(p)) for tray, p in _all_ordered_trays(variant)]
    chance: dict[frozenset, float] = {}

    def hazard(filled: int) -> float:
        blocked = frozenset(p for p in HARD_PIECES if all(s.mask & filled for s in placements(p)))
        if blocked not in chance:
            chance[blocked] = sum(p for shapes, p in trays if shapes & blocked)
        return chance[blocked]

    policy = ExpertPolicy()
    plain = dict(zip(*policy._values(states, board.stones)))
    charged = dict(zip(*policy._values(states, board.stones, -3000.0)))
    assert set(charged) == set(plain) and len(plain) > 20
    risky = 0
    for i, value in charged.items():
        h = hazard(states.filled(i) | board.stones)
        assert value == pytest.approx(plain[i] - 3000.0 * h, abs=1e-6), i
        risky += h > 0
    assert risky > 0


def test_a_plan_is_not_reused_for_a_game_with_other_tokens():
    """The expert keeps its plan keyed on the whole state it expects, tokens included: the same
    board, tray and streak with no token left is a different game, planned afresh (a rotate
    planned with three tokens would be an illegal move with none). Only column 9 is free: a
    1x5 fits once turned, so with no token nothing can be done."""
    variant = VARIANTS["arabic"]
    board = parse_board(COLUMN_9_FREE)
    policy = ExpertPolicy()
    rich = Game(variant, board, Streak(), 3, ["1x5"], RandomDeals(variant, 1))
    assert isinstance(policy(rich), TokenUse)
    poor = Game(variant, board, Streak(), 0, ["1x5"], RandomDeals(variant, 1))
    assert policy(poor) is None


def test_a_sampled_tray_that_cannot_be_placed_costs_death(monkeypatch):
    """Without the survival term (Arabic's default), a lookahead tray that cannot go down is
    worth ``death`` (-3000 with no token left): when no sampled tray fits any candidate, the
    chosen plan is worth its points times the points weight plus death."""
    import solver.enumerate_jit

    variant = find_variant("arabic")
    root = ["2x2", "L3-nw", "1x3"]
    real = solver.enumerate_jit.enumerate_tray_jit

    def nothing_fits_later(variant, board, streak, tray):
        if list(tray) in (root, ["1x1"]):
            return real(variant, board, streak, tray)
        return real(variant, Board(BB_ALL, 0, 0), streak, tray)  # a full board: no end state

    monkeypatch.setattr(solver.enumerate_jit, "enumerate_tray_jit", nothing_fits_later)
    game = Game(variant, parse_board(TIGHT_BOARD), Streak(), 0, list(root), None)
    policy = ExpertPolicy(seed=1, clock=False, danger_only=False, samples=2, candidates=3)
    decision = policy.decide(game)
    assert decision.rounds == 2 and decision.candidates == 3
    for move in decision.moves:
        game.apply(move)
    assert decision.value == pytest.approx(game.score * load_weights(variant)["points"] - 3000.0)


def test_expert_hint_counts_the_tokens_its_plan_spends():
    """docs/json.md ``expert_hint``: tokens_used is the tokens the plan spends. Only column 9
    free, a 1x5 tray and 3 tokens: one rotate, then the 5x1 down column 9; a tray that fits as
    dealt spends none of its tokens."""
    variant = VARIANTS["arabic"]
    board = parse_board(COLUMN_9_FREE)
    answer = hint(variant, board, ["1x5"], tokens=3, time_limit=0)
    assert answer["placeable"] and answer["tokens_used"] == 1
    assert [move.get("token") for move in answer["plan"]] == ["rotate", None]
    assert hint(variant, Board(), ["2x2"], tokens=3, time_limit=0)["tokens_used"] == 0


def test_a_rotation_is_spent_only_when_it_gains_more_than_the_tokens_end_bonus():
    """The expert's rule for a spare token (Arabic, more than ``keep_tokens`` left): turn a piece
    when the turned tray's best end state is worth more than the untouched tray's by more than
    the token's end bonus (100 points, in the evaluation's weight), the turn that gains most;
    otherwise place the tray as dealt. With ``keep_tokens`` left, never for gain. Seeded boards
    20-60 % full; the gains are worked out here, one enumeration per turned shape. (From a
    mutation audit: spending for any gain at all had passed.)"""
    from solver.enumerate_jit import enumerate_tray_jit
    from solver.pieces import turned_shapes

    variant = find_variant("arabic")
    policy = ExpertPolicy(time_limit=0)
    bonus = variant.token_bonus * policy.weights_for(variant)["points"]
    kinds = {"small gain": 0, "big gain": 0}
    for seed in range(60):
        rng = random.Random(seed)
        fill = rng.uniform(0.2, 0.6)
        board = Board(sum(1 << c for c in range(100) if rng.random() < fill), 0, 0)
        deals = RandomDeals(variant, seed)
        tray = [deals.next_piece() for _ in range(3)]
        states = enumerate_tray_jit(variant, board, Streak(), tray)
        if len(states) == 0:
            continue  # a rescue, not a gain
        base = policy._values(states, 0)[1][0]
        gains = {}
        for piece in dict.fromkeys(tray):
            for turned, turns in turned_shapes(piece):
                rotated = list(tray)
                rotated[rotated.index(piece)] = turned
                after = enumerate_tray_jit(variant, board, Streak(), rotated)
                if len(after):
                    gains[TokenUse("rotate", piece=piece, turns=turns)] = policy._values(after, 0)[1][0] - base
        best = max(gains.values(), default=0.0)
        moves = ExpertPolicy(time_limit=0).decide(Game(variant, board, Streak(), 5, tray, None)).moves
        if best > bonus:
            kinds["big gain"] += 1
            assert len(moves) == 1 and gains[moves[0]] == best, (seed, tray, gains, moves)
        else:
            kinds["small gain"] += 0 < best
            assert not isinstance(moves[0], TokenUse), (seed, tray, gains, moves)
        kept = ExpertPolicy(time_limit=0).decide(Game(variant, board, Streak(), 3, tray, None)).moves
        assert not isinstance(kept[0], TokenUse), seed
    assert min(kinds.values()) >= 5, kinds


def test_cli_expert_hint_takes_one_second_unless_told_otherwise(monkeypatch):
    """docs/cli.md: the expert's hint looks ahead within --time-limit seconds, default 1."""
    import solver.expert

    asked = []
    real = solver.expert.hint
    monkeypatch.setattr(solver.expert, "hint", lambda *args, **kwargs: asked.append(args[5]) or real(
        *args[:5], 0, **kwargs))
    base = ["hint", "--rules", "halloween", "--tray", "1x1", "--policy", "expert", "--json"]
    for extra in ([], ["--time-limit", "0.25"]):
        assert CliRunner().invoke(app, [*base, *extra]).exit_code == 0
    assert asked == [1.0, 0.25]


def test_cli_play_in_speed_mode_takes_up_to_the_modes_45_s(monkeypatch):
    """docs/cli.md: in Arabic's speed mode the expert's --time-limit is at most the mode's 45 s a
    tray (45 itself included), which is its clock by default."""
    import solver.expert

    asked = []
    real = solver.expert.ExpertPolicy

    def spy(*args, **kwargs):
        asked.append(kwargs["time_limit"])
        return real(*args, **{**kwargs, "time_limit": 0})  # (no lookahead: the test is of the option)

    monkeypatch.setattr(solver.expert, "ExpertPolicy", spy)
    base = ["play", "--rules", "arabic", "--mode", "speed", "--seed", "3", "--policy", "expert", "--trays", "1"]
    for extra in ([], ["--time-limit", "45"]):
        out = CliRunner().invoke(app, [*base, *extra])
        assert out.exit_code == 0, out.output
    assert asked == [45, 45]


def test_cli_expert_hint_text_scores_each_step_with_the_streak_carried_in():
    """Halloween, hand counted (RULES.md): each row and each column of this board lacks one cell,
    on the diagonal, so a 1x1 anywhere fills a row and a column: 1 cell + 30 for two lines, + 5
    after a clearing placement (--streak 1). The text's step and best score both say 36."""
    board = "/".join("#" * r + "." + "#" * (9 - r) for r in range(10))
    out = CliRunner().invoke(app, ["hint", "--rules", "halloween", "--board", board, "--tray", "1x1", "--streak", "1",
                                   "--policy", "expert", "--time-limit", "0"])
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    [step] = [line for line in lines if line.startswith("step 1: ")]
    assert step.endswith("  +36") and "best score: 36" in lines, lines
