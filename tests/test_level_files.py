"""Level and pack files (RULES.md §3): schema validation on load, unknown fields kept, replays."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import jsonschema
import pytest

from solver.errors import FormatError
from solver.level import parse_level, parse_level_or_pack, parse_pack, play_solution
from solver.moves import TokenUse, parse_move, parse_moves

SCHEMAS = Path(__file__).resolve().parents[1] / "levels" / "schema"
LEVEL_SCHEMA = json.loads((SCHEMAS / "level.schema.json").read_text(encoding="utf-8"))
PACK_SCHEMA = json.loads((SCHEMAS / "pack.schema.json").read_text(encoding="utf-8"))

LEVEL = {
    "format": "tenfold.level/1",
    "id": "h-1",
    "variant": "halloween",
    "mode": "campaign",
    "board": ["P########."] + ["S........."] + ["." * 10] * 8,
    "trays": [["1x1", "2x2", "1x3"], ["3x3"]],
    "reserve": [],
    "limit": 4,
    "goals": [{"score": 20}, {"pumpkins": True}],
    "solution": [{"piece": "1x1", "row": 0, "col": 9}, {"piece": "2x2", "row": 5, "col": 5},
                 {"piece": "1x3", "row": 9, "col": 0}, {"piece": "3x3", "row": 2, "col": 2}],
    "best": {"score": 29, "proof": "optimal", "bound": 29, "nodes": 1234},
    "author": "test suite",
    "hints": [{"move": 0, "text": "clear the pumpkin"}],
}


def test_the_example_level_is_valid_under_the_schema():
    jsonschema.validate(LEVEL, LEVEL_SCHEMA)
    level = parse_level(copy.deepcopy(LEVEL))
    assert level.tokens == 0 and level.limit == 4 and level.piece_count == 4


# Each mutation breaks the schema (checked below with jsonschema itself); loading must refuse it
# with a message that names the field.
SCHEMA_BREAKERS = [
    ("format", "tenfold.level/2"),
    ("id", ""),
    ("variant", "tetris"),
    ("board", ["." * 10] * 11),
    ("board", ["." * 10] * 9 + ["." * 9 + "Z"]),
    ("trays", []),
    ("trays", [["1x1", "1x1", "1x1", "1x1"]]),
    ("limit", 0),
    ("limit", "3"),
    ("tokens", -1),
    ("goals", []),
    ("goals", [{"score": -5}]),
    ("goals", [{"pumpkins": False}]),
    ("goals", [{"score": 1, "place_all": True}]),
    ("best", {"score": 3}),
    ("best", {"score": 3, "proof": "guess"}),
    ("solution", "none"),
]


@pytest.mark.parametrize("field, value", SCHEMA_BREAKERS, ids=[f"{f}={v!r}"[:40] for f, v in SCHEMA_BREAKERS])
def test_loading_rejects_what_the_schema_rejects(field, value):
    data = copy.deepcopy(LEVEL)
    data[field] = value
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, LEVEL_SCHEMA)
    with pytest.raises(FormatError, match=field):
        parse_level(data)


# values a mutation puts in a field: right and wrong kinds, integers as floats, edge numbers,
# strings with line breaks, rows of a board, goals, moves
ODD_VALUES = [None, True, False, 0, 1, -1, 3, 5.0, 0.0, 2.5, 1000000, 1000001, 1001, "", "x", "a\nb",
              "tenfold.level/1", "halloween", "campaign", "1x1", "." * 10, "P########.", "." * 9 + "Z",
              "." * 11, [], [True], ["1x1"], ["1x1"] * 4, [[]], [["1x1"]], [{"score": 5}], [{"score": 5.0}],
              [{"pumpkins": True}], [{"pumpkins": 1}], [{}], [{"score": 1, "place_all": True}], {},
              {"score": 3, "proof": "bound"}, {"score": 3.0, "proof": "optimal", "bound": 4},
              {"score": None, "proof": "infeasible"}, {"piece": "1x1", "row": 0, "col": 0}, ["." * 10] * 10,
              ["." * 10] * 9, 4.0, 1.0, [{"score": 0.0}], {"score": 3, "proof": "bound", "bound": 7.0}]


def mutated(rng, value, depth=0):
    """``value`` with one change at a random place: a value replaced, a key dropped or added."""
    if isinstance(value, dict) and value and rng.random() < 0.7:
        key = rng.choice(sorted(value))
        choice = rng.random()
        if choice < 0.15:
            return {k: v for k, v in value.items() if k != key}
        if choice < 0.25:
            return {**value, rng.choice(["score", "proof", "extra", "limit", "pumpkins"]): rng.choice(ODD_VALUES)}
        return {**value, key: mutated(rng, value[key], depth + 1)}
    if isinstance(value, list) and value and rng.random() < 0.7:
        i = rng.randrange(len(value))
        return value[:i] + [mutated(rng, value[i], depth + 1)] + value[i + 1:]
    return copy.deepcopy(rng.choice(ODD_VALUES))


@pytest.mark.parametrize("seed", range(40))
def test_the_quick_schema_check_passes_what_the_schema_passes(seed):
    """Loading checks the schema with a compiled check (fastjsonschema) and asks jsonschema only
    for the message of what fails: the two must pass the same levels and packs (an integer
    given as 5.0 fails both, as tenfold refuses it), here on mutations of a valid level and
    pack, 25 of each a seed, a few changes deep."""
    from solver.schema import _passes_quickly, _validator

    rng = random.Random(seed)
    pack = {"format": "tenfold.pack/1", "id": "p", "title": "t", "generator": {"seed": 1, "version": "1"},
            "levels": [LEVEL]}
    for _ in range(25):
        for name, data in (("level", LEVEL), ("pack", pack)):
            for _ in range(rng.randrange(1, 4)):
                data = mutated(rng, data)
            passes = not any(True for _ in _validator(name).iter_errors(data))
            assert _passes_quickly(data, name) == passes, (name, data)


@pytest.mark.parametrize("path", [("limit",), ("tokens",), ("goals", 0, "score"), ("best", "score"),
                                  ("best", "bound"), ("levels", 0, "limit"), ("generator", "seed")])
def test_an_integer_as_a_float_fails_the_quick_check_as_it_fails_loading(path):
    from solver.schema import _passes_quickly

    pack = {"format": "tenfold.pack/1", "id": "p", "title": "t", "generator": {"seed": 1, "version": "1"},
            "levels": [copy.deepcopy(LEVEL)]}
    data, name = (pack, "pack") if path[0] in ("levels", "generator") else (copy.deepcopy(LEVEL), "level")
    *parents, last = path
    place = data
    for step in parents:
        place = place[step]
    place.setdefault(last, 0 if last == "tokens" else 3)  # Halloween has no tokens
    assert _passes_quickly(data, name) and parse_level_or_pack(data)
    place[last] = float(place[last])
    with pytest.raises(FormatError, match="integer"):
        parse_level_or_pack(data)
    assert _passes_quickly(data, name) == (path[0] == "levels")  # a pack's levels: each one's own check


@pytest.mark.parametrize("field", LEVEL_SCHEMA["required"])
def test_loading_names_a_missing_required_field(field):
    data = copy.deepcopy(LEVEL)
    del data[field]
    with pytest.raises(FormatError, match=f"^level: field {field}: missing$"):
        parse_level(data)
    if field == "format":
        return  # (a pack's levels may leave it out)
    pack = {"format": "tenfold.pack/1", "id": "p", "title": "t", "generator": {"seed": 1, "version": "x"},
            "levels": [LEVEL, data]}
    with pytest.raises(FormatError, match=rf"^pack: levels\[1\]: field {field}: missing$"):
        parse_pack(pack)



@pytest.mark.parametrize("item, message", [(5, "expected an object, got 5"), ([], "expected an object, got []"),
                                           ({**LEVEL, "id": 5}, "field id: expected a string, got 5")])
def test_a_packs_level_is_named_alike_whatever_is_wrong_with_it(item, message):
    """A level of the wrong type is refused by the pack's check, a field of it by the level's:
    both start as 'levels[1]:' (the first said 'field levels[1]:')."""
    pack = {"format": "tenfold.pack/1", "id": "p", "title": "t", "generator": {"seed": 1, "version": "x"},
            "levels": [LEVEL, item]}
    with pytest.raises(FormatError) as err:
        parse_pack(pack)
    assert str(err.value) == f"pack: levels[1]: {message}"

def test_unknown_fields_survive_load_and_save():
    data = copy.deepcopy(LEVEL)
    saved = parse_level(data).to_json()
    assert saved["author"] == "test suite"
    assert saved["hints"] == LEVEL["hints"]
    assert saved["best"]["nodes"] == 1234
    assert data == LEVEL  # loading does not change its input
    # every field of the input comes back unchanged; the loader may add defaults
    for key, value in LEVEL.items():
        if key == "reserve" and not value:
            continue
        assert saved[key] == value, key
    jsonschema.validate(saved, LEVEL_SCHEMA)
    assert parse_level(saved).to_json() == saved


def test_a_goal_keeps_fields_of_its_own_and_is_read_by_its_goal_field():
    """RULES.md §3: "unknown fields are kept, never an error", inside a goal too (a rules audit:
    {"score": 11, "note": "1 star"} was refused, "too many properties"); a goal still names
    exactly one of score, pumpkins and place_all, and the others are not goals."""
    from generator.picture import goals_text

    data = {**copy.deepcopy(LEVEL), "goals": [{"score": 20, "note": "1 star"}, {"pumpkins": True, "stars": [1, 2]}]}
    level = parse_level(data)
    assert level.score_goal == 20 and level.needs_pumpkins and not level.needs_all_placed
    assert level.to_json()["goals"] == data["goals"]
    assert goals_text(level) == "score ≥ 20, clear every pumpkin"
    assert play_solution(level, level.solution).ok  # the example's solution scores 29, clears the pumpkin
    assert not play_solution(parse_level({**data, "goals": [{"score": 30, "note": "x"}]}), level.solution).ok
    for goals in ([{"note": "1 star"}], [{"score": 1, "pumpkins": True, "note": "x"}]):
        with pytest.raises(FormatError, match=r"goals\[0\]: expected exactly one of the fields score, pumpkins"):
            parse_level({**data, "goals": goals})


def test_pack_round_trip_keeps_unknown_fields_at_every_level():
    pack = {
        "format": "tenfold.pack/1",
        "id": "p",
        "title": "Pack",
        "generator": {"seed": 7, "version": "0.1", "grader": "v2"},
        "levels": [copy.deepcopy(LEVEL), {**copy.deepcopy(LEVEL), "id": "h-2", "colour": "orange"}],
        "licence": "CC0",
    }
    jsonschema.validate(pack, PACK_SCHEMA)
    saved = parse_pack(copy.deepcopy(pack)).to_json()
    assert saved["licence"] == "CC0"
    assert saved["generator"]["grader"] == "v2"
    assert saved["levels"][0]["author"] == "test suite"
    assert saved["levels"][1]["colour"] == "orange"
    assert parse_level_or_pack(saved).to_json() == saved


def test_pack_rejects_duplicate_level_ids_and_names_a_bad_level():
    pack = {"format": "tenfold.pack/1", "id": "p", "title": "", "generator": {"seed": 1, "version": "x"},
            "levels": [copy.deepcopy(LEVEL), copy.deepcopy(LEVEL)]}
    with pytest.raises(FormatError, match="duplicate"):
        parse_pack(pack)
    pack["levels"][1]["id"] = "other"
    pack["levels"][1]["variant"] = "nope"
    with pytest.raises(FormatError, match=r"levels\[1\]"):
        parse_pack(pack)
    with pytest.raises(FormatError, match="generator"):
        parse_pack({**pack, "generator": {"seed": 1}})


def test_a_mode_of_two_boards_is_refused_for_a_level():
    """Sudoku's Battle Matrix drops tiles on the other player's board: a level, one board, would
    play it as classic without a word (a rules audit); it is refused as play refuses it."""
    data = {**copy.deepcopy(LEVEL), "variant": "sudoku", "mode": "battle"}
    data.pop("best")
    with pytest.raises(FormatError, match="field mode: battle is a mode of 2 boards; a level is one board"):
        parse_level(data)
    assert parse_level({**data, "mode": "classic"}).mode == "classic"


def test_a_level_refuses_a_mode_that_ends_at_a_target_score():
    """Sudoku's Sprint to 5,000 ends the game at the placement that reaches 5,000, as play ends
    it; solve and verify played such a level on past it (an acceptance audit: best 7,770 on a
    level whose line reached 7,720 at its fifth placement and placed a sixth). A level says
    where it ends with its goals and limit: refused, as the Battle Matrix is."""
    data = {**copy.deepcopy(LEVEL), "variant": "sudoku", "mode": "sprint"}
    data.pop("best")
    with pytest.raises(FormatError, match=r'field mode: sprint ends the game at the placement that reaches 5,000 '
                                          r'points.*\{"score": 5000\}'):
        parse_level(data)


def test_sultan_mode_needs_exactly_four_stones():
    data = {**copy.deepcopy(LEVEL), "variant": "arabic", "mode": "sultan", "goals": [{"score": 1}]}
    with pytest.raises(FormatError, match="stones"):
        parse_level(data)
    data["board"] = ["S..S......", "." * 10, "...S......", "." * 10, "........S."] + ["." * 10] * 5
    assert parse_level(data).tokens == 3


def test_tokens_are_refused_for_a_variant_without_them():
    """Halloween has no tokens (RULES.md): a level granting some names the field; none is fine."""
    with pytest.raises(FormatError, match=r"level: field tokens: variant halloween has no tokens, got 3"):
        parse_level({**copy.deepcopy(LEVEL), "tokens": 3})
    assert parse_level({**copy.deepcopy(LEVEL), "tokens": 0}).tokens == 0
    assert parse_level({**copy.deepcopy(LEVEL), "variant": "arabic", "mode": "standard", "tokens": 2}).tokens == 2


def test_the_solution_plays_and_meets_the_goals():
    level = parse_level(copy.deepcopy(LEVEL))
    result = play_solution(level, level.solution)
    # 1x1 clears row 0 with its pumpkin: 1 + 10; then 4 + 3 + 9 cells
    assert result.ok, result.problem
    assert (result.score, result.placements) == (27, 4)
    assert result.game.board.pumpkins == 0


def test_a_piece_not_in_the_tray_fails_the_replay():
    level = parse_level(copy.deepcopy(LEVEL))
    moves = parse_moves([{"piece": "1x1", "row": 0, "col": 9}, {"piece": "3x3", "row": 2, "col": 2}])
    result = play_solution(level, moves)
    assert not result.ok
    assert result.at == 1 and result.named("solution").startswith("solution[1]: illegal: piece 3x3 is not in the tray")


def test_the_limit_and_the_goals_are_enforced():
    level = parse_level({**copy.deepcopy(LEVEL), "limit": 3})
    result = play_solution(level, level.solution)
    assert not result.ok and "limit" in result.problem
    unmet = play_solution(parse_level(copy.deepcopy(LEVEL)), parse_moves([{"piece": "2x2", "row": 5, "col": 5}]))
    assert not unmet.ok and "pumpkins" in unmet.problem


def test_a_placement_after_the_last_tray_says_so_where_no_limit_is_set():
    data = copy.deepcopy(LEVEL)
    del data["limit"]
    moves = parse_moves(LEVEL["solution"] + [{"piece": "1x1", "row": 9, "col": 9}])
    result = play_solution(parse_level(data), moves)
    assert not result.ok and result.placements == 4
    assert result.named("solution") == "solution[4]: placement 5 is one more than the level's trays hold (4 pieces)"


def test_a_fixed_value_the_file_gets_wrong_is_named_in_json():
    data = copy.deepcopy(LEVEL)
    data["goals"] = [{"pumpkins": False}]
    with pytest.raises(FormatError, match=r"field goals\[0\]\.pumpkins: expected true, got false"):
        parse_level(data)


def test_defaults_for_limit_and_tokens():
    data = copy.deepcopy(LEVEL)
    del data["limit"]
    data.update(variant="sudoku", mode="classic")
    level = parse_level(data)
    assert level.limit == 4 and level.tokens == 3


def test_a_level_that_spells_its_own_pieces_is_written_back_as_spelled():
    """Masks of canonical shapes (``#/#`` is 2x1), one with a blank border, and a shape spelled
    two ways: inside, ids are canonical; the file's trays, reserve and solution come back spelled
    as it spells them (a client finds a move's piece in its tray by id)."""
    data = {**copy.deepcopy(LEVEL), "trays": [["#", "1x1", ".#/.#"], ["###/.#."]], "reserve": ["#/#"],
            "goals": [{"pumpkins": True}],
            "solution": [{"piece": "1x1", "row": 0, "col": 9}, {"piece": "1x1", "row": 5, "col": 5},
                         {"piece": "2x1", "row": 8, "col": 0}, {"piece": "T4-s", "row": 2, "col": 2}]}
    level = parse_level(data)
    assert level.trays == [["1x1", "1x1", "2x1"], ["T4-s"]] and level.reserve == ["2x1"]
    out = level.to_json()
    assert (out["trays"], out["reserve"]) == (data["trays"], data["reserve"])
    # the two 1x1s: the first placement, named 1x1, takes the slot spelled so; the second the
    # one left, spelled "#"
    assert [m["piece"] for m in out["solution"]] == ["1x1", "#", ".#/.#", "###/.#."]
    assert play_solution(parse_level(out), parse_moves(out["solution"])).ok


@pytest.mark.parametrize("move,expected", [
    ({"piece": ".#/.#", "row": 0, "col": 0}, "solution[0]: illegal: piece .#/.# (2x1) at row 0, col 0 overlaps a tile "
                                              "at row 0, col 0"),
    ({"piece": ".#/.#", "row": 9, "col": 0}, "solution[0]: illegal: piece .#/.# (2x1) at row 9, col 0 does not fit on "
                                              "the board (rows 0..8, cols 0..9 allowed)"),
    ({"piece": "###", "row": 5, "col": 5}, "solution[0]: illegal: piece ### (1x3) is not in the tray "
                                            "(tray: .#/.#, 1x1)"),
    ({"piece": "2x1", "row": 0, "col": 0}, "solution[0]: illegal: piece 2x1 at row 0, col 0 overlaps a tile at row 0, "
                                            "col 0"),
])
def test_an_illegal_move_is_named_as_written(move, expected):
    """A docs audit: a solution spelling its piece as a mask got messages naming the canonical
    id alone ('piece 2x1 at row 0, col 8 overlaps...' for '.#/.#'), which the file never says.
    The message names it as written, with its id; a move spelled by its id is unchanged."""
    data = {**copy.deepcopy(LEVEL), "board": ["#" + "." * 9] + ["." * 10] * 9, "trays": [[".#/.#", "1x1"]],
            "goals": [{"score": 1}], "solution": [move]}
    data.pop("limit", None)
    level = parse_level(data)
    replay = play_solution(level, level.solution)
    assert not replay.ok and replay.named("solution") == expected



@pytest.mark.parametrize("variant, mode, move", [
    ("arabic", "standard", {"token": "rotate", "piece": "##/##", "turns": 1}),
    ("sudoku", "classic", {"token": "swap", "piece": "##/##"}),
    ("sudoku", "classic", {"token": "swap", "piece": "2x2"}),
])
def test_a_token_move_is_named_as_written(variant, mode, move):
    """As a placement is: a rotate or a swap of a piece not in the tray names it as the move
    spells it, with its id (the audit: 'rotate: piece 2x2 is not in the tray' for ##/##)."""
    data = {"format": "tenfold.level/1", "id": "t", "variant": variant, "mode": mode, "board": ["." * 10] * 10,
            "trays": [[".#/.#", "1x1"]], "reserve": ["1x1"], "tokens": 3, "goals": [{"score": 1}],
            "solution": [move]}
    level = parse_level(data)
    replay = play_solution(level, level.solution)
    name = "2x2" if move["piece"] == "2x2" else "##/## (2x2)"
    assert replay.named("solution") == (f"solution[0]: illegal: {move['token']}: piece {name} is not in the tray "
                                        "(tray: .#/.#, 1x1)")


def test_moves_after_an_illegal_one_keep_their_spelling():
    """A stored solution with an illegal move is written back (GET /levels/..., a pack's
    rewrite) with every move as the file spelled it: the illegal one and those after it too
    (a cross-surface audit: a later '##/#.' came back as L3-nw, the rest of the line as ids)."""
    from solver.campaign import solve_level

    board = ["#########.", "#########.", "##P######."] + ["." * 10] * 5 + ["........##"] * 2
    base = {"format": "tenfold.level/1", "id": "m", "variant": "halloween", "mode": "campaign", "board": board,
            "trays": [["#/#", ".#/.#", "1x1"], ["##/#.", "2x1", "L3-nw"]], "goals": [{"place_all": True}]}
    level = parse_level(base)
    line = level.moves_json(solve_level(level, target=1).solution)  # any line (the best takes 12 s)
    assert len(line) == 6
    assert {m["piece"] for m in line} >= {"#/#", ".#/.#", "##/#.", "L3-nw"}  # spelled as the trays are
    for bad in range(len(line)):
        moves = [dict(m) for m in line]
        moves[bad]["row"], moves[bad]["col"] = 8, 8  # onto the tiles no line clears: illegal
        level = parse_level({**base, "solution": moves})
        replay = play_solution(level, level.solution)
        assert not replay.ok and replay.named("solution").startswith(f"solution[{bad}]: illegal"), replay.problem
        assert level.to_json()["solution"] == moves, bad

def test_spelled_moves_follow_turns_and_redeals():
    """A turned piece is named by its turned id; a rerolled or swapped-in one as the reserve
    spells it. A move naming the tray's piece as one of its slots spells it acts on that slot
    (here 2x1, not #/#), and leaves the other."""
    arabic = {"format": "tenfold.level/1", "id": "a", "variant": "arabic", "mode": "standard",
              "board": ["." * 10] * 10, "trays": [["#/#", "2x1"]], "reserve": ["###", "#.#/###"],
              "goals": [{"score": 1}], "tokens": 3}
    moves = parse_moves([{"token": "rotate", "piece": "2x1", "turns": 1}, {"piece": "1x2", "row": 0, "col": 0},
                         {"token": "reroll"}, {"piece": "1x3", "row": 5, "col": 0}])
    assert parse_level(arabic).moves_json(moves) == [
        {"token": "rotate", "piece": "2x1", "turns": 1}, {"piece": "1x2", "row": 0, "col": 0},
        {"token": "reroll"}, {"piece": "###", "row": 5, "col": 0}]
    sudoku = {**arabic, "variant": "sudoku", "mode": "classic"}
    moves = parse_moves([{"token": "swap", "piece": "2x1"}, {"piece": "1x3", "row": 0, "col": 0},
                         {"piece": "2x1", "row": 5, "col": 0}])
    assert parse_level(sudoku).moves_json(moves) == [
        {"token": "swap", "piece": "2x1"}, {"piece": "###", "row": 0, "col": 0},
        {"piece": "#/#", "row": 5, "col": 0}]


@pytest.mark.parametrize("moves, tray", [
    ([], "#/#, 2x1"),
    ([{"token": "rotate", "piece": "2x1", "turns": 1}], "1x2, #/#"),  # turned: its turned id (the 2x1 slot)
    ([{"token": "rotate", "piece": "#/#", "turns": 1}], "1x2, 2x1"),
    ([{"token": "rotate", "piece": "2x1", "turns": 1}, {"piece": "1x2", "row": 0, "col": 0}, {"token": "reroll"}],
     "###"),  # rerolled: as the reserve spells it
])
def test_a_refused_move_lists_the_tray_as_the_level_spells_it(tmp_path, moves, tray):
    """An audit of bad input: a solution placing a piece not in the tray was refused with the
    tray listed by canonical ids (``2x2, L5-sw, T4-n`` for ``##/##, L5-sw, .#./###``), which the
    file never says; verify's line and export's message list it as the file spells it, after
    turns and redeals too."""
    level = {"format": "tenfold.level/1", "id": "a", "variant": "arabic", "mode": "standard",
             "board": ["." * 10] * 10, "trays": [["#/#", "2x1"]], "reserve": ["###", "#.#/###"],
             "goals": [{"score": 1}], "tokens": 3, "solution": [*moves, {"piece": "3x3", "row": 5, "col": 5}]}
    expected = f"solution[{len(moves)}]: illegal: piece 3x3 is not in the tray (tray: {tray})"
    assert play_solution(parse_level(level), parse_moves(level["solution"])).named("solution") == expected
    path = tmp_path / "level.json"
    path.write_text(json.dumps(level))
    from typer.testing import CliRunner
    from cli.main import app

    verify = CliRunner().invoke(app, ["verify", str(path)])
    assert verify.exit_code == 1 and f"FAIL a: {expected}" in verify.output
    export = CliRunner().invoke(app, ["export", str(path), "--format", "json", "--out", str(tmp_path / "out.json")])
    assert export.exit_code == 2 and f"(tray: {tray})" in export.output


def test_only_removals_after_the_last_placement_move_before_it():
    """``removals_before_last_placement`` moves a line's closing removals before its last
    placement, and leaves any other line as it is: a reroll after it (the tray it redeals is
    another), or nothing after it."""
    from solver.level import removals_before_last_placement
    from solver.moves import Placement, TokenUse

    place, other = Placement("1x1", 0, 0), Placement("1x2", 5, 5)
    remove, remove2 = TokenUse("remove", row=3, col=3), TokenUse("remove", row=4, col=4)
    reroll = TokenUse("reroll")
    assert removals_before_last_placement([other, place, remove, remove2]) == [other, remove, remove2, place]
    for line in ([place, reroll], [place, remove, reroll], [remove, place], [place], [remove], []):
        assert removals_before_last_placement(line) == line


def test_the_schema_names_every_variant_and_only_those():
    """The schema's variant list is a second copy of solver.variants' table, for clients that
    validate files without tenfold: the two must agree."""
    from solver.variants import VARIANTS

    assert LEVEL_SCHEMA["properties"]["variant"]["enum"] == list(VARIANTS)


# From a mutation audit of the rules engine: the level's fields and goals, each checked directly.
PLAIN = {key: value for key, value in LEVEL.items() if key not in ("solution", "best", "hints")}


def test_sultan_mode_refuses_more_than_four_stones_too():
    # RULES.md §1: sultan is played with exactly 4 stones; five is as wrong as three.
    data = {**copy.deepcopy(PLAIN), "variant": "arabic", "mode": "sultan", "goals": [{"score": 1}]}
    data["board"] = ["S..S......", "." * 10, "...S......", "." * 10, "........S."] + ["." * 10] * 5
    assert parse_level(data).tokens == 3
    data["board"][9] = "S........."
    with pytest.raises(FormatError, match=r"level: field board: mode sultan needs exactly 4 stones, found 5"):
        parse_level(data)
    data["board"][9] = "." * 10
    data["board"][0] = "S........."
    with pytest.raises(FormatError, match=r"needs exactly 4 stones, found 3"):
        parse_level(data)


def test_a_single_token_is_refused_for_a_variant_without_tokens():
    # RULES.md §1: Halloween has "no rotation, no tokens": one token is as wrong as three.
    with pytest.raises(FormatError, match=r"level: field tokens: variant halloween has no tokens, got 1"):
        parse_level({**copy.deepcopy(PLAIN), "tokens": 1})


@pytest.mark.parametrize("turns", [1, 2, 3])
def test_a_rotate_move_takes_one_to_three_quarter_turns(turns):
    # RULES.md §3 "Moves": {"token": "rotate", "piece": ..., "turns": N}, quarter turns clockwise, 1-3
    move = parse_move({"token": "rotate", "piece": "L3-nw", "turns": turns})
    assert move == TokenUse("rotate", piece="L3-nw", turns=turns)
    assert move.to_json() == {"token": "rotate", "piece": "L3-nw", "turns": turns}


@pytest.mark.parametrize("turns", [0, 4, -1])
def test_a_rotate_move_of_other_turns_is_malformed_and_names_the_field(turns):
    with pytest.raises(FormatError, match=rf"^solution\[2\]: field 'turns' must be an integer 1\.\.3, got {turns}$"):
        parse_move({"token": "rotate", "piece": "L3-nw", "turns": turns}, "solution[2]")


def test_a_refused_placement_is_not_counted_among_the_placements_made():
    level = parse_level({**copy.deepcopy(PLAIN), "goals": [{"score": 20}]})
    # the 1x1 closes row 0 (a pumpkin and eight tiles): 1 + 10; the 3x3 is not in the first tray
    moves = parse_moves([{"piece": "1x1", "row": 0, "col": 9}, {"piece": "3x3", "row": 2, "col": 2}])
    result = play_solution(level, moves)
    assert not result.ok and result.at == 1
    assert (result.placements, result.score) == (1, 11)
    # a placement refused for covering the stone at (1, 0), after a 2x2 that clears nothing (4 points)
    moves = parse_moves([{"piece": "2x2", "row": 5, "col": 5}, {"piece": "1x3", "row": 1, "col": 0}])
    result = play_solution(level, moves)
    assert result.at == 1 and "overlaps a stone at row 1, col 0" in result.problem
    assert (result.placements, result.score) == (1, 4)


def test_a_place_all_goal_needs_every_tray_piece_placed():
    data = {**copy.deepcopy(PLAIN), "board": ["." * 10] * 10, "trays": [["1x1", "1x1"], ["2x2"]], "limit": 3,
            "goals": [{"place_all": True}]}
    level = parse_level(data)
    two = parse_moves([{"piece": "1x1", "row": 0, "col": 0}, {"piece": "1x1", "row": 9, "col": 9}])
    short = play_solution(level, two)
    assert not short.ok and short.problem == 'goals not met at the end: [{"place_all": true}]'
    every = play_solution(level, two + parse_moves([{"piece": "2x2", "row": 4, "col": 4}]))
    assert every.ok and (every.placements, every.score) == (3, 6)
