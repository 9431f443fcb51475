"""``play --policy greedy`` takes a placement that scores the most points now, judged on the
reference rules (``level_reference``, no code shared with ``solver/``): hundreds of seeded
levels in every variant, among them boards whose zones are complete at the start (they clear
with the first placement) and Arabic turns that end with the flow bonus."""

from __future__ import annotations

import pytest

from level_reference import _Play
from random_boards import COLUMN_9_FREE
from solver.level import parse_level
from solver.policy import greedy
from test_grading import CHUNKS, levels, placement_moves, reference_points_now


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_greedy_takes_a_placement_with_the_most_points_now(chunk):
    checked = 0
    for data in levels(chunk):
        game = parse_level(data).new_game()
        play = _Play(data)
        while play.placed < play.limit and placement_moves(play):
            move = greedy(game)
            as_dict = {"piece": move.piece, "row": move.row, "col": move.col}
            most = max(reference_points_now(play, m) for m in placement_moves(play))
            assert reference_points_now(play, as_dict) == most, (move, data)
            assert not play.move(as_dict)
            game.apply(move)
            checked += 1
    assert checked >= 75, checked


def test_greedy_breaks_ties_by_more_empty_cells_then_fewer_isolated_ones():
    """greedy's documented tie-breaks, on boards counted by hand (Halloween, a 1x1 tray).
    Row 2 holds a stone and eight tiles, row 5 nine tiles: a 1x1 completing either scores
    1 + 10, but clearing row 5 empties ten cells and row 2 only nine (the stone stays): 91
    empty cells against 90. On a board of two tiles every spot scores 1 and leaves 97 empty
    cells; only (1, 1) shuts in an empty cell ((0, 0)): greedy never takes it."""
    from solver.board import parse_board
    from solver.engine import Game, Streak
    from solver.moves import Placement
    from solver.variants import find_variant

    variant = find_variant("halloween")
    rows = ["." * 10] * 10
    rows[2], rows[5] = "S########.", "########.#"
    game = Game(variant, parse_board("/".join(rows)), Streak(), 0, ["1x1"], None)
    assert greedy(game) == Placement("1x1", 5, 8)
    rows = ["." * 10] * 10
    rows[0], rows[2] = ".#........", "#........."
    move = greedy(Game(variant, parse_board("/".join(rows)), Streak(), 0, ["1x1"], None))
    assert (move.row, move.col) != (1, 0)


@pytest.mark.parametrize("tokens", [1, 3])
def test_greedy_spends_its_last_token_to_save_the_tray(tokens):
    """RULES.md §1: the game ends only when no piece fits after any token use. Arabic, only
    column 9 free: a 1x5 fits once turned a quarter (either way) into a 5x1, so greedy spends a
    rotate token, the last one too."""
    from solver.board import parse_board
    from solver.deals import RandomDeals
    from solver.engine import Game, Streak
    from solver.moves import TokenUse
    from solver.variants import find_variant

    variant = find_variant("arabic")
    board = parse_board(COLUMN_9_FREE)
    game = Game(variant, board, Streak(), tokens, ["1x5"], RandomDeals(variant, 1))
    assert greedy(game) in (TokenUse("rotate", piece="1x5", turns=1), TokenUse("rotate", piece="1x5", turns=3))
