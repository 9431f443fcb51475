"""Check a level's claims: its stored solution wins, and its ``best`` is what a search proves."""

from __future__ import annotations

from dataclasses import dataclass, field

from .campaign import PROOF_BOUND, PROOF_INFEASIBLE, PROOF_OPTIMAL, CampaignAnswer, solve_level
from .level import Level, play_solution


@dataclass
class Verdict:
    level_id: str
    ok: bool
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    answer: CampaignAnswer | None = None

    def line(self) -> str:
        status = "ok  " if self.ok else "FAIL"
        detail = "; ".join(self.problems if not self.ok else self.notes)
        return f"{status} {self.level_id}: {detail}"


def verify_level(level: Level, time_limit: float = 60.0) -> Verdict:
    """Replay the stored solution and re-prove the ``best`` claim."""
    verdict = Verdict(level.id, True)
    if level.solution is not None:
        replay = play_solution(level, level.solution)
        if replay.ok:
            verdict.notes.append(f"solution wins with {replay.score} in {replay.placements} placements")
        else:
            verdict.problems.append(f"solution: {replay.problem}")
    best = level.best
    if best is not None:
        answer = solve_level(level, time_limit=time_limit, hint=level.solution)
        verdict.answer = answer
        claimed, proof = best.get("score"), best.get("proof")
        if answer.complete:
            if proof in (PROOF_OPTIMAL, PROOF_INFEASIBLE) and claimed != answer.best_score:
                verdict.problems.append(
                    f"best.score: claimed {claimed} ({proof}), the search proves {answer.best_score}"
                )
            elif proof == PROOF_BOUND:
                bound = best.get("bound")
                if claimed is not None and (answer.best_score is None or claimed > answer.best_score):
                    verdict.problems.append(f"best.score: {claimed} is not reachable (proven best {answer.best_score})")
                if bound is not None and answer.best_score is not None and bound < answer.best_score:
                    verdict.problems.append(f"best.bound: {bound} is below the proven best {answer.best_score}")
            if not verdict.problems:
                verdict.notes.append(f"best {answer.best_score} proven ({answer.nodes} nodes, {answer.seconds:.2f}s)")
        else:
            verdict.problems.append(
                f"best.score: could not re-prove {claimed} ({proof}) within {time_limit:g}s "
                f"(found {answer.best_score}, bound {answer.bound})"
            )
    verdict.ok = not verdict.problems
    return verdict
