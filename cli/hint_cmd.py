"""``tenfold hint``: the best plan for a tray and its safe first moves, as ``tenfold tray`` answers."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from cli.common import board_arg, cli_errors, emit_json
from cli.tray_cmd import draw_plan, parse_tray, solve_tray


@cli_errors
def hint(
    rules: Annotated[str, typer.Option("--rules", help="halloween, arabic or sudoku")],
    tray: Annotated[str, typer.Option("--tray", help="1-3 piece ids, comma-separated")],
    board: Annotated[Optional[str], typer.Option(help="one-line board text or a file (default: empty)")] = None,
    streak: Annotated[int, typer.Option(help="consecutive clearing placements before the tray")] = 0,
    tokens: Annotated[int, typer.Option(help="tokens available for a rescue when the tray does not fit")] = 0,
    method: Annotated[str, typer.Option(help="search or cpsat")] = "search",
    json_out: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """A hint for one tray: its best plan and safe first moves (the same answer as tenfold tray)."""
    start = board_arg(board)
    pieces = parse_tray(tray)
    answer = solve_tray(rules, start, pieces, streak, tokens, method)
    if json_out:
        emit_json(answer.to_json(with_tokens=tokens > 0))
        return
    typer.echo(draw_plan(rules, start, pieces, answer, streak))


def register(app: typer.Typer) -> None:
    app.command()(hint)
