"""Playing policies for dealt games. ``greedy`` is the simple one-placement lookahead."""

from __future__ import annotations

from collections.abc import Callable

from .bitboard import BB_ALL, isolated_empty
from .engine import Game
from .moves import Move, Placement
from .pieces import placements

Policy = Callable[[Game], Move | None]  # a placement, or a token use where the variant has tokens


def greedy(game: Game) -> Placement | None:
    """The placement with the most points now; ties: more empty cells, fewer isolated ones, first found."""
    stones = game.board.stones
    occupied = game.board.occupied
    best_key = None
    best_move = None
    for piece in dict.fromkeys(game.tray or ()):
        for spot in placements(piece):
            if spot.mask & occupied:
                continue
            filled, points = game.points_now(spot.mask)
            after = filled | stones
            key = (points, (BB_ALL & ~after).bit_count(), -isolated_empty(after))
            if best_key is None or key > best_key:
                best_key, best_move = key, Placement(piece, spot.row, spot.col)
    return best_move


POLICIES: dict[str, Policy] = {"greedy": greedy}


def _register_expert() -> None:
    from .expert import ExpertPolicy  # numba loads later, when the expert first enumerates a tray

    POLICIES["expert"] = ExpertPolicy()


_register_expert()
