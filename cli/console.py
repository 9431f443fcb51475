"""The terminal side of a command: lines on stderr, progress bars, a search's live status
line, and Ctrl-C (a search stopped gently; an interrupted command's last line and exit 130)."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from contextlib import contextmanager
from typing import TextIO

import typer

from cli.entry import EXIT_INTERRUPTED  # (defined where nothing else is loaded yet)
from solver import watch

STATUS_EVERY = 0.25  # seconds between redraws of a search's live status line


def is_terminal(stream) -> bool:
    """Whether ``stream`` is a terminal: False for a file, a pipe, and a stream closed or missing."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def say(line: str) -> None:
    """A line on stderr, where it can still be written: a terminal that hung up fails the write
    (EIO), and the exit code is then all the command can tell (it was a traceback)."""
    try:
        typer.echo(line, err=True)
    except (OSError, ValueError):  # (ValueError: stderr closed by Python itself)
        pass


def quiet_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush of a closed pipe is silent
    (Python's documented way out of a broken pipe)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no file descriptor (a test's captured stdout)
        pass


def progress(iterable=None, length: int | None = None, label: str = ""):
    """A progress bar on stderr; off a terminal (a pipe, a log file) nothing at all, where typer's
    bar would still print its label."""
    return typer.progressbar(iterable, length=length, label=label, file=sys.stderr, hidden=not terminal())


def echo_above_progress(text: str) -> None:
    """A line of output while a progress bar is drawn: the bar's line is cleared first (it is
    drawn again at its next step), so that the two do not share a line of the terminal."""
    if terminal():
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()
    typer.echo(text)


def count_text(count: int) -> str:
    """A count as a status line shows it: exact below a million ("12,345"), then in millions
    ("3.5 M"), where "0.0 M" said nothing of a small search's progress."""
    return f"{count:,}" if count < 1_000_000 else f"{count / 1e6:.1f} M"


class SearchStatus:
    """A one-line live status of a level's search: seconds, nodes and the best score so far,
    redrawn in place at most every ``every`` seconds; ``close`` erases it. A ``watch.WATCHERS``
    entry; a node count that falls means a new search began (``solve --method auto``: CP-SAT
    after the search), and adds on.
    CP-SAT's ticks count no nodes: while none are counted the line shows the seconds alone (and
    a best if one was given), not "0.0 M nodes"."""

    def __init__(self, label: str, stream: TextIO, clock=time.monotonic, every: float = STATUS_EVERY,
                 scores: bool = True, unit: str = "nodes") -> None:
        self.label, self.stream, self.clock, self.every = label, stream, clock, every
        self.scores = scores  # False: a search with no score to show (Ten's)
        self.unit = unit  # what the count counts (the expert's lookahead: end states)
        self.start = self.shown = clock()
        self.base = self.last = 0
        self.best: int | None = None
        self.width = 0

    def __call__(self, nodes: int, best: int | None) -> None:
        if nodes < self.last:
            self.base += self.last
        self.last = nodes
        if best is not None and (self.best is None or best > self.best):
            self.best = best
        now = self.clock()
        if now - self.shown < self.every:
            return
        self.shown = now
        text = f"{self.label}: {now - self.start:.1f} s"
        if self.base + nodes:
            text += f", {count_text(self.base + nodes)} {self.unit}"
            if self.scores:
                text += f", best {'-' if self.best is None else self.best}"
        elif self.best is not None:
            text += f", best {self.best}"
        self.stream.write("\r" + text.ljust(self.width))
        self.stream.flush()
        self.width = len(text)

    def close(self) -> None:
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


class Interrupt:
    """Ctrl-C while a search runs: the first press asks it to stop and answer with what it has
    (a ``bound`` answer with the best line so far, as when its time runs out); a second one
    aborts (a KeyboardInterrupt: "interrupted", exit 130), except inside a compiled search, which
    stops by itself at its next clock check. A ``watch.WATCHERS`` entry and the SIGINT handler."""

    def __init__(self) -> None:
        self.requested = False

    def __call__(self, nodes: int, best: int | None) -> bool:
        return self.requested

    def handle(self, signum, frame) -> None:
        if self.requested and not watch.in_compiled:
            watch.interrupt(frame)
        self.requested = True


def terminal() -> bool:
    """Whether stderr is a terminal (not when it is closed: None, or a file that fails)."""
    return is_terminal(sys.stderr)


@contextmanager
def live_status(label: str, status: bool = True, scores: bool = True, unit: str = "nodes"):
    """A ``SearchStatus`` on stderr for the block when ``status`` and stderr is a terminal (like
    the progress bars: logs and pipes get nothing)."""
    line = SearchStatus(label, sys.stderr, every=STATUS_EVERY, scores=scores, unit=unit) \
        if status and terminal() else None
    if line is not None:
        watch.WATCHERS.append(line)
    try:
        yield
    finally:
        if line is not None:
            watch.WATCHERS.remove(line)
            line.close()


@contextmanager
def searching(label: str, status: bool = True, scores: bool = True):
    """Run a search block that Ctrl-C stops gently (yields the ``Interrupt``), with a
    ``live_status``."""
    interrupt = Interrupt()
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, interrupt.handle) if main_thread else None
    watch.WATCHERS.append(interrupt)
    try:
        with live_status(label, status, scores):
            yield interrupt
    finally:
        watch.WATCHERS.remove(interrupt)
        if main_thread:
            signal.signal(signal.SIGINT, previous)


def interrupted(what: str = "") -> None:
    """Say what an interrupted command got done, and exit 130."""
    global interrupt_said
    interrupt_said = True
    say(f"interrupted: {what}" if what else "interrupted")
    raise typer.Exit(EXIT_INTERRUPTED)


interrupt_said = False  # whether ``interrupted`` spoke (typer's own exit 130 for Ctrl-C says nothing)
