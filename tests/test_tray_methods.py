"""The tray's best plan by compiled enumeration equals the branch-and-bound search:
same points and the same board health, on seeded random positions of every variant."""

from __future__ import annotations

import random

import pytest

from solver.bitboard import BB_ALL, isolated_empty
from solver.board import Board
from solver.deals import RandomDeals
from solver.engine import Game, Streak
from solver.tray import TraySearch, best_by_enumeration
from solver.variants import VARIANTS


def position(variant, rng):
    fill = rng.uniform(0.3, 0.75)
    stones = sum(1 << c for c in rng.sample(range(100), rng.choice((0, 0, 4))))
    filled = sum(1 << c for c in range(100) if rng.random() < fill) & ~stones
    for _ in range(rng.randrange(3)):
        zone = rng.choice(variant.zones)
        filled |= zone & ~stones
        filled &= ~(1 << rng.choice([c for c in range(100) if zone >> c & 1]))
    deals = RandomDeals(variant, rng.randrange(1 << 30))
    return Board(filled, stones, 0), [deals.next_piece() for _ in range(rng.randint(1, 3))]


def outcome(variant, board, pieces, streak, plan):
    game = Game(variant, board, streak, 0, list(pieces))
    for move in plan:
        game.apply(move)
    occupied = game.board.occupied
    return game.score, (BB_ALL & ~occupied).bit_count(), -isolated_empty(occupied)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_enumeration_and_search_agree(name):
    variant = VARIANTS[name]
    rng = random.Random(f"methods-{name}")
    compared = 0
    for _ in range(250):
        board, pieces = position(variant, rng)
        streak = Streak.carried_in(rng.choice((0, 0, 1, 2)))
        searched = TraySearch(variant, board, streak).best(pieces)
        enumerated = best_by_enumeration(variant, board, pieces, streak)
        assert (searched is None) == (enumerated is None)
        if searched is None:
            continue
        compared += 1
        a = outcome(variant, board, pieces, streak, searched[1])
        b = outcome(variant, board, pieces, streak, enumerated[1])
        assert a[0] == searched[0] and b[0] == enumerated[0]
        assert a == b
    assert compared >= 150
