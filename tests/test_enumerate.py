"""Full tray enumeration against an independent brute force over ``Game.apply``.

Seeded small positions (boards 45-85% full, stones, nearly complete lines
and regions, sometimes a zone already complete, a random streak carried
in): the set of end states (board, streak) and the most points per state
must match a plain recursion over copies of the game, for the pure-Python
reference and for the numba kernel; the kernel must also match the
reference on larger positions, and every plan must replay to its claim.
"""

from __future__ import annotations

import random

import pytest

from solver.bitboard import BB_COLS, BB_ROWS, bb_cell
from solver.board import Board, parse_board
from solver.deals import RandomDeals
from solver.engine import Game, Streak, copy_game
from solver.enumerate import enumerate_tray, enumerate_tray_py
from solver.enumerate_jit import enumerate_tray_jit
from solver.moves import Placement
from solver.pieces import placements
from solver.variants import VARIANTS, find_variant

NAMES = ("halloween", "arabic", "sudoku")


def _position(variant, rng: random.Random, fill_range=(0.45, 0.85)):
    fill = rng.uniform(*fill_range)
    filled = sum(1 << c for c in range(100) if rng.random() < fill)
    for _ in range(rng.randrange(0, 4)):  # nearly complete zones
        zone = rng.choice(BB_ROWS + BB_COLS + variant.regions)
        filled |= zone
        for cell in rng.sample([c for c in range(100) if zone >> c & 1], rng.randint(1, 3)):
            filled &= ~(1 << cell)
    if rng.random() < 0.05:  # a zone already complete: the first placement clears it
        filled |= rng.choice(BB_ROWS + BB_COLS)
    stones = 0
    if rng.random() < 0.3:
        for cell in rng.sample(range(100), 4):
            stones |= bb_cell(cell // 10, cell % 10)
    filled &= ~stones
    deals = RandomDeals(variant, rng.randrange(1 << 30))
    tray = [deals.next_piece() for _ in range(rng.choice((1, 2, 3, 3, 3)))]
    run = rng.choice((0, 0, 1, 2, 4))
    streak = Streak(run, rng.random() < 0.3, rng.random() < 0.5)
    return Board(filled, stones, 0), tray, streak


def _brute_force(variant, board: Board, streak: Streak, tray) -> dict:
    """(filled, streak) -> most points, by recursion over Game.apply on copies."""
    ends: dict = {}

    def walk(game: Game) -> None:
        if not game.tray:
            key = (game.board.filled, game.streak)
            ends[key] = max(ends.get(key, -1), game.score)
            return
        occupied = game.board.occupied
        for piece in set(game.tray):
            for spot in placements(piece):
                if not spot.mask & occupied:
                    child = copy_game(game)
                    child.apply(Placement(spot.piece, spot.row, spot.col))
                    walk(child)

    walk(Game(variant, board, streak, 0, list(tray), None))
    return ends


def _as_dict(states) -> dict:
    return {(s.filled, s.streak): s.points for s in states}


def _replays(variant, board, streak, tray, state) -> bool:
    game = Game(variant, board, streak, 0, list(tray), None)
    for move in state.plan:
        game.apply(move)
    return (game.board.filled, game.streak, game.score) == (state.filled, state.streak, state.points)


@pytest.mark.parametrize("name", NAMES)
def test_enumeration_matches_brute_force(name):
    variant = find_variant(name)
    rng = random.Random(f"enumerate-{name}")
    checked = 0
    while checked < 100:
        board, tray, streak = _position(variant, rng)
        expected = _brute_force(variant, board, streak, tray)
        py = enumerate_tray_py(variant, board, streak, tray)
        jit = enumerate_tray_jit(variant, board, streak, tray).states()
        assert _as_dict(py) == expected, (board.text(), tray, streak)
        assert _as_dict(jit) == expected, (board.text(), tray, streak)
        assert len(py) == len(jit) == len(expected), (board.text(), tray, streak)  # duplicates merged
        for state in rng.sample(jit, min(3, len(jit))):
            assert _replays(variant, board, streak, tray, state)
        checked += 1


@pytest.mark.parametrize("name", NAMES)
def test_kernel_matches_reference_on_emptier_boards(name):
    variant = find_variant(name)
    rng = random.Random(f"kernel-{name}")
    for _ in range(30):
        board, tray, streak = _position(variant, rng, (0.35, 0.7))
        py = enumerate_tray_py(variant, board, streak, tray)
        jit = enumerate_tray_jit(variant, board, streak, tray).states()
        assert _as_dict(py) == _as_dict(jit), (board.text(), tray, streak)
        for state in rng.sample(jit, min(2, len(jit))):
            assert _replays(variant, board, streak, tray, state)


def test_unplaceable_tray_has_no_end_states():
    variant = VARIANTS["halloween"]
    checkers = Board(sum(1 << c for c in range(100) if (c // 10 + c % 10) % 2 == 0), 0, 0)
    assert enumerate_tray_py(variant, checkers, Streak(), ["2x2"]) == []
    assert enumerate_tray(variant, checkers, Streak(), ["1x1", "2x2", "1x1"]) == []
    assert len(enumerate_tray(variant, checkers, Streak(), ["1x1"])) == 50


def test_custom_pieces():
    variant = VARIANTS["arabic"]
    rng = random.Random(5)
    for _ in range(20):
        board, _, streak = _position(variant, rng)
        tray = ["#./##/.#", "#.#/###", "1x1"]
        assert _as_dict(enumerate_tray_jit(variant, board, streak, tray).states()) == \
            _brute_force(variant, board, streak, tray)


# From a mutation audit of the tray solver (2026-12-06):
# (kills J2: enumerate_jit._kernel's merge, on a better arrival at a state, keeping the old
#  arrival's `nx_last` (the commuting-order filter then drops an order the new arrival needs).
#  Found by a seeded search over 8,937 trays; the suite's 130 brute-force positions miss it.)

def test_a_state_reached_again_with_more_points_keeps_every_order_after_it():
    """Sudoku, a carried run of 2: one end state is worth 460 through the better of two
    arrivals at a mid-tray state; the kernel must match the brute force over Game.apply
    (test_enumerate._brute_force) on every end state and its points."""
    variant = find_variant("sudoku")
    board = parse_board(".#.....##./#..#.##..#/..#.#...##/....#..#.#/...##.#.../"
                        "#.###...../..#.#..#../....#....#/.#.##.####/....#.....")
    tray, streak = ["5x1", "3x3", "2x1"], Streak(2, False, False)
    expected = _brute_force(variant, board, streak, tray)
    assert len(expected) == 35 and 460 in expected.values()
    assert _as_dict(enumerate_tray_py(variant, board, streak, tray)) == expected
    assert _as_dict(enumerate_tray_jit(variant, board, streak, tray).states()) == expected
