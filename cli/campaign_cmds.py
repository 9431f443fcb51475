"""``tenfold solve`` and ``tenfold verify`` for levels and packs."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from contextlib import closing
from typing import Annotated, Any, Optional

import typer

from cli.common import cli_errors, emit_json
from cli.console import Interrupt, echo_above_progress, interrupted, progress, searching
from cli.inputs import read_json_arg, read_moves_arg, source_name
from cli.options import check_seconds, float_option, int_option
from solver.campaign import PROOF_BOUND, CampaignAnswer, best_of, solve_level
from solver.campaign_jit import warm_up
from solver.continuation import position_after, solve_position, spelled_rest
from solver.errors import FormatError, RulesError, clipped
from solver.level import Level, Pack, parse_level_or_pack, pick_level
from solver.verify import Verdict, verify_level
from solver.workers import MAX_WORKERS, answers_in_order, check_workers

METHODS = ("search", "cpsat", "auto")
WorkersOpt = Annotated[int, int_option(help=f"worker processes for a pack's levels, 1 to {MAX_WORKERS} (each level "
                                              "runs on one; the output is the same)")]


def load_levels(path: str, level_id: str | None) -> tuple[list[Level], bool]:
    """The levels a command works on, and whether the input was a single level."""
    name = source_name(path)
    item = parse_level_or_pack(read_json_arg(path, name), name)
    if level_id is not None:
        return [pick_level(item, level_id, name)], True
    if isinstance(item, Pack):
        if not item.levels:
            raise FormatError(f"{path}: field levels: pack {item.id!r} has no levels")
        return list(item.levels), False
    return [item], True


def check_method(method: str, node_limit: int | None) -> None:
    if method not in METHODS:
        raise RulesError(f"--method: expected one of {', '.join(METHODS)}, got {method!r}")
    if node_limit is not None and method != "search":
        raise RulesError(f"--node-limit: counts the search's nodes, so it needs --method search "
                         f"(CP-SAT, alone or as auto's second half, runs on the clock), got --method {method}")


def solve_one(level: Level, method: str, time_limit: float, interrupt: Interrupt | None = None,
              node_limit: int | None = None) -> CampaignAnswer:
    check_method(method, node_limit)
    nodes = {} if node_limit is None else {"node_limit": node_limit}
    if method == "search":
        return solve_level(level, time_limit=time_limit, hint=level.solution, **nodes)
    from solver.campaign_cpsat import solve_level_cpsat

    if method == "cpsat":
        return solve_level_cpsat(level, time_limit=time_limit)
    start = time.perf_counter()
    answer = solve_level(level, time_limit=time_limit / 2, hint=level.solution, **nodes)
    left = time_limit - (time.perf_counter() - start)  # the half the search left, less its overrun
    if answer.complete or (interrupt is not None and interrupt.requested) or left <= 0:
        return answer
    return best_of(answer, solve_level_cpsat(level, time_limit=left, hint=answer.best_line))


@cli_errors
def solve(
    path: Annotated[str, typer.Argument(help="a level or pack JSON file (- for stdin)", metavar="LEVEL_OR_PACK.json")],
    level: Annotated[Optional[str], typer.Option("--level", help="the level id inside a pack")] = None,
    time_limit: Annotated[float, float_option(help="seconds per level (inf: no limit)")] = 30.0,
    method: Annotated[str, typer.Option(help="search, cpsat or auto (the search for half the time, then CP-SAT "
                                             "from its best line if unproven: the better of the two)")] = "search",
    node_limit: Annotated[Optional[int], int_option(
        help="stop the search once it passes this many nodes (it checks every 4,096, every 1,024 on "
             "levels whose tokens draw from a reserve; --method search "
             "only): an answer the node limit (not the time limit) ends is the same on every machine",
        min=1, max=10**18)] = None,  # the compiled search counts in 64 bits
    after: Annotated[Optional[str], typer.Option(
        help="JSON file (- for stdin) with the moves played so far, a flat list as a level's solution: "
             "the answer is then the rest of the game from there (one level; --method search)")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    workers: WorkersOpt = 1,
    grade: Annotated[bool, typer.Option(
        "--grade", help="also grade each solvable level as generate grades its candidates, for its own score "
                        "goal: the shares of seeded random and greedy playouts that win, the winning lines "
                        "(up to 1,000), the proof's nodes, and the difficulty and grade they make")] = False,
    seed: Annotated[Optional[int], int_option(help="seed of --grade's playouts (default 0)", min=0)] = None,
) -> None:
    """Is the level solvable, and what is its best score (with proof status)?"""
    check_seconds(time_limit, allow_inf=True)
    check_workers(workers)
    check_method(method, node_limit)
    if seed is not None and not grade:
        raise RulesError("--seed: seeds --grade's playouts; give --grade too")
    if grade and after is not None:
        raise RulesError("--grade: grades a level from its start, not the rest of a game (--after)")
    graded = functools.partial(_grading, seed=0 if seed is None else seed) if grade else None
    levels, single = load_levels(path, level)
    if after is not None:
        _solve_after(levels, single, after, method, time_limit, node_limit, json_out)
        return
    if method == "cpsat":
        dealing = [lv.id for lv in levels if lv.redeals]
        if dealing:
            typer.echo(f"note: --method cpsat leaves out reroll, swap and refresh, which {len(dealing)} level(s) "
                       f"can spend on their reserve ({clipped(', '.join(dealing), 80)}): their answers are bounds "
                       "(optimal only where a line meets the counting bound); "
                       "--method search solves them exactly", err=True)
    if single:
        with searching(f"solving {levels[0].id}") as interrupt:
            answer = solve_one(levels[0], method, time_limit, interrupt, node_limit)
        grading_due = graded is not None and not interrupt.requested  # (Ctrl-C asked to stop: none)
        grading = graded(levels[0], answer) if grading_due else None
        if json_out:
            emit_json(answer.to_json(levels[0]) | ({"grading": grading} if graded else {}))
        else:
            typer.echo(_summary_line(levels[0], answer))
            if answer.solution:
                typer.echo("solution: " + " ".join(_move_text(m) for m in levels[0].moves_json(answer.solution)))
            if grading_due:
                typer.echo(_grading_line(grading))
        if interrupt.requested:
            interrupted("the answer is the best found before Ctrl-C (proof: bound)")
        return
    answers = []

    def took(lv: Level, answer: CampaignAnswer, stopping: bool = False) -> None:
        """A level answered: kept (graded with --grade, but once Ctrl-C asks to stop), and its
        line printed as it comes (a long run's log fills as it goes)."""
        due = graded is not None and not stopping
        grading = graded(lv, answer) if due else None
        answers.append((lv, answer, grading))
        if not json_out:
            echo_above_progress(_summary_line(lv, answer))
            if due:
                echo_above_progress("  " + _grading_line(grading))

    by_workers = workers > 1 and len(levels) > 1
    if by_workers:
        task = functools.partial(solve_one, method=method, time_limit=time_limit, node_limit=node_limit)
        stopped = _by_workers(task, levels, workers, "solving", took)
    else:
        with searching("solving", status=False) as interrupt, progress(levels, label="solving") as bar:
            for lv in bar:
                took(lv, solve_one(lv, method, time_limit, interrupt, node_limit), interrupt.requested)
                if interrupt.requested:
                    break
        stopped = interrupt.requested
    if json_out:
        emit_json([{"id": lv.id, **a.to_json(lv), **({"grading": g} if graded else {})} for lv, a, g in answers])
    else:
        proven = sum(a.proof != PROOF_BOUND for _, a, _ in answers)
        solvable = sum(a.solvable is True for _, a, _ in answers)
        unknown = sum(a.solvable is None for _, a, _ in answers)
        typer.echo(f"{len(answers)} levels: {solvable} solvable, {proven} proven"
                   + (f", {unknown} not known to be solvable (no line found in time)" if unknown else ""))
    if stopped:
        last = "the levels under way were dropped" if by_workers else "the last one's answer is a bound"
        interrupted(f"after {len(answers)} of {len(levels)} levels ({last})")


def _by_workers(task: Callable[[Level], Any], levels: list[Level], workers: int, label: str,
                took: Callable[[Level, Any], None]) -> bool:
    """``task(level)`` for each of a pack's levels by ``workers`` processes, each result handed to
    ``took`` in the pack's order, under a progress bar; whether Ctrl-C stopped it."""
    warm_up()  # once, before the fork: the workers inherit the loaded search
    stream = answers_in_order(task, levels, workers, name=lambda lv: f"level {lv.id}")
    try:
        with closing(stream), progress(length=len(levels), label=f"{label} ({workers} workers)") as bar:
            for result, lv in zip(stream, levels):
                took(lv, result)
                bar.update(1)
    except KeyboardInterrupt:
        return True
    return False


def _solve_after(levels: list[Level], single: bool, after: str, method: str, time_limit: float,
                 node_limit: int | None, json_out: bool) -> None:
    """``solve --after``: the answer from where the moves played so far leave the level."""
    if not single:
        held = f"{len(levels)} level{'s' * (len(levels) != 1)}"
        raise RulesError(f"--after: the moves of one level; give --level ID (this pack holds {held})")
    if method != "search":
        raise RulesError("--after: the rest of a part-played level is solved by --method search, "
                         f"got --method {method}")
    lv = levels[0]
    moves, where = read_moves_arg(after, "--after")
    start = position_after(lv, moves, f"{where}: moves")
    nodes = {} if node_limit is None else {"node_limit": node_limit}
    with searching(f"solving {lv.id} after {len(moves)} move{'s' * (len(moves) != 1)}") as interrupt:
        position, answer = solve_position(lv, start, time_limit=time_limit, hint=lv.solution, **nodes)
    rest = None if answer.solution is None else spelled_rest(lv, position, answer.solution)
    if json_out:
        emit_json({**answer.to_json(), "solution": rest, "after": position.to_json()})
    else:
        moved = position.to_json()
        tokens = f" counting {moved['tokens']} token{'s' * (moved['tokens'] != 1)} left" if moved["tokens"] else ""
        typer.echo(f"after {moved['moves']} move{'s' * (moved['moves'] != 1)} ({moved['placed']} of {lv.limit} "
                   f"placements, score {moved['score']}{tokens}):")
        typer.echo(_summary_line(lv, answer))
        if rest:
            typer.echo("rest of the solution: " + " ".join(_move_text(m) for m in rest))
        elif rest == []:
            typer.echo("rest of the solution: none; every goal holds as the game stands")
    if interrupt.requested:
        interrupted("the answer is the best found before Ctrl-C (proof: bound)")


SOLVABLE_TEXT = {True: "yes", False: "no", None: "?"}  # ?: no line yet, and not proven none exists


def _grading(level: Level, answer: CampaignAnswer, seed: int) -> dict | None:
    """``--grade``: the level's grading for its own score goal (docs/rules-choices.md), None where
    no line is known to meet its goals (there is nothing to grade)."""
    from generator.grade import grading, measure

    if answer.solvable is not True:
        return None
    return grading(measure(level, [level.score_goal], answer.nodes, seed)[0])


def _grading_line(grading: dict | None) -> str:
    if grading is None:
        return "grading: none (no line is known to meet the goals)"
    m = grading["measurements"]
    lines = f"{m['winning_lines']:,}" + (" or more" if m["winning_lines_capped"] else "")
    return (f"grading: {grading['grade'] or 'not settled'} (difficulty {grading['difficulty']}): "
            f"playouts that win {100 * m['random_win_share']:.1f} % random, {100 * m['greedy_win_share']:.1f} % "
            f"greedy; {lines} winning lines; {m['proof_nodes']:,} proof nodes")


def _summary_line(level: Level, answer: CampaignAnswer) -> str:
    return (
        f"{level.id:<16} solvable={SOLVABLE_TEXT[answer.solvable]:<3} best={_or_dash(answer.best_score):<6} "
        f"proof={answer.proof:<10} bound={_or_dash(answer.bound):<6} nodes={answer.nodes:<8} {answer.seconds:.2f}s"
    )


def _or_dash(value: int | None) -> str:
    """A score, or ``-`` for none (no line meets the goals), as the live status shows it."""
    return "-" if value is None else str(value)


def _move_text(data: dict) -> str:
    if "token" in data:
        return "[" + " ".join(f"{k}={v}" for k, v in data.items()) + "]"
    return f"{data['piece']}@{data['row']},{data['col']}"


@cli_errors
def verify(
    path: Annotated[str, typer.Argument(help="a level or pack JSON file (- for stdin)", metavar="LEVEL_OR_PACK.json")],
    level: Annotated[Optional[str], typer.Option("--level", help="only this level of a pack")] = None,
    time_limit: Annotated[float, float_option(
        help="seconds per level to re-prove best, or to find a winning line for a level without claims "
             "(inf: no limit)")] = 60.0,
    json_out: Annotated[bool, typer.Option("--json", help="print JSON: a verdict per level")] = False,
    workers: WorkersOpt = 1,
) -> None:
    """Replay every stored solution and re-prove every best claim; exit 1 if any fails.

    A level with neither a solution nor a best claim must be winnable. Exit 1 if any claim
    is false (FAIL) or could not be confirmed within the time limit (OPEN)."""
    check_seconds(time_limit, allow_inf=True)
    check_workers(workers)
    levels, _ = load_levels(path, level)
    verdicts: list[Verdict] = []
    stopped = False
    if workers > 1 and len(levels) > 1:
        def took(lv: Level, verdict: Verdict) -> None:
            verdicts.append(verdict)
            if not json_out:
                echo_above_progress(verdict.line())

        task = functools.partial(verify_level, time_limit=time_limit)
        stopped = _by_workers(task, levels, workers, "verifying", took)
    else:
        for lv in levels:
            with searching(f"verifying {lv.id}") as interrupt:
                verdict = verify_level(lv, time_limit)
            if interrupt.requested:  # its re-proof was cut short: no verdict
                stopped = True
                break
            verdicts.append(verdict)
            if not json_out:
                typer.echo(verdict.line())
    if json_out:  # (after a Ctrl-C, the verdicts so far, as solve prints its answers so far)
        emit_json([v.to_json() for v in verdicts])
    if stopped:
        interrupted(f"verified {len(verdicts)} of {len(levels)} levels; {_tally(verdicts)}")
    # stdout keeps one line per level (issue #4), or the JSON; the count goes to stderr
    typer.echo(f"{len(verdicts)} level{'s' * (len(verdicts) != 1)}: {_tally(verdicts)}", err=True)
    if not all(v.ok for v in verdicts):
        raise typer.Exit(1)


def _tally(verdicts: list[Verdict]) -> str:
    counts = {status: sum(v.status == status for v in verdicts) for status in ("ok", "fail", "open")}
    return f"{counts['ok']} ok, {counts['fail']} FAIL (a false claim), {counts['open']} OPEN (not settled)"


def register(app: typer.Typer) -> None:
    app.command()(solve)
    app.command()(verify)
