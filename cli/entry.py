"""The ``tenfold`` console script: Ctrl-C (and SIGTERM and SIGHUP, taken as Ctrl-C) is handled
from the first moment, before the commands' modules (numpy, numba, OR-Tools: a second or so)
have loaded."""

from __future__ import annotations

import signal
import sys
import time

_LOADED = time.perf_counter()  # this module's loading: a console script's start, as near as Python lets us know
STARTED: float | None = None  # the command's start while one runs as a program (what a hint's time limit counts from)
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it (every command's; cli.console reads it here)
# 128 + SIGPIPE: stdout's reader left (``| head``) before the output was written, reported as shells report
# a program that signal ended (``yes | head``): not 1, which verify's false claims and generate's shortfall use
EXIT_READER_LEFT = 141
_pressed = False  # Ctrl-C came while the modules loaded
_blocked = False  # SIGINT blocked by keep_ctrl_c_ignored
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)  # taken as Ctrl-C (``as_ctrl_c``; serve sets its own SIGTERM)


def _while_loading(signum, frame) -> None:
    global _pressed
    _pressed = True
    raise KeyboardInterrupt  # (no compiled code runs yet; cli.main.main then sets watch.interrupt)


def _from_interrupt(err: BaseException | None) -> bool:
    """Whether ``err`` is a KeyboardInterrupt or was raised from one: Python wraps one raised
    while a class is made (``__set_name__``) in a RuntimeError."""
    seen = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, KeyboardInterrupt):
            return True
        seen.add(id(err))
        err = err.__cause__ or err.__context__
    return False


def _interrupted(when: str) -> None:
    print(f"interrupted{when}", file=sys.stderr)
    sys.exit(EXIT_INTERRUPTED)


def as_ctrl_c(signum, frame) -> None:
    """SIGTERM (a service manager's or ``kill``'s stop) or SIGHUP (the terminal closed), handed
    to what takes Ctrl-C at this moment: a search answers with what it has, a command says
    ``interrupted`` and exits 130, files are written whole or not at all, as for a Ctrl-C.
    Their default killed the process silently, leaving temporary files behind."""
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
    elif handler == signal.SIG_DFL:
        raise KeyboardInterrupt
    else:  # SIG_IGN: the command is done (the interpreter is shutting down): the signal's own end
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)


as_ctrl_c.ctrl_c = True  # (how ``watch.solve_cpsat`` knows a signal stops its solve as Ctrl-C does)


def take_stops_as_ctrl_c() -> None:
    """SIGTERM and SIGHUP as Ctrl-C; one ignored when the process started stays ignored (``nohup``)."""
    for stop in STOP_SIGNALS:
        if signal.getsignal(stop) != signal.SIG_IGN:
            signal.signal(stop, as_ctrl_c)


def keep_ctrl_c_ignored() -> None:
    """A Ctrl-C ignored as the program started stays ignored, as Python leaves it: a script's
    background job (``tenfold ... &``, which the shell starts so, that the terminal's Ctrl-C
    stops the script alone). SIGINT is blocked, never delivered, while the command sets its
    handler as ever: SIGTERM and SIGHUP still reach it (``as_ctrl_c``), so they stop the command
    as Ctrl-C would (the handler alone taking them would need every place that sets one to
    know). The workers forked inherit the block, and ignore Ctrl-C anyway."""
    global _blocked
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN and signal.SIGINT not in signal.pthread_sigmask(
            signal.SIG_BLOCK, []):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        _blocked = True


def _unblock_ctrl_c() -> None:
    """Undo ``keep_ctrl_c_ignored`` once SIGINT is ignored again (a Ctrl-C pending is then
    dropped): a program that ran the command in its process, and what it starts after (exec
    keeps a blocked mask), would never hear Ctrl-C again."""
    global _blocked
    if _blocked:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        _blocked = False


def counting_from_start(started: bool) -> None:
    """Whether the command now running counts its time limits from the program's start
    (``_LOADED``: Python's start up and the modules' loading included), as the console script
    and ``python -m cli.main`` do; a command run otherwise (in-process, as the tests run them)
    counts from its own start."""
    global STARTED
    STARTED = _LOADED if started else None


def main() -> None:
    counting_from_start(True)
    keep_ctrl_c_ignored()
    signal.signal(signal.SIGINT, _while_loading)
    take_stops_as_ctrl_c()  # (while the modules load too)
    try:
        from cli.main import main as run_command
    except BaseException as err:
        if _pressed or _from_interrupt(err):
            _interrupted(": before the command started")
        raise
    if _pressed:  # an interrupt that the import machinery swallowed (a module lock's callback)
        _interrupted(": before the command started")
    try:
        run_command()
    except SystemExit:
        raise
    except BaseException as err:  # one that landed outside the command (typer building it, or
        if _from_interrupt(err):  # on the way out), or inside a class being made
            _interrupted("")
        raise
    finally:  # the command is done: a Ctrl-C now, as the interpreter shuts down, would kill the
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # process (status -2) after its work was done
        _unblock_ctrl_c()
        counting_from_start(False)
