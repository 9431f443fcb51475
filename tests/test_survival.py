"""The expert's survival term: the exact chance that the next tray cannot be placed
(solver/survival.py), against the rules engine's tray search and a brute-force sum."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from solver.board import Board, parse_board
from solver.deals import RandomDeals
from solver.engine import Game, Streak
from solver.enumerate_jit import enumerate_tray_jit, split
from solver.expert import ExpertPolicy
from solver.lookahead import shape_probabilities
from solver.survival import death_chance, tray_placeable, tray_shapes
from solver.tray import TraySearch
from solver.variants import find_variant

from random_boards import TIGHT_BOARD

VARIANTS = ("halloween", "arabic", "sudoku")


def _tight_board(rng: random.Random, variant) -> tuple[int, int]:
    """A seeded board 45-85 % full, maybe with 4 stones, with no complete zone."""
    fill = rng.uniform(0.45, 0.85)
    stones = sum(1 << c for c in rng.sample(range(100), rng.choice((0, 4))))
    filled = sum(1 << c for c in range(100) if rng.random() < fill) & ~stones
    for zone in variant.zones:
        if (filled | stones) & zone == zone:
            cells = [c for c in range(100) if (zone & filled) >> c & 1]
            filled &= ~(1 << rng.choice(cells))
    return filled, stones


@pytest.mark.parametrize("name", VARIANTS)
def test_placeable_matches_the_tray_search(name):
    variant = find_variant(name)
    rng = random.Random(f"survival-{name}")
    shapes = sorted(shape_probabilities(variant))
    outcomes = {True: 0, False: 0}
    for _ in range(400):
        filled, stones = _tight_board(rng, variant)
        tray = [rng.choice(shapes) for _ in range(3)]
        expected = TraySearch(variant, Board(filled, stones, 0)).placeable(tray) is not None
        assert tray_placeable(variant, filled, stones, tray) == expected, (filled, stones, tray)
        outcomes[expected] += 1
    assert min(outcomes.values()) >= 60  # both answers are exercised


@pytest.mark.parametrize("name", VARIANTS)
def test_death_chance_is_the_chance_of_an_unplaceable_deal(name):
    """The kernel's sum over multisets equals a sum over every ordered deal of three draws,
    in exact fractions, with the placeability of each deal asked of the engine's enumeration."""
    variant = find_variant(name)
    probs = shape_probabilities(variant)
    assert sum(w for _, w in tray_shapes(variant)) == pytest.approx(1.0, abs=1e-12)
    rng = random.Random(f"death-chance-{name}")
    seen_positive = 0
    for _ in range(3):
        filled, stones = _tight_board(rng, variant)
        board = Board(filled, stones, 0)
        stuck: dict[tuple, bool] = {}
        expected = Fraction(0)
        for deal in product(sorted(probs), repeat=3):
            key = tuple(sorted(deal))
            if key not in stuck:
                stuck[key] = len(enumerate_tray_jit(variant, board, Streak(), list(key))) == 0
            if stuck[key]:
                expected += probs[deal[0]] * probs[deal[1]] * probs[deal[2]]
        lo, hi = split(filled)
        got = death_chance(variant, np.array([lo], np.uint64), np.array([hi], np.uint64), stones)[0]
        assert got == pytest.approx(float(expected), abs=1e-12)
        seen_positive += expected > 0
    assert seen_positive >= 1


@pytest.mark.parametrize("lookahead", (False, True))
def test_expert_survival_term_picks_the_safest_of_its_candidates(lookahead):
    """With an overwhelming death cost the chosen end state has the lowest death chance of the
    candidates the term scores, with or without the lookahead (which then counts the exact
    chance, not its samples); with the term off the choice differs on some boards."""
    variant = find_variant("halloween")
    rng = random.Random(f"survival-expert-{lookahead}")
    options = {"time_limit": 1.0, "clock": False, "danger_only": False, "samples": 3} if lookahead else {
        "time_limit": 0}
    differs = 0
    for n in range(12 if lookahead else 40):
        filled, _ = _tight_board(rng, variant)
        game = Game(variant, Board(filled, 0, 0), Streak(), 0, RandomDeals(variant, n).next_tray(), None)
        states = enumerate_tray_jit(variant, game.board, game.streak, list(game.tray))
        if len(states) == 0:
            continue
        # leaf survival off: it would weigh the chance one tray deeper as heavily
        plain = ExpertPolicy(seed=n, survival=0, leaf_survival=0, **options)
        safe = ExpertPolicy(seed=n, survival=16, survival_death=-1e9, leaf_survival=0, **options)
        order, _ = plain._values(states, 0)
        top = order[:16]
        chances = death_chance(variant, states.lo[top], states.hi[top], 0)
        picked = _end_board(game, safe.decide(game).moves)
        assert chances[[states.filled(int(i)) for i in top].index(picked)] == chances.min()
        differs += picked != _end_board(game, plain.decide(game).moves)
    assert differs >= (2 if lookahead else 3)  # the term changes some choices


def _end_board(game: Game, moves) -> int:
    sim = Game(game.variant, game.board, game.streak, 0, list(game.tray), None)
    for move in moves:
        sim.apply(move)
    return sim.board.filled


def test_leaf_survival_values_a_leaf_by_its_safest_good_end_state():
    """A lookahead leaf with the survival term one tray deeper is worth the best of its k best
    end states (by evaluation), each paying the death cost times its chance of an unplaceable
    next tray; the chances here are counted by the engine's enumeration over every multiset
    the supply deals, not by the survival kernel."""
    variant = find_variant("halloween")
    rng = random.Random("leaf-survival")
    policy = ExpertPolicy(seed=0, survival_death=-5000.0)
    stuck: dict[tuple, bool] = {}
    checked = 0
    while checked < 2:
        filled, _ = _tight_board(rng, variant)
        board = Board(filled, 0, 0)
        states = enumerate_tray_jit(variant, board, Streak(), RandomDeals(variant, checked).next_tray())
        if len(states) < 3:
            continue
        order, values = policy._values(states, 0)
        expected = []
        for i, value in zip(order[:2], values[:2]):
            end = Board(states.filled(int(i)), 0, 0)
            chance = 0.0
            for tray, weight in tray_shapes(variant):
                key = (end.filled, tray)
                if key not in stuck:
                    stuck[key] = len(enumerate_tray_jit(variant, end, Streak(), list(tray))) == 0
                chance += weight * stuck[key]
            expected.append(value - 5000.0 * chance)
        assert policy._leaf_with_survival(states, 0, 2) == pytest.approx(max(expected), abs=1e-6)
        checked += 1


def test_leaf_survival_runs_only_past_its_gate():
    """Gated shut (no candidate's chance exceeds 1), the deeper term changes nothing; always
    on, it changes the lookahead's choice on some tight boards."""
    variant = find_variant("halloween")
    rng = random.Random("leaf-survival-gate")
    options = {"time_limit": 1.0, "clock": False, "danger_only": False, "samples": 3, "candidates": 4}
    differs = 0
    for n in range(10):
        filled, _ = _tight_board(rng, variant)
        game = Game(variant, Board(filled, 0, 0), Streak(), 0, RandomDeals(variant, n).next_tray(), None)
        if len(enumerate_tray_jit(variant, game.board, game.streak, list(game.tray))) == 0:
            continue
        plain = ExpertPolicy(seed=n, leaf_survival=0, **options).decide(game).moves
        shut = ExpertPolicy(seed=n, leaf_survival=4, leaf_survival_gate=1.0, **options).decide(game).moves
        assert shut == plain
        differs += ExpertPolicy(seed=n, leaf_survival=4, leaf_survival_gate=-1.0, **options).decide(game).moves != plain
    assert differs >= 1


def test_leaf_survival_under_the_clock_needs_rounds_to_spare(monkeypatch):
    """With the clock, the deeper term runs only when the budget affords MIN_DEEP_ROUNDS rounds
    of it (by the root's measured costs); with fixed rounds it runs whenever gated open."""
    import solver.expert

    variant = find_variant("halloween")
    board = parse_board(TIGHT_BOARD)
    game = Game(variant, board, Streak(), 0, ["2x2", "L3-nw", "1x3"], None)
    options = {"danger_only": False, "samples": 3, "candidates": 3, "leaf_survival": 4, "leaf_survival_gate": -1.0}
    assert ExpertPolicy(seed=1, time_limit=1.0, clock=False, **options).decide(game).deep == 4
    monkeypatch.setattr(solver.expert, "MIN_DEEP_ROUNDS", 10**9)
    assert ExpertPolicy(seed=1, time_limit=1.0, **options).decide(game).deep == 0
    monkeypatch.setattr(solver.expert, "MIN_DEEP_ROUNDS", 0)
    decision = ExpertPolicy(seed=1, time_limit=1.0, **options).decide(game)
    assert decision.deep == 4 and decision.rounds >= 1
