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
from solver.variants import VARIANTS, find_variant


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
    board = Board(BB_ALL & ~sum(1 << (r * 10 + 9) for r in range(10)) & ~(1 << 0), 0, 0)
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


def test_expert_outlives_greedy():
    """Same seeds for both policies; greedy dies within a few dozen trays."""
    variant = VARIANTS["halloween"]
    seeds = range(5)
    cap = 60
    greedy_trays = [play_game(new_random_game(variant, s), greedy, cap).trays for s in seeds]
    expert_trays = [play_game(new_random_game(variant, s), ExpertPolicy(seed=s), cap).trays for s in seeds]
    assert statistics.mean(expert_trays) > statistics.mean(greedy_trays)
    assert min(expert_trays) == cap


def test_expert_plays_token_variants():
    for name in ("arabic", "sudoku"):
        variant = VARIANTS[name]
        game = new_random_game(variant, 3, None, variant.mode(None).tokens)
        assert play_game(game, ExpertPolicy(seed=3), 25).trays == 25


def test_cli_play_and_hint_expert():
    runner = CliRunner()
    out = runner.invoke(app, ["play", "--rules", "halloween", "--seed", "2", "--trays", "5",
                              "--policy", "expert", "--time-limit", "0.05", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output.strip().splitlines()[-1])
    assert data["trays"] == 5 and data["over"] is False and set(data) == {"score", "trays", "over", "ms_per_tray"}
    out = runner.invoke(app, ["hint", "--rules", "arabic", "--tray", "2x2,1x3,T4-n", "--policy", "expert",
                              "--time-limit", "0.3", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
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
