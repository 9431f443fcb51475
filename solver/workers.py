"""Worker processes for work shared out an item at a time: a pack's levels (``solve`` and
``verify --workers``) and a generator's candidates (``generate --workers``).

``answers_in_order`` forks its workers (the compiled searches the parent has loaded come with
the fork, and so does the task: only the items and the answers are pickled), hands each worker
one item at a time and yields the answers in the items' order. Stopping early (Ctrl-C's
KeyboardInterrupt, an error, the caller leaving the loop) kills the workers at once. A worker
that dies (killed, out of memory) is a ``WorkerDied`` naming its item, not a wait for ever, as
it was with ``multiprocessing.Pool``, whose ``imap`` never returns a dead worker's task (a
review: ``verify --workers 2`` waited for good after one worker was killed).

A Ctrl-C while the workers are forked is held until they all are (a worker ignores Ctrl-C,
``_start_worker``, and hears of it from its parent): one that landed in a fork's hooks left a
lock held, and the next fork hung (the same review: 18 of 40 Ctrl-Cs sent to the command's
process group as its workers started went wrong, two of them hanging for good).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from multiprocessing.connection import Connection, wait
from typing import Any, TypeVar

from . import watch
from .errors import RulesError, TenfoldError

MAX_WORKERS = 64  # a command forks them all at once
PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent dies

T = TypeVar("T")
R = TypeVar("R")


class WorkerDied(TenfoldError):
    """A worker process ended while it had an item: killed, or out of memory."""


def check_workers(workers: int) -> None:
    if not 1 <= workers <= MAX_WORKERS:
        raise RulesError(f"--workers: expected 1 to {MAX_WORKERS}, got {workers}")


def answers_in_order(task: Callable[[T], R], items: Sequence[T], workers: int,
                     name: Callable[[T], str] = repr) -> Iterator[R]:
    """``task(item)`` for each item, in order, from up to ``workers`` forked processes. An
    exception ``task`` raises is raised here at its item's turn; ``name(item)`` names the item of
    a worker that dies."""
    if not items:
        return
    crew: list[tuple[multiprocessing.process.BaseProcess, Connection]] = []
    try:
        with _ctrl_c_held():
            context = multiprocessing.get_context("fork")
            for _ in range(max(1, min(workers, len(items)))):
                ours, theirs = context.Pipe()
                worker = context.Process(target=_work, args=(task, theirs, os.getpid()), daemon=True)
                crew.append((worker, ours))
                worker.start()
                theirs.close()
        yield from _shared_out(crew, items, name)
        for worker, conn in crew:  # done: each worker ends when told, or at once
            _tell(conn, None)
        for worker, _ in crew:
            worker.join(timeout=5)
    finally:
        for worker, conn in crew:
            if worker.is_alive():
                worker.kill()
            worker.join()
            conn.close()


def _shared_out(crew, items: Sequence[T], name: Callable[[T], str]) -> Iterator[Any]:
    todo = iter(enumerate(items))
    busy: dict[Connection, tuple[int, Any]] = {}  # a worker's connection: its item's index, and the worker
    done: dict[int, tuple[bool, Any]] = {}
    turn = 0

    def feed(worker, conn: Connection) -> None:
        for index, item in todo:
            if _tell(conn, (index, item)):
                busy[conn] = (index, worker)
            else:  # (it died as it answered the item before)
                done[index] = (False, _died(worker, name(item)))
            return

    for worker, conn in crew:
        feed(worker, conn)
    while turn < len(items):
        if turn in done:
            ok, value = done.pop(turn)
            if not ok:
                raise value
            yield value
            turn += 1
            continue
        if not busy:  # (every worker gone: the item whose worker died first comes before this one)
            raise WorkerDied(f"no worker process left for {name(items[turn])}")
        watched: dict[Any, Connection] = {}
        for conn, (_, worker) in busy.items():
            watched[conn] = conn
            watched[worker.sentinel] = conn
        for ready in wait(list(watched)):
            conn = watched[ready]
            if conn not in busy:  # (its answer and its end both ready: taken once)
                continue
            index, worker = busy.pop(conn)
            try:  # (a worker's end with no answer: the end of its pipe, or nothing to read yet)
                got, ok, value = conn.recv() if conn.poll() else (None, None, None)
            except (EOFError, OSError):
                got = None
            if got is None:  # its item fails at its turn; the items before it are still answered
                done[index] = (False, _died(worker, name(items[index])))
                continue
            done[got] = (ok, value)
            feed(worker, conn)


@contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """A Ctrl-C while the block runs is delivered after it, to the handler the command had (on
    the main thread, where Python runs signal handlers; elsewhere the block runs as it is)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: pressed.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if pressed:
            watch.ctrl_c_again()


def _tell(conn: Connection, message: Any) -> bool:
    """Send to a worker; False when it is gone."""
    try:
        conn.send(message)
    except (BrokenPipeError, ConnectionResetError, EOFError):
        return False
    return True


def _died(worker, item: str) -> WorkerDied:
    worker.join(timeout=1)
    code = worker.exitcode
    if code is None:  # (not ended within the second: it closed its end of the pipe)
        how = "its pipe closed"
    elif code < 0:
        how = f"killed by {signal.Signals(-code).name}" + (", perhaps for want of memory" if code == -9 else "")
    else:
        how = f"exit code {code}"
    return WorkerDied(f"a worker process ended ({how}) while on {item}")


def _work(task: Callable[[Any], Any], conn: Connection, parent: int) -> None:
    """A worker: answers items until told to stop (None) or its parent is gone."""
    _start_worker(parent)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        index, item = message
        try:
            reply = (index, True, task(item))
        except Exception as err:  # (raised in the parent at the item's turn)
            reply = (index, False, err)
        try:
            conn.send(reply)
        except Exception as err:  # an answer or an error that does not pickle
            conn.send((index, False, RuntimeError(f"{type(err).__name__}: {err}")))


def _start_worker(parent: int) -> None:
    """A worker forked by process ``parent`` leaves Ctrl-C to the parent (a terminal sends it to
    every process of the command), reports to none of the parent's watchers, and dies with the
    parent. On Linux a parent killed outright (SIGKILL, or SIGTERM's default) would otherwise
    leave it searching for as long as its level's time limit allows (for ever with
    ``--time-limit inf``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # SIGTERM and SIGHUP too, where the parent takes them as Ctrl-C: a service manager's stop reaches
    # every process of the command, and a worker it killed was an error ("a worker process ended")
    for stop in watch.taken_as_ctrl_c():
        signal.signal(stop, signal.SIG_IGN)
    watch.WATCHERS.clear()
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):  # (no prctl: the parent's normal exit still ends it)
            pass
        if os.getppid() != parent:  # the parent died before the line above could take effect
            os._exit(1)
