"""``play --policy greedy`` takes a placement that scores the most points now, judged on the
reference rules (``level_reference``, no code shared with ``solver/``): hundreds of seeded
levels in every variant, among them boards whose zones are complete at the start (they clear
with the first placement) and Arabic turns that end with the flow bonus."""

from __future__ import annotations

import pytest

from level_reference import _Play
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
