"""Watchers (``solver.watch.WATCHERS``) for the Ctrl-C tests."""

from __future__ import annotations

import os
import signal


def ctrl_c_after(ticks: int, stop: int = signal.SIGINT):
    """A watcher that sends this process SIGINT (Ctrl-C), or ``stop``, at its ``ticks``-th call."""
    calls = []

    def watcher(nodes, best):
        calls.append(nodes)
        if len(calls) == ticks:
            os.kill(os.getpid(), stop)
    return watcher
