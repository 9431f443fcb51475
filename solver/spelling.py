"""Naming pieces as the caller spells them.

Inside, a piece has one id: a mask of a canonical shape is that shape (``#/#``
is ``2x1``, and so is ``.#/.#``), and a level's own shape is its normalised
mask. A level file or a hint request may spell a piece otherwise; what we
write back about it (a solution, a plan, safe moves) names each piece as the
caller spelled the tray piece the move acts on, so that a client finding a
move's piece in its tray by id finds it.

The spelling is recovered by replaying the moves through the engine beside a
copy of the tray in the caller's spelling, slot for slot (the engine acts on
the first slot holding a piece, and deals in order). A move that names its
piece as one of the slots spells it (a player's ``2x1`` in a tray of ``#/#``
and ``2x1``) acts on that slot, and the slots left keep their spellings; one
named otherwise acts on the first. A turned piece is named by its turned id.
"""

from __future__ import annotations

from typing import Any

from .board import Board
from .deals import ScriptedDeals
from .engine import Game, Streak
from .errors import TenfoldError
from .moves import Move, Placement, as_written, parse_moves
from .pieces import get_piece
from .variants import Variant


class SpelledDeals(ScriptedDeals):
    """Deals in the caller's spelling, keeping what was dealt since the last ``take``."""

    def __init__(self, trays, reserve=()) -> None:
        super().__init__(trays, reserve)
        self._dealt: list[str] = []

    def next_tray(self) -> list[str] | None:
        tray = super().next_tray()
        self._dealt += tray or []
        return tray

    def next_piece(self) -> str:
        piece = super().next_piece()
        self._dealt.append(piece)
        return piece

    def take(self) -> list[str]:
        dealt, self._dealt = self._dealt, []
        return dealt


def spell_moves(game: Game, shadow: list[str], moves: list[Move],
                deals: SpelledDeals | None = None) -> list[dict[str, Any]]:
    """The moves' JSON from ``game``'s position, where ``shadow`` is its tray as the caller
    spells it and ``deals`` (if any) deals the caller's spelling to ``game``. Past an illegal
    move the rest are as they were written. Plays ``game`` on."""
    return [data for data, _ in _spelled_steps(game, shadow, moves, deals)]


def spelled_tray_at(game: Game, shadow: list[str], moves: list[Move], index: int,
                    deals: SpelledDeals | None = None) -> list[str]:
    """The tray as the caller spells it just before ``moves[index]`` (``spell_moves``'s
    arguments; plays ``game`` on up to that move)."""
    for n, (_, tray) in enumerate(_spelled_steps(game, shadow, moves[:index + 1], deals)):
        if n == index:
            return tray
    raise IndexError(index)


def _spelled_steps(game: Game, shadow: list[str], moves: list[Move], deals: SpelledDeals | None):
    """Each move's JSON in the caller's spelling, with the tray as the caller spells it before
    the move; a move whose piece is not in the tray, and past an illegal move every move, as it
    was written (and the tray at the illegal one)."""
    for n, move in enumerate(moves):
        data = as_written(move)
        slot = game.tray.index(move.piece) if "piece" in data and move.piece in (game.tray or ()) else None
        if slot is not None:
            # the engine acts on the first slot of the piece; a move spelled as a later slot is (a
            # player's move names the slot it took), so that slot's spelling goes first
            chosen = _chosen_slot(game.tray, shadow, move, slot)
            shadow[slot], shadow[chosen] = shadow[chosen], shadow[slot]
            data["piece"] = shadow[slot]
        yield data, list(shadow)
        try:
            game.apply(move)
        except TenfoldError:
            for later in moves[n + 1:]:
                yield as_written(later), list(shadow)
            return
        if isinstance(move, Placement):
            shadow.pop(slot)
        elif move.token == "rotate":
            shadow[slot] = game.tray[slot]
        elif move.token == "swap":
            shadow[slot] = deals.take()[0]
        elif move.token in ("reroll", "refresh"):
            shadow = deals.take()
        if not shadow and game.tray and deals is not None:
            shadow = deals.take()  # the next tray


def _chosen_slot(tray: list[str], shadow: list[str], move: Move, first: int) -> int:
    """The first slot of ``move``'s piece whose spelling is the move's own (as written, else its
    id); ``first`` (the engine's) when none is."""
    spelled = move.written or move.piece
    if shadow[first] == spelled:
        return first
    for j in range(first + 1, len(tray)):
        if tray[j] == move.piece and shadow[j] == spelled:
            return j
    return first


def respell_tray(message: str, tray: list[str], spelled: list[str]) -> str:
    """An engine message that lists the tray (``(tray: 2x2, L5-sw)``) with the tray as the
    caller spells it (``(tray: ##/##, L5-sw)``)."""
    return message.replace(f"(tray: {', '.join(tray)})", f"(tray: {', '.join(spelled)})")


def respelled(tray: list[str]) -> bool:
    """Whether ``tray`` spells some piece other than by its id."""
    return any(get_piece(p).id != p for p in tray)


def spell_tray_answer(data: dict[str, Any], variant: Variant, board: Board, streak: int, tokens: int,
                      tray: list[str]) -> dict[str, Any]:
    """A tray answer's JSON (``TrayAnswer.to_json``, or the expert's hint) with its plan and
    safe first moves naming the pieces as ``tray`` spells them."""
    if not respelled(tray):
        return data

    def game() -> Game:
        return Game(variant, board, Streak.carried_in(streak), tokens, list(tray))

    out = dict(data)
    if data.get("plan"):
        out["plan"] = spell_moves(game(), list(tray), parse_moves(data["plan"]))
    if data.get("safe_moves"):
        # a first move acts on any slot holding its piece: a shape the tray spells two ways (5x1 and
        # #/#/#/#/#) is listed under each, so a client looking either up by id finds it
        spellings: dict[str, list[str]] = {}
        for piece in tray:
            names = spellings.setdefault(get_piece(piece).id, [])
            if piece not in names:
                names.append(piece)
        out["safe_moves"] = [{**move, "piece": name} for move in data["safe_moves"]
                             for name in spellings[get_piece(move["piece"]).id]]
    return out
