"""The tray's best plan by compiled enumeration equals the branch-and-bound search:
same points and the same board health, on seeded random positions of every variant."""

from __future__ import annotations

import random

import pytest

from solver.bitboard import BB_ALL, isolated_empty
from solver.board import Board, parse_board
from solver.deals import RandomDeals
from solver.engine import Game, Streak
from solver.pieces import get_piece
from solver.moves import TokenUse
from solver.tray import TraySearch, best_plan, health, rescue_cap
from solver.variants import VARIANTS


def position(variant, rng, fill=None):
    fill = rng.uniform(0.3, 0.75) if fill is None else fill
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
        enumerated = best_plan(variant, board, pieces, streak)
        assert (searched is None) == (enumerated is None)
        if searched is None:
            continue
        compared += 1
        a = outcome(variant, board, pieces, streak, searched[1])
        b = outcome(variant, board, pieces, streak, enumerated[1])
        assert a[0] == searched[0] and b[0] == enumerated[0]
        assert a == b
    assert compared >= 150


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_best_end_state_is_the_best_of_all_end_states(name):
    """``best_only`` keeps one end state as it goes (the tray's best plan): the most points,
    then the most empty cells, then the fewest isolated ones, among every end state the full
    enumeration keeps; on boards from empty (where every end state ties on points) to dense,
    with stones, zones complete at the start, and carried streaks with and without the last
    turn's clear (the Arabic flow bonus). Its plan replays through the one move applier to its
    points, and its board's counts are the Python reading's."""
    import numpy as np

    from solver.enumerate_jit import enumerate_tray_jit
    from solver.evaluate import FEATURES, features_bulk

    variant = VARIANTS[name]
    rng = random.Random(f"best-only-{name}")
    compared = ties = 0
    for _ in range(150):
        board, pieces = position(variant, rng, fill=rng.choice((0.0, 0.05, rng.uniform(0.3, 0.75))))
        if rng.random() < 0.2:  # a zone complete at the start clears with the first placement
            board = Board(board.filled | rng.choice(variant.zones) & ~board.stones, board.stones, 0)
        streak = Streak(rng.choice((0, 0, 1, 2)), False, rng.random() < 0.5)
        every = enumerate_tray_jit(variant, board, streak, pieces)
        best = enumerate_tray_jit(variant, board, streak, pieces, best_only=True)
        assert len(best) == min(len(every), 1)
        if not len(every):
            continue
        compared += 1
        top = np.flatnonzero(every.points == every.points.max())
        ties += len(top) > 1
        features = features_bulk(variant, every.lo[top], every.hi[top], board.stones, with_components=False)
        healthiest = max(zip(features[:, FEATURES.index("empty")], -features[:, FEATURES.index("isolated")]))
        kept = best.filled(0) | board.stones
        health = ((BB_ALL & ~kept).bit_count(), -isolated_empty(kept))
        assert best.points[0] == every.points.max() and health == healthiest
        assert best.filled(0) in {every.filled(i) for i in top}
        game_points, *game_health = outcome(variant, board, pieces, streak, best.plan(0))
        assert (game_points, tuple(game_health)) == (best.points[0], health)
    assert compared >= 120 and ties >= 60


def test_no_rescue_needs_more_tokens_than_the_cap():
    """``TraySearch.rescue`` gives up at once on a piece with no stone-free spot, and tries at
    most ``rescue_cap`` tokens (one turn per piece, one removal per cell of theirs): on dense
    boards where a tray does not fit, the plain search finds no plan spending any count up to
    two past the cap where ``rescue`` found none, and ``rescue``'s count is the fewest (each
    plan replays through the one move applier)."""
    variant = VARIANTS["arabic"]  # rotate and remove
    rng = random.Random(2026)
    checked = rescued = 0
    while checked < 100:
        stones = sum(1 << c for c in rng.sample(range(100), rng.choice((4, 40, 75, 88, 92))))  # many: some cannot
        filled = sum(1 << c for c in range(100) if rng.random() < 0.85) & ~stones
        board = Board(filled, stones, 0)
        # small pieces keep the uncapped searches below (every tile a removal may take) quick
        pieces = (rng.sample(["1x1", "1x2", "2x1", "1x3", "3x1", "L3-nw", "L3-se"], 1) if rng.random() < 0.7
                  else rng.sample(["1x1", "1x2", "2x1"], 2))
        search = TraySearch(variant, board, Streak())
        if best_plan(variant, board, pieces, Streak()) is not None:
            continue  # fits without tokens
        checked += 1
        cap = rescue_cap(pieces)
        found = search.rescue(pieces, 10 ** 6)  # a huge budget: as many tries as the cap
        ids = tuple(sorted(pieces))
        if found is None:  # then no plan spends any count up to cap + 2 (the stone test and the cap)
            for more in range(cap + 3):
                for turns, lead in search._turnings(ids, more):
                    assert search._rescue(board.filled, turns, more - len(lead), True, search.full_scan, {}) is None, \
                        (pieces, more)
        if found is not None:
            rescued += 1
            used, plan = found
            assert used <= cap and sum(isinstance(m, TokenUse) for m in plan) == used
            game = Game(variant, board, Streak(), used, list(pieces))
            for move in plan:
                game.apply(move)
            assert game.tokens == 0 and not game.tray
            if used:
                assert search.rescue(pieces, used - 1) is None  # the fewest
    assert 10 <= rescued <= 90  # both outcomes are exercised


def custom_piece(rng: random.Random) -> str:
    """A level's own piece: a bar or block up to 3x10 (or 10x3), some with cells left out."""
    height, width = rng.choice(((3, 10), (10, 3), (2, 10), (3, 7), (rng.randint(1, 5), rng.randint(1, 5))))
    rows = [["#"] * width for _ in range(height)]
    if rng.random() < 0.4 and height * width > 2:  # holes that keep the first row and column's corner
        for _ in range(rng.randint(1, 3)):
            rows[rng.randrange(height)][rng.randrange(width)] = "."
        rows[0][0] = rows[-1][-1] = "#"
    return get_piece("/".join("".join(row) for row in rows)).id


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_tray_clear_bound_is_never_below_the_best_plan(name):
    """The tray search's bound (``TraySearch._clear_bound``, which prunes ``best`` and the token
    rescue's ``best_rescue``) plus the cells' points is at least the points of the tray's best
    plan by the exact compiled enumeration, on seeded boards with the supply's pieces and a
    level's own (a 3x10 touches 14 Sudoku regions: the bound once allowed 8 a piece). The first
    case is a board full but for three rows, where a 3x10 completes 3 rows, 10 columns and, in
    Sudoku, 14 regions at once."""
    variant = VARIANTS[name]
    rng = random.Random(f"tray-bound-{name}")
    band = sum(1 << (r * 10 + c) for r in range(3, 6) for c in range(10))
    case = (Board(BB_ALL & ~band, 0, 0), [get_piece("/".join(["#" * 10] * 3)).id], Streak())
    compared = cleared = 0
    while compared < 120:
        board, pieces, streak = case
        best = best_plan(variant, board, pieces, streak)
        if best is not None:
            compared += 1
            search = TraySearch(variant, board, streak)
            ids = tuple(sorted(get_piece(p).id for p in pieces))
            cells = sum(get_piece(p).size for p in pieces) * variant.cell_points
            bound = search._clear_bound(board.filled, ids, streak.run, streak.turn_cleared, search.full_scan)
            assert best[0] <= cells + bound, (pieces, best)
            cleared += best[0] > cells
        board, pieces = position(variant, rng, fill=rng.choice((0.1, rng.uniform(0.3, 0.75), 0.9)))
        pieces = [custom_piece(rng) if rng.random() < 0.5 else p for p in pieces[:2]]
        case = (board, pieces, Streak(rng.choice((0, 0, 1, 2)), rng.random() < 0.3, rng.random() < 0.5))
    assert cleared >= 60  # most best plans clear


# From a mutation audit of the tray solver (2026-12-06):
# (kills T9: `bound < best[0]` -> `<=` in TraySearch._search; T10: the 1x1 discount dropped from
#  the isolated-cell floor in TraySearch._search)

def _search_outcome(variant, board, pieces, streak):
    """(points, empty cells, -isolated empty cells) of the plan TraySearch.best returns,
    replayed through Game.apply."""
    found = TraySearch(variant, board, streak).best(pieces)
    game = Game(variant, board, streak, 0, list(pieces))
    for move in found[1]:
        game.apply(move)
    assert game.score == found[0]
    return (found[0],) + health(game.board.filled, board.stones)


@pytest.mark.parametrize("pieces", [["L3-se", "L3-se", "T4-n"], ["L3-se", "T4-n", "X5"],
                                    ["L3-se", "L3-se", "L3-se"]])
def test_the_search_on_an_empty_board_leaves_no_isolated_cell(pieces):
    """On an empty board no tray of three clears: every plan scores its cells and leaves as many
    empty cells, and the healthiest leaves no isolated empty cell. L3-se's first spot (0,0)
    isolates the corner (no later piece can cover it), so the search must look past the first
    plan it finds when the other plans tie with it on points."""
    size = {"L3-se": 3, "T4-n": 4, "X5": 5}
    got = _search_outcome(VARIANTS["halloween"], Board(0, 0, 0), pieces, Streak())
    assert got == (sum(size[p] for p in pieces), 100 - sum(size[p] for p in pieces), 0)


def test_the_search_fills_isolated_holes_with_the_trays_1x1s():
    """Two isolated holes at (9,7) and (9,9) and a tray of two 1x1 and an X5 (no clear is
    possible): the healthiest plan puts both 1x1 in the holes and leaves no isolated cell. A
    1x1 still in the tray can fill an isolated cell, so a first plan that drops a 1x1 elsewhere
    is not yet the healthiest."""
    board = parse_board(["." * 10] * 8 + [".......#.#", "......#.#."])
    assert health(board.filled, 0) == (96, -2)
    assert _search_outcome(VARIANTS["halloween"], board, ["1x1", "X5", "1x1"], Streak()) == (7, 89, 0)
