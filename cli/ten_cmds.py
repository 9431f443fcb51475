"""``tenfold ten wins``, ``tenfold ten solve`` and ``tenfold ten play``: the tile game Ten."""

from __future__ import annotations

import math
import sys
from typing import Annotated, Optional

import typer

from cli import console
from cli.common import cli_errors, emit_json
from cli.inputs import read_json_arg, source_name
from cli.options import FlagsGroup, check_seconds, float_option, int_option
from solver.errors import RulesError
from solver.ten.lines import lines_to_json, threats, winning_moves
from solver.ten.play import play_game
from solver.ten.position import TenPosition, colour_name, parse_position
from solver.ten.search import SolveResult, check_not_over

app = typer.Typer(help="Ten (Steffen Spiele): winning lines, exact solving, and seeded games.",
                  no_args_is_help=True, cls=FlagsGroup)

JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON")]
PositionArg = Annotated[str, typer.Argument(help="tenfold.ten/1 position file, or - for stdin",
                                            metavar="POSITION.json")]


def draw_field(position: TenPosition, mark: tuple[int, int] | None = None) -> str:
    """The field as text: ``W2`` a white 2, ``B3`` a black 3, ``..`` empty; ``mark`` in brackets."""
    if not position.tiles:
        return "(empty field)"
    xs = [x for x, _ in position.tiles]
    ys = [y for _, y in position.tiles]
    lines = ["      " + " ".join(f"{x:>4}" for x in range(min(xs), max(xs) + 1))]
    for y in range(min(ys), max(ys) + 1):
        cells = []
        for x in range(min(xs), max(xs) + 1):
            tile = position.tiles.get((x, y))
            text = "  ." if tile is None else f" {'WB'[tile[0]]}{tile[1]}"
            cells.append(f"[{text[1:]}]" if mark == (x, y) else f" {text}")
        lines.append(f"{y:>5} " + " ".join(cells))
    return "\n".join(lines)


def _hand_text(position: TenPosition) -> str:
    parts = []
    for colour in (0, 1):
        if position.variant == "open":
            held = " ".join(map(str, position.rows[colour])) or "-"
        else:
            s = position.stacks[colour]
            held = f"1x{s[0]} 2x{s[1]} 3x{s[2]}"
        parts.append(f"{colour_name(colour)}: {held}")
    return "   ".join(parts)


def _load(path: str) -> TenPosition:
    """The position a file holds, a game not yet over."""
    name = source_name(path)
    position = parse_position(read_json_arg(path, name), name)
    check_not_over(position, name)
    return position


@cli_errors
def wins(position_file: PositionArg, json_out: JsonOpt = False) -> None:
    """Every move that wins at once for the side to move, and every threat of each player."""
    position = _load(position_file)
    if json_out:
        emit_json(lines_to_json(position))
        return
    typer.echo(draw_field(position))
    mover = colour_name(position.to_move)
    found = winning_moves(position)
    typer.echo(f"{mover} to move: {len(found)} winning move(s)")
    for w in found:
        src = f" from ({w.origin[0]},{w.origin[1]})" if w.origin else ""
        runs = "; ".join(" ".join(f"({x},{y})" for x, y in run) for run in w.runs)
        typer.echo(f"  {w.value} on ({w.x},{w.y}){src} completes {runs}")
    for colour, moves in threats(position).items():
        cells = ", ".join(f"{w.value}@({w.x},{w.y})" for w in moves) or "none"
        typer.echo(f"threats of {colour_name(colour)}: {cells}")


def _from_text(move) -> str:
    """Where a second-round move takes its tile from, for a line of text (nothing for a placement)."""
    return f" from ({move.origin[0]},{move.origin[1]})" if move.origin else ""


def _describe_result(position: TenPosition, result: SolveResult) -> str:
    mover = colour_name(position.to_move)
    lines = [f"{mover} to move: {result.result} (depth {result.depth}, {result.nodes} nodes,"
             f" {result.seconds:.3f} s)"]
    if result.win_probability is not None:
        lines.append(f"probability that {mover} wins within {result.depth} plies: {result.win_probability:.6f}")
    for value, move in sorted(result.best_by_draw.items()):
        lines.append(f"  if {mover} draws a {value}: play it on ({move.x},{move.y})")
    if result.pv:
        steps = []
        turn = position.to_move
        for colour, move in result.pv:
            if colour != turn:  # (the line leaves out a pass: the player to move had no move)
                steps.append(f"{colour_name(turn)} passes")
            turn = 1 - colour
            steps.append(f"{colour_name(colour)} {move.value}@({move.x},{move.y}){_from_text(move)}")
        lines.append("line: " + ", ".join(steps))
    return "\n".join(lines)


@cli_errors
def solve(
    position_file: PositionArg,
    depth: Annotated[Optional[int], int_option(help="plies to look ahead, 1 to 100 (default: to the end of the"
                                                      " placement phase; 4 for hidden stacks, into the"
                                                      " second round if need be)")] = None,
    time_limit: Annotated[float, float_option(
        help="seconds (inf: no limit; Ctrl-C stops it too): the answer is the deepest depth finished by "
             "then")] = 60.0,
    json_out: JsonOpt = False,
) -> None:
    """Win, loss, draw or unknown within N plies (open tiles), or the win probability (hidden stacks)."""
    check_seconds(time_limit, allow_inf=True)
    from solver.ten import solve as solve_position

    position = _load(position_file)
    with console.searching("solving the position", scores=False) as interrupt:
        result = solve_position(position, depth, None if time_limit == math.inf else time_limit)
    if json_out:
        emit_json(result.to_json())
    else:
        typer.echo(draw_field(position))
        typer.echo(_describe_result(position, result))
    if interrupt.requested:
        console.interrupted(f"the answer is the deepest depth finished before Ctrl-C ({result.depth})")


@cli_errors
def play(
    seed: Annotated[int, int_option(help="seed of the rows, the draws and any random choice (0 or more)", min=0)],
    variant: Annotated[str, typer.Option(help="open or hidden")] = "open",
    depth: Annotated[int, int_option(help="plies each player searches", min=1, max=12)] = 4,
    time_limit: Annotated[float, float_option(help="seconds per move")] = 2.0,
    max_plies: Annotated[int, int_option(help="stop the game after this many moves", min=1)] = 120,
    json_out: JsonOpt = False,
) -> None:
    """Play a seeded game between two solver-driven players, drawing the field as it goes."""
    check_seconds(time_limit)
    if variant not in ("open", "hidden"):
        raise RulesError(f"--variant: unknown variant {variant!r} (expected 'open' or 'hidden')")

    def show(position, colour, move, result):
        if json_out and not console.terminal():  # the JSON holds the moves; the drawing is for a person
            return
        extra = "" if result.win_probability is None else f", p(win)={result.win_probability:.3f}"
        typer.echo(f"{colour_name(colour)} plays {move.value} on ({move.x},{move.y}){_from_text(move)}"
                   f"  [{result.result} at depth {result.depth}{extra}]", err=json_out)
        typer.echo(draw_field(position, (move.x, move.y)), err=json_out)
        typer.echo(_hand_text(position) + "\n", err=json_out)

    game = play_game(seed, variant, depth, time_limit, max_plies, on_move=show)
    made = len(game.moves)
    outcome = (f"{colour_name(game.winner)} wins" if game.winner is not None
               else "draw by threefold repetition" if game.drawn else f"no result after {made} move{'s' * (made != 1)}")
    if json_out:
        emit_json({"seed": seed, "variant": variant, "result": outcome,
                   "outcome": "win" if game.winner is not None else "draw" if game.drawn else "unfinished",
                   "winner": None if game.winner is None else colour_name(game.winner),
                   "moves": [m.to_json(c) for c, m in game.moves]})
        return
    typer.echo(outcome)
    sys.stdout.flush()


app.command()(wins)
app.command()(solve)
app.command()(play)
