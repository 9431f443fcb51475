"""The open-tiles solver: negamax alpha-beta over {loss, unknown/draw, win} within N plies.

Values are from the side to move: +1 it forces a win by its own move within
the horizon, -1 the opponent forces one, 0 neither. Iterative deepening stops
at the first depth that proves a win or a loss (they stay proven at every
greater depth). A transposition table keyed on the field's canonical key
(translation and the 8 symmetries of the square) holds bounds for
placement-phase nodes; those can never repeat, so their values do not depend
on the path. Second-round nodes are searched without table cut-offs, because
threefold repetition makes their value depend on history.

Forced-block pruning: when the side to move cannot win at once and the
opponent (placing next) has winning cells, a placement can only stop them by
occupying them — a tile put elsewhere does not change the opponent's runs or
its tiles — so two or more winning cells lose, and one cell leaves only the
moves onto it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field as dataclass_field
from typing import Any

from solver import watch
from solver.errors import RulesError
from solver.ten.field import EDGE_STEPS, LINE_STEPS, Field
from solver.ten.position import WIN_SUM, Colour, TenPosition, colour_name
from solver.ten.rules import ROW_FIRST, ROW_LAST, TenMove, placement_cells, position_winner, repetition

WIN, UNKNOWN, LOSS = 1, 0, -1
EXACT, LOWER, UPPER = 0, 1, 2
MAX_DEPTH = 100
# The clock is read at every 16th node (a mask): a node of the second round on a long line of
# tiles lists every move of every free tile, milliseconds each, so every 1,024th (as before)
# let a 1 s limit run 4-7 s; a read costs well under a node's time.
CLOCK_MASK = 15
RESULT_NAMES = {WIN: "win", LOSS: "loss"}


def out_of_time(deadline: float | None, nodes: int) -> bool:
    """At a clock check: the deadline has passed, or a watcher (Ctrl-C) asks the search to stop;
    either way it answers with the deepest depth it finished."""
    return (deadline is not None and time.perf_counter() > deadline) or watch.tick(nodes, None)


class SearchTimeout(Exception):
    """The time limit ran out inside a search."""


@dataclass
class SolveResult:
    """What ``solve`` proves for the side to move within ``depth`` plies, with a principal variation."""

    result: str
    depth: int
    pv: list[tuple[Colour, TenMove]]
    win_probability: float | None = None
    nodes: int = 0
    seconds: float = 0.0
    best_by_draw: dict[int, TenMove] = dataclass_field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """With hidden stacks the best move waits on the draw: ``best_by_draw`` maps each value
        the side to move may draw ("1", "2", "3") to its move, as the text answer lists them."""
        data: dict[str, Any] = {
            "result": self.result,
            "depth": self.depth,
            "pv": [move.to_json(colour) for colour, move in self.pv],
            "win_probability": self.win_probability,
        }
        if self.best_by_draw:
            data["best_by_draw"] = {str(v): move.to_json() for v, move in sorted(self.best_by_draw.items())}
        return data


def check_not_over(position: TenPosition, where: str = "") -> None:
    """A ``RulesError`` where a player already has a run of 10 (``where``: the file, as a
    position's other errors name it)."""
    winner = position_winner(position)
    if winner is not None:
        raise RulesError(f"{where + ': ' if where else ''}field tiles: the game is over: {colour_name(winner)} "
                         "already has a run of 10")


class OpenSearch:
    """One search tree over a mutable field and the two open rows."""

    def __init__(self, position: TenPosition, deadline: float | None = None,
                 history: dict | None = None, bias: int = 0) -> None:
        if position.variant != "open":
            raise RulesError("the exact solver is for the open variant; hidden stacks use solve_hidden")
        self.field = Field.from_position(position)
        self.rows = position.rows
        self.lo = [0, 0]
        self.hi = [len(position.rows[0]), len(position.rows[1])]
        self.to_move = position.to_move
        self.root = position.to_move
        self.bias = bias  # value of the horizon for the root player: 0, or -1/+1 to prove draws
        self.deadline = deadline
        # occurrences of each second-round position in the game so far, the root included
        self.history: dict = dict(history) if history is not None else {self._repetition_key(): 1}
        self.tt: dict = {}
        self.nodes = 0
        self.saw_draw = False

    # --- state ---

    def _hand(self, colour: Colour) -> int:
        return self.hi[colour] - self.lo[colour]

    def _ends(self, colour: Colour) -> list[tuple[int, int]]:
        lo, hi = self.lo[colour], self.hi[colour]
        row = self.rows[colour]
        if hi - lo == 1:
            return [(ROW_FIRST, row[lo])]
        return [(ROW_FIRST, row[lo]), (ROW_LAST, row[hi - 1])]

    def _value_mask(self, colour: Colour) -> int:
        lo, hi = self.lo[colour], self.hi[colour]
        if lo >= hi:
            return 0
        return 1 << self.rows[colour][lo] | 1 << self.rows[colour][hi - 1]

    def _take(self, colour: Colour, end: int) -> None:
        if end == ROW_FIRST:
            self.lo[colour] += 1
        else:
            self.hi[colour] -= 1

    def _untake(self, colour: Colour, end: int) -> None:
        if end == ROW_FIRST:
            self.lo[colour] -= 1
        else:
            self.hi[colour] += 1

    def _horizon(self, colour: Colour) -> int:
        return self.bias if colour == self.root else -self.bias

    def _repetition_key(self) -> tuple:
        return (self.field.translation_key(), self.to_move)

    def _tt_key(self, canonical: int) -> tuple:
        return (canonical, self.to_move, self.lo[0], self.hi[0], self.lo[1], self.hi[1])

    # --- search ---

    def node(self, depth: int, alpha: int, beta: int, is_root: bool = False) -> tuple[int, list]:
        if depth <= 0:
            return self._horizon(self.to_move), []
        self.nodes += 1
        if not self.nodes & CLOCK_MASK and out_of_time(self.deadline, self.nodes):
            raise SearchTimeout
        if self._hand(self.to_move):
            return self._placement_node(depth, alpha, beta, is_root)
        return self._relocation_node(depth, alpha, beta)

    def _probe(self, key: tuple, depth: int, alpha: int, beta: int):
        """(value or None, alpha, beta, best move) from the table, using the monotonicity of proofs."""
        entry = self.tt.get(key)
        if entry is None:
            return None, alpha, beta, None
        edepth, value, flag, best = entry
        lower, upper = LOSS, WIN
        if self.bias == 0:
            if flag != UPPER and (value == WIN and depth >= edepth or value == UNKNOWN and depth <= edepth):
                lower = value
            if flag != LOWER and (value == LOSS and depth >= edepth or value == UNKNOWN and depth <= edepth):
                upper = value
        elif edepth == depth:
            if flag != UPPER:
                lower = value
            if flag != LOWER:
                upper = value
        if lower >= beta or lower == upper:
            return lower, alpha, beta, best
        if upper <= alpha:
            return upper, alpha, beta, best
        return None, max(alpha, lower), min(beta, upper), best

    def _placement_node(self, depth: int, alpha: int, beta: int, is_root: bool) -> tuple[int, list]:
        f = self.field
        board = f.board
        p = self.to_move
        q = 1 - p
        canonical, symmetry = f.canonical_key()
        key = self._tt_key(canonical)
        tt_best = None
        if not is_root:
            value, alpha, beta, stored = self._probe(key, depth, alpha, beta)
            if value is not None:
                return value, []
        else:
            stored = self.tt.get(key, (0, 0, 0, None))[3]
        if stored is not None:
            tt_best = (f.from_canonical(stored[0], symmetry), stored[1])

        ends = self._ends(p)
        p_mask = self._value_mask(p)
        q_places = self._hand(q) > 0
        q_mask = self._value_mask(q)
        cells = placement_cells(f)
        q_threats = []
        scored = []  # (cell, p sums per line, q sums per line, q winning values)
        for c in cells:
            wins_p = 0
            wins_q = 0
            sums_p = []
            sums_q = []
            for step in LINE_STEPS:
                sp = sq = 0
                for d in (step, -step):
                    n = c + d
                    k = board[n]
                    if k:
                        colour = k >> 2
                        s = 0
                        while k and k >> 2 == colour:
                            s += k & 3
                            if s > WIN_SUM:
                                break
                            n += d
                            k = board[n]
                        if colour == p:
                            sp += s
                        else:
                            sq += s
                need = WIN_SUM - sp
                if 1 <= need <= 3:
                    wins_p |= 1 << need
                need = WIN_SUM - sq
                if 1 <= need <= 3:
                    wins_q |= 1 << need
                sums_p.append(sp)
                sums_q.append(sq)
            if wins_p & p_mask:
                for end, v in ends:
                    if wins_p >> v & 1:
                        move = ("p", p, c, end, v)
                        self._store(key, depth, WIN, LOWER, move, symmetry)
                        return WIN, [move]
            if wins_q & q_mask:
                q_threats.append((c, wins_q & q_mask))
            scored.append((c, sums_p, sums_q, wins_q))

        if depth == 1:
            return self._horizon(p), []
        if q_places:
            if len(q_threats) >= 2:
                (c0, _), (c1, m1) = q_threats[0], q_threats[1]
                end, v = ends[0]
                qv = (m1 & -m1).bit_length() - 1
                pv = [("p", p, c0, end, v), ("p", q, c1, self._end_of(q, qv), qv)]
                self._store(key, depth, LOSS, UPPER, pv[0], symmetry)
                return LOSS, pv
            if q_threats:
                forced = q_threats[0][0]
                scored = [s for s in scored if s[0] == forced]
            if depth == 2:
                return self._two_ply(scored, ends, key, symmetry)

        moves = []
        for c, sums_p, sums_q, wins_q in scored:
            block = 40 if wins_q else 0
            block += sum(sums_q)
            build = sum(sums_p)
            for end, v in ends:
                creates = 0
                for s in sums_p:
                    if 7 <= s + v <= 9:
                        creates += 1
                order = creates * 100 + block + build
                if tt_best is not None and tt_best == (c, end):
                    order = 1 << 20
                moves.append((order, c, end, v))
        moves.sort(key=lambda m: -m[0])

        alpha0 = alpha
        best = LOSS - 1
        best_pv: list = []
        best_move = None
        code_base = p << 2
        for _, c, end, v in moves:
            f.place(c, code_base | v)
            self._take(p, end)
            self.to_move = q
            try:
                value, child_pv = self.node(depth - 1, -beta, -alpha)
            finally:
                self.to_move = p
                self._untake(p, end)
                f.lift(c)
            value = -value
            if value > best:
                best = value
                best_move = ("p", p, c, end, v)
                best_pv = [best_move] + child_pv
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        flag = LOWER if best >= beta else UPPER if best <= alpha0 else EXACT
        self._store(key, depth, best, flag, best_move, symmetry)
        return best, best_pv

    def _end_of(self, colour: Colour, value: int) -> int:
        for end, v in self._ends(colour):
            if v == value:
                return end
        raise AssertionError("value not at an end of the row")

    def _two_ply(self, scored: list, ends: list, key: tuple, symmetry: int) -> tuple[int, list]:
        """Depth 2, both players placing: safe if some allowed cell opens no winning cell for the opponent.

        A tile on ``c`` only makes ``c``'s empty edge neighbours newly playable; the
        opponent's runs and tiles are unchanged, so its winning cells after the move are
        its current ones (minus ``c``) plus those among the new cells.
        """
        f = self.field
        p = self.to_move
        q = 1 - p
        q_mask = self._value_mask(q)
        adjacent = f.adjacent
        board = f.board
        end, v = ends[0]
        first_bad = None
        for c, *_ in scored:
            bad = None
            if f.tiles:
                for step in EDGE_STEPS:
                    n = c + step
                    if board[n] == 0 and adjacent[n] == 0:
                        m = f.winning_values(n, q) & q_mask
                        if m:
                            bad = (n, (m & -m).bit_length() - 1)
                            break
            if bad is None:
                move = ("p", p, c, end, v)
                self._store(key, 2, self._horizon(p), EXACT, move, symmetry)
                return self._horizon(p), [move]
            if first_bad is None:
                first_bad = (c, bad)
        c, (n, qv) = first_bad
        pv = [("p", p, c, end, v), ("p", q, n, self._end_of(q, qv), qv)]
        self._store(key, 2, LOSS, UPPER, pv[0], symmetry)
        return LOSS, pv

    def _relocation_node(self, depth: int, alpha: int, beta: int) -> tuple[int, list]:
        f = self.field
        p = self.to_move
        q = 1 - p
        winning, moves = f.relocations(p)
        if winning is not None:
            origin, target, code = winning
            return WIN, [("r", p, origin, target, code & 3)]
        if not moves:
            moves = [None]  # no tile can move: the turn passes
        best = LOSS - 1
        best_pv: list = []
        for move in moves:
            if move is not None:
                origin, target, code = move
                f.lift(origin)
                f.place(target, code)
            self.to_move = q
            key = self._repetition_key()
            try:
                with repetition(self.history, key) as drawn:
                    if drawn:
                        self.saw_draw = True
                        value, child_pv = 0, []
                    else:
                        value, child_pv = self.node(depth - 1, -beta, -alpha)
            finally:
                self.to_move = p
                if move is not None:
                    f.lift(target)
                    f.place(origin, code)
            value = -value
            if value > best:
                step = ("pass", p) if move is None else ("r", p, origin, target, code & 3)
                best, best_pv = value, [step] + child_pv
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        return best, best_pv

    def _store(self, key: tuple, depth: int, value: int, flag: int, move, symmetry: int) -> None:
        if move is None or move[0] != "p":
            stored = None
        else:
            stored = (self.field.to_canonical(move[2], symmetry), move[3])
        self.tt[key] = (depth, value, flag, stored)

    # --- principal variation ---

    def pv_moves(self, pv: list) -> list[tuple[Colour, TenMove]]:
        """The line's moves, each with its colour; a pass is no move (RULES.md has none), so it is
        left out and the line goes on: the same colour twice in a row says the other passed. A
        mover that must pass has no line (``[]``: its first move would be the other's)."""
        if pv and pv[0][0] == "pass":
            return []
        moves = []
        for step in pv:
            if step[0] == "p":
                _, colour, cell, end, value = step
                x, y = self.field.coord(cell)
                moves.append((colour, TenMove(x, y, value, None, end)))
            elif step[0] == "r":
                _, colour, origin, target, value = step
                x, y = self.field.coord(target)
                moves.append((colour, TenMove(x, y, value, self.field.coord(origin))))
        return moves


def repetition_key(position: TenPosition) -> tuple:
    """What threefold repetition compares: the field up to translation, and the side to move.

    Only second-round positions can repeat (every placement shrinks a hand), so hands are left out.
    """
    return (Field.from_position(position).translation_key(), position.to_move)


def _result_name(value: int) -> str:
    return RESULT_NAMES.get(value, "unknown")


def default_depth(position: TenPosition) -> int:
    """To the end of the placement phase; four plies in the second round."""
    left = position.hand_size(0) + position.hand_size(1)
    return left if left > 0 else 4


def solve_open(position: TenPosition, depth: int | None = None, time_limit: float | None = None,
               history: dict | None = None) -> SolveResult:
    """Iterative deepening to ``depth`` plies (default: to the end of the placement phase)."""
    check_not_over(position)
    depth = default_depth(position) if depth is None else depth
    if not 1 <= depth <= MAX_DEPTH:
        raise RulesError(f"--depth: expected 1 to {MAX_DEPTH} plies, got {depth}")
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    search = OpenSearch(position, deadline, history)
    done = (0, UNKNOWN, [])
    for d in range(1, depth + 1):
        try:
            value, pv = search.node(d, LOSS, WIN, is_root=True)
        except SearchTimeout:
            break
        done = (d, value, pv)
        if value != UNKNOWN:
            break
    d, value, pv = done
    result = _result_name(value)
    if value == UNKNOWN and search.saw_draw and d > 0:
        result = _prove_draw(position, d, deadline, history) or result
    return SolveResult(result, d, search.pv_moves(pv), None, search.nodes, time.perf_counter() - start)


def _prove_draw(position: TenPosition, depth: int, deadline: float | None, history: dict | None) -> str | None:
    """Neither side forces a win; if the mover holds at least a draw with a pessimistic horizon and no
    more with an optimistic one, every line inside the horizon ends in a draw."""
    try:
        low, _ = OpenSearch(position, deadline, history, bias=-1).node(depth, LOSS, WIN, is_root=True)
        high, _ = OpenSearch(position, deadline, history, bias=+1).node(depth, LOSS, WIN, is_root=True)
    except SearchTimeout:
        return None
    return "draw" if low >= 0 and high <= 0 else None
