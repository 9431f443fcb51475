"""Run-wide set-up: the memo directory the test workers share (``shared_memo``); and the
``python_ctrl_c`` fixture."""

from __future__ import annotations

import functools
import os
import shutil
import signal
import tempfile

import pytest
import typer.testing

from shared_memo import ENV

# typer's CliRunner builds the click command from the app's annotations at every invoke (about
# 60 ms, most of a small command's run): the app does not change during a run, and the
# ``tenfold`` script builds it once a process too, so the tests build it once as well (typer's
# private name: a typer without it builds the command at every invoke, as before).
if hasattr(typer.testing, "_get_command"):
    typer.testing._get_command = functools.cache(typer.testing._get_command)

MEMO_DIR = pytest.StashKey[str]()


def pytest_configure(config):
    # the commands the tests start keep Ctrl-C ignored where they inherit it so (a suite run as
    # a background job: ``make test &``), and the tests that stop them with it would fail; so the
    # suite takes Ctrl-C there as in the foreground (the terminal's Ctrl-C stops it too)
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if not os.environ.get("PYTEST_XDIST_WORKER") and ENV not in os.environ:
        # the controller, before it starts the workers (they inherit the variable)
        os.environ[ENV] = config.stash[MEMO_DIR] = tempfile.mkdtemp(prefix="tenfold-memo-")


def pytest_unconfigure(config):
    folder = config.stash.get(MEMO_DIR, None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
        del os.environ[ENV]


@pytest.fixture
def python_ctrl_c():
    """Python's own SIGINT handler (KeyboardInterrupt) for the test, as a command run from a shell
    has it, whatever an earlier test in this worker left; the earlier handler afterwards."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.fixture
def stops_as_ctrl_c():
    """SIGTERM and SIGHUP as the console script takes them (``entry.as_ctrl_c``), for the test."""
    from cli import entry

    previous = [signal.signal(stop, entry.as_ctrl_c) for stop in entry.STOP_SIGNALS]
    yield
    for stop, handler in zip(entry.STOP_SIGNALS, previous):
        signal.signal(stop, handler)
