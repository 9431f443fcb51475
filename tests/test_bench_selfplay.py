"""bench/selfplay.py: its configuration names (the named ones, ``variant:mode``,
``every-mode``) and its risk measure."""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import selfplay  # noqa: E402

from solver.variants import VARIANTS  # noqa: E402


def test_every_mode_names_each_mode_of_each_variant_once():
    """Each mode ``tenfold play`` plays: one board (Sudoku's battle, of two, it refuses; the bench
    played it as one)."""
    names = selfplay.expand_configs("every-mode,sultan")
    expected = [f"{v.name}:{m}" for v in VARIANTS.values() for m, mode in v.modes.items() if mode.players == 1]
    assert "sudoku:battle" not in expected and len(expected) >= 8
    assert sorted(names[:-1]) == sorted(expected) and len(names) == len(expected) + 1
    assert names[-1] == "sultan"
    for name in names[:-1]:
        variant, mode = selfplay.resolve_config(name)
        assert f"{variant}:{mode}" == name


def test_named_and_variant_mode_configurations_agree():
    assert selfplay.resolve_config("sultan") == ("arabic", "sultan")
    assert selfplay.resolve_config("arabic") == ("arabic", "standard")  # the variant's default mode
    assert selfplay.resolve_config("sudoku:") == ("sudoku", "classic")
    # the alias plays the very same games (4 seeded stones, 3 tokens)
    a = selfplay.run_config("sultan", 2, 5, "greedy", 0.0, 91, progress=False)
    b = selfplay.run_config("arabic:sultan", 2, 5, "greedy", 0.0, 91, progress=False)
    assert (a["trays"], a["score_median"]) == (b["trays"], b["score_median"])
    c = selfplay.run_config("arabic:standard", 2, 5, "greedy", 0.0, 91, progress=False)
    assert c["trays"] != a["trays"] or c["score_median"] != a["score_median"]  # no stones there


@pytest.mark.parametrize("bad, named", [("nope:endless", "unknown variant 'nope'"),
                                        ("arabic:bogus", "no mode 'bogus'")])
def test_unknown_configuration_exits_2_before_playing(bad, named):
    run = subprocess.run([sys.executable, str(BENCH / "selfplay.py"), "--only", f"halloween,{bad}",
                          "--games", "1", "--cap", "1"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert named in run.stderr and repr(bad) in run.stderr
    assert "self-play" not in run.stdout and "Traceback" not in run.stderr


def test_a_mode_with_a_target_ends_there_and_survives():
    """Sudoku's sprint ends at the placement that reaches 5,000, as ``tenfold play`` ends it (the
    bench played on to the cap, as classic): such a game survived, short of the cap."""
    sprint = selfplay.run_config("sudoku:sprint", 3, 200, "greedy", 0.0, 7, progress=False)
    classic = selfplay.run_config("sudoku:classic", 3, 200, "greedy", 0.0, 7, progress=False)
    assert max(sprint["trays"]) < 40 and sprint["survived"] == 3 and sprint["reached_cap"] == 0
    assert sprint["trays"] != classic["trays"]


def test_risk_summary_sums_the_chances():
    r = selfplay.risk_summary([0.1, 0.0, 0.3, 0.0])
    assert r["risk_per_1000"] == pytest.approx(100.0)  # 1000 * 0.4 / 4
    assert r["risk_worst_1pct_share"] == pytest.approx(0.75)  # the worst one of four: 0.3 of 0.4
    assert selfplay.risk_summary([0.0, 0.0]) == {"risk_per_1000": 0.0, "risk_worst_1pct_share": 0.0}


def test_stuck_chance_covers_the_tray_that_ended_each_greedy_game():
    """Greedy games, snapshotted after every tray as the risk measure is: wherever the tray
    that ended a game cannot be placed at all (the rules engine's tray search), the board it
    was dealt on had at least that tray's chance of an unplaceable deal, so the measure sees
    every such game over coming."""
    from solver.policy import greedy
    from solver.selfplay import new_random_game, play_game
    from solver.survival import tray_shapes
    from solver.engine import Game, Streak
    from solver.tray import TraySearch

    variant = VARIANTS["halloween"]
    chance_of = {tuple(sorted(shapes)): p for shapes, p in tray_shapes(variant)}
    ended = 0
    for seed in range(40):
        game = new_random_game(variant, seed)
        snaps = [(game.board, list(game.tray))]
        result = play_game(game, greedy, 300, on_tray=lambda g: snaps.append((g.board, list(g.tray))))
        board, tray = snaps[-1]  # the fatal tray as dealt, on the board it was dealt on
        if not result.over or TraySearch(variant, board).placeable(tray) is not None:
            continue  # greedy also dies on trays a better order would have placed
        ended += 1
        start = Game(variant, board, Streak(), 0, tray, None)
        assert selfplay.stuck_chance(start) >= chance_of[tuple(sorted(tray))] - 1e-12 > 0
        if ended == 8:
            break
    assert ended == 8


def test_tuner_risk_objective_is_the_self_play_risk_of_the_same_games():
    """bench/tune.py --objective risk plays its own games (1-ply expert, its own loop); on the
    same seeds and weights they are bench/selfplay.py's games, and the risk agrees."""
    import tune

    from solver.evaluate import load_weights

    variant = VARIANTS["halloween"]
    weights = load_weights(variant)
    risk, trays = tune.objective(variant, variant.mode("endless"), weights, [7, 8], 30, 0.0, "risk")
    played = selfplay.run_config("halloween", 2, 30, "expert", 0.0, 7, progress=False, overrides=weights,
                                 risk=True)
    assert risk == -played["risk_per_1000"] and trays == statistics.mean(played["trays"])
    assert risk < 0  # 60 trays do reach boards with some danger
    assert tune.objective(variant, variant.mode("endless"), weights, [7, 8], 30, 0.0)[0] == trays
