"""Measure how hard a level is, and turn the measurements into a grade.

Measured per level (all seeded, so a level's numbers never change):

* the share of random playouts that win (uniform over legal placements);
* the share of greedy playouts that win (most points now, ties at random,
  one move in ten random);
* the number of distinct winning placement sequences (capped);
* the proof's search effort (nodes).

A playout wins the moment every goal holds, at or before the limit. The
grade comes from one difficulty number in [0, 1] (``difficulty_score``);
the four grades are bands of it, defined once in ``GRADES``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace

from solver.engine import Game
from solver.level import Level
from solver.moves import Placement
from solver.pieces import placement_mask, placements

from .lines import winning_counts

# The one list of grades: names, order, and the upper edge of each band.
GRADES: tuple[tuple[str, float], ...] = (
    ("easy", 0.58),
    ("medium", 0.72),
    ("hard", 0.86),
    ("expert", 1.01),
)
GRADE_NAMES = tuple(name for name, _ in GRADES)
LINES_CAP = 1000


@dataclass(frozen=True)
class Measurements:
    random_win_share: float
    greedy_win_share: float
    winning_lines: int
    winning_lines_capped: bool
    proof_nodes: int

    def to_json(self) -> dict:
        return asdict(self)


def legal_placements(game: Game) -> list[Placement]:
    occupied = game.board.occupied
    return [
        Placement(piece, spot.row, spot.col)
        for piece in dict.fromkeys(game.tray or ())
        for spot in placements(piece)
        if not spot.mask & occupied
    ]


def playout(level: Level, rng: random.Random, greedy: bool, explore: float = 0.1) -> tuple[int, list[Placement]]:
    """One seeded playout to the limit (or until no piece of the tray fits): its peak, the
    highest score at a moment when every goal but the score holds (-1 if there is none), and
    its placements. A greedy playout takes the most points now, ties at random, but a random
    move with chance ``explore``."""
    game = level.new_game()
    peak = game.final_score if level.goals_met(game, ignore_score=True) else -1
    line: list[Placement] = []
    while game.placements < level.limit:
        moves = legal_placements(game)
        if not moves:
            break
        if greedy and rng.random() >= explore:
            move = _greedy_choice(game, moves, rng)
        else:
            move = rng.choice(moves)
        game.apply(move)
        line.append(move)
        if level.goals_met(game, ignore_score=True):
            peak = max(peak, game.final_score)
    return peak, line


def _greedy_choice(game: Game, moves: list[Placement], rng: random.Random) -> Placement:
    """A move that scores the most points now (the flow bonus of a turn it ends included, as the
    move applier scores it), ties at random."""
    best, chosen = None, []
    for move in moves:
        points = game.points_now(placement_mask(move.piece, move.row, move.col))[1]
        if best is None or points > best:
            best, chosen = points, [move]
        elif points == best:
            chosen.append(move)
    return rng.choice(chosen)


def playout_peaks(level: Level, seed: int, random_runs: int = 200,
                  greedy_runs: int = 50) -> tuple[list[int], list[int]]:
    rng = random.Random(seed)
    randoms = [playout(level, rng, greedy=False)[0] for _ in range(random_runs)]
    greedies = [playout(level, rng, greedy=True)[0] for _ in range(greedy_runs)]
    return randoms, greedies


def measure(level: Level, goals: Sequence[int | None], proof_nodes: int, seed: int) -> list[Measurements]:
    """The measurements of ``level`` for each score goal in ``goals`` (None: none, every line
    that meets the other goals wins): the shares of ``seed``'s playouts that win, the winning
    lines (up to ``LINES_CAP``), and the proof's ``proof_nodes``."""
    randoms, greedies = playout_peaks(level, seed)
    counts, complete = winning_counts(level, [0 if goal is None else goal for goal in goals], cap=LINES_CAP)
    return [Measurements(
        random_win_share=round(win_share(randoms, goal), 4),
        greedy_win_share=round(win_share(greedies, goal), 4),
        winning_lines=lines,
        winning_lines_capped=lines >= LINES_CAP or not complete,
        proof_nodes=proof_nodes,
    ) for goal, lines in zip(goals, counts)]


def grading(m: Measurements) -> dict:
    """A goal's grade (None: not settled), difficulty and measurements, as JSON."""
    return {"grade": settled_grade(m), "difficulty": round(difficulty_score(m), 4), "measurements": m.to_json()}


def win_share(peaks: list[int], goal: int | None) -> float:
    need = 0 if goal is None else goal
    return sum(1 for p in peaks if p >= 0 and p >= need) / len(peaks)


def difficulty_score(m: Measurements) -> float:
    lines = min(1.0, math.log10(1 + m.winning_lines) / math.log10(1 + LINES_CAP))
    effort = min(1.0, math.log10(1 + m.proof_nodes) / 6)
    return 0.4 * (1 - m.random_win_share) + 0.3 * (1 - m.greedy_win_share) + 0.2 * (1 - lines) + 0.1 * effort


def grade_of(m: Measurements) -> str:
    score = difficulty_score(m)
    return next(name for name, edge in GRADES if score < edge)


def settled_grade(m: Measurements) -> str | None:
    """The grade, or None when it is not settled: a line count cut short by its budget is a
    floor, and the whole count lies between it and the cap (past which the formula does not
    change). The difficulty falls as the count grows, so the grade is settled when the floor
    and the cap give the same one, and only then."""
    grade = grade_of(m)
    if m.winning_lines_capped and m.winning_lines < LINES_CAP:
        if grade_of(replace(m, winning_lines=LINES_CAP)) != grade:
            return None
    return grade
