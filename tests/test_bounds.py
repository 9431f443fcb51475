"""The campaign search's admissible bounds (``solver.bounds``) against play and brute force.

The emptied-cells budget rests on two facts, both checked on seeded games
played through the one move applier (``Game.apply``): a placement clearing
``n`` zones empties at least ``event_costs[n]`` cells, and a line of play
never scores more clear points than ``events_bound`` (or the whole
``clear_points_bound``) allows from its starting board. The table behind
``events_bound`` is checked against a brute-force enumeration of every
choice of event sizes.
"""

from __future__ import annotations

import itertools
import random

import pytest

from solver.board import Board
from solver.bounds import (clear_points_bound, completions_bound, concentrated_points, event_costs, events_bound,
                           paying_zones, reachable_pieces, zones_per_piece)
from solver.deals import RandomDeals
from solver.engine import Game, settle
from solver.moves import Placement
from solver.pieces import get_piece, placements
from solver.variants import find_variant

from random_boards import dress

LINE_VARIANTS = ("halloween", "arabic")


def _dense_board(rng: random.Random, variant) -> Board:
    density = rng.uniform(0.15, 0.55)
    grid = [["#" if rng.random() < density else "." for _ in range(10)] for _ in range(10)]
    dress(rng, variant, grid, zones=(2, 6), stones=(0, 1, 2, 4), pumpkins=(0,))
    filled = stones = 0
    for r in range(10):
        for c in range(10):
            bit = 1 << (r * 10 + c)
            if grid[r][c] == "#":
                filled |= bit
            elif grid[r][c] == "S":
                stones |= bit
    for zone in variant.zones:  # no zone starts complete
        if (filled | stones) & zone == zone and zone & filled:
            filled &= ~(zone & filled & -(zone & filled))
    return Board(filled, stones, 0)


def _play(rng: random.Random, variant, board: Board, pieces: list[str]):
    """Place the pieces in order, mostly where they clear the most zones, through the engine;
    yields (lines cleared, cells emptied, clear points) per placement; stops when stuck."""
    game = Game(variant, board)
    for piece in pieces:
        occupied = game.board.occupied
        fits = [s for s in placements(piece) if not s.mask & occupied]
        if not fits:
            return
        if rng.random() < 0.8:
            def clears(spot):
                return settle(variant, game.board.filled, game.board.stones, spot.mask)[1]
            most = max(clears(s) for s in fits)
            fits = [s for s in fits if clears(s) == most]
        spot = rng.choice(fits)
        before = game.board.filled | spot.mask
        result = game.apply(Placement(piece, spot.row, spot.col))
        emptied = before.bit_count() - game.board.filled.bit_count()
        clear_points = result.points - result.turn_bonus - get_piece(piece).size * variant.cell_points
        yield result.lines + result.regions, emptied, clear_points


@pytest.mark.parametrize("name", LINE_VARIANTS)
def test_clears_empty_at_least_the_event_cost_and_stay_within_the_bounds(name):
    variant = find_variant(name)
    multi = checked = 0
    for seed in range(300):
        rng = random.Random(f"events-{name}-{seed}")
        board = _dense_board(rng, variant)
        deals = RandomDeals(variant, seed)
        pieces = [deals.next_piece() for _ in range(rng.choice((3, 6, 9, 12)))]
        costs = event_costs(variant, board.stones.bit_count())
        gained = 0
        played = []
        for (lines, emptied, clear_points), piece in zip(_play(rng, variant, board, pieces), pieces):
            assert emptied >= costs[lines][1], f"seed {seed}: {lines} zones emptied {emptied} cells"
            assert clear_points <= costs[lines][0]
            multi += lines >= 2
            gained += clear_points
            played.append(piece)
        if not played:
            continue
        cells = sum(get_piece(p).size for p in played)
        completions = completions_bound(variant, board.filled, board.stones, cells)
        caps = tuple(zones_per_piece(variant, p) for p in played)
        budget = events_bound(variant, caps, board.stones.bit_count(), completions,
                              board.filled.bit_count() + cells)
        assert gained <= budget, f"seed {seed}"
        assert gained <= clear_points_bound(variant, board.filled, board.stones, played, 0)
        # a placement limit: the played pieces among more that were never placed (the emptied
        # budget applies with fewer placements than pieces, and any of them may be the ones)
        unplayed = [deals.next_piece() for _ in range(rng.randint(1, 6))]
        more = rng.sample(played + unplayed, len(played) + len(unplayed))
        assert gained <= clear_points_bound(variant, board.filled, board.stones, more, 0, count=len(played))
        checked += 1
    assert checked >= 250 and multi >= 5


def _stony_board(rng: random.Random, variant) -> Board:
    """A board where a few zones hold many stones (so refilling one after its clear costs few
    cells), their other cells partly filled, and sparse tiles elsewhere."""
    stones = filled = 0
    for zone in rng.sample(variant.zones, rng.randint(1, 3)):
        cells = [c for c in range(100) if zone >> c & 1]
        rng.shuffle(cells)
        k = rng.randint(4, 9)
        stones |= sum(1 << c for c in cells[:k])
        filled |= sum(1 << c for c in cells[k:] if rng.random() < 0.5)
    filled |= sum(1 << c for c in range(100) if rng.random() < 0.1)
    filled &= ~stones
    for zone in variant.zones:  # no zone starts complete
        if (filled | stones) & zone == zone and zone & filled:
            filled &= ~(zone & filled & -(zone & filled))
    return Board(filled, stones, 0)


def _refill_cheapest(variant, game: Game, piece: str):
    """A spot for ``piece`` that completes a zone, else one inside the zone closest to complete."""
    occupied = game.board.occupied
    fits = [s for s in placements(piece) if not s.mask & occupied]
    if not fits:
        return None
    def missing(spot):
        after = occupied | spot.mask
        gaps = [(z & ~after).bit_count() for z in variant.zones if z & spot.mask]
        return min(gaps) if gaps else 99
    return min(fits, key=missing)


@pytest.mark.parametrize("name", ("halloween", "arabic", "sudoku"))
def test_zones_completed_again_and_again_stay_within_the_bounds(name):
    """Zones of many stones refill in a few cells after each clear, so small pieces complete
    them again and again (a row of eight stones: once per two cells), sooner than other zones
    complete once. Played through the engine, the completions and clear points of every prefix
    of the line stay within ``completions_bound`` and ``clear_points_bound``."""
    variant = find_variant(name)
    again = 0
    for seed in range(200):
        rng = random.Random(f"refill-{name}-{seed}")
        board = _stony_board(rng, variant)
        game = Game(variant, board)
        pieces = [rng.choice(("1x1", "1x1", "1x2", "2x1")) for _ in range(rng.randint(3, 12))]
        placed: list[str] = []
        completions = gained = 0
        cleared = {}
        for piece in pieces:
            spot = _refill_cheapest(variant, game, piece)
            if spot is None:
                break
            full = [z for z in variant.zones if (game.board.occupied | spot.mask) & z == z]
            result = game.apply(Placement(piece, spot.row, spot.col))
            placed.append(piece)
            completions += result.lines + result.regions
            gained += result.points - result.turn_bonus - get_piece(piece).size * variant.cell_points
            for z in full:
                cleared[z] = cleared.get(z, 0) + 1
            cells = sum(get_piece(p).size for p in placed)
            assert completions <= completions_bound(variant, board.filled, board.stones, cells), f"seed {seed}"
            assert gained <= clear_points_bound(variant, board.filled, board.stones, placed, 0), f"seed {seed}"
        again += any(n >= 2 for n in cleared.values())
    assert again >= 100  # most lines complete some zone more than once


def _strip_board(rng: random.Random) -> Board:
    """One to three open rows on a board of stones, with stones and gaps in them: the columns
    across the strip without a gap are complete."""
    stones = filled = 0
    open_rows = rng.randint(1, 3)
    for cell in range(100):
        draw = rng.random()
        if cell >= 10 * open_rows or draw < 0.1:
            stones |= 1 << cell
        elif draw > 0.35:
            filled |= 1 << cell
    return Board(filled, stones, 0)


@pytest.mark.parametrize("name", ("halloween", "arabic", "sudoku"))
def test_zones_complete_from_the_start_stay_within_the_bound(name):
    """Boards holding complete zones, which the first placement clears wherever it goes: the
    first piece is any of them (often a small one), the rest go where they clear the most,
    through the engine. The clear points stay within ``clear_points_bound(full_scan=True)``.
    In Arabic, where five zones pay what four do, a small first piece carrying the complete
    zones leaves the large one its own: the bound must not hand them to the largest piece."""
    variant = find_variant(name)
    checked = 0
    for seed in range(400):
        rng = random.Random(f"full-{name}-{seed}")
        board = _strip_board(rng)
        deals = RandomDeals(variant, seed)
        pieces = [rng.choice(("1x1", "1x2", "2x1"))] + [deals.next_piece() for _ in range(rng.randint(1, 3))]
        game = Game(variant, board)
        gained = 0
        played = []
        for i, piece in enumerate(pieces):
            occupied = game.board.occupied
            fits = [sp for sp in placements(piece) if not sp.mask & occupied]
            if not fits:
                break
            if i > 0:
                def clears(spot):
                    return settle(variant, game.board.filled, game.board.stones, spot.mask)[1]
                most = max(clears(sp) for sp in fits)
                fits = [sp for sp in fits if clears(sp) == most]
            spot = rng.choice(fits)
            result = game.apply(Placement(piece, spot.row, spot.col))
            gained += result.points - result.turn_bonus - get_piece(piece).size * variant.cell_points
            played.append(piece)
            assert gained <= clear_points_bound(variant, board.filled, board.stones, played, 0, full_scan=True), \
                f"seed {seed}: {played}"
        checked += len(played) >= 2
    assert checked >= 120  # lines of two placements or more


@pytest.mark.parametrize("name", ("halloween", "arabic", "sudoku"))
def test_concentrated_points_is_the_best_spread_of_completions(name):
    """Against every spread of the completions over the placements (each within its cap, any
    mix of lines and regions): the bound's spread, largest caps first, is the best one. Arabic
    pays 4 zones' points for more, so there a cap of 6 must not take 6 of 8 completions."""
    variant = find_variant(name)
    most = len(variant.zones)
    rng = random.Random(f"spread-{name}")

    def event(z, run):
        return max(variant.clear_points(lines, z - lines, run) for lines in range(z + 1)
                   if lines <= len(variant.lines) and z - lines <= len(variant.regions))

    for _ in range(300):
        caps = [rng.randint(1, 8) for _ in range(rng.randint(1, 4))]
        completions = rng.randint(0, sum(caps) + 2)
        run = rng.choice((0, 1, 2, 5))
        best = max(sum(event(z, run) for z in spread)
                   for spread in itertools.product(*(range(min(c, most) + 1) for c in caps))
                   if sum(spread) <= completions)
        assert concentrated_points(variant, caps, completions, run) == best, (caps, completions, run)
    # RULES.md: Arabic pays 1,200 for four zones and for more; the others grow to every zone.
    assert paying_zones(variant, 1) == {"arabic": 4}.get(name, most)
    if name == "arabic":  # two placements of four zones beat six and two
        assert concentrated_points(variant, [6, 6], 8, 0) == 2400


def test_reachable_pieces_stop_at_the_tray_the_limit_falls_in():
    trays = [("1x1", "2x2", "3x3"), ("1x2", "1x3", "1x4"), ("X5", "T4-n", "L3-nw")]
    # 2 placements left in the current tray's 3: that tray alone, and it cannot end
    assert reachable_pieces(["1x1", "2x2", "3x3"], trays[1:], 2) == (["1x1", "2x2", "3x3"], 0)
    # 3 left: the current tray ends, the next is out of reach
    assert reachable_pieces(["1x1", "2x2", "3x3"], trays[1:], 3) == (["1x1", "2x2", "3x3"], 1)
    # 3 left: any two of the next tray's pieces may follow; that tray cannot end
    assert reachable_pieces(["3x3"], trays[1:], 3) == (["3x3", "1x2", "1x3", "1x4"], 1)
    # 4 left: the next tray ends too, and the one after is out of reach
    assert reachable_pieces(["3x3"], trays[1:], 4) == (["3x3", "1x2", "1x3", "1x4"], 2)
    assert reachable_pieces(["3x3"], trays[1:], 5) == (["3x3", "1x2", "1x3", "1x4", "X5", "T4-n", "L3-nw"], 2)
    # no limit to speak of: every tray, every one ending
    assert reachable_pieces(["3x3"], trays[1:], 99) == (["3x3", "1x2", "1x3", "1x4", "X5", "T4-n", "L3-nw"], 3)
    assert reachable_pieces([], trays, 0) == ([], 0)


@pytest.mark.parametrize("name", LINE_VARIANTS)
def test_built_multi_line_clears_empty_at_least_the_event_cost(name):
    """Boards built so one placement completes a random set of the rows and columns it
    touches (up to every one), with stones sprinkled on them: cells emptied >= the cost."""
    variant = find_variant(name)
    seen = set()
    for seed in range(400):
        rng = random.Random(f"multi-{name}-{seed}")
        piece = rng.choice(("3x3", "X5", "L5-nw", "T4-s", "1x5", "5x1", "2x2", "L3-se"))
        spot = rng.choice(placements(piece))
        lines = [z for z in variant.lines if z & spot.mask]
        chosen = [z for z in lines if rng.random() < 0.7] or lines[:1]
        stones = 0
        for _ in range(rng.choice((0, 1, 2, 4))):
            cell = rng.randrange(100)
            if not spot.mask >> cell & 1:
                stones |= 1 << cell
        filled = 0
        for zone in chosen:
            filled |= zone
        filled |= sum(1 << c for c in range(100) if rng.random() < 0.3)
        filled &= ~spot.mask & ~stones
        game = Game(variant, Board(filled, stones, 0))
        before = filled | spot.mask
        result = game.apply(Placement(piece, spot.row, spot.col))
        n = result.lines + result.regions
        assert n >= len(chosen)
        emptied = before.bit_count() - game.board.filled.bit_count()
        assert emptied >= event_costs(variant, stones.bit_count())[n][1], f"seed {seed}"
        seen.add(n)
    assert {1, 2, 3, 4, 5, 6} <= seen


def _brute_force(costs, caps, completions, emptiable):
    best = 0
    for sizes in itertools.product(*(range(c + 1) for c in caps)):
        if sum(sizes) <= completions and sum(costs[n][1] for n in sizes) <= emptiable:
            best = max(best, sum(costs[n][0] for n in sizes))
    return best


@pytest.mark.parametrize("name", LINE_VARIANTS)
def test_events_bound_is_the_best_choice_of_event_sizes(name):
    variant = find_variant(name)
    rng = random.Random(f"knapsack-{name}")
    for _ in range(300):
        stones = rng.choice((0, 1, 3, 5))
        caps = tuple(rng.randint(1, 6) for _ in range(rng.randint(1, 5)))
        completions = rng.randint(0, sum(caps) + 2)
        emptiable = rng.randint(0, 160)
        costs = event_costs(variant, stones)
        expected = _brute_force(costs, caps, completions, emptiable)
        assert events_bound(variant, caps, stones, completions, emptiable) == expected


@pytest.mark.parametrize("name", LINE_VARIANTS)
def test_a_table_too_big_to_build_whole_gives_its_corner_or_nothing(monkeypatch, name):
    """Past ``EVENT_WORK`` (a level of hundreds of trays, whose whole table took gigabytes and
    minutes past the time limit: an audit's 500-tray level) the bound builds the table's corner
    up to what is asked, which holds the same value, or past that gives None (the count bound
    alone); held to the brute force with the budget made small enough to take every path."""
    import solver.bounds

    monkeypatch.setattr(solver.bounds, "EVENT_WORK", 3000)
    variant = find_variant(name)
    rng = random.Random(f"corner-{name}")
    paths = {"whole": 0, "corner": 0, "none": 0}
    for _ in range(300):
        stones = rng.choice((0, 1, 3))
        caps = tuple(rng.randint(1, 6) for _ in range(rng.randint(1, 5)))
        completions = rng.randint(0, sum(caps) + 2)
        emptiable = rng.randint(0, 160)
        costs = event_costs(variant, stones)
        whole = len(caps) * (sum(caps) + 1) * (sum(costs[c][1] for c in caps) + 1) <= 3000
        got = events_bound(variant, caps, stones, completions, emptiable)
        if got is None:
            assert not whole and len(caps) * (min(completions, sum(caps)) + 1) * (emptiable + 1) > 3000
            paths["none"] += 1
        else:
            assert got == _brute_force(costs, caps, completions, emptiable)
            paths["whole" if whole else "corner"] += 1
    assert min(paths.values()) >= 30, paths


def test_the_budget_applies_only_where_its_premises_hold():
    # Sudoku's regions overlap the lines, so the union of n zones is not the line formula.
    assert event_costs(find_variant("sudoku"), 0) is None
    assert events_bound(find_variant("sudoku"), (6, 6), 0, 10, 100) is None
    halloween = event_costs(find_variant("halloween"), 0)
    # RULES.md: one line 10 (+5 streak), two 30 (+5); a row and a column share a cell.
    assert halloween[1] == (10 + 5, 10) and halloween[2] == (30 + 5, 19) and halloween[6] == (210 + 5, 51)


@pytest.mark.parametrize("name", ["halloween", "arabic", "sudoku"])
def test_zones_per_piece_is_the_most_zones_one_spot_touches(name):
    """Counted again from the reference's zone cells and piece cells, for every supply shape and
    a level's own wide pieces: exact, not only high enough (a bound that counted 20 zones for
    every piece passed the admissibility tests; a mutation audit)."""
    import reference_rules as ref

    variant = find_variant(name)
    zone_cells = [set(cells) for _, cells in ref.zones(name)]
    wide = [get_piece("/".join(["#" * 10] * 3)).id, get_piece("#.#/###").id]
    for piece in list(variant.shapes) + wide:
        shape = get_piece(piece)
        most = max(sum(1 for z in zone_cells if any((spot.row + r, spot.col + c) in z for r, c in shape.cells))
                   for spot in placements(piece))
        assert zones_per_piece(variant, piece) == most, piece
    expected = {"halloween": (2, 6, 13), "arabic": (2, 6, 13), "sudoku": (4, 14, 27)}[name]
    assert tuple(zones_per_piece(variant, p) for p in ("1x1", "3x3", wide[0])) == expected


def test_event_costs_are_the_hand_counted_cells_of_a_clear():
    """n zones cleared at once empty at least 10n cells less one per row-column crossing, most
    crossings with the rows and columns split evenly: 10, 19, 28, 36, 44, 51 cells for 1-6 zones
    and all 100 for every zone; the stones on the board may lie in them. Exact, not only low
    enough (a mutation of this range went unnoticed by the admissibility tests)."""
    import reference_rules as ref

    halloween, arabic = find_variant("halloween"), find_variant("arabic")
    cells = [0, 10, 19, 28, 36, 44, 51]
    # the points: the reference's for n lines cleared at once on a streak (the most they score)
    assert event_costs(halloween, 0)[:7] == tuple((ref.clear_points("halloween", n, 0, 1), c)
                                                  for n, c in enumerate(cells))
    assert event_costs(halloween, 0)[20] == (ref.clear_points("halloween", 20, 0, 1), 100)
    assert event_costs(arabic, 3)[:6] == tuple((ref.clear_points("arabic", n, 0, 1), c)
                                               for n, c in enumerate([0, 7, 16, 25, 33, 41]))
    assert event_costs(find_variant("sudoku"), 0) is None
