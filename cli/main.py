"""The ``tenfold`` command: each subcommand parses options, calls the engine, prints."""

from __future__ import annotations

import errno
import io
import os
import signal
import sys

from cli import entry  # (first: python -m cli.main counts a hint's time limit from here, cli.entry's loading)

import typer

try:
    from typer._click import exceptions as click_errors  # typer 0.2x carries its own click
except ImportError:  # pragma: no cover - older typer runs on click itself
    from click import exceptions as click_errors

from cli import campaign_cmds, game_cmds, generate_cmd, tray_cmd
from cli import export_cmd, hint_cmd, serve_cmd
from cli import console, ten_cmds
from cli.common import EXIT_BAD_INPUT
from cli.entry import EXIT_INTERRUPTED, EXIT_READER_LEFT
from cli.options import FlagsGroup
from solver import watch
from solver.jitcache import on_first_compile
from solver.errors import MESSAGE_MOST, clipped


FILE_COMMANDS = ("generate", "export", "render", "serve")  # whose work is the files they write (or serve)


def _closed_streams(argv: list[str]) -> None:
    """A closed stderr (descriptor 2) passes its notes and logs over (serve's request log failed
    every request). A closed stdout is refused where an answer would go there, lost with exit 0;
    a command whose work is its files passes the lines it prints over (a daemon's)."""
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")
    if sys.stdout is None:
        command = next((arg for arg in argv if not arg.startswith("-")), None)
        if command not in FILE_COMMANDS or "--json" in argv:
            print("error: stdout is closed; send it to a file or to /dev/null", file=sys.stderr)
            sys.exit(EXIT_BAD_INPUT)
        sys.stdout = open(os.devnull, "w", encoding="utf-8")


class _NamedStdout(io.FileIO):
    """Descriptor 1, whose write errors name it (``error: stdout: No space left on device`` for
    ``> /dev/full``): an error without a name could as well have been a file's."""

    reader_left = False  # a write found stdout's reader gone (EPIPE)

    def write(self, data):
        try:
            return super().write(data)
        except OSError as err:  # (EPIPE makes a BrokenPipeError still)
            if err.errno == errno.EPIPE:
                _NamedStdout.reader_left = True
            raise OSError(err.errno, err.strerror, "stdout") from None


def _naming_stdout() -> None:
    """The process's stdout written through ``_NamedStdout`` (a test's captured one is left)."""
    stream = sys.stdout
    if stream is None or stream is not sys.__stdout__:
        return
    try:
        fd = stream.fileno()
        stream.flush()
    except (OSError, ValueError, AttributeError):
        return
    raw = _NamedStdout(fd, "w", closefd=False)
    unbuffered = isinstance(getattr(stream, "buffer", None), io.RawIOBase)  # (python -u, PYTHONUNBUFFERED)
    # a character its encoding lacks (a latin-1 terminal: show's stars, the boards' frames) is a ?, as
    # nothing else can show it: it was a traceback (--json is ASCII, with escapes, and loses nothing)
    errors = "replace" if stream.errors == "strict" else stream.errors
    sys.stdout = io.TextIOWrapper(raw if unbuffered else io.BufferedWriter(raw), encoding=stream.encoding,
                                  errors=errors, line_buffering=stream.line_buffering,
                                  write_through=getattr(stream, "write_through", False))


def _usage_message(err: click_errors.UsageError) -> str:
    """A usage error's message; an option's bad value as the commands' own checks say theirs,
    ``--seed: expected 0 or more, got -1`` (click's ``Invalid value for '--seed': ...``)."""
    param = getattr(err, "param", None)
    if isinstance(err, click_errors.BadParameter) and not isinstance(err, click_errors.MissingParameter) \
            and getattr(param, "param_type_name", "") == "option" and err.param_hint is None and param.opts:
        return f"{max(param.opts, key=len)}: {err.message}"
    return err.format_message()


class OneLineErrors(FlagsGroup):
    """The command group, whose usage errors (an unknown option, a value of the wrong type, a
    missing argument) are one ``error:`` line on stderr and exit code 2, as the commands' own
    errors are, instead of typer's framed box."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        console.interrupt_said = False
        _closed_streams(list(sys.argv[1:] if args is None else args))
        _naming_stdout()
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click_errors.NoArgsIsHelpError:
            sys.exit(2)  # typer has printed the help
        except click_errors.UsageError as err:
            where = f" (see '{err.ctx.command_path} --help')" if err.ctx is not None else ""
            console.say(f"error: {clipped(_usage_message(err), MESSAGE_MOST)}{where}")
            sys.exit(err.exit_code)
        except click_errors.ClickException as err:
            console.say(f"error: {clipped(err.format_message(), MESSAGE_MOST)}")
            sys.exit(err.exit_code)
        except typer.Abort:
            console.say("Aborted!")
            sys.exit(1)
        except SystemExit as done:  # typer ends any write to a reader that left (``| head``: the help,
            if done.code == 1 and _NamedStdout.reader_left:  # the version) with exit 1: its EPIPE never gets here
                console.quiet_stdout()
                sys.exit(EXIT_READER_LEFT)
            raise
        except OSError as err:  # ... or that could not be written (``--help > /dev/full``)
            console.quiet_stdout()
            console.say(f"error: {err.filename or 'stdout'}: {err.strerror or err}")
            sys.exit(EXIT_BAD_INPUT)
        # a command's return value, or the code of the typer.Exit it raised
        if code == EXIT_INTERRUPTED and not console.interrupt_said:
            # a Ctrl-C before the command ran (typer reads it as exit 130, silently)
            console.say("interrupted")
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(
    name="tenfold",
    cls=OneLineErrors,
    help="Solver and level generator for 10x10 block puzzles (halloween, arabic, sudoku) and Ten.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)



def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        from generator.pack import GENERATOR_VERSION

        try:
            release = version("tenfold")
        except PackageNotFoundError:  # run from a checkout that was never installed
            release = "(not installed)"
        typer.echo(f"tenfold {release}, generator version {GENERATOR_VERSION} (as packs record it)")
        raise typer.Exit()


@app.callback()
def _options(version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                          help="Print the version (and the generator's, as packs record it) "
                                               "and exit.")) -> None:
    """Solver and level generator for 10x10 block puzzles (halloween, arabic, sudoku) and Ten."""


game_cmds.register(app)
app.add_typer(ten_cmds.app, name="ten")
tray_cmd.register(app)
campaign_cmds.register(app)
generate_cmd.register(app)
export_cmd.register(app)
hint_cmd.register(app)
serve_cmd.register(app)


# Said when a command starts compiling the solver's kernels: about 40 s, in silence, where a
# warm cache loads them in under a second (a stalled progress bar, a solve of a few nodes in 30 s).
COMPILING = ("note: compiling the solver's kernels (numba), once after an install or an update: "
             "up to about a minute")


def main() -> None:
    # Ctrl-C as a KeyboardInterrupt, never raised inside a compiled kernel (watch.interrupt);
    # the console script (cli.entry) handles it while these modules load
    entry.keep_ctrl_c_ignored()  # (python -m cli.main; the console script did it as it started)
    signal.signal(signal.SIGINT, lambda signum, frame: watch.interrupt(frame))
    entry.take_stops_as_ctrl_c()
    if console.terminal():  # (like the progress bars: logs and pipes get nothing)
        on_first_compile(lambda: console.say(f"\r\x1b[K{COMPILING}"))
    app()


if __name__ == "__main__":
    entry.counting_from_start(True)
    main()
