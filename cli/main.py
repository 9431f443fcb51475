"""The ``tenfold`` command: each subcommand parses options, calls the engine, prints."""

from __future__ import annotations

import typer

from cli import campaign_cmds, game_cmds, generate_cmd, tray_cmd
from cli import export_cmd, hint_cmd, serve_cmd
from cli import ten

app = typer.Typer(
    name="tenfold",
    help="Solver and level generator for 10x10 block puzzles (halloween, arabic, sudoku) and Ten.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

game_cmds.register(app)
app.add_typer(ten.app, name="ten")
tray_cmd.register(app)
campaign_cmds.register(app)
generate_cmd.register(app)
export_cmd.register(app)
hint_cmd.register(app)
serve_cmd.register(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
