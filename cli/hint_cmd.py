"""``tenfold hint``: the best plan for a tray and its safe first moves, as ``tenfold tray`` answers."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from cli import console
from cli.common import cli_errors, emit_json
from cli.inputs import board_arg
from cli.options import check_seconds, check_streak_and_tokens, float_option, variant_arg
from cli.tray_cmd import (
    BoardOpt, RulesOpt, StreakOpt, TokensOpt, TrayOpt, answer_tray, draw_plan, parse_tray, tray_json,
)
from solver.board import Board
from solver.errors import RulesError
from solver.moves import parse_moves
from solver.spelling import spell_tray_answer
from solver.tray import TrayAnswer


@cli_errors
def hint(
    rules: RulesOpt,
    tray: TrayOpt,
    board: BoardOpt = None,
    streak: StreakOpt = 0,
    tokens: TokensOpt = 0,
    method: Annotated[Optional[str], typer.Option(help="search or cpsat (--policy best; default search)")] = None,
    policy: Annotated[str, typer.Option(help="best (the tray's best plan, as tenfold tray) or expert (endless "
                                              "play: points + board evaluation + lookahead)")] = "best",
    time_limit: Annotated[Optional[float], float_option(
        "--time-limit", help="seconds the expert's answer may take from the command's start (--policy expert; "
                            "default 1; starting tenfold and loading its compiled kernels count, compiling them "
                            "after an install does not; 0: no lookahead); with --method cpsat, CP-SAT's seconds "
                            "for the whole answer, from when its solve starts (default 30; inf: no limit)")] = None,
    fixed_rounds: Annotated[bool, typer.Option(
        "--fixed-rounds", help="expert: run every lookahead round whatever the clock, so the same input gets "
                               "the same plan on any machine")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """A hint for one tray: the best plan (--policy best) or the plan that keeps the board playable (expert).

    With --policy best: its best plan and safe first moves, the same answer as tenfold tray.
    With --policy expert: placeable, best_score, plan, tokens_used, and the expert's
    end_states, lookahead_rounds, value and ms (no safe_moves)."""
    check_streak_and_tokens(streak, tokens, rules)
    start = board_arg(board)
    spelled, pieces = parse_tray(tray)
    if policy == "expert":
        if method is not None:  # (any method: --method search was taken and ignored)
            raise RulesError(f"--method {method}: the expert plans with its own search; "
                             "--method goes with --policy best")
        check_seconds(time_limit, allow_zero=True)
        _expert_hint(rules, start, pieces, streak, tokens, 1.0 if time_limit is None else time_limit, json_out,
                     spelled, fixed_rounds)
        return
    if policy != "best":
        raise RulesError(f"--policy: expected best or expert, got {policy!r}"
                         + (" (greedy is a policy of play: one placement at a time)" if policy == "greedy" else ""))
    if fixed_rounds:
        raise RulesError(f"--fixed-rounds: a setting of the expert's lookahead, not of --policy {policy}")
    if time_limit is not None and method != "cpsat":
        raise RulesError(f"--time-limit: a setting of the expert's lookahead or of --method cpsat, not of "
                         f"--policy {policy} with --method {method or 'search'}")
    answer = answer_tray(rules, start, pieces, streak, tokens, "search" if method is None else method, time_limit)
    if json_out:
        emit_json(tray_json(rules, start, streak, tokens, spelled, answer))
        return
    typer.echo(draw_plan(rules, start, spelled, answer, streak))


def _expert_hint(rules: str, start: Board, pieces: list[str], streak: int, tokens: int,
                 time_limit: float, json_out: bool, spelled: list[str], fixed_rounds: bool) -> None:
    from cli import entry
    from solver.expert import hint as expert_hint
    from solver.jitcache import compile_seconds

    compiling = compile_seconds()
    # (every round on an open board can take a minute: --fixed-rounds, an empty board, big pieces)
    with console.live_status("expert lookahead", scores=False, unit="end states"):
        answer = expert_hint(variant_arg(rules), start, pieces, streak, tokens, time_limit,
                             fixed_rounds=fixed_rounds, started=entry.STARTED)
    counted = answer["ms"] / 1000 - (compile_seconds() - compiling)  # (compiling, after an install, is not counted)
    if time_limit and not fixed_rounds and answer["lookahead_rounds"] == 0 and counted > time_limit:
        typer.echo(f"note: answered in {counted:.2f} s, past --time-limit {time_limit:g}: the answer without "
                   "lookahead took that long (starting tenfold and loading its compiled kernels included)",
                   err=True)
    if json_out:
        emit_json(spell_tray_answer(answer, variant_arg(rules), start, streak, tokens, spelled))
        return
    plan = answer["plan"]
    tray_answer = TrayAnswer(answer["placeable"], answer["best_score"],
                             None if plan is None else parse_moves(plan), [], answer["tokens_used"])
    typer.echo(draw_plan(rules, start, spelled, tray_answer, streak, safe_moves=False))
    typer.echo(f"expert: {answer['end_states']} end states, {answer['lookahead_rounds']} lookahead rounds, "
               f"{answer['ms']} ms")


def register(app: typer.Typer) -> None:
    app.command()(hint)
