"""A pack's levels answered by worker processes (``solve`` and ``verify`` with ``--workers``).

The answers come back in the pack's order, each once it and every level before it are done, so
the output is what one process gives (a level's answer does not depend on which process found
it; only, as ever, on its time limit). Ctrl-C in the parent (a KeyboardInterrupt while it waits)
ends the workers at once: the levels under way get no answer.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from generator.pack import MAX_WORKERS
from solver import watch
from solver.errors import RulesError

T = TypeVar("T")
R = TypeVar("R")


def check_workers(workers: int) -> None:
    if not 1 <= workers <= MAX_WORKERS:
        raise RulesError(f"--workers: expected 1 to {MAX_WORKERS}, got {workers}")


def answers_in_order(task: Callable[[T], R], items: Sequence[T], workers: int) -> Iterator[R]:
    """``task(item)`` for each item, in order, from up to ``workers`` forked processes (the
    compiled searches the parent has loaded come with the fork). ``task`` must pickle (a
    module-level function, or a ``functools.partial`` of one). Stopping early (Ctrl-C's
    KeyboardInterrupt, an error, or the caller leaving the loop) ends the workers at once."""
    pool = multiprocessing.get_context("fork").Pool(max(1, min(workers, len(items))), initializer=watch.as_worker,
                                                    initargs=(os.getpid(),))
    try:
        yield from pool.imap(task, items, chunksize=1)
    except BaseException:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut this short
        try:
            pool.terminate()
            pool.join()
        finally:
            signal.signal(signal.SIGINT, previous)
        raise
    pool.close()
    pool.join()
