"""An independent check of a level's stored solution, on the naive reference rules.

Nothing from ``solver/``: trays, tokens, limit and goals are judged here again
from RULES.md §3, using ``reference_rules`` for placements and clears.
"""

from __future__ import annotations

from collections import Counter

import reference_rules as ref

TOKEN_KINDS = {"halloween": (), "arabic": ("rotate", "remove", "reroll"), "sudoku": ("remove", "swap", "refresh")}
REDEALS = ("reroll", "swap", "refresh")  # the tokens that draw from the level's reserve
# RULES.md §1: a level's tokens when it gives none, by mode (a mode missing here is an error)
DEFAULT_TOKENS = {("halloween", "endless"): 0, ("halloween", "campaign"): 0,
                  ("arabic", "courtyard"): 5, ("arabic", "standard"): 3, ("arabic", "sultan"): 3,
                  ("arabic", "speed"): 3, ("sudoku", "classic"): 3, ("sudoku", "sprint"): 3,
                  ("sudoku", "battle"): 3, ("sudoku", "campaign"): 3}


def reference_check(level: dict) -> tuple[bool, str, int]:
    """(solution wins?, why not, its final score)."""
    play = _Play(level)
    for i, move in enumerate(level["solution"]):
        why = play.move(move)
        if why:
            return False, f"move {i}: {why}", 0
    score = play.score
    if play.placed > play.limit:
        return False, "past the limit", score
    for goal in level["goals"]:
        if "score" in goal and score < goal["score"]:
            return False, f"score {score} < {goal['score']}", score
    why = play.goals_unmet()
    return not why, why, score


def reference_best(level: dict, after: list[dict] = ()) -> int | None:
    """``best.score`` by brute force over every legal move sequence (placements, and the tokens
    the variant has: rotate, remove, and the redeals that draw from the reserve): the highest
    score at the end of any sequence of at most ``limit`` placements that meets every goal but
    the score, or None. States are memoised on everything the rest of a line depends on.

    ``after``: only the sequences that start with these moves (each legal, or ``ValueError``)."""
    memo: dict[tuple, int | None] = {}
    start = _Play(level)
    for i, move in enumerate(after):
        why = start.move(move)
        if why or start.placed > start.limit:
            raise ValueError(f"after[{i}]: {why or 'past the limit'}")

    def best_from(play: _Play) -> int | None:
        """The most points still to come from this state (unspent tokens' bonus included) on a
        line whose end meets the goals, or None."""
        key = play.key()
        if key in memo:
            return memo[key]
        best = None if play.goals_unmet() else play.score - play.game.score  # ending here
        for move in play.moves():
            child = play.copy()
            child.move(move)
            sub = best_from(child)
            if sub is not None:
                gained = child.game.score - play.game.score
                if best is None or gained + sub > best:
                    best = gained + sub
        memo[key] = best
        return best

    rest = best_from(start)
    return None if rest is None else start.game.score + rest


def random_moves(level: dict, rng, count: int) -> list[dict]:
    """Up to ``count`` legal moves drawn at random, one at a time, from those the brute force
    would try (fewer where none is left): a placement three times in four where one is legal
    (a board has far more tiles to remove than spots), else a token use; placements stop at
    the limit."""
    play = _Play(level)
    moves: list[dict] = []
    for _ in range(count):
        legal = list(play.moves())
        if not legal:
            break
        spots = [m for m in legal if "token" not in m]
        tokens = [m for m in legal if "token" in m]
        move = rng.choice(spots if spots and (not tokens or rng.random() < 0.75) else tokens)
        assert not play.move(move)
        moves.append(move)
    return moves


class _Play:
    """A level in play on the reference rules: the board, the trays in order, tokens, the
    reserve, the placement count. A turn ends when its tray empties (the Arabic flow bonus is
    judged then).

    Redeals (RULES.md §1, §3): a swap replaces one piece of the tray with the reserve's next; a
    reroll (Arabic) or refresh (Sudoku) replaces every piece still in the tray with the
    reserve's next ones, and is illegal when the reserve has too few left."""

    def __init__(self, level: dict) -> None:
        self.variant = level["variant"]
        self.game = ref.RefGame(self.variant, "/".join(level["board"]))
        self.trays = [Counter(t) for t in level["trays"]]
        self.total = sum(len(t) for t in level["trays"])
        self.tray = 0
        self.tokens = level["tokens"] if "tokens" in level else DEFAULT_TOKENS[self.variant, level["mode"]]
        self.placed = 0
        self.limit = level.get("limit", self.total)
        self.goals = level["goals"]
        self.reserve = list(level.get("reserve", []))
        self.drawn = 0  # reserve pieces dealt so far

    def copy(self) -> "_Play":
        other = _shallow(self)
        other.game = _shallow(self.game)
        other.game.grid = [row[:] for row in self.game.grid]
        other.trays = [Counter(t) for t in self.trays]
        return other

    @property
    def score(self) -> int:
        return self.game.score + self.tokens * ref.TOKEN_BONUS[self.variant]

    def key(self) -> tuple:
        g = self.game
        return (g.text, self.tray, tuple(sorted(self.trays[self.tray].elements())) if self.tray < len(self.trays)
                else (), self.tokens, self.placed, self.drawn, g.run, g.turn_cleared, g.prev_turn_cleared)

    def goals_unmet(self) -> str:
        """Why the goals other than the score do not hold now ("" when they do)."""
        for goal in self.goals:
            if goal.get("pumpkins") and "P" in self.game.text:
                return "pumpkins left"
            if goal.get("place_all") and self.placed != self.total:
                return "not every piece placed"
        return ""

    def current_tray(self) -> Counter | None:
        """The tray in play (its unplaced pieces), None after the last."""
        return self.trays[self.tray] if self.tray < len(self.trays) else None

    def moves(self):
        """Every legal move now, as move dicts."""
        grid = self.game.grid
        tray = self.current_tray()
        pieces = sorted(+tray) if tray is not None else []
        if self.placed < self.limit:
            for piece in pieces:
                for r, c in ref.fitting_spots(grid, piece):
                    yield {"piece": piece, "row": r, "col": c}
        if self.tokens <= 0:
            return
        kinds = TOKEN_KINDS[self.variant]
        if "rotate" in kinds:
            for piece in pieces:
                for turns in (1, 2, 3):
                    yield {"token": "rotate", "piece": piece, "turns": turns}
        if "swap" in kinds and self.drawn < len(self.reserve):
            for piece in pieces:
                yield {"token": "swap", "piece": piece}
        for kind in ("reroll", "refresh"):
            if kind in kinds and pieces and self.drawn + tray.total() <= len(self.reserve):
                yield {"token": kind}
        if "remove" in kinds:
            for r in range(10):
                for c in range(10):
                    if grid[r][c] in "#P":
                        yield {"token": "remove", "row": r, "col": c}

    def move(self, move: dict) -> str:
        """Play one move; returns why it is illegal ("" when it is legal)."""
        if "token" in move:
            if self.tokens <= 0:
                return "no token left"
            if move["token"] not in TOKEN_KINDS[self.variant]:
                return f"token {move['token']} not checked here"
            self.tokens -= 1
            if move["token"] == "remove":  # also after the last tray (a pumpkin left, say)
                r, c = move["row"], move["col"]
                if self.game.grid[r][c] not in "#P":
                    return f"remove on {self.game.grid[r][c]!r}"
                self.game.grid[r][c] = "."
                return ""
            tray = self.current_tray()
            if tray is None:
                return "no tray left"
            if move["token"] == "rotate":
                if tray[move["piece"]] <= 0:
                    return f"rotate {move['piece']} not in tray"
                tray[move["piece"]] -= 1
                tray[ref.rotate_id(move["piece"], move["turns"])] += 1
                return ""
            return self._redeal(tray, move)
        tray = self.current_tray()
        if tray is None:
            return "no tray left"
        if tray[move["piece"]] <= 0:
            return f"{move['piece']} not in tray {self.tray}"
        tray[move["piece"]] -= 1
        ends_turn = tray.total() == 0
        self.game.in_turn = 2 if ends_turn else 0  # RefGame judges the turn on its third placement
        try:
            self.game.place(move["piece"], move["row"], move["col"])
        except ValueError as err:
            return str(err)
        self.placed += 1
        if ends_turn:
            self.tray += 1
        return ""

    def _redeal(self, tray: Counter, move: dict) -> str:
        if move["token"] == "swap":
            if tray[move["piece"]] <= 0:
                return f"swap {move['piece']} not in tray"
            out = [move["piece"]]
        else:
            out = list(tray.elements())
        if self.drawn + len(out) > len(self.reserve):
            return "reserve used up"
        for piece in out:
            tray[piece] -= 1
            tray[self.reserve[self.drawn]] += 1
            self.drawn += 1
        return ""


def _shallow(obj):
    """``copy.copy`` for a plain object, without its generic machinery (a tenth of the brute
    force's time)."""
    other = object.__new__(type(obj))
    other.__dict__.update(obj.__dict__)
    return other
