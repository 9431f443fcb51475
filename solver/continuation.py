"""A level part played: where its moves so far leave it, and the best of the rest of the game.

A game client whose player has left the stored solution asks from where the player stands:
can the level still be won, what is the best score still reachable, and which moves get
there. The moves so far are played through the engine (the one move applier); the search
then starts from the state they leave (board, pumpkins, the tray in hand, the streak,
tokens, placements made, points), with the same rules, bound and proofs as from the start.
Scores are of the whole game (the points so far included), as the level's goals are.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .campaign import CampaignAnswer, State, runs_compiled, solve_level
from .engine import Game
from .errors import RulesError
from .level import Level, play_moves, play_solution
from .moves import Move, Placement


@dataclass(frozen=True)
class Position:
    """The level after ``moves``: ``level`` is the level with the board and tokens of that
    moment (its trays, limit and goals unchanged), ``state`` the search's state, ``points`` the
    points scored so far (tokens left not counted: the search adds their bonus at the end)."""

    moves: list[Move]
    game: Game
    level: Level
    state: State
    points: int

    @property
    def placed(self) -> int:
        return self.state.placed

    @property
    def compiled(self) -> bool:
        """Whether the compiled search answers from here (``campaign.runs_compiled``); the
        readable one, some ten times slower a node, answers where tokens left may redeal from
        the reserve, or one did."""
        return runs_compiled(self.level, self.state)

    def to_json(self) -> dict[str, Any]:
        """What the answer says of the moves it starts after (``docs/json.md``: ``after``)."""
        return {"moves": len(self.moves), "placed": self.placed, "score": self.game.final_score,
                "tokens": self.game.tokens}


def position_after(level: Level, moves: list[Move], where: str = "moves") -> Position:
    """Play ``moves`` on the level from its start; raises ``RulesError`` naming the first move
    the engine or the limit refuses (``where``: how the message names the move list, whose
    index it follows: ``moves[2]: illegal: ...``)."""
    played = play_moves(level, moves)
    if played.problem:
        raise RulesError(played.named(where))
    game = played.game
    assert game is not None and game.deals is not None
    tray = tuple(sorted(game.tray or ()))
    dealt = len(level.trays) - game.deals.trays_left
    tray_index = dealt - 1 if tray else len(level.trays)
    variant = level.variant
    state = State(game.board.filled, game.board.pumpkins, tray_index, tray, variant.run_key(game.streak.run),
                  game.streak.turn_cleared, game.streak.prev_turn_cleared, game.tokens,
                  len(level.reserve) - game.deals.reserve_left, played.placements)
    at = replace(level, board=game.board, tokens=game.tokens, solution=None, best=None)
    return Position(list(moves), game, at, state, game.score)


def solve_after(level: Level, moves: list[Move], time_limit: float = 30.0, node_limit: int = 10**12,
                target: int | None = None, compiled: bool = True,
                hint: list[Move] | None = None) -> tuple[Position, CampaignAnswer]:
    """The level's answer from where ``moves`` leave it: solvable (a rest of the game that meets
    every goal), the best final score of a game that starts with ``moves``, its proof, and the
    moves after ``moves`` (``solution``, ``best_line``) that reach it. ``hint``, a whole line
    from the level's start (its stored solution, say), starts the search with its rest when
    ``moves`` begin it and it plays legally to the goals but the score."""
    return solve_position(level, position_after(level, moves), time_limit, node_limit, target, compiled, hint)


def solve_position(level: Level, position: Position, time_limit: float = 30.0, node_limit: int = 10**12,
                   target: int | None = None, compiled: bool = True,
                   hint: list[Move] | None = None) -> tuple[Position, CampaignAnswer]:
    """``solve_after`` from a position already made (``position_after(level, ...)``)."""
    moves = position.moves
    seed = None
    if hint is not None and hint[:len(moves)] == moves:
        replay = play_solution(level, hint, ignore_score=True)
        if replay.ok:
            seed = (replay.score, hint[len(moves):])
    answer = solve_level(position.level, time_limit, node_limit, target, compiled=compiled,
                         start=position.state, start_points=position.points, seed=seed)
    return position, answer


def spelled_rest(level: Level, position: Position, rest: list[Move]) -> list[dict[str, Any]]:
    """The moves after ``position`` as JSON, each piece named as the level's file spells it
    (``Level.moves_json`` over the whole game, then the moves so far left off)."""
    return level.moves_json(position.moves + rest)[len(position.moves):]


def next_step(rest: list[Move]) -> list[Move]:
    """The rest's moves up to and including its first placement (the tokens spent on the way):
    what a hint shows the player next; all of it when it places nothing (pumpkins removed)."""
    for i, move in enumerate(rest):
        if isinstance(move, Placement):
            return rest[:i + 1]
    return list(rest)
