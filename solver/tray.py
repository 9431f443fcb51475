"""The tray solver: can these pieces all be placed, and what is the best way?

A tray is treated as one turn: its pieces go down in any order, zones clear
between placements, and the Arabic flow bonus is judged when it empties.

The searches are depth-first over bitboards with a transposition table
keyed on (board, pieces left, streak state). Placing the same pieces in
another order without clears reaches the same board, so commuting
placements are searched once; equal pieces are tried once per node.

``best`` is branch-and-bound on points with an admissible upper bound on
the clear points still reachable. Among plans with the most points, ties
go to board health: more empty cells, then fewer isolated empty cells
(``health``). Every plan the solver returns is a list of moves
(placements, and the token uses of a rescue) that ``Game.apply`` replays
to exactly its claimed points.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain

from .bitboard import BB_ALL, Bitboard, isolated_empty
from .board import Board
from .bounds import zones_per_piece
from .engine import Streak, clearing_spots, has_complete_zone, placement_points, settle, stopping_sets
from .moves import Move, Placement, TokenUse, removals
from .pieces import SHAPE_CACHE, Spot, get_piece, placements, rotate_cw, turned_shapes
from .variants import Variant


def health(filled: Bitboard, stones: Bitboard) -> tuple[int, int]:
    """Board health, larger is better: (empty cells, -isolated empty cells)."""
    occupied = filled | stones
    return ((BB_ALL & ~occupied).bit_count(), -isolated_empty(occupied))


@dataclass
class TrayAnswer:
    placeable: bool
    best_score: int | None
    plan: list[Move] | None
    safe_moves: list[Placement] = field(default_factory=list)
    tokens_used: int = 0

    def to_json(self, with_tokens: bool = False) -> dict:
        out = {
            "placeable": self.placeable,
            "best_score": self.best_score,
            "plan": None if self.plan is None else [m.to_json() for m in self.plan],
            "safe_moves": [m.to_json() for m in self.safe_moves],
        }
        if with_tokens:
            out["tokens_used"] = self.tokens_used
        return out


class TraySearch:
    """All the tray questions for one board, variant and streak state."""

    def __init__(self, variant: Variant, board: Board, streak: Streak | None = None):
        self.variant = variant
        self.board = board
        self.stones = board.stones
        self.streak = streak or Streak()
        self.full_scan = has_complete_zone(variant, board.filled, board.stones)
        self.nodes = 0
        self._placeable_tt: dict = {}
        self._best_tt: dict = {}
        self._zones = variant.zones

    # ------------------------------------------------------------------
    # moves
    def _step(self, filled: Bitboard, spot: Spot, run: int, full_scan: bool):
        """Apply one placement: (filled after, points, cleared?)."""
        after, lines, regions = settle(self.variant, filled, self.stones, spot.mask, full_scan)
        points = placement_points(self.variant, spot.mask.bit_count(), lines, regions, run)
        return after, points, lines + regions > 0

    def _fits(self, filled: Bitboard, pieces: tuple[str, ...]):
        """(piece, the pieces left, spot) for each distinct piece and each spot where it fits."""
        occupied = filled | self.stones
        for piece, rest in _choices(pieces):
            for spot in placements(piece):
                if not spot.mask & occupied:
                    yield piece, rest, spot

    # ------------------------------------------------------------------
    # placeable
    def placeable(self, pieces: list[str] | tuple[str, ...]) -> list[Placement] | None:
        """A witness plan that places every piece, or None."""
        ordered = tuple(sorted((get_piece(p).id for p in pieces), key=_difficulty))
        return self._place_all(self.board.filled, ordered, self.full_scan)

    def _place_all(self, filled: Bitboard, pieces: tuple[str, ...], full_scan: bool):
        if not pieces:
            return []
        key = (filled, pieces)
        if key in self._placeable_tt:
            return self._placeable_tt[key]
        occupied = filled | self.stones
        result = None
        if len(pieces) == 1:
            for spot in placements(pieces[0]):
                if not spot.mask & occupied:
                    result = [Placement(spot.piece, spot.row, spot.col)]
                    break
        else:
            for _, rest, spot in self._fits(filled, pieces):
                self.nodes += 1
                after, _, _ = settle(self.variant, filled, self.stones, spot.mask, full_scan)
                tail = self._place_all(after, rest, False)
                if tail is not None:
                    result = [Placement(spot.piece, spot.row, spot.col)] + tail
                    break
        self._placeable_tt[key] = result
        return result

    # ------------------------------------------------------------------
    # best ordering
    def best(self, pieces: list[str] | tuple[str, ...]) -> tuple[int, list[Placement]] | None:
        """(most points for the whole tray, a plan reaching them), health breaking ties; None if unplaceable."""
        ids = tuple(sorted(get_piece(p).id for p in pieces))
        if self.placeable(ids) is None:
            return None
        s = self.streak
        self._best_key = None
        self._best_plan: list[Placement] = []
        self._search(self.board.filled, ids, s.run, s.turn_cleared, 0, [], self.full_scan)
        return self._best_key[0], self._best_plan

    def _clear_bound(self, filled: Bitboard, pieces: tuple[str, ...], run: int, turn_cleared: bool,
                     full_scan: bool = False) -> int:
        """An upper bound on the clear points (and flow bonus) the remaining pieces can add.

        A zone can complete only if its missing cells fit in what the pieces
        can put into it (missing cells only grow through clears). Each piece
        completes at most the zones one spot of it touches (``zones_per_piece``:
        ``height + width`` lines, plus in Sudoku the regions, up to 14 for a
        level's own 3x10).
        """
        variant = self.variant
        stones = self.stones
        occupied = filled | stones
        shapes = [get_piece(p) for p in pieces]
        row_cap = sum(_row_capacity(p.id) for p in shapes)
        col_cap = sum(_col_capacity(p.id) for p in shapes)
        cells = sum(p.size for p in shapes)
        candidates = 0
        for index, zone in enumerate(self._zones):
            missing = (zone & ~occupied).bit_count()
            cap = row_cap if index < 10 else col_cap if index < 20 else cells
            if (missing or full_scan) and missing <= cap and zone & ~stones:
                candidates += 1
        bound = 0
        if candidates:
            already = 0  # zones complete from the start clear with the first placement, anywhere
            if full_scan:
                already = sum(1 for z in self._zones if occupied & z == z and z & ~stones)
            for shape in shapes:
                span = zones_per_piece(variant, shape.id) + already
                already = 0
                z = min(span, candidates)
                if variant.regions:
                    bound += variant.clear_points(0, z, run)
                else:
                    bound += variant.clear_points(z, 0, max(run, 1))
                run += 1
        if variant.flow_bonus and self.streak.prev_turn_cleared and (candidates or turn_cleared):
            bound += variant.flow_bonus
        return bound

    def _offer(self, filled: Bitboard, points: int, turn_cleared: bool, plan: list[Placement]) -> None:
        """A complete plan: keep it if it beats the best on (points, health)."""
        if self.variant.flow_bonus and turn_cleared and self.streak.prev_turn_cleared:
            points += self.variant.flow_bonus
        key = (points,) + health(filled, self.stones)
        if self._best_key is None or key > self._best_key:
            self._best_key = key
            self._best_plan = list(plan)

    def _search(self, filled, pieces, run, turn_cleared, points, plan, full_scan):
        self.nodes += 1
        if not pieces:
            self._offer(filled, points, turn_cleared, plan)
            return
        if len(pieces) == 1 and not full_scan:
            self._search_last(filled, pieces[0], run, turn_cleared, points, plan)
            return
        best = self._best_key
        if best is not None:
            cells = sum(get_piece(p).size for p in pieces)
            clear_bound = self._clear_bound(filled, pieces, run, turn_cleared, full_scan)
            bound = points + cells * self.variant.cell_points + clear_bound
            if bound < best[0]:
                return
            if bound == best[0] and clear_bound == 0:
                # No clears below: the final empty count is known, and an isolated
                # empty cell stays isolated unless a 1x1 fills it.
                occupied = filled | self.stones
                empties = (BB_ALL & ~occupied).bit_count() - cells
                if best[1] > empties:
                    return
                if best[1] == empties and -best[2] <= isolated_empty(occupied) - pieces.count("1x1"):
                    return
        tt_key = (filled, pieces, self.variant.run_key(run), turn_cleared)
        seen = self._best_tt.get(tt_key)
        if seen is not None and seen >= points:
            return  # reached before with at least as many points: nothing new below
        self._best_tt[tt_key] = points
        for _, rest, spot in self._fits(filled, pieces):
            after, gained, cleared = self._step(filled, spot, run, full_scan)
            plan.append(Placement(spot.piece, spot.row, spot.col))
            self._search(after, rest, run + 1 if cleared else 0, turn_cleared or cleared,
                         points + gained, plan, False)
            plan.pop()

    def _search_last(self, filled, piece, run, turn_cleared, points, plan):
        """The last piece: only spots that complete a zone can score more than the cells."""
        stones = self.stones
        occupied = filled | stones
        shape = get_piece(piece)
        clearing = clearing_spots(self.variant, occupied, piece)
        if clearing:
            for spot in clearing.values():
                after, gained, _ = self._step(filled, spot, run, False)
                plan.append(Placement(spot.piece, spot.row, spot.col))
                self._offer(after, points + gained, True, plan)
                plan.pop()
            return
        # No clear possible: every spot scores the same; look for the healthiest.
        total = points + shape.size * self.variant.cell_points
        if self.variant.flow_bonus and turn_cleared and self.streak.prev_turn_cleared:
            total += self.variant.flow_bonus
        best = self._best_key
        if best is not None and total < best[0]:
            return
        empties = (BB_ALL & ~occupied).bit_count() - shape.size
        if best is not None and total == best[0] and best[1] > empties:
            return
        floor = isolated_empty(occupied) - (1 if piece == "1x1" else 0)
        if best is not None and total == best[0] and best[1] == empties and -best[2] <= floor:
            return
        chosen = None
        fewest = None
        for spot in placements(piece):
            if spot.mask & occupied:
                continue
            isolated = isolated_empty(occupied | spot.mask)
            if fewest is None or isolated < fewest:
                chosen, fewest = spot, isolated
                if isolated <= floor:
                    break
        if chosen is None:
            return
        key = (total, empties, -fewest)
        if best is None or key > best:
            self._best_key = key
            self._best_plan = plan + [Placement(chosen.piece, chosen.row, chosen.col)]

    # ------------------------------------------------------------------
    # hints
    def safe_moves(self, pieces: list[str] | tuple[str, ...]) -> list[Placement]:
        """Every first placement after which the rest of the tray can still be placed."""
        ids = tuple(sorted((get_piece(p).id for p in pieces), key=_difficulty))
        safe = []
        for _, rest, spot in self._fits(self.board.filled, ids):
            after, _, _ = settle(self.variant, self.board.filled, self.stones, spot.mask, self.full_scan)
            if self._place_all(after, rest, False) is not None:
                safe.append(Placement(spot.piece, spot.row, spot.col))
        return sorted(safe, key=lambda m: (m.piece, m.row, m.col))

    # ------------------------------------------------------------------
    # token rescue
    def rescue(self, pieces: list[str] | tuple[str, ...], tokens: int) -> tuple[int, list[Move]] | None:
        """The fewest tokens (rotate, remove where the variant has them) that make the tray
        placeable, with a plan; None if ``tokens`` are not enough."""
        ids = tuple(sorted(get_piece(p).id for p in pieces))
        kinds = self.variant.token_kinds & {"rotate", "remove"}
        if not kinds:
            return None
        # No token frees a stone: a piece with no stone-free spot in any shape it may take
        # never fits (without this, boards of stones searched every budget in vain).
        for piece in set(ids):
            shapes = {rotate_cw(get_piece(piece), t).id for t in range(4)} if "rotate" in kinds else {piece}
            if not any(not spot.mask & self.stones for shape in shapes for spot in placements(shape)):
                return None
        # Some plan with the fewest tokens turns each piece at most once (one token turns it any
        # way) and removes only tiles under the pieces' cells (a removal elsewhere only stops a
        # clear, which never helps a piece fit; best_rescue's stoppers are for points): so the
        # fewest is at most this many, and trying more only deepens the search (1,000 tokens
        # overflowed the recursion).
        memo: dict = {}
        for used in range(0, min(tokens, rescue_cap(ids)) + 1):
            for turns, lead in self._turnings(ids, used):
                plan = self._rescue(self.board.filled, turns, used - len(lead), "remove" in kinds,
                                    self.full_scan, memo)
                if plan is not None:
                    return used, lead + plan
        return None

    def best_rescue(self, pieces: list[str] | tuple[str, ...], tokens: int) -> tuple[int, int, list[Move]] | None:
        """(tokens spent, points, plan): among the plans spending the fewest tokens that make the
        tray placeable, one with the most points; None if ``tokens`` are not enough.

        ``rescue`` finds the fewest tokens; a branch-and-bound then searches every plan spending
        that many, its first plan's points as the floor. A rotation only matters to the
        placement of its piece, so rotations are chosen up front (every way to turn pieces within
        the budget); a removal may come before any placement, of any ordinary tile. Removals only
        empty cells, so the clear bound of a board holds for the boards its removals lead to.
        Placing all the pieces with tokens unspent cannot happen: fewer tokens would have done.
        """
        found = self.rescue(pieces, tokens)
        if found is None:
            return None
        used, first = found
        if used == 0:
            return None  # the tray fits without tokens: not a rescue
        self._rescue_best = (plan_points(self.variant, self.board, list(pieces), first, self.streak), first)
        self._rescue_tt: dict = {}
        ids = tuple(sorted(get_piece(p).id for p in pieces))
        s = self.streak
        for turns, lead in self._turnings(ids, used):
            self._search_rescue(self.board.filled, turns, used - len(lead), s.run, s.turn_cleared, 0,
                                list(lead), self.full_scan)
        points, plan = self._rescue_best
        return used, points, plan

    def _turnings(self, pieces: tuple[str, ...], budget: int):
        """(the pieces as turned, the rotate tokens turning them) for every way to turn at most
        ``budget`` of them, each once (one token turns a piece any way); no turns first."""
        if "rotate" not in self.variant.token_kinds:
            yield pieces, []
            return

        def ways(i: int, left: int):
            if i == len(pieces):
                yield (), []
                return
            piece = pieces[i]
            options = [(piece, None)]
            if left:
                options += [(shape, TokenUse("rotate", piece=piece, turns=t)) for shape, t in turned_shapes(piece)]
            for shape, token in options:
                for rest, tokens in ways(i + 1, left - (token is not None)):
                    yield (shape,) + rest, ([token] if token else []) + tokens

        seen_multisets = set()
        for shapes, lead in ways(0, budget):
            key = tuple(sorted(shapes))
            if (key, len(lead)) in seen_multisets:
                continue
            seen_multisets.add((key, len(lead)))
            yield key, lead

    def _search_rescue(self, filled, pieces, tokens, run, turn_cleared, points, plan, full_scan):
        """Branch-and-bound over rescue plans spending exactly ``tokens`` more.

        In a plan with the fewest tokens every removal matters to some placement: the placement
        covers its cell, or would complete a zone through it (else keeping the tile plays the
        same game with a token fewer). Until that placement the tile changes nothing, so each
        removal is searched just before it: the tiles under the spot, then tiles stopping zones
        it would complete (each stopping one the others do not; as the campaign search does).
        """
        self.nodes += 1
        cells = sum(get_piece(p).size for p in pieces)
        clears = self._clear_bound(filled, pieces, run, turn_cleared, full_scan)
        bound = points + cells * self.variant.cell_points + clears
        if bound <= self._rescue_best[0]:
            return
        if not pieces:
            if self.variant.flow_bonus and turn_cleared and self.streak.prev_turn_cleared:
                points += self.variant.flow_bonus
            if points > self._rescue_best[0]:
                self._rescue_best = (points, list(plan))
            return
        if tokens == 0:
            board = Board(filled, self.stones, self.board.pumpkins & filled)
            found = best_plan(self.variant, board, pieces, Streak(run, turn_cleared, self.streak.prev_turn_cleared))
            if found is not None and points + found[0] > self._rescue_best[0]:
                self._rescue_best = (points + found[0], plan + list(found[1]))
            return
        key = (filled, pieces, tokens, self.variant.run_key(run), turn_cleared)
        seen = self._rescue_tt.get(key)
        if seen is not None and seen >= points:
            return
        self._rescue_tt[key] = points
        for spot, rest, board, moves, used in self._rescue_steps(filled, pieces, tokens, full_scan):
            after, gained, cleared = self._step(board, spot, run, full_scan)
            plan.extend(moves)
            self._search_rescue(after, rest, tokens - used, run + 1 if cleared else 0,
                                turn_cleared or cleared, points + gained, plan, False)
            del plan[len(plan) - len(moves):]

    def _rescue_steps(self, filled, pieces, tokens, full_scan):
        """The first steps of the plans spending at most ``tokens`` on removals, each a placement
        and the removals just before it: (spot, pieces left, the filled cells it lands on, the
        moves, tokens used). The tiles under the spot go, then each set of tiles stopping zones
        it would complete (``stopping_sets``). The last placement spends exactly what is left, with
        no stoppers: a plan stopping a clear there wins with those tokens unspent."""
        occupied = filled | self.stones
        for piece, rest in _choices(pieces):
            for spot in placements(piece):
                blocked = spot.mask & occupied
                spent = blocked.bit_count()
                if blocked & self.stones or spent > tokens or (not rest and spent < tokens):
                    continue
                lead = removals(blocked)
                place = Placement(spot.piece, spot.row, spot.col)
                base = filled & ~blocked
                if not rest:
                    yield spot, rest, base, lead + [place], spent
                    continue
                for stopped in chain((0,), stopping_sets(self.variant, self.stones, base, spot.mask,
                                                         tokens - spent, full_scan)):
                    yield spot, rest, base & ~stopped, lead + removals(stopped) + [place], spent + stopped.bit_count()

    def _rescue(self, filled, pieces, budget, remove, full_scan, memo):
        """A plan placing ``pieces`` (turned already) that removes at most ``budget`` tiles; None
        if there is none. The last placement spends what is left: ``rescue`` deepens the budget
        one token at a time, so a plan spending fewer was looked for already.

        A removal matters to the placement that covers its tile, or to one that would complete
        a zone through it: not clearing a zone can be what makes room later (the zone's other
        tiles complete a crossing zone), so a fuller board is not always the worse one. So, as
        in ``_search_rescue``, each placement comes with its removals (``_rescue_steps``).
        Searching spots rather than tiles keeps this small: removing any tiles under any spots,
        one at a time, tried every subset of them (a checkerboard with 30 tokens ran for
        minutes; this takes under a second)."""
        if budget == 0:
            return self._place_all(filled, tuple(sorted(pieces, key=_difficulty)), full_scan)
        if not remove:
            return None  # only turns to spend: the plan with these turns was tried with budget 0
        key = (filled, pieces, budget, full_scan)
        if key in memo:
            return None
        for spot, rest, board, moves, used in self._rescue_steps(filled, pieces, budget, full_scan):
            if not rest:
                return moves
            after, _, _ = settle(self.variant, board, self.stones, spot.mask, full_scan)
            tail = self._rescue(after, rest, budget - used, remove, False, memo)
            if tail is not None:
                return moves + tail
        memo[key] = None
        return None


def _choices(pieces: tuple[str, ...]):
    """(piece, the pieces left) for each distinct piece: equal pieces are one choice."""
    for i, piece in enumerate(pieces):
        if piece not in pieces[:i]:
            yield piece, pieces[:i] + pieces[i + 1:]


@lru_cache(maxsize=SHAPE_CACHE)
def _row_capacity(piece_id: str) -> int:
    """Most cells the piece puts into one row."""
    cells = get_piece(piece_id).cells
    return max(sum(1 for r, _ in cells if r == row) for row, _ in cells)


@lru_cache(maxsize=SHAPE_CACHE)
def _col_capacity(piece_id: str) -> int:
    cells = get_piece(piece_id).cells
    return max(sum(1 for _, c in cells if c == col) for _, col in cells)


def rescue_cap(pieces) -> int:
    """The most tokens a fewest-token rescue of these pieces can spend: one turn per piece and
    one removal per cell of theirs."""
    return len(pieces) + sum(get_piece(p).size for p in pieces)


def _difficulty(piece_id: str) -> tuple[int, str]:
    """Order for placeability: pieces with fewer spots on an empty board first."""
    return (len(placements(piece_id)), piece_id)


def best_plan(variant: Variant, board: Board, pieces, streak: Streak) -> tuple[int, list[Placement]] | None:
    """``TraySearch.best`` through the compiled full enumeration (measured fastest:
    bench/tray.py), whose last placement keeps only the end state with the most points, then the
    healthiest board among those (the first reached of equals); tests hold it to the pure-Python
    search. None if unplaceable."""
    from .enumerate_jit import enumerate_tray_jit

    best = enumerate_tray_jit(variant, board, streak, pieces, best_only=True)
    if len(best) == 0:
        return None
    return int(best.points[0]), list(best.plan(0))


def analyse_tray(
    variant: Variant,
    board: Board,
    pieces: list[str],
    streak: int = 0,
    tokens: int = 0,
) -> TrayAnswer:
    """Everything ``tenfold tray`` reports: placeable, best plan, safe first moves, token rescue."""
    search = TraySearch(variant, board, Streak.carried_in(streak))
    best = best_plan(variant, board, pieces, search.streak)
    if best is not None:
        score, plan = best
        return TrayAnswer(True, score, list(plan), search.safe_moves(pieces))
    if tokens > 0:
        rescued = search.best_rescue(pieces, tokens)
        if rescued is not None:
            used, points, plan = rescued
            return TrayAnswer(True, points, plan, [], used)
    return TrayAnswer(False, None, None)


def plan_points(variant: Variant, board: Board, pieces: list[str], plan: list[Move],
                streak: int | Streak = 0) -> int:
    """Replay a tray plan through the one move applier and return the points it gains."""
    from .engine import Game

    tokens = sum(isinstance(m, TokenUse) for m in plan)
    state = Streak.carried_in(streak) if isinstance(streak, int) else streak
    game = Game(variant, board, state, tokens, list(pieces))
    for move in plan:
        game.apply(move)
    return game.score
