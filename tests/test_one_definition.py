"""The few facts written in two places, held to their one definition: the level schema (which
clients read without tenfold) against the board's and the tray's sizes (the options' cap on
tokens is read from it: ``schema.level_tokens_most``), the moves' token kinds against the
variants', the generator's recipes against the modes they build."""

from __future__ import annotations

import json
import re
from pathlib import Path

from generator.recipes import RECIPES
from solver.bitboard import SIZE
from solver.deals import TRAY_SIZE
from solver.moves import REDEAL_KINDS, TOKEN_KINDS
from solver.variants import VARIANTS, find_variant

SCHEMAS = Path(__file__).resolve().parent.parent / "levels" / "schema"


def _level_schema() -> dict:
    return json.loads((SCHEMAS / "level.schema.json").read_text(encoding="utf-8"))


def test_the_level_schema_has_the_boards_and_trays_sizes():
    props = _level_schema()["properties"]
    board = props["board"]
    assert board["minItems"] == board["maxItems"] == SIZE
    row = re.fullmatch(r"\^\[(.+)\]\{(\d+)\}\$", board["items"]["pattern"])
    assert row and int(row[2]) == SIZE, board["items"]["pattern"]
    assert props["trays"]["items"]["maxItems"] == TRAY_SIZE


def test_the_move_parser_knows_exactly_the_variants_token_kinds():
    """A move file's token names are checked against ``moves.TOKEN_KINDS``; a variant spends
    its own ``token_kinds``: every kind one of them spends is parsed, and none is parsed that
    no variant spends."""
    spent = set().union(*(find_variant(name).token_kinds for name in VARIANTS))
    assert set(TOKEN_KINDS) == spent and len(TOKEN_KINDS) == len(spent)
    assert REDEAL_KINDS <= spent


def test_a_recipe_with_a_modes_fixed_stones_builds_that_many():
    """Sultan's Labyrinth has exactly four stones (its mode); the generator's recipe draws its
    stone count from its own range, which must then be that count alone."""
    fixed = 0
    for recipe in RECIPES.values():
        mode = find_variant(recipe.variant).modes[recipe.mode]
        if mode.stones is not None:
            assert recipe.stones == (mode.stones, mode.stones), recipe.kind
            fixed += 1
        assert mode.stones_problem(recipe.stones[0]) is None and mode.stones_problem(recipe.stones[1]) is None
    assert fixed >= 1  # the Sultan recipe
