"""``tenfold tray``: placeable, best plan and safe first moves for one tray."""

from __future__ import annotations

import json
from typing import Annotated, Optional

import typer

from cli.common import cli_errors, emit_json
from cli.console import interrupted, live_status, say
from cli.draw import draw_board
from cli.inputs import board_arg
from cli.options import check_seconds, check_streak_and_tokens, float_option, int_option, variant_arg
from solver.board import Board
from solver.deals import TRAY_SIZE
from solver.engine import Game, Streak
from solver.errors import CpsatTimeout, RulesError
from solver.moves import Placement
from solver.pieces import canonical_ids, placement_mask
from solver.spelling import spell_moves, spell_tray_answer
from solver.tray import TrayAnswer, analyse_tray

METHODS = ("search", "cpsat")

# The options tray and hint share.
RulesOpt = Annotated[str, typer.Option("--rules", help="halloween, arabic or sudoku")]
TrayOpt = Annotated[str, typer.Option("--tray", help="1-3 piece ids, comma-separated")]
BoardOpt = Annotated[Optional[str], typer.Option(help="one-line board text or a file (- for stdin; default: empty)")]
StreakOpt = Annotated[int, int_option(help="consecutive clearing placements before the tray (Arabic: 1 or more says"
                                                " the last turn cleared, for the flow bonus)")]
TokensOpt = Annotated[int, int_option(help="tokens available for a rescue when the tray does not fit")]
MethodOpt = Annotated[str, typer.Option(help="search or cpsat")]
CPSAT_SECONDS = 30.0  # --method cpsat's default --time-limit


def parse_tray(text: str) -> tuple[list[str], list[str]]:
    """The tray's piece ids as given, and their canonical ids (what the solvers take; answers
    name the pieces as given, ``tray_json``)."""
    ids = [p.strip() for p in text.split(",")]
    if "" in ids and text.strip():
        raise RulesError(f"--tray[{ids.index('')}]: empty piece id in {text!r} (a stray comma?)")
    ids = [p for p in ids if p]
    if not 1 <= len(ids) <= TRAY_SIZE:
        raise RulesError(f"--tray: expected 1 to {TRAY_SIZE} comma-separated piece ids, got {text!r}")
    return ids, canonical_ids(ids, "--tray")


def tray_json(rules: str, board: Board, streak: int, tokens: int, spelled: list[str], answer: TrayAnswer) -> dict:
    """What ``tray --json`` (and ``hint --json``) prints: the answer, its pieces named as given."""
    return spell_tray_answer(answer.to_json(with_tokens=tokens > 0), variant_arg(rules), board, streak, tokens,
                             spelled)


def solve_tray(rules: str, board: Board, tray: list[str], streak: int, tokens: int, method: str,
               time_limit: float | None = None) -> TrayAnswer:
    """The tray's answer by ``method``; ``time_limit``: CP-SAT's seconds for all of it, from when
    its solve starts (None: 30), refused with the search, which has no clock. ``CpsatTimeout``
    when CP-SAT's time runs out first."""
    variant = variant_arg(rules)
    if method not in METHODS:
        raise RulesError(f"--method: expected one of {', '.join(METHODS)}, got {method!r}")
    if method == "cpsat":
        from solver.tray_cpsat import cpsat_answer

        check_seconds(time_limit, allow_inf=True)
        return cpsat_answer(variant, board, tray, streak, tokens, CPSAT_SECONDS if time_limit is None else time_limit)
    if time_limit is not None:
        raise RulesError("--time-limit: a limit for --method cpsat; the search has none (it answers in "
                         "milliseconds)")
    return analyse_tray(variant, board, tray, streak, tokens)


def answer_tray(rules: str, board: Board, tray: list[str], streak: int, tokens: int, method: str,
                time_limit: float | None) -> TrayAnswer:
    """``solve_tray`` as ``tray`` and ``hint`` run it: a live status line on a terminal; Ctrl-C, or
    CP-SAT's time running out, is no answer (exit 130, exit 1: the input was good), said once the
    status line is gone."""
    try:
        with live_status(f"tray ({method})"):
            return solve_tray(rules, board, tray, streak, tokens, method, time_limit)
    except KeyboardInterrupt:  # a tray's answer is all or nothing: there is no best so far to give
        interrupted("no answer: Ctrl-C stopped the tray's solve")
    except CpsatTimeout as err:
        say(f"error: no answer: {err}; give a longer --time-limit, or --method search")
        raise typer.Exit(1) from None


def draw_plan(rules: str, board: Board, tray: list[str], answer: TrayAnswer, streak: int,
              safe_moves: bool = True) -> str:
    """The plan step by step; ``tray`` as given (the moves name its pieces so). A placement's step
    shows the board it lands on, its cells marked; a token's, the board after it. ``safe_moves``:
    the answer counted its safe first moves (the expert's does not)."""
    if not answer.placeable:
        return draw_board(board) + "\nnot placeable"

    def new_game() -> Game:
        return Game(variant_arg(rules), board, Streak.carried_in(streak), answer.tokens_used, list(tray))

    labels = spell_moves(new_game(), list(tray), answer.plan)
    game = new_game()
    out = [draw_board(board), ""]
    for step, move in enumerate(answer.plan, 1):
        highlight = placement_mask(move.piece, move.row, move.col) if isinstance(move, Placement) else 0
        before = game.board
        result = game.apply(move)
        shown = Board(before.filled, before.stones, before.pumpkins) if highlight else game.board
        out.append(f"step {step}: {json.dumps(labels[step - 1])}  +{result.points}")  # as a moves file has it
        out.append(draw_board(shown, highlight))
        out.append("")
    out.append(draw_board(game.board))
    out.append(f"best score: {answer.best_score}"
               + (f"   safe first moves: {len(answer.safe_moves)}" if safe_moves else ""))
    return "\n".join(out)


@cli_errors
def tray(
    rules: RulesOpt,
    tray: TrayOpt,
    board: BoardOpt = None,
    streak: StreakOpt = 0,
    tokens: TokensOpt = 0,
    method: MethodOpt = "search",
    time_limit: Annotated[Optional[float], float_option(
        "--time-limit", help=f"--method cpsat: seconds for the whole answer, from when its solve starts "
                             f"(default {CPSAT_SECONDS:g}; inf: no limit); exit 1 when they run out first")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Can the tray be placed; its best plan (most points, then board health); safe first moves."""
    check_streak_and_tokens(streak, tokens, rules)
    start = board_arg(board)
    spelled, pieces = parse_tray(tray)
    answer = answer_tray(rules, start, pieces, streak, tokens, method, time_limit)
    if json_out:
        emit_json(tray_json(rules, start, streak, tokens, spelled, answer))
        return
    typer.echo(draw_plan(rules, start, spelled, answer, streak))


def register(app: typer.Typer) -> None:
    app.command()(tray)
