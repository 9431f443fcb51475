"""Play a dealt game to its end with a policy: the loop behind ``tenfold play``."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from .board import Board
from .deals import RandomDeals
from .engine import Game
from .moves import Move
from .policy import Policy
from .variants import Mode


# The expert's ``time_limit`` where it plays without a clock (``clock=False``: every lookahead round
# runs): any number above 0 turns its lookahead on, and none is read.
NO_CLOCK_SECONDS = 0.3


def expert_clock(time_limit: float | None, fixed_rounds: bool, mode: Mode) -> tuple[float, bool]:
    """The expert's lookahead seconds per tray in ``play`` (and bench/selfplay.py), and whether they
    are a clock (else every round runs, and a seed is one game on any machine): a clock where a
    time limit asks for one, or where the mode has one (Arabic's speed: 45 s a tray, which every
    round fits by far, p99 about 1 s), but never with ``fixed_rounds``."""
    if time_limit is None:
        if mode.seconds_per_tray is None:
            return NO_CLOCK_SECONDS, False
        return float(mode.seconds_per_tray), not fixed_rounds
    return time_limit, not fixed_rounds


@dataclass
class PlayResult:
    score: int  # final score, tokens left included
    trays: int  # trays fully placed
    over: bool  # the game ended stuck (not by reaching the tray cap or the target)
    seconds: float
    game: Game
    reached: bool = False  # the game ended by reaching the mode's target score
    moves: list[Move] = field(default_factory=list)  # every move played, tokens included, in order

    @property
    def ms_per_tray(self) -> float:
        return 1000.0 * self.seconds / max(self.trays, 1)


def play_game(game: Game, policy: Policy, max_trays: int, on_tray=None, target: int | None = None) -> PlayResult:
    """Play until the game is over, ``max_trays`` trays are fully placed, or the score reaches
    ``target`` (Sprint to 5,000: the game ends at the placement that gets there)."""
    start = time.perf_counter()
    moves: list[Move] = []

    def reached() -> bool:
        return target is not None and game.score >= target

    while game.turns_completed < max_trays and not game.is_over and not reached():
        move = policy(game)
        if move is None:
            break
        before = game.turns_completed
        game.apply(move)
        moves.append(move)
        if on_tray is not None and game.turns_completed != before:
            on_tray(game)
    done = reached()
    over = not done and game.turns_completed < max_trays
    return PlayResult(game.final_score, game.turns_completed, over, time.perf_counter() - start, game, done,
                      moves)


def new_random_game(variant, seed: int, board: Board | None = None, tokens: int = 0) -> Game:
    return Game.dealt(variant, RandomDeals(variant, seed), board, tokens)


def mode_start_board(mode: Mode, seed: int) -> Board:
    """An empty board, with the stones a mode requires on seeded cells (Sultan's Labyrinth: 4)."""
    if not mode.stones:
        return Board()
    cells = random.Random(f"stones-{seed}").sample(range(100), mode.stones)
    return Board(0, sum(1 << c for c in cells), 0)
