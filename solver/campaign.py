"""The campaign solver: is a level solvable, and what is its best score — with proof.

The search is depth-first over the whole move sequence (trays in order,
any order inside a tray, clears between, every token use the variant
allows), with a transposition table across trays: a state reached again
with no more points than before has nothing new below it and is pruned.
Branch-and-bound cuts subtrees whose admissible upper bound cannot beat the
best found. When the search finishes inside its budget its answer is
proven (``optimal`` or ``infeasible``); otherwise it reports the best found
and the root's upper bound (``bound``).

Score definition (RULES.md §3): the best score is the highest final score
(placement points plus the bonus for unspent tokens) of any legal sequence
of at most ``limit`` placements whose end satisfies every goal other than
the score goal.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import NamedTuple

from . import watch
from .bitboard import Bitboard
from .bounds import clear_points_bound, reachable_pieces
from .engine import (clearing_spots, completes_zone, has_complete_zone, placement_points, settle,
                     stopping_sets)
from .level import Level, play_solution, removals_before_last_placement
from .moves import REDEAL_KINDS, Move, Placement, TokenUse, removals
from .pieces import get_piece, placements, turned_shapes

PROOF_OPTIMAL = "optimal"
PROOF_BOUND = "bound"
PROOF_INFEASIBLE = "infeasible"


class State(NamedTuple):  # (a tuple: built and hashed per node, a frozen dataclass took 3x the time)
    filled: Bitboard
    pumpkins: Bitboard
    tray_index: int  # index of the tray being placed (len(trays) once all are done)
    tray: tuple[str, ...]  # pieces left in that tray, sorted
    run: int
    turn_cleared: bool
    prev_turn_cleared: bool
    tokens: int
    reserve_index: int
    placed: int


def solvable_verdict(best: int | None, goal: int | None, proven: bool, bound: int | None) -> bool | None:
    """Whether a line meets every goal: yes when the best line found does; no only when that is
    proven, by a finished search or by an upper bound below the score goal (a line meeting every
    goal would score at least the goal and meet the others, so the best score would too); else
    not known (None), as when the time runs out before a first line."""
    if best is not None and (goal is None or best >= goal):
        return True
    if proven or (goal is not None and bound is not None and bound < goal):
        return False
    return None


@dataclass
class CampaignAnswer:
    solvable: bool | None  # None: not known (``solvable_verdict``)
    best_score: int | None
    proof: str  # optimal | bound | infeasible
    bound: int | None
    solution: list[Move] | None  # meets every goal (score goal included) when solvable
    best_line: list[Move] | None  # reaches best_score
    nodes: int = 0
    seconds: float = 0.0
    complete: bool = True  # the search finished inside its budget

    def __post_init__(self) -> None:
        if self.solution is not None:
            self.solution = removals_before_last_placement(self.solution)
        if self.best_line is not None:
            self.best_line = removals_before_last_placement(self.best_line)

    def to_json(self, level: Level | None = None) -> dict:
        """With ``level``, the solution names its pieces as the level's file does."""
        solution = None
        if self.solution is not None:
            solution = [m.to_json() for m in self.solution] if level is None else level.moves_json(self.solution)
        return {
            "solvable": self.solvable,
            "best_score": self.best_score,
            "proof": self.proof,
            "bound": self.bound,
            "solution": solution,
        }


class _Budget(Exception):
    pass


@dataclass
class CampaignSearch:
    level: Level
    time_limit: float = 30.0
    node_limit: int = 5_000_000
    nodes: int = 0
    _deadline: float = 0.0
    _best: int | None = None
    _best_line: list[Move] = field(default_factory=list)
    _seen: dict = field(default_factory=dict)
    # a solver.campaign_jit.CompiledSearch that takes the subtrees where no token is worth spending
    _compiled: object = None
    # where the search starts, for a level part played (``solver.continuation``): the state and
    # the points scored so far; None: the level's start
    start: State | None = None
    start_points: int = 0

    def __post_init__(self) -> None:
        level = self.level
        self.variant = level.variant
        self.stones = level.board.stones
        self.trays = [tuple(sorted(t)) for t in level.trays]
        self.reserve = list(level.reserve)
        self.limit = level.limit
        self.bonus = self.variant.token_bonus
        self.need_pumpkins = level.needs_pumpkins
        self.need_all = level.needs_all_placed
        self.kinds = self.variant.token_kinds

    # ------------------------------------------------------------------
    def _upper_bound(self, s: State, points: int) -> int:
        """Admissible: the unspent tokens' bonus, every remaining cell, and the clear-points bound."""
        variant = self.variant
        left = self.limit - s.placed
        pieces, trays_ending = reachable_pieces(s.tray, self.trays[s.tray_index + 1:], left)
        if s.tokens and self.kinds & REDEAL_KINDS:
            pieces.extend(self.reserve[s.reserve_index:])
        cells = sum(sorted((get_piece(p).size for p in pieces), reverse=True)[:left])
        total = points + s.tokens * self.bonus + cells * variant.cell_points
        clears = clear_points_bound(variant, s.filled, self.stones, pieces, s.run,
                                    self._full_scan and s.placed == 0, count=left)
        total += clears
        if variant.flow_bonus:
            if clears:
                total += variant.flow_bonus * trays_ending
            elif s.turn_cleared and s.prev_turn_cleared:
                total += variant.flow_bonus
        return total

    def _ends_ok(self, s: State) -> bool:
        """Every goal except the score holds if the sequence stops here."""
        if self.need_pumpkins and s.pumpkins:
            return False
        if self.need_all and s.tray_index < len(self.trays):
            return False
        return True

    def _start(self) -> State:
        level = self.level
        if self.start is not None:
            self._full_scan = has_complete_zone(self.variant, self.start.filled, self.stones)
            return self.start
        self._full_scan = has_complete_zone(self.variant, level.board.filled, self.stones)
        first = self.trays[0] if self.trays else ()
        return State(level.board.filled, level.board.pumpkins, 0, first, 0, False, False, level.tokens, 0, 0)

    def start_bound(self) -> int:
        """The admissible upper bound on the level's best score, before any search."""
        return self._upper_bound(self._start(), self.start_points)

    def _compiled_start(self) -> tuple | None:
        """The start for ``campaign_jit.search``: None for the level's own; for a part-played
        level, the state's fields (``runs_compiled`` must hold)."""
        s = self.start
        if s is None:
            return None
        return (s.tray_index, slots_of(self.trays, s.tray_index, s.tray), s.run, s.turn_cleared,
                s.prev_turn_cleared, self.start_points, s.placed, s.tokens)

    def _ends_line(self, s: State) -> bool:
        """The next placement is the line's last: the limit, or the last tray's last piece."""
        return s.placed + 1 >= self.limit or (s.tray_index == len(self.trays) - 1 and len(s.tray) == 1)

    def _pumpkins_removable(self, s: State) -> bool:
        return (self.need_pumpkins and "remove" in self.kinds and 0 < s.pumpkins.bit_count() <= s.tokens
                and not (self.need_all and s.tray_index < len(self.trays)))

    # ------------------------------------------------------------------
    def run(self, target: int | None = None, hint: list[Move] | None = None) -> CampaignAnswer:
        """Search for the best score; with ``target``, stop as soon as a line reaches it.

        ``hint``, a known legal line, starts the branch-and-bound with its score.
        """
        start = time.perf_counter()
        if hint:
            self._seed(hint)
        self._deadline = start + self.time_limit
        s0 = self._start()
        self._target = target
        complete = True
        try:
            self._search(s0, self.start_points, [])
        except _Budget:
            complete = False
        except _Found:
            complete = False
        return self._answer(complete, time.perf_counter() - start)

    def run_compiled(self, target: int | None = None, hint: list[Move] | None = None) -> CampaignAnswer:
        """``run`` on the compiled search, which spends rotate and remove tokens itself; not for
        levels with tokens that redeal (reroll, swap, refresh) from a reserve."""
        from . import campaign_jit

        campaign_jit.warm_up()  # a first compile (or cache load) is not the level's time
        start = time.perf_counter()
        if hint:
            self._seed(hint)
        status, best, nodes, line = campaign_jit.search(self.level, self.time_limit, self.node_limit,
                                                         self._best, target, self._compiled_start())
        if line is not None:
            self._best, self._best_line = best, line
        self.nodes = nodes
        seconds = time.perf_counter() - start
        complete = status == campaign_jit.STATUS_DONE
        return self._answer(complete, seconds)

    def _answer(self, complete: bool, seconds: float) -> CampaignAnswer:
        best = self._best
        line = list(self._best_line) if best is not None else None
        if complete:
            proof = PROOF_OPTIMAL if best is not None else PROOF_INFEASIBLE
            bound = best
        else:
            proof = PROOF_BOUND
            bound = self.start_bound()
        solvable = solvable_verdict(best, self.level.score_goal, complete, bound)
        return CampaignAnswer(solvable, best, proof, bound, line if solvable else None, line,
                              self.nodes, seconds, complete)

    def _seed(self, hint: list[Move]) -> None:
        if self.start is not None:
            raise ValueError("a hint is a line from the level's start, not from a part-played one")
        replay = play_solution(self.level, hint, ignore_score=True)
        if replay.ok:
            self._best = replay.score
            self._best_line = list(hint)

    def _offer(self, s: State, points: int, line: list[Move]) -> None:
        final = points + s.tokens * self.bonus
        if self._best is None or final > self._best:
            self._best = final
            self._best_line = list(line)
            if self._target is not None and final >= self._target:
                raise _Found

    def _search(self, s: State, points: int, line: list[Move]) -> None:
        self.nodes += 1
        if self.nodes & 1023 == 0 and (time.perf_counter() > self._deadline or self.nodes > self.node_limit
                                       or watch.tick(self.nodes, self._best)):
            raise _Budget
        if self._ends_ok(s):
            self._offer(s, points, line)
        elif self._pumpkins_removable(s):
            # Stop here by spending a token on each pumpkin left.
            removes = removals(s.pumpkins)
            n = len(removes)
            self._offer(s._replace(filled=s.filled & ~s.pumpkins, pumpkins=0, tokens=s.tokens - n),
                        points, line + removes)
        if s.placed >= self.limit or s.tray_index >= len(self.trays):
            return
        bound = self._upper_bound(s, points)
        if self._best is not None and bound <= self._best:
            return
        seen = self._seen.get(s)
        if seen is not None and seen >= points:
            return
        self._seen[s] = points
        if self._compiled is not None and (s.tokens == 0 or not self._spend_can_pay(bound, 1)):
            left = slots_of(self.trays, s.tray_index, s.tray)
            if left is not None:  # None: a redeal put reserve pieces in the tray
                self._hand_off(s, points, line, left)
                return
        occupied = s.filled | self.stones
        first_with_full_zone = self._full_scan and s.placed == 0
        if (s.tokens == 0 or not self.kinds) and not first_with_full_zone and self._ends_line(s):
            self._last_placement(s, points, line)
            return
        # Placements, those that complete a zone first (they raise the best soonest).
        later = []
        for piece in dict.fromkeys(s.tray):
            for spot in placements(piece):
                if spot.mask & occupied:
                    continue
                if completes_zone(self.variant, occupied, spot.mask):
                    self._place(s, piece, spot, points, line)
                else:
                    later.append((piece, spot))
        for piece, spot in later:
            self._place(s, piece, spot, points, line)
        if s.tokens <= 0:
            return
        if self.kinds & {"rotate", "remove"}:
            self._token_placements(s, points, line, bound)
        if self.kinds & REDEAL_KINDS and s.reserve_index < len(self.reserve):
            self._redeal(s, points, line)

    def with_compiled_subtrees(self) -> "CampaignSearch":
        """Hand every subtree where no token is worth spending to the compiled search.

        Below a state whose bound minus one token's bonus cannot beat the best, no line
        that spends a token can (``_spend_can_pay``), so the subtree is a token-free search
        with the unspent tokens' bonus as a constant: exactly what ``campaign_jit`` runs.
        """
        from .campaign_jit import CompiledSearch, warm_up

        if fits_compiled(self.level):
            warm_up()  # before ``run`` starts the clock
            self._compiled = CompiledSearch(self.level)
        return self

    def _hand_off(self, s: State, points: int, line: list[Move], left: int) -> None:
        from .campaign_jit import STATUS_BUDGET, STATUS_FOUND

        watch.node_base = self.nodes  # its ticks count on from this search's nodes
        try:
            status, best, nodes, sub = self._compiled.run(
                s.filled, s.pumpkins, s.tray_index, left, s.run, s.turn_cleared, s.prev_turn_cleared, points,
                s.placed, s.tokens, self._deadline, self.node_limit - self.nodes, self._best, self._target)
        finally:
            watch.node_base = 0
        self.nodes += nodes
        if sub is not None:
            self._best, self._best_line = best, line + sub
        if status == STATUS_FOUND:
            raise _Found
        if status == STATUS_BUDGET:
            raise _Budget

    def _spend_can_pay(self, bound: int, cost: int) -> bool:
        """Whether spending ``cost`` tokens here could still beat the best.

        A child reached by spending tokens has an upper bound at most the
        parent's minus their bonus: its clear-points bound plus what the move
        itself scores never exceeds the parent's (the completions it counts fit
        in the parent's missing-cell budget, and its pieces' caps are a subset).
        """
        return self._best is None or bound - cost * self.bonus > self._best

    def _token_placements(self, s: State, points: int, line: list[Move], bound: int) -> None:
        """Placements that spend rotate/remove tokens on the way, searched as one step.

        Why this covers every use of these tokens: a rotation only changes the
        piece it turns, so it can wait until that piece is placed. A removed
        tile changes nothing until the first later placement that covers its
        cell, or that would complete a zone through it (until then both boards
        agree everywhere else, and no zone through the cell can complete on
        either). So every removal can wait until just before such a placement:
        it frees the spot the piece takes, or stops one of the zones the
        placement would complete. A removal that never matters only costs its
        token (pumpkins aside, which ``_search`` removes at a line's end).
        """
        stones = self.stones
        occupied = s.filled | stones
        can_remove = "remove" in self.kinds
        can_rotate = "rotate" in self.kinds
        # Stopping a clear pays only through a later placement: on the line's last one it scores
        # no more (clear points grow with the zones cleared), keeps no fewer tiles or pumpkins,
        # and costs tokens, so the placement that clears them all beats it.
        ends = self._ends_line(s)
        can_prevent = can_remove and not ends
        # On the line's last placement a spend whose spot clears nothing scores the piece's cells
        # and costs tokens: a free spot of the piece that clears nothing scores the same, and the
        # pumpkins the spend would remove can go at the end for no more tokens (``_search``).
        plain_free = ends and not (self._full_scan and s.placed == 0)
        for piece in dict.fromkeys(s.tray):
            skip_plain = plain_free and self._has_free_plain_spot(piece, occupied)
            shapes = [(piece, 0)] + (list(turned_shapes(piece)) if can_rotate else [])
            i = s.tray.index(piece)
            for shape, turns in shapes:
                rot_cost = 1 if turns else 0
                tray = tuple(sorted(s.tray[:i] + (shape,) + s.tray[i + 1:])) if turns else s.tray
                for spot in placements(shape):
                    overlap = spot.mask & occupied
                    if overlap & stones or (overlap and not can_remove):
                        continue
                    cost = rot_cost + overlap.bit_count()
                    if cost > s.tokens or not self._spend_can_pay(bound, max(cost, 1)):
                        continue
                    if skip_plain and cost and not completes_zone(self.variant, occupied, spot.mask):
                        continue
                    lead: list[Move] = [TokenUse("rotate", piece=piece, turns=turns)] if turns else []
                    lead += removals(overlap)
                    base = s._replace(filled=s.filled & ~overlap, pumpkins=s.pumpkins & ~overlap,
                                    tokens=s.tokens - cost, tray=tray)
                    if cost:
                        line.extend(lead)
                        self._place(base, shape, spot, points, line)
                        del line[len(line) - len(lead):]
                    if can_prevent and base.tokens and self._spend_can_pay(bound, cost + 1):
                        self._prevent_clears(base, shape, spot, points, line, lead, bound, cost)

    def _has_free_plain_spot(self, piece: str, occupied: Bitboard) -> bool:
        return any(not spot.mask & occupied and not completes_zone(self.variant, occupied, spot.mask)
                   for spot in placements(piece))

    def _prevent_clears(self, s: State, shape: str, spot, points: int, line: list[Move],
                        lead: list[Move], bound: int, spent: int) -> None:
        """Remove tiles so that this placement does not complete some of the zones it would
        (a zone full from the start clears with the line's first placement too)."""
        full_scan = self._full_scan and s.placed == 0
        for mask in stopping_sets(self.variant, self.stones, s.filled, spot.mask, s.tokens, full_scan):
            size = mask.bit_count()
            if not self._spend_can_pay(bound, spent + size):
                break  # the sets come smaller first
            moves = lead + removals(mask)
            line.extend(moves)
            self._place(s._replace(filled=s.filled & ~mask, pumpkins=s.pumpkins & ~mask,
                                 tokens=s.tokens - size), shape, spot, points, line)
            del line[len(line) - len(moves):]

    def _last_placement(self, s: State, points: int, line: list[Move]) -> None:
        """The final placement with no tokens to spend: only spots that clear can beat the others,
        so every non-clearing spot is judged by one representative."""
        occupied = s.filled | self.stones
        plain: dict[str, object] = {}
        for piece in dict.fromkeys(s.tray):
            shape_spots = placements(piece)
            clearing = clearing_spots(self.variant, occupied, piece)
            for spot in clearing.values():
                self._place(s, piece, spot, points, line)
            if not s.pumpkins or not self.need_pumpkins:
                for spot in shape_spots:
                    if not spot.mask & occupied and spot.mask not in clearing:
                        plain[piece] = spot
                        break
        for piece, spot in plain.items():
            self._place(s, piece, spot, points, line)

    def _redeal(self, s: State, points: int, line: list[Move]) -> None:
        reserve = self.reserve
        if "swap" in self.kinds:
            for piece in dict.fromkeys(s.tray):
                i = s.tray.index(piece)
                tray = tuple(sorted(s.tray[:i] + (reserve[s.reserve_index],) + s.tray[i + 1:]))
                line.append(TokenUse("swap", piece=piece))
                self._search(s._replace(tray=tray, tokens=s.tokens - 1, reserve_index=s.reserve_index + 1),
                             points, line)
                line.pop()
        need = len(s.tray)
        if s.reserve_index + need <= len(reserve):
            tray = tuple(sorted(reserve[s.reserve_index:s.reserve_index + need]))
            kind = "reroll" if "reroll" in self.kinds else "refresh"
            if kind in self.kinds:
                line.append(TokenUse(kind))
                self._search(s._replace(tray=tray, tokens=s.tokens - 1,
                                      reserve_index=s.reserve_index + need), points, line)
                line.pop()

    def _place(self, s: State, piece: str, spot, points: int, line: list[Move]) -> None:
        variant = self.variant
        full_scan = self._full_scan and s.placed == 0
        filled, lines, regions = settle(variant, s.filled, self.stones, spot.mask, full_scan)
        cleared = lines + regions > 0
        gained = placement_points(variant, spot.mask.bit_count(), lines, regions, s.run)
        i = s.tray.index(piece)
        tray = s.tray[:i] + s.tray[i + 1:]
        run = s.run + 1 if cleared else 0
        turn_cleared = s.turn_cleared or cleared
        prev = s.prev_turn_cleared
        tray_index = s.tray_index
        if not tray:
            if turn_cleared and prev:
                gained += variant.flow_bonus
            prev = turn_cleared
            turn_cleared = False
            tray_index += 1
            tray = self.trays[tray_index] if tray_index < len(self.trays) else ()
        nxt = State(filled, s.pumpkins & filled, tray_index, tray, variant.run_key(run), turn_cleared, prev,
                    s.tokens, s.reserve_index, s.placed + 1)
        line.append(Placement(piece, spot.row, spot.col))
        self._search(nxt, points + gained, line)
        line.pop()


class _Found(Exception):
    pass


def slots_of(trays: list[tuple[str, ...]], tray_index: int, pieces: tuple[str, ...]) -> int | None:
    """The compiled search's mask of the unplaced slots of tray ``tray_index`` (its pieces sorted)
    that hold ``pieces`` (of a repeated piece, the last slots, as that search leaves them); None
    if the pieces are not all that tray's."""
    if tray_index >= len(trays):
        return 0 if not pieces else None
    tray = trays[tray_index]
    mask = 0
    for piece in set(pieces):
        slots = [j for j, p in enumerate(tray) if p == piece]
        need = pieces.count(piece)
        if need > len(slots):
            return None
        for j in slots[len(slots) - need:]:
            mask |= 1 << j
    return mask


def runs_compiled(level: Level, start: State | None = None) -> bool:
    """Whether ``solve_level`` answers with the compiled search alone: not where tokens may redeal
    from the level's reserve, nor from a ``start`` whose tray a rotate or redeal filled with pieces
    that are not its tray's (the readable search answers those, handing it subtrees)."""
    if level.redeals or not fits_compiled(level):
        return False
    return start is None or slots_of([tuple(sorted(t)) for t in level.trays], start.tray_index,
                                     start.tray) is not None


def fits_compiled(level: Level) -> bool:
    """Whether the compiled search's transposition key holds the level (tray index < 2^16,
    tokens < 2^8)."""
    return len(level.trays) < 1 << 16 and level.tokens < 1 << 8


def solve_level(level: Level, time_limit: float = 30.0, node_limit: int = 10**12,
                target: int | None = None, hint: list[Move] | None = None,
                compiled: bool = True, start: State | None = None, start_points: int = 0,
                seed: tuple[int, list[Move]] | None = None) -> CampaignAnswer:
    """The level's answer within ``time_limit`` seconds (and ``node_limit`` nodes, which the
    generator sets for answers that do not depend on the machine). Levels run the compiled
    twin of ``CampaignSearch`` (``solver.campaign_jit``), which spends rotate and remove
    tokens too; levels with a reserve and tokens that redeal from it run ``CampaignSearch``,
    handing it every subtree where no token is worth spending. ``compiled=False`` runs the
    readable reference alone. ``start`` and ``start_points``: a part-played level's state and
    points (``solver.continuation``), whose answer is the rest of the game; ``seed``, the final
    score and moves of a known rest (checked by the caller), starts its branch-and-bound as
    ``hint`` does the level's."""
    search = CampaignSearch(level, time_limit, node_limit, start=start, start_points=start_points)
    if seed is not None:
        search._best, search._best_line = seed[0], list(seed[1])
    if compiled and runs_compiled(level, start):
        return search.run_compiled(target, hint)
    if compiled:
        search.with_compiled_subtrees()
    return search.run(target, hint)


def best_of(first: CampaignAnswer, second: CampaignAnswer) -> CampaignAnswer:
    """One answer from two methods' answers on the same level (``tenfold solve --method auto``:
    the search's, then CP-SAT's). A proof from either stands (CP-SAT's first). Otherwise: the
    higher best found, with its line; the lower of the two upper bounds (both admissible, so
    their minimum is), never below that best; a solution from whichever found one."""
    for answer in (second, first):
        if answer.proof != PROOF_BOUND:
            return answer
    scores = [-math.inf if a.best_score is None else a.best_score for a in (first, second)]
    top, other = (second, first) if scores[1] > scores[0] else (first, second)
    bounds = [a.bound for a in (first, second) if a.bound is not None]
    bound = min(bounds) if bounds else None
    if bound is not None and top.best_score is not None:
        bound = max(bound, top.best_score)
    solved = top if top.solvable else other
    verdicts = {first.solvable, second.solvable}
    solvable = True if True in verdicts else False if False in verdicts else None
    return CampaignAnswer(solvable, top.best_score, PROOF_BOUND, bound,
                          solved.solution if solved.solvable else None, top.best_line,
                          first.nodes + second.nodes, first.seconds + second.seconds, complete=False)
