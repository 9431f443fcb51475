"""Check a level's claims: its stored solution wins, and its ``best`` is what a search proves."""

from __future__ import annotations

from dataclasses import dataclass, field

from .campaign import PROOF_BOUND, PROOF_INFEASIBLE, PROOF_OPTIMAL, CampaignAnswer, solve_level
from .jsontext import json_value
from .level import Level, play_solution


@dataclass
class Verdict:
    """A level's verdict: ``problems`` are claims shown false, ``open`` claims neither confirmed nor
    refuted within the time limit; ``ok`` when there are neither."""

    level_id: str
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    answer: CampaignAnswer | None = None
    open: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and not self.open

    @property
    def status(self) -> str:
        """``ok``, ``fail`` (a claim shown false) or ``open`` (not settled), as ``line`` labels it."""
        return "fail" if self.problems else "open" if self.open else "ok"

    def line(self) -> str:
        """The text line: the JSON's detail, and the search's time (which the JSON leaves out, so
        that the same file verifies to the same bytes)."""
        label = {"ok": "ok  ", "fail": "FAIL", "open": "OPEN"}[self.status]
        detail = "; ".join(self.problems or self.open or self.notes)
        took = f" ({self.answer.seconds:.2f} s)" if self.answer is not None else ""
        return f"{label} {self.level_id}: {detail}{took}"

    def to_json(self) -> dict:
        return {"id": self.level_id, "status": self.status, "problems": self.problems,
                "open": self.open, "notes": self.notes}


def verify_level(level: Level, time_limit: float = 60.0) -> Verdict:
    """Replay the stored solution and re-prove the ``best`` claim; a level with neither is held
    to what any level of a pack stands for, that it can be won: FAIL when proven not."""
    verdict = Verdict(level.id)
    if level.solution is None and level.best is None:
        # the first line meeting every goal ends the search (every score is at least 0)
        target = level.score_goal if level.score_goal is not None else 0
        _check_winnable(verdict, solve_level(level, time_limit=time_limit, target=target), time_limit)
        return verdict
    if level.solution is not None:
        replay = play_solution(level, level.solution)
        if replay.ok:
            verdict.notes.append(f"solution wins with {replay.score} in {replay.placements} placements")
        else:
            verdict.problems.append(replay.named("solution"))
    if level.best is not None:
        if level.best.get("proof") == PROOF_INFEASIBLE and level.best.get("score") is not None:
            verdict.problems.append(f"best: proof infeasible says no line meets the goals, yet claims score "
                                    f"{level.best['score']}")
        answer = solve_level(level, time_limit=time_limit, hint=level.solution)
        verdict.answer = answer
        if answer.complete:
            _check_proven(verdict, level.best, answer)
        else:
            _check_unproven(verdict, level.best, answer, time_limit)
    return verdict


def claimed_score(best: dict):
    """The best score a claim stands for: ``infeasible`` claims none, whatever its score says."""
    return None if best.get("proof") == PROOF_INFEASIBLE else best.get("score")


def _check_proven(verdict: Verdict, best: dict, answer: CampaignAnswer) -> None:
    """The claim against the proven best score."""
    proof, bound = best.get("proof"), best.get("bound")
    claimed = claimed_score(best)
    if proof in (PROOF_OPTIMAL, PROOF_INFEASIBLE) and claimed != answer.best_score:
        verdict.problems.append(f"best.score: claimed {json_value(claimed)} ({proof}), "
                                f"the search proves {json_value(answer.best_score)}")
    elif proof == PROOF_BOUND and claimed is not None and (answer.best_score is None or claimed > answer.best_score):
        verdict.problems.append(f"best.score: {claimed} is not reachable (proven best {json_value(answer.best_score)})")
    # whatever the proof, a bound says nothing scores more: false below a line's score
    if bound is not None and answer.best_score is not None and bound < answer.best_score:
        verdict.problems.append(f"best.bound: {bound} is below the proven best {answer.best_score}")
    if not verdict.problems:
        verdict.notes.append(f"best {json_value(answer.best_score)} proven ({answer.nodes} nodes)")


def _check_unproven(verdict: Verdict, best: dict, answer: CampaignAnswer, time_limit: float) -> None:
    """The claim against a search the time limit ended: its best line (``found``) and the root's
    upper bound still refute a claim above the bound or below a line, and confirm a ``bound``
    claim whose score a line reaches and whose bound is no lower than the search's."""
    proof, claimed_bound = best.get("proof"), best.get("bound")
    claimed = claimed_score(best)
    found, bound = answer.best_score, answer.bound
    problems = len(verdict.problems)  # the solution's, if any
    if claimed is not None and bound is not None and claimed > bound:
        verdict.problems.append(f"best.score: claimed {claimed}, but no line scores more than {bound}")
    if found is not None:
        if proof in (PROOF_OPTIMAL, PROOF_INFEASIBLE) and (claimed is None or found > claimed):
            verdict.problems.append(f"best.score: claimed {json_value(claimed)} ({proof}), a line scores {found}")
        if claimed_bound is not None and claimed_bound < found:
            verdict.problems.append(f"best.bound: {claimed_bound} is below a line's score {found}")
    if len(verdict.problems) > problems:
        return
    if (proof == PROOF_BOUND and claimed is not None and found is not None and found >= claimed
            and (claimed_bound is None or (bound is not None and bound <= claimed_bound))):
        verdict.notes.append(f"best {claimed} reached (a line scores {found}), bound {json_value(claimed_bound)} "
                             f"at or above the search's {json_value(bound)}")
        return
    verdict.open.append(f"best.score: could not re-prove {json_value(claimed)} ({proof}) within {time_limit:g}s "
                        f"(found {json_value(found)}, bound {json_value(bound)})")


def _check_winnable(verdict: Verdict, answer: CampaignAnswer, time_limit: float) -> None:
    """A level that stores no claims: a line that meets every goal, or a proof that none does."""
    verdict.answer = answer
    if answer.solvable:
        verdict.notes.append(f"no solution or best stored; a line meets every goal ({answer.nodes} nodes)")
    elif answer.solvable is False:
        verdict.problems.append(f"no solution or best stored, and no line meets the goals: proven "
                                f"({answer.nodes} nodes)")
    else:
        verdict.open.append(f"no solution or best stored; no line meeting the goals found within {time_limit:g}s")
