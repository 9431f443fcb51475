"""Playing policies for dealt games. ``greedy`` is the simple one-placement lookahead."""

from __future__ import annotations

from collections.abc import Callable

from .bitboard import BB_ALL, isolated_empty
from .engine import Game
from .moves import Move, Placement, TokenUse
from .pieces import get_piece, placements

Policy = Callable[[Game], Move | None]  # a placement, or a token use where the variant has tokens


def greedy(game: Game) -> Move | None:
    """The placement with the most points now; ties: more empty cells, fewer isolated ones, first found.

    When no piece fits: the first token of the tray search's rescue (the fewest rotate and remove
    tokens after which the whole tray goes down, the first such plan found, not the best
    scoring: greedy is the baseline), else a redeal that can draw
    (a swap of the largest piece, a reroll or refresh); None when neither can save the tray."""
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
    if best_move is None and game.tray and game.tokens > 0:
        return _rescue_token(game)
    return best_move


def _rescue_token(game: Game) -> Move | None:
    from .tray import TraySearch  # the tray search imports the engine, as this module does

    kinds = game.variant.token_kinds
    rescued = TraySearch(game.variant, game.board, game.streak).rescue(game.tray, game.tokens)
    if rescued is not None:
        return rescued[1][0]  # a token: nothing fits before it
    if "swap" in kinds and game.can_draw(1):
        return TokenUse("swap", piece=max(game.tray, key=lambda p: get_piece(p).size))
    for kind in kinds & {"reroll", "refresh"}:  # a variant has one of the two
        if game.can_draw(len(game.tray)):
            return TokenUse(kind)
    return None


POLICIES: dict[str, Policy] = {"greedy": greedy}


def _register_expert() -> None:
    from .expert import ExpertPolicy  # numba loads later, when the expert first enumerates a tray

    POLICIES["expert"] = ExpertPolicy()


_register_expert()
