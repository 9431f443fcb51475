"""Seeded Ten games: random positions for tests and benchmarks, and games between solver players."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field as dataclass_field, replace
from typing import Callable

from solver.errors import RulesError
from solver.ten.chance import solve_hidden
from solver.ten.field import LINE_STEPS, Field, tile_code
from solver.ten.position import BLACK, VALUES, WHITE, WIN_SUM, Colour, TenPosition
from solver.ten.rules import ROW_FIRST, ROW_LAST, TenMove, apply_move, legal_moves, placement_cells
from solver.ten.search import SolveResult, repetition_key, solve_open

FULL_HAND = tuple(v for v in VALUES for _ in range(5))


def shuffled_rows(rng: random.Random, size: int = 15) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Each player's 15 tiles blind-shuffled into a row (the first ``size`` of them)."""
    rows = []
    for _ in (WHITE, BLACK):
        tiles = list(FULL_HAND)
        rng.shuffle(tiles)
        rows.append(tuple(tiles[:size]))
    return rows[0], rows[1]


def new_game(seed: int, variant: str = "open") -> TenPosition:
    rng = random.Random(seed)
    if variant == "open":
        return TenPosition({}, WHITE, "open", rows=shuffled_rows(rng))
    if variant == "hidden":
        return TenPosition({}, WHITE, "hidden", stacks=((5, 5, 5), (5, 5, 5)))
    raise RulesError(f"--variant: unknown variant {variant!r} (expected 'open' or 'hidden')")


def random_open_position(seed: int, tiles_left: int, row_size: int = 15,
                         quiet: bool = False, attempts: int = 1000) -> TenPosition:
    """Random non-winning placements from shuffled rows until ``tiles_left`` tiles remain in the rows.

    ``quiet`` also asks that the side to move cannot win at once (so the position needs search).
    """
    rng = random.Random(seed)
    if not 0 <= tiles_left <= 2 * row_size:
        raise RulesError(f"tiles_left: expected 0 to {2 * row_size}, got {tiles_left}")
    for _ in range(attempts):
        rows = [list(r) for r in shuffled_rows(rng, row_size)]
        field = Field()
        mover = WHITE
        stuck = False
        while len(rows[0]) + len(rows[1]) > tiles_left:
            row = rows[mover]
            choices = [(c, e) for c in placement_cells(field) for e in ((ROW_FIRST, ROW_LAST) if len(row) > 1
                                                                       else (ROW_FIRST,))]
            rng.shuffle(choices)
            for cell, end in choices:
                value = row[0] if end == ROW_FIRST else row[-1]
                if not field.placing_wins(cell, mover, value):
                    field.place(cell, tile_code(mover, value))
                    row.pop(0 if end == ROW_FIRST else -1)
                    break
            else:
                stuck = True
                break
            mover = 1 - mover
        if stuck:
            continue
        tiles = {field.coord(c): (code >> 2, code & 3) for c, code in field.tiles.items()}
        position = TenPosition(tiles, mover, "open", rows=(tuple(rows[0]), tuple(rows[1])))
        if quiet:
            cells = placement_cells(field)
            if any(field.placing_wins(c, mover, v) for c in cells for v in position.available_values(mover)):
                continue
        return position
    raise RulesError(f"no random position with {tiles_left} tiles left after {attempts} attempts (seed {seed})")


@dataclass
class PlayedGame:
    seed: int
    variant: str
    moves: list[tuple[Colour, TenMove]] = dataclass_field(default_factory=list)
    winner: Colour | None = None
    drawn: bool = False  # threefold repetition
    final: TenPosition | None = None


def choose_move(position: TenPosition, history: dict, depth: int, time_limit: float,
                rng: random.Random) -> tuple[TenMove, SolveResult]:
    """The solver's move where its search decides (a forced win or loss, a win chance to take);
    where it does not, the move that builds best among those the search shows safe
    (``style_move``)."""
    start = time.perf_counter()
    plies = depth if position.hand_size(position.to_move) else min(depth, 2)
    if position.variant == "open":
        result = solve_open(position, depth=plies, time_limit=time_limit, history=history)
    else:
        result = solve_hidden(position, depth=plies, time_limit=time_limit, history=history)
    decided = result.result in ("win", "loss") or (result.win_probability or 0) > 0
    if result.pv and decided:
        return result.pv[0][1], result
    left = max(0.0, time_limit - (time.perf_counter() - start))  # one budget for both steps
    move = style_move(position, plies, left, history, rng)
    if move is None and result.pv:
        move = result.pv[0][1]
    return move, result


def style_move(position: TenPosition, depth: int, time_limit: float, history: dict | None,
               rng: random.Random, tries: int = 6) -> TenMove | None:
    """Where the search sees no outcome within its depth every move looks alike, and the first one
    generated (the same cell's neighbour, every time) stacked the whole game in one column, where
    no run can form. So: the legal moves ranked by ``build_score`` (seeded ties), and the best of
    the first ``tries`` after which the opponent has no forced win within ``depth - 1`` plies
    (open tiles) or no win at once (hidden stacks); failing those, the best after which it has
    no win at once; None when no legal move."""
    mover = position.to_move
    ranked = []
    for move in legal_moves(position):
        child, won = apply_move(position, move)
        if won:
            return move
        ranked.append((build_score(child, mover, move), rng.random(), move, child))
    ranked.sort(key=lambda item: (-item[0], item[1]))
    for _, _, move, child in ranked[:tries]:
        if _safe(child, depth - 1, time_limit / tries, history):
            return move
    for _, _, move, child in ranked:  # none of those: any move that does not lose at once
        if _safe(child, 1, 0.0, history):
            return move
    return ranked[0][2] if ranked else None


def build_score(child: TenPosition, mover: Colour, move: TenMove) -> int:
    """How much ``move`` (played, giving ``child``) builds for ``mover``: along each line through
    its tile, the run's sum while it is under 10 (closer to 10 is better; over 10 a dead run
    costs), and 25 for each cell where ``mover`` could then complete a run of 10 with a value it
    may place; 30 off for each such cell of the opponent's."""
    field = Field.from_position(child)
    cell = field.cell(move.x, move.y)
    score = 0
    for step in LINE_STEPS:
        total = move.value + field.run_sum(cell, step, mover) + field.run_sum(cell, -step, mover)
        score += total if total < WIN_SUM else -3
    for colour, weight in ((mover, 25), (1 - mover, -30)):
        values = _value_bits(child, colour)
        score += weight * sum(1 for c in field.frontier if field.winning_values(c, colour) & values)
    return score


def _value_bits(position: TenPosition, colour: Colour) -> int:
    """Bit ``v`` for each value ``colour`` may place next (a hidden stack's any value left)."""
    if position.variant == "hidden" and not (position.drawn is not None and colour == position.to_move):
        values = [v for v in VALUES if position.stacks[colour][v - 1]]
    else:
        values = position.available_values(colour)
    return sum(1 << v for v in values)


def _safe(child: TenPosition, depth: int, time_limit: float, history: dict | None) -> bool:
    """The opponent, to move in ``child``, cannot force a win within ``depth`` plies (open tiles;
    a search the clock cuts short counts as safe) or win at once (hidden stacks, and any variant
    at one ply)."""
    rival = child.to_move
    field = Field.from_position(child)
    if child.hand_size(rival):  # it places: a cell where a value it may place makes 10
        values = _value_bits(child, rival)
        if any(field.winning_values(c, rival) & values for c in field.frontier):
            return False
    elif field.relocations(rival)[0] is not None:  # it moves a tile (second round) and wins
        return False
    if child.variant != "open" or depth < 2:  # one ply: the check above
        return True
    return solve_open(child, depth=depth, time_limit=time_limit, history=history).result != "win"


def play_game(seed: int, variant: str = "open", depth: int = 4, time_limit: float = 2.0,
              max_plies: int = 120,
              on_move: Callable[[TenPosition, Colour, TenMove, SolveResult], None] | None = None) -> PlayedGame:
    """A game between two solver-driven players; hidden draws come from the same seeded stream."""
    rng = random.Random(seed)
    position = new_game(rng.randrange(1 << 30), variant)
    game = PlayedGame(seed, variant)
    history: dict = {}
    for _ in range(max_plies):
        mover = position.to_move
        if variant == "hidden" and position.hand_size(mover) > 0:
            stack = list(position.stacks[mover])
            value = rng.choices(VALUES, weights=stack)[0]
            stack[value - 1] -= 1
            stacks = (tuple(stack), position.stacks[1]) if mover == WHITE else (position.stacks[0], tuple(stack))
            position = replace(position, stacks=stacks, drawn=value)
        second_round = position.hand_size(WHITE) == 0 and position.hand_size(BLACK) == 0
        if second_round:
            key = repetition_key(position)
            history[key] = history.get(key, 0) + 1
        move, result = choose_move(position, dict(history) if second_round else None, depth, time_limit, rng)
        if move is None:  # no tile of the mover can move: the turn passes
            position, won = replace(position, to_move=1 - mover), False
        else:
            position, won = apply_move(position, move)
            game.moves.append((mover, move))
        if on_move is not None and move is not None:
            on_move(position, mover, move, result)
        if won:
            game.winner = mover
            break
        if position.hand_size(WHITE) == 0 and position.hand_size(BLACK) == 0:
            if history.get(repetition_key(position), 0) >= 2:
                game.drawn = True
                break
    game.final = position
    return game
