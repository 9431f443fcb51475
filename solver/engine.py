"""The one move applier: placement -> clears -> points -> new state.

Two layers, both used by everything:

* ``settle`` and ``placement_points`` are the rules on plain ints, for the
  searches' inner loops (with what a placement completes, ``completes_zone``,
  ``clearing_spots``, and the removals that stop it, ``stopping_sets``),
  which carry the streak as ints too (a run grows by
  one with each clearing placement and ends at any other, as
  ``Streak.after_placement`` has it; ``Variant.run_key`` is the part of it
  that later points read);
* ``Game`` composes them with legality checks, trays, tokens and deals, for
  replays, play, level verification and generators.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations

from .bitboard import SIZE, Bitboard, bb_cell, cell_col, cell_row, scan_cells
from .board import Board
from .deals import TRAY_SIZE, RandomDeals, ScriptedDeals
from .errors import RulesError, clipped
from .moves import REDEAL_KINDS, Move, Placement, TokenUse
from .pieces import Spot, get_piece, placement_mask, placements, rotate_cw, spots_by_cell, turned_shapes
from .variants import Variant

# ---------------------------------------------------------------------------
# The rules on ints


def settle(
    variant: Variant, filled: Bitboard, stones: Bitboard, mask: Bitboard, full_scan: bool = False
) -> tuple[Bitboard, int, int]:
    """Put ``mask`` down and clear every completed zone.

    Returns (filled after clears, lines cleared, regions cleared). Only zones
    the piece touches can have become complete, unless the position already
    held a complete zone (``full_scan``). Stones count as filled and stay; a
    zone made only of stones has nothing to clear and never counts.
    """
    filled |= mask
    occupied = filled | stones
    cleared = 0
    lines = regions = 0
    candidates = variant.flagged_zones if full_scan else variant.zones_touching(mask)
    for zone, is_region in candidates:
        if occupied & zone == zone and zone & ~stones:
            cleared |= zone
            if is_region:
                regions += 1
            else:
                lines += 1
    return filled & ~cleared, lines, regions


def placement_points(variant: Variant, cells: int, lines: int, regions: int, run: int) -> int:
    """Points one placement scores; ``run`` = consecutive clearing placements just before it."""
    return cells * variant.cell_points + variant.clear_points(lines, regions, run)


def has_complete_zone(variant: Variant, filled: Bitboard, stones: Bitboard) -> bool:
    occupied = filled | stones
    return any(occupied & z == z and z & ~stones for z in variant.zones)


def completes_zone(variant: Variant, occupied: Bitboard, mask: Bitboard) -> bool:
    """Whether placing ``mask`` on ``occupied`` completes a zone (one through the placement)."""
    after = occupied | mask
    return any(after & zone == zone for zone, _ in variant.zones_touching(mask))


def clearing_spots(variant: Variant, occupied: Bitboard, piece_id: str) -> dict[Bitboard, Spot]:
    """The piece's free spots that complete a zone (those covering all its missing cells), by
    mask: on a tray's or a line's last placement only they can score more than the cells."""
    size = get_piece(piece_id).size
    covering = spots_by_cell(piece_id)
    clearing: dict[Bitboard, Spot] = {}
    for zone in variant.zones:
        missing = zone & ~occupied
        if missing and missing.bit_count() <= size:
            for spot in covering[(missing & -missing).bit_length() - 1]:
                if spot.mask & missing == missing and not spot.mask & occupied:
                    clearing[spot.mask] = spot
    return clearing


def stopping_sets(variant: Variant, stones: Bitboard, filled: Bitboard, mask: Bitboard, budget: int,
                  full_scan: bool):
    """The sets of tiles (masks, at least one tile and at most ``budget``, the smaller first) whose
    removal stops zones that placing ``mask`` on ``filled`` would complete, each tile stopping a
    zone the others do not (else it could wait: it only costs its token). ``full_scan``: zones
    complete from the start clear with this placement too. Both the tray's rescue and the
    campaign search spend tokens on these."""
    if not budget:
        return
    occupied = filled | stones | mask
    zones = variant.zones if full_scan else [z for z, _ in variant.zones_touching(mask)]
    completed = [z for z in zones if occupied & z == z and z & ~stones]
    if not completed:
        return
    cells = [c for c in scan_cells(filled & ~mask) if any(z >> c & 1 for z in completed)]
    for size in range(1, budget + 1):
        for chosen in combinations(cells, size):
            if all(any(z >> c & 1 and not any(z >> o & 1 for o in chosen if o != c) for z in completed)
                   for c in chosen):
                yield sum(1 << c for c in chosen)


@dataclass(frozen=True)
class Streak:
    """What the streak rules remember between placements.

    ``run``: consecutive clearing placements ending with the last one
    (Halloween's streak bonus, Sudoku's multiplier). ``turn_cleared``: the current turn
    has cleared; ``prev_turn_cleared``: the last finished turn cleared
    (Arabic flow bonus).
    """

    run: int = 0
    turn_cleared: bool = False
    prev_turn_cleared: bool = False

    @classmethod
    def carried_in(cls, run: int) -> "Streak":
        """The state before a turn, after ``run`` consecutive clearing placements."""
        if run < 0:
            raise RulesError(f"streak must be 0 or more, got {run}")
        return cls(run=run, turn_cleared=False, prev_turn_cleared=run > 0)

    def after_placement(self, cleared: bool) -> "Streak":
        return Streak(self.run + 1 if cleared else 0, self.turn_cleared or cleared, self.prev_turn_cleared)

    def after_turn(self, variant: Variant) -> tuple[int, "Streak"]:
        """(flow bonus, state for the next turn)."""
        bonus = variant.flow_bonus if (self.turn_cleared and self.prev_turn_cleared) else 0
        return bonus, Streak(self.run, False, self.turn_cleared)


def piece_fits(piece_id: str, occupied: Bitboard) -> bool:
    return any(not (p.mask & occupied) for p in placements(piece_id))


# ---------------------------------------------------------------------------
# The stateful game


@dataclass
class MoveResult:
    move: Move
    points: int = 0  # placement points, plus the flow bonus when this move ends a turn
    lines: int = 0
    regions: int = 0
    cleared: Bitboard = 0
    turn_bonus: int = 0


@dataclass
class Game:
    """One game of a 10x10 variant.

    ``tray`` is None for a free replay: any piece may be placed and a turn
    ends after every three placements. Otherwise pieces come from the tray,
    and a new tray is dealt from ``deals`` when it empties.
    """

    variant: Variant
    board: Board = field(default_factory=Board)
    streak: Streak = field(default_factory=Streak)
    tokens: int = 0
    tray: list[str] | None = None
    deals: RandomDeals | ScriptedDeals | None = None
    score: int = 0  # points from placements (and flow bonuses); tokens left are extra
    placements: int = 0
    placements_in_turn: int = 0
    turns_completed: int = 0
    _full_scan: bool = False

    def __post_init__(self) -> None:
        self._full_scan = has_complete_zone(self.variant, self.board.filled, self.board.stones)
        self.tray = None if self.tray is None else [get_piece(p).id for p in self.tray]

    # -- constructors -----------------------------------------------------
    @classmethod
    def dealt(cls, variant: Variant, deals, board: Board | None = None, tokens: int = 0,
              streak: Streak | None = None) -> "Game":
        """A game whose trays come from ``deals``; the first tray is dealt now."""
        first = deals.next_tray() or []
        return cls(variant, board or Board(), streak or Streak(), tokens, first, deals)

    # -- queries ----------------------------------------------------------
    @property
    def final_score(self) -> int:
        """Score with the end-of-game bonus for the tokens not spent."""
        return self.score + self.tokens * self.variant.token_bonus

    def fitting_pieces(self) -> list[str]:
        occupied = self.board.occupied
        return [p for p in dict.fromkeys(self.tray or ()) if piece_fits(p, occupied)]

    def tokens_can_help(self) -> bool:
        """Whether a token use might let play go on when no tray piece fits."""
        if self.tokens <= 0:
            return False
        kinds = self.variant.token_kinds
        # a swap needs one reserve piece; a reroll/refresh one per piece in the tray
        if kinds & REDEAL_KINDS and self.can_draw(1 if "swap" in kinds else len(self.tray or ())):
            return True
        if kinds & {"rotate", "remove"}:
            return self._cheapest_fit(kinds) <= self.tokens
        return False

    def can_draw(self, pieces: int) -> bool:
        """Whether a redeal can draw ``pieces`` pieces: a seeded supply always can, a level's
        reserve while it holds that many."""
        if isinstance(self.deals, RandomDeals):
            return True
        return isinstance(self.deals, ScriptedDeals) and self.deals.reserve_left >= pieces

    def _cheapest_fit(self, kinds: frozenset[str] | set[str]) -> int | float:
        """The fewest rotate and remove tokens after which some piece of the tray fits: a turned
        piece costs one, and each tile (never a stone) under its spot one more; inf when none
        can. Those spent on one piece are all a game needs to go on (RULES.md §1: it ends only
        when no piece fits after any token use the variant allows)."""
        stones, filled = self.board.stones, self.board.filled
        removes = "remove" in kinds
        fewest: int | float = math.inf
        for piece in dict.fromkeys(self.tray or ()):
            shapes = [(get_piece(piece).id, 0)]
            if "rotate" in kinds:
                shapes += [(shape, 1) for shape, _ in turned_shapes(piece)]
            for shape, cost in shapes:
                for spot in placements(shape):
                    if spot.mask & stones:
                        continue
                    tiles = (spot.mask & filled).bit_count()
                    if tiles and not removes:
                        continue
                    fewest = min(fewest, cost + tiles)
        return fewest

    @property
    def is_over(self) -> bool:
        """True when the tray is not empty, nothing in it fits and no token can help."""
        if not self.tray:
            return False
        return not self.fitting_pieces() and not self.tokens_can_help()

    @property
    def finished(self) -> bool:
        """True when a dealt game has no tray left to place."""
        return self.tray is not None and not self.tray

    # -- the applier ------------------------------------------------------
    def apply(self, move: Move) -> MoveResult:
        if isinstance(move, Placement):
            return self._place(move)
        if isinstance(move, TokenUse):
            return self._use_token(move)
        raise RulesError(f"not a move: {move!r}")

    def _place(self, move: Placement) -> MoveResult:
        piece = get_piece(move.piece)
        if self.tray is not None and piece.id not in self.tray:
            raise RulesError(
                f"piece {move.named} is not in the tray (tray: {', '.join(self.tray) or 'empty'})"
            )
        mask = placement_mask(piece.id, move.row, move.col, move.named)
        clash = mask & self.board.occupied
        if clash:
            cell = next(scan_cells(clash))
            what = "a stone" if self.board.stones >> cell & 1 else "a tile"
            raise RulesError(
                f"piece {move.named} at row {move.row}, col {move.col} overlaps {what} "
                f"at row {cell_row(cell)}, col {cell_col(cell)}"
            )
        filled, lines, regions, points = self.outcome(mask)
        self._full_scan = False
        cleared = (self.board.filled | mask) & ~filled
        self.board = Board(filled, self.board.stones, self.board.pumpkins & filled)
        self.streak = self.streak.after_placement(lines + regions > 0)
        self.score += points
        self.placements += 1
        self.placements_in_turn += 1
        result = MoveResult(move, points, lines, regions, cleared)
        if self.tray is not None:
            self.tray.remove(piece.id)
        if self._turn_over(len(self.tray or ()), self.placements_in_turn):
            result.turn_bonus = self._next_turn()
            result.points += result.turn_bonus
            if self.tray is not None and self.deals is not None:
                self.tray = [get_piece(p).id for p in (self.deals.next_tray() or [])]
        return result

    def end_turn(self) -> int:
        """End a free replay's turn now, after fewer than three placements (a level's tray of one
        or two pieces): its flow bonus, added to the score. A dealt game's turn ends as its tray
        empties."""
        if self.tray is not None:
            raise RulesError("a dealt game's turn ends when its tray is empty")
        if not self.placements_in_turn:
            raise RulesError("a turn of no placements")
        return self._next_turn()

    def _next_turn(self) -> int:
        bonus, self.streak = self.streak.after_turn(self.variant)
        self.score += bonus
        self.placements_in_turn = 0
        self.turns_completed += 1
        return bonus

    def outcome(self, mask: Bitboard) -> tuple[Bitboard, int, int, int]:
        """What putting ``mask`` down now would do, without doing it: (filled after the clears,
        lines cleared, regions cleared, its points). The points are those of the placement
        alone; ``points_now`` adds the flow bonus of a turn it would end."""
        filled, lines, regions = settle(self.variant, self.board.filled, self.board.stones, mask,
                                        self._full_scan)
        return filled, lines, regions, placement_points(self.variant, mask.bit_count(), lines, regions,
                                                        self.streak.run)

    def points_now(self, mask: Bitboard) -> tuple[Bitboard, int]:
        """(filled after, the points ``apply`` would score) for a placement of ``mask`` now:
        a greedy choice's measure."""
        filled, lines, regions, points = self.outcome(mask)
        if self._turn_over(len(self.tray or ()) - 1, self.placements_in_turn + 1):
            points += self.streak.after_placement(lines + regions > 0).after_turn(self.variant)[0]
        return filled, points

    def _turn_over(self, tray_left: int, in_turn: int) -> bool:
        """Whether a placement ends its turn, with ``tray_left`` pieces left in the tray after
        it and ``in_turn`` placements made in the turn (a free game's turn is three)."""
        return tray_left == 0 if self.tray is not None else in_turn == TRAY_SIZE

    def _use_token(self, move: TokenUse) -> MoveResult:
        kind = move.token
        if kind not in self.variant.token_kinds:
            allowed = ", ".join(sorted(self.variant.token_kinds)) or "none"
            raise RulesError(f"variant {self.variant.name} has no {kind!r} token (its tokens: {allowed})")
        if self.tokens <= 0:
            raise RulesError(f"no tokens left for {kind!r}")
        if kind == "remove":
            if not (0 <= move.row < SIZE and 0 <= move.col < SIZE):
                raise RulesError(f"remove at row {clipped(str(move.row))}, col {clipped(str(move.col))}: "
                                 f"not a cell of the board (rows and cols 0..{SIZE - 1})")
            bit = bb_cell(move.row, move.col)
            if self.board.stones & bit:
                raise RulesError(f"remove at row {move.row}, col {move.col}: a stone cannot be removed")
            if not self.board.filled & bit:
                raise RulesError(f"remove at row {move.row}, col {move.col}: the cell is empty")
            self.board = Board(self.board.filled & ~bit, self.board.stones, self.board.pumpkins & ~bit)
        elif self.tray is None:  # a free game (a replay) places any piece, so a rotate, reroll, swap or
            # refresh only spends its token (what it dealt is in the placements that follow)
            if kind == "rotate":
                rotate_cw(get_piece(move.piece), move.turns)
            elif kind == "swap":
                get_piece(move.piece)
        elif kind == "rotate":
            tray = self._need_tray(kind)
            piece = get_piece(move.piece).id
            if piece not in tray:
                raise RulesError(f"rotate: piece {move.named} is not in the tray (tray: {', '.join(tray)})")
            tray[tray.index(piece)] = rotate_cw(get_piece(piece), move.turns).id
        elif kind == "swap":
            tray = self._need_tray(kind)
            piece = get_piece(move.piece).id
            if piece not in tray:
                raise RulesError(f"swap: piece {move.named} is not in the tray (tray: {', '.join(tray)})")
            tray[tray.index(piece)] = get_piece(self._need_deals(kind).next_piece()).id
        else:  # reroll (Arabic) and refresh (Sudoku): every piece still in the tray is replaced
            tray = self._need_tray(kind)
            deals = self._need_deals(kind)
            if isinstance(deals, ScriptedDeals) and deals.reserve_left < len(tray):
                # check before drawing, so a refused reroll leaves the reserve untouched
                raise RulesError(
                    f"{kind!r}: the level's reserve has {deals.reserve_left} piece(s) left, "
                    f"the tray needs {len(tray)}"
                )
            tray[:] = [get_piece(deals.next_piece()).id for _ in tray]
        self.tokens -= 1
        return MoveResult(move)

    def _need_tray(self, kind: str) -> list[str]:
        if not self.tray:
            raise RulesError(f"{kind!r} needs a tray with pieces in it")
        return self.tray

    def _need_deals(self, kind: str):
        if self.deals is None:
            raise RulesError(f"{kind!r} needs a deal stream (a level's reserve or a seeded supply)")
        return self.deals


def copy_game(game: Game) -> Game:
    """A copy that can be played on without touching ``game``; a level's deal stream is copied
    too (a random stream is shared: copying a seeded generator would replay its draws)."""
    twin = _shallow(game)  # the board and streak are immutable; the tray list is not
    twin.tray = None if game.tray is None else list(game.tray)
    if isinstance(game.deals, ScriptedDeals):
        twin.deals = _shallow(game.deals)
    return twin


def _shallow(obj):
    """``copy.copy`` of a plain object without its generic machinery (which took most of a
    copy's time: searches and brute forces copy a game per move)."""
    twin = object.__new__(type(obj))
    twin.__dict__.update(obj.__dict__)
    return twin
