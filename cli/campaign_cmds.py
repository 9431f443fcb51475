"""``tenfold solve`` and ``tenfold verify`` for levels and packs."""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Annotated, Optional, TextIO

import typer

from cli.common import cli_errors, emit_json, progress, read_json_arg
from solver.campaign import CampaignAnswer, solve_level
from solver.errors import RulesError
from solver.level import Level, Pack, parse_level_or_pack
from solver.verify import verify_level

METHODS = ("search", "cpsat", "auto")
STATUS_EVERY = 0.25  # seconds between redraws of the live status line


def load_levels(path: str, level_id: str | None) -> tuple[list[Level], bool]:
    """The levels a command works on, and whether the input was a single level."""
    item = parse_level_or_pack(read_json_arg(path, path), path)
    if isinstance(item, Pack):
        if level_id is not None:
            return [item.level(level_id)], True
        return list(item.levels), False
    if level_id is not None and level_id != item.id:
        raise RulesError(f"--level: the file holds level {item.id!r}, not {level_id!r}")
    return [item], True


class SearchStatus:
    """A one-line live status of a level's search: seconds, nodes and the best score so far,
    redrawn in place at most every ``every`` seconds; ``close`` erases it. Fed by the compiled
    search's watchers (``campaign_jit.WATCHERS``), whose node count restarts with each call."""

    def __init__(self, label: str, stream: TextIO, clock=time.monotonic, every: float = 0.25) -> None:
        self.label, self.stream, self.clock, self.every = label, stream, clock, every
        self.start = self.shown = clock()
        self.base = self.last = 0
        self.best: int | None = None
        self.width = 0

    def __call__(self, nodes: int, best: int | None) -> None:
        if nodes < self.last:  # a new call of the search
            self.base += self.last
        self.last = nodes
        if best is not None and (self.best is None or best > self.best):
            self.best = best
        now = self.clock()
        if now - self.shown < self.every:
            return
        self.shown = now
        text = (f"{self.label}: {now - self.start:.1f} s, {(self.base + nodes) / 1e6:.1f} M nodes, "
                f"best {'-' if self.best is None else self.best}")
        self.stream.write("\r" + text.ljust(self.width))
        self.stream.flush()
        self.width = len(text)

    def close(self) -> None:
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


def _terminal() -> bool:
    return sys.stderr.isatty()


@contextmanager
def live_status(label: str):
    """Show a ``SearchStatus`` on stderr while the block runs, when stderr is a terminal (like
    the progress bars; logs and pipes get nothing)."""
    if not _terminal():
        yield
        return
    from solver import campaign_jit

    status = SearchStatus(label, sys.stderr, every=STATUS_EVERY)
    campaign_jit.WATCHERS.append(status)
    try:
        yield
    finally:
        campaign_jit.WATCHERS.remove(status)
        status.close()


def solve_one(level: Level, method: str, time_limit: float) -> CampaignAnswer:
    if method not in METHODS:
        raise RulesError(f"--method: expected one of {', '.join(METHODS)}, got {method!r}")
    if method == "search":
        return solve_level(level, time_limit=time_limit, hint=level.solution)
    from solver.campaign_cpsat import solve_level_cpsat

    if method == "cpsat":
        return solve_level_cpsat(level, time_limit=time_limit)
    answer = solve_level(level, time_limit=time_limit / 2, hint=level.solution)
    if answer.complete:
        return answer
    return solve_level_cpsat(level, time_limit=time_limit / 2, hint=answer.best_line)


@cli_errors
def solve(
    path: Annotated[str, typer.Argument(help="a level or pack JSON file")],
    level: Annotated[Optional[str], typer.Option("--level", help="the level id inside a pack")] = None,
    time_limit: Annotated[float, typer.Option(help="seconds per level")] = 30.0,
    method: Annotated[str, typer.Option(help="search, cpsat or auto")] = "search",
    json_out: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Is the level solvable, and what is its best score (with proof status)?"""
    levels, single = load_levels(path, level)
    if single:
        with live_status(f"solving {levels[0].id}"):
            answer = solve_one(levels[0], method, time_limit)
        if json_out:
            emit_json(answer.to_json())
            return
        typer.echo(_summary_line(levels[0], answer))
        if answer.solution:
            typer.echo("solution: " + " ".join(_move_text(m) for m in answer.solution))
        return
    answers = []
    with progress(levels, label="solving") as bar:
        for lv in bar:
            answers.append((lv, solve_one(lv, method, time_limit)))
    if json_out:
        emit_json([{"id": lv.id, **a.to_json()} for lv, a in answers])
        return
    for lv, answer in answers:
        typer.echo(_summary_line(lv, answer))
    proven = sum(a.proof != "bound" for _, a in answers)
    solvable = sum(a.solvable for _, a in answers)
    typer.echo(f"{len(answers)} levels: {solvable} solvable, {proven} proven")


def _summary_line(level: Level, answer: CampaignAnswer) -> str:
    return (
        f"{level.id:<16} solvable={'yes' if answer.solvable else 'no ':<3} best={answer.best_score!s:<6} "
        f"proof={answer.proof:<10} bound={answer.bound!s:<6} nodes={answer.nodes:<8} {answer.seconds:.2f}s"
    )


def _move_text(move) -> str:
    data = move.to_json()
    if "token" in data:
        return "[" + " ".join(f"{k}={v}" for k, v in data.items()) + "]"
    return f"{data['piece']}@{data['row']},{data['col']}"


@cli_errors
def verify(
    path: Annotated[str, typer.Argument(help="a level or pack JSON file")],
    time_limit: Annotated[float, typer.Option(help="seconds per level to re-prove best")] = 60.0,
) -> None:
    """Replay every stored solution and re-prove every best claim; exit 1 if any claim is false."""
    levels, _ = load_levels(path, None)
    failed = 0
    for lv in levels:
        with live_status(f"verifying {lv.id}"):
            verdict = verify_level(lv, time_limit)
        typer.echo(verdict.line())
        failed += not verdict.ok
    if failed:
        typer.echo(f"{failed} of {len(levels)} levels carry a false or unconfirmed claim", err=True)
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command()(solve)
    app.command()(verify)
