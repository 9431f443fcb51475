"""Hand-worked examples from the rulebooks (../shared/seeds/) and RULES.md, one rule each.

Every expected number below is worked out by hand from the rule it names.
"""

from __future__ import annotations

import pytest

from solver.board import parse_board
from solver.deals import ScriptedDeals
from solver.engine import Game, Streak
from solver.errors import RulesError, TenfoldError
from solver.level import parse_level, play_solution
from solver.moves import Placement, TokenUse, parse_move
from solver.pieces import CANONICAL_IDS, get_piece, rotate_cw
from solver.variants import find_variant

EMPTY = "/".join(["." * 10] * 10)


def board(*rows: str) -> str:
    """Board text from the given top rows (padded with '.' to 10 columns); the rest empty."""
    rows = [r.ljust(10, ".") for r in rows] + ["." * 10] * (10 - len(rows))
    return "/".join(rows)


def replay(variant: str, start: str, moves, streak: int = 0) -> tuple[list[int], Game]:
    game = Game(find_variant(variant), parse_board(start), Streak.carried_in(streak))
    points = [game.apply(Placement(*m) if isinstance(m, tuple) else parse_move(m)).points for m in moves]
    return points, game


def dealt(variant: str, trays, reserve=(), start: str = EMPTY, tokens: int = 0) -> Game:
    return Game.dealt(find_variant(variant), ScriptedDeals(trays, reserve), parse_board(start), tokens)


# --- placement and clear points ------------------------------------------------


@pytest.mark.parametrize("variant, points", [("halloween", 9), ("arabic", 9), ("sudoku", 90)])
def test_3x3_placement_scores_its_cells(variant, points):
    # Halloween 2.5: "A 3x3 block yields +9 points"; Sudoku 2.5: 10 points per cell.
    assert replay(variant, EMPTY, [("3x3", 4, 4)])[0] == [points]


# Row 0 and column 0 each miss only (0, 0): a 1x1 there clears both.
CROSS = board(".#########", *(["#........."] * 9))


@pytest.mark.parametrize("variant, points", [("halloween", 1 + 30), ("arabic", 1 + 300), ("sudoku", 10 + 400)])
def test_two_lines_at_once(variant, points):
    gained, game = replay(variant, CROSS, [("1x1", 0, 0)])
    assert gained == [points]
    assert game.board.text() == EMPTY


@pytest.mark.parametrize("lines, halloween, arabic", [(1, 10, 100), (2, 30, 300), (3, 60, 600), (4, 100, 1200),
                                                      (5, 150, 1200), (6, 210, 1200)])
def test_clear_tables(lines, halloween, arabic):
    # Rows 0..k-1 full except column 9; a kx1 bar in column 9 clears k rows.
    start = board(*(["#########."] * lines))
    bar = f"{lines}x1" if lines <= 5 else "#/#/#/#/#/#"
    for variant, clear in (("halloween", halloween), ("arabic", arabic)):
        gained, game = replay(variant, start, [(bar, 0, 9)])
        assert gained == [lines + clear], variant
        assert game.board.text() == EMPTY


def test_sudoku_region_alone_is_150():
    # The 2x5 box rows 0-1, cols 0-4 misses only (1, 4); no row or column is complete.
    start = board("#####.....", "####......")
    gained, game = replay("sudoku", start, [("1x1", 1, 4)])
    assert gained == [10 + 150]
    assert game.board.text() == EMPTY


def test_sudoku_5x2_region_alone_is_150():
    start = board(*(["##........"] * 4), "#.........")
    gained, game = replay("sudoku", start, [("1x1", 4, 1)])
    assert gained == [10 + 150]
    assert game.board.text() == EMPTY


def test_sudoku_row_and_region_together_is_400():
    # Row 0 full but (0, 9); the 2x5 box rows 0-1, cols 5-9 full but (0, 9) as well.
    start = board("#########.", ".....#####")
    gained, game = replay("sudoku", start, [("1x1", 0, 9)])
    assert gained == [10 + 400]
    assert game.board.text() == EMPTY


def test_sudoku_three_zones_is_900():
    # (0, 9) completes row 0, column 9 and the box rows 0-1 cols 5-9 (the 5x2 box
    # rows 0-4 cols 8-9 stays incomplete).
    start = board("#########.", *([".....#####"] + [".........#"] * 8))
    gained, game = replay("sudoku", start, [("1x1", 0, 9)])
    assert gained == [10 + 900]


def test_row_through_a_stone_clears_with_nine_tiles_and_the_stone_stays():
    start = board("###S#####.")
    for variant, points in (("halloween", 1 + 10), ("arabic", 1 + 100), ("sudoku", 10 + 100)):
        gained, game = replay(variant, start, [("1x1", 0, 9)])
        assert gained == [points], variant
        assert game.board.text() == board("...S......"), variant


def test_a_line_of_stones_alone_never_clears_or_scores():
    start = board("SSSSSSSSSS")
    gained, game = replay("halloween", start, [("1x1", 5, 5), ("1x1", 6, 6)])
    assert gained == [1, 1]
    assert game.board.text().startswith("SSSSSSSSSS/")


def test_pumpkins_clear_like_tiles():
    start = board("PPPP#PPPP.", "P.........")
    gained, game = replay("halloween", start, [("1x1", 0, 9)])
    assert gained == [1 + 10]
    assert game.board.text() == board("..........", "P.........")
    assert game.board.pumpkins.bit_count() == 1


def test_a_cell_in_two_zones_is_cleared_once_and_both_count():
    gained, game = replay("halloween", CROSS, [("1x1", 0, 0), ("1x1", 0, 0)])
    assert gained == [31, 1]  # the cell is empty again, so the second 1x1 fits there


# From a mutation audit: the cells a placement's clears emptied (render and picture frames show them)

def cells_of(mask: int) -> set[tuple[int, int]]:
    """The (row, col) cells of a board mask, cell index row*10 + col (RULES.md §1)."""
    return {(i // 10, i % 10) for i in range(100) if mask >> i & 1}


def test_a_placement_reports_every_cell_its_clears_emptied_its_own_included():
    # RULES.md §1: every completed zone's non-stone cells become empty, at once, a cell in two zones
    # once. Row 0 holds a stone at col 3 and tiles but at col 9: the 1x1 there clears the row; the
    # emptied cells are the row's nine non-stone cells, the 1x1's own cell included.
    game = Game(find_variant("halloween"), parse_board(board("###S#####.")))
    result = game.apply(Placement("1x1", 0, 9))
    assert cells_of(result.cleared) == {(0, c) for c in range(10) if c != 3}
    # Row 0 and column 0 miss only (0, 0): the 1x1 there empties all 19 cells of the two lines.
    cross = board(".#########", *(["#........."] * 9))
    game = Game(find_variant("arabic"), parse_board(cross))
    result = game.apply(Placement("1x1", 0, 0))
    assert (result.lines, result.regions) == (2, 0)
    assert cells_of(result.cleared) == {(0, c) for c in range(10)} | {(r, 0) for r in range(10)}


# --- streaks -------------------------------------------------------------------

# Rows 0, 2 and 4 miss only column 9; no Sudoku region is close to complete.
THREE_ROWS = board("#########.", "", "#########.", "", "#########.")


def test_second_consecutive_sudoku_clear_is_times_one_and_a_half():
    gained, _ = replay("sudoku", THREE_ROWS, [("1x1", 0, 9), ("1x1", 2, 9), ("1x1", 4, 9)])
    assert gained == [10 + 100, 10 + 150, 10 + 200]


def test_sudoku_streak_breaks_on_a_placement_without_clear():
    gained, _ = replay("sudoku", THREE_ROWS, [("1x1", 0, 9), ("1x1", 9, 0), ("1x1", 2, 9)])
    assert gained == [110, 10, 110]


def test_sudoku_carried_in_streak_multiplies_a_region():
    start = board("#####.....", "####......")
    assert replay("sudoku", start, [("1x1", 1, 4)], streak=1)[0] == [10 + 225]
    assert replay("sudoku", start, [("1x1", 1, 4)], streak=3)[0] == [10 + 375]


def test_halloween_plus_five_streak_across_trays():
    # Placements 3 (end of turn 1) and 4 (start of turn 2) both clear.
    moves = [("1x1", 9, 0), ("1x1", 9, 1), ("1x1", 0, 9), ("1x1", 2, 9), ("1x1", 4, 9)]
    gained, game = replay("halloween", THREE_ROWS, moves)
    assert gained == [1, 1, 11, 16, 16]
    assert game.streak.run == 3


def test_halloween_streak_in_a_dealt_game_across_trays():
    game = dealt("halloween", [["1x1", "1x1", "1x1"], ["1x1", "2x2", "1x1"]], start=THREE_ROWS)
    points = [game.apply(Placement(p, r, c)).points for p, r, c in
              [("1x1", 9, 0), ("1x1", 9, 1), ("1x1", 0, 9), ("1x1", 2, 9), ("2x2", 6, 5)]]
    assert points == [1, 1, 11, 16, 4]
    assert game.tray == ["1x1"]


def test_halloween_carried_in_streak():
    assert replay("halloween", THREE_ROWS, [("1x1", 0, 9)], streak=1)[0] == [16]
    assert replay("halloween", THREE_ROWS, [("1x1", 0, 9)], streak=0)[0] == [11]


def test_arabic_flow_only_at_turn_end_and_only_after_a_clearing_turn():
    start = board(*(["#########."] * 4))
    moves = [
        ("1x1", 0, 9), ("1x1", 9, 0), ("1x1", 9, 1),  # turn 1 clears: no turn before it cleared
        ("1x1", 1, 9), ("1x1", 9, 2), ("1x1", 9, 3),  # turn 2 clears after turn 1: +50 on its last move
        ("1x1", 8, 0), ("1x1", 8, 1), ("1x1", 8, 2),  # turn 3 clears nothing
        ("1x1", 2, 9), ("1x1", 7, 0), ("1x1", 7, 1),  # turn 4 clears, turn 3 did not: no flow
        ("1x1", 7, 2), ("1x1", 3, 9), ("1x1", 7, 3),  # turn 5 clears after turn 4: +50
    ]
    gained, game = replay("arabic", start, moves)
    assert gained == [101, 1, 1, 101, 1, 51, 1, 1, 1, 101, 1, 1, 1, 101, 51]
    assert game.score == sum(gained)


def test_arabic_flow_with_a_carried_in_streak():
    start = board("#########.")
    assert replay("arabic", start, [("1x1", 0, 9), ("1x1", 9, 0), ("1x1", 9, 1)], streak=2)[0] == [101, 1, 51]
    assert replay("arabic", start, [("1x1", 0, 9), ("1x1", 9, 0), ("1x1", 9, 1)], streak=0)[0] == [101, 1, 1]


def test_arabic_flow_in_a_dealt_game_is_judged_when_the_tray_empties():
    trays = [["1x1", "1x1", "1x1"], ["1x1", "1x1"], ["1x1"]]
    game = dealt("arabic", trays, start=board("#########.", "#########."))
    moves = [("1x1", 0, 9), ("1x1", 9, 0), ("1x1", 9, 1), ("1x1", 1, 9), ("1x1", 9, 2), ("1x1", 9, 3)]
    points = [game.apply(Placement(*m)).points for m in moves]
    # trays of 3, 2 and 1 pieces: turn 2 ends on its 2nd placement, turn 3 on its 1st
    assert points == [101, 1, 1, 101, 51, 1]
    assert game.finished


def test_ending_a_turn_of_no_placements_is_an_error():
    # RULES.md §1: a turn is one tray, whose pieces are all placed; there is no turn of no placements.
    game = Game(find_variant("arabic"), parse_board(board("#########.")))
    with pytest.raises(RulesError, match="no placements"):
        game.end_turn()
    game.apply(Placement("1x1", 0, 9))  # 1 + 100, the turn's first clear
    assert game.end_turn() == 0  # the turn before did not clear: no flow
    assert game.score == 101
    with pytest.raises(RulesError, match="no placements"):
        game.end_turn()  # that turn is over; no placement since
    assert game.score == 101
    with pytest.raises(RulesError, match="tray is empty"):
        dealt("arabic", [["1x1"]]).end_turn()  # a dealt game's turn ends with its tray


# --- tokens --------------------------------------------------------------------


@pytest.mark.parametrize("piece, turns, rotated", [
    ("L3-nw", 1, "L3-ne"), ("L3-nw", 2, "L3-se"), ("L3-nw", 3, "L3-sw"),
    ("L5-se", 1, "L5-sw"), ("T4-n", 1, "T4-e"), ("T4-w", 1, "T4-n"), ("1x4", 1, "4x1"),
    ("2x3", 3, "3x2"), ("X5", 1, "X5"), ("3x3", 2, "3x3"),
])
def test_rotate_token_changes_the_tray_piece(piece, turns, rotated):
    game = dealt("arabic", [[piece, "1x1", "2x2"]], tokens=3)
    game.apply(TokenUse("rotate", piece=piece, turns=turns))
    assert game.tray == [rotated, "1x1", "2x2"]
    assert game.tokens == 2
    assert game.score == 0
    game.apply(Placement(rotated, 0, 0))  # the rotated piece is the one placed
    assert game.score == get_piece(rotated).size


def test_rotate_needs_the_piece_in_the_tray():
    game = dealt("arabic", [["1x1", "1x1", "2x2"]], tokens=3)
    with pytest.raises(RulesError):
        game.apply(TokenUse("rotate", piece="L3-nw", turns=1))
    assert game.tokens == 3


def test_remove_token_takes_one_tile():
    game = dealt("sudoku", [["1x1"]], start=board("...#P.S..."), tokens=3)
    game.apply(TokenUse("remove", row=0, col=3))
    game.apply(TokenUse("remove", row=0, col=4))
    assert game.board.text() == board("......S...")
    assert game.board.pumpkins == 0
    assert game.tokens == 1
    assert game.score == 0


def test_remove_token_refuses_a_stone_and_an_empty_cell():
    game = dealt("arabic", [["1x1"]], start=board("S#"), tokens=3)
    with pytest.raises(RulesError, match="stone"):
        game.apply(TokenUse("remove", row=0, col=0))
    with pytest.raises(RulesError):
        game.apply(TokenUse("remove", row=5, col=5))
    assert game.tokens == 3
    assert game.board.text() == board("S#")


def test_reroll_draws_the_reserve_in_order():
    game = dealt("arabic", [["1x1", "2x2", "3x3"]], reserve=["1x2", "L3-nw", "T4-s", "5x1"], tokens=3)
    game.apply(Placement("2x2", 0, 0))
    game.apply(TokenUse("reroll"))
    assert game.tray == ["1x2", "L3-nw"]  # only the pieces still in the tray are replaced
    game.apply(TokenUse("reroll"))
    assert game.tray == ["T4-s", "5x1"]
    with pytest.raises(RulesError, match="reserve"):
        game.apply(TokenUse("reroll"))  # the reserve is used up
    assert game.tokens == 1


def test_a_refused_reroll_leaves_tray_tokens_and_reserve_untouched():
    # Two pieces to replace, one reserve piece: the reroll is refused as a whole.
    game = dealt("arabic", [["3x3", "3x3"]], reserve=["1x1"], tokens=3)
    with pytest.raises(RulesError, match="reserve"):
        game.apply(TokenUse("reroll"))
    assert (game.tray, game.tokens, game.deals.reserve_left) == (["3x3", "3x3"], 3, 1)
    game.apply(Placement("3x3", 0, 0))
    game.apply(TokenUse("reroll"))  # now one piece, one reserve piece
    assert game.tray == ["1x1"]


def test_swap_and_refresh_draw_the_reserve_in_order():
    game = dealt("sudoku", [["1x1", "2x2", "3x3"]], reserve=["1x2", "L3-nw", "2x3", "5x1"], tokens=3)
    game.apply(TokenUse("swap", piece="2x2"))
    assert game.tray == ["1x1", "1x2", "3x3"]
    game.apply(TokenUse("refresh"))
    assert game.tray == ["L3-nw", "2x3", "5x1"]
    assert game.tokens == 1
    with pytest.raises(RulesError):
        game.apply(TokenUse("swap", piece="2x2"))  # swapped out already: not in the tray


def test_reroll_with_a_level_reserve():
    level = parse_level({
        "format": "tenfold.level/1", "id": "r", "variant": "arabic", "mode": "standard",
        "board": EMPTY.split("/"), "trays": [["3x3", "3x3", "3x3"]], "reserve": ["1x1", "1x2", "1x3"],
        "goals": [{"place_all": True}],
    })
    game = level.new_game()
    game.apply(TokenUse("reroll"))
    assert game.tray == ["1x1", "1x2", "1x3"]


@pytest.mark.parametrize("variant, token", [
    ("halloween", TokenUse("remove", row=0, col=0)), ("halloween", TokenUse("rotate", piece="1x1", turns=1)),
    ("arabic", TokenUse("swap", piece="1x1")), ("arabic", TokenUse("refresh")),
    ("sudoku", TokenUse("rotate", piece="1x1", turns=1)), ("sudoku", TokenUse("reroll")),
])
def test_a_token_the_variant_lacks_is_an_error(variant, token):
    game = dealt(variant, [["1x1", "1x1", "1x1"]], reserve=["2x2"] * 3, start=board("#"), tokens=3)
    with pytest.raises(RulesError, match="token"):
        game.apply(token)
    assert game.tokens == 3


def test_no_tokens_left_is_an_error():
    game = dealt("arabic", [["1x1", "1x1", "1x1"]], start=board("####"), tokens=2)
    game.apply(TokenUse("remove", row=0, col=0))
    game.apply(TokenUse("remove", row=0, col=1))
    with pytest.raises(RulesError, match="no tokens"):
        game.apply(TokenUse("remove", row=0, col=2))
    assert game.board.text() == board("..##")


def test_end_of_game_token_bonus():
    arabic = dealt("arabic", [["3x3"]], tokens=3)
    arabic.apply(Placement("3x3", 0, 0))
    assert (arabic.score, arabic.final_score) == (9, 9 + 300)
    sudoku = dealt("sudoku", [["3x3"]], start=board("#"), tokens=3)
    sudoku.apply(TokenUse("remove", row=0, col=0))
    sudoku.apply(Placement("3x3", 0, 0))
    assert (sudoku.score, sudoku.final_score) == (90, 90 + 2 * 200)
    halloween = dealt("halloween", [["3x3"]])
    halloween.apply(Placement("3x3", 0, 0))
    assert halloween.final_score == 9


def test_level_score_counts_tokens_left():
    level = parse_level({
        "format": "tenfold.level/1", "id": "t", "variant": "sudoku", "mode": "classic",
        "board": EMPTY.split("/"), "trays": [["2x2"]], "goals": [{"score": 640}],
        "solution": [{"piece": "2x2", "row": 0, "col": 0}],
    })
    assert level.tokens == 3  # the mode's default
    result = play_solution(level, level.solution)
    assert result.ok and result.score == 40 + 600


# --- game over -----------------------------------------------------------------

# Every row and column has an empty cell; empties in a row are at least 4 apart,
# so no horizontal bar of 3 fits even after one tile is removed, but (0..2, 0)
# is a vertical run of 3.
GAPPY = "/".join(
    "".join("." if c in cols else "#" for c in range(10))
    for cols in [(0, 4, 8)] * 3 + [(1, 5, 9)] * 3 + [(2, 6)] * 3 + [(3, 7)]
)


def test_game_over_when_nothing_in_the_tray_fits():
    game = dealt("halloween", [["1x3", "3x3"]], start=GAPPY)
    assert game.fitting_pieces() == []
    assert game.is_over


def test_placing_two_and_stuck_with_the_third_is_game_over():
    game = dealt("halloween", [["1x1", "1x1", "1x3"]], start=GAPPY)
    assert not game.is_over
    game.apply(Placement("1x1", 0, 4))
    assert not game.is_over
    game.apply(Placement("1x1", 1, 4))
    assert game.tray == ["1x3"]
    assert game.is_over


def test_rotate_token_keeps_an_arabic_game_alive():
    game = dealt("arabic", [["1x3"]], start=GAPPY, tokens=1)
    assert game.fitting_pieces() == []
    assert not game.is_over
    game.apply(TokenUse("rotate", piece="1x3", turns=1))
    assert game.fitting_pieces() == ["3x1"]
    assert dealt("arabic", [["1x3"]], start=GAPPY, tokens=0).is_over


def test_remove_tokens_keep_a_game_alive_while_enough_removals_free_a_spot():
    # RULES.md §1: the game ends when no piece can be placed "after any token use the variant
    # allows": a 2x2 on a checkerboard covers two tiles, so two Clear-Space tokens free a spot
    checker = "/".join(("#." * 5) if r % 2 == 0 else (".#" * 5) for r in range(10))
    assert not dealt("sudoku", [["1x2"]], start=checker, tokens=1).is_over  # remove one tile: 1x2 fits
    assert dealt("sudoku", [["1x2"]], start=checker, tokens=0).is_over
    assert not dealt("sudoku", [["2x2"]], start=checker, tokens=2).is_over  # two removals
    assert dealt("sudoku", [["2x2"]], start=checker, tokens=1).is_over  # no reserve, one is not enough
    assert not dealt("sudoku", [["2x2"]], reserve=["1x1"], start=checker, tokens=1).is_over  # swap helps
    assert dealt("sudoku", [["3x3"]], start=checker, tokens=3).is_over  # a 3x3 covers four tiles or five
    assert not dealt("sudoku", [["3x3"]], start=checker, tokens=4).is_over


def test_a_turn_and_a_removal_together_keep_an_arabic_game_alive():
    # the even rows hold ". . # ." (cols 1-4): a 1x4 there covers one tile; every four cells down
    # hold two tiles or more, so a 4x1 needs a turn and then that removal
    gappy = ("#..#.#.##./.######.##/#..#.#.##./#####.#.##/#..#.#.##./"
             "###.######/#..#.#.##./#######..#/#..#.#.##./.#######.#")
    assert dealt("arabic", [["4x1"]], start=gappy, tokens=1).is_over
    assert not dealt("arabic", [["4x1"]], start=gappy, tokens=2).is_over
    assert not dealt("arabic", [["1x4"]], start=gappy, tokens=1).is_over


def test_dealt_game_ends_when_the_trays_run_out():
    game = dealt("halloween", [["1x1"]])
    game.apply(Placement("1x1", 0, 0))
    assert game.finished and not game.is_over
    with pytest.raises(RulesError, match="not in the tray"):
        game.apply(Placement("1x1", 5, 5))


def test_halloween_ranks():
    halloween = find_variant("halloween")
    assert [halloween.rank(s) for s in (0, 999, 1000, 2499, 2500, 4999, 5000, 9999, 10000, 10**6)] == [
        "Frightened Novice", "Frightened Novice", "Pumpkin Carver", "Pumpkin Carver",
        "Graveyard Operator", "Graveyard Operator", "Wicked Sorcerer", "Wicked Sorcerer",
        "Supreme Halloween Grandmaster", "Supreme Halloween Grandmaster",
    ]


# The board is full of tiles but for an L5-shaped hole at rows 3-5, cols 3-5. An L5-nw (###/#../#..)
# covers at least two tiles wherever it lies (so one removal cannot make room), as does every turn of
# it but the one whose shape is the hole.
L5_SE_HOLE = "/".join(["#" * 10] * 3 + ["#####.####", "#####.####", "###...####"] + ["#" * 10] * 4)  # ..#/..#/###
L5_SW_HOLE = "/".join(["#" * 10] * 3 + ["###.######", "###.######", "###...####"] + ["#" * 10] * 4)  # #../#../###


@pytest.mark.parametrize("hole, shape, turns", [(L5_SE_HOLE, "L5-se", 2), (L5_SW_HOLE, "L5-sw", 3)])
def test_one_rotate_token_turns_a_piece_180_or_270_degrees_and_keeps_the_game_alive(hole, shape, turns):
    # RULES.md §1 (Arabic): an ink token rotates the piece "by 90, 180 or 270 degrees", one token a use;
    # the game ends only when no piece can be placed after any token use the variant allows.
    game = dealt("arabic", [["L5-nw"]], start=hole, tokens=1)
    assert game.fitting_pieces() == []
    assert not game.is_over  # one token: L5-nw -> L5-se is a half turn, L5-nw -> L5-sw three quarters
    game.apply(TokenUse("rotate", piece="L5-nw", turns=turns))
    assert game.tray == [shape] and game.fitting_pieces() == [shape] and game.tokens == 0
    game.apply(Placement(shape, 3, 3))
    assert game.finished
    # without the token, nothing fits and nothing helps
    assert dealt("arabic", [["L5-nw"]], start=hole, tokens=0).is_over


# --- pieces --------------------------------------------------------------------

CYCLES = [
    ["L3-nw", "L3-ne", "L3-se", "L3-sw"],
    ["L5-nw", "L5-ne", "L5-se", "L5-sw"],
    ["T4-n", "T4-e", "T4-s", "T4-w"],
    ["1x2", "2x1"], ["1x3", "3x1"], ["1x4", "4x1"], ["1x5", "5x1"],
    ["2x3", "3x2"], ["1x1"], ["2x2"], ["3x3"], ["X5"],
]


@pytest.mark.parametrize("cycle", CYCLES, ids=[c[0] for c in CYCLES])
def test_rotation_cycles(cycle):
    for i, pid in enumerate(cycle):
        for turns in range(4):
            assert rotate_cw(get_piece(pid), turns).id == cycle[(i + turns) % len(cycle)]


def test_every_canonical_piece_is_in_one_cycle():
    assert sorted(p for c in CYCLES for p in c) == sorted(CANONICAL_IDS)


@pytest.mark.parametrize("pid, rows", [
    ("L3-nw", "##/#."), ("L5-se", "..#/..#/###"), ("T4-e", "#./##/#."), ("X5", ".#./###/.#."),
    ("2x3", "###/###"), ("5x1", "#/#/#/#/#"), ("1x5", "#####"),
])
def test_piece_shapes(pid, rows):
    assert get_piece(pid).mask_text == rows
    assert get_piece(rows).id == pid  # a mask of a canonical shape is that piece


def test_custom_mask_pieces():
    s = get_piece("#./##/.#")
    assert (s.size, s.height, s.width) == (4, 3, 2)
    assert rotate_cw(s, 1).id == ".##/##."
    assert rotate_cw(s, 2).id == "#./##/.#"
    u = get_piece("#.#/###")
    assert rotate_cw(u, 2).id == "###/#.#"
    gained, game = replay("halloween", board(".#.######."), [("#.#/###", 0, 0), ("1x1", 0, 9)])
    assert gained == [5, 11]
    assert game.board.text() == board("", "###")


@pytest.mark.parametrize("bad", ["", "#/##", "#x#", "....", "2x9"])
def test_bad_piece_ids(bad):
    with pytest.raises(TenfoldError):
        get_piece(bad)


def test_custom_piece_in_a_level_tray_can_be_rotated():
    game = dealt("arabic", [["#./##/.#"]], tokens=1)
    game.apply(TokenUse("rotate", piece="#./##/.#", turns=1))
    assert game.tray == [".##/##."]
    game.apply(Placement(".##/##.", 0, 0))
    assert game.board.text() == board(".##", "##.")


def test_a_bad_character_in_a_mask_is_named_by_its_row_and_column():
    # A level may define pieces as #/. masks (RULES.md §1); a reader names what is wrong (§3), and a
    # mask is read as board text is: row first (between '/'), then column, both from 0.
    with pytest.raises(RulesError, match=r"^piece '##x/###': row 0, column 2: expected '#' or '\.', found 'x'$"):
        get_piece("##x/###")
    with pytest.raises(RulesError, match=r"row 1, column 0: expected '#' or '\.', found 'o'$"):
        get_piece("###/o##")


@pytest.mark.parametrize("mask", ["....", ".", "../.."])
def test_a_mask_of_dots_alone_is_refused_as_a_mask_without_tiles(mask):
    with pytest.raises(RulesError, match=r"a mask needs at least one '#'"):
        get_piece(mask)
