"""Hidden stacks: the exact probability of winning within N plies when every draw is random.

Draws: at the start of each placing turn the player draws one tile uniformly
at random from the tiles left in its own stack (so value ``v`` comes up with
probability ``count[v] / stack size``), sees it, then places it. A position
may carry ``drawn``: the tile the side to move has already drawn. The side
counted ("target") maximises its probability of winning within the horizon;
the other side minimises it (a draw or a game still running counts as not
winning). Probabilities are exact fractions.
"""

from __future__ import annotations

import time
from fractions import Fraction

from solver.errors import RulesError
from solver.ten.field import EDGE_STEPS, Field, tile_code
from solver.ten.position import VALUES, Colour, TenPosition
from solver.ten.rules import TenMove, placement_cells, repetition
from solver.ten.search import CLOCK_MASK, MAX_DEPTH, SearchTimeout, SolveResult, check_not_over, out_of_time

ZERO = Fraction(0)
ONE = Fraction(1)
HIDDEN_DEFAULT_DEPTH = 4


class HiddenSearch:
    """Expectimax over draws, max/min over placements, for the probability that ``target`` wins."""

    def __init__(self, position: TenPosition, target: Colour, deadline: float | None = None,
                 history: dict | None = None) -> None:
        if position.variant != "hidden":
            raise RulesError("solve_hidden is for the hidden variant")
        self.field = Field.from_position(position)
        self.stacks = [list(position.stacks[0]), list(position.stacks[1])]
        self.to_move = position.to_move
        self.target = target
        self.deadline = deadline
        self.history: dict = (dict(history) if history is not None
                              else {(self.field.translation_key(), self.to_move): 1})
        self.memo: dict = {}
        self.nodes = 0

    def _tick(self) -> None:
        self.nodes += 1
        if not self.nodes & CLOCK_MASK and out_of_time(self.deadline, self.nodes):
            raise SearchTimeout

    def chance(self, depth: int) -> Fraction:
        """The side to move is about to draw (or, with an empty stack, to move a tile)."""
        p = self.to_move
        if depth <= 0 or (depth == 1 and p != self.target):
            return ZERO  # the target can only win on its own turn
        stack = self.stacks[p]
        total = sum(stack)
        if total == 0:
            return self.relocate(depth)[0]
        self._tick()
        key = (self.field.canonical_key()[0], p, *self.stacks[0], *self.stacks[1], depth)
        found = self.memo.get(key)
        if found is not None:
            return found
        value = ZERO
        for v in VALUES:
            count = stack[v - 1]
            if count:
                stack[v - 1] -= 1
                try:
                    value += Fraction(count, total) * self.place(depth, v)[0]
                finally:
                    stack[v - 1] += 1
        self.memo[key] = value
        return value

    def place(self, depth: int, value: int) -> tuple[Fraction, int | None]:
        """The side to move holds ``value``: its best placement for it, and the resulting probability."""
        f = self.field
        p = self.to_move
        q = 1 - p
        maximise = p == self.target
        cells = placement_cells(f)
        for c in cells:
            if f.placing_wins(c, p, value):
                return (ONE if maximise else ZERO), c
        if depth == 1:
            return ZERO, cells[0]
        if depth == 2 and not maximise and self.stacks[q] and sum(self.stacks[q]):
            return self._block_target(cells)
        best: Fraction | None = None
        best_cell = None
        code = tile_code(p, value)
        for c in cells:
            f.place(c, code)
            self.to_move = q
            try:
                result = self.chance(depth - 1)
            finally:
                self.to_move = p
                f.lift(c)
            if best is None or (result > best if maximise else result < best):
                best, best_cell = result, c
                if best == (ONE if maximise else ZERO):
                    break
        return best, best_cell

    def _block_target(self, cells: list) -> tuple[Fraction, int]:
        """Two plies left, the opponent of the target places: the target then draws and wins at once
        with the values that still have a winning cell. A tile on ``c`` removes ``c`` and opens its
        empty edge neighbours; the target's runs do not change."""
        f = self.field
        t = self.target
        stack = self.stacks[t]
        total = sum(stack)
        masks = {c: f.winning_values(c, t) for c in cells}
        best = None
        best_cell = None
        for c in cells:
            mask = 0
            for other, m in masks.items():
                if other != c:
                    mask |= m
            for step in EDGE_STEPS:
                n = c + step
                if f.board[n] == 0 and f.adjacent[n] == 0:
                    mask |= f.winning_values(n, t)
            chance = Fraction(sum(stack[v - 1] for v in VALUES if mask >> v & 1), total)
            if best is None or chance < best:
                best, best_cell = chance, c
                if best == 0:
                    break
        return best, best_cell

    def relocate(self, depth: int) -> tuple[Fraction, tuple[int, int, int] | None]:
        """Second round: no draw; the side to move lifts and puts down one of its tiles. Its best
        move (origin, target, tile; None when no tile can move and the turn passes), and the
        resulting probability."""
        self._tick()
        f = self.field
        p = self.to_move
        q = 1 - p
        maximise = p == self.target
        winning, moves = f.relocations(p)
        if winning is not None:
            return (ONE if maximise else ZERO), winning
        best: Fraction | None = None
        best_move = None
        for move in moves or [None]:
            if move is not None:
                origin, target, code = move
                f.lift(origin)
                f.place(target, code)
            self.to_move = q
            key = (f.translation_key(), q)
            try:
                with repetition(self.history, key) as drawn:
                    # threefold repetition: a draw, not a win
                    result = ZERO if drawn else self.chance(depth - 1)
            finally:
                self.to_move = p
                if move is not None:
                    f.lift(target)
                    f.place(origin, code)
            if best is None or (result > best if maximise else result < best):
                best, best_move = result, move
                if best == (ONE if maximise else ZERO):
                    break
        return best, best_move


def solve_hidden(position: TenPosition, depth: int | None = None, time_limit: float | None = None,
                 history: dict | None = None) -> SolveResult:
    """Probability that the side to move wins within ``depth`` plies, and its best move.

    With ``drawn`` set the best move is for that tile; in the second round (no tile left to
    draw) it is the best relocation (none when no tile can move); otherwise the root is a draw
    and ``best_by_draw`` holds the best move for each value it could draw.
    ``result`` is ``win`` when the probability is 1, ``loss`` when the opponent wins
    with probability 1, else ``unknown``. Iterative deepening, as for open tiles: the
    answer is the deepest depth finished within ``time_limit`` (or before Ctrl-C), and a
    depth that settles the game (win or loss) ends the search.
    """
    check_not_over(position)
    if depth is None:
        depth = HIDDEN_DEFAULT_DEPTH  # into the second round when fewer tiles are left (a win there counts)
    if not 1 <= depth <= MAX_DEPTH:
        raise RulesError(f"--depth: expected 1 to {MAX_DEPTH} plies, got {depth}")
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    done = SolveResult("unknown", 0, [], None)
    nodes = 0
    for d in range(1, depth + 1):
        # A fresh search per depth: its memo's entries are per depth, so none would carry over.
        searches: list[HiddenSearch] = []
        try:
            found = _solve_depth(position, d, deadline, history, searches)
        except SearchTimeout:
            break
        finally:
            nodes += sum(search.nodes for search in searches)
        done = found
        if found.result != "unknown":
            break
    done.nodes = nodes
    done.seconds = time.perf_counter() - start
    return done


def _solve_depth(position: TenPosition, depth: int, deadline: float | None, history: dict | None,
                 searches: list[HiddenSearch]) -> SolveResult:
    """``solve_hidden`` at one depth; raises SearchTimeout. ``searches`` gets each search made
    (for their node counts, also when the time runs out)."""
    mover = position.to_move
    search = HiddenSearch(position, mover, deadline, history)
    searches.append(search)
    pv: list = []
    best_by_draw: dict[int, TenMove] = {}
    if position.drawn is not None:
        probability, cell = search.place(depth, position.drawn)
        x, y = search.field.coord(cell)
        pv = [(mover, TenMove(x, y, position.drawn))]
    elif position.hand_size(mover) == 0:
        probability, move = search.relocate(depth)
        if move is not None:  # (None: the mover passes)
            origin, target, code = move
            x, y = search.field.coord(target)
            pv = [(mover, TenMove(x, y, code & 3, search.field.coord(origin)))]
    else:
        probability = ZERO
        stack = search.stacks[mover]
        total = sum(stack)
        for v in VALUES:
            count = stack[v - 1]
            if count:
                stack[v - 1] -= 1
                try:
                    chance, cell = search.place(depth, v)
                finally:
                    stack[v - 1] += 1
                probability += Fraction(count, total) * chance
                x, y = search.field.coord(cell)
                best_by_draw[v] = TenMove(x, y, v)
    result = "win" if probability == 1 else "unknown"
    if probability == 0:
        rival = HiddenSearch(position, 1 - mover, deadline, history)
        searches.append(rival)
        try:
            if position.hand_size(mover) == 0:
                rival_chance = rival.relocate(depth)[0]
            elif position.drawn is not None:
                rival_chance = rival.place(depth, position.drawn)[0]
            else:
                rival_chance = rival.chance(depth)
            if rival_chance == 1:
                result = "loss"
        except SearchTimeout:
            pass  # this depth's probability stands; whether the opponent forces a win is not known
    return SolveResult(result, depth, pv, float(probability), best_by_draw=best_by_draw)
