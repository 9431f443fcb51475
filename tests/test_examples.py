"""The worked replays of shared/examples/rules-examples.json, through the engine and the CLI.

The file is checked in as tests/data/rules-examples.json so the suite does
not depend on ../shared; when ../shared is beside the repo the copy must be
identical. Its trays (best score of a whole tray) go through both tray
solvers, and every plan is replayed through the move applier.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import reference_rules as ref
from cli.main import app
from solver.board import parse_board
from solver.engine import Game, Streak
from solver.moves import parse_move
from solver.tray import analyse_tray
from solver.tray_cpsat import cpsat_tray
from solver.variants import find_variant

DATA = Path(__file__).parent / "data" / "rules-examples.json"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "examples" / "rules-examples.json"
EXAMPLES = json.loads(DATA.read_text(encoding="utf-8"))
REPLAYS = EXAMPLES["replays"]
TRAYS = EXAMPLES["trays"]


def _id(example) -> str:
    return f"{example['rules']}-{'+'.join(example.get('shows') or ['plain'])}"


def test_checked_in_copy_matches_shared():
    if not SHARED.is_file():
        pytest.skip(f"{SHARED} not present")
    assert json.loads(SHARED.read_text(encoding="utf-8")) == EXAMPLES


def test_examples_cover_every_variant_and_feature():
    assert {r["rules"] for r in REPLAYS} == {"halloween", "arabic", "sudoku"}
    shown = {s for r in REPLAYS for s in r.get("shows") or ()}
    assert {"multi", "stone-line", "streak", "flow", "region"} <= shown


@pytest.mark.parametrize("example", REPLAYS, ids=[_id(r) for r in REPLAYS])
def test_replay_through_engine(example):
    game = Game(find_variant(example["rules"]), parse_board(example["board"]), Streak())
    points = [game.apply(parse_move(m)).points for m in example["moves"]]
    assert points == example["points_per_move"]
    assert game.score == example["score"] == sum(example["points_per_move"])
    assert game.board.text() == example["final_board"]


@pytest.mark.parametrize("example", REPLAYS, ids=[_id(r) for r in REPLAYS])
def test_replay_through_reference(example):
    """The test suite's own reference agrees with the independently computed examples too."""
    game = ref.RefGame(example["rules"], example["board"])
    points = [game.place(m["piece"], m["row"], m["col"]) for m in example["moves"]]
    assert points == example["points_per_move"]
    assert game.text == example["final_board"]


@pytest.mark.parametrize("example", REPLAYS, ids=[_id(r) for r in REPLAYS])
def test_replay_through_cli(example, tmp_path):
    moves = tmp_path / "moves.json"
    moves.write_text(json.dumps(example["moves"]))
    result = CliRunner().invoke(
        app, ["replay", "--rules", example["rules"], "--board", example["board"],
              "--moves", str(moves), "--json"]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["score"] == example["score"]
    assert out["board"] == example["final_board"]


@pytest.mark.parametrize("example", TRAYS, ids=[f"{t['rules']}-{'+'.join(t['tray'])}" for t in TRAYS])
def test_tray_best_score(example):
    variant = find_variant(example["rules"])
    board = parse_board(example["board"])
    searched = analyse_tray(variant, board, example["tray"], 0, 0)
    solved = cpsat_tray(variant, board, example["tray"], 0)  # points only: no health tie-break
    assert solved.optimal
    for answer in (searched, solved):
        assert answer.placeable == example["placeable"]
        assert answer.best_score == example["best_score"]
        game = Game(variant, board, Streak(), 0, list(example["tray"]))
        for move in answer.plan:
            game.apply(move)
        assert game.score == example["best_score"]
