"""The ``tenfold`` console script: Ctrl-C is handled from the first moment, before the
commands' modules (numpy, numba, OR-Tools: a second or so) have loaded."""

from __future__ import annotations

import signal
import sys

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it (cli.common's, not imported yet)


def _while_loading(signum, frame) -> None:
    raise KeyboardInterrupt  # (no compiled code runs yet; cli.main.main then sets watch.interrupt)


def main() -> None:
    signal.signal(signal.SIGINT, _while_loading)
    try:
        from cli.main import main as run_command
    except KeyboardInterrupt:
        print("interrupted: before the command started", file=sys.stderr)
        sys.exit(EXIT_INTERRUPTED)
    try:
        run_command()
    except KeyboardInterrupt:  # one that landed outside the command (in typer, or on the way out)
        print("interrupted", file=sys.stderr)
        sys.exit(EXIT_INTERRUPTED)
    finally:  # the command is done: a Ctrl-C now, as the interpreter shuts down, would kill the
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # process (status -2) after its work was done
