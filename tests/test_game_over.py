"""Game over (``Game.is_over``) against a brute force over token uses on the reference rules
(``reference_rules``, no code shared with ``solver/``).

RULES.md §1: the game ends when no piece left in the tray can be placed after any token use
the variant allows. Seeded boards of stones with a patch or two of tiles and gaps (so that every
sequence of removals and turns can be tried), trays of one to three pieces, no reserve to draw from, and
0-3 tokens in every variant: the game is over exactly when no sequence of at most that many
token uses (removing any tile, turning any tray piece a quarter, half or three quarters, where
the variant has the token) leaves some piece with a spot that fits.
"""

from __future__ import annotations

import random

import pytest

import reference_rules as ref
from level_reference import TOKEN_KINDS
from solver.board import parse_board
from solver.deals import ScriptedDeals
from solver.engine import Game
from solver.variants import find_variant

CASES = 1200


def position(seed: int) -> tuple[str, list[list[str]], list[str], int]:
    """A board of stones with one or two patches of tiles and gaps (at most sixteen cells
    each), a tray and tokens."""
    rng = random.Random(f"game-over-{seed}")
    variant = ("halloween", "arabic", "sudoku")[seed // 3 % 3]
    grid = [["S"] * 10 for _ in range(10)]
    for _ in range(rng.choice((1, 1, 2))):
        height = rng.randint(1, 4)
        width = rng.randint(max(1, 3 - height), min(10, 16 // height))
        top, left = rng.randrange(11 - height), rng.randrange(11 - width)
        tile_share = rng.uniform(0.5, 0.9)
        for r in range(top, top + height):
            for c in range(left, left + width):
                grid[r][c] = "#" if rng.random() < tile_share else "."
    pieces = list(ref.shape_probabilities(variant))
    tray = [rng.choice(pieces) for _ in range(rng.randint(1, 3))]
    tokens = 0 if variant == "halloween" else rng.randint(0, 3)
    return variant, grid, tray, tokens


def reference_can_go_on(variant: str, grid, tray: list[str], tokens: int) -> bool:
    """Whether some sequence of at most ``tokens`` token uses leaves a tray piece that fits."""
    kinds = set(TOKEN_KINDS[variant]) & {"rotate", "remove"}  # no reserve to redeal from
    seen = set()

    def search(removed: frozenset, pieces: tuple[str, ...], left: int) -> bool:
        key = (removed, pieces, left)
        if key in seen:
            return False
        seen.add(key)
        now = [[("." if (r, c) in removed else grid[r][c]) for c in range(10)] for r in range(10)]
        if any(ref.fitting_spots(now, piece) for piece in set(pieces)):
            return True
        if left == 0:
            return False
        if "remove" in kinds:
            for r in range(10):
                for c in range(10):
                    if now[r][c] in "#P" and search(removed | {(r, c)}, pieces, left - 1):
                        return True
        if "rotate" in kinds:
            for i, piece in enumerate(pieces):
                for turns in (1, 2, 3):
                    turned = tuple(sorted(pieces[:i] + (ref.rotate_id(piece, turns),) + pieces[i + 1:]))
                    if search(removed, turned, left - 1):
                        return True
        return False

    return search(frozenset(), tuple(sorted(tray)), tokens)


@pytest.mark.parametrize("chunk", range(3))
def test_game_over_matches_a_brute_force_over_token_uses(chunk):
    outcomes = {True: 0, False: 0}
    rescued = 0
    for seed in range(chunk, CASES, 3):
        variant, grid, tray, tokens = position(seed)
        game = Game.dealt(find_variant(variant), ScriptedDeals([tray]), parse_board(ref.grid_text(grid)), tokens)
        expected = not reference_can_go_on(variant, grid, tray, tokens)
        assert game.is_over == expected, (variant, ref.grid_text(grid), tray, tokens)
        outcomes[expected] += 1
        rescued += not expected and not reference_can_go_on(variant, grid, tray, 0)
    assert min(outcomes.values()) >= 80 and rescued >= 45, (outcomes, rescued)


def test_a_swap_needs_one_reserve_piece_a_reroll_one_for_each_tray_piece():
    """On a checkerboard no 3x3 fits and one token cannot clear room for one. A Sudoku swap draws
    one piece for one: a reserve of one 1x1 saves the game. An Arabic reroll redraws the two
    pieces left: the same reserve cannot, and the game is over (a mutation audit found the swap
    read as a reroll unnoticed)."""
    checkers = parse_board(["".join("#." [(r + c) % 2] for c in range(10)) for r in range(10)])
    for name, reserve, over in (("sudoku", ["1x1"], False), ("sudoku", [], True), ("arabic", ["1x1"], True),
                                ("arabic", ["1x1", "1x1"], False)):
        game = Game(find_variant(name), checkers, tokens=1, tray=["3x3", "3x3"], deals=ScriptedDeals([], reserve))
        assert game.is_over == over, (name, reserve)
