"""Invariants of the move applier, the board text and the deals (hypothesis).

Zones and supply weights come from tests/reference_rules.py (typed from
RULES.md), not from the engine's own tables.
"""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import reference_rules as ref
from solver.errors import RulesError
from solver.board import Board, parse_board
from solver.deals import RandomDeals
from solver.engine import Game, Streak
from solver.moves import Placement, parse_move
from solver.pieces import CANONICAL_IDS, get_piece, placement_mask
from solver.variants import find_variant

VARIANTS = ("halloween", "arabic", "sudoku")
PROFILE = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _bit(r: int, c: int) -> int:
    return 1 << (r * 10 + c)


ZONE_MASKS = {
    v: [sum(_bit(r, c) for r, c in cells) for _, cells in ref.zones(v)] for v in VARIANTS
}


@st.composite
def boards(draw, variant: str = "sudoku") -> str:
    """Random board text: 0-70% full, stones, pumpkins, a few nearly complete zones."""
    density = draw(st.floats(0.0, 0.7))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    grid = [[rng.choices("#P", (9, 1))[0] if rng.random() < density else "." for _ in range(10)]
            for _ in range(10)]
    zones = [cells for _, cells in ref.zones(variant)]
    for _ in range(draw(st.integers(0, 4))):
        zone = rng.choice(zones)
        gap = set(rng.sample(zone, rng.randint(1, 2)))
        for r, c in zone:
            grid[r][c] = "." if (r, c) in gap else (grid[r][c] if grid[r][c] != "." else "#")
    for _ in range(draw(st.integers(0, 6))):
        grid[rng.randrange(10)][rng.randrange(10)] = "S"
    return ref.grid_text(grid)


def _completes_zone(zones, occupied: int) -> bool:
    return any(occupied & z == z for z in zones)


@st.composite
def scenarios(draw):
    """(variant, board text, streak, legal move list)."""
    variant = draw(st.sampled_from(VARIANTS))
    text = draw(boards(variant))
    streak = draw(st.integers(0, 4))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    occupied = parse_board(text).occupied
    game = Game(find_variant(variant), parse_board(text), Streak.carried_in(streak))
    zones = ZONE_MASKS[variant]
    moves = []
    for _ in range(draw(st.integers(1, 10))):
        pieces = rng.sample(CANONICAL_IDS, len(CANONICAL_IDS))
        want_clear = rng.random() < 0.5  # then prefer a placement that completes a zone
        move = fallback = None
        for pid in pieces:
            piece = get_piece(pid)
            spots = [(r, c) for r in range(11 - piece.height) for c in range(11 - piece.width)
                     if not placement_mask(pid, r, c) & occupied]
            if not spots:
                continue
            if fallback is None:
                fallback = Placement(pid, *rng.choice(spots))
            if not want_clear:
                break
            clearing = [s for s in spots if _completes_zone(zones, occupied | placement_mask(pid, *s))]
            if clearing:
                move = Placement(pid, *rng.choice(clearing))
                break
        move = move or fallback
        if move is None:
            break
        game.apply(move)
        occupied = game.board.occupied
        moves.append(move)
    return variant, text, streak, moves


@PROFILE
@given(scenarios())
def test_placement_invariants(scenario):
    variant, text, streak, moves = scenario
    game = Game(find_variant(variant), parse_board(text), Streak.carried_in(streak))
    stones = game.board.stones
    for move in moves:
        before = game.board
        mask = placement_mask(move.piece, move.row, move.col)
        result = game.apply(move)
        after = game.board
        # stones never move
        assert after.stones == stones
        # the piece went on empty cells; what disappeared is exactly the complete zones
        assert not mask & before.occupied
        placed = before.filled | mask
        complete = [z for z in ZONE_MASKS[variant] if (placed | stones) & z == z and z & ~stones]
        union = 0
        for z in complete:
            union |= z
        cleared = placed & ~after.filled
        assert cleared == union & ~stones
        assert after.filled & ~placed == 0  # nothing appears from nowhere
        # cells conserved
        assert after.filled.bit_count() == before.filled.bit_count() + get_piece(move.piece).size - cleared.bit_count()
        # no complete zone is left standing
        assert not any((after.occupied & z) == z and z & ~stones for z in ZONE_MASKS[variant])
        # pumpkins only ever disappear
        assert after.pumpkins & ~before.pumpkins == 0
        assert after.pumpkins & ~after.filled == 0
        # points at least the cell points; more exactly when zones were cleared
        cell_points = ref.CELL_POINTS[variant] * get_piece(move.piece).size
        assert result.points >= cell_points
        assert (result.lines + result.regions) == len(complete)
        if complete:
            assert result.points > cell_points
        event(f"zones cleared by one placement: {min(len(complete), 3)}")


@PROFILE
@given(scenarios())
def test_replay_is_deterministic(scenario):
    variant, text, streak, moves = scenario
    runs = []
    for _ in range(2):
        game = Game(find_variant(variant), parse_board(text), Streak.carried_in(streak))
        points = [game.apply(parse_move(m.to_json())).points for m in moves]
        runs.append((points, game.score, game.board.text(), game.streak))
    assert runs[0] == runs[1]


@PROFILE
@given(scenarios())
def test_engine_agrees_with_reference_on_hypothesis_cases(scenario):
    variant, text, streak, moves = scenario
    game = Game(find_variant(variant), parse_board(text), Streak.carried_in(streak))
    expected = ref.RefGame(variant, text, streak)
    for m in moves:
        assert game.apply(m).points == expected.place(m.piece, m.row, m.col)
    assert game.board.text() == expected.text
    assert game.streak.run == expected.run


@PROFILE
@given(boards())
def test_board_text_round_trips(text):
    board = parse_board(text)
    assert board.text() == text
    assert parse_board(str(board)) == board  # newline form
    assert parse_board(board.rows()) == board  # list-of-rows form
    assert parse_board("\n" + str(board) + "\n") == board
    assert board.filled & board.stones == 0
    assert board.pumpkins & ~board.filled == 0
    assert board.filled.bit_count() + board.stones.bit_count() == 100 - text.count(".")


@pytest.mark.parametrize("seed", range(40))
def test_board_rows_and_parsing_read_each_cell_as_char_at_does(seed):
    """``Board.rows`` and ``parse_board`` work a row at a time (a big pack's loading and writing
    spent much of their time cell by cell): held to ``char_at``, the cell-by-cell definition,
    and to a cell-by-cell reading, on seeded random boards of every density."""
    rng = random.Random(seed)
    for _ in range(25):
        kinds = [rng.choices(".#SP", weights=[rng.random() for _ in range(4)])[0] for _ in range(100)]
        board = Board(filled=sum(1 << i for i, k in enumerate(kinds) if k in "#P"),
                      stones=sum(1 << i for i, k in enumerate(kinds) if k == "S"),
                      pumpkins=sum(1 << i for i, k in enumerate(kinds) if k == "P"))
        rows = board.rows()
        assert rows == ["".join(board.char_at(r, c) for c in range(10)) for r in range(10)]
        assert rows == ["".join(kinds[r * 10:r * 10 + 10]) for r in range(10)]
        assert parse_board(rows) == board


def test_board_round_trip_of_every_character():
    text = "/".join((".#SP" * 6)[r:r + 10] for r in range(10))
    assert parse_board(text).text() == text
    assert Board().text() == "/".join(["." * 10] * 10)


def _neighbours(r: int, c: int) -> list[tuple[int, int]]:
    return [(r + dr, c + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)) if 0 <= r + dr < 10 and 0 <= c + dc < 10]


@PROFILE
@given(st.integers(0, (1 << 100) - 1), st.floats(0.0, 1.0), st.integers(0, 2**32 - 1))
def test_bitboard_cells_neighbours_and_isolated_cells_are_the_cell_by_cell_ones(bits, density, seed):
    """``solver.bitboard`` held to a cell-by-cell reading of RULES.md's coordinates (cell
    row*10 + col): the set cells in index order, each once; the cells edge-adjacent to a set
    (no wrap from column 9 to the next row's column 0, nothing past the board); and the empty
    cells with no empty edge-neighbour. On uniform bit patterns and on sparse and dense ones."""
    from solver.bitboard import bb_cell, cell_col, cell_index, cell_row, isolated_empty, scan_cells, spread

    rng = random.Random(seed)
    sparse = sum(_bit(r, c) for r in range(10) for c in range(10) if rng.random() < density)
    for bb in (bits, sparse, (1 << 100) - 1 - sparse):
        cells = [(r, c) for r in range(10) for c in range(10) if bb & _bit(r, c)]
        assert list(scan_cells(bb)) == [r * 10 + c for r, c in cells]
        assert [(cell_row(i), cell_col(i)) for i in scan_cells(bb)] == cells
        assert all(cell_index(r, c) == r * 10 + c and bb_cell(r, c) == _bit(r, c) for r, c in cells)
        assert spread(bb) == sum({_bit(*n) for r, c in cells for n in _neighbours(r, c)})
        empty = {(r, c) for r in range(10) for c in range(10)} - set(cells)
        assert isolated_empty(bb) == sum(1 for r, c in empty if not any(n in empty for n in _neighbours(r, c)))


@pytest.mark.parametrize("name", VARIANTS)
def test_the_streak_runs_a_variant_tells_apart_are_the_reference_scorings(name):
    """``Variant.run_key``, the run every search keys its states on (tray, campaign, compiled),
    loses nothing the reference's clear points read, and keeps nothing they do not: runs past
    ``runs_told_apart`` score as it does, one run shorter scores less somewhere (Halloween tells
    0 and 1 apart, Arabic nothing, Sudoku every run)."""
    variant = find_variant(name)
    every = [(lines, regions) for lines in range(21) for regions in range(21 if variant.regions else 1)]

    def scores(run):
        return [ref.clear_points(name, lines, regions, run) for lines, regions in every]

    for run in range(40):
        assert scores(run) == scores(variant.run_key(run)), run
    told = variant.runs_told_apart
    shorter = range(told) if told < 40 else range(39)
    assert all(scores(run) != scores(run + 1) for run in shorter)
    assert {"halloween": told == 1, "arabic": told == 0, "sudoku": told >= 40}[name]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 2**64))
def test_seeded_deals_are_identical_for_the_same_seed(variant, seed):
    a, b = RandomDeals(find_variant(variant), seed), RandomDeals(find_variant(variant), seed)
    trays_a = [a.next_tray() for _ in range(30)]
    assert trays_a == [b.next_tray() for _ in range(30)]
    assert all(len(t) == 3 for t in trays_a)
    assert {p for t in trays_a for p in t} <= set(ref.shape_probabilities(variant))


def _deal(variant: str, seed: int, count: int) -> list[str]:
    deals = RandomDeals(find_variant(variant), seed)
    return [deals.next_piece() for _ in range(count)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_different_seeds_give_different_deals(variant):
    assert len({tuple(_deal(variant, seed, 10)) for seed in range(20)}) == 20


def test_trays_come_from_the_piece_stream():
    deals, pieces = RandomDeals(find_variant("arabic"), 7), RandomDeals(find_variant("arabic"), 7)
    assert [p for _ in range(5) for p in deals.next_tray()] == [pieces.next_piece() for _ in range(15)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_deal_distribution_matches_supply_weights(variant):
    draws = 20_000
    counts = Counter(_deal(variant, 12345, draws))
    probs = ref.shape_probabilities(variant)
    assert set(counts) == set(probs)  # every shape of the supply turns up, nothing else
    chi2 = 0.0
    for shape, p in probs.items():
        expected = draws * p
        sigma = math.sqrt(draws * p * (1 - p))
        assert abs(counts[shape] - expected) < 5 * sigma, (shape, counts[shape], expected)
        chi2 += (counts[shape] - expected) ** 2 / expected
    dof = len(probs) - 1
    # far beyond the 99.9th percentile of chi-square with this many degrees of freedom
    assert chi2 < dof + 6 * math.sqrt(2 * dof) + 10, chi2


@pytest.mark.parametrize("name", VARIANTS)
def test_points_now_is_what_apply_scores(name):
    """``Game.points_now`` (the greedy policy's measure) gives the board and the points ``apply``
    then scores, flow bonus at a turn's end included, along seeded games of random placements
    (a mutation audit dropped its flow bonus unnoticed)."""
    from solver.engine import copy_game
    from solver.pieces import placements

    variant = find_variant(name)
    rng = random.Random(f"points-now-{name}")
    checked = bonuses = 0
    for game_seed in range(12):
        game = Game.dealt(variant, RandomDeals(variant, game_seed))
        for _ in range(90):
            spots = [(p, s) for p in dict.fromkeys(game.tray) for s in placements(p)
                     if not s.mask & game.board.occupied]
            if not spots:
                break
            if rng.random() < 0.8:  # mostly the most points now, so that turns clear in a row
                piece, spot = max(spots, key=lambda ps: game.points_now(ps[1].mask)[1])
            else:
                piece, spot = rng.choice(spots)
            predicted = game.points_now(spot.mask)
            twin = copy_game(game)
            result = twin.apply(Placement(piece, spot.row, spot.col))
            assert predicted == (twin.board.filled, result.points)
            checked += 1
            bonuses += result.turn_bonus > 0
            game = twin
    assert checked >= 300 and (bonuses >= 3 or not variant.flow_bonus)


@pytest.mark.parametrize("row,col", [(0, 10), (10, 0), (-1, 3), (3, -1)])
def test_a_removal_off_the_board_is_refused(row, col):
    """Not a cell: no tile elsewhere is taken instead (col 10 of row 0 is bit 10, the first cell
    of row 1, which holds a tile here)."""
    from solver.moves import TokenUse

    game = Game(find_variant("arabic"), parse_board(["." * 10, "#" * 10] + ["." * 10] * 8), tokens=1)
    with pytest.raises(RulesError, match=f"remove at row {row}, col {col}: not a cell of the board"):
        game.apply(TokenUse("remove", row=row, col=col))
    assert game.tokens == 1 and game.board.rows()[1] == "#" * 10


# RULES.md §1, Halloween's supply as the rulebook groups it ("uniform over shapes": a group
# weighs its shape count); Arabic's and Sudoku's are reference_rules' SUPPLY, in the rulebook's order
HALLOWEEN_GROUPS = [["1x1"], ["1x2", "2x1", "1x3", "3x1"], ["1x4", "4x1", "1x5", "5x1"], ["2x2", "3x3"],
                    ref.L_ALL, ref.T_ALL + ["X5"]]


def _rulebook_draws(variant: str, seed: int, count: int) -> list[str]:
    """The rulebook's draw on Python's Mersenne Twister seeded with the int (solver/deals.py's
    contract): ``random()`` times the total weight picks the group, ``randrange`` the shape in it."""
    groups = [(len(g), g) for g in HALLOWEEN_GROUPS] if variant == "halloween" else ref.SUPPLY[variant]
    rng = random.Random(seed)
    total = sum(weight for weight, _ in groups)
    out = []
    for _ in range(count):
        roll = rng.random() * total
        for weight, shapes in groups:
            if roll < weight:
                break
            roll -= weight
        out.append(shapes[rng.randrange(len(shapes))])
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_seeds_deals_are_the_rulebook_draw_on_the_mersenne_twister(variant):
    """A seed's deals are one stream for good, not just one distribution: a game saved by ``play``
    replays with ``replay --seed`` (docs/cli.md) on any machine and any later version."""
    assert sorted(shape for group in HALLOWEEN_GROUPS for shape in group) == sorted(ref.HALLOWEEN_SHAPES)
    for seed in (0, 1, 12345, 2**40 + 7):
        assert _deal(variant, seed, 300) == _rulebook_draws(variant, seed, 300), seed
