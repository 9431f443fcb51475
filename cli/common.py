"""What every command shares: bad input as one line on stderr and exit code 2 (never a
traceback), and JSON on stdout."""

from __future__ import annotations

import functools
import json
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import typer

from cli.console import interrupted, quiet_stdout, say
from cli.entry import EXIT_READER_LEFT
from solver.errors import MESSAGE_MOST, FormatError, TenfoldError, clipped

EXIT_BAD_INPUT = 2
# the arguments one command may read from stdin (- for each); ``path``: the file argument
STDIN_OPTIONS = ("path", "board", "moves", "deals", "after")


def cli_errors(func: Callable) -> Callable:
    """Turn bad input into one line on stderr and exit code 2 — never a traceback."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            stdin = [name for name in STDIN_OPTIONS if kwargs.get(name) == "-"]
            if len(stdin) > 1:  # the first to read it would leave nothing for the next
                raise FormatError(f"{' and '.join('the file argument' if n == 'path' else '--' + n for n in stdin)}"
                                  ": each reads - (stdin), "
                                  "which only one input can; give the others a file")
            return func(*args, **kwargs)
        except TenfoldError as err:
            say(f"error: {clipped(str(err), MESSAGE_MOST)}")
            raise typer.Exit(EXIT_BAD_INPUT) from None
        except BrokenPipeError:  # the reader left (``| head``): it has what it wanted
            quiet_stdout()
            raise typer.Exit(EXIT_READER_LEFT) from None
        except OSError as err:  # a path that cannot be read or written
            where = f" {clipped(str(err.filename), 120)}:" if err.filename else ""
            if err.filename == "stdout":  # (cli.main names it): what it holds is dropped, not tried again at exit
                quiet_stdout()
            say(f"error:{where} {err.strerror or err}")
            raise typer.Exit(EXIT_BAD_INPUT) from None
        except KeyboardInterrupt:  # Ctrl-C where the command keeps nothing
            interrupted()

    return wrapper


def emit_json(data: Any) -> None:
    typer.echo(json.dumps(data, sort_keys=False))


@contextmanager
def naming_option(what: str) -> Iterator[None]:
    """A file-system error inside (one that names a path: a folder that cannot be made, a file
    that cannot be written) as bad input of option ``what``, which the bare error left unsaid."""
    try:
        yield
    except OSError as err:
        if err.filename is None:
            raise
        raise FormatError(f"{what}: {clipped(str(err.filename), 120)}: {err.strerror or err}") from None
