"""An independent check of a level's stored solution, on the naive reference rules.

Nothing from ``solver/``: trays, tokens, limit and goals are judged here again
from RULES.md §3, using ``reference_rules`` for placements and clears.
"""

from __future__ import annotations

from collections import Counter

import reference_rules as ref

TOKEN_BONUS = {"halloween": 0, "arabic": 100, "sudoku": 200}
DEFAULT_TOKENS = {("arabic", "sultan"): 3, ("arabic", "standard"): 3, ("arabic", "courtyard"): 5}


def reference_check(level: dict) -> tuple[bool, str, int]:
    """(solution wins?, why not, its final score). Trays must hold 3 pieces (a turn each)."""
    game = ref.RefGame(level["variant"], "/".join(level["board"]))
    trays = [Counter(t) for t in level["trays"]]
    if not all(sum(t.values()) == 3 for t in trays):
        return False, "reference turns assume full trays", 0
    tokens = level.get("tokens", DEFAULT_TOKENS.get((level["variant"], level["mode"]), 0))
    placed = 0
    for i, move in enumerate(level["solution"]):
        if placed // 3 >= len(trays):
            return False, f"move {i}: no tray left", 0
        tray = trays[placed // 3]
        if "token" in move:
            if tokens <= 0:
                return False, f"move {i}: no token left", 0
            tokens -= 1
            if move["token"] == "remove":
                r, c = move["row"], move["col"]
                if game.grid[r][c] not in "#P":
                    return False, f"move {i}: remove on {game.grid[r][c]!r}", 0
                game.grid[r][c] = "."
            elif move["token"] == "rotate":
                if tray[move["piece"]] <= 0:
                    return False, f"move {i}: rotate {move['piece']} not in tray", 0
                tray[move["piece"]] -= 1
                tray[ref.rotate_id(move["piece"], move["turns"])] += 1
            else:
                return False, f"move {i}: token {move['token']} not checked here", 0
            continue
        if tray[move["piece"]] <= 0:
            return False, f"move {i}: {move['piece']} not in tray {placed // 3}", 0
        tray[move["piece"]] -= 1
        try:
            game.place(move["piece"], move["row"], move["col"])
        except ValueError as err:
            return False, f"move {i}: {err}", 0
        placed += 1
    score = game.score + tokens * TOKEN_BONUS[level["variant"]]
    if placed > level.get("limit", 3 * len(trays)):
        return False, "past the limit", score
    for goal in level["goals"]:
        if "score" in goal and score < goal["score"]:
            return False, f"score {score} < {goal['score']}", score
        if goal.get("pumpkins") and "P" in game.text:
            return False, "pumpkins left", score
        if goal.get("place_all") and placed != 3 * len(level["trays"]):
            return False, "not every piece placed", score
    return True, "", score
