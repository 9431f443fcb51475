"""The expert's survival term: the exact chance that the next tray cannot be placed
(solver/survival.py), against the rules engine's tray search and a brute-force sum; and that
chance and the blocked hazard (solver/lookahead.py) against a count on the reference rules."""

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

import reference_rules as ref
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


# --- death_chance against the reference rules ---------------------------------------------
#
# An independent count: every ordered deal of three draws (RULES.md §1 "Random deals": a group
# by weight, then a shape uniformly inside it, with replacement, three times), weighted by the
# reference's supply (``reference_rules``, which shares no code with ``solver/``), times whether
# no order of the three pieces goes down, the reference's clears between placements. The
# search works on 100-bit integers (cell ``row*10 + col``) built from the reference's piece
# cells, spots and zones; every board checks a few of its spots and clears against the
# reference's own ``fitting_spots`` and ``RefGame.place`` on the grid.

_ALL = (1 << 100) - 1
_LOW = (1 << 64) - 1  # the solver's boards are two words: cells 0-63, then 64-99
_EMPTY_GRID = [["."] * 10 for _ in range(10)]


def _bit(r: int, c: int) -> int:
    return 1 << (r * 10 + c)


class _RefSupply:
    """A variant's shapes, spots, zones and trays, read from ``reference_rules``."""

    def __init__(self, name: str):
        groups = ref.SUPPLY[name]
        total = sum(weight for weight, _ in groups)
        draw: dict[str, Fraction] = {}
        for weight, shapes in groups:
            for shape in shapes:
                draw[shape] = draw.get(shape, Fraction(0)) + Fraction(weight, total * len(shapes))
        reference = ref.shape_probabilities(name)
        assert set(reference) == set(draw)
        assert all(reference[s] == pytest.approx(float(p), abs=1e-15) for s, p in draw.items())
        self.shapes = sorted(draw)
        # the cells of a shape as offsets from its anchor, and the anchors where it is inside the board
        self.offsets = {s: [dr * 10 + dc for dr, dc in ref.piece_cells(s)] for s in self.shapes}
        spots = {s: ref.fitting_spots(_EMPTY_GRID, s) for s in self.shapes}
        self.inside = {s: sum(_bit(r, c) for r, c in spots[s]) for s in self.shapes}
        self.mask = {s: {r * 10 + c: sum(_bit(r + dr, c + dc) for dr, dc in ref.piece_cells(s))
                         for r, c in spots[s]} for s in self.shapes}
        self.zones = [sum(_bit(r, c) for r, c in cells) for _, cells in ref.zones(name)]
        # a placement can only complete a zone it touches (the boards here hold no complete
        # zone but one of stones alone, which never clears)
        self.touch = {s: {a: [z for z in self.zones if z & m] for a, m in self.mask[s].items()}
                      for s in self.shapes}
        # every ordered deal, its chance summed onto the multiset it deals
        self.trays: dict[tuple[str, str, str], Fraction] = {}
        for deal in product(self.shapes, repeat=3):
            key = tuple(sorted(deal))
            self.trays[key] = self.trays.get(key, Fraction(0)) + draw[deal[0]] * draw[deal[1]] * draw[deal[2]]
        assert sum(self.trays.values()) == 1


class _RefTraySearch:
    """Whether a tray can go down on one board (``occ``: tiles and stones), in some order,
    clearing every complete zone after each placement. Memoised by board and pieces."""

    def __init__(self, supply: _RefSupply, filled: int, stones: int):
        self.supply, self.stones, self.occ = supply, stones, filled | stones
        self.pairs: dict[tuple, bool] = {}
        self.after: dict[tuple, list] = {}

    def anchors(self, occ: int, shape: str) -> int:
        """The anchors (as bits) where ``shape`` fits: every cell of it is free."""
        free = _ALL & ~occ
        found = self.supply.inside[shape]
        for off in self.supply.offsets[shape]:
            found &= free >> off
        return found

    def moves(self, occ: int, shape: str) -> list[tuple[int, int]]:
        """(the board after the placement and its clears, the cells of the zones it cleared) for
        every spot of ``shape``."""
        key = (occ, shape)
        if key not in self.after:
            anchors, out = self.anchors(occ, shape), []
            mask, touch, tiles = self.supply.mask[shape], self.supply.touch[shape], ~self.stones
            while anchors:
                low = anchors & -anchors
                anchors ^= low
                spot = low.bit_length() - 1
                board = occ | mask[spot]
                cleared = 0
                for zone in touch[spot]:
                    if board & zone == zone and zone & tiles:  # complete, and not stones alone
                        cleared |= zone
                out.append((board & ~(cleared & tiles), cleared))
            self.after[key] = out
        return self.after[key]

    def clearing(self, occ: int, shape: str) -> list[tuple[int, int]]:
        """The moves of ``shape`` that clear something."""
        key = (occ, shape, "clearing")
        if key not in self.after:
            self.after[key] = [move for move in self.moves(occ, shape) if move[1]]
        return self.after[key]

    def then(self, occ: int, first: str, last: str) -> bool:
        """``first`` somewhere, then ``last`` somewhere."""
        # with nothing cleared the board only gains cells: if ``last`` has no spot now, it has
        # one after ``first`` only if ``first`` clears
        boards = self.moves(occ, first) if self.anchors(occ, last) else self.clearing(occ, first)
        return any(self.anchors(board, last) for board, _ in boards)

    def pair(self, occ: int, a: str, b: str) -> bool:
        key = (occ, a, b)
        if key not in self.pairs:
            self.pairs[key] = self.then(occ, a, b) or (a != b and self.then(occ, b, a))
        return self.pairs[key]

    def placeable(self, tray: tuple[str, str, str]) -> bool:
        for i, first in enumerate(tray):
            if i and tray[i - 1] == first:
                continue
            a, b = tray[:i] + tray[i + 1:]
            if any(self.pair(board, a, b) for board, _ in self.moves(self.occ, first)):
                return True
        return False

    def death_chance(self) -> Fraction:
        return sum((p for tray, p in self.supply.trays.items() if not self.placeable(tray)), Fraction(0))

    def check_against_the_grid(self, rng: random.Random, name: str) -> None:
        """A few spots and clears of this board, against ``fitting_spots`` and ``RefGame.place``."""
        grid = [["S" if self.stones >> (r * 10 + c) & 1 else "#" if self.occ >> (r * 10 + c) & 1 else "."
                 for c in range(10)] for r in range(10)]
        for shape in rng.sample(self.supply.shapes, 3):
            spots = ref.fitting_spots(grid, shape)
            anchors = self.anchors(self.occ, shape)
            assert sorted(spots) == [(a // 10, a % 10) for a in range(100) if anchors >> a & 1], shape
            if spots:
                r, c = rng.choice(spots)
                game = ref.RefGame(name, ref.grid_text(grid))
                game.place(shape, r, c)
                board = dict(zip(sorted(spots), self.moves(self.occ, shape)))[(r, c)][0]
                assert game.grid == [["S" if self.stones >> (i * 10 + j) & 1 else "#" if board >> (i * 10 + j) & 1
                                      else "." for j in range(10)] for i in range(10)], (shape, r, c)


def _survival_board(rng: random.Random, supply: _RefSupply, kind: str) -> tuple[int, int]:
    """(tiles, stones) of a seeded board of the given kind, with no complete zone but one of
    stones alone."""
    cells = range(100)
    stones = 0
    if kind in ("stones", "near"):
        stones = sum(1 << c for c in rng.sample(cells, rng.choice((4, 4, 6, 9, 12))))
    if kind == "stones" and rng.random() < 0.3:  # a zone of stones only: full, nothing to clear
        stones |= rng.choice(supply.zones)
    if kind == "roomy":
        fill = rng.uniform(0.0, 0.35)
    elif kind == "full":
        fill = rng.uniform(0.85, 0.97)
    elif kind == "blocks":
        fill = 0.0
    else:
        fill = rng.uniform(0.4, 0.8)
    filled = sum(1 << c for c in cells if rng.random() < fill) & ~stones
    if kind == "blocks":  # rectangles of tiles: wide empty areas, yet the big shapes may not fit
        target = rng.uniform(0.35, 0.75) * 100
        while bin(filled | stones).count("1") < target:
            h, w = rng.randint(1, 6), rng.randint(1, 6)
            r, c = rng.randrange(11 - h), rng.randrange(11 - w)
            filled |= sum(_bit(r + i, c + j) for i in range(h) for j in range(w))
        filled &= ~stones
    if kind == "near":  # zones one cell short
        for zone in rng.sample(supply.zones, rng.randint(2, 6)):
            filled |= zone & ~stones
            gap = rng.choice([c for c in cells if (zone & ~stones) >> c & 1])
            filled &= ~(1 << gap)
    for zone in supply.zones:  # a zone complete on the board: open one of its tiles
        if (filled | stones) & zone == zone and zone & filled:
            filled &= ~(1 << rng.choice([c for c in cells if (zone & filled) >> c & 1]))
    assert all((filled | stones) & z != z or z & stones == z for z in supply.zones)
    return filled, stones


SURVIVAL_KINDS = ("roomy", "random", "blocks", "near", "stones", "full")
PER_KIND = 15


@pytest.mark.parametrize("name", VARIANTS)
def test_death_chance_counts_every_deal_on_the_reference_rules(name):
    """On 90 seeded boards per variant (nearly empty to nearly full, rectangles of tiles, zones
    one cell short, stones, now and then a whole zone of them), ``death_chance`` is the
    reference count to 1e-12 (the rarest tray has a chance above 1e-6, so one tray misjudged
    would show); at least two boards in three are neither safe nor lost."""
    variant = find_variant(name)
    supply = _RefSupply(name)
    rng = random.Random(f"survival-reference-{name}")
    boards = [_survival_board(rng, supply, kind) for kind in SURVIVAL_KINDS for _ in range(PER_KIND)]
    by_stones: dict[int, list[int]] = {}
    for n, (_, stones) in enumerate(boards):
        by_stones.setdefault(stones, []).append(n)
    got = [0.0] * len(boards)
    for stones, ns in by_stones.items():  # boards sharing stones go in one call
        chances = death_chance(variant, np.array([boards[n][0] & _LOW for n in ns], np.uint64),
                               np.array([boards[n][0] >> 64 for n in ns], np.uint64), stones)
        for n, chance in zip(ns, chances):
            got[n] = float(chance)
    between = safe = 0
    for n, (filled, stones) in enumerate(boards):
        search = _RefTraySearch(supply, filled, stones)
        search.check_against_the_grid(rng, name)
        expected = search.death_chance()
        if abs(got[n] - float(expected)) > 1e-12:
            try:
                wrong = [t for t in supply.trays if tray_placeable(variant, filled, stones, t) != search.placeable(t)]
            except KeyError as error:  # a shape the kernel's supply lacks
                wrong = [f"{error} unknown to tray_placeable"]
            pytest.fail(f"board {n} ({SURVIVAL_KINDS[n // PER_KIND]}) filled={filled} stones={stones}: "
                        f"death_chance {got[n]!r}, reference {float(expected)!r}; trays judged "
                        f"differently: {wrong[:5]}")
        between += 0 < expected < 1
        safe += expected == 0
    assert between >= 2 * len(boards) // 3 and safe >= 5, (between, safe)


# the seven shapes the blocked hazard watches (solver/evaluate.py: the hardest to place)
HARD_SHAPES = ("3x3", "1x5", "5x1", "L5-nw", "L5-ne", "L5-sw", "L5-se")


@pytest.mark.parametrize("name", VARIANTS)
def test_blocked_hazard_is_the_chance_of_dealing_a_hard_shape_without_a_spot(name):
    """``lookahead.blocked_hazard`` (from the boards' features) is the chance that an ordered
    deal of three draws holds one of the hard shapes with no spot on the board (the reference's
    ``fitting_spots``, stones included), summed over every deal with the reference's supply."""
    from solver.evaluate import HARD_PIECES, features_bulk
    from solver.lookahead import blocked_hazard

    assert set(HARD_PIECES) == set(HARD_SHAPES)
    variant = find_variant(name)
    supply = _RefSupply(name)
    rng = random.Random(f"blocked-hazard-{name}")
    blocked_counts, between = set(), 0
    for n in range(60):
        filled, stones = _survival_board(rng, supply, SURVIVAL_KINDS[n % len(SURVIVAL_KINDS)])
        grid = [["S" if stones >> (r * 10 + c) & 1 else "#" if filled >> (r * 10 + c) & 1 else "."
                 for c in range(10)] for r in range(10)]
        blocked = {s for s in HARD_SHAPES if not ref.fitting_spots(grid, s)}
        expected = sum((p for tray, p in supply.trays.items() if blocked & set(tray)), Fraction(0))
        feats = features_bulk(variant, np.array([filled & _LOW], np.uint64), np.array([filled >> 64], np.uint64),
                              stones)
        assert blocked_hazard(variant, feats)[0] == pytest.approx(float(expected), abs=1e-12), (
            ref.grid_text(grid), sorted(blocked))
        blocked_counts.add(len(blocked))
        between += 0 < expected < 1
    assert len(blocked_counts) >= 4 and between >= 20, (blocked_counts, between)


# From a mutation audit of the tray solver (2026-12-06):
# (kills B1: board_jit._settle not counting stones as filled, and B2: _settle's zone loop
#  `range(n)` -> `range(n - 1)`, the last zone never clearing; test_survival let both pass,
#  only test_campaign_jit caught them)

def _stone_line_board(orientation: str) -> Board:
    """Row 0: a stone, eight tiles and a hole at (0,9). Rows 1-9 each miss two cells five apart,
    so no other 1x1 completes a zone a 1x4 could use, and no 1x4 fits anywhere. ``orientation``
    moves that line to row 9, column 0 or column 9 (a mirror or transpose of the board)."""
    rows = ["S########."] + ["".join("." if c in {(3 * r) % 10, (3 * r + 5) % 10} else "#" for c in range(10))
                             for r in range(1, 10)]
    moved = {"row 0": rows, "row 9": rows[::-1], "column 0": ["".join(col) for col in zip(*rows)],
             "column 9": ["".join(col)[::-1] for col in zip(*rows)]}[orientation]
    return parse_board(moved)


@pytest.mark.parametrize("orientation", ["row 0", "row 9", "column 0", "column 9"])
def test_the_kernel_counts_a_stone_as_filled_when_a_line_completes(orientation):
    """RULES.md: stones count as filled when checking whether a line is complete. A 1x1 in the
    line's hole completes it only through its stone; the clear opens the line for both bars.
    With an empty cell in place of the stone the same tray has nowhere to go. (Column 9 is the
    last zone the kernel scans.)"""
    variant = find_variant("halloween")
    board = _stone_line_board(orientation)
    filled, stones = board.filled, board.stones
    bar = "1x4" if orientation.startswith("row") else "4x1"
    tray = ["1x1", bar, bar]
    assert TraySearch(variant, Board(filled, stones, 0)).placeable(tray) is not None
    assert tray_placeable(variant, filled, stones, tray)
    assert TraySearch(variant, Board(filled, 0, 0)).placeable(tray) is None
    assert not tray_placeable(variant, filled, 0, tray)


@pytest.mark.parametrize("safe_first", [True, False])
def test_leaf_survival_opens_when_any_candidate_is_at_risk(monkeypatch, safe_first):
    """The gate opens when SOME lookahead candidate's chance of an unplaceable next tray exceeds
    it (0 by default), not only when every one's does: here the death chances are set (the
    first end state safe, or every one at risk) and the deeper term runs either way."""
    import solver.survival

    variant = find_variant("halloween")
    game = Game(variant, parse_board(TIGHT_BOARD), Streak(), 0, ["2x2", "L3-nw", "1x3"], None)

    def chances(variant, lo, hi, stones):
        return np.array([0.0 if safe_first and i == 0 else 0.25 for i in range(len(lo))])

    monkeypatch.setattr(solver.survival, "death_chance", chances)
    decision = ExpertPolicy(seed=1, clock=False, danger_only=False, samples=2, candidates=3).decide(game)
    assert decision.candidates == 3 and decision.deep == 4
