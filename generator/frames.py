"""The board after each move of a level's solution, replayed through the one move applier."""

from __future__ import annotations

from dataclasses import dataclass

from solver.board import Board
from solver.errors import RulesError
from solver.level import Level
from solver.moves import Move, Placement
from solver.pieces import placement_mask


@dataclass(frozen=True)
class Frame:
    board: Board
    move: Move | None = None  # None for the starting position
    placed: int = 0  # cells the move put down (some may have cleared at once)
    cleared: int = 0  # cells the move cleared
    points: int = 0
    score: int = 0  # the level's score so far: placement points and the bonus of the tokens left (RULES.md 3)
    tokens: int = 0  # tokens left after the move
    name: str | None = None  # the move's piece as the level's file spells it

    @property
    def caption(self) -> str:
        if self.move is None:
            return "start"
        move = self.move
        piece = self.name or getattr(move, "piece", None)
        if isinstance(move, Placement):
            return f"{piece} at {move.row},{move.col} +{self.points}"
        extra = ""
        if move.token == "rotate":
            extra = f" {piece} x{move.turns}"
        elif move.token == "swap":
            extra = f" {piece}"
        elif move.token == "remove":
            extra = f" {move.row},{move.col}"
        return f"token {move.token}{extra}"


def solution_frames(level: Level) -> list[Frame]:
    """The starting board, then one frame per move of ``level.solution``.

    Raises ``RulesError`` naming the move when the solution is missing or a
    move is illegal, so a picture never shows a position the rules forbid.
    """
    if level.solution is None:
        raise RulesError(f"level {level.id}: has no solution to draw")
    game = level.new_game()
    frames = [Frame(game.board, score=game.final_score, tokens=game.tokens)]
    names = [data.get("piece") for data in level.moves_json(level.solution)]
    for i, move in enumerate(level.solution):
        try:
            result = game.apply(move)
        except RulesError as err:
            raise RulesError(f"level {level.id}: solution[{i}]: {level.illegal_move(level.solution, i, game, err)}"
                             ) from None
        placed = placement_mask(move.piece, move.row, move.col) if isinstance(move, Placement) else 0
        frames.append(Frame(game.board, move, placed, result.cleared, result.points, game.final_score, game.tokens,
                            names[i]))
    return frames
