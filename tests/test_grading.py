"""The generator's grading data against the reference rules (``level_reference``, which shares
no code with ``solver/``).

A grade stands on three measurements besides the proof's effort: the number of distinct winning
placement sequences (``generator.lines``), and the shares of random and greedy playouts that
win (``generator.grade``). Each is held here to an independent reading on hundreds of seeded
tiny levels in every variant (stones, pumpkins and their goal, place_all, limits below the
piece count, zones complete at the start, unspent tokens' bonus):

* the count, for every score goal a level could carry, is the number of placement sequences
  within the limit that meet every goal at their end and at no shorter prefix, enumerated on
  the reference rules (a count at a cap stops there, one the walk's budget cuts short is a floor);
* every playout replays move by move on the reference rules, stops only at the limit or when
  no piece of the tray fits, and its peak is the highest reference score at a moment when every
  goal but the score holds; a greedy playout that never explores takes, at every step, a move
  that scores the most points now on the reference rules.
"""

from __future__ import annotations

import random

import pytest

from generator.grade import playout, playout_peaks
from generator.lines import winning_counts
from level_reference import _Play
from random_boards import MODES, dress, random_goals
from solver.level import parse_level
from solver.variants import find_variant
from test_campaign_reference import stony_level, tiny_level

SEEDS = range(240)
CHUNKS = 4


SMALL = ("1x1", "1x2", "2x1", "1x3", "3x1", "2x2", "L3-nw", "L3-ne", "L3-sw", "L3-se")


def roomy_level(seed: int) -> dict:
    """Room for many lines: 10-18 empty cells, two or three small pieces in one or two trays,
    nearly complete zones, stones, pumpkins; tokens left unspent count for their bonus."""
    rng = random.Random(f"roomy-{seed}")
    name = ("halloween", "arabic", "sudoku")[seed % 3]
    variant = find_variant(name)
    while True:
        grid = [["#"] * 10 for _ in range(10)]
        dress(rng, variant, grid, zones=(0, 3), stones=(0, 1, 3), pumpkins=(0, 1, 2))
        open_cells = rng.sample(range(100), rng.randint(10, 18))
        for c in open_cells:
            if grid[c // 10][c % 10] == "#":
                grid[c // 10][c % 10] = "."
        pumpkins = sum(row.count("P") for row in grid)
        if 8 <= sum(row.count(".") for row in grid) <= 18:
            break
    sizes = rng.choice(([2], [3], [1, 1], [2, 1], [1, 2]))
    trays = [[rng.choice(SMALL) for _ in range(n)] for n in sizes]
    goals = random_goals(rng, pumpkins, 0.6)
    return {"format": "tenfold.level/1", "id": f"g{seed}", "variant": name, "mode": MODES[name],
            "board": ["".join(row) for row in grid], "trays": trays, "goals": goals,
            "limit": rng.randint(max(1, sum(sizes) - 1), sum(sizes)),
            "tokens": 0 if name == "halloween" else rng.randint(0, 2)}


def levels(chunk: int):
    """Tiny levels (dense boards), roomier ones, and strips of stones (zones that complete
    again and again), as dicts."""
    for seed in SEEDS[chunk::CHUNKS]:
        yield tiny_level(seed)
        yield roomy_level(seed)
        if seed % 2 == 0:
            yield stony_level(seed)


def placement_moves(play: _Play):
    return [move for move in play.moves() if "token" not in move]


def reference_sequences(data: dict) -> list[tuple[bool, int, int]]:
    """Every placement sequence within the limit (the empty one too), as (every goal but the
    score holds at its end, its score, the highest score of a shorter prefix where they held,
    -1 if none)."""
    found: list[tuple[bool, int, int]] = []

    def walk(play: _Play, before: int) -> None:
        ok = not play.goals_unmet()
        found.append((ok, play.score, before))
        if ok:
            before = max(before, play.score)
        for move in placement_moves(play):
            child = play.copy()
            assert not child.move(move)
            walk(child, before)

    walk(_Play(data), -1)
    return found


def goals_to_try(sequences: list[tuple[bool, int, int]]) -> set[int]:
    """Every score goal where a count can change: each winning score and the one above it."""
    scores = {score for ok, score, _ in sequences if ok}
    return {1} | scores | {score + 1 for score in scores}


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_winning_line_counts_match_the_sequences_enumerated_on_the_reference_rules(chunk):
    """Every goal where a count can change, counted in one walk: exact with room to finish; with
    a cap, each count stops there; with too small a budget, floors of the exact counts and the
    walk says it did not finish."""
    counted = capped = short = 0
    for data in levels(chunk):
        level = parse_level(data)
        sequences = reference_sequences(data)
        goals = sorted(goals_to_try(sequences))
        expected = [sum(1 for ok, score, before in sequences if ok and score >= goal and before < goal)
                    for goal in goals]
        counts, complete = winning_counts(level, goals, node_budget=len(sequences))
        assert complete and counts == expected, (goals, data)
        counted += sum(n > 0 for n in expected)
        cap = max(expected) // 2
        if cap >= 1:
            at_cap = winning_counts(level, goals, cap=cap, node_budget=len(sequences))
            assert at_cap == ([min(n, cap) for n in expected], True), data
            capped += 1
        floors, finished = winning_counts(level, goals, node_budget=1)
        assert all(f <= n for f, n in zip(floors, expected)), data
        if not finished:
            short += 1
        else:  # one state expanded was enough: the counts are whole
            assert floors == expected, data
    assert counted >= 100 and capped >= 25 and short >= 25, (counted, capped, short)


def replay_playout(data: dict, line, peak: int) -> None:
    """The line is legal on the reference rules, ends only where play must, and peaks as said."""
    play = _Play(data)
    best = play.score if not play.goals_unmet() else -1
    for i, move in enumerate(line):
        why = play.move({"piece": move.piece, "row": move.row, "col": move.col})
        assert not why, f"move {i} {move}: {why}: {data}"
        if not play.goals_unmet():
            best = max(best, play.score)
    assert play.placed >= play.limit or not placement_moves(play), data
    assert peak == best, (peak, best, data)


def reference_points_now(play: _Play, move: dict) -> int:
    child = play.copy()
    assert not child.move(move)
    return child.game.score - play.game.score


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_playouts_replay_on_the_reference_rules_and_greedy_takes_the_most_points(chunk):
    rng = random.Random(f"playouts-{chunk}")
    greedy_checked = 0
    for data in levels(chunk):
        level = parse_level(data)
        for greedy in (False, False, True, True):
            peak, line = playout(level, rng, greedy=greedy, explore=0.0)
            replay_playout(data, line, peak)
            if not greedy:
                continue
            play = _Play(data)
            for move in line:
                as_dict = {"piece": move.piece, "row": move.row, "col": move.col}
                most = max(reference_points_now(play, m) for m in placement_moves(play))
                assert reference_points_now(play, as_dict) == most, (move, data)
                play.move(as_dict)
                greedy_checked += 1
    assert greedy_checked >= 150, greedy_checked


def test_playout_peaks_are_those_of_the_playouts_replayed():
    """``playout_peaks`` measures the seeded playouts that ``playout`` plays (those the test
    above replays), random ones first."""
    for seed in range(0, 60, 3):
        data = tiny_level(seed)
        level = parse_level(data)
        randoms, greedies = playout_peaks(level, seed, random_runs=12, greedy_runs=6)
        rng = random.Random(seed)
        again = [playout(level, rng, greedy=False)[0] for _ in range(12)]
        again += [playout(level, rng, greedy=True)[0] for _ in range(6)]
        assert randoms + greedies == again, data


def test_solve_grade_grades_a_level_as_the_generator_would(tmp_path):
    """``solve --grade``: a level's grading for its own score goal. Its winning lines are the
    sequences the reference rules enumerate (up to 1,000); its shares are those of the seed's
    playouts; its difficulty and grade follow docs/rules-choices.md's formula and bands, written
    out again here; a level no line solves has none; and a pack grades each level as alone."""
    import json
    import math

    from typer.testing import CliRunner

    from cli.main import app

    def run(*args: str) -> dict | list:
        result = CliRunner().invoke(app, ["solve", *args, "--grade", "--seed", "5", "--json"])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    graded = unsolved = 0
    pack = {"format": "tenfold.pack/1", "id": "p", "title": "p", "generator": {"seed": 0, "version": "test"},
            "levels": []}
    for seed in SEEDS[:40:2]:
        data = roomy_level(seed)
        sequences = reference_sequences(data)
        scores = sorted({score for ok, score, _ in sequences if ok})
        if scores:  # a goal in the middle of what lines can score
            data["goals"] = [g for g in data["goals"] if "score" not in g] + [{"score": scores[len(scores) // 2]}]
        goal = next((g["score"] for g in data["goals"] if "score" in g), 0)
        path = tmp_path / f"{data['id']}.json"
        path.write_text(json.dumps(data))
        answer = run(str(path))
        pack["levels"].append(data)
        if not answer["solvable"]:
            assert answer["grading"] is None and not any(ok for ok, *_ in sequences), data
            unsolved += 1
            continue
        m = answer["grading"]["measurements"]
        lines = sum(1 for ok, score, before in sequences if ok and score >= goal and before < goal)
        assert m["winning_lines"] == min(lines, 1000) and m["winning_lines_capped"] is (lines >= 1000), data
        randoms, greedies = playout_peaks(parse_level(data), 5)
        for share, peaks in ((m["random_win_share"], randoms), (m["greedy_win_share"], greedies)):
            assert share == round(sum(p >= 0 and p >= goal for p in peaks) / len(peaks), 4)
        difficulty = (0.4 * (1 - m["random_win_share"]) + 0.3 * (1 - m["greedy_win_share"])
                      + 0.2 * (1 - min(1.0, math.log10(1 + m["winning_lines"]) / math.log10(1001)))
                      + 0.1 * min(1.0, math.log10(1 + m["proof_nodes"]) / 6))
        assert answer["grading"]["difficulty"] == round(difficulty, 4)
        band = "easy" if difficulty < 0.58 else "medium" if difficulty < 0.72 else "hard" if difficulty < 0.86 \
            else "expert"
        assert answer["grading"]["grade"] == band
        graded += 1
    assert graded >= 12 and unsolved >= 1, (graded, unsolved)
    path = tmp_path / "pack.json"
    path.write_text(json.dumps(pack))
    listed = run(str(path))
    assert [item["id"] for item in listed] == [lv["id"] for lv in pack["levels"]]
    for item, data in zip(listed, pack["levels"]):
        alone = run(str(path), "--level", data["id"])
        assert item["grading"] == alone["grading"]


def test_greedy_playouts_explore_one_placement_in_ten_and_a_grade_plays_200_and_50():
    """docs/rules-choices.md: 200 random playouts and 50 greedy ones; a greedy placement is drawn at
    random from every legal one when the playout's draw falls below 0.1 (one in ten), else from
    the placements that score the most now. On a board where one 1x1 spot of 81 completes a row,
    the two draws offer 81 placements and 1; where every placement ties, the draw is among all."""
    board = ["#########."] + ["#.#.#.#.#."] * 2 + ["." * 10] * 7  # 1 + 5 + 5 + 70 empty cells
    level = parse_level({"format": "tenfold.level/1", "id": "x", "variant": "halloween", "mode": "campaign",
                         "board": board, "trays": [["1x1"]], "goals": [{"score": 1}], "limit": 1})

    class Scripted(random.Random):
        def __init__(self, draw: float) -> None:
            super().__init__(0)
            self.draw, self.offered = draw, []

        def random(self) -> float:
            return self.draw

        def choice(self, seq):
            self.offered.append(len(seq))
            return seq[0]

    for draw, offered in ((0.0, 81), (0.0999, 81), (0.1001, 1), (0.5, 1), (0.9999, 1)):
        rng = Scripted(draw)
        playout(level, rng, greedy=True)
        assert rng.offered == [offered], draw
    randoms, greedies = playout_peaks(level, 3)
    assert (len(randoms), len(greedies)) == (200, 50)
    # no placement completes a zone: all 82 tie for the most points, and the draw is among them all
    ties = parse_level({**level.raw, "board": ["########.."] + ["#.#.#.#.#."] * 2 + ["." * 10] * 7})
    rng = Scripted(0.5)
    playout(ties, rng, greedy=True)
    assert rng.offered == [82]


def test_playouts_do_not_depend_on_the_string_hash_seed():
    """A level's measurements are the same in every process: a pack's bytes must not turn on
    PYTHONHASHSEED (say, the order of a set of piece ids), which the byte-for-byte tests, run in
    one process and its forks, cannot see. Seeded playouts of Sultan candidates (three distinct
    pieces a tray) under two hash seeds."""
    import os
    import subprocess
    import sys

    code = ("from generator.recipes import candidate_level; from generator.grade import playout_peaks; "
            "print([playout_peaks(candidate_level('sultan', 1, s)[0], s, 10, 10) for s in range(6)])")
    outputs = {subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONHASHSEED": hash_seed},
                              capture_output=True, text=True, check=True).stdout for hash_seed in ("1", "2")}
    assert len(outputs) == 1, outputs
