"""Boards drawn as terminal text: colour when the terminal has it, plain otherwise."""

from __future__ import annotations

import sys

import typer

from solver.bitboard import SIZE, bb_cell
from solver.board import Board

_STYLE = {
    ".": dict(fg=typer.colors.BRIGHT_BLACK),
    "#": dict(fg=typer.colors.CYAN, bold=True),
    "S": dict(fg=typer.colors.WHITE, bg=typer.colors.BLACK, bold=True),
    "P": dict(fg=typer.colors.YELLOW, bold=True),
    "*": dict(fg=typer.colors.MAGENTA, bold=True),
}


def use_colour() -> bool:
    return sys.stdout.isatty()


def draw_board(board: Board, highlight: int = 0, colour: bool | None = None) -> str:
    """The board as 10 lines with a column ruler; ``highlight`` cells are drawn as ``*``."""
    colour = use_colour() if colour is None else colour
    lines = ["   " + " ".join(str(c) for c in range(SIZE))]
    for r in range(SIZE):
        cells = []
        for c in range(SIZE):
            ch = "*" if highlight & bb_cell(r, c) else board.char_at(r, c)
            cells.append(typer.style(ch, **_STYLE[ch]) if colour else ch)
        lines.append(f"{r:2d} " + " ".join(cells))
    return "\n".join(lines)
