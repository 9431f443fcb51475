"""``tenfold generate``: a pack of proven, graded levels."""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli import console
from cli.atomic import refuse_file_in_path, write_atomically
from cli.common import cli_errors, emit_json, naming_option
from cli.console import interrupted, progress, searching
from cli.inputs import out_path
from cli.options import int_option
from generator.grade import GRADE_NAMES
from generator.pack import MAX_COUNT, MAX_PROOF_NODES, MAX_TRAYS, Interrupted, PackReport, Shortfall, generate_pack
from generator.recipes import RECIPES
from solver.errors import FormatError
from solver.workers import MAX_WORKERS


@cli_errors
def generate(
    kind: Annotated[str, typer.Argument(help="sultan or halloween", metavar="KIND")],
    count: Annotated[int, int_option(help=f"levels in the pack (1 to {MAX_COUNT:,})")],
    seed: Annotated[int, int_option(help="the pack's seed (0 or more): the same seed gives the same file",
                                      min=0)],
    out: Annotated[str, typer.Option(help="where to write the pack JSON")],
    difficulty: Annotated[Optional[str], typer.Option(help="easy, medium, hard or expert (default: a spread)")] = None,
    trays: Annotated[Optional[int], int_option(help=f"trays per level, 1 to {MAX_TRAYS} (default: " + ", ".join(
        f"{k} {r.default_trays}" for k, r in RECIPES.items()) + ")")] = None,
    proof_nodes: Annotated[Optional[int], int_option(help=(
        f"search nodes a candidate's proof may take, 1 to {MAX_PROOF_NODES:,} (default: " + ", ".join(
            f"{k} {r.node_budget:,}" for k, r in RECIPES.items())
        + "): a larger budget keeps longer levels, and each candidate takes longer; the same seed and budget give "
          "the same pack on any machine"))] = None,
    workers: Annotated[int, int_option(help=f"local worker processes (1 to {MAX_WORKERS})")] = 1,
    backend: Annotated[str, typer.Option(help="local or dask")] = "local",
    scheduler: Annotated[Optional[str], typer.Option(help="Dask scheduler address, with --backend dask")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the run's summary as JSON instead of its table")]
    = False,
) -> None:
    """Generate a pack; every level's solution and best score are proven by the solver."""
    raw_out, out = out, out_path(out)  # Path drops a trailing slash, which asks for a folder
    with naming_option("--out"):  # (a folder it may not look into, a name too long)
        if out.is_dir() or raw_out.endswith(("/", "\\")):  # found now, not after the whole run
            raise FormatError(f"--out: {raw_out} is a folder; expected the pack's file name")
        if out.exists() and not out.is_file():  # (a device or a pipe: its partial file would go beside it)
            raise FormatError(f"--out: {out} is not a regular file (a device or a pipe); expected the pack's "
                              "file name")
        refuse_file_in_path(out)
    with searching("generating", status=False) as interrupt, \
            progress(length=count, label=f"{kind} levels") as bar:
        shown = [0]

        def on_candidate(index: int, result: dict, accepted: int) -> None:
            if accepted > shown[0]:
                bar.update(accepted - shown[0])
                shown[0] = accepted

        stopped = shortfall = None
        started = time.perf_counter()
        try:
            with naming_option("--out"):  # the partial file beside OUT, its folders made at the start
                report = generate_pack(kind, count, seed, out, trays, difficulty, workers, backend, scheduler,
                                       on_candidate, stop=lambda: interrupt.requested,
                                       note=lambda text: typer.echo(f"note: {text}", err=True),
                                       proof_nodes=proof_nodes, connecting=_on_a_terminal)
        except Interrupted as err:  # said once the progress bar has closed
            stopped = err
        except Shortfall as err:  # not bad input (exit 2): the run found too few levels
            shortfall = err
    if shortfall is not None:
        typer.echo(f"error: {shortfall}", err=True)
        raise typer.Exit(1)
    if stopped is not None:
        interrupted(f"{stopped.kept} candidate results kept in {stopped.partial}; the same command resumes from them")
    with naming_option("--out"):
        write_atomically(out, json.dumps(report.pack, indent=1, sort_keys=False) + "\n")
    Path(str(out) + ".partial.jsonl").unlink(missing_ok=True)
    seconds = time.perf_counter() - started
    if json_out:
        emit_json(summary_json(report, raw_out, seconds))  # the pack's path as --out named it (docs/json.md)
    else:
        typer.echo(closing_table(report, raw_out, seconds))


def _on_a_terminal(text: str) -> None:
    """A line of progress (connecting to a Dask scheduler) where progress is drawn: on a terminal."""
    if console.terminal():
        console.say("\r\033[K" + text)  # on a line of its own: the bar's, cleared (drawn again at its next step)


def summary_json(report: PackReport, out: str | Path, seconds: float) -> dict:
    """The closing table's figures for a script (docs/json.md's ``generate``)."""
    levels = report.pack["levels"]
    limits = [lv["limit"] for lv in levels]
    return {
        "out": str(out),
        "id": report.pack["id"],
        "levels": len(levels),
        "candidates": report.candidates,
        "per_grade": {grade: report.per_grade.get(grade, 0) for grade in GRADE_NAMES},
        "limits": {"min": min(limits), "median": statistics.median(limits), "max": max(limits)},
        "proof_nodes_mean": round(statistics.mean(report.proof_nodes), 1),  # a pack has a level, each proven
        "proof_node_budget": report.proof_node_budget,
        "proof_seconds_mean": round(statistics.mean(report.proof_seconds), 3),
        "seconds": round(seconds, 3),
        "rejected": [{"reason": reason, "count": n} for reason, n in report.rejected.most_common()],
    }


def closing_table(report: PackReport, out: str | Path, seconds: float | None = None) -> str:
    kept = len(report.pack["levels"])
    lines = [f"wrote {out}: {kept} level{'s' * (kept != 1)} from {report.candidates} candidates"]
    lines.append("grade     levels")
    for grade in GRADE_NAMES:
        lines.append(f"{grade:<9} {report.per_grade.get(grade, 0):>6}")
    if report.proof_nodes:
        lines.append(f"proof effort: mean {statistics.mean(report.proof_nodes):,.0f} nodes "
                     f"(budget {report.proof_node_budget:,}), "
                     f"{statistics.mean(report.proof_seconds):.2f} s per accepted level")
    if seconds is not None:  # most of a long run can go on candidates the budget rejects
        lines.append(f"run time: {seconds:,.1f} s for {report.candidates} candidates (resumed ones take none)")
    limits = limits_line(report.pack["levels"])
    if limits:
        lines.append(limits)
    if report.rejected:
        lines.append("rejected candidates:")
        for reason, n in report.rejected.most_common():
            lines.append(f"  {n:>5}  {reason}")
    return "\n".join(lines)


def trays_reached(trays: list[list[str]], limit: int) -> int:
    """How many of the trays a line of ``limit`` placements can reach (the later ones never show)."""
    reached, before = 0, 0
    for tray in trays:
        if before >= limit:
            break
        reached += 1
        before += len(tray)
    return reached


def limits_line(levels: list[dict]) -> str | None:
    """The placement limits of levels that stop before their last piece, and the trays their
    lines reach: the proof budget favours short limits, which a designer asking for many trays
    should see (a larger --proof-nodes keeps longer ones). None when every level places every piece."""
    if all(lv["limit"] >= sum(map(len, lv["trays"])) for lv in levels):
        return None
    limits = sorted(lv["limit"] for lv in levels)
    pieces = sorted({sum(len(t) for t in lv["trays"]) for lv in levels})
    reached = max(trays_reached(lv["trays"], lv["limit"]) for lv in levels)
    trays = max(len(lv["trays"]) for lv in levels)
    return (f"placement limits {limits[0]}-{limits[-1]} (median {statistics.median(limits):g}) of "
            f"{'/'.join(map(str, pieces))} pieces: lines reach at most tray {reached} of {trays}")


def register(app: typer.Typer) -> None:
    app.command()(generate)
