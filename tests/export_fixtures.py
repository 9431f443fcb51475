"""Small levels and packs for the export, render and serve tests, with solutions the engine accepts."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from solver.board import parse_board
from solver.engine import Game, Streak
from solver.level import parse_level, play_solution
from solver.tray import analyse_tray
from solver.variants import find_variant

HALLOWEEN_BOARD = [
    "S.........",
    "#########.",
    "....P.....",
    "..........",
    ".....S....",
    "..........",
    "......P...",
    "##.##.....",
    "..........",
    "........S.",
]

SULTAN_BOARD = [
    "S.........",
    "..........",
    "..###.....",
    "..........",
    "....S.....",
    "..........",
    ".......S..",
    "..........",
    "..........",
    ".........S",
]


def planned_solution(variant: str, board: list[str], trays: list[list[str]]) -> list[dict]:
    """Each tray's best plan, one after another, the streak carried from tray to tray."""
    rules = find_variant(variant)
    current = parse_board(board)
    moves: list[dict] = []
    streak = 0
    for tray in trays:
        answer = analyse_tray(rules, current, tray, streak)
        assert answer.placeable, tray
        game = Game(rules, current, Streak.carried_in(streak), 0, list(tray))
        for move in answer.plan:
            game.apply(move)
        moves += [m.to_json() for m in answer.plan]
        current, streak = game.board, game.streak.run
    return moves


def halloween_level(level_id: str = "h1") -> dict:
    trays = [["1x1", "L3-se", "1x3"], ["3x1", "2x2", "T4-n"]]
    solution = planned_solution("halloween", HALLOWEEN_BOARD, trays)
    data = {
        "format": "tenfold.level/1", "id": level_id, "variant": "halloween", "mode": "campaign",
        "board": list(HALLOWEEN_BOARD), "trays": trays, "limit": 6, "goals": [{"score": 10}, {"place_all": True}],
        "solution": solution, "grade": "easy", "stars": [10, 40, 80],
    }
    level = parse_level(data)
    replay = play_solution(level, level.solution)
    assert replay.ok, replay.problem
    data["best"] = {"score": replay.score, "proof": "bound", "bound": replay.score + 50}
    return data


def sultan_level(level_id: str = "s1") -> dict:
    trays = [["2x1", "L5-nw", "1x2"], ["3x3", "1x4", "2x2"]]
    solution = planned_solution("arabic", SULTAN_BOARD, trays)
    data = {
        "format": "tenfold.level/1", "id": level_id, "variant": "arabic", "mode": "sultan",
        "board": list(SULTAN_BOARD), "trays": trays, "tokens": 2, "goals": [{"score": 20}],
        "solution": solution, "stars": 2,
    }
    assert play_solution(parse_level(data), parse_level(data).solution).ok
    return data


def pack(pack_id: str = "fixture-pack") -> dict:
    unsolved = copy.deepcopy(halloween_level("h2 no solution"))
    del unsolved["solution"]
    return {
        "format": "tenfold.pack/1", "id": pack_id, "title": "Fixture <pack> & friends",
        "generator": {"seed": 7, "version": "test"},
        "levels": [halloween_level("h1"), sultan_level("s1"), unsolved],
    }


def write_json(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path
