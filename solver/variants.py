"""The three 10x10 variants as data: zones, supply, scoring, streaks, tokens, modes.

Adding a rule set is adding one small class and registering it; every
solver, generator and replayer reads the rules from here (RULES.md §1).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import astuple, dataclass
from functools import cached_property

from .bitboard import BB_COLS, BB_ROWS, Bitboard, bb_cell
from .errors import RulesError
from .pieces import CANONICAL_IDS, get_piece, placements


# The masks ``zones_touching`` keeps per variant: every spot of the shipped pieces (1,921) with room
# to spare. A level's or a client's own pieces bring new spots without end (a server asked about
# random custom pieces grew 0.21 MB a thousand requests, all of it here), so past this many the
# cache starts afresh: at most about 6 MB a variant.
TOUCH_CACHE = 32768


@dataclass(frozen=True)
class Mode:
    name: str
    tokens: int
    stones: int | None = None  # exact stone count the mode requires, if any
    seconds_per_tray: int | None = None  # a client's clock: solvers meet it through their time budget
    target: int | None = None  # a score that ends the game (Sprint to 5,000)
    players: int = 1  # a mode of several boards (Battle Matrix), which ``play`` does not play

    def stones_problem(self, stone_count: int) -> str | None:
        """What is wrong with a board of ``stone_count`` stones in this mode (Sultan's Labyrinth
        is played on exactly 4), or None."""
        if self.stones is not None and stone_count != self.stones:
            return f"mode {self.name} needs exactly {self.stones} stones, found {stone_count}"
        return None


def _box(row0: int, col0: int, height: int, width: int) -> Bitboard:
    return sum(bb_cell(row0 + r, col0 + c) for r in range(height) for c in range(width))


LINES: tuple[Bitboard, ...] = BB_ROWS + BB_COLS
# Sudoku regions: ten 2x5 boxes, then ten 5x2 boxes (two overlapping families).
REGIONS: tuple[Bitboard, ...] = tuple(
    _box(2 * k, c0, 2, 5) for k in range(5) for c0 in (0, 5)
) + tuple(_box(r0, 2 * k, 5, 2) for r0 in (0, 5) for k in range(5))


class Variant:
    """Base class; subclasses set the class attributes and the scoring hook (``clear_points``)."""

    name: str = ""
    lines: tuple[Bitboard, ...] = LINES
    regions: tuple[Bitboard, ...] = ()
    cell_points: int = 1
    # (group name, weight, shape ids); the expert's board features test the hardest of these
    # shapes by name and by hand-written bit tests (solver/evaluate.py HARD_PIECES, evaluate_jit's
    # fit counts, lookahead.BULKY): a new large shape is dealt and solved without them, and its
    # weights (solver/weights.json) were tuned on today's supply
    supply: tuple[tuple[str, int, tuple[str, ...]], ...] = ()
    token_kinds: frozenset[str] = frozenset()
    token_bonus: int = 0  # points per token left at game end
    modes: dict[str, Mode] = {}
    default_mode: str = ""
    flow_bonus: int = 0  # points at the end of a turn that clears after a turn that cleared
    # the longest run of clearing placements the scoring tells apart from a longer one: searches
    # key their states on ``run_key(run)`` (Halloween asks only whether the last placement
    # cleared, Arabic never looks, a Sudoku multiplier grows with every clear in a row)
    runs_told_apart: int = 1 << 20

    # --- scoring hook --------------------------------------------------
    def clear_points(self, lines: int, regions: int, run: int) -> int:
        """Points for clearing ``lines`` rows/columns and ``regions`` regions in one
        placement, after ``run`` consecutive clearing placements."""
        raise NotImplementedError

    def run_key(self, run: int) -> int:
        """The part of a streak run that later points depend on."""
        return min(run, self.runs_told_apart)

    # --- derived tables ------------------------------------------------
    @cached_property
    def zones(self) -> tuple[Bitboard, ...]:
        return self.lines + self.regions

    @cached_property
    def flagged_zones(self) -> tuple[tuple[Bitboard, bool], ...]:
        """(zone mask, is_region) for every zone, as ``zones_touching`` gives them."""
        n_lines = len(self.lines)
        return tuple((z, i >= n_lines) for i, z in enumerate(self.zones))

    @cached_property
    def _zones_touching_cell(self) -> tuple[tuple[int, ...], ...]:
        return tuple(
            tuple(i for i, z in enumerate(self.zones) if z >> cell & 1) for cell in range(100)
        )

    def zones_touching(self, mask: Bitboard) -> tuple[tuple[Bitboard, bool], ...]:
        """(zone mask, is_region) for every zone that shares a cell with ``mask``; cached (up to
        ``TOUCH_CACHE`` masks)."""
        cache = self._touch_cache
        hit = cache.get(mask)
        if hit is None:
            ids: set[int] = set()
            m = mask
            while m:
                low = m & -m
                ids.update(self._zones_touching_cell[low.bit_length() - 1])
                m ^= low
            hit = tuple(self.flagged_zones[i] for i in sorted(ids))
            if len(cache) >= TOUCH_CACHE:
                cache.clear()
            cache[mask] = hit
        return hit

    @cached_property
    def _touch_cache(self) -> dict[Bitboard, tuple[tuple[Bitboard, bool], ...]]:
        return {}

    @cached_property
    def shapes(self) -> tuple[str, ...]:
        seen: list[str] = []
        for _, _, group in self.supply:
            seen.extend(s for s in group if s not in seen)
        return tuple(seen)

    def check_tokens(self, tokens: int | None, what: str) -> None:
        """A ``RulesError`` naming ``what`` when tokens are asked of a variant that has none."""
        if tokens and not self.token_kinds:
            raise RulesError(f"{what}: variant {self.name} has no tokens, got {tokens}")

    def mode(self, name: str | None) -> Mode:
        key = self.default_mode if name is None else name
        if key not in self.modes:
            raise RulesError(
                f"variant {self.name!r} has no mode {key!r} (expected one of {', '.join(self.modes)})"
            )
        return self.modes[key]

    def __repr__(self) -> str:
        return f"<Variant {self.name}>"


class Halloween(Variant):
    name = "halloween"
    cell_points = 1
    supply = tuple(
        (label, len(group), group)  # uniform over shapes: a group weighs its shape count
        for label, group in (
            ("single", ("1x1",)),
            ("short bars", ("1x2", "2x1", "1x3", "3x1")),
            ("long bars", ("1x4", "4x1", "1x5", "5x1")),
            ("squares", ("2x2", "3x3")),
            ("corners", ("L3-nw", "L3-ne", "L3-sw", "L3-se", "L5-nw", "L5-ne", "L5-sw", "L5-se")),
            ("crosses", ("T4-n", "T4-e", "T4-s", "T4-w", "X5")),
        )
    )
    modes = {"endless": Mode("endless", 0), "campaign": Mode("campaign", 0)}
    default_mode = "endless"
    streak_bonus = 5
    runs_told_apart = 1
    ranks = (
        (10_000, "Supreme Halloween Grandmaster"),
        (5_000, "Wicked Sorcerer"),
        (2_500, "Graveyard Operator"),
        (1_000, "Pumpkin Carver"),
        (0, "Frightened Novice"),
    )

    def rank(self, score: int) -> str:
        return next(name for floor, name in self.ranks if score >= floor)

    def clear_points(self, lines: int, regions: int, run: int) -> int:
        n = lines + regions
        if n == 0:
            return 0
        return 10 * n * (n + 1) // 2 + (self.streak_bonus if run > 0 else 0)


class Arabic(Variant):
    name = "arabic"
    cell_points = 1
    supply = (
        ("Alif", 30, ("2x1", "3x1", "4x1", "5x1")),
        ("Kaf & Lam", 30, ("L3-nw", "L3-ne", "L3-sw", "L3-se", "L5-nw", "L5-ne", "L5-sw", "L5-se",
                           "T4-n", "T4-e", "T4-s", "T4-w")),
        ("Ba' & Ta'", 30, ("1x2", "1x3", "1x4", "1x5", "2x3")),
        ("Nun & Mim", 20, ("2x2", "3x3")),
        ("Star & Rosette", 10, ("1x1",)),
    )
    token_kinds = frozenset({"rotate", "reroll", "remove"})
    token_bonus = 100
    flow_bonus = 50
    modes = {
        "courtyard": Mode("courtyard", 5),
        "standard": Mode("standard", 3),
        "sultan": Mode("sultan", 3, stones=4),
        "speed": Mode("speed", 3, seconds_per_tray=45),
    }
    default_mode = "standard"
    runs_told_apart = 0
    _by_count = (0, 100, 300, 600, 1200)

    def clear_points(self, lines: int, regions: int, run: int) -> int:
        return self._by_count[min(lines + regions, 4)]


class Sudoku(Variant):
    name = "sudoku"
    cell_points = 10
    regions = REGIONS
    supply = (
        ("cubes", 30, ("1x1", "1x2", "2x1")),
        ("bars", 30, ("1x3", "3x1", "1x4", "4x1", "1x5", "5x1")),
        ("corners", 30, ("L3-nw", "L3-ne", "L3-sw", "L3-se", "L5-nw", "L5-ne", "L5-sw", "L5-se")),
        ("solids", 30, ("2x2", "2x3", "3x2", "3x3")),
    )
    token_kinds = frozenset({"remove", "swap", "refresh"})
    token_bonus = 200
    modes = {
        "classic": Mode("classic", 3),
        "sprint": Mode("sprint", 3, target=5_000),
        "battle": Mode("battle", 3, players=2),
        "campaign": Mode("campaign", 3),
    }
    default_mode = "classic"

    def clear_points(self, lines: int, regions: int, run: int) -> int:
        z = lines + regions
        if z == 0:
            return 0
        base = (100 if regions == 0 else 150) if z == 1 else 100 * z * z
        return base * (2 + run) // 2  # x(1 + 0.5*run), rounded down


VARIANTS: dict[str, Variant] = {v.name: v for v in (Halloween(), Arabic(), Sudoku())}


def find_variant(name: str) -> Variant:
    try:
        return VARIANTS[name]
    except (KeyError, TypeError):
        raise RulesError(
            f"unknown variant {name!r} (expected one of {', '.join(VARIANTS)})"
        ) from None


def rules_fingerprint() -> str:
    """A short hash of the rules as data: every variant's zones, supply, points (the clear points
    of up to 20 lines and 20 regions at once, on runs 0-4), tokens and modes, and the piece table.
    A pack's partial results carry it, so a run under other rules never resumes them."""
    rules = [[variant.name, variant.lines, variant.regions, variant.cell_points, variant.supply,
              sorted(variant.token_kinds), variant.token_bonus, variant.flow_bonus, variant.default_mode,
              [astuple(mode) for mode in variant.modes.values()],
              [variant.clear_points(lines, regions, run) for lines in range(21)
               for regions in range(21 if variant.regions else 1) for run in range(5)]]
             for variant in VARIANTS.values()]
    rules.append([(piece, get_piece(piece).cells) for piece in CANONICAL_IDS])
    return hashlib.sha256(json.dumps(rules).encode()).hexdigest()[:16]


def _check_tables() -> None:
    for variant in VARIANTS.values():
        for shape in variant.shapes:
            assert shape in CANONICAL_IDS, shape
            placements(get_piece(shape).id)


_check_tables()
